"""The checks behind the lessons' code exercises, in one place the notebooks and tests share.

Each notebook's `CodeExercise` takes its check from here, so `tests/` can try typical wrong
answers on the very check a learner meets (`autograd_viz.lesson_answers` lists them). Each
check uses several cases — two different operands, an upstream gradient other than 1, an
input that is itself computed, a value used twice, where the task has them — and asks
what the learner's code does by running it (`autograd_viz._watch`: does it recurse, call
`backward()`, the engine's `topological_order()`, the class's own `*`?), never by searching
its text. Whatever a check needs (a softmax, a class) is its own or is looked up when it
runs, never a notebook global the learner may have rebound.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Callable

from autograd_viz._verdict import Verdict, raised, show
from autograd_viz._watch import _PACKAGE, Watch, watching
from autograd_viz.code_checks import on
from autograd_viz.engine import Value

__all__ = [
    "DIV_GRAPHS",
    "MUL_GRAPHS",
    "SIGMOID_GRAPHS",
    "by_hand_backward_check",
    "central_difference_check",
    "cross_entropy_grad_check",
    "dual_mul_check",
    "neuron_check",
    "topological_order_check",
]


def _sigmoid(a: float) -> float:
    return 1 / (1 + math.exp(-a))


def _sigmoid_of_square(x: object) -> object:
    y = x * x  # z = σ(y)·y with y = x·x: y is computed, and used twice
    return y.sigmoid() * y


# ---- 04: a sigmoid method; 08: division; 09: multiplication (method_check graphs) -----------

SIGMOID_GRAPHS = (
    on(lambda x: x.sigmoid(), _sigmoid, x=0.5),
    on(lambda x: x.sigmoid() * x, lambda x: x * _sigmoid(x), x=-2.0),
    on(lambda x, y: (x * y).sigmoid() * 3, lambda x, y: 3 * _sigmoid(x * y), x=1.5, y=-0.5),
    on(_sigmoid_of_square, lambda x: _sigmoid(x * x) * x * x, x=0.5),
    on(lambda x: x.sigmoid() * x, lambda x: x * _sigmoid(x), x=3.0),
)
"""σ alone, σ(x)·x (x used twice, upstream x), σ(x·y)·3 (computed input, upstream 3) and
σ(y)·y with y = x·x (the graph where a sigmoid with no parents gives 0.5622 for 0.6237)."""

MUL_GRAPHS = (
    on(lambda x, y: x * y, x=0.5, y=-1.5),
    on(lambda x, y: x * y * 3, x=2.0, y=-0.25),
    on(lambda x, y: (x + 1) * y, x=0.5, y=-1.5),
    on(lambda x, y: x * (y + 2), x=-0.75, y=0.5),
    on(lambda t: t * t + t, t=3.0),
    on(lambda x, y: (x * y) * (x + y), x=1.5, y=-2.0),
    on(lambda x, y: x * y + y, x=0.0, y=2.5),
)
"""x·y (two different operands), x·y·3 (upstream 3), (x + 1)·y and x·(y + 2) (a computed
operand on each side), t·t + t (a value used twice), (x·y)·(x + y) and x·y + y at x = 0."""

DIV_GRAPHS = (
    on(lambda x, y: x / y, x=1.5, y=-0.5),
    on(lambda x, y: x / y * 3, x=2.0, y=0.25),
    on(lambda x, y: (x + 1) / (y * y), x=0.5, y=-1.5),
    on(lambda t: t / t, t=0.75),
    on(lambda t: (t + 1) / t + t / 4, t=0.5),
    on(lambda t: (t + 1) / t + t / 4, t=-1.5),
)
"""x/y (two operands), x/y·3 (upstream 3), (x + 1)/(y·y) (computed operands), t/t (a value
used twice: the slope is 0) and (t + 1)/t + t/4 (a number divisor)."""


# ---- 05: a topological order without recursion -------------------------------------------


def _name(v: Value) -> str:
    return v.label or f"{v.data:g}"


def _topo_graphs() -> list[tuple[str, Value]]:
    def named(v: Value, label: str) -> Value:
        v.label = label
        return v

    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    c = named(a * b, "c")
    d = named(c + b, "d")
    example = named(2 * d, "L")
    e_a = Value(2.0, label="a")
    reused = named(e_a + named(e_a * e_a, "a·a"), "e")
    q = Value(1.5, label="q")
    left = named(named(q * 2, "q·2") + q, "r")
    q2 = Value(1.5, label="q")
    right = named(q2 + named(q2 * 2, "q·2"), "r")
    x1, w1, x2, w2 = (Value(v, label=n) for v, n in [(2, "x1"), (-3, "w1"), (0, "x2"), (1, "w2")])
    neuron = named((x1 * w1 + x2 * w2 + Value(6.88, label="b")).tanh(), "o")
    deep = Value(1.0, label="x")
    for _ in range(3_000):
        deep = deep * 1.0
    return [
        ("L = 2·(a·b + b)", example),
        ("e = a + a·a", reused),
        ("r = q·2 + q", left),
        ("r = q + q·2", right),
        ("o = tanh(x1·w1 + x2·w2 + b)", neuron),
        ("a single value", Value(4.0, label="v")),
        ("a 3,000-step chain", deep),
    ]


def topological_order_check(topo: Callable, name: str = "my_topological_order") -> Verdict:
    """Grade topo(root) on seven graphs: every node once, each after its parents, root last,
    with no recursion (watched as it runs: raising the recursion limit does not hide it) and
    without the engine's own `topological_order()`."""
    limit = sys.getrecursionlimit()
    try:
        for what, root in _topo_graphs():
            verdict = _topo_on(topo, name, what, root)
            if verdict is not None:
                return verdict
    finally:
        sys.setrecursionlimit(limit)  # theirs may have raised it
    return Verdict(
        True,
        f"Your `{name}` places every node after its parents on seven graphs, 3,000 deep too, "
        "without recursion.",
    )


def _topo_on(topo: Callable, name: str, what: str, root: Value) -> Verdict | None:
    try:
        with watching() as seen:
            order = topo(root)
    except RecursionError:
        return Verdict(
            False,
            f"On {what} it hit Python's recursion limit.",
            "keep the nodes still to visit on a list (a stack) instead of calling the function "
            "again.",
        )
    except Exception as err:
        return raised(name, err, f"on {what}")
    if seen.called(Value.topological_order):
        return Verdict(
            False,
            f"On {what} it uses the engine's own topological_order().",
            "write the loop yourself: a list as a stack, and a visited set.",
        )
    if seen.recursion is not None:
        fn, depth = seen.recursion
        return Verdict(
            False,
            f"On {what} your `{fn}` calls itself ({depth} calls deep): that is recursion, "
            "which a long chain takes past Python's limit.",
            "keep the nodes still to visit on a list (a stack) instead of calling the function "
            "again.",
        )
    if not isinstance(order, list):
        return Verdict(
            False, f"On {what} it returned {type(order).__name__}, not a list of Values."
        )
    place = {id(v): i for i, v in enumerate(order)}
    if len(place) < len(order):
        return Verdict(False, f"On {what} it lists a node twice: a visited set places each once.")
    nodes = root.topological_order()
    if len(order) != len(nodes) or any(id(v) not in place for v in nodes):
        return Verdict(
            False,
            f"On {what} it lists {len(order)} nodes; the graph has {len(nodes)}: every node, "
            "each once.",
        )
    for v in order:
        for p in v.parents:
            if place[id(p)] > place[id(v)]:
                return Verdict(
                    False,
                    f"On {what} it places {_name(v)} before its parent {_name(p)}: a node goes "
                    "after all of its parents.",
                )
    if order[-1] is not root:
        return Verdict(False, f"On {what} the root is not last.")
    return None


# ---- 06: a central difference ----------------------------------------------------------------

_SLOPES = (
    ("x**3", lambda t: t**3, 2.0, 0.01),
    ("sin", math.sin, 1.0, 0.01),
    ("exp", math.exp, 0.5, 0.01),
    ("x**3", lambda t: t**3, -1.0, 0.1),
)


def central_difference_check(slope: Callable, name: str = "central_difference") -> Verdict:
    """Compare slope(f, x, h) with (f(x + h) − f(x − h)) / 2h for four functions and two h."""
    for text, f, x, h in _SLOPES:
        call = f"{name}({text}, {x:g}, {h:g})"
        try:
            got = slope(f, x, h)
        except Exception as err:
            return raised(name, err, f"{text}, x = {x:g}, h = {h:g}")
        if not isinstance(got, numbers.Real) or isinstance(got, bool):
            return Verdict(False, f"{call} gave {got!r}, not a number: return the slope.")
        want = (f(x + h) - f(x - h)) / (2 * h)
        if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            continue
        if math.isclose(got, (f(x + h) - f(x)) / h, rel_tol=1e-9):
            why = "that is the one-sided difference; nudge both sides."
        elif math.isclose(got, 2 * want, rel_tol=1e-9):
            why = "twice the slope: divide by 2h, the distance from x − h to x + h."
        elif math.isclose(got, -want, rel_tol=1e-9):
            why = "the slope with its sign flipped: f(x + h) comes first."
        else:
            why = f"the central difference with this h is {want:.6f}."
        return Verdict(False, f"{call} gave {got:.6f}: {why}")
    return Verdict(True, f"Your `{name}` measures slopes as gradcheck does.")


# ---- 07: a neuron ----------------------------------------------------------------------------

_NEURONS = (
    ([0.5, -1.0], [1.0, 0.0], 0.25),
    ([0.8, 0.6], [1.0, 1.0], -0.2),
    ([-0.7, 0.4], [1.0, 0.5], 0.1),
    ([1.5, -0.5, 2.0], [0.2, 1.0, 0.5], 0.3),
)


def neuron_check(f: Callable, name: str = "my_neuron") -> Verdict:
    """Grade f(w, x, b) = ReLU(w·x + b) on four neurons (one with its ReLU closed), then on
    one whose inputs are computed from a leaf t and are the same value twice, under an
    upstream gradient of 2.5: the output, then every gradient."""
    for wn, xn, bn in _NEURONS:
        w = [Value(v, label=f"w{i}") for i, v in enumerate(wn, 1)]
        x = [Value(v, label=f"x{i}") for i, v in enumerate(xn, 1)]
        b = Value(bn, label="b")
        where = "w = ({}), x = ({}), b = {:g}".format(
            ", ".join(f"{v:g}" for v in wn), ", ".join(f"{v:g}" for v in xn), bn
        )
        out = _neuron_out(f, name, where, w, x, b)
        if isinstance(out, Verdict):
            return out
        u = sum(wi * xi for wi, xi in zip(wn, xn)) + bn
        want = max(0.0, u)
        if abs(out.data - want) > 1e-9:
            why = (
                f"w·x + b = {u:g} is negative there, and ReLU turns it into 0"
                if u < 0
                else f"w·x + b = {u:g} there"
            )
            return Verdict(
                False,
                f"At {where} your `{name}` gives {out.data:.4g}; ReLU(w·x + b) = {want:g} ({why}).",
            )
        out.backward()
        gate = 1.0 if u > 0 else 0.0  # the ReLU's slope: 1 while open, 0 when closed
        rules = (
            [(f"w{i}", leaf, xv * gate) for i, (leaf, xv) in enumerate(zip(w, xn), 1)]
            + [(f"x{i}", leaf, wv * gate) for i, (leaf, wv) in enumerate(zip(x, wn), 1)]
            + [("b", b, gate)]
        )
        reached = {id(v) for v in out.topological_order()}
        for label, leaf, g in rules:
            if abs(leaf.grad - g) > 1e-9:
                cut = ""
                if id(leaf) not in reached and not any(id(v) in reached for v in w + x):
                    cut = " (0: a .data inside cuts the graph there)"
                elif id(leaf) not in reached:
                    cut = f" (0: {label} is not in your graph; every pair wi·xi belongs in the sum)"
                return Verdict(
                    False,
                    f"At {where} your graph gives d out/d{label} = {leaf.grad:g}{cut}; the rule "
                    f"gives {g:g}.",
                )
    return _neuron_in_context(f, name)


def _neuron_out(f: Callable, name: str, where: str, w: list, x: list, b: Value) -> Value | Verdict:
    try:
        with watching() as seen:
            out = f(w, x, b)
    except Exception as err:
        return raised(name, err, where)
    if not isinstance(out, Value):
        return Verdict(
            False,
            f"At {where} your `{name}` returned {type(out).__name__}, not a Value: build it from "
            "the Values so that backward() can reach them.",
        )
    if _touched(seen, out):
        return Verdict(
            False,
            f"At {where} your `{name}` {_touched(seen, out)}.",
            "return the neuron's output and let the caller run backward(), once.",
        )
    return out


def _touched(seen: Watch, out: Value) -> str:
    if seen.called(Value.backward):
        return "calls backward() itself, so the gradients are counted before the caller's run"
    if any(v.grad != 0 for v in out.topological_order()):
        return "changes .grad while building the graph"
    return ""


def _neuron_in_context(f: Callable, name: str) -> Verdict:
    t = Value(0.5, label="t")
    shared = t * 2 + 1  # computed from t, and given as both inputs
    w = [Value(0.75, label="w1"), Value(-0.25, label="w2")]
    b = Value(0.5, label="b")
    where = "x = (u, u) with u = 2t + 1 at t = 0.5, w = (0.75, −0.25), b = 0.5, times 2.5"
    out = _neuron_out(f, name, where, w, [shared, shared], b)
    if isinstance(out, Verdict):
        return out
    (out * 2.5).backward()
    want = 2.5 * (0.75 - 0.25) * 2  # ReLU open (w·x + b = 1.5): ∂/∂t = 2.5·(w1 + w2)·2
    if abs(out.data - 1.5) > 1e-9 or abs(t.grad - want) > 1e-9:
        return Verdict(
            False,
            f"At {where}: your graph gives out = {out.data:g} and ∂/∂t = {t.grad:g}; the neuron "
            f"gives 1.5 and {want:g} (u feeds both inputs, so both weights count).",
            "add wi * xi for every pair, even when two inputs are the same Value.",
        )
    return Verdict(
        True,
        f"Your `{name}` gives ReLU(w·x + b) and the right gradient for every weight, input and "
        "bias, on four neurons (one with its ReLU closed) and on computed, shared inputs.",
    )


# ---- 10: a backward pass by hand ---------------------------------------------------------------

_BY_HAND_POINTS = ((2.0, -3.0, 10.0), (3.0, -1.0, 5.0), (0.5, 4.0, -1.0), (-1.5, 2.0, 0.5))


def _used_an_engine(seen: Watch) -> bool:
    """Whether the code ran the kit's code or any `backward(self, ...)` method (a Value
    class's, micrograd's, PyTorch's): not a backward pass by hand."""
    if any(code.co_filename.startswith(_PACKAGE) for code in seen.entered):
        return True
    return any(c.co_argcount and c.co_varnames[0] == "self" for c in seen.named("backward"))


def by_hand_backward_check(f: Callable, name: str = "my_backward") -> Verdict:
    """Compare f(a, b, c) with backward() on L = (a·b + c)² at four points, exactly (a rule
    applied by hand is exact to rounding; a measured slope is not), without any engine."""
    for av, bv, cv in _BY_HAND_POINTS:
        a, b, c = Value(av, label="a"), Value(bv, label="b"), Value(cv, label="c")
        e = a * b + c
        (e**2).backward()
        where = f"a = {av:g}, b = {bv:g}, c = {cv:g}"
        try:
            with watching() as seen:
                got = f(av, bv, cv)
        except Exception as err:
            return raised(name, err, where)
        if _used_an_engine(seen):
            return Verdict(
                False,
                f"Your `{name}` runs an engine (a Value, backward()); the exercise is to compute "
                "the three gradients by hand, with numbers.",
                "forward first (d = a·b, e = d + c), then one local rule per node, from "
                "dL/de = 2e.",
            )
        if not (isinstance(got, (tuple, list)) and len(got) == 3):
            return Verdict(
                False, f"At {where} your `{name}` returned {got!r}; return (dL/da, dL/db, dL/dc)."
            )
        for label, g, want in zip("abc", got, (a.grad, b.grad, c.grad)):
            if isinstance(g, numbers.Real) and abs(g - want) <= 1e-12 * max(1.0, abs(want)):
                continue
            hint = ""
            other = {"a": b.grad, "b": a.grad}.get(label)  # what the product's other input gets
            if isinstance(g, numbers.Real) and want and abs(2 * g - want) < 1e-9 * abs(want):
                hint = " Half of it: the square's rule is 2e, not e."
            elif isinstance(g, numbers.Real) and other is not None and abs(g - other) < 1e-9:
                hint = (
                    f" That is dL/d{'b' if label == 'a' else 'a'}: d = a·b sends each input "
                    "the other one."
                )
            elif isinstance(g, numbers.Real) and abs(g - want) <= 1e-5 * max(1.0, abs(want)):
                hint = (
                    " Close, but not exact: that is a measured slope (nudging the inputs); the "
                    "local rules give the exact number."
                )
            shown = f"{g:.12g}" if isinstance(g, numbers.Real) else repr(g)
            return Verdict(
                False,
                f"At {where} your dL/d{label} is {shown}; backward() gives {want:g} (there "
                f"e = a·b + c = {e.data:g}).{hint}",
            )
    return Verdict(True, f"Your `{name}` gives backward()'s three gradients at all four points.")


# ---- 12: the gradient of softmax with cross-entropy ---------------------------------------------

_SCORES = (
    ([2.0, 1.0, -1.0], 0),
    ([0.5, -1.5, 3.0, 0.0], 2),
    ([1000.0, 999.0, 997.0], 1),
    ([1.0, 1.0, -2.0], 1),
    ([-0.5], 0),
)


def _backward_gradient(z: list[float], c: int) -> list[float]:
    """dL/dz from backward() on L = −log softmax(z)[c], built here from Values (shifted by
    max z, so exp cannot overflow): the check's own softmax, not a notebook's."""
    zv = [Value(v) for v in z]
    top = max(z)
    exps = [(v - top).exp() for v in zv]
    total = exps[0]
    for e in exps[1:]:
        total = total + e
    (-(exps[c] / total).log()).backward()
    return [v.grad for v in zv]


def cross_entropy_grad_check(f: Callable, name: str = "cross_entropy_grad") -> Verdict:
    """Compare f(z, c) with backward()'s gradient of −log softmax(z)[c] on five score
    vectors: three classes, four, scores near 1000 (exp overflows unless max z is
    subtracted), a tie, and a single class."""
    for z, c in _SCORES:
        want = _backward_gradient(z, c)
        where = f"z = {[float(v) for v in z]}, c = {c}"
        try:
            got = f(list(z), c)
        except OverflowError:
            return Verdict(
                False,
                f"For {where} your `{name}` overflowed: math.exp({max(z):g}) is too large for a "
                "float.",
                "subtract the largest score before exp.",
            )
        except Exception as err:
            return raised(name, err, where)
        try:
            got = [float(g) for g in got]
        except (TypeError, ValueError):
            return Verdict(
                False, f"For {where} your `{name}` returned {got!r}, not a list of numbers."
            )
        if len(got) != len(z):
            return Verdict(
                False,
                f"For {where} your list has {len(got)} entries; it needs one per score, {len(z)}.",
            )
        for k, (g, w) in enumerate(zip(got, want)):
            if not abs(g - w) <= 1e-9:
                y = 1.0 if k == c else 0.0
                more = ""
                if math.isnan(g):
                    more = " (nan: subtract the largest score before exp)"
                elif abs(g + w) <= 1e-9 and w:
                    more = " (the sign flipped: p − y, not y − p)"
                elif abs(g - (w + y)) <= 1e-9 and k == c:
                    more = " (that is p: subtract y, which is 1 at the correct class)"
                return Verdict(
                    False,
                    f"For {where} your entry {k} is {show(g)}{more}; backward() gives {show(w)}.",
                )
    return Verdict(True, f"Your `{name}` gives backward()'s gradient on all five score vectors.")


# ---- 14: the product of dual numbers -------------------------------------------------------------


class dual_mul_check:  # noqa: N801 - used like a function: dual_mul_check(Dual)
    """Grade mul(a, b) for dual numbers (`.val`, `.der`): the product rule on three pairs, a
    Dual times itself, and a product of a product; the inputs left unchanged; and without
    the class's own `*` (the product rule the exercise asks for). The class is the one the
    learner's code names now (a re-run class cell made a new one), else `base`."""

    def __init__(self, base: type) -> None:
        self.base = base

    @property
    def context(self) -> dict[str, object]:
        return {self.base.__name__: self.base}

    def _class_for(self, mul: object) -> type:
        now = getattr(mul, "__globals__", {}).get(self.base.__name__)
        return now if isinstance(now, type) else self.base

    def __call__(self, mul: Callable, name: str = "dual_mul") -> Verdict:
        cls = self._class_for(mul)
        pairs = [((2.0, 1.0), (3.0, 0.0)), ((-1.5, 0.5), (0.5, 2.0)), ((0.25, -1.0), (4.0, 3.0))]
        for (a, da), (b, db) in pairs:
            verdict = self._one(cls, mul, name, cls(a, da), cls(b, db))
            if verdict is not None:
                return verdict
        same = cls(3.0, 1.0)
        verdict = self._one(cls, mul, name, same, same)  # x·x: 2x, from one Dual used twice
        if verdict is not None:
            return verdict
        x, y = cls(1.5, 1.0), cls(-2.0, 0.5)
        try:
            inner = mul(x, y)
        except Exception as err:
            return raised(name, err)
        verdict = self._one(cls, mul, name, inner, x)  # a computed input: (x·y)·x
        if verdict is not None:
            return verdict
        return Verdict(True, f"Your `{name}` carries the product rule forward.")

    def _one(self, cls: type, mul: Callable, name: str, a: object, b: object) -> Verdict | None:
        call = f"{name}({cls.__name__}({a.val:g}, {a.der:g}), {cls.__name__}({b.val:g}, {b.der:g}))"
        before = (a.val, a.der, b.val, b.der)
        want_val, want_der = a.val * b.val, a.der * b.val + a.val * b.der
        try:
            with watching() as seen:
                got = mul(a, b)
        except Exception as err:
            return raised(name, err, call)
        if seen.called(getattr(cls, "__mul__", None), getattr(cls, "__rmul__", None)):
            return Verdict(
                False,
                f"{call} uses {cls.__name__}'s own `*`, the product rule this exercise asks you to "
                "write.",
                "build the result from a.val, a.der, b.val and b.der, which are plain numbers: "
                f"{cls.__name__}(value, derivative).",
            )
        if (a.val, a.der, b.val, b.der) != before:
            return Verdict(
                False,
                f"{call} changed its input: a product makes a new {cls.__name__} and leaves a "
                "and b as they were.",
                f"return {cls.__name__}(..., ...) instead of setting a.val or a.der.",
            )
        if not isinstance(got, cls):
            return Verdict(
                False, f"{call} gave {type(got).__name__} {got!r}, not a {cls.__name__}."
            )
        if got is a or got is b:
            return Verdict(False, f"{call} returned one of its inputs, not a new {cls.__name__}.")
        if not math.isclose(got.val, want_val, rel_tol=1e-12, abs_tol=1e-12):
            return Verdict(False, f"{call} has value {got.val:g}; it should be {want_val:g}.")
        if not math.isclose(got.der, want_der, rel_tol=1e-12, abs_tol=1e-12):
            return Verdict(
                False,
                f"{call} has derivative {got.der:g}; the product rule a'·b + a·b' gives "
                f"{want_der:g}.",
            )
        return None
