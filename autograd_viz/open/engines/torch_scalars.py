"""The numbers of a PyTorch graph of scalar tensors (one number each): every node's value — a
leaf's from its tensor, a number written into the expression from the copy PyTorch saved of it,
each Function's output computed with the op table's row from its operands (else from the copy
PyTorch saved of it), and a number PyTorch kept no copy of (the 2 of `(x + 2) * y`) solved
from its user's value and the other operand — and every number PyTorch saved checked against
them (a mismatch is an error, never a wrong picture). `engines.torch_graph.read_torch` asks
for them; a graph that holds tensors of several numbers is read by `engines.torch_tensors`."""

from __future__ import annotations

from autograd_viz.core._numbers import format_number, shape_text
from autograd_viz.core.errors import TorchGraphError
from autograd_viz.open.engines.ops import table_value
from autograd_viz.open.engines.torch_tensors import _agree, _name, _tolerance, saved_copies

__all__ = ["scalar_values"]

SCALARS_ONLY = (
    "autograd_viz draws PyTorch graphs of scalar tensors (one number each) in this version"
)


def _elements(t: object) -> int:
    return int(t.numel())  # type: ignore[attr-defined]


def _shape(t: object) -> str:
    return shape_text(tuple(t.shape))  # type: ignore[attr-defined]


def _number(value: object, where: str) -> float | None:
    """A saved tensor or number as a float (None for None); a larger tensor is refused."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if hasattr(value, "numel"):
        if _elements(value) != 1:
            raise TorchGraphError(
                f"{SCALARS_ONLY}; {where} holds a tensor of {_elements(value)} elements "
                f"(shape {_shape(value)}). Build the expression from scalar tensors, e.g. "
                "x = torch.tensor(2.0, requires_grad=True)."
            )
        number = value.item()  # type: ignore[attr-defined]
        if isinstance(number, complex):
            raise TorchGraphError(f"{where} holds a complex number: the kit draws real numbers")
        return float(number)
    return None


def scalar_values(walked, kinds, rows, operands, exponents, root, kept) -> tuple[float, ...]:
    """Every node's value: a leaf's from its tensor; a constant's and each Function's output
    from what PyTorch saved; the rest computed with the op table's row; every number PyTorch
    saved checked against the computed one (`TorchGraphError` where they disagree)."""
    n = len(walked)
    saved: dict[int, list[tuple[float, str]]] = {i: [] for i in range(n)}

    def said(i: int, value: float | None, where: str) -> None:
        if value is not None:
            saved[i].append((value, where))

    for i, found, where in saved_copies(walked, kinds, rows, operands, root, kept, _number):
        said(i, found, where)
    data: list[float | None] = [None] * n
    for i in range(n):
        if kinds[i] != "function" and saved[i]:
            data[i] = saved[i][0][0]
    for _ in range(n + 1):  # forward, then inferring a constant of a sum, until nothing is new
        changed = False
        for i in range(n):
            if data[i] is None and kinds[i] == "function":
                args = [data[p] for p in operands[i]]
                if rows[i] is not None and None not in args:
                    value = table_value(rows[i], args, exponents[i])
                    if value is not None:
                        data[i], changed = value, True
                if data[i] is None and saved[i]:
                    data[i], changed = saved[i][0][0], True
        changed |= _infer_constants(data, kinds, rows, operands, saved)
        if not changed:
            break
    missing = [i for i in range(n) if data[i] is None]
    if missing:
        i = missing[0]
        user = next((j for j in range(n) if i in operands[j]), i)
        if kinds[i] == "const" and rows[user] is None:  # a number read by an op without a row
            i = user
        if kinds[i] == "function":  # an operation without a row, whose output nobody saved
            raise TorchGraphError(
                f"PyTorch keeps no copy of the output of {_name(walked[i][0])} (it needs none "
                "for its backward), and the op table has no row to compute it again from its "
                "operands: this version draws graphs of the scalar operations the course "
                "teaches (+, −, ·, /, **, tanh, exp, log, relu, sigmoid, ...), not matrix "
                "operations such as nn.Linear's addmm, indexing or stacking. Build the "
                "expression from scalar tensors with those operations."
            )
        raise TorchGraphError(
            f"PyTorch keeps no copy of a number written into {_name(walked[user][0])} (it "
            "needs none for its backward), and the kit cannot work it out from the numbers it "
            "kept. Make that number a tensor that requires grad, e.g. "
            "torch.tensor(6.88, requires_grad=True), or draw from that operation on."
        )
    _check_saved(walked, data, saved, _tolerance(root))
    return tuple(float(d) for d in data)  # type: ignore[arg-type]


def _infer_constants(data, kinds, rows, operands, saved) -> bool:
    """An operand PyTorch keeps no copy of (the 2 of `x + 2`; the output of a Function whose
    user saved nothing, like `f(x) * 2`), from its user's value where that is known — saved
    by a user of it, or the root's — and the other operand: `2 = (x + 2) − x`."""
    changed = False
    for i, ops in enumerate(operands):
        if rows[i] not in ("+", "-", "*", "/", "neg") or not ops:
            continue
        out = data[i] if data[i] is not None else (saved[i][0][0] if saved[i] else None)
        unknown = [k for k, p in enumerate(ops) if data[p] is None]
        if out is None or len(unknown) != 1:
            continue
        k = unknown[0]
        other = data[ops[1 - k]] if len(ops) == 2 else None
        value = _solve(rows[i], k, out, other)
        if value is not None:
            data[ops[k]], changed = value, True
    return changed


def _solve(row: str, k: int, out: float, other: float | None) -> float | None:
    """Operand k of `row` from its output and the other operand (None where it has none)."""
    if row == "neg":
        return -out
    if other is None:
        return None
    if row == "+":
        return out - other
    if row == "-":
        return other - out if k == 1 else out + other
    if row == "*":
        return out / other if other != 0 else None
    if k == 0:  # a / b = out: a = out · b, b = a / out
        return out * other
    return other / out if out != 0 else None


def _check_saved(walked, data, saved, tolerance: tuple[float, float]) -> None:
    for i, found in saved.items():
        for value, where in found:
            if not _agree(value, data[i], tolerance):
                fn = walked[i][0]
                what = "a leaf" if hasattr(fn, "variable") else f"the output of {_name(fn)}"
                raise TorchGraphError(
                    f"PyTorch's graph contradicts itself: {what} is {format_number(data[i])} "
                    f"from its operands, but {where} holds {format_number(value)}. A tensor "
                    "was changed after the graph was built (x.data = ..., or an in-place "
                    "change under torch.no_grad()). Build the expression again, then draw it."
                )
