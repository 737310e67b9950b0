"""Reading a learner's own engine: the one walk of a micrograd-style graph, `read_graph`, reads each
node once (through the node-reader protocol of `autograd_viz.open.engines.node`), iteratively, into
a `ForeignGraph` of plain data in a deterministic topological order, with operands in expression
order even where a `set` lost it (recovered from the `_backward` closure, else from the forward
value, else sorted by content and said). Nothing here writes to the learner's objects; the rest of
`autograd_viz.open.engines` works from the `ForeignGraph`, touching a node only to run its
`_backward` and to save and restore its `grad`."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from autograd_viz.core.errors import NotAGraphError, NumberOutOfRangeError
from autograd_viz.open.engines.node import (
    is_graph,
    not_a_graph,
    raw_operands,
    read_exponent,
    read_label,
    read_local_grads,
    read_number,
    read_op,
    short_repr,
)
from autograd_viz.open.engines.ops import identify, method_name

__all__ = [
    "ForeignGraph",
    "NotAGraphError",
    "NumberOutOfRangeError",
    "read_graph",
]


@dataclass(frozen=True)
class ForeignGraph:
    """A learner's graph as plain data, in topological order (operands first, root last).

    `nodes` are the learner's own objects (kept to step through their backward pass);
    `operands[i]` are the indices of node i's operands in expression order (`a * a` lists
    `a` twice); `exponents[i]` is the number n of a `**n` node. `unordered` lists the
    nodes whose operand order could not be recovered and is shown sorted by content.
    `local_grads[i]` are the local derivatives node i stores per operand position (a
    microgpt-style node: `_local_grads`, no `_backward`), else None. `unnamed` lists the
    operations stored with no `_op` that nothing identifies (their op is the name of the
    method that made them, else "op"); `named`
    those whose operation the kit identified (`autograd_viz.open.engines.ops.identify`).
    """

    nodes: tuple[object, ...]
    operands: tuple[tuple[int, ...], ...]
    ops: tuple[str, ...]
    labels: tuple[str, ...]
    data: tuple[float, ...]
    grads: tuple[float, ...]
    exponents: tuple[float | None, ...]
    unordered: tuple[int, ...]
    engine: str
    local_grads: tuple[tuple[float, ...] | None, ...] = ()
    unnamed: tuple[int, ...] = ()
    named: tuple[int, ...] = ()

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def note(self) -> str:
        """A caption line when some operand order is a guess ('' when every order is known)."""
        lines = []
        if self.unordered:
            n = len(self.unordered)
            which = "operation" if n == 1 else "operations"
            lines.append(
                f"operand order of {n} {which} unknown (operands kept in a set): shown sorted"
            )
        if self.named:
            n = len(self.named)
            which = "operation stores" if n == 1 else "operations store"
            lines.append(
                f"{n} {which} no `_op`: named by the method that made it or by its numbers"
            )
        if self.unnamed:
            n = len(self.unnamed)
            which = (
                "operation stores no `_op` and fits"
                if n == 1
                else ("operations store no `_op` and fit")
            )
            lines.append(
                f"{n} {which} no operation the kit knows: written as a call of the method "
                "that made it (or op(…)), derivatives by number; store the operation in `_op`"
            )
        return "\n".join(lines)


# ---- operand order -------------------------------------------------------------------------

# The closure's name for the first operand, then names for the second, in preference order.
_FIRST = ("self", "a", "x", "left", "lhs")
_SECOND = ("other", "b", "y", "right", "rhs")


def _from_closure(node: object, operands: list[object]) -> list[object] | None:
    """Operands in order, from the `_backward` closure's `self`/`other` cells (or None)."""
    fn = getattr(node, "_backward", None)
    fn = getattr(fn, "__func__", fn)
    cells = getattr(fn, "__closure__", None)
    code = getattr(fn, "__code__", None)
    if not cells or code is None:
        return None
    ids = {id(op) for op in operands}
    held: dict[str, object] = {}
    for name, cell in zip(code.co_freevars, cells):
        try:
            content = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if id(content) in ids:
            held[name] = content
    first = next((held[n] for n in _FIRST if n in held), None)
    second = next((held[n] for n in _SECOND if n in held), None)
    ordered = [v for v in (first, second) if v is not None]
    if not ordered or {id(v) for v in ordered} != ids:
        return None  # the closure does not account for every operand
    return ordered


_BINARY: dict[str, Callable[[float, float], float]] = {
    "-": lambda a, b: a - b,
    "/": lambda a, b: a / b,
    "**": lambda a, b: a**b,
    "+": lambda a, b: a + b,
    "*": lambda a, b: a * b,
}


def _from_forward(op: str, out: float, operands: list[object], data: dict[int, float]):
    """Operands in the one order that reproduces the forward value (or None)."""
    f = _BINARY.get(op)
    if f is None:
        return None
    if len(operands) == 1:  # a set keeps `a * a` as {a}
        operands = operands * 2
    if len(operands) != 2:
        return None
    a, b = operands
    matches = []
    for first, second in ((a, b), (b, a)):
        try:
            result = f(data[id(first)], data[id(second)])
        except (ArithmeticError, ValueError, TypeError):
            continue
        if isinstance(result, complex):
            continue
        if not math.isclose(result, out, rel_tol=1e-9, abs_tol=1e-12):
            continue
        matches.append([first, second])
    if len(matches) == 1 or (matches and a is b):
        return matches[0]
    return None


# ---- the walk ---------------------------------------------------------------------------------


def read_graph(
    root: object, *, read: Mapping[int, tuple[list[object], bool]] | None = None
) -> ForeignGraph:
    """Read a micrograd-style graph ending at `root` into a `ForeignGraph` (one iterative walk).

    `read` holds operands already read (`raw_operands` of a node, by its `id`: the size
    check's walk, `autograd_viz.open.size`), so no node's operands are read twice.

    A set has no order, and micrograd's `a * a` keeps `a` once. The order (and the repeat)
    is recovered from the `_backward` closure, which holds the operands as `self` and `other`;
    failing that, by checking which order reproduces the forward value; failing that, the
    operands are sorted by their content, and `ForeignGraph.note` says so for the caption.

    >>> from micrograd.engine import Value  # doctest: +SKIP
    >>> x, y = Value(2.0), Value(3.0)  # doctest: +SKIP
    >>> g = read_graph((x + y) * y)  # doctest: +SKIP
    >>> g.data, g.operands  # doctest: +SKIP
    ((2.0, 3.0, 5.0, 15.0), ((), (), (0, 1), (2, 1)))
    """
    if not is_graph(root):
        raise not_a_graph(root)
    # 1. every node once, with its operands as stored
    known = read if read is not None else {}
    raw: dict[int, list[object]] = {}
    loose: set[int] = set()
    objects: dict[int, object] = {}
    data: dict[int, float] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        key = id(node)
        if key in objects:
            continue
        objects[key] = node
        data[key] = read_number(node, "data", node)
        found = known.get(key)
        raw[key], is_set = found if found is not None else raw_operands(node)
        if is_set and len(raw[key]) > 0:
            loose.add(key)
        stack.extend(raw[key])

    ops = {key: read_op(node) for key, node in objects.items()}
    local = {key: read_local_grads(node, len(raw[key])) for key, node in objects.items()}

    # 2. operand order where a set lost it
    ordered: dict[int, list[object]] = {}
    guessed: set[int] = set()
    for key in loose:
        node, operands = objects[key], raw[key]
        found = _from_closure(node, operands)
        if found is None:
            found = _from_forward(ops[key], data[key], operands, data)
        if found is None:
            guessed.add(key)
        else:
            ordered[key] = found
    if guessed:
        _topological(root, raw)  # refuse a cycle before sorting by content
        digest = _digests(objects, raw, ops, data)
        for key in guessed:
            ordered[key] = sorted(raw[key], key=lambda v: digest[id(v)])
    for key in objects:
        ordered.setdefault(key, raw[key])

    # 3. the operation of a node stored with no `_op`: identified, or said to be unknown
    named: set[int] = set()
    unnamed: set[int] = set()
    for key, node in objects.items():
        if ops[key].strip() or not ordered[key]:
            continue
        args = [data[id(p)] for p in ordered[key]]
        found = identify(node, args, data[key], local[key])
        if found is None:  # written as a call of the method that made it, else of "op"
            ops[key] = method_name(node, None) or "op"
            unnamed.add(key)
        else:
            ops[key] = found
            named.add(key)

    # 4. topological order: depth-first, operands in order, an explicit stack
    order = _topological(root, ordered)
    position = {id(node): i for i, node in enumerate(order)}
    operands = tuple(tuple(position[id(p)] for p in ordered[id(node)]) for node in order)
    return ForeignGraph(
        nodes=tuple(order),
        operands=operands,
        ops=tuple(_fit_arity(ops[id(node)], len(ordered[id(node)])) for node in order),
        labels=tuple(read_label(node) for node in order),
        data=tuple(data[id(node)] for node in order),
        grads=tuple(read_number(node, "grad", node) for node in order),
        exponents=tuple(
            read_exponent(node, ops[id(node)], len(ordered[id(node)])) for node in order
        ),
        unordered=tuple(sorted(position[key] for key in guessed)),
        engine=f"{type(root).__module__}.{type(root).__qualname__}",
        local_grads=tuple(local[id(node)] for node in order),
        unnamed=tuple(sorted(position[key] for key in unnamed)),
        named=tuple(sorted(position[key] for key in named)),
    )


def _topological(root: object, ordered: dict[int, list[object]]) -> list[object]:
    order: list[object] = []
    placed: set[int] = set()
    visited: set[int] = set()
    stack: list[object] = [root]
    marker = object()
    while stack:
        node = stack.pop()
        if node is marker:
            done = stack.pop()
            placed.add(id(done))
            order.append(done)
            continue
        if id(node) in visited:
            if id(node) not in placed:  # on the current path: the node is its own ancestor
                raise NotAGraphError(
                    f"{short_repr(node)} is one of its own operands (directly or through "
                    "others): a computation graph has no cycles. Check where its operands "
                    "(`_prev`) are set."
                )
            continue
        visited.add(id(node))
        stack += (node, marker)
        stack.extend(reversed(ordered[id(node)]))  # the first operand pops first
    return order


def _fit_arity(op: str, n_operands: int) -> str:
    """An op the kit writes between two operands (`a + b`) but met with another number of
    them (a learner's "+" over three values) is written as a call instead, `sum(a, b, c)`,
    with its derivatives by number (the call is named by the row's noun, "the sum" -> `sum`):
    no equation is built from the wrong operands."""
    from autograd_viz.core.ops import DERIVED, OPS
    from autograd_viz.open.engines.ops import canonical_op

    text = op.strip()
    if text.startswith("**") and text != "**" and n_operands > 1:  # "**2" of two values
        return "power"
    name = canonical_op(op, n_operands) if n_operands else None
    row = OPS.get(name or "") or DERIVED.get(name or "")
    if row is not None and row.arity == 2 and n_operands != 2:
        return row.noun.removeprefix("the ")
    return op


def _digests(
    objects: dict[int, object],
    raw: dict[int, list[object]],
    ops: dict[int, str],
    data: dict[int, float],
) -> dict[int, str]:
    """A content digest per node (op, label, number, operands' digests), computed operands
    first: a deterministic sort key for operands whose order was lost."""
    digest: dict[int, str] = {}
    for key in objects:
        stack = [key]
        while stack:
            k = stack[-1]
            if k in digest:
                stack.pop()
                continue
            pending = [id(p) for p in raw[k] if id(p) not in digest]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            parts = sorted(digest[id(p)] for p in raw[k])
            text = f"{read_label(objects[k])}|{ops[k]}|{data[k]!r}|{','.join(parts)}"
            digest[k] = hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
    # A readable order first (labels, then numbers); the digest only breaks ties.
    return {
        k: f"{read_label(objects[k]) or '~'}\x00{data[k]:+.17e}\x00{digest[k]}" for k in objects
    }
