"""The one door into the viewers: every public entry opens the user's graph once with
`open_graph` — the size check first (`autograd_viz.open.size`: a graph too large is refused having
read at most `max_nodes` values), then the one read, handed what the count read (our
`Value` by `autograd_viz.open.snapshot.snapshot`; a PyTorch tensor by `engines.torch_run`, with
PyTorch's backward run once with hooks; any other micrograd-style object by
`engines.replay`, their backward() run once and, when asked, checked) — and every layer
below takes the plain `Graph` it returns; the other engines' openers load only when such a
graph arrives, and a `Graph` passes through as it is. Options are the caller's to check.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> open_graph((x + y) * y, caller="draw()")
    <Graph of 4 values, root 'v3'>
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from autograd_viz.core._checks import as_count
from autograd_viz.core.errors import LOOKS_FOR, GraphError, GraphTooLargeError
from autograd_viz.core.graph import Graph
from autograd_viz.engine import Value
from autograd_viz.open.size import check_size, neurons_within, read_within
from autograd_viz.open.snapshot import snapshot

if TYPE_CHECKING:
    from autograd_viz.open.engines.check import EngineReport

__all__ = ["check_engine", "open_graph"]


def open_graph(
    root: object,
    *,
    caller: str,
    max_nodes: int | None = None,
    every_value: bool = False,
    too_large: Callable[[int], Exception] | None = None,
    check: bool | None = None,
    check_up_to: int | None = None,
    timeout: float | None = None,
    error: type[Exception] | None = TypeError,
    needs: str = "a Value",
    probe: bool = False,
    names: Mapping[str, object] | None = None,
    collapse: str | None = None,
) -> Graph:
    """The snapshot of the graph ending at `root`, opened once for the public call `caller`.

    `max_nodes`: refuse (GraphTooLargeError) a graph with more values to draw than this,
    counting before any other work (None: no limit; numpy's integers count too, and a value that
    is no count is left for the caller's option check). `every_value` counts through `nn`
    neurons too (a viewer with no collapsed boxes: the quiz, a derivation); then
    `too_large(max_nodes)` is the error raised. `check` (another engine's graph): run the engine
    check and keep its findings (None: if the graph holds gradients, i.e. its backward pass has
    run), for a graph of at most `check_up_to` values; their backward() may run `timeout`
    seconds (None: `time_limits.DEFAULT_TIMEOUT`). What is not a graph raises `error` naming
    `caller` and what the kit looks for (None: the reader's own `NotAGraphError`, with a hint
    for a tensor, a number, a list). `probe`: the check also tries each method of their class on
    fresh values (`check_engine` only: a picture runs nothing of theirs but their backward(),
    once). `names` labels the tensors of a PyTorch graph ({"x": x}); tensors have no labels.
    `collapse="neuron"` (a drawing of one box per neuron) also counts the neurons against
    `max_nodes` before the read.
    """
    max_nodes = as_count(max_nodes)  # numpy's 100 is 100; None: no count (the caller's check)
    if not isinstance(root, (Graph, Value)):  # another engine's openers load only now
        from autograd_viz.open.engines.torch_graph import is_tensor

        if is_tensor(root):  # PyTorch's graph: read, and its backward run once with hooks
            from autograd_viz.open.engines.torch_run import torch_snapshot  # imports torch

            return torch_snapshot(root, names=names, max_nodes=max_nodes, caller=caller,
                                  too_large=too_large if every_value else None)  # fmt: skip
    if names is not None:
        raise TypeError(
            f"{caller}: names= labels the tensors of a PyTorch graph ({{'x': x}}), which have "
            "no labels of their own; a Value carries its own: Value(2.0, label='x')."
        )
    if isinstance(root, Graph):
        return root
    if isinstance(root, Value):
        read = _count(root, max_nodes, every_value, too_large)
        if collapse == "neuron" and not every_value:
            read = neurons_within(root, max_nodes) or read  # each neuron a box: counted too
        return snapshot(root, read=read)
    from autograd_viz.core.time_limits import DEFAULT_TIMEOUT, code_time_limit
    from autograd_viz.open.engines.node import is_graph, not_a_graph
    from autograd_viz.open.engines.replay import read_foreign

    timeout = DEFAULT_TIMEOUT if timeout is None else timeout
    # their class's code runs as it is read (a `data` property, `_prev`): bounded too
    with code_time_limit(f"Reading your graph for {caller}", timeout):
        read = _count(root, max_nodes, every_value, too_large)
        if not is_graph(root):
            if error is None:
                raise not_a_graph(root)
            raise error(
                f"{caller} needs {needs}, got {type(root).__name__}: {root!r}. {LOOKS_FOR}."
                + _hint(root)
            )
        graph = read_foreign(root, timeout=timeout, read=read)
    graph = graph.numbered()  # their backward() runs once, under its own time limit
    if check is None:
        check = any(n.grad != 0 for n in graph.nodes)
    if check and (check_up_to is None or len(graph) <= check_up_to):
        return graph.checked(probe=probe)
    return graph


def _hint(root: object) -> str:
    """What to do instead, for the things a learner passes most often by mistake."""
    if isinstance(root, (int, float)):
        return " Wrap numbers in Value(...) and build an expression from them."
    if isinstance(root, (list, tuple)):
        return " Pass one output at a time: a loss, or one of them, e.g. out[0]."
    return ""


def _count(
    root: object,
    max_nodes: int | None,
    every_value: bool,
    too_large: Callable[[int], Exception] | None,
) -> dict | None:
    """What the size check read (for the snapshot), after refusing a graph too large."""
    if max_nodes is None:
        return None  # no limit, or a bad one: the caller's option check says what is wrong
    if not every_value:
        return check_size(root, max_nodes) or None
    read = read_within(root, max_nodes)
    if read is None:
        if too_large is not None:
            raise too_large(max_nodes)
        raise GraphTooLargeError(
            f"this graph has more than {max_nodes} values (max_nodes={max_nodes}), too many "
            "to show one by one (counting stopped there, before any work). Show less: a "
            "sub-expression (an intermediate Value), or raise max_nodes."
        )
    return read or None


def check_engine(root: object, *, timeout: float | None = None) -> EngineReport:
    """Check a micrograd-style engine's backward rules on the graph ending at `root`: each
    rule right, wrong or unchecked, and the first node whose gradient goes wrong
    (`autograd_viz.open.engines.check`). The graph is opened once and their backward() runs once
    on it, for at most `timeout` seconds (`BackwardTimeoutError` says where it was still
    running); the graph is left as it was. Then each method of their class is tried on fresh
    values, with a value used twice (`autograd_viz.open.engines.probe`): the only place the kit
    runs their methods.

    >>> from micrograd.engine import Value  # doctest: +SKIP
    >>> x, y = Value(2.0), Value(3.0)  # doctest: +SKIP
    >>> check_engine((x + y) * y).ok  # doctest: +SKIP
    True
    """
    if isinstance(root, Value):
        raise TypeError(
            "check_engine checks your own engine; autograd_viz.Value is the kit's, tested "
            "against sympy. Pass a value built with your class (micrograd-style: data, grad, "
            "_prev, _op, _backward)."
        )
    graph = open_graph(
        root, caller="check_engine()", check=True, timeout=timeout, error=None, probe=True
    )
    if getattr(graph, "report", None) is None:  # a Graph passed in
        raise GraphError(
            "check_engine needs the output of your own engine's expression (a node of your "
            f"class), not a graph snapshot. {LOOKS_FOR}."
        )
    return graph.report
