"""What `explore(f, x=2, y=3)` is given, checked before `f` ever runs: `f` is a function whose
named inputs are exactly the ones given a starting number (positional-only ones in order, `*args`
refused: their names cannot be told apart), each a finite float, with a slider around it; and
how to call `f` with fresh Values on every change. Each refusal says what to write instead.
"""

from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Callable, Mapping
from typing import Any

from autograd_viz.core._checks import is_number
from autograd_viz.core.errors import ExploreError
from autograd_viz.engine import Value

__all__ = ["arguments", "check_f", "number_input", "short", "slider_spec"]


def slider_spec(name: str, value: float) -> dict[str, Any]:
    """A slider around the starting value: ± max(5, 2|value|), in about 200 steps (narrower
    near the largest float, 1.8e308, so both ends stay finite)."""
    largest = sys.float_info.max
    reach = min(max(5.0, 2 * abs(value)), largest / 2)
    step = 10.0 ** math.floor(math.log10(reach / 100))
    low, high = max(value - reach, -largest), min(value + reach, largest)
    return {"name": name, "value": value, "min": low, "max": high, "step": step}


def number_input(name: str, value: object) -> float:
    if not is_number(value):
        raise ExploreError(
            f"explore(): input {name} must be a number, got {type(value).__name__} "
            f"{short(value)}; write e.g. explore(f, {name}=2)"
        )
    try:
        value = float(value)
    except OverflowError:
        raise ExploreError(
            f"explore(): input {name} is too large for a float (about {len(str(abs(int(value))))}"
            " digits; the largest float is about 1.8e308): start from a smaller number"
        ) from None
    if not math.isfinite(value):
        raise ExploreError(f"explore(): input {name} must be a finite number, got {value!r}")
    return value


def short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def arguments(f: Callable, leaves: dict[str, Value]) -> tuple[list, dict]:
    """How to call f with the leaves: positional-only inputs by position, the rest by name."""
    try:
        params = inspect.signature(f).parameters
    except (TypeError, ValueError):
        return [], dict(leaves)
    rest = dict(leaves)
    args = [rest.pop(n) for n, p in params.items() if p.kind is p.POSITIONAL_ONLY and n in rest]
    return args, rest


def check_f(f: object, inputs: Mapping[str, object]) -> None:
    """f is callable and takes exactly the inputs given (each with a starting number)."""
    if not callable(f):
        raise TypeError(
            f"explore(f, ...): f must be a function of Values, got {type(f).__name__} {f!r}; "
            "e.g. explore(lambda x, y: (x + y) * y, x=2, y=3)"
        )
    if not inputs:
        raise ExploreError(
            "explore(f) needs a starting number for each input of f, e.g. explore(f, x=2, y=3)"
        )
    example, called = ", ".join(inputs), getattr(f, "__name__", "f")
    called = called if called.isidentifier() else "f"
    wrap = f"explore(lambda {example}: {called}({example}), "
    wrap += ", ".join(f"{n}=..." for n in inputs) + ")"
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):  # a builtin such as max: its inputs have no names to read
        raise ExploreError(
            f"explore(): the inputs of {getattr(f, '__name__', 'f')} have no names explore "
            f"can read; wrap it in a function that names them: {wrap}"
        ) from None
    params = signature.parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    named = [n for n, p in params.items()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]  # fmt: skip
    starred = any(p.kind is p.VAR_POSITIONAL for p in params.values())
    if starred and not takes_any and any(name not in named for name in inputs):
        raise ExploreError(
            f"explore(): f takes its inputs as *{_var_name(params)}, so explore cannot tell "
            f"which is which by name; wrap it in a function that names them: {wrap}"
        )
    posonly = [n for n, p in params.items() if p.kind is p.POSITIONAL_ONLY]
    given = [n in inputs for n in posonly]
    if given != sorted(given, reverse=True):  # a gap: a later one cannot be passed in place
        starts = ", ".join(f"{n}=..." for n in posonly)
        raise ExploreError(
            f"explore(): f's inputs {', '.join(posonly)} are positional-only: give a starting "
            f"number for each of them, in order, e.g. explore(f, {starts})"
        )
    if not takes_any:
        for name in inputs:
            if name not in named:
                raise ExploreError(
                    f"explore(): f takes no input named {name!r}; its inputs are "
                    f"{', '.join(named) or 'none'}"
                )
    missing = [n for n in named if n not in inputs and params[n].default is inspect.Parameter.empty]
    if missing:
        raise ExploreError(
            f"explore(): f takes {', '.join(missing)} but no starting number was given for "
            f"{'it' if len(missing) == 1 else 'them'}: explore(f, "
            + ", ".join(f"{n}=..." for n in [*inputs, *missing])
            + ")"
        )


def _var_name(params: Mapping[str, inspect.Parameter]) -> str:
    return next(n for n, p in params.items() if p.kind is p.VAR_POSITIONAL)
