"""Drawing and animating any engine's graph — ours, micrograd's, or the learner's own.

`autograd_viz.draw(v)` and `autograd_viz.animate(v)` come here. A `Value` of ours goes
through `autograd_viz.graph.snapshot` as always; any other micrograd-style object is read
once by `autograd_viz.own_engine.foreign_snapshot`, which also checks the learner's
backward rules. The drawing then marks the first node whose gradient goes wrong — a
dashed, thick outline in its own colour and a "!" before the operation, so it reads
without colour too — and the caption says what went wrong and, where a set lost the
operands' order, that the order shown is a guess. The player shows the learner's own
numbers, with the same sentence beside the step where it happens.
"""

from __future__ import annotations

import re
from typing import Any

from autograd_viz.engine import Value
from autograd_viz.graph import Graph, snapshot
from autograd_viz.ops import describe
from autograd_viz.own_engine import DEFAULT_TIMEOUT, ForeignSnapshot, foreign_snapshot
from autograd_viz.viz import dot as _dot
from autograd_viz.viz.guard import check_size
from autograd_viz.viz.options import DrawOptions
from autograd_viz.viz.palette import COLORS
from autograd_viz.viz.render import Drawing
from autograd_viz.viz.render import draw as _draw

__all__ = ["WRONG_COLOR", "WRONG_FILL", "animate", "draw", "snapshot_any"]

WRONG_COLOR = COLORS["wrong"]  # reddish purple, apart from the animation's four states
WRONG_FILL = COLORS["wrong-fill"]


def snapshot_any(
    root: object, *, check: bool | None = True, timeout: float = DEFAULT_TIMEOUT
) -> Graph:
    """The snapshot of any engine's graph: ours through `snapshot`, another through
    `foreign_snapshot` (checked unless `check=False`; None: if it holds gradients; their
    backward() may run `timeout` seconds)."""
    if isinstance(root, (Value, Graph)):
        return snapshot(root)
    return foreign_snapshot(root, check=check, timeout=timeout)


def _backward_timeout(options: DrawOptions | None, changes: dict[str, Any]) -> float:
    """`timeout=` bounds `dot` and, for a learner's engine, their backward() too; left out,
    their backward() gets DEFAULT_TIMEOUT (a few seconds, not dot's two minutes)."""
    if "timeout" in changes:
        return DrawOptions.of(None, timeout=changes["timeout"]).timeout  # checked there
    if options is not None and options.timeout != DrawOptions.timeout:
        return options.timeout
    return DEFAULT_TIMEOUT


def draw(root: object, options: DrawOptions | None = None, /, *, check: bool | None = None,
         **changes: Any) -> Drawing:  # fmt: skip
    """Draw the graph ending at `root`, built with any micrograd-style engine.

    Options are `autograd_viz.viz.render.draw`'s. For a learner's own engine, `check`
    runs `check_engine` and marks the first node whose gradient goes wrong; by default
    it does once the graph holds gradients (its backward pass has run), True or False
    decides. `timeout=` (seconds) bounds the layout and their backward() alike; left out,
    their backward() may take 5 s (`BackwardTimeoutError` says where it was still running).

    >>> from micrograd.engine import Value  # doctest: +SKIP
    >>> x, y = Value(2.0), Value(3.0)  # doctest: +SKIP
    >>> draw((x + y) * y)  # doctest: +SKIP
    <Drawing of 4 values, 2 operations: .source is the DOT, .svg() the picture>
    """
    if isinstance(root, (Value, Graph)):
        return _draw(root, options, **changes)  # ours: render's size guard reads it first
    check_size(root, DrawOptions.of(options, **changes).max_nodes)  # before reading it all
    graph = snapshot_any(root, check=False, timeout=_backward_timeout(options, changes))
    drawing = _draw(graph, options, **changes)
    holds_grads = any(n.grad != 0 for n in graph.nodes)
    if isinstance(graph, ForeignSnapshot) and (check or (check is None and holds_grads)):
        drawing = _draw(graph.checked(), options, **changes)  # the DOT again, now marked
    return drawing


def animate(root: object, *, check: bool = True, **options: Any):
    """Step through the forward and backward pass of any engine's graph; for a learner's
    own engine, the numbers are the ones *their* `_backward` closures produced, and (with
    `check`) the step where a rule goes wrong says so. Options are
    `autograd_viz.viz.player.Player`'s; `timeout=` (seconds) bounds the layout and their
    backward() alike (5 s for their backward() when left out)."""
    from autograd_viz.viz.inline import animate as _player  # the widget, or the widget-free one
    from autograd_viz.viz.player import DEFAULT_MAX_FRAMES  # lazily: ipywidgets

    if isinstance(root, (Value, Graph)):
        return _player(root, **options)  # ours: the player's size guard reads it first
    most = options.get("max_nodes", DrawOptions.max_nodes)
    check_size(root, DrawOptions.of(None, max_nodes=most).max_nodes)  # before reading it all
    graph = snapshot_any(root, check=False, timeout=_backward_timeout(None, options))
    limit = options.get("max_frames", DEFAULT_MAX_FRAMES)
    limit = limit if type(limit) is int else DEFAULT_MAX_FRAMES  # Player says what is wrong
    if check and isinstance(graph, ForeignSnapshot) and len(graph) <= limit:
        graph = graph.checked()  # a graph with more values than frames is refused unchecked
    return _player(graph, **options)


# ---- the mark ------------------------------------------------------------------------------

_CAPTION = re.compile(r"^label=<(.*)> labelloc=b labeljust=l;$", re.M)


def mark(source: str, graph: ForeignSnapshot) -> str:
    """DOT `source` with the first wrong node marked and the caption saying why (render
    calls it for a learner's checked graph, so every picture of it carries the mark).

    Later statements about a node add to (and override) its attributes in DOT, so the
    mark is appended; the caption keeps what the drawing already said below it.
    """
    rows = []
    first = graph.first_wrong
    extra = []
    if first is not None:
        i = first.node
        symbol = _dot.html_text(
            _dot.clip(describe(graph.nodes[i].op).drawn(graph.nodes[i].op), 16, 1)
        )
        extra.append(
            f'op{i} [class="op wrong" label=<! {symbol}> style="filled,dashed" '
            f'color="{WRONG_COLOR}" fillcolor="{WRONG_FILL}" penwidth=3];'
        )
        why = first.message + (f"\n{first.hint}" if first.hint else "")
        what = "value" if first.phase == "forward" else "gradient"
        rows.append(
            f'<TD BORDER="3" STYLE="dashed" COLOR="{WRONG_COLOR}" BGCOLOR="{WRONG_FILL}">!</TD>'
            f'<TD ALIGN="LEFT" BALIGN="LEFT">first wrong {what}: {_dot.html_text(why)}</TD>'
        )
    if graph.note:
        rows.append(f'<TD></TD><TD ALIGN="LEFT" BALIGN="LEFT">{_dot.html_text(graph.note)}</TD>')
    if not rows:
        return source
    table = "".join(f"<TR>{r}</TR>" for r in rows)
    mine = f'<TABLE BORDER="0" CELLSPACING="4" CELLPADDING="3">{table}</TABLE>'
    found = _CAPTION.search(source)
    if found:  # keep the drawing's own caption (a legend, a note) below ours
        caption = (
            '<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0">'
            f'<TR><TD ALIGN="LEFT">{mine}</TD></TR>'
            f'<TR><TD ALIGN="LEFT">{found.group(1)}</TD></TR></TABLE>'
        )
        source = source[: found.start()] + source[found.end() + 1 :]
    else:
        caption = mine
    extra.append(f"label=<{caption}> labelloc=b labeljust=l;")
    end = source.rfind("}")  # the digraph's closing brace
    return source[:end] + "\n".join(extra) + "\n" + source[end:]
