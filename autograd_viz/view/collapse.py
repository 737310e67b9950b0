"""Which values a collapsed drawing hides: one box per `nn` neuron (a snapshot node whose `tag`
names it, e.g. "L2.n1"), or per layer call. A box absorbs every ancestor reached before another
neuron's output or a non-parameter leaf (the inputs stay visible), but a value used outside the
network (a loss that reads a weight) stays visible, so the collapsed picture never hides an edge
that is really there. `collapse_view` works in one reverse pass over the snapshot's topological
order and returns plain data for `autograd_viz.view.render`; it reads only the snapshot, never `nn`.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograd_viz.core.graph import Graph


@dataclass(frozen=True)
class Box:
    """One drawn box of a collapsed graph: a neuron output, or a layer's outputs."""

    key: str  # DOT node name: "v{i}" for a neuron, "layer{i}" for a layer
    members: tuple[int, ...]  # value indices of the neuron outputs it shows
    inputs: tuple[str, ...]  # DOT node names of what feeds it, in topological order


@dataclass(frozen=True)
class View:
    """What to draw: visible plain values, and boxes standing for hidden subgraphs."""

    visible: tuple[int, ...]  # value indices drawn as ordinary value nodes
    boxes: tuple[Box, ...]


def has_neurons(graph: Graph) -> bool:
    """True when some value in the graph is the output of an `nn` neuron."""
    return any(n.tag is not None for n in graph.nodes)


def neuron_layer(name: str) -> str:
    """The layer a neuron belongs to, from its name: "L2.n3" -> "L2"."""
    return name.rsplit(".", 1)[0] if "." in name else name


def collapse_view(graph: Graph, mode: str) -> View:
    """Group the values of a snapshot into neuron or layer boxes.

    >>> from autograd_viz.open.snapshot import snapshot
    >>> from autograd_viz.nn import MLP
    >>> out = MLP(2, [3, 1], seed=0)([1.0, 2.0])
    >>> view = collapse_view(snapshot(out), "neuron")
    >>> len(view.boxes), [len(b.inputs) for b in view.boxes]  # 3 + 1 neurons
    (4, [2, 2, 2, 3])
    """
    order = graph.nodes
    parents = [n.operands for n in order]
    is_neuron = [n.tag is not None for n in order]
    consumers: list[list[int]] = [[] for _ in order]
    for i, ps in enumerate(parents):
        for p in ps:
            consumers[p].append(i)

    # Reverse topological order visits every consumer before the values it uses.
    hidden = [False] * len(order)
    for i in range(len(order) - 1, -1, -1):
        v = order[i]
        absorbable = not is_neuron[i] and (bool(parents[i]) or v.trainable)
        hidden[i] = (
            absorbable
            and bool(consumers[i])
            and all(hidden[c] or is_neuron[c] for c in consumers[i])
        )

    neuron_inputs: dict[int, tuple[int, ...]] = {}
    for i in range(len(order)):
        if is_neuron[i]:
            neuron_inputs[i] = _boundary(i, parents, hidden)

    visible = tuple(i for i in range(len(order)) if not hidden[i] and not is_neuron[i])
    if mode == "neuron":
        boxes = tuple(
            Box(f"v{i}", (i,), tuple(f"v{p}" for p in ins)) for i, ins in neuron_inputs.items()
        )
        return View(visible, boxes)
    return View(visible, _layer_boxes(graph, neuron_inputs))


def _boundary(i: int, parents: list[tuple[int, ...]], hidden: list[bool]) -> tuple[int, ...]:
    """The visible values feeding neuron output i through hidden values, sorted."""
    found: set[int] = set()
    seen: set[int] = set()
    stack = list(parents[i])
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        if hidden[p]:
            stack.extend(parents[p])
        else:
            found.add(p)
    return tuple(sorted(found))


def _layer_boxes(graph: Graph, neuron_inputs: dict[int, tuple[int, ...]]) -> tuple[Box, ...]:
    """Merge the neurons of one layer call: same layer name and the same drawn inputs."""
    drawn_as: dict[int, str] = {}  # neuron output index -> its layer box key
    groups: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for i, ins in neuron_inputs.items():  # topological order: inputs are placed first
        sources = tuple(dict.fromkeys(drawn_as.get(p, f"v{p}") for p in ins))
        key = (neuron_layer(graph.nodes[i].tag), sources)
        if key not in groups:
            groups[key] = []
        groups[key].append(i)
        drawn_as[i] = f"layer{groups[key][0]}"
    return tuple(
        Box(f"layer{members[0]}", tuple(members), sources)
        for (_, sources), members in groups.items()
    )
