"""The kit's `Value` graph and PyTorch's graph of the same expression, side by side: the blog's
table made live (`Value._prev` ↔ `grad_fn.next_functions`, `Value._backward` ↔ `grad_fn`, `_op` ↔
the Function's name, each value's data and grad). `side_by_side(v)` builds v's expression in
PyTorch itself, or takes the learner's own (`side_by_side(v, t)`); both graphs come through the one
door, are drawn with the kit's own drawings and paired node for node, and where the shapes part
(PyTorch's `SubBackward0` against our `a + b · (−1)`) or a number differs (by more than one part in
a million) the report says so: nothing is hidden.
"""

from __future__ import annotations

import html
import math
import operator
import re
from dataclasses import dataclass
from typing import Any

from autograd_viz.core._numbers import format_number
from autograd_viz.core.errors import TorchGraphError, TorchNotInstalledError
from autograd_viz.core.graph import Graph
from autograd_viz.core.naming import expression_names
from autograd_viz.core.ops import POWER_N, describe
from autograd_viz.open.engines.torch_graph import is_tensor
from autograd_viz.view.options import DrawOptions
from autograd_viz.view.render import Drawing, drawing

__all__ = ["HTMLBlock", "Pair", "SideBySide", "side_by_side"]

INSTALL = (
    "PyTorch is not installed, and side_by_side compares with it: pip install torch (the "
    "CPU build is enough: pip install torch --index-url https://download.pytorch.org/whl/cpu). "
    "The kit's own pictures need no PyTorch: autograd_viz.draw(v)."
)
# the blog's table: what each part of our Value is in PyTorch
BLOG_TABLE = (
    ("Value._prev", "grad_fn.next_functions (an AccumulateGrad per leaf, None per number)"),
    ("Value._backward", "grad_fn, a Function PyTorch's engine calls (hooks see each call)"),
    ("Value._op", "the Function's name: MulBackward0, AddBackward0, ..."),
    ("Value.data", "the tensor; inside the graph only the tensors a Function saved"),
    ("Value.grad", "a leaf's .grad; for any other value, what its Function receives"),
)


@dataclass(frozen=True)
class Pair:
    """One value of each graph, paired (None on the side that has no such value): its
    name as our derivation writes it, our `_op` and PyTorch's Function, data and grad as
    (ours, PyTorch's), and what differs ('' where they agree)."""

    ours: int | None
    theirs: int | None
    name: str
    op: str
    function: str
    data: tuple[float | None, float | None]
    grad: tuple[float | None, float | None]
    problem: str = ""


class SideBySide:
    """Both drawings (`left`: ours, `right`: PyTorch's) and the table of `pairs`; `problems`
    lists every difference (`ok`: none). Shows in Jupyter as one HTML block."""

    def __init__(self, ours: Graph, theirs: Graph, left: Drawing, right: Drawing,
                 pairs: list[Pair], problems: list[str]) -> None:  # fmt: skip
        self.ours, self.theirs, self.left, self.right = ours, theirs, left, right
        self.pairs, self.problems = pairs, problems

    @property
    def ok(self) -> bool:
        return not self.problems

    def __repr__(self) -> str:
        said = "every number agrees" if self.ok else f"{len(self.problems)} differences"
        return f"<SideBySide of {len(self.pairs)} pairs: {said}>"

    def html(self) -> str:
        """The pictures, then the table (`pictures`, `table`), as one HTML block."""
        return f'<div class="avz-side-by-side">{self.pictures()}{self.table()}</div>'

    def pictures(self) -> HTMLBlock:
        """The two pictures side by side where they fit, else one above the other, each
        shrunk to the width: on its own, for a slide too small for the pictures and the table."""
        right = re.sub(r'\bid="', 'id="torch-', self.right.svg())  # ids unique on one page
        figures = "".join(
            f'<figure style="margin:0;max-width:100%"><figcaption><b>{html.escape(title)}</b>'
            f"</figcaption>{_scalable(svg)}</figure>"
            for title, svg in (("autograd_viz.Value", self.left.svg()), ("PyTorch", right))
        )
        return HTMLBlock(
            '<div style="display:flex;flex-wrap:wrap;gap:0.5em 2em;align-items:flex-start">'
            f"{figures}</div>"
        )

    def table(self) -> HTMLBlock:
        """The pairs, value by value, with whether they agree, and the blog's table folded
        away beside them (one line until opened)."""
        cell = 'style="padding:0.1em 0.6em;text-align:left"'
        blog = "".join(f"<tr><td {cell}><code>{html.escape(a)}</code></td>"
                       f"<td {cell}>{html.escape(b)}</td></tr>" for a, b in BLOG_TABLE)  # fmt: skip
        head = ("value", "_op", "data", "grad", "PyTorch Function", "data", "grad", "")
        rows = "".join(
            "<tr>" + "".join(f"<td {cell}>{html.escape(c)}</td>" for c in _cells(p)) + "</tr>"
            for p in self.pairs
        )
        said = "".join(f"<li>{html.escape(p)}</li>" for p in self.problems)
        verdict = f"<ul>{said}</ul>" if said else "Every value and gradient agrees."
        table = 'style="border-collapse:collapse;font-size:0.9em;margin:0"'
        return HTMLBlock(
            '<div style="display:flex;gap:2em;flex-wrap:wrap;align-items:flex-start;'
            f'margin-top:0.5em"><table {table}><caption style="text-align:left">{verdict}'
            "</caption><tr>" + "".join(f"<th {cell}>{h}</th>" for h in head) + f"</tr>{rows}"
            f"</table><details><summary>Each part of our Value in PyTorch (the blog's table)"
            f"</summary><table {table}><tr><th {cell}>our Value</th><th {cell}>PyTorch</th>"
            f"</tr>{blog}</table></details></div>"
        )

    def _repr_html_(self) -> str:
        return self.html()


class HTMLBlock(str):
    """A piece of HTML that Jupyter shows as HTML (a str otherwise)."""

    def _repr_html_(self) -> str:
        return str(self)


def _scalable(svg: str) -> str:
    """Graphviz's SVG, shrunk to fit its column (its viewBox keeps the proportions)."""
    return svg.replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)


def _cells(p: Pair) -> list[str]:
    def number(x: float | None) -> str:
        return "—" if x is None else format_number(x)

    verdict = "✗ " + p.problem if p.problem else "✓"
    return [p.name, p.op or "leaf", number(p.data[0]), number(p.grad[0]), p.function or "—",
            number(p.data[1]), number(p.grad[1]), verdict]  # fmt: skip


def tensor_for(ours: Graph, tensor_root: object) -> tuple[object, dict[str, object] | None]:
    """PyTorch's side: `tensor_root` as given (a tensor), or, None, the expression of `ours`
    built again in PyTorch, with the labels that name its tensors."""
    if tensor_root is None:
        return _in_pytorch(ours)
    if not is_tensor(tensor_root):
        raise TypeError(
            f"side_by_side needs a PyTorch tensor second, got {type(tensor_root).__name__}"
        )
    return tensor_root, None


def side_by_side(ours: Graph, theirs: Graph, draw_options: DrawOptions) -> SideBySide:
    """Our graph and PyTorch's (both opened already, at the edge: `autograd_viz.side_by_side`),
    drawn side by side with the same options and paired node for node."""
    if ours.once is not None:  # our engine's gradients, from fresh ones
        ours = ours.with_grads(dict(enumerate(ours.once)))
    pairs, problems = pair(ours, theirs)
    left, right = drawing(ours, draw_options), drawing(theirs, draw_options)
    return SideBySide(ours, theirs, left, right, pairs, problems)


def _in_pytorch(graph: Graph) -> tuple[object, dict[str, object]]:
    """The expression of `graph` built again with PyTorch (float64), and its labels."""
    try:
        import torch
    except ImportError:
        raise TorchNotInstalledError(INSTALL) from None
    made: list[Any] = []
    names: dict[str, object] = {}
    for node in graph.nodes:
        args = [made[p] for p in node.operands]
        if node.is_leaf:
            value = node.data if node.role == "const" else torch.tensor(
                node.data, dtype=torch.float64, requires_grad=True)  # fmt: skip
        else:
            value = _apply(torch, node.op, node.exponent, args)
        made.append(value)
        if node.label and is_tensor(value) and node.label not in names:
            names[node.label] = value
    return made[-1], names


def _apply(torch: Any, op: str, exponent: float | None, args: list[Any]) -> Any:
    """One operation in PyTorch, by its op table row's method (`__mul__` → operator.mul,
    `tanh` → torch.tanh): the table's, so no second list of operations."""
    row = describe(op)
    if row.key == POWER_N and exponent is not None:
        return args[0] ** exponent
    method = row.method
    fn = getattr(operator, method.strip("_"), None) if method.startswith("__") else None
    fn = fn or getattr(torch, method, None)
    if not row.known or fn is None:
        raise TorchGraphError(
            f"side_by_side cannot build {op!r} in PyTorch (the op table has no row for it): "
            "build the same expression in PyTorch yourself and pass it second"
        )
    if not any(is_tensor(a) for a in args):  # numbers only: a constant expression
        args = [torch.tensor(float(args[0]), dtype=torch.float64), *args[1:]]
    return fn(*args)


# ---- pairing, from the roots down ----------------------------------------------------------


def _kind(graph: Graph, i: int) -> str:
    node = graph.nodes[i]
    if node.is_leaf:
        return "constant" if node.role == "const" else "leaf"
    return describe(node.op).key if describe(node.op).known else node.op


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9) or (a != a and b != b)


def pair(ours: Graph, theirs: Graph) -> tuple[list[Pair], list[str]]:
    """Pairs of our node and PyTorch's, walking both graphs from the roots operand by
    operand while the operations agree; and every difference, in words."""
    names = [e.text for e in expression_names(ours)]
    their_names = [e.text for e in expression_names(theirs)]
    functions = getattr(theirs, "functions", ())
    matched: dict[int, int] = {}
    back: dict[int, int] = {}
    problems: list[str] = []
    numbers = _constant_expressions(ours)
    folded: set[int] = set()  # ours, inside a number PyTorch computed at once (the 2⁻¹ of y / 2)
    stack = [(len(ours) - 1, len(theirs) - 1)]
    while stack:
        i, j = stack.pop()
        if i in matched or j in back:
            if matched.get(i) != j:
                problems.append(f"{names[i]} is paired with two different PyTorch values")
            continue
        matched[i], back[j] = j, i
        a, b = ours.nodes[i], theirs.nodes[j]
        if i in numbers and not a.is_leaf and b.is_leaf and b.role == "const":
            folded |= _below(ours, i)  # our engine records 2⁻¹; PyTorch only its value
            continue
        if _kind(ours, i) != _kind(theirs, j) or len(a.operands) != len(b.operands):
            fn = functions[j] if functions else their_names[j]
            problems.append(
                f"the shapes part at {names[i]}: ours is {_shape(ours, i)}, PyTorch's is {fn} "
                f"({_shape(theirs, j)}); below it only the inputs are paired, by name"
            )
            continue
        stack.extend(reversed(list(zip(a.operands, b.operands))))
    _pair_leaves_by_name(ours, theirs, names, their_names, matched, back)
    pairs = []
    for i, node in enumerate(ours.nodes):
        j = matched.get(i)
        other = theirs.nodes[j] if j is not None else None
        fn = functions[j] if (functions and j is not None) else ""
        problem = ""
        if other is None:
            problem = "" if i in folded else "only in our graph"
        elif not _close(node.data, other.data):
            problem = f"data {format_number(node.data)} ≠ {format_number(other.data)}"
        elif node.role != "const" and other.role != "const" and not _close(node.grad, other.grad):
            problem = f"grad {format_number(node.grad)} ≠ {format_number(other.grad)}"
        if problem and other is not None:
            problems.append(f"{names[i]}: {problem}")
        pairs.append(Pair(i, j, names[i], node.op, fn, (node.data, None if other is None
                          else other.data), (node.grad, None if other is None else other.grad),
                          problem))  # fmt: skip
    only = [j for j in range(len(theirs)) if j not in back]
    for j in only:
        node = theirs.nodes[j]
        fn = functions[j] if functions else ""
        pairs.append(Pair(None, j, their_names[j], "", fn, (None, node.data),
                          (None, node.grad), "only in PyTorch's graph"))  # fmt: skip
    unpaired = sum(1 for p in pairs if (p.ours is None or p.theirs is None)
                   and p.ours not in folded)  # fmt: skip
    if unpaired:
        problems.append(
            f"{unpaired} values have no partner: our graph has {len(ours)} values, "
            f"PyTorch's {len(theirs)}"
        )
    return pairs, problems


def _constant_expressions(graph: Graph) -> set[int]:
    """Our nodes computed from numbers alone (the 2⁻¹ our engine records for y / 2):
    PyTorch computes such a number at once and keeps only its value."""
    found: set[int] = set()
    for node in graph.nodes:  # operands come first: one pass decides
        if node.role == "const" or (node.operands and all(p in found for p in node.operands)):
            found.add(node.index)
    return found


def _below(graph: Graph, i: int) -> set[int]:
    """The nodes strictly below node i (its operands, theirs, ...)."""
    out: set[int] = set()
    todo = list(graph.nodes[i].operands)
    while todo:
        p = todo.pop()
        if p not in out:
            out.add(p)
            todo.extend(graph.nodes[p].operands)
    return out


def _pair_leaves_by_name(ours, theirs, names, their_names, matched, back) -> None:
    """Where the shapes part, the inputs below still pair up: by name (`x` with `x`)."""
    free = {their_names[j]: j for j, n in enumerate(theirs.nodes)
            if j not in back and n.is_leaf and n.role != "const"}  # fmt: skip
    for i, node in enumerate(ours.nodes):
        j = free.pop(names[i], None) if node.is_leaf and i not in matched else None
        if j is not None and node.role != "const":
            matched[i], back[j] = j, i


def _shape(graph: Graph, i: int) -> str:
    node = graph.nodes[i]
    if node.is_leaf:
        return "a number" if node.role == "const" else "a leaf"
    n = len(node.operands)
    return f"{describe(node.op).noun} of {n} operand{'s' if n != 1 else ''}"
