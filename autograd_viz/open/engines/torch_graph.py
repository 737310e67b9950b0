"""Reading PyTorch's graph: a scalar tensor's `grad_fn` graph (each Function's `next_functions` in
operand order, an `AccumulateGrad` for a leaf, `None` for a number in the expression) walked once,
iteratively, into the kit's plain `Graph`, so node i is node i of the same expression built from
our `Value`. Each value is computed with the op table's row and checked against every tensor
PyTorch saved (a mismatch is an error, never a wrong picture): a graph of scalars by
`engines.torch_scalars`, one that holds small tensors (up to 16 numbers each) by
`engines.torch_tensors`; `engines.torch_run` then adds PyTorch's own backward pass. torch is
imported only there, lazily: `import autograd_viz` never loads it, and `is_tensor` recognises a
tensor without it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from autograd_viz.core.errors import GraphTooLargeError, TorchGraphError
from autograd_viz.core.ops import POWER_N
from autograd_viz.open.engines.ops import canonical_op, engine_op
from autograd_viz.open.engines.torch_scalars import _elements, _number, _shape, scalar_values
from autograd_viz.open.engines.torch_tensors import (
    MAX_ELEMENTS,
    _name,
    _node_shape,
    _output_shape,
    _refuse_large,
    tensor_values,
)

__all__ = ["TorchRead", "is_tensor", "read_torch"]


def is_tensor(obj: object) -> bool:
    """True for a PyTorch tensor (or `nn.Parameter`), asked without importing torch."""
    return type(obj).__module__.startswith("torch") and hasattr(obj, "grad_fn")


@dataclass(frozen=True)
class TorchRead:
    """PyTorch's graph as plain data, in topological order (operands first, root last),
    plus the PyTorch objects the one backward run needs (`functions`, `leaves`).

    `kinds[i]` is "leaf", "const" or "function"; `names[i]` the Function's name
    (`MulBackward0`; `AccumulateGrad` for a leaf, '' for a constant); `ops[i]` the op
    string of the kit's engine ("*", "**2", "-") or, for a Function without a row, its
    name; `custom` lists the nodes made by a `torch.autograd.Function` of the learner's.
    In a graph holding tensors of several elements, `shapes` and `values` hold each
    tensor's shape and numbers, and `data[i]` is nan for a tensor of several numbers.
    """

    root: object
    kinds: tuple[str, ...]
    names: tuple[str, ...]
    ops: tuple[str, ...]
    operands: tuple[tuple[int, ...], ...]
    data: tuple[float, ...]
    exponents: tuple[float | None, ...]
    labels: tuple[str, ...]
    params: tuple[int, ...]
    functions: tuple[object | None, ...]  # the Function (AccumulateGrad for a leaf) per node
    custom: tuple[int, ...] = ()
    saved: tuple[tuple[tuple[str, float], ...], ...] = ()  # per node: what its Function saved
    # a graph holding tensors of several elements: per node its shape and its numbers
    # (row-major); empty for a graph of scalars, whose numbers are `data`
    shapes: tuple[tuple[int, ...], ...] = ()
    values: tuple[tuple[float, ...], ...] = ()

    def __len__(self) -> int:
        return len(self.kinds)


class _Const:
    """A number written into the expression: operand `position` of Function `fn`."""

    def __init__(self, fn: object, position: int) -> None:
        self.fn, self.position = fn, position


def _refuse_root(root: object) -> None:
    """The tensor itself: one number, with a graph behind it."""
    if _elements(root) != 1:
        raise TorchGraphError(
            f"autograd_viz draws the graph behind one number (a loss); this tensor has "
            f"{_elements(root)} elements (shape {_shape(root)}). Draw a number made from it: "
            "z.sum() or z.mean() — its graph may hold tensors of up to "
            f"{MAX_ELEMENTS} elements each — or one element's own expression, built from "
            "scalar tensors, e.g. x = torch.tensor(2.0, requires_grad=True)."
        )
    if getattr(root, "grad_fn", None) is None:
        leaf = getattr(root, "requires_grad", False)
        made = "a leaf tensor" if leaf else "a tensor with no graph"
        raise TorchGraphError(
            f"this is {made} (its grad_fn is None): there is no operation to draw. Call it on "
            "the output of an expression of tensors made with requires_grad=True, e.g. "
            "x = torch.tensor(2.0, requires_grad=True); draw(x * x) — not on a tensor "
            "computed under torch.no_grad() or from tensors that do not require grad."
        )


def _saved(fn: object, name: str) -> object:
    """A saved tensor or number of `fn`, translating PyTorch's errors into what to do."""
    try:
        return getattr(fn, name, None)
    except RuntimeError as err:
        text = str(err)
        if "second time" in text or "freed" in text:
            raise TorchGraphError(
                "PyTorch has freed this graph's saved tensors: backward() already ran on it "
                "(it frees them unless asked not to). Build the expression again, or call "
                "backward(retain_graph=True) the first time, then draw it."
            ) from None
        if "inplace" in text or "in-place" in text:
            raise TorchGraphError(
                "a tensor this graph saved was changed in place afterwards (an operation "
                "ending in _, like add_, or an assignment t[...] = ...), so PyTorch itself "
                f"can no longer run its backward ({fn.name()}). Build the expression again "  # type: ignore[attr-defined]
                "without changing its tensors in place."
            ) from None
        raise


# A tensor times a number, made inside PyTorch's own formulas (the backward of x ** 3, run with
# create_graph=True, is `grad * (3 * x ** 2)`): the number is not in next_functions but saved
# as a plain number in `_saved_other`, the second operand.
_SCALAR_OTHER = ("MulBackward1", "DivBackward1")


def _children(fn: object) -> list[object]:
    """A Function's operands in order: Functions, and `_Const` for a number written in."""
    out = []
    if _name(fn) in _SCALAR_OTHER and len(fn.next_functions) == 1:  # type: ignore[attr-defined]
        child, output = fn.next_functions[0]  # type: ignore[attr-defined]
        return [_Const(fn, 0) if child is None else child, _Const(fn, 1)]
    for k, (child, output) in enumerate(fn.next_functions):  # type: ignore[attr-defined]
        if child is None:
            out.append(_Const(fn, k))
            continue
        if output != 0:
            raise TorchGraphError(
                f"{fn.name()} uses output {output} of {child.name()}, a Function with several "  # type: ignore[attr-defined]
                "outputs (unbind, split, ...): this version draws Functions of one output. "
                "Build the expression from scalar tensors."
            )
        out.append(child)
    return out


def _walk(root_fn: object, max_nodes: int | None, too_large) -> list[tuple[object, list[object]]]:
    """Every node (a Function, an AccumulateGrad or a `_Const`) with its operands, in the
    order of an iterative depth-first walk in operand order: operands before their user."""
    order: list[tuple[object, list[object]]] = []
    placed: dict[int, int] = {}
    marker = object()
    stack: list[object] = [root_fn]
    while stack:
        v = stack.pop()
        if v is marker:
            kids, v = stack.pop(), stack.pop()
            if id(v) not in placed:
                placed[id(v)] = len(order)
                order.append((v, kids))
                if max_nodes is not None and len(order) > max_nodes:
                    raise too_large(max_nodes)
        elif id(v) not in placed:
            kids = [] if isinstance(v, _Const) or hasattr(v, "variable") else _children(v)
            stack += (v, kids, marker)
            stack.extend(reversed(kids))
    return order


_WHOLE = {"SumBackward0": "sum", "MeanBackward0": "mean"}  # .sum() and .mean() of a whole tensor


def _op(fn: object, n_operands: int) -> tuple[str, str | None, float | None]:
    """(the op string, the op table's key or None, the exponent of x ** n) of a Function."""
    name = _name(fn)
    if getattr(fn, "_saved_alpha", 1) != 1:  # torch.add(x, y, alpha=2): not the sum's row
        return name, None, None
    canonical = canonical_op(name, n_operands)
    if canonical is None:  # a whole tensor added up is written sum(x), mean(x)
        return _WHOLE.get(name, name), None, None
    if canonical == POWER_N:
        n = _number(_saved(fn, "_saved_exponent"), name)
        return (name, None, None) if n is None else (f"**{n:g}", POWER_N, n)
    return engine_op(canonical) or canonical, canonical, None


def read_torch(
    root: object,
    *,
    names: Mapping[str, object] | None = None,
    max_nodes: int | None = None,
    too_large=None,
) -> TorchRead:
    """PyTorch's graph ending at the scalar tensor `root`, read once (see the module
    docstring); `names` labels tensors of it ({"x": x}). Refused with a `TorchGraphError`
    that says what to do: a tensor of several elements, one with no graph, a graph whose
    saved tensors were freed or changed in place, a value PyTorch's numbers contradict."""
    _refuse_root(root)
    if too_large is None:
        too_large = _too_large
    walked = _walk(root.grad_fn, max_nodes, too_large)  # type: ignore[attr-defined]
    index = {id(v): i for i, (v, _) in enumerate(walked)}
    kinds, fnames, ops, operands, exponents, rows, params, custom = [], [], [], [], [], [], [], []
    for i, (v, kids) in enumerate(walked):
        operands.append(tuple(index[id(k)] for k in kids))
        if isinstance(v, _Const):
            kinds.append("const")
            fnames.append("")
            ops.append("")
            rows.append(None)
            exponents.append(None)
        elif hasattr(v, "variable"):
            var = v.variable
            _refuse_large("a leaf of this graph", tuple(var.shape))
            kinds.append("leaf")
            fnames.append("AccumulateGrad")
            ops.append("")
            rows.append(None)
            exponents.append(None)
            if type(var).__name__ == "Parameter":
                params.append(i)
        else:
            _refuse_large(f"the output of {_name(v)}", _output_shape(v))
            kinds.append("function")
            fnames.append(_name(v))
            op, canonical, n = _op(v, len(kids))
            ops.append(op)
            rows.append(canonical)
            exponents.append(n)
            if type(v).__module__ == "torch.autograd.function":  # a torch.autograd.Function
                custom.append(i)
    kept = [_kept(v) if kinds[i] == "function" else {} for i, (v, _) in enumerate(walked)]
    shapes: tuple[tuple[int, ...], ...] = ()
    values: tuple[tuple[float, ...], ...] = ()
    if any(math.prod(_node_shape(v)) != 1 for v, _ in walked if not isinstance(v, _Const)):
        shapes, values = tensor_values(walked, kinds, rows, operands, exponents, root, kept)
        data = tuple(vs[0] if len(vs) == 1 else math.nan for vs in values)
    else:
        data = scalar_values(walked, kinds, rows, operands, exponents, root, kept)
    labels = _labels(walked, kinds, names)
    functions = tuple(None if isinstance(v, _Const) else v for v, _ in walked)
    saved = tuple(_saved_numbers(walked[i][0], kept[i]) for i in range(len(walked)))
    return TorchRead(root, tuple(kinds), tuple(fnames), tuple(ops), tuple(operands), data,
                     tuple(exponents), labels, tuple(params), functions, tuple(custom),
                     saved, shapes, values)  # fmt: skip


def _kept(fn: object) -> dict[str, object]:
    """Everything a Function keeps for its backward (`_saved_self`, `_saved_result`, ...),
    read once, operands first, then its result and the rest."""
    first = ("_saved_self", "_saved_other", "_saved_exponent", "_saved_result")
    names = [a for a in dir(fn) if a.startswith("_saved_")]
    order = sorted(names, key=lambda a: (first.index(a) if a in first else len(first), a))
    return {attr: _saved(fn, attr) for attr in order}


def _saved_numbers(fn: object, kept: dict[str, object]) -> tuple[tuple[str, float], ...]:
    """What a Function keeps for its backward, as (name, number): `self 5`, `result 0.964` —
    the tensors PyTorch holds instead of values (a sum keeps none: its alpha of 1 is left out,
    and so is anything that is not one number)."""
    out = []
    for attr, value in kept.items():
        name = attr.removeprefix("_saved_")
        try:
            number = _number(value, f"{_name(fn)}.{attr}")
        except TorchGraphError:  # a tensor of several numbers: not drawn in a node
            continue
        if number is not None and not (name == "alpha" and number == 1):
            out.append((name, number))
    return tuple(out)


def _too_large(max_nodes: int) -> GraphTooLargeError:
    return GraphTooLargeError(
        f"this PyTorch graph has more than {max_nodes} values (max_nodes={max_nodes}), too "
        "many to show one by one (counting stopped there, before any work). Draw less: a "
        "sub-expression, or raise max_nodes."
    )


def _labels(walked, kinds, names: Mapping[str, object] | None) -> tuple[str, ...]:
    """`names` ({"x": x}) as each node's label: a leaf by its tensor, any other tensor of
    the graph by its grad_fn; a tensor that is not in the graph is refused."""
    labels = [""] * len(walked)
    if names is None:
        return tuple(labels)
    if not isinstance(names, Mapping):
        raise TypeError(
            f"names must map a name to a tensor, e.g. names={{'x': x, 'y': y}}; got "
            f"{type(names).__name__}"
        )
    where = {}
    for i, (v, _) in enumerate(walked):
        if kinds[i] == "leaf":
            where[id(v.variable)] = i
        elif kinds[i] == "function":
            where[id(v)] = i
    for name, tensor in names.items():
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"names maps a name (a non-empty str) to a tensor; got {name!r}")
        if not is_tensor(tensor):
            raise TypeError(
                f"names[{name!r}] must be a tensor of this graph, got {type(tensor).__name__}"
            )
        fn = tensor.grad_fn  # type: ignore[attr-defined]
        i = where.get(id(tensor)) if fn is None else where.get(id(fn))
        if i is None:
            raise TorchGraphError(
                f"names[{name!r}] is a tensor that is not part of this graph: name the "
                "tensors the expression was built from (its inputs, or values on the way)."
            )
        labels[i] = name
    return tuple(labels)
