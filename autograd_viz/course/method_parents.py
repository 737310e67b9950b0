"""What the node a learner's method made says about its parents, as their own class stores them,
for `method_check`: the nodes it leads back to (walked iteratively), whether it reaches every
operand it was given (`(self)` for `(self,)`, a forgotten `other`), whether it lists them in
order where the order changes the operation (y / x for x / y), each said in words with the hint
that tells how to list them.
"""

from __future__ import annotations

import math

from autograd_viz.course._verdict import a_, show
from autograd_viz.open.engines.node import OP_NAMES, OPERAND_NAMES, is_graph, raw_operands
from autograd_viz.open.engines.ops import canonical_op, table_value


def _parents_hint(cls: type, n_args: int) -> str:
    parents = "(self, other)" if n_args else "(self,)"
    return (
        f"list every operand among the new node's parents, e.g. `{cls.__name__}(..., "
        f"{parents}, ...)`: backward() reaches only what the parents lead back to."
    )


def _operands(node: object) -> list[object]:
    try:
        return raw_operands(node)[0]
    except Exception:  # not a node, or operands the kit cannot read: nothing to walk
        return []


def _nodes(root: object) -> list[object]:
    """Every node `root` leads back to through its stored parents (iteratively)."""
    seen, stack, out = set(), [root], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(_operands(node))
    return out


def _name(node: object) -> str:
    label = getattr(node, "label", "") or getattr(node, "name", "")
    if isinstance(label, str) and label:
        return label
    return f"the value {show(float(getattr(node, 'data', math.nan)))}"


def _misordered(node: object, args: tuple, made: object) -> str | None:
    """How the node lists its operands out of order where the order changes the operation
    (y / x for x / y: drawings and the engine check read the parents in order), or None."""
    operands = [node, *(a for a in args if is_graph(a))]
    try:
        parents, unordered = raw_operands(made)
    except Exception:
        return None
    same_nodes = sorted(map(id, parents)) == sorted(map(id, operands))
    if unordered or not same_nodes or [id(p) for p in parents] == [id(o) for o in operands]:
        return None
    op = next((getattr(made, n) for n in OP_NAMES if hasattr(made, n)), "")
    canonical = canonical_op(op, len(parents)) if isinstance(op, str) else None
    as_given = table_value(canonical, [float(o.data) for o in operands], None)
    as_listed = table_value(canonical, [float(p.data) for p in parents], None)
    if as_given is None or as_listed is None or math.isclose(as_given, as_listed):
        return None  # an order that cannot change the value (x·y as y·x), or an unknown op
    listed = ", ".join(_name(p) for p in parents)
    given = ", ".join(_name(o) for o in operands)
    return (
        f"lists its parents as ({listed}); the operands in order are ({given}), and `{op}` in "
        f"that order gives {show(as_listed)}, not {show(as_given)}: drawings and the engine "
        "check read the parents in order"
    )


def _cut_operand(node: object, args: tuple, made: object) -> str | None:
    """How the node a method made fails to lead back to an operand it was given, or None.
    A number operand is wrapped by the learner's method: it has no node to look for."""
    operands = [node, *(a for a in args if is_graph(a))]
    reached = {id(n) for n in _nodes(made)}
    lost = [o for o in operands if id(o) not in reached]
    if not lost:
        return None
    try:
        parents = raw_operands(made)[0]
    except Exception:  # `(self)` where `(self,)` was meant: a node, not a tuple of nodes
        stored = next((getattr(made, n) for n in OPERAND_NAMES if hasattr(made, n)), None)
        return (
            f"keeps {a_(type(stored).__name__)} as its parents, not a tuple of nodes, so "
            f"backward() cannot reach {_name(lost[0])} (a one-operand tuple needs its comma: "
            "(self,))"
        )
    listed = ", ".join(_name(p) for p in parents) if parents else "none"
    return (
        f"does not lead back to {_name(lost[0])}: its parents are ({listed}), so backward() "
        f"never sends {_name(lost[0])} its gradient"
    )
