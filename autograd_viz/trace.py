"""The derivation as data: forward and backward pass as an ordered list of equations.

`trace(root)` walks the graph the way the blog works it by hand and returns one
`Step` per line of that derivation. Forward, in topological order: the inputs,
then every operation with its equation (`s = x + y = 2 + 3 = 5`). Backward: the
seed (`∂z/∂z = 1`); then, for each operation in reverse topological order, one
line per operand edge — the local partial where the operation is the output's
own (`∂z/∂s = y = 3`), the chain rule elsewhere (`∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = 3`)
— and an accumulation line wherever a value feeds several operations
(`∂z/∂y = 5 + 3 = 8`). Each step names the value indices and SVG edge ids it
touches (the ids of `autograd_viz.viz.render`), the values and gradients known after
it, and its equation as plain Unicode text and as LaTeX. Steps are plain data:
notebooks print them, the player animates them, tests compare them, and the
gradients agree bit for bit with `Value.backward()`. `notation="adjoint"` writes the
backward pass the autodiff way instead: each operation's local partials, then each
contribution to the adjoints (`s̄ = z̄ · ∂z/∂s = 1 · 3 = 3`, `ȳ = ȳ_mul + ȳ_add`).

Names: a value's label where it has one, else a stable generated name `v{i}` from
its topological index. Unlabelled leaves that are not parameters are constants
(numbers written into the expression, like the 2 in `2 * d`): they appear by
value and get no gradient line. Numbers are formatted by `format_number`.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from autograd_viz._numbers import MINUS as _MINUS
from autograd_viz._numbers import format_number
from autograd_viz.engine import Value

PHASES = ("forward", "backward", "both")
KINDS = ("value", "seed", "local", "contribution", "accumulate")
NOTATIONS = ("blog", "adjoint")

_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


class TraceError(ValueError):
    """The graph cannot be traced (bad argument or an operation trace does not know)."""


# ---- numbers ------------------------------------------------------------------


def _latex_number(x: float, digits: int) -> str:
    text = format_number(x, digits).replace(_MINUS, "-")
    if text in ("∞", "-∞"):
        return text.replace("∞", r"\infty")
    if text == "nan":
        return r"\mathrm{nan}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        return rf"{mantissa} \times 10^{{{exponent}}}"
    return text


# ---- equation pieces: every piece has a text form and a LaTeX form -------------


# How tightly a piece binds, to decide where parentheses are needed.
_SUM, _PRODUCT, _POWER, _ATOM = 1, 2, 3, 4


@dataclass(frozen=True)
class _Eq:
    """One piece of an equation in both notations, and how tightly it binds."""

    text: str
    latex: str
    prec: int = _ATOM


@functools.lru_cache(maxsize=4096)  # numbers repeat (0, 1, the same weights): format once
def _num(x: float, digits: int) -> _Eq:
    return _Eq(format_number(x, digits), _latex_number(x, digits))


def _par(e: _Eq, prec: int) -> _Eq:
    """Parenthesise `e` if it binds less tightly than `prec`, or starts with a minus sign."""
    if e.prec < prec or e.text.startswith(_MINUS):
        return _Eq(f"({e.text})", rf"\left({e.latex}\right)", _ATOM)
    return e


def _plus(a: _Eq, b: _Eq) -> _Eq:
    b = _par(b, _PRODUCT)
    return _Eq(f"{a.text} + {b.text}", f"{a.latex} + {b.latex}", _SUM)


def _minus(a: _Eq, b: _Eq) -> _Eq:
    b = _par(b, _PRODUCT)
    return _Eq(f"{a.text} {_MINUS} {b.text}", f"{a.latex} - {b.latex}", _SUM)


def _times(a: _Eq, b: _Eq) -> _Eq:
    a = a if a.prec >= _PRODUCT else _par(a, _PRODUCT)  # a leading minus reads fine
    b = _par(b, _PRODUCT)
    return _Eq(f"{a.text} · {b.text}", rf"{a.latex} \cdot {b.latex}", _PRODUCT)


def _power(base: _Eq, exponent: float, digits: int) -> _Eq:
    """base**exponent: Unicode superscripts for whole exponents, a caret otherwise."""
    exponent = float(exponent)
    if exponent == 1:
        return base
    base = _par(base, _ATOM)
    exp = _num(exponent, digits)
    if exponent.is_integer() and abs(exponent) < 1000:
        text = base.text + str(int(exponent)).translate(_SUPERSCRIPTS)
    else:
        text = f"{base.text}^{_par(exp, _ATOM).text}"
    return _Eq(text, f"{{{base.latex}}}^{{{exp.latex}}}", _POWER)


def _caret(base: _Eq, exponent: _Eq) -> _Eq:
    base, shown = _par(base, _ATOM), _par(exponent, _ATOM)
    return _Eq(f"{base.text}^{shown.text}", f"{{{base.latex}}}^{{{exponent.latex}}}", _POWER)


def _reciprocal(x: _Eq) -> _Eq:
    shown = _par(x, _ATOM)  # binds like a sum, so a product wraps it: 3 · (1/x)
    return _Eq(f"1/{shown.text}", rf"\frac{{1}}{{{x.latex}}}", _SUM)


def _call(name: str, latex_name: str, arg: _Eq) -> _Eq:
    return _Eq(f"{name}({arg.text})", rf"{latex_name}\left({arg.latex}\right)", _ATOM)


def _chain(parts: Sequence[_Eq]) -> _Eq:
    """`a = b = c`, dropping a part that repeats the one before it (`y = 3 = 3` → `y = 3`)."""
    kept: list[_Eq] = []
    for part in parts:
        if not kept or part.text != kept[-1].text:
            kept.append(part)
    return _Eq(" = ".join(p.text for p in kept), " = ".join(p.latex for p in kept), 0)


_LATEX_SPECIAL = re.compile(r"([\\{}_^#$%&~])")
# what each special character becomes inside \mathrm{...} (math mode, MathJax and LaTeX)
_LATEX_ESCAPES = {"\\": r"\backslash{}", "^": r"\hat{}", "~": r"\sim{}"}


def _latex_name(name: str) -> str:
    m = re.fullmatch(r"([A-Za-z])_?(\d*)", name)
    if m:
        letter, sub = m.groups()
        return f"{letter}_{{{sub}}}" if sub else letter
    escaped = _LATEX_SPECIAL.sub(lambda c: _LATEX_ESCAPES.get(c[1], "\\" + c[1]), name)
    return rf"\mathrm{{{escaped}}}".replace(" ", "\\ ")  # spaces vanish in math mode


def _partial(top: _Eq, bottom: _Eq) -> _Eq:
    return _Eq(
        f"∂{top.text}/∂{bottom.text}", rf"\frac{{\partial {top.latex}}}{{\partial {bottom.latex}}}"
    )


# ---- the graph, indexed -----------------------------------------------------------


def is_constant(node: Value, root: Value) -> bool:
    """True for a number written into an expression: an unlabelled leaf that is not a
    parameter (and not the root). Constants appear by value and get no gradient line.

    >>> x = Value(3.0, label="x")
    >>> y = x * 2
    >>> [is_constant(v, y) for v in y.topological_order()]
    [False, True, False]
    """
    from autograd_viz.nn import Parameter

    return (
        not node.parents and not node.label and not isinstance(node, Parameter) and node is not root
    )


def node_names(root: Value) -> list[str]:
    """The name of every value in `root.topological_order()`, as the equations write it:
    its label, `v{i}` (topological index) when unlabelled, its number for a constant.

    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> node_names((x + y) * 2)
    ['x', 'y', 'v2', '2', 'v4']
    """
    return [e.text for e in _names(root.topological_order(), root, 4)]


def _names(order: list[Value], root: Value, digits: int) -> list[_Eq]:
    names = []
    for i, node in enumerate(order):
        if is_constant(node, root):
            names.append(_num(node.data, digits))
        elif node.label:
            names.append(_Eq(node.label, _latex_name(node.label)))
        else:
            names.append(_Eq(f"v{i}", f"v_{{{i}}}"))
    return names


# ---- steps ------------------------------------------------------------------------


class _Revealed(Mapping):
    """A read-only {value index: number} of what is known after one step.

    Every step shares one table of final numbers and the step at which each is
    revealed, so a trace of n steps costs O(n) memory, not O(n²).
    """

    __slots__ = ("_final", "_rank", "_order", "_count")

    def __init__(
        self, final: dict[int, float], rank: dict[int, int], order: list[int], count: int
    ) -> None:
        # rank[i]: position of i in the reveal order; the first `count` are known
        self._final, self._rank, self._order, self._count = final, rank, order, count

    def __getitem__(self, key: int) -> float:
        if self._rank.get(key, self._count) < self._count:
            return self._final[key]
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return self._rank.get(key, self._count) < self._count

    def __iter__(self) -> Iterator[int]:
        return iter(self._order[: self._count])

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return repr(dict(self))


@dataclass(frozen=True)
class Step:
    """One line of the derivation.

    `index` (position in the trace), `phase` ("forward" | "backward"), `kind`
    ("value" | "seed" | "local" | "contribution" | "accumulate"), `nodes` (value
    indices the step reads or writes), `edges` (SVG edge ids it travels), `active`
    (the value index it is about), `values` / `grads` (read-only {index: number}
    known after the step; grads only once complete), `text` and `latex`.
    """

    index: int
    phase: str
    kind: str
    nodes: tuple[int, ...]
    edges: tuple[str, ...]
    active: int
    values: Mapping[int, float]
    grads: Mapping[int, float]
    text: str
    latex: str

    def __str__(self) -> str:
        return self.text


@dataclass
class _Line:
    phase: str
    kind: str
    nodes: tuple[int, ...]
    edges: tuple[str, ...]
    active: int
    eq: _Eq
    reveal_values: tuple[int, ...] = ()
    reveal_grads: tuple[int, ...] = ()


# ---- operations: how each is written and differentiated -------------------------------

_NOUNS = {
    "+": "the sum",
    "*": "the product",
    "**": "the power",
    "ReLU": "ReLU",
    "tanh": "tanh",
    "exp": "exp",
    "log": "log",
    "sigmoid": "σ",
}
_FUNCTIONS = {
    "ReLU": ("ReLU", r"\mathrm{ReLU}"),
    "tanh": ("tanh", r"\tanh"),
    "exp": ("exp", r"\exp"),
    "log": ("log", r"\log"),
    "sigmoid": ("σ", r"\sigma"),
}


def _op_kind(node: Value) -> str:
    op = node.op
    if op.startswith("**") and op != "**":
        return "**n"
    if op in ("+", "*", "**") or op in _FUNCTIONS:
        return op
    raise TraceError(
        f"trace does not know the operation {op!r} of {node!r}; it knows +, *, ** "
        f"(number or Value exponent), ReLU, tanh, exp, log and sigmoid"
    )


def _exponent(node: Value) -> float:
    return node._arg  # the number exponent the engine keeps for `**n`


def _forward_eq(node: Value, out: _Eq, names: list[_Eq], idx: list[int], digits: int) -> _Eq:
    """`out = <symbolic> = <numbers> = <result>` for one operation."""
    kind = _op_kind(node)
    args = node.parents
    sym = [names[i] for i in idx]
    num = [_num(a.data, digits) for a in args]
    if kind in ("+", "*"):
        join = _plus if kind == "+" else _times
        symbolic, numbers = join(sym[0], sym[1]), join(num[0], num[1])
    elif kind == "**n":
        symbolic = _power(sym[0], _exponent(node), digits)
        numbers = _power(num[0], _exponent(node), digits)
    elif kind == "**":
        symbolic = _caret(sym[0], sym[1])
        numbers = _caret(num[0], num[1])
    else:
        name, latex_name = _FUNCTIONS[kind]
        symbolic, numbers = _call(name, latex_name, sym[0]), _call(name, latex_name, num[0])
    return _chain([out, symbolic, numbers, _num(node.data, digits)])


def _local(
    node: Value,
    k: int,
    out: _Eq,
    names: list[_Eq],
    idx: list[int],
    digits: int,
) -> tuple[_Eq, _Eq, Callable[[float], float], tuple[int, ...]]:
    """The local partial ∂node/∂(operand k): symbolic form, with numbers, the engine's exact
    contribution rule g ↦ grad added to the operand, and the other values it reads."""
    kind = _op_kind(node)
    args = node.parents
    a = args[0].data
    o = node.data
    one = _Eq("1", "1")
    if kind == "+":
        return one, one, lambda g: g, ()
    if kind == "*":
        other = 1 - k
        b = args[other].data
        return names[idx[other]], _num(b, digits), lambda g: b * g, (idx[other],)
    if kind == "**n":
        n = _exponent(node)
        try:
            local = n * a ** (n - 1)
        except ZeroDivisionError:
            raise TraceError(
                f"the gradient of {names[idx[0]].text}**{n:g} at {names[idx[0]].text} = 0 is "
                f"infinite, so there is no derivation to show (backward() fails here too)"
            ) from None
        if n - 1 == 0:
            return _num(n, digits), _num(n, digits), lambda g: local * g, ()
        coefficient = _Eq(_MINUS, "-") if n == -1 else _num(n, digits)
        power = _power(names[idx[0]], n - 1, digits)
        single = len(power.text) == 1 or re.fullmatch(r"[A-Za-z][⁰¹²³⁴⁵⁶⁷⁸⁹⁻]*", power.text)
        if single:  # juxtapose: 2e, 3x², −b⁻²
            symbolic = _Eq(coefficient.text + power.text, coefficient.latex + power.latex, _PRODUCT)
        else:
            symbolic = _times(_num(n, digits), power)
        numbers = _times(_num(n, digits), _power(_num(a, digits), n - 1, digits))
        return symbolic, numbers, lambda g: local * g, ()
    if kind == "**":
        b = args[1].data
        if k == 0:
            exp_minus_1 = _minus(names[idx[1]], one)
            symbolic = _times(names[idx[1]], _caret(names[idx[0]], exp_minus_1))
            numbers = _times(_num(b, digits), _caret(_num(a, digits), _num(b - 1, digits)))
            local = b * a ** (b - 1)
            return symbolic, numbers, lambda g: local * g, (idx[1],)
        symbolic = _times(out, _call("log", r"\log", names[idx[0]]))
        numbers = _times(_num(o, digits), _call("log", r"\log", _num(a, digits)))
        local = o * math.log(a)
        return symbolic, numbers, lambda g: local * g, (idx[0],)
    if kind == "ReLU":
        symbolic = _Eq(
            f"(1 if {names[idx[0]].text} > 0 else 0)", rf"\mathbb{{1}}[{names[idx[0]].latex} > 0]"
        )
        positive = a > 0
        return symbolic, _num(float(positive), digits), lambda g: positive * g, ()
    if kind == "tanh":
        symbolic = _minus(one, _power(out, 2, digits))
        numbers = _minus(one, _power(_num(o, digits), 2, digits))
        local = 1 - o**2
        return symbolic, numbers, lambda g: local * g, ()
    if kind == "exp":
        return _call("exp", r"\exp", names[idx[0]]), _num(o, digits), lambda g: o * g, ()
    if kind == "log":
        symbolic, numbers = _reciprocal(names[idx[0]]), _reciprocal(_num(a, digits))
        return symbolic, numbers, lambda g: g / a, ()  # the engine divides: out.grad / a
    # sigmoid
    symbolic = _times(out, _minus(one, out))
    numbers = _times(_num(o, digits), _minus(one, _num(o, digits)))
    local = o * (1 - o)
    return symbolic, numbers, lambda g: local * g, ()


# ---- the walk -------------------------------------------------------------------------


def trace(
    root: Value, phase: str = "both", *, digits: int = 4, notation: str = "blog"
) -> list[Step]:
    """The forward and/or backward pass of `root`'s graph as an ordered list of `Step`s.

    `phase` is "forward", "backward" (values all known from the start) or "both".
    `digits` is the number of significant digits in the equations (see `format_number`).
    `notation` is "blog" (one line per edge, the chain rule written out, as below) or
    "adjoint" (each operation's local partials first, then each contribution to the
    adjoints: `s̄ = z̄ · ∂z/∂s = 1 · 3 = 3`, `ȳ = ȳ_mul + ȳ_add = 5 + 3 = 8`).
    The graph is only read: no `.grad` changes.

    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> s = x + y; s.label = "s"
    >>> z = s * y; z.label = "z"
    >>> for step in trace(z): print(step.text)
    inputs: x = 2, y = 3
    s = x + y = 2 + 3 = 5
    z = s · y = 5 · 3 = 15
    ∂z/∂z = 1
    ∂z/∂s = y = 3
    ∂z/∂y (via the product) = s = 5
    ∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = 3
    ∂z/∂y (via the sum) = ∂z/∂s · ∂s/∂y = 3 · 1 = 3
    ∂z/∂y = 5 + 3 = 8
    """
    if not isinstance(root, Value):
        raise TraceError(f"trace() needs a Value, got {type(root).__name__}: {root!r}")
    if phase not in PHASES:
        raise TraceError(f"phase must be one of {', '.join(map(repr, PHASES))}; got {phase!r}")
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise TraceError(f"digits must be a whole number >= 1, got {digits!r}")
    if notation not in NOTATIONS:
        raise TraceError(f"notation must be 'blog' or 'adjoint', got {notation!r}")
    order = root.topological_order()
    position = {node: i for i, node in enumerate(order)}
    parents = [[position[p] for p in node.parents] for node in order]
    names = _names(order, root, digits)
    constant = [is_constant(node, root) for node in order]

    lines: list[_Line] = []
    grads: list[float] = []
    if phase in ("forward", "both"):
        lines += _forward_lines(order, parents, names, constant, digits)
    if phase in ("backward", "both"):
        backward, grads = _backward_lines(order, parents, names, constant, digits, notation)
        lines += backward
    return _steps(order, lines, phase, grads)


_LIST_AT_MOST = 8  # inputs or parameters named one by one in the first step


def _natural(label: str) -> list[object]:
    """Sort key that puts L1.n2.w10 after L1.n2.w9."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", label)]


def _forward_lines(
    order: list[Value],
    parents: list[list[int]],
    names: list[_Eq],
    constant: list[bool],
    digits: int,
) -> list[_Line]:
    leaves = [i for i, node in enumerate(order) if not node.parents]
    from autograd_viz.nn import Parameter

    groups = []
    for title, members in (
        ("inputs", [i for i in leaves if not constant[i] and not isinstance(order[i], Parameter)]),
        ("parameters", sorted((i for i in leaves if isinstance(order[i], Parameter)),
                              key=lambda i: _natural(order[i].label))),
    ):  # fmt: skip
        if members:
            pairs = [_chain([names[i], _num(order[i].data, digits)]) for i in members]
            if len(pairs) > _LIST_AT_MOST:  # a network's weights: the picture shows them all
                more = f"… ({len(pairs)} in all)"
                pairs = [
                    *pairs[: _LIST_AT_MOST - 2],
                    _Eq(more, rf"\ldots\ \text{{({len(pairs)} in all)}}"),
                ]
            groups.append(
                _Eq(
                    f"{title}: " + ", ".join(p.text for p in pairs),
                    rf"\text{{{title}: }} " + r",\ ".join(p.latex for p in pairs),
                )
            )
    lines = []
    named = [i for i in leaves if not constant[i]]
    if named:
        eq = _Eq("; ".join(g.text for g in groups), r";\quad ".join(g.latex for g in groups))
        lines.append(_Line("forward", "value", tuple(leaves), (), named[0], eq, tuple(leaves)))
    for i, node in enumerate(order):
        if not node.parents:
            continue
        edges = tuple(f"v{p}-op{i}-{k}" for k, p in enumerate(parents[i])) + (f"op{i}-v{i}",)
        touched = (i, *dict.fromkeys(parents[i]))
        eq = _forward_eq(node, names[i], names, parents[i], digits)
        reveal = (i,) if lines else (*leaves, i)  # constants only: shown with the first step
        lines.append(_Line("forward", "value", touched, edges, i, eq, reveal))
    return lines


def _backward_lines(
    order: list[Value],
    parents: list[list[int]],
    names: list[_Eq],
    constant: list[bool],
    digits: int,
    notation: str,
) -> tuple[list[_Line], list[float]]:
    """The backward lines, and every value's final gradient (constants' stay 0)."""
    r = len(order) - 1  # the root is last in topological order
    uses: list[list[tuple[int, int]]] = [[] for _ in order]  # (consumer, operand position)
    for i, ps in enumerate(parents):
        for k, p in enumerate(ps):
            uses[p].append((i, k))
    grad: list[float] = [0.0] * len(order)
    received: list[list[tuple[int, int, float]]] = [[] for _ in order]  # (op, k, amount)
    top = names[r]
    adjoint = notation == "adjoint"
    family = ["**" if node.op.startswith("**") else node.op for node in order]
    kinds_used: dict[int, dict[str, set[int]]] = {}  # value -> op kind -> its consumers

    def via(p: int, i: int, k: int) -> tuple[_Eq, _Eq]:
        if p not in kinds_used:
            kinds_used[p] = {}
            for c, _ in uses[p]:
                kinds_used[p].setdefault(family[c], set()).add(c)
        named = len(kinds_used[p][family[i]]) > 1
        return _via(family[i], named, parents[i].count(p) > 1, k, names[i])

    seed = [_bar(top), _partial(top, top)] if adjoint else [_partial(top, top)]
    lines = [_Line("backward", "seed", (r,), (), r, _chain([*seed, _Eq("1", "1")]), (), (r,))]
    grad[r] = 1.0
    for i in range(r, -1, -1):
        node = order[i]
        if not node.parents:
            continue
        out = names[i]
        g = _num(grad[i], digits)
        locals_: list[_Line] = []  # adjoint notation: all local partials, then contributions
        completed: list[int] = []
        for k, p in enumerate(parents[i]):
            if constant[p]:
                continue
            symbolic, numbers, rule, reads = _local(node, k, out, names, parents[i], digits)
            contribution = rule(grad[i])
            received[p].append((i, k, contribution))
            shared = len(uses[p]) > 1
            share = via(p, i, k) if shared else None
            result = _num(contribution, digits)
            edges = (f"op{i}-v{i}", f"v{p}-op{i}-{k}")
            touched = tuple(dict.fromkeys((p, i, *reads)))
            if adjoint:
                partial = _partial(out, names[p])
                if parents[i].count(p) > 1:  # a * a: say which operand
                    partial = _Eq(f"{partial.text} (operand {k + 1})",
                                  rf"{partial.latex}\ (\text{{operand {k + 1}}})")  # fmt: skip
                local = _chain([partial, symbolic, numbers, _num(rule(1.0), digits)])
                locals_.append(_Line("backward", "local", touched, edges, p, local))
                lhs = _bar(names[p], share)
                kind, eq = "contribution", _chain([
                    lhs, _times(_bar(out), _partial(out, names[p])),
                    _times(g, _num(rule(1.0), digits)), result,
                ])  # fmt: skip
            else:
                lhs = _partial(top, names[p])
                if share is not None:
                    lhs = _Eq(
                        f"{lhs.text} (via {share[0].text})",
                        rf"{lhs.latex}\ \left(\text{{via }}{share[0].latex}\right)",
                    )
                if i == r:  # the output's own operation: the local partial is the gradient
                    kind, eq = "local", _chain([lhs, symbolic, numbers, result])
                else:
                    kind, eq = "contribution", _chain([
                        lhs, _times(_partial(top, out), _partial(out, names[p])),
                        _times(g, symbolic), _times(g, numbers), result,
                    ])  # fmt: skip
            done = len(received[p]) == len(uses[p])
            if done:
                total = 0.0
                for _, _, c in received[p]:  # the engine's order: 0.0 += each contribution
                    total += c
                grad[p] = total
                if shared:
                    completed.append(p)
            reveal = (p,) if done and not shared else ()
            lines.append(_Line("backward", kind, touched, edges, p, eq, (), reveal))
        if locals_:
            first = len(lines) - len(locals_)
            lines[first:first] = locals_
        for p in completed:
            terms = [_num(c, digits) for _, _, c in received[p]]
            total_eq = terms[0]
            for term in terms[1:]:
                total_eq = _plus(total_eq, term)
            if adjoint:
                parts = [_bar(names[p])]
                vias = [via(p, c, k) for c, k, _ in received[p]]
                symbolic_sum = _bar(names[p], vias[0])
                for one in vias[1:]:
                    symbolic_sum = _plus(symbolic_sum, _bar(names[p], one))
                parts.append(symbolic_sum)
            else:
                parts = [_partial(top, names[p])]
            eq = _chain([*parts, total_eq, _num(grad[p], digits)])
            consumers = tuple(dict.fromkeys(c for c, _, _ in received[p]))
            edges = tuple(f"v{p}-op{c}-{k}" for c, k, _ in received[p])
            lines.append(_Line("backward", "accumulate", (p, *consumers), edges, p, eq, (), (p,)))
    return lines, grad


def _bar(name: _Eq, via: tuple[_Eq, _Eq] | None = None) -> _Eq:
    """The adjoint (gradient) of a value: z̄; with `via`, one operation's share: ȳ_mul."""
    if len(name.text) == 1:
        text, latex = name.text + "\u0304", rf"\bar{{{name.latex}}}"  # one letter: a macron
    else:
        text, latex = "".join(c + "\u0305" for c in name.text), rf"\overline{{{name.latex}}}"
    if via is not None:
        short = via[1]
        text, latex = f"{text}_{short.text}", rf"{latex}_{{{short.latex}}}"
    return _Eq(unicodedata.normalize("NFC", text), latex)  # ȳ as one character where one exists


_SHORT = {"+": "add", "*": "mul", "**": "pow", "ReLU": "relu", "tanh": "tanh", "exp": "exp",
          "log": "log", "sigmoid": "sigmoid"}  # fmt: skip


def _via(op: str, named: bool, twice: bool, k: int, consumer: _Eq) -> tuple[_Eq, _Eq]:
    """Which of a value's several uses an edge is, spelt long and short.

    Long: `the product`; `the sum s` when several sums use the value (`named`); `the
    product t, operand 2` when one operation uses it twice (`a * a`). Short (a
    subscript): `mul`, `add,s`, `mul2`.
    """
    noun, short = _NOUNS[op], _SHORT[op]
    text, latex = noun, rf"\text{{{noun}}}"
    stext, slatex = short, rf"\text{{{short}}}"
    if named:
        text, latex = f"{text} {consumer.text}", rf"{latex}\ {consumer.latex}"
        stext, slatex = f"{stext},{consumer.text}", rf"{slatex},{consumer.latex}"
    if twice:
        text, latex = f"{text}, operand {k + 1}", rf"{latex}\text{{, operand {k + 1}}}"
        stext, slatex = f"{stext}{k + 1}", rf"{slatex}{k + 1}"
    return _Eq(text, latex), _Eq(stext, slatex)


def _steps(order: list[Value], lines: list[_Line], phase: str, grads: list[float]) -> list[Step]:
    """Turn lines into Steps whose values/grads are views on one shared table."""
    values_final = {i: node.data for i, node in enumerate(order)}
    # the forward pass is taken as done when only the backward pass is traced
    value_order: list[int] = list(range(len(order))) if phase == "backward" else []
    grads_final: dict[int, float] = {}
    grad_order: list[int] = []
    value_counts, grad_counts = [], []
    seen = set(value_order)
    for line in lines:
        for i in line.reveal_values:
            if i not in seen:
                seen.add(i)
                value_order.append(i)
        for p in line.reveal_grads:
            grads_final[p] = grads[p]
            grad_order.append(p)
        value_counts.append(len(value_order))
        grad_counts.append(len(grad_order))
    value_rank = {i: n for n, i in enumerate(value_order)}
    grad_rank = {i: n for n, i in enumerate(grad_order)}
    return [
        Step(
            index=s,
            phase=line.phase,
            kind=line.kind,
            nodes=line.nodes,
            edges=line.edges,
            active=line.active,
            values=_Revealed(values_final, value_rank, value_order, value_counts[s]),
            grads=_Revealed(grads_final, grad_rank, grad_order, grad_counts[s]),
            text=line.eq.text,
            latex=line.eq.latex,
        )
        for s, line in enumerate(lines)
    ]


def derivation(root: Value, phase: str = "both", *, digits: int = 4, notation: str = "blog") -> str:
    """The whole derivation as text, one step per line, for `print()` in a notebook.

    >>> a = Value(2.0, label="a")
    >>> print(derivation(a * a, "backward"))
    ∂v1/∂v1 = 1
    ∂v1/∂a (via the product, operand 1) = a = 2
    ∂v1/∂a (via the product, operand 2) = a = 2
    ∂v1/∂a = 2 + 2 = 4
    """
    steps = trace(root, phase, digits=digits, notation=notation)
    return "\n".join(step.text for step in steps)


__all__ = [
    "KINDS",
    "NOTATIONS",
    "PHASES",
    "Step",
    "TraceError",
    "derivation",
    "format_number",
    "is_constant",
    "node_names",
    "trace",
]
