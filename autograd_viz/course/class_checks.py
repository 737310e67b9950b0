"""The grader of a method a learner writes for their own micrograd-style class (their `__mul__`, a
`sigmoid`): `method_check(base, method, graphs=[on(...), ...])` checks, on several graphs, the
forward value, the new node's parents (every operand reachable, in order where the order changes
the operation: read by `method_parents`), then `check_engine` (which names the first wrong node)
and `gradcheck(engine=...)`. A check whose graphs could let a wrong rule pass (no upstream gradient
other than 1, no computed or reused operand) is refused when its exercise is made.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from autograd_viz.core._watch import LEAVE_GRADS, touched_grads, watching
from autograd_viz.course._verdict import (
    CodeExerciseError,
    Verdict,
    a_,
    forward_wrong,
    not_callable,
    raised,
    read_points,
    show,
    where,
)
from autograd_viz.course.method_parents import (
    _cut_operand,
    _misordered,
    _nodes,
    _operands,
    _parents_hint,
)
from autograd_viz.gradcheck import GradcheckError, gradcheck
from autograd_viz.open.engines.node import is_graph

__all__ = ["method_check", "on"]


@dataclass(frozen=True)
class on:  # noqa: N801 - read as a phrase: on(lambda x, y: x * y, x=0.5, y=-1.5)
    """One graph a `method_check` builds: `build` of leaves of the learner's class, and
    `reference` of the same numbers (`None`: `build` itself, when it also works on floats),
    both taking them by position in the order of `at`, the named inputs.

    >>> on(lambda x, y: (x + 1) * y * 3, x=0.5, y=-1.5).want()
    -6.75
    """

    build: Callable[..., object]
    reference: Callable[..., float] | None
    at: dict[str, float]

    def __init__(
        self,
        build: Callable[..., object],
        reference: Callable[..., float] | None = None,
        **at: float,
    ) -> None:
        if not callable(build) or (reference is not None and not callable(reference)):
            raise CodeExerciseError(
                "on(build, reference, x=..., ...): build is a function of the leaves (e.g. "
                "lambda x, y: x * y), reference of the same numbers, or None"
            )
        if not at:
            raise CodeExerciseError("on(...) needs the inputs, e.g. on(lambda x: x.tanh(), x=0.5)")
        read_points(at.values(), "on")
        object.__setattr__(self, "build", build)
        object.__setattr__(self, "reference", reference)
        object.__setattr__(self, "at", {k: float(v) for k, v in at.items()})

    def want(self) -> float:
        """The right value of the graph's output."""
        return float((self.reference or self.build)(*self.at.values()))

    def run(self, *leaves: object) -> object:
        """The graph, built from `leaves` (by position, in the order of `at`)."""
        return self.build(*leaves)

    @property
    def where(self) -> str:
        return where(self.at)


class method_check:  # noqa: N801 - used like a function: method_check(base, "tanh", graphs=...)
    """Grade a method the learner writes for their own micrograd-style class.

    The learner gives either their whole class or just the method (a function of `self`),
    which is put on the class for the check only (a micrograd-style class makes new nodes by
    its own name, `Value(...)`, so only the class itself carries a method to every node) and
    taken off again afterwards. The class is the one the method's own code names now (its
    globals' `base.__name__`: a learner who re-ran the class's cell has a new class of that
    name), else `base`.

    On each graph (`on(...)`: give several — two different operands, an upstream gradient
    other than 1, an input that is itself computed, a value used twice) the method must run
    without touching any `grad`, give the right value, make nodes whose parents lead back to
    every operand it was given, and pass `check_engine` (every backward rule it uses: the
    first wrong node is named) and `gradcheck(engine=...)`. `build, reference, points` (one
    leaf x at each point) is the short form for one-input graphs.

    >>> check = method_check(MyValue, "__mul__", graphs=[on(lambda x, y: x * y * 3, x=0.5, y=-2)])
    ... # doctest: +SKIP
    """

    def __init__(
        self,
        base: type,
        method: str,
        build: Callable[[object], object] | None = None,
        reference: Callable[[float], float] | None = None,
        points: Sequence[float] = (),
        *,
        graphs: Sequence[on] = (),
        tol: float = 1e-6,
    ) -> None:
        if not isinstance(base, type) or not is_graph(_try_make(base)):
            raise CodeExerciseError(
                f"method_check: base must be a micrograd-style class (base(2.0) gives a node with "
                f"data, grad and _prev), got {base!r}"
            )
        if not isinstance(method, str) or not method.isidentifier():
            raise CodeExerciseError(f"method_check: method must be a method name, got {method!r}")
        cases = list(graphs)
        if build is not None or reference is not None or points:
            if not callable(build) or not callable(reference):
                raise CodeExerciseError(
                    "method_check: build (a function of a leaf, e.g. lambda x: x.tanh()) and "
                    "reference (a function of a float, e.g. math.tanh) must be functions"
                )
            cases += [on(build, reference, x=x) for x in read_points(points, "method_check")]
        if not cases or not all(isinstance(c, on) for c in cases):
            raise CodeExerciseError(
                "method_check: give the graphs to check on, e.g. graphs=[on(lambda x, y: x * y, "
                "x=0.5, y=-1.5), ...] (or build, reference and points)"
            )
        self.base, self.method, self.graphs, self.tol = base, method, tuple(cases), tol

    @property
    def context(self) -> dict[str, object]:
        """Names a model answer's code may use: the base class, under its own name."""
        return {self.base.__name__: self.base}

    def _class_for(self, obj: object) -> type:
        """The class to check on: the learner's whole class, else the class their method's
        code names now (a re-run class cell made a new one), else the base."""
        if isinstance(obj, type):
            return obj
        code = getattr(obj, "__func__", obj)
        now = getattr(code, "__globals__", {}).get(self.base.__name__)
        if isinstance(now, type) and now is not self.base and is_graph(_try_make(now)):
            return now
        return self.base

    def __call__(self, obj: object, name: str = "method") -> Verdict:
        if isinstance(obj, type):
            if not callable(getattr(obj, self.method, None)):
                return Verdict(
                    False,
                    f"Your class `{obj.__name__}` has no `{self.method}` method.",
                    f"add `def {self.method}(self, ...):` inside the class and run its cell again.",
                )
        else:
            wrong = not_callable(name, obj)
            if wrong is not None:
                return wrong
        cls = self._class_for(obj)
        method = getattr(cls, self.method) if isinstance(obj, type) else obj
        shown = self.method if isinstance(obj, type) else name
        with _installed(cls, self.method, method) as calls:
            for case in self.graphs:
                calls.clear()
                verdict = self._on(cls, case, calls, shown)
                if verdict is not None:
                    return verdict
        return Verdict(True, f"Your `{shown}` gives the right values and gradients.")

    def missing_kinds(self, obj: object) -> list[str]:
        """The kinds of graph a right method `obj` never meets in these graphs (an exercise
        whose check lacks one is refused when it is made): "upstream gradient ≠ 1",
        "computed operand", "reused operand", and for a method of two nodes "two different
        operands"."""
        kinds = self.coverage(obj)
        need = ["upstream gradient ≠ 1", "computed operand", "reused operand"]
        if "a node as second operand" in kinds:
            need.insert(0, "two different operands")
        return [k for k in need if k not in kinds]

    def coverage(self, obj: object) -> set[str]:
        """The kinds of graph the checks put a right method `obj` through: "a node as second
        operand", "two different operands", "upstream gradient ≠ 1", "computed operand",
        "reused operand"."""
        cls = self._class_for(obj)
        method = getattr(cls, self.method) if isinstance(obj, type) else obj
        kinds: set[str] = set()
        with _installed(cls, self.method, method) as calls:
            for case in self.graphs:
                calls.clear()
                out = case.run(*(cls(v) for v in case.at.values()))
                out.backward()
                uses: dict[int, int] = {}
                for node in _nodes(out):
                    for p in _operands(node):
                        uses[id(p)] = uses.get(id(p), 0) + 1
                for node, args, made in calls:
                    operands = [node, *(a for a in args if is_graph(a))]
                    if len(operands) > 1:
                        kinds.add("a node as second operand")
                    if any(o.data != node.data for o in operands[1:]):
                        kinds.add("two different operands")
                    if made.grad != 1:
                        kinds.add("upstream gradient ≠ 1")
                    if any(_operands(o) for o in operands):
                        kinds.add("computed operand")
                    if any(uses.get(id(o), 0) > 1 for o in operands):
                        kinds.add("reused operand")
        return kinds

    def _on(self, cls: type, case: on, calls: list, shown: str) -> Verdict | None:
        from autograd_viz.open.door import check_engine

        at = case.where
        try:
            leaves = {k: cls(v) for k, v in case.at.items()}
            for k, leaf in leaves.items():
                with contextlib.suppress(AttributeError):  # __slots__ without a label: unnamed
                    leaf.label = k
            with watching() as seen:
                out = case.run(*leaves.values())
        except Exception as err:
            return raised(shown, err, at)
        if not is_graph(out):
            return Verdict(
                False,
                f"At {at} your `{shown}` returned {a_(type(out).__name__)}, "
                "not a node of your class.",
                f"make the result with your class, e.g. `out = {cls.__name__}(..., (self,), "
                f"'{self.method.strip('_')}')`, and return out.",
            )
        touched = touched_grads(seen, getattr(cls, "backward", None), _nodes(out))
        if touched:
            return Verdict(False, f"At {at} your `{shown}` {touched}.", LEAVE_GRADS)
        want = case.want()
        try:
            got = float(out.data)
        except (TypeError, ValueError):
            return Verdict(False, f"At {at} your `{shown}` gave data {out.data!r}, not a number.")
        if not math.isclose(got, want, rel_tol=self.tol, abs_tol=self.tol):
            return forward_wrong(shown, at, got, want, "the right value")
        for node, args, made in calls:
            cut = _cut_operand(node, args, made)
            if cut is not None:
                hint = _parents_hint(cls, len(args))
                return Verdict(False, f"At {at} the node your `{shown}` made {cut}.", hint)
            swapped = _misordered(node, args, made)
            if swapped is not None:
                hint = (
                    f"list the parents in operand order: `{cls.__name__}(..., (self, other), ...)`."
                )
                return Verdict(False, f"At {at} the node your `{shown}` made {swapped}.", hint)
        try:
            report = check_engine(out)
        except Exception as err:
            return raised(shown, err, at)
        wrong = next((f for f in report.findings if f.node is not None), None)
        if wrong is not None:
            # the first node whose gradient is wrong: the operand the wrong rule sent to
            node = wrong.name if wrong.operand is None else report.names[wrong.operand]
            return Verdict(False, f"At {at} {wrong.message}.", wrong.hint, node=node)
        return self._gradient(cls, case, shown)

    def _gradient(self, cls: type, case: on, shown: str) -> Verdict | None:
        try:
            report = gradcheck(
                lambda **kw: case.run(*(kw[k] for k in case.at)), case.at, engine=cls
            )
        except GradcheckError as err:
            return Verdict(False, f"At {case.where} the gradient cannot be checked: {err}.")
        except Exception as err:
            return raised(shown, err, f"{case.where} (nudged)")
        for name in case.at:
            row = report[name]
            if not row.ok:
                return Verdict(
                    False,
                    f"At {case.where} your backward() gives {name}.grad = {show(row.analytic)}, "
                    f"but nudging {name} measures {show(row.numeric)}.",
                    f"check the `_backward` inside `{shown}`: each operand gets its local "
                    "derivative times out.grad, with +=.",
                    node=name,
                )
        return None


@contextlib.contextmanager
def _installed(cls: type, name: str, method: Callable) -> Iterator[list]:
    """Put `method` on `cls` as `name` for the block, recording each call as (self, args,
    result) in the list it yields; the class is left as it was."""
    calls: list[tuple[object, tuple, object]] = []

    def recorded(node: object, *args: object) -> object:
        out = method(node, *args)
        calls.append((node, args, out))
        return out

    missing = object()
    saved = cls.__dict__.get(name, missing)
    setattr(cls, name, recorded)
    try:
        yield calls
    finally:
        if saved is missing:
            delattr(cls, name)
        else:
            setattr(cls, name, saved)


def _try_make(cls: type) -> object:
    try:
        return cls(2.0)
    except Exception:
        return None
