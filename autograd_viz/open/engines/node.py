"""What a node of a learner's own engine looks like, read without writing to it: the node-reader
protocol (a node has `data`, `grad`, its operands under `_prev` or another usual name, perhaps an
`_op`, a `label`, a `_backward()` closure or stored `_local_grads`; a shape, not a type). `is_graph`
asks whether the attributes are there without running a property; `raw_operands` is the one read
of a node's operands, which the size check hands on to the walk (`autograd_viz.open.engines.read`);
every other attribute is read here too, and a value that is not a number is refused with what to
store instead.
"""

from __future__ import annotations

import numbers
import re
import types
from collections.abc import Sequence

from autograd_viz.core._text import clean_label
from autograd_viz.core.errors import LOOKS_FOR, OPERAND_NAMES, NotAGraphError, NumberOutOfRangeError

__all__ = [
    "LABEL_NAMES",
    "LOCAL_NAMES",
    "OPERAND_NAMES",
    "OP_NAMES",
    "is_graph",
    "not_a_graph",
    "raw_operands",
    "read_exponent",
    "read_label",
    "read_local_grads",
    "read_number",
    "read_op",
    "short_repr",
]

OP_NAMES = ("_op", "op")
LABEL_NAMES = ("label", "name")
LOCAL_NAMES = ("_local_grads", "local_grads")  # microgpt: local gradients, not closures


_MISSING = object()


def _first_attr(obj: object, names: Sequence[str]) -> tuple[str, object] | None:
    for name in names:
        value = getattr(obj, name, _MISSING)
        if value is not _MISSING:
            return name, value
    return None


_USED: dict[tuple[type, tuple[str, ...]], str] = {}  # which of the names a class uses


def _attr(obj: object, names: tuple[str, ...]) -> tuple[str, object] | None:
    """`_first_attr`, remembering per class which name it found (a graph has one class,
    read a thousand times)."""
    key = (type(obj), names)
    name = _USED.get(key)
    if name is not None:
        value = getattr(obj, name, _MISSING)
        if value is not _MISSING:
            return name, value
    found = _first_attr(obj, names)
    if found is not None:
        _USED[key] = found[0]
    return found


def not_a_graph(obj: object, where: str = "") -> NotAGraphError:
    kind = f"{type(obj).__module__}.{type(obj).__qualname__}".removeprefix("builtins.")
    has = [n for n in ("data", "grad", *OPERAND_NAMES) if _first_attr(obj, [n]) is not None]
    found = (
        f"it has {', '.join(f'`{n}`' for n in has)} but not the rest"
        if has
        else ("it has none of these attributes")
    )
    hint = ""
    if kind.startswith("torch."):
        hint = (
            " A PyTorch tensor is not read as a micrograd-style node: its graph is its "
            "`grad_fn`, which autograd_viz.draw(t) reads for a scalar tensor made from "
            "tensors with requires_grad=True (autograd_viz.side_by_side compares it with "
            "the same expression built from autograd_viz.Value)."
        )
    elif isinstance(obj, (numbers.Number, str, bytes)):
        hint = " A plain number has no graph: build it from Values, e.g. Value(2.0) * Value(3.0)."
    elif isinstance(obj, dict):
        hint = " A dict is not read as a node: the kit reads attributes, not keys."
    elif isinstance(obj, (list, tuple)) and obj and all(is_graph(v) for v in obj):
        hint = (
            f" It holds {len(obj)} graph outputs (a Layer, or an MLP with several outputs, "
            "returns one per neuron): draw one of them, e.g. out[0], or one Value made from "
            "all of them, e.g. a loss."
        )
    return NotAGraphError(
        f"{where}a {kind} ({short_repr(obj)}) is not a computation graph: {found}. "
        f"{LOOKS_FOR}.{hint}"
    )


def short_repr(obj: object) -> str:
    try:
        text = repr(obj)
    except Exception:  # a learner's __repr__ may itself be broken
        text = f"<{type(obj).__name__} object>"
    return text if len(text) <= 60 else text[:57] + "..."


def is_graph(obj: object) -> bool:
    """True for an object shaped like a micrograd-style node (data, grad and operands).

    Asks only whether the attributes are there, without reading a property's value (a
    learner's `_prev` may be computed): the one walk reads each node's operands once."""
    return _has(obj, "data") and _has(obj, "grad") and any(_has(obj, n) for n in OPERAND_NAMES)


def _has(obj: object, name: str) -> bool:
    """Whether `obj` has attribute `name`: an instance attribute, or one its class defines
    (a property is not run); a slot, or anything else (`__getattr__`), is asked for."""
    own = getattr(obj, "__dict__", None)
    if isinstance(own, dict) and name in own:
        return True
    for cls in type(obj).__mro__:
        found = vars(cls).get(name, _MISSING)
        if found is not _MISSING and not isinstance(found, types.MemberDescriptorType):
            return True
    return getattr(obj, name, _MISSING) is not _MISSING


def read_number(obj: object, attr: str, node: object) -> float:
    try:
        value = getattr(obj, attr)
    except AttributeError:
        raise not_a_graph(node, "an operand in the graph: ") from None
    if type(value) is float:
        return value
    if isinstance(value, numbers.Real):  # bools count as 1 and 0, as in our Value
        try:
            return float(value)
        except OverflowError:  # an int past 1.8e308 (Python ints have no limit)
            raise NumberOutOfRangeError(_too_large(node, attr, value)) from None
    try:  # numpy scalars and 0-d arrays
        return float(value.item())
    except (AttributeError, TypeError, ValueError):
        pass
    raise NotAGraphError(
        f"{short_repr(node)}: its `{attr}` is a {type(value).__name__} ({short_repr(value)}), "
        "not a number. The kit draws scalar engines: each node holds one real number."
    )


def _too_large(node: object, attr: str, value: numbers.Real) -> str:
    digits = len(str(abs(int(value))))
    return (
        f"{short_repr(node)}: its `{attr}` is a whole number of {digits} digits, too large "
        "for a float (the largest is about 1.8e308), so the kit cannot draw or check it. "
        f"Store a float (`float(...)` raises the same OverflowError) or a smaller number; "
        "a float that grows too large becomes inf, which the kit shows."
    )


def raw_operands(node: object) -> tuple[list[object], bool]:
    """The node's operands as stored, and whether their order is lost (a set)."""
    found = _attr(node, OPERAND_NAMES)
    if found is None:
        raise not_a_graph(node, "an operand in the graph: ")
    name, stored = found
    if stored is None:
        return [], False
    if isinstance(stored, (set, frozenset)):
        return list(stored), True
    if isinstance(stored, (list, tuple)):
        return list(stored), False
    raise NotAGraphError(
        f"{short_repr(node)}: its operands `{name}` are a {type(stored).__name__}; "
        "the kit reads a set, tuple or list of nodes."
    )


def read_local_grads(node: object, n_operands: int) -> tuple[float, ...] | None:
    """The local derivatives a microgpt-style node stores, one per operand position; None
    for a node with a `_backward` of its own (its closure is what runs; the do-nothing one
    `__init__` sets does not count), a leaf, or a node that stores none (or not one number
    per operand)."""
    rule = getattr(node, "_backward", None)
    qualname = getattr(getattr(rule, "__func__", rule), "__qualname__", "")
    if not n_operands or (callable(rule) and ".__init__.<locals>." not in f".{qualname}"):
        return None  # a closure of its own is what runs (the do-nothing default is none)
    found = _attr(node, LOCAL_NAMES)
    if found is None or not isinstance(found[1], (list, tuple)) or len(found[1]) != n_operands:
        return None
    out = []
    for g in found[1]:
        if isinstance(g, numbers.Real):
            out.append(float(g))
        else:
            try:  # numpy scalars
                out.append(float(g.item()))
            except (AttributeError, TypeError, ValueError):
                return None
    return tuple(out)


def read_op(node: object) -> str:
    found = _attr(node, OP_NAMES)
    if found is None or found[1] is None:
        return ""
    return str(found[1])


def read_label(node: object) -> str:
    found = _attr(node, LABEL_NAMES)
    if found is None or found[1] is None or callable(found[1]):
        return ""
    return clean_label(str(found[1]))


_POWER = re.compile(r"\*\*\s*\(?\s*([-+]?[0-9.]+(?:e[-+]?\d+)?)\s*\)?")


def read_exponent(node: object, op: str, n_operands: int) -> float | None:
    """The n of a `**n` node: from its op text (`**2`), else the closure's number `other`."""
    if n_operands != 1:
        return None
    m = _POWER.fullmatch(op.strip())
    if m:
        try:
            return float(m.group(1))
        except ValueError:
            return None
    fn = getattr(getattr(node, "_backward", None), "__func__", getattr(node, "_backward", None))
    power = "**" in op or "pow" in op or ".__pow__." in getattr(fn, "__qualname__", "")
    if not power:
        return None
    code, cells = getattr(fn, "__code__", None), getattr(fn, "__closure__", None) or ()
    for name, cell in zip(getattr(code, "co_freevars", ()), cells):
        if name in ("other", "n", "exponent", "k", "p"):
            value = cell.cell_contents
            if isinstance(value, numbers.Real) and not isinstance(value, bool):
                return float(value)
    return None
