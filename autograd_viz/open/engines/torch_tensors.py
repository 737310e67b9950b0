"""The numbers of a PyTorch graph that holds small tensors (up to `MAX_ELEMENTS` each, the root one
number): every tensor's shape and values, element by element — a leaf's from its tensor, each
Function's output from the copy PyTorch saved of it where it saved one (its own numbers), else
computed with the op table's row on each element of its operands, broadcast as PyTorch broadcasts
them (a scalar against a vector), or, for `.sum()` and `.mean()` of a whole tensor, added up —
and every copy PyTorch saved checked against them (a mismatch is an error, never a wrong
picture). `autograd_viz.open.engines.torch_graph.read_torch` asks for it when a tensor of its graph
has several elements (the numbers of a graph of scalars are read there, as before), and takes
from here what both readers share: a Function's name, the shape of what it made, the size limit
and how closely PyTorch's numbers and the kit's must agree.
"""

from __future__ import annotations

import itertools
import math

from autograd_viz.core._numbers import format_number, nested, shape_text
from autograd_viz.core.errors import TorchGraphError
from autograd_viz.open.engines.ops import table_partials, table_value

__all__ = ["MAX_ELEMENTS", "edge_numbers", "shown", "tensor_values"]

# the saved tensors that are an operand's value, by operand position (`_saved_exponent`
# is the second operand of x ** y; for x ** 2 it is the number n)
_BY_POSITION = (("_saved_self", 0), ("_saved_other", 1))
MAX_ELEMENTS = 16  # numbers per tensor: each drawn as a short vector, on one line

Shape = tuple[int, ...]
Numbers = tuple[float, ...]

# A whole tensor added up into one number: the reductions a learner writes for a loss.
# (A reduction over some dimensions, `x.sum(0)`, is another Function: SumBackward1.)
_REDUCTIONS = {
    "SumBackward0": math.fsum,
    "MeanBackward0": lambda xs: math.fsum(xs) / len(xs),
}


def _name(fn: object) -> str:
    return fn.name().removeprefix("torch::autograd::")  # type: ignore[attr-defined]


def _output_shape(fn: object) -> tuple[int, ...]:
    """The shape of the tensor a Function made (PyTorch keeps it to check the gradient
    that arrives); () where it keeps none."""
    meta = getattr(fn, "_input_metadata", None)
    return tuple(meta[0].shape) if meta else ()


def _node_shape(v: object) -> tuple[int, ...]:
    """The shape of a leaf's tensor or of a Function's output."""
    return tuple(v.variable.shape) if hasattr(v, "variable") else _output_shape(v)  # type: ignore[attr-defined]


def _tolerance(root: object) -> tuple[float, float]:
    """(relative, absolute) agreement expected between PyTorch's numbers and the kit's."""
    eps = {"torch.float64": 2.2e-16, "torch.float16": 9.8e-4, "torch.bfloat16": 7.8e-3}
    e = eps.get(str(getattr(root, "dtype", "")), 1.2e-7)  # float32 by default
    return e * 128, e * 8


def _agree(a: float, b: float, tolerance: tuple[float, float]) -> bool:
    """PyTorch's number and the kit's are the same, within `_tolerance` (nan on both sides:
    log(−1) in both)."""
    rel, abs_ = tolerance
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_) or (math.isnan(a) and math.isnan(b))


def _refuse_large(what: str, shape: tuple[int, ...]) -> None:
    """A tensor of the graph (a leaf's, or a Function's output) of more than MAX_ELEMENTS."""
    elements = math.prod(shape)
    if elements > MAX_ELEMENTS:
        raise TorchGraphError(
            f"{what} has {elements} elements (shape {shape_text(shape)}): autograd_viz shows "
            f"every number of every tensor, up to {MAX_ELEMENTS} per tensor. Draw less: the "
            "same expression on a few elements (x[:4] as a new leaf: "
            "x[:4].detach().requires_grad_()), or fewer rows of a batch."
        )


def shown(shape: Shape, numbers: Numbers, number) -> str:
    """A tensor's numbers as drawn, nested as its shape: `2` for one number of shape (),
    `[1, 2, 3]`, `[[1, 2], [3, 4]]`; each number written by `number`.

    >>> shown((2, 2), (1.0, 2.0, 3.0, 4.0), format_number)
    '[[1, 2], [3, 4]]'
    """
    return nested(shape, numbers, number, lambda rows: "[" + ", ".join(rows) + "]")


def _flat(value: object, where: str) -> tuple[Shape, Numbers] | None:
    """A saved tensor or number as (shape, numbers); None for what is not one (a size)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return (), (float(value),)
    if not hasattr(value, "numel"):
        return None
    numbers = value.detach().reshape(-1).tolist()  # type: ignore[attr-defined]
    if any(isinstance(x, complex) for x in numbers):
        raise TorchGraphError(f"{where} holds a complex number: the kit draws real numbers")
    return tuple(value.shape), tuple(float(x) for x in numbers)  # type: ignore[attr-defined]


def _broadcast(shapes: list[Shape]) -> Shape | None:
    """The shape PyTorch broadcasts `shapes` to (aligned at the right, 1 stretches); None
    where they do not broadcast."""
    rank = max(len(s) for s in shapes)
    out = []
    for k in range(rank):
        sizes = {s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0} - {1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _stretched(numbers: Numbers, shape: Shape, out: Shape) -> list[float]:
    """`numbers` of `shape` repeated to the broadcast shape `out`, row-major."""
    pad = (1,) * (len(out) - len(shape)) + shape
    strides = [math.prod(pad[k + 1 :]) for k in range(len(pad))]
    return [
        numbers[sum(0 if pad[k] == 1 else i * strides[k] for k, i in enumerate(index))]
        for index in itertools.product(*(range(n) for n in out))
    ]


def _summed(numbers: Numbers, out: Shape, shape: Shape) -> tuple[float, ...]:
    """`numbers` of the broadcast shape `out` added up to `shape`, the operand's: each
    element goes to the operand element it was stretched from (the reverse of `_stretched`)."""
    pad = (1,) * (len(out) - len(shape)) + shape
    strides = [math.prod(pad[k + 1 :]) for k in range(len(pad))]
    totals: list[list[float]] = [[] for _ in range(math.prod(shape))]
    for x, index in zip(numbers, itertools.product(*(range(n) for n in out))):
        totals[sum(0 if pad[k] == 1 else i * strides[k] for k, i in enumerate(index))].append(x)
    return tuple(math.fsum(t) for t in totals)


def edge_numbers(row: str | None, name: str, exponent: float | None,
                 operands: list[tuple[Shape, Numbers]], out: Shape, received: Numbers,
                 sent: list[Numbers | None], tolerance: tuple[float, float],
                 ) -> tuple[tuple[Numbers, Numbers], ...]:  # fmt: skip
    """Per operand of one Function: (its local derivative element by element, the share
    PyTorch's backward sent it). The local derivative is the op table's row on each element
    (in the output's shape, operands broadcast), or 1 (a sum) or 1/n (a mean) per element of
    the operand; the share is checked to be the gradient that arrived times it, added up
    over whatever was broadcast — a step never shows an equation PyTorch's numbers deny."""
    if name in _REDUCTIONS and len(operands) == 1 and out == ():
        n = len(operands[0][1])
        locals_ = [tuple(1.0 if name == "SumBackward0" else 1.0 / n for _ in range(n))]
        wanted = [tuple(received[0] * d for d in locals_[0])]
    else:
        columns = [_stretched(numbers, s, out) for s, numbers in operands]
        partials = [table_partials(row, list(element), exponent) for element in zip(*columns)]
        if row is None or any(p is None for p in partials):
            raise TorchGraphError(
                f"the kit has no rule for {name}'s local derivative on these numbers, so it "
                "cannot step through this graph; draw(t) shows it, with PyTorch's gradients."
            )
        locals_ = [tuple(float(p[k]) for p in partials) for k in range(len(operands))]  # type: ignore[index]
        wanted = [_summed(tuple(g * d for g, d in zip(received, local)), out, shape)
                  for local, (shape, _) in zip(locals_, operands)]  # fmt: skip
    out_edges = []
    for k, (local, want) in enumerate(zip(locals_, wanted)):
        got = sent[k] if k < len(sent) and sent[k] is not None else want
        if len(got) != len(want) or not all(_agree(a, b, tolerance) for a, b in zip(got, want)):
            raise TorchGraphError(
                f"PyTorch's {name} sent operand {k + 1} the gradient {list(got)}, where the "
                f"chain rule with the op table's local derivative gives {list(want)}: the kit "
                "steps only through what it can explain. draw(t) shows PyTorch's numbers."
            )
        out_edges.append((local, tuple(got)))
    return tuple(out_edges)


def _computed(row: str | None, name: str, args: list[tuple[Shape, Numbers]],
              exponent: float | None, shape: Shape) -> Numbers | None:  # fmt: skip
    """A Function's output from its operands: its row element by element (broadcast), or
    a whole tensor's sum or mean; None where neither gives it (no row, no value there)."""
    if name in _REDUCTIONS and len(args) == 1 and shape == ():
        return (float(_REDUCTIONS[name](args[0][1])),)
    if row is None or not args:
        return None
    out = _broadcast([s for s, _ in args])
    if out != shape:
        return None
    columns = [_stretched(numbers, s, out) for s, numbers in args]
    values = []
    for element in zip(*columns):
        value = table_value(row, list(element), exponent)
        if value is None:
            return None
        values.append(float(value))
    return tuple(values)


def saved_copies(walked, kinds, rows, operands, root, kept, read):
    """Every copy of a node's value PyTorch holds, as (node, `read(copy, where)`, where): the
    root tensor's own data, each leaf's tensor, and what each Function saved for its backward,
    given to the node it is a copy of (a value made on the way, by its Function; else the
    operand at its position) — for the scalars' reader and the small tensors' alike."""
    n = len(walked)
    fn_index = {id(v): i for i, (v, _) in enumerate(walked) if kinds[i] == "function"}
    yield n - 1, read(root, "the tensor"), "the tensor's own data"
    for i, (v, _) in enumerate(walked):
        if kinds[i] == "leaf":
            yield i, read(v.variable, "a leaf"), "its tensor"
        if kinds[i] != "function":
            continue
        name = _name(v)
        pairs = [*_BY_POSITION, ("_saved_exponent", 1)] if rows[i] == "**" else _BY_POSITION
        for attr, k in [*pairs, ("_saved_result", -1)]:
            value = kept[i].get(attr)
            if value is None:
                continue
            found = read(value, f"{name}.{attr}")
            owner = getattr(value, "grad_fn", None)
            if k == -1:
                yield i, found, f"{name}._saved_result"
            elif owner is not None and id(owner) in fn_index:  # a value made on the way
                yield fn_index[id(owner)], found, f"{name}.{attr}"
            elif rows[i] is not None and k < len(operands[i]):  # a leaf's, or a number's
                yield operands[i][k], found, f"{name}.{attr}"


def tensor_values(walked, kinds, rows, operands, exponents, root, kept):
    """(shape, numbers) of every node of the walked graph (see the module docstring)."""
    n = len(walked)
    shapes: list[Shape | None] = [None] * n
    for i, (v, _) in enumerate(walked):
        if kinds[i] != "const":
            shapes[i] = _node_shape(v)
    copies: dict[int, list[tuple[Numbers, str]]] = {i: [] for i in range(n)}

    def said(i: int, found: tuple[Shape, Numbers] | None, where: str) -> None:
        if found is None:
            return
        shape, numbers = found
        if shapes[i] is None:  # a number written into the expression: its saved copy's
            shapes[i] = shape
        if math.prod(shapes[i]) == len(numbers):  # type: ignore[arg-type]
            copies[i].append((numbers, where))

    for i, found, where in saved_copies(walked, kinds, rows, operands, root, kept, _flat):
        said(i, found, where)
    data: list[Numbers | None] = [c[0][0] if c else None for c in copies.values()]
    for _ in range(n):  # PyTorch's own copy first; else computed, operands before users
        changed = False
        for i in range(n):
            if data[i] is None and kinds[i] == "function":
                args = [(shapes[p], data[p]) for p in operands[i]]
                if all(s is not None and d is not None for s, d in args):
                    data[i] = _computed(rows[i], _name(walked[i][0]), args, exponents[i],
                                        shapes[i])  # type: ignore[arg-type]  # fmt: skip
                    changed |= data[i] is not None
        if not changed:
            break
    missing = next((i for i in range(n) if data[i] is None), None)
    if missing is not None:
        raise _unknown(walked, kinds, operands, missing)
    _check(walked, data, copies, _tolerance(root))
    return tuple(shapes), tuple(data)


def _unknown(walked, kinds, operands, i: int) -> TorchGraphError:
    """What to do about a node whose numbers PyTorch kept no copy of, and the kit cannot
    work out."""
    if kinds[i] == "function":
        return TorchGraphError(
            f"PyTorch keeps no copy of the output of {_name(walked[i][0])} (it needs none for "
            "its backward), and the kit cannot compute it again: for a graph of tensors it "
            "draws the operations of the course element by element (+, −, ·, /, **, tanh, "
            "exp, log, relu, sigmoid, ..., a scalar broadcast against a tensor) and .sum() "
            "or .mean() of a whole tensor — not matrix products, indexing, reshaping or a "
            "sum over some dimensions (x.sum(0)). Draw the expression built from those."
        )
    user = next((j for j in range(len(walked)) if i in operands[j]), i)
    return TorchGraphError(
        f"PyTorch keeps no copy of an operand of {_name(walked[user][0])} that does not "
        "require grad — a number written in (the 1 of x - 1), or a tensor such as a target "
        "(the y of (x - y)**2) — as it needs none for its backward, and in a graph of tensors "
        "the kit cannot tell its numbers or its shape. Make it a tensor that requires grad: "
        "y.requires_grad_() for a target (its gradient is then drawn too), "
        "torch.tensor(1.0, requires_grad=True) for a number; or draw from that operation on."
    )


def _check(walked, data, copies, tolerance: tuple[float, float]) -> None:
    for i, found in copies.items():
        for numbers, where in found:
            for got, want in zip(numbers, data[i]):
                if _agree(got, want, tolerance):
                    continue
                fn = walked[i][0]
                what = "a leaf" if hasattr(fn, "variable") else f"the output of {_name(fn)}"
                raise TorchGraphError(
                    f"PyTorch's graph contradicts itself: {what} holds {format_number(want)} "
                    f"from its operands, but {where} holds {format_number(got)}. A tensor was "
                    "changed after the graph was built (x.data = ..., or an in-place change "
                    "under torch.no_grad()). Build the expression again, then draw it."
                )
