"""One check for "a number, not a bool" (`is_number`), asked wherever an option or an input must be
a number: Python's `True` is an `int`, so `max_nodes=True` would pass a plain `isinstance` check
and quietly mean 1. Each check keeps its own message. Standard library only, so the engine's
neighbours (gradcheck) and the teacher's answers reader (classroom) use it too.
"""

from __future__ import annotations

import numbers

__all__ = ["is_number"]


def is_number(x: object, kind: type | tuple[type, ...] = numbers.Real) -> bool:
    """True when `x` is an instance of `kind` (any real number by default, numpy's too) and
    not a bool.

    >>> is_number(2), is_number(0.5), is_number(True), is_number("2"), is_number(2.0, int)
    (True, True, False, False, False)
    """
    return isinstance(x, kind) and not isinstance(x, bool)
