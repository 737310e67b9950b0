"""One check for "a number, not a bool" (`is_number`), asked wherever an option or an input must be
a number: Python's `True` is an `int`, so `max_nodes=True` would pass a plain `isinstance` check
and quietly mean 1. Each check keeps its own message, but the counts (`max_nodes`, `max_frames`:
`check_count`, `as_count`) all say the same, and every whole-number option (`whole`) takes numpy's
integers as Python's own. Standard library only, so the engine's neighbours (gradcheck) and the
teacher's answers reader (classroom) use it too.
"""

from __future__ import annotations

import numbers

__all__ = ["as_count", "check_count", "is_number", "whole"]


def is_number(x: object, kind: type | tuple[type, ...] = numbers.Real) -> bool:
    """True when `x` is an instance of `kind` (any real number by default, numpy's too) and
    not a bool.

    >>> is_number(2), is_number(0.5), is_number(True), is_number("2"), is_number(2.0, int)
    (True, True, False, False, False)
    """
    return isinstance(x, kind) and not isinstance(x, bool)


def check_count(value: object, name: str, error: type[Exception] = ValueError) -> int:
    """`value` as an int if it counts something (`max_nodes`, `max_frames`): a whole number of
    at least 1 (numpy's too: a count computed with numpy is still a count), not a bool; else
    `error` saying so, e.g. `max_frames must be a positive int, got 2.5`.

    >>> import numpy as np
    >>> check_count(30, "max_nodes"), check_count(np.int64(30), "max_nodes")
    (30, 30)
    >>> check_count(True, "max_nodes")
    Traceback (most recent call last):
    ValueError: max_nodes must be a positive int, got True
    """
    count = as_count(value)
    if count is None:
        raise error(f"{name} must be a positive int, got {value!r}")
    return count


def as_count(value: object) -> int | None:
    """The int that `value` stands for if it is a count (as `check_count` takes it), else None:
    for a guard that must count with the same number the option check later accepts.

    >>> import numpy as np
    >>> as_count(np.int64(30)), as_count(30.0), as_count(0)
    (30, None, None)
    """
    count = whole(value)
    return count if count is not None and count >= 1 else None


def whole(value: object) -> int | None:
    """`value` as a plain int if it is a whole number (numpy's too, not a bool), else None: for
    options that count or measure in whole units (`history`, `columns`, `width`), so that a
    number computed with numpy is taken and stored as Python's own.

    >>> import numpy as np
    >>> whole(np.int32(3)), whole(3), whole(3.0), whole(True)
    (3, 3, None, None)
    """
    return int(value) if is_number(value, numbers.Integral) else None
