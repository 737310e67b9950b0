"""One picture of an opened graph: snapshot -> DOT -> SVG, with stable ids an animation can
restyle (listed on `dot_source`): one node per value, one per operation, one edge per operand
occurrence, named by topological index so the same expression gives the same bytes in every
process. It takes a `Graph` its entry opened (`autograd_viz.api`: `draw`, `to_dot`, `roles`)
and options checked there; a large graph is collapsed into `nn` neurons or layers, or refused with
a `GraphTooLargeError` that says how to draw less, counted before anything is laid out, and the
`Drawing` it returns lays out once (`autograd_viz.view.drawing`).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping

from autograd_viz.core._checks import is_number
from autograd_viz.core._numbers import format_number
from autograd_viz.core._watch import PACKAGE_DIR
from autograd_viz.core.errors import GraphTooLargeError
from autograd_viz.core.graph import Graph
from autograd_viz.core.naming import expression_names
from autograd_viz.core.ops import describe
from autograd_viz.view import dot as _dot
from autograd_viz.view.collapse import Box, View, collapse_view, has_neurons, neuron_layer
from autograd_viz.view.dot import (
    ACTIVE_COLOR,
    BACKWARD_COLOR,
    FORWARD_COLOR,
    PARAM_COLOR,
    PENDING_COLOR,
    STATE_FILLS,
)
from autograd_viz.view.drawing import Drawing
from autograd_viz.view.layout import GraphvizError, GraphvizNotFoundError, svg_from_dot
from autograd_viz.view.mark import marker
from autograd_viz.view.options import COLLAPSE_MODES, RANKDIRS, STATES, DrawOptions

__all__ = [
    "ACTIVE_COLOR",
    "BACKWARD_COLOR",
    "COLLAPSE_MODES",
    "FORWARD_COLOR",
    "PARAM_COLOR",
    "PENDING_COLOR",
    "RANKDIRS",
    "STATES",
    "STATE_FILLS",
    "DrawOptions",
    "Drawing",
    "GraphTooLargeError",
    "GraphvizError",
    "GraphvizNotFoundError",
    "dot_source",
    "drawing",
    "svg_from_dot",
]


# ---- DOT ------------------------------------------------------------------------


def _build(
    graph: Graph, options: DrawOptions, mark: Callable[[str], str] | None = None
) -> tuple[str, str | None, str]:
    """DOT source, caption (a note about automatic collapsing, or None) and a summary.

    `mark`, if given, adds to the finished DOT what the caller wants marked on it (a
    learner's first wrong node: `autograd_viz.view.mark.marker`)."""
    number = _dot.number_formatter(options.fmt)
    nodes = graph.nodes
    state_of = _check_states(options.states, len(nodes))
    # True: the gradients; None: them once backward() has run, else "grad ?" (not computed
    # yet); False: no gradient at all, not even the "?" (a picture of the forward pass)
    show_grad: bool | None = options.show_grad
    if show_grad is None:
        show_grad = True if any(n.grad != 0 for n in nodes) else None

    view, caption = _choose_view(graph, options.collapse, options.max_nodes)
    if show_grad:
        held = _accumulated_note(graph)
        caption = f"{caption}\n{held}" if caption and held else caption or held
    styles: set[str] = set()
    if options.legend:
        kinds = [n.role for n in nodes]
        styles.update(kinds if view is None else (kinds[i] for i in view.visible))
        if view is not None:
            styles.update("layer" if b.key.startswith("layer") else "neuron" for b in view.boxes)
        styles.update(t for s in state_of.values() for t in s.split())
        if options.legend == "animation":
            styles.update(STATES)
    label = _dot.caption_label(caption, styles, show_grad is None)
    lines = _dot.graph_header(options.rankdir, options.font_size, label)
    n = len(nodes)
    if view is None:
        _plain_lines(lines, graph, range(n), {}, number, show_grad, state_of)
        ops = sum(1 for node in nodes if node.operands)
        summary = f"{_count(n, 'value')}, {_count(ops, 'operation')}"
    else:
        _collapsed_lines(lines, graph, view, number, show_grad, state_of)
        layers = sum(1 for b in view.boxes if b.key.startswith("layer"))
        boxes = f"{layers} layer boxes" if layers else f"{len(view.boxes)} neuron boxes"
        summary = f"{_count(n, 'value')} shown as {boxes} and {_count(len(view.visible), 'value')}"
    lines.append("}")
    source = "\n".join(lines) + "\n"
    if mark is not None:
        source = mark(source)
    return source, caption, summary


def _accumulated_note(graph: Graph, listed: int = 4) -> str | None:
    """A caption for leaf gradients that hold more than one backward pass gives (backward()
    run twice without zero_grad()): the boxes show `.grad` as it is, the note what differs."""
    held = graph.accumulated()
    if not held:
        return None
    names = expression_names(graph)
    now = [f"{names[i].text}.grad = {format_number(g)}" for i, g, _ in held[:listed]]
    once = [format_number(o) for _, _, o in held[:listed]]
    more = f" (and {len(held) - listed} more)" if len(held) > listed else ""
    return (
        f"{_and(now)}{more}, but one backward pass gives {_and(once)}:\n"
        "backward() ran again without zero_grad(), so the gradients of inputs add up.\n"
        "Call zero_grad() before backward() (notebook 09, pitfall 1)."
    )


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _check_states(states: Mapping[int, str] | None, n: int) -> dict[int, str]:
    if states is None:
        return {}
    if not isinstance(states, Mapping):
        raise TypeError(f"states must map value indices to states, got {type(states).__name__}")
    for i, s in states.items():
        if not is_number(i, int) or not 0 <= i < n:
            raise ValueError(f"states has key {i!r}; keys are value indices 0..{n - 1}")
        if not isinstance(s, str) or not s.split() or any(t not in STATES for t in s.split()):
            raise ValueError(f"states[{i}] = {s!r}; each state is one or more of {STATES}")
    return dict(states)


def _choose_view(graph: Graph, collapse: str | None, max_nodes: int):
    """The collapsed view to draw (None: every value) and a caption saying why, if automatic."""
    n = len(graph.nodes)
    if collapse is not None:
        if not has_neurons(graph):
            raise ValueError(
                f"collapse={collapse!r} groups values made by autograd_viz.nn neurons, and this "
                "graph has none; draw it with collapse=None"
            )
        view = collapse_view(graph, collapse)
        if _drawn(view) > max_nodes:
            raise _too_large_collapsed(n, collapse, _drawn(view), max_nodes)
        return view, None
    if n <= max_nodes:
        return None, None
    if not has_neurons(graph):
        raise GraphTooLargeError(
            f"this graph has {n} values, more than max_nodes={max_nodes}, too many to read in "
            "one picture. Draw less: draw a sub-expression (an intermediate Value), build it "
            "with autograd_viz.nn and pass collapse='neuron' or 'layer', or raise the limit "
            f"with max_nodes={n} (slow and hard to read)."
        )
    for mode in ("neuron", "layer"):
        view = collapse_view(graph, mode)
        if _drawn(view) <= max_nodes:
            caption = (
                f"{n} values (more than max_nodes={max_nodes}): collapsed to one box per "
                f"{mode}. draw(collapse=None, max_nodes={n}) shows every value."
            )
            warnings.warn(caption, UserWarning, stacklevel=_user_stacklevel())
            return view, caption
    raise _too_large_collapsed(n, "layer", _drawn(view), max_nodes)


def _drawn(view: View) -> int:
    return len(view.visible) + len(view.boxes)


def _too_large_collapsed(n: int, mode: str, drawn: int, max_nodes: int) -> GraphTooLargeError:
    hint = "collapse='layer', " if mode == "neuron" else ""
    return GraphTooLargeError(
        f"even collapsed to one box per {mode}, this graph of {n} values needs {drawn} "
        f"boxes, more than max_nodes={max_nodes}. Draw less: one sample's forward pass, "
        f"{hint}or raise the limit with max_nodes={drawn}."
    )


def _user_stacklevel() -> int:
    """The stacklevel that points a warning at the first caller outside this package."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def _plain_lines(lines, graph, indices, drawn_as, number, show_grad, state_of) -> None:
    """Value nodes, operation nodes and their edges for the given value indices.

    `drawn_as` maps a value index hidden inside a box to the box's DOT node name, so
    operand edges from it start at the box.
    """
    names = [e.text for e in expression_names(graph)]  # `a · b` for an unlabelled a * b
    for i in indices:
        v = graph.nodes[i]
        role = v.role
        state = state_of.get(i, "")
        cls = f"{role} {state}" if state else role
        sattrs = _dot.state_attrs(state) if state else ""
        data, grad_text = graph.drawn_numbers(i, number)
        if role == "const":
            label = f"<{_dot.html_text(data)}>"
        else:
            grad = _grad_text(grad_text, show_grad)
            generated = not v.label
            bold, note = role in ("input", "output"), graph.drawn_note(i)
            label = _dot.value_label(names[i], generated, bold, data, grad, note)
        attrs = _dot.ROLE_ATTRS[role] + sattrs
        lines.append(f'v{i} [id="v{i}" class="{cls}" label={label}{attrs}];')
        if not v.operands:
            continue
        op = _dot.html_text(graph.drawn_op(i))
        ocls = f"op {state}" if state else "op"
        attrs = _dot.ROLE_ATTRS["op"] + sattrs
        lines.append(f'op{i} [id="op{i}" class="{ocls}" label=<{op}>{attrs}];')
        eattrs = _dot.edge_state_attrs(state) if state else ""
        ecls = f' class="{state}"' if state else ""
        for k, j in enumerate(v.operands):
            tail = drawn_as.get(j, f"v{j}")
            lines.append(f'{tail} -> op{i} [id="v{j}-op{i}-{k}"{ecls}{eattrs}];')
        lines.append(f'op{i} -> v{i} [id="op{i}-v{i}"{ecls}{eattrs}];')


def _collapsed_lines(lines, graph, view, number, show_grad, state_of) -> None:
    drawn_as = {m: box.key for box in view.boxes for m in box.members}
    _plain_lines(lines, graph, view.visible, drawn_as, number, show_grad, state_of)
    for box in view.boxes:
        lines.append(_box_node(box, graph, number, show_grad, state_of))
        for src in box.inputs:
            lines.append(f'{src} -> {box.key} [id="{src}-{box.key}"];')


def _activation(op: str) -> str:
    """What a collapsed box calls its neuron's activation: the op, if it may be one."""
    return op if describe(op).activation else "linear"


def _grad_text(grad: str, show_grad: bool | None) -> str | None:
    """A value's grad as drawn: its text, "?" (not computed yet) or None (left out)."""
    if show_grad is False:
        return None
    return grad if show_grad else "?"


def _box_node(box: Box, graph: Graph, number, show_grad, state_of) -> str:
    def grad(i: int) -> str | None:
        return _grad_text(number(graph.nodes[i].grad), show_grad)

    nodes = graph.nodes
    if box.key.startswith("v"):  # one neuron
        i = box.members[0]
        v = nodes[i]
        label = _dot.neuron_label(v.tag, _activation(v.op), number(v.data), grad(i))
        state = state_of.get(i, "")
        output = v.role == "output"
        role = "neuron output" if output else "neuron"
        cls = f"{role} {state}" if state else role
        sattrs = _dot.state_attrs(state) if state else ""
        extra = " peripheries=2" if output else ""
        attrs = _dot.ROLE_ATTRS["neuron"] + extra + sattrs
        return f'{box.key} [id="{box.key}" class="{cls}" label={label}{attrs}];'
    first = nodes[box.members[0]]
    title = f"{neuron_layer(first.tag)}  {_activation(first.op)} × {len(box.members)}"
    rows = [(nodes[m].tag.rsplit(".", 1)[-1], number(nodes[m].data), grad(m)) for m in box.members]
    label = _dot.layer_label(title, rows)
    is_output = any(nodes[m].role == "output" for m in box.members)
    cls, extra = ("layer output", " peripheries=2") if is_output else ("layer", "")
    return (
        f'{box.key} [id="{box.key}" class="{cls}" label={label}{_dot.ROLE_ATTRS["layer"]}{extra}];'
    )


def dot_source(graph: Graph, options: DrawOptions) -> str:
    """The DOT of a graph already opened (`autograd_viz.open.door.open_graph`), with options
    already checked (`autograd_viz.api.to_dot` opens and checks, then asks here). A
    learner's checked graph carries its mark.

    The ids the SVG carries, from the topological index:

    * value `i` (index into `root.topological_order()`): node `v{i}`; its operation `op{i}`;
    * operand edge number `k` from value `p` into `op{i}`: `v{p}-op{i}-{k}`; result edge
      `op{i}-v{i}`;
    * inside a value node, the `<text>` of its data and grad: `v{i}-data`, `v{i}-grad`, and a
      `<g id="v{i}-label">` around its name's text (constants show only `v{i}-data`);
    * classes: the role (`input`, `param`, `const`, `output`, `value`, `op`, `neuron`, `layer`)
      plus the animation state when `states` gives one.
    """
    return _build(graph, options, marker(graph))[0]


def drawing(graph: Graph, options: DrawOptions) -> Drawing:
    """The Drawing of a graph already opened (`autograd_viz.open.door.open_graph`), with options
    already checked: what `draw` and `autograd_viz.draw` hand down, read and checked once.
    A learner's checked graph is drawn with its first wrong node marked."""
    source, caption, summary = _build(graph, options, marker(graph))
    return Drawing(source, caption, options.timeout, summary)
