"""Watching a learner's code run: which functions it entered, and whether it recursed. Questions
about what a learner's code does (does it call `backward()`, recurse, use the engine's own
`topological_order()`) are answered by running it under a profiler hook (`sys.setprofile`), never
by reading its text: a comment, a docstring or a string that mentions a name changes nothing, and a
helper or an alias that makes the call is still seen. Only Python functions are seen (a builtin has
no code object), which is all these questions need; `touched_grads` words what a function that only
had to build a graph did to the gradients.

>>> def visit(n):
...     return 0 if n == 0 else visit(n - 1)
>>> with watching() as seen:
...     _ = visit(3)
>>> seen.recursion
('visit', 4)
"""

from __future__ import annotations

import contextlib
import numbers
import os
import sys
import sysconfig
import types
from collections.abc import Iterable, Iterator

from autograd_viz.core._numbers import format_number

__all__ = ["LEAVE_GRADS", "PACKAGE_DIR", "Watch", "touched_grads", "watching"]

# the kit's own files: code under it is the kit's, never the learner's (`_theirs`, the time
# limit, the graders, a warning's stack level, the unknown-option check)
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _library_dirs() -> tuple[str, ...]:
    """The folders of the standard library and installed packages: sysconfig's, and the one
    the standard library is really loaded from. In the browser edition that is a zip
    (/lib/python314.zip) that sysconfig does not name; counted as the learner's, contextlib's
    `__exit__` got the time limit's `_TimeUp` outside the limit's own handler."""
    paths = sysconfig.get_paths()
    found = [paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")]
    found.append(os.path.dirname(contextlib.__file__))
    return tuple(dict.fromkeys(os.path.abspath(p) + os.sep for p in found if p))


_LIBRARIES = _library_dirs()


def _theirs(frame: types.FrameType) -> bool:
    """Whether `frame` runs the learner's code (a notebook cell, a test), not the kit's or a
    library's. Text run by `exec` has no file and is theirs (a model answer, a doctest), except
    what Python writes for a class: a namedtuple's `__new__`, a dataclass's `__init__`."""
    code = frame.f_code
    name = code.co_filename
    if name.startswith("<frozen "):  # the standard library's frozen modules (posixpath)
        return False
    if name.startswith("<") and name.endswith(">"):
        generated = code.co_qualname.startswith("__create_fn__.") or str(
            frame.f_globals.get("__name__")
        ).startswith("namedtuple_")
        return not generated
    path = os.path.abspath(name)
    return not path.startswith(PACKAGE_DIR) and not path.startswith(_LIBRARIES)


class Watch:
    """What the code run inside `watching()` did: the functions it entered (`entered`) and
    the deepest nesting of one of the learner's own functions inside itself (`recursion`)."""

    def __init__(self) -> None:
        self.entered: set[types.CodeType] = set()
        self._depth: dict[types.CodeType, int] = {}
        self._deepest: tuple[types.CodeType, int] | None = None

    def _event(self, frame: types.FrameType, event: str, arg: object) -> None:
        if event == "call":
            code = frame.f_code
            if code.co_filename == __file__:  # `watching` itself, as its block ends
                return
            self.entered.add(code)
            if _theirs(frame):
                depth = self._depth.get(code, 0) + 1
                self._depth[code] = depth
                if depth > 1 and (self._deepest is None or depth > self._deepest[1]):
                    self._deepest = (code, depth)
        elif event == "return":
            code = frame.f_code
            if code in self._depth:
                self._depth[code] -= 1

    @property
    def recursion(self) -> tuple[str, int] | None:
        """(name, depth) of the learner's function that ran deepest inside itself, or None."""
        if self._deepest is None:
            return None
        code, depth = self._deepest
        return code.co_name, depth

    def called(self, *functions: object) -> bool:
        """Whether any of `functions` (Python functions or methods) ran."""
        codes = {getattr(getattr(f, "__func__", f), "__code__", None) for f in functions}
        return bool(codes & self.entered)

    def named(self, name: str) -> list[types.CodeType]:
        """The code of every function called `name` that ran."""
        return [code for code in self.entered if code.co_name == name]


@contextlib.contextmanager
def watching() -> Iterator[Watch]:
    """Record what the code in the block calls (the previous profiler is put back after)."""
    watch = Watch()
    previous = sys.getprofile()
    sys.setprofile(watch._event)
    try:
        yield watch
    finally:
        sys.setprofile(previous)


LEAVE_GRADS = (
    "build the graph and return it; backward() is the caller's to run, once, when the whole "
    "graph is built (gradients add up: a second run counts everything twice)."
)


def touched_grads(seen: Watch, backward: object, nodes: Iterable[object]) -> str:
    """What the learner's code did to the gradients while it only had to build a graph:
    '' for nothing, else the words for it ('calls backward() itself')."""
    if seen.called(backward):
        return "calls backward() itself, so the gradients are counted before the caller's run"
    for node in nodes:
        grad = getattr(node, "grad", 0)
        if isinstance(grad, numbers.Real) and grad != 0:
            shown = format_number(grad)
            return (
                f"changes .grad while building the graph (a node holds grad = {shown} before "
                "any backward pass: a `_backward` run by hand, or .grad set)"
            )
    return ""
