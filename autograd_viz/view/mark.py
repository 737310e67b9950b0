"""The mark on a learner's first wrong node, and the caption saying why: a checked graph of a
learner's own engine (`autograd_viz.open.engines`) is drawn with that node in a dashed, thick
outline in its own colour and a "!" before its operation, so it reads without colour too, and the
caption says what went wrong (and, where a set lost the operands' order, that the order shown is a
guess). The caller that builds the DOT passes the mark in (`marker(graph)`), so the drawing layer
never reaches back for it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from autograd_viz.view import dot as _dot
from autograd_viz.view.palette import COLORS

__all__ = ["WRONG_COLOR", "WRONG_FILL", "mark", "marker"]

WRONG_COLOR = COLORS["wrong"]  # reddish purple, apart from the animation's four states
WRONG_FILL = COLORS["wrong-fill"]


def marker(graph: Any) -> Callable[[str], str] | None:
    """What to add to the DOT of `graph`: the mark of a checked learner's graph (its first
    wrong node, and its caption note), or None for a graph with nothing to say."""
    if getattr(graph, "first_wrong", None) is None and not getattr(graph, "note", ""):
        return None
    return lambda source: mark(source, graph)


_CAPTION = re.compile(r"^label=<(.*)> labelloc=b labeljust=l;$", re.M)


def mark(source: str, graph: Any) -> str:
    """DOT `source` with the first wrong node marked and the caption saying why (the caller
    of `render`'s DOT builder passes it in for a learner's checked graph, `marker`).

    Later statements about a node add to (and override) its attributes in DOT, so the
    mark is appended; the caption keeps what the drawing already said below it.
    """
    rows = []
    first = graph.first_wrong
    extra = []
    if first is not None:
        i = first.node
        symbol = _dot.html_text(graph.drawn_op(i))
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
