"""An unknown option, reported as the learner typed it: options flow inwards (`z.animate(...)` to
the player, to `Frames`, to `DrawOptions`), so the innermost check that meets a misspelt option
cannot say `animate() got an unknown option 'projecter'` by itself. `unknown_option` reads the call
stack instead: the outermost of this package's functions is the one the learner called, and the
keyword options of every package function between it and the check, plus the drawing options, are
what that call accepts.
"""

from __future__ import annotations

import difflib
import inspect
import sys
from collections.abc import Sequence

from autograd_viz.core._watch import PACKAGE_DIR

__all__ = ["unknown_option"]

_INTERNAL = {"before_layout"}  # keywords the package passes to itself, not for learners


def unknown_option(key: str, inner: Sequence[str]) -> TypeError:
    """The TypeError for option `key`, which no function on the way in accepted; `inner`
    are the options of the check that found it (e.g. the drawing options)."""
    name, accepted = "this function", []
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        found = _function(frame)
        if found is not None:
            name = found[0]
            accepted = [*found[1], *accepted]
        frame = frame.f_back
    options = list(dict.fromkeys([*accepted, *inner]))
    close = difflib.get_close_matches(key, options, n=1)
    hint = f" (did you mean {close[0]}=?)" if close else ""
    return TypeError(
        f"{name}() got an unknown option {key!r}{hint}; its options are {', '.join(options)}"
    )


def _function(frame) -> tuple[str, list[str]] | None:
    """A public function's (or class's) name and keyword options, for a frame running it."""
    code = frame.f_code
    owner = frame.f_locals.get("self")
    cls = frame.f_locals.get("cls")
    if code.co_name == "__init__" and owner is not None:  # the class called; this __init__: options
        inits = (vars(k).get("__init__") for k in type(owner).__mro__)
        function = next((f for f in inits if getattr(f, "__code__", None) is code), type(owner))
        name = type(owner).__name__
    elif code.co_name.startswith("_"):
        return None
    elif isinstance(cls, type):  # a classmethod: DrawOptions.of
        function, name = getattr(cls, code.co_name, None), f"{cls.__name__}.{code.co_name}"
    elif owner is not None:
        function, name = getattr(type(owner), code.co_name, None), code.co_name
    else:
        function, name = frame.f_globals.get(code.co_name), code.co_name
    if function is None or name.startswith("_"):
        return None
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return name, []
    keywords = [
        p.name
        for p in parameters
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.default is not p.empty
        and p.name not in _INTERNAL
    ]
    return name, keywords
