"""PyTorch's own backward pass as a `Graph` snapshot: `torch_snapshot(z)` reads PyTorch's graph
(`autograd_viz.open.engines.torch_graph`), hooks every Function of it (AccumulateGrad too) and
runs one real `z.backward(retain_graph=True)`, whose hooks record the order PyTorch ran its
Functions in and what each received and sent, with the learner's own hooks paused; every
leaf's `.grad` is then put back, the kit's hooks removed and the learner's restored, and
the snapshot holds PyTorch's gradients, each Function's numbers, the order the hooks fired
(`backward_order`) and `notes` saying where PyTorch works differently from the kit's engine
— so the derivation, the player and the quiz step through PyTorch's own run.

    >>> import torch  # doctest: +SKIP
    >>> x, y = (torch.tensor(v, requires_grad=True) for v in (2.0, 3.0))  # doctest: +SKIP
    >>> g = torch_snapshot((x + y) * y)  # doctest: +SKIP
    >>> [g.functions[i] for i in g.backward_order], [n.grad for n in g.nodes]  # doctest: +SKIP
    (['MulBackward0', 'AddBackward0'], [3.0, 8.0, 3.0, 1.0])
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from autograd_viz.core._numbers import format_number
from autograd_viz.core._text import clip
from autograd_viz.core.errors import TorchGraphError
from autograd_viz.core.graph import Graph, Node, with_numbers
from autograd_viz.core.naming import expression_names
from autograd_viz.open.engines.ops import canonical_op
from autograd_viz.open.engines.torch_graph import TorchRead, read_torch
from autograd_viz.open.engines.torch_tensors import _tolerance, edge_numbers, shown

__all__ = ["Fired", "TorchSnapshot", "torch_snapshot"]


@dataclass(frozen=True)
class Fired:
    """One hook call, in the order PyTorch ran its Functions: node `node`'s Function
    (`name`) received `grad_output` and sent `grad_inputs` (one per operand; 0 for a
    constant, which gets none; empty for an AccumulateGrad)."""

    node: int
    name: str
    grad_output: float
    grad_inputs: tuple[float, ...]


@dataclass(frozen=True, eq=False)
class TorchSnapshot(Graph):
    """The snapshot of PyTorch's graph: a `Graph`, plus what the viewers say about it.

    `functions[i]` is the PyTorch Function that made value i (`MulBackward0`;
    `AccumulateGrad` for a leaf, '' for a constant), drawn in its operation node; `fired`
    the hook calls of the one backward run, in order; `notes` maps (value, "forward" |
    "backward") to a sentence the derivation adds to that value's step, once.
    """

    functions: tuple[str, ...] = ()
    fired: tuple[Fired, ...] = ()
    saved: tuple[tuple[tuple[str, float], ...], ...] = ()
    notes: Mapping[tuple[int, str], str] = field(default_factory=dict)
    shapes: tuple[tuple[int, ...], ...] = ()  # a graph of tensors: per node its shape,
    tensors: tuple[tuple[tuple[float, ...], tuple[float, ...]], ...] = ()  # (data, grad)
    # a graph of tensors, stepped: per node, per operand (local derivative, share sent)
    tensor_edges: tuple[tuple[tuple[tuple[float, ...], tuple[float, ...]], ...], ...] = ()

    def drawn_note(self, i: int) -> str:
        """A leaf's Function: PyTorch's graph holds an `AccumulateGrad` for it, which adds
        what arrives into its `.grad` — a node of PyTorch's graph, as the operations are."""
        return self.functions[i] if self.nodes[i].is_leaf and self.functions else ""

    def drawn_numbers(self, i: int, number) -> tuple[str, str]:
        """A tensor's data and grad as drawn: `[1, 2, 3]`, nested as its shape."""
        if not self.shapes:
            return super().drawn_numbers(i, number)
        data, grad = self.tensors[i]
        return shown(self.shapes[i], data, number), shown(self.shapes[i], grad, number)

    def drawn_op(self, i: int) -> str:
        """The operation node's text: the op table's symbol over the Function's name, and
        what the Function saved for its backward (`saved self 5, other 3`)."""
        symbol = super().drawn_op(i)
        name = self.functions[i] if self.functions else ""
        lines = [symbol] if not name or name == symbol else [symbol, clip(name, 16, 1)]
        kept = self.saved[i] if self.saved else ()
        if kept:
            said = ", ".join(f"{k} {format_number(v)}" for k, v in kept)
            lines.append(clip(f"saved {said}", 28, 1))
        return "\n".join(lines)


def torch_snapshot(
    root: object,
    *,
    names: Mapping[str, object] | None = None,
    max_nodes: int | None = None,
    too_large=None,
    caller: str = "draw()",
) -> TorchSnapshot:
    """The graph snapshot of PyTorch's graph ending at the scalar tensor `root` (see the
    module docstring); `names` labels its tensors ({"x": x}), else inputs are a, b, c.
    A graph holding tensors of several elements is opened for a picture (`caller` one of
    `PICTURES`) and refused, before PyTorch runs, for a viewer that steps through it."""
    read = read_torch(root, names=names, max_nodes=max_nodes, too_large=too_large)
    if read.shapes:
        return _tensor_snapshot(read, caller)
    hooked, local = _run(read)
    fired = [Fired(i, read.names[i], _floats((received,))[0], _floats(sent))
             for i, sent, received in hooked]  # fmt: skip
    got = {f.node: f for f in fired}
    nodes = []
    last = len(read) - 1
    for i, kind in enumerate(read.kinds):
        operands = read.operands[i]
        if i == last:
            role = "output"
        elif kind == "function":
            role = "value"
        elif kind == "const":
            role = "const"
        else:
            role = "param" if i in read.params else "input"
        grad = got[i].grad_output if i in got else 0.0
        node = Node(i, read.labels[i], read.data[i], grad, read.ops[i], operands,
                    read.exponents[i], None, i in read.params, role)  # fmt: skip
        nodes.append(node)

    def share(i: int, g: float) -> tuple[float, ...]:
        """What Function i sent: as recorded at the recorded gradient, else its local
        derivatives times the gradient."""
        if i not in got:
            return tuple(0.0 for _ in read.operands[i])
        return got[i].grad_inputs if g == got[i].grad_output else tuple(d * g for d in local[i])

    order = tuple(f.node for f in fired if read.operands[f.node])  # as the hooks fired
    snap = TorchSnapshot(tuple(nodes), functions=read.names, fired=tuple(fired), saved=read.saved)
    snap = with_numbers(snap, share, order)
    return dataclasses.replace(snap, notes=_notes(snap))


PICTURES = ("draw()", "roles()")  # the callers that show a graph of tensors: a picture
STEPPED = ("animate()", "Player", "Frames", "trace()", "quiz()")  # ... and those that step it


def _tensor_snapshot(read: TorchRead, caller: str) -> TorchSnapshot:
    """The snapshot of a graph holding tensors of several elements: each node's numbers
    and PyTorch's gradient of it, the order its hooks fired and, for the viewers that step
    through it, each edge's local derivative element by element and the share PyTorch sent
    (checked against each other). A node holds its one number as `data` and `grad`, and nan
    for a tensor of several (the numbers are `tensors[i]`), so no viewer shows one of them
    as the tensor's. A viewer that asks for one number per value (explore's inputs, a
    worksheet, a side-by-side with our Value) is refused."""
    if caller not in PICTURES + STEPPED:
        big = next(i for i, s in enumerate(read.shapes) if math.prod(s) != 1)
        kind = "a leaf" if read.kinds[big] == "leaf" else f"the output of {read.names[big]}"
        who = f"{read.labels[big]}, {kind}" if read.labels[big] else kind
        raise TorchGraphError(
            f"{caller} asks for one number per value, and this graph holds a tensor of "
            f"{math.prod(read.shapes[big])} elements ({who}, shape {tuple(read.shapes[big])}). "
            "animate(t) and quiz(t) step through it element by element, and draw(t) shows "
            "every tensor's numbers and PyTorch's gradients; for this, build the expression "
            "from scalar tensors, e.g. x0 = torch.tensor(1.0, requires_grad=True), one per "
            "element."
        )
    hooked, _ = _run(read, derivatives=False)
    grads: dict[int, tuple[float, ...]] = {i: received for i, _, received in hooked}
    nodes, tensors = [], []
    last = len(read) - 1
    for i, kind in enumerate(read.kinds):
        data = read.values[i]
        grad = grads.get(i, tuple(0.0 for _ in data))
        tensors.append((data, grad))
        if i == last:
            role = "output"
        elif kind in ("function", "const"):
            role = "value" if kind == "function" else "const"
        else:
            role = "param" if i in read.params else "input"
        one = len(data) == 1
        node = Node(i, read.labels[i], data[0] if one else math.nan,
                    grad[0] if one else math.nan, read.ops[i], read.operands[i],
                    read.exponents[i], None, i in read.params, role)  # fmt: skip
        nodes.append(node)
    order = tuple(i for i, _, _ in hooked if read.operands[i])  # as the hooks fired
    edges: tuple = ()
    if caller in STEPPED:
        edges = _tensor_edges(read, hooked)
    snap = TorchSnapshot(tuple(nodes), backward_order=order, functions=read.names,
                         saved=read.saved, shapes=read.shapes, tensors=tuple(tensors),
                         tensor_edges=edges)  # fmt: skip
    return dataclasses.replace(snap, notes=_notes(snap)) if edges else snap


def _tensor_edges(read: TorchRead, hooked: list[Hooked]) -> tuple:
    """Per node, per operand: (local derivative, share sent), element by element."""
    out: list[tuple] = [() for _ in read.kinds]
    tolerance = _tolerance(read.root)
    for i, sent, received in hooked:
        operands = read.operands[i]
        if not operands:
            continue
        row = canonical_op(read.ops[i], len(operands))
        args = [(read.shapes[p], read.values[p]) for p in operands]
        out[i] = edge_numbers(row, read.names[i], read.exponents[i], args, read.shapes[i],
                              received, list(sent), tolerance)  # fmt: skip
    return tuple(out)


def _flat(t) -> tuple[float, ...] | None:
    """A gradient's numbers, row-major (None for None: a constant gets none)."""
    return None if t is None else tuple(float(x) for x in t.detach().reshape(-1).tolist())


def _floats(flats) -> tuple[float, ...]:
    """Gradients of scalar tensors as numbers (0 for None: a constant gets none)."""
    return tuple(0.0 if f is None else f[0] for f in flats)


Hooked = tuple[int, tuple[tuple[float, ...] | None, ...], tuple[float, ...]]


def _run(read: TorchRead, *, derivatives: bool = True) -> tuple[list[Hooked], dict]:
    """PyTorch's backward, run once with a hook on every Function, the learner's own hooks
    paused (`_paused`); the learner's tensors left as they were. Returns the hook calls in
    order, as (node, what it sent per operand, what it received), and — with `derivatives`,
    for a graph of scalars — each Function's local derivatives (the Function called at
    gradient 1; a learner's own Function's are scaled from its recorded call instead, so
    their backward runs once)."""
    import torch  # lazily: only a tensor's graph gets here

    hooked: list[Hooked] = []
    ones: dict[int, object] = {}

    def hook(i: int, grad_inputs, grad_outputs) -> None:
        ones[i] = torch.ones_like(grad_outputs[0])
        hooked.append((i, tuple(_flat(g) for g in grad_inputs), _flat(grad_outputs[0])))

    leaves = [read.functions[i].variable for i, k in enumerate(read.kinds) if k == "leaf"]
    before = [t.grad for t in leaves]  # put back as they are: PyTorch adds into a .grad
    live = _live(read, torch)
    retained = [t for t in live if t.retains_grad]
    kept = [t.grad for t in retained]
    handles = []
    try:
        with torch.no_grad():
            for t in leaves:
                t.grad = None
        for i, fn in enumerate(read.functions):
            if fn is not None:
                handles.append(fn.register_hook(functools.partial(hook, i)))
        with _paused(read, handles, [*leaves, *live]):
            read.root.backward(retain_graph=True)  # type: ignore[attr-defined]
    finally:
        for h in handles:
            h.remove()
        with torch.no_grad():
            for t, g in zip(leaves, before):
                t.grad = g
            for t, g in zip(retained, kept):
                t.grad = g
    local: dict[int, tuple[float, ...]] = {}
    if not derivatives:
        return hooked, local
    with torch.no_grad():
        for i, sent, received in hooked:
            if not read.operands[i]:
                continue
            if i in read.custom or i not in ones:
                g = received[0]
                ok = g != 0 and math.isfinite(g)
                local[i] = tuple(s / g if ok else math.nan for s in _floats(sent))
            else:
                called = read.functions[i](ones[i])
                called = (called,) if hasattr(called, "detach") else called
                local[i] = _floats(_flat(t) for t in called)
    return hooked, local


@contextlib.contextmanager
def _paused(read: TorchRead, handles: list, tensors: list) -> Iterator[None]:
    """The learner's own hooks kept from firing during the kit's run, then put back as
    they were, in their order, so their handles still remove them: a tensor's
    (`t.register_hook`: the dict `t._backward_hooks` PyTorch reads as it runs, and a leaf's
    `register_post_accumulate_grad_hook`) and a Function's (`grad_fn.register_hook` and
    `register_prehook`: the dicts the kit's own hook handles lead to). What cannot be
    reached is a hook on an intermediate tensor nobody holds any more (`(x * y)
    .register_hook(f)` on a value never named): its dict lives only inside the Function."""
    emptied: list[tuple[dict, list]] = []

    def empty(hooks: dict | None, keep: int | None = None) -> None:
        if hooks:
            items = [(k, v) for k, v in hooks.items() if k != keep]
            for k, _ in items:
                del hooks[k]
            emptied.append((hooks, items))

    pre = []
    try:
        for t in tensors:
            empty(t._backward_hooks)
            empty(getattr(t, "_post_accumulate_grad_hooks", None))
        for h in handles:
            empty(h.hooks_dict_ref(), h.id)
        for fn in read.functions:
            if fn is not None:
                pre.append(fn.register_prehook(lambda grad_outputs: None))
                empty(pre[-1].hooks_dict_ref(), pre[-1].id)
        yield
    finally:
        for h in pre:
            h.remove()
        for h in handles:  # the kit's hook leaves its dict before the learner's come back
            h.remove()
        for hooks, items in emptied:
            hooks.update(items)


def _live(read: TorchRead, torch) -> list:
    """The tensors of this graph that are not leaves and that Python still holds: PyTorch
    writes (and adds into) their .grad in any backward run where they `retain_grad()`, and
    runs their hooks. The graph holds Functions, not tensors, so they are found among
    Python's live objects, by type alone (reading other objects' attributes could run their
    code)."""
    functions = {id(f) for f in read.functions if f is not None}
    return [obj for obj in gc.get_objects()
            if issubclass(type(obj), torch.Tensor) and id(obj.grad_fn) in functions]  # fmt: skip


def _notes(snap: TorchSnapshot) -> dict[tuple[int, str], str]:
    """Where PyTorch differs from the kit's engine, said once each: its graph holds
    Functions, not values, and on tensors every operation acts element by element (at the
    first operation); a value used several times gets the sum of its shares in PyTorch's
    engine before its Function (a leaf's AccumulateGrad) runs once."""
    names = [e.text for e in expression_names(snap)]
    notes: dict[tuple[int, str], str] = {}
    first = next((n.index for n in snap.nodes if n.operands), None)
    if first is not None:
        holds = ("every operation on tensors acts element by element, a tensor of one number "
                 "stretched to fit (broadcasting)" if snap.shapes else
                 "its graph holds Functions and the tensors they saved, not values")  # fmt: skip
        notes[(first, "forward")] = f"in PyTorch: {snap.functions[first]}, a Function; {holds}"
    shares: dict[int, list] = {}
    if snap.shapes:  # a graph of tensors: each edge's share, in the order the hooks fired
        sent = [(p, snap.tensor_edges[i][k][1]) for i in snap.backward_order or ()
                for k, p in enumerate(snap.nodes[i].operands)]  # fmt: skip
    else:
        sent = [(p, share) for f in snap.fired
                for p, share in zip(snap.nodes[f.node].operands, f.grad_inputs)]  # fmt: skip
    for p, share in sent:
        if snap.nodes[p].role != "const":
            shares.setdefault(p, []).append(share)
    for p, received in shares.items():
        if len(received) < 2:
            continue
        name = names[p]
        who = (f"{name}'s AccumulateGrad" if snap.nodes[p].is_leaf
               else f"{snap.functions[p]} (of {name})")  # fmt: skip
        if snap.shapes:  # tensors: their numbers are in the step's own equation
            total = f"the {len(received)} shares"
        else:
            total = " + ".join(map(format_number, received))
            total += f" = {format_number(snap.nodes[p].grad)}"
        notes[(p, "backward")] = f"PyTorch adds {total} in its engine, then calls {who} once"
    return notes
