"""Refuse a graph too large to draw before reading all of it: the door
(`autograd_viz.open.door.open_graph`) counts with `check_size` (or `read_within`) before it takes
the snapshot, so a chain of a million operations is refused in milliseconds with memory for
`max_nodes` values, and hands on what the count read, so each node's operands (ours or another
engine's) are read once (the graph `dot` would place is counted by the layout itself:
`autograd_viz.view.layout.layout_work`). `read_operands` and `read_node` are the one place that
looks inside one of our Values: the count reads with them first, `snapshot` after."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from autograd_viz.core._text import clean_label
from autograd_viz.core.errors import GraphTooLargeError
from autograd_viz.engine import Value

__all__ = [
    "GraphTooLargeError", "check_size", "neurons_within", "read_node", "read_operands",
    "read_within",
]

def check_size(root: object, max_nodes: int) -> dict[int, tuple[object, ...]]:
    """Raise GraphTooLargeError if more than `max_nodes` values would have to be drawn.

    Returns the operands it read, by `id` of the node, for `graph.snapshot(root, read=...)`:
    with the snapshot, every node's operands are still read once.

    The walk counts only values that every picture must draw: from the root, through
    operands, stopping at the outputs of `nn` neurons (a collapsed drawing may hide what lies
    behind them in a box). A value reached that way is visible in every drawing, so once more
    than `max_nodes` of them are found no drawing within the limit exists and the walk stops;
    a graph that fits, or that collapsing might shrink, passes on to the snapshot and the
    exact check in `render`.

    >>> x = Value(0.5)
    >>> for _ in range(1_000):
    ...     x = x.tanh()
    >>> check_size(x, 500)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    autograd_viz.core.errors.GraphTooLargeError: this graph has more than 500 values...

    For another engine's graph, the operands it read are `raw_operands` (for
    `engines.read.read_graph(root, read=...)`).
    """
    read: dict[int, tuple[object, ...]] = {}
    if type(max_nodes) is not int:
        return read  # a bad max_nodes is refused where the options are checked
    if not isinstance(root, Value):
        found = _foreign_within(root, max_nodes)
        if found is None:
            raise _too_large(max_nodes, False)
        return found  # a snapshot ({}) is counted where it is drawn
    visible = 0
    neurons = False
    for tag in _walk(root, read, into_neurons=False):
        if tag is not None:  # an nn neuron's output: drawn as a box, or not at all
            neurons = True
            continue
        visible += 1
        if visible > max_nodes:
            raise _too_large(max_nodes, neurons)
    return read


def _walk(
    root: Value, read: dict[int, tuple[object, ...]], *, into_neurons: bool
) -> Iterator[str | None]:
    """Each value behind `root` once, depth first, as the `nn` neuron tag it carries (None for
    most): the caller counts it before its operands are read into `read` (by `id`); the walk
    stops at a neuron's output unless `into_neurons`."""
    seen = {id(root)}
    stack = [root]
    while stack:
        v = stack.pop()
        tag = read_node(v)[5]
        yield tag
        if tag is not None and not into_neurons:
            continue
        operands = read[id(v)] = read_operands(v)
        for p in operands:
            if id(p) not in seen:
                seen.add(id(p))
                stack.append(p)


def _foreign_within(root: object, max_nodes: int) -> dict | None:
    """Another engine's graph (micrograd's, a learner's class), counted: the operands of
    every value as stored (`raw_operands`: a list, and whether a set lost their order), by
    `id`; None as soon as more than `max_nodes` values are found; {} for no graph at all."""
    from autograd_viz.open.engines.node import is_graph, raw_operands  # their graphs only

    if not is_graph(root):
        return {}  # not a graph at all: the snapshot says what is wrong
    return _read_up_to(root, max_nodes, raw_operands, first=lambda stored: stored[0])


def _read_up_to(
    root: object,
    max_nodes: int,
    operands_of: Callable[[object], Any],
    first: Callable[[Any], Any] | None = None,
) -> dict[int, Any] | None:
    """Every value's operands behind `root`, by `id`, read with `operands_of` (`first` picks
    the nodes out of what it returns); None as soon as more than `max_nodes` values are
    found (the walk stops there)."""
    read: dict[int, Any] = {}
    seen = {id(root)}
    stack = [root]
    while stack:
        v = stack.pop()
        stored = read[id(v)] = operands_of(v)
        for p in stored if first is None else first(stored):
            if id(p) not in seen:
                if len(seen) >= max_nodes:
                    return None
                seen.add(id(p))
                stack.append(p)
    return read


def _too_large(max_nodes: int, neurons: bool) -> GraphTooLargeError:
    if neurons:
        return GraphTooLargeError(
            f"this graph has more than {max_nodes} values outside its neurons (max_nodes="
            f"{max_nodes}), so even collapsed to one box per neuron it is too many to read in "
            "one picture (counting stopped there, before any work). Draw less: one sample's "
            "forward pass, a sub-expression (an intermediate Value), or raise max_nodes."
        )
    return GraphTooLargeError(
        f"this graph has more than {max_nodes} values (max_nodes={max_nodes}), too many to "
        "read in one picture (counting stopped there, before any work). Draw less: draw a "
        "sub-expression (an intermediate Value), build it with autograd_viz.nn and pass "
        "collapse='neuron' or 'layer', or raise max_nodes (slow and hard to read)."
    )


def neurons_within(root: object, max_nodes: int) -> dict[int, tuple[object, ...]]:
    """The operands of every value behind `root`, by `id` (for `graph.snapshot(root,
    read=...)`), for a drawing of one box per `nn` neuron (`collapse="neuron"`): every neuron
    is a box of its own there, so a network of more than `max_nodes` neurons is refused with
    GraphTooLargeError as soon as that many are found, before the snapshot and the layout
    (`check_size` stops at a neuron, which a drawing by layer would hide in its layer's box).

    >>> from autograd_viz.nn import MLP
    >>> loss = MLP(2, [64, 64, 1], seed=0)([1.0, 2.0])
    >>> neurons_within(loss, 100)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    autograd_viz.core.errors.GraphTooLargeError: this network has more than 100 neurons...
    """
    read: dict[int, tuple[object, ...]] = {}
    if type(max_nodes) is not int or not isinstance(root, Value):
        return read  # a bad max_nodes is refused with the options; another engine has no nn
    neurons: set[str] = set()
    for tag in _walk(root, read, into_neurons=True):
        if tag is not None and tag not in neurons:
            neurons.add(tag)
            if len(neurons) > max_nodes:
                raise GraphTooLargeError(
                    f"this network has more than {max_nodes} neurons (max_nodes={max_nodes}), "
                    "and one box per neuron is too many to read in one picture (counting "
                    "stopped there, before any work). Draw less: one sample's forward pass, "
                    "a smaller network, collapse='layer', or raise max_nodes."
                )
    return read


def read_within(root: object, max_nodes: int) -> dict[int, tuple[object, ...]] | None:
    """The operands of every value behind `root`, by `id`, for `graph.snapshot(root,
    read=...)`; None as soon as more than `max_nodes` values are found (counting stops
    there). For a viewer that draws every value, with no box to collapse a neuron into
    (the quiz puts a blank on each): it counts through neurons, unlike `check_size`.

    >>> x = Value(0.5)
    >>> for _ in range(1_000):
    ...     x = x.tanh()
    >>> read_within(x, 60) is None, len(read_within(x, 1_001))
    (True, 1001)
    """
    if not isinstance(root, Value):  # another engine's graph: counted, then read once
        return _foreign_within(root, max_nodes)
    return _read_up_to(root, max_nodes, read_operands)


# ---- the one place that looks inside a node -------------------------------------------


def read_operands(v: Any) -> tuple[object, ...]:
    """The operands of a node, in order (`Value.parents`)."""
    return v.parents


def read_node(v: Any) -> tuple[str, float, float, str, float | None, str | None, bool, Any]:
    """Everything a viewer needs from one node, as plain data: label, data, grad, op,
    exponent, tag (the name of the neuron nn tagged it with), trainable, backward rule.

    This is where another engine's node class would be read (its operands in
    `read_operands`); nothing else in the package looks inside a node.
    """
    tag = v.tag
    if tag is not None:
        tag = getattr(tag, "name", None)
        tag = None if tag is None else str(tag)
    trainable = getattr(type(v), "trainable", False) is True  # nn.Parameter says so
    label = clean_label(str(v.label)) if v.label else ""  # one cleaning for every viewer
    return (label, v.data, v.grad, v.op, v.exponent, tag, trainable,
            v._rule)  # fmt: skip
