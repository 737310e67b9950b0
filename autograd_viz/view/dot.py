"""DOT text for one computation graph: `autograd_viz.view.render` decides *what* to draw, and this
module only spells it in graphviz's DOT language. All user text goes through `html_text`, the one
escaping (the five markup characters, everything else literal), so no label can break the DOT or
inject markup into the SVG; statements are plain strings, a few milliseconds for a thousand nodes
next to the hundreds `dot` spends on layout.
"""

from __future__ import annotations

from collections.abc import Callable

from autograd_viz.core._numbers import format_number
from autograd_viz.core._text import clip
from autograd_viz.view.palette import COLORS

# DOT needs literal colours: the palette's (autograd_viz.view.palette), by role.
FORWARD_COLOR = COLORS["forward"]
BACKWARD_COLOR = COLORS["backward"]
ACTIVE_COLOR = COLORS["active"]
PENDING_COLOR = COLORS["pending"]
PARAM_COLOR = COLORS["param"]
INK = COLORS["ink"]
MUTED = COLORS["muted"]
RULE = COLORS["rule"]

# Text font: graphviz measures "Arial" with Arial's metrics (Liberation Sans on Linux,
# metric-compatible), which is what browsers draw, so boxes fit their text. Bold and
# italic are faces rather than <B>/<I>, which graphviz sets 1 pt off the baseline;
# `SVG_FACES` turns the face names back into CSS a browser understands.
FONT = "Arial,Helvetica,sans-serif"
NODE_MARGIN = "0.05,0.03"  # inches between a node's label and its border (x, y)
BOLD = "Arial Bold"
ITALIC = "Arial Italic"
SVG_FACES = {
    f'font-family="{BOLD}"': f'font-family="{FONT}" font-weight="bold"',
    f'font-family="{ITALIC}"': f'font-family="{FONT}" font-style="italic"',
}

STATE_FILLS = {"pending": PENDING_COLOR, "forward": FORWARD_COLOR, "backward": BACKWARD_COLOR}


# Markup characters become entities; characters XML cannot carry (C0 controls, lone
# surrogates, U+FFFE, U+FFFF) become U+FFFD; a tab becomes a space. `| { } \` need
# nothing inside an HTML label.
_BAD = [*range(32), 0x7F, *range(0xD800, 0xE000), 0xFFFE, 0xFFFF]
_ESCAPES: dict[int, str] = dict.fromkeys(_BAD, "\ufffd")
_ESCAPES[ord("\t")] = " "
_ESCAPES.update({ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;"})
_ESCAPES.update({ord('"'): "&quot;", ord("'"): "&#39;"})
# graphviz 2.43's HTML lexer fails on a text that starts with "]" (`label=<<TD>]</TD>>`)
_ESCAPES[ord("]")] = "&#93;"
# in a table cell graphviz expands \N, \G, \L ... (the node's name, the graph's); a doubled
# backslash is one literal backslash, in a cell and outside one
_ESCAPES[ord("\\")] = "\\\\"
del _ESCAPES[ord("\n")]


def html_text(text: str) -> str:
    """Text for a graphviz HTML-like label that renders literally (newlines as line breaks).

    >>> html_text('a<b> & "c"\\nd')
    'a&lt;b&gt; &amp; &quot;c&quot;<BR/>d'
    """
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    return text.translate(_ESCAPES).replace("\n", "<BR/>")


# graphviz refuses an HTML label longer than 16384 characters, and nobody reads one:
# names are cut by `clip` (autograd_viz.core._text: MAX_LINES lines of MAX_LINE characters, a "…"
# marks the cut), numbers to one short line.
MAX_NUMBER = 24
MAX_LAYER_ROWS = 24


def number_formatter(fmt: str | Callable[[float], str] | None) -> Callable[[float], str]:
    """Turn the `fmt` option (None, a format spec like ".3f", or a function) into a function.

    >>> number_formatter(".2f")(3.14159)
    '3.14'
    """
    if fmt is None:
        return format_number
    if callable(fmt):
        return lambda x: clip(fmt(x), MAX_NUMBER, 1)
    if not isinstance(fmt, str):
        raise TypeError(
            f"fmt must be a format spec such as '.4g' or a function of a float, got {fmt!r}"
        )
    try:
        format(1.5, fmt)
    except ValueError:
        raise ValueError(
            f"fmt={fmt!r} is not a number format spec; try '.4g', '.3f' or '.2e'"
        ) from None
    return lambda x: clip(format(x, fmt), MAX_NUMBER, 1)


def graph_header(rankdir: str, font_size: float, caption: str | None = None) -> list[str]:
    """The opening lines of the digraph: layout direction, fonts and default styles.

    `caption` is HTML for the graph's label (see `caption_label`), drawn below the graph.
    """
    fs = f"{font_size:g}"
    lines = [
        "digraph autograd {",
        f'graph [rankdir={rankdir} ordering=in bgcolor="white" nodesep=0.18 ranksep=0.3 '
        f'fontname="{FONT}" fontsize={fs}];',
        f'node [shape=box style="filled" fillcolor="white" color="{MUTED}" fontcolor="{INK}" '
        f'fontname="{FONT}" fontsize={fs} margin="{NODE_MARGIN}" width=0.3 height=0.3 penwidth=1];',
        f'edge [color="{MUTED}" arrowsize=0.6 penwidth=1];',
    ]
    if caption:
        lines.append(f"label=<{caption}> labelloc=b labeljust=l;")
    return lines


# The legend: what each style means, one cell per style the drawing uses, in this order.
_LEGEND = {
    "input": ('BORDER="2"', "input"),
    "param": (f'BORDER="2" STYLE="rounded" COLOR="{PARAM_COLOR}"', "weight or bias"),
    "const": (f'BORDER="1" STYLE="dashed" COLOR="{MUTED}"', "constant"),
    "value": (f'BORDER="1" COLOR="{MUTED}"', "intermediate value"),
    "output": ('BORDER="0" CELLPADDING="0"', "output"),
    "neuron": ('BORDER="2" STYLE="rounded"', "neuron"),
    "layer": ('BORDER="2" STYLE="rounded"', "layer"),
    "pending": (f'BORDER="1" COLOR="{MUTED}" BGCOLOR="{PENDING_COLOR}"', "not reached yet"),
    "forward": (f'BORDER="1" BGCOLOR="{FORWARD_COLOR}"', "value computed"),
    "backward": (f'BORDER="1" BGCOLOR="{BACKWARD_COLOR}"', "gradient final"),
    "active": (f'BORDER="3" COLOR="{ACTIVE_COLOR}"', "this step"),
}


def caption_label(note: str | None, styles: set[str], grads_hidden: bool) -> str | None:
    """HTML for the graph label: a note (plain text) above a legend of the given styles
    (roles like "input" and states like "forward"); None when there is nothing to say.

    >>> "weight or bias" in caption_label(None, {"param"}, False)
    True
    """
    rows = []
    if note:  # several lines: each flush left (graphviz centres the lines of a cell)
        text = html_text(note)
        if "<BR/>" in text:
            text = text.replace("<BR/>", '<BR ALIGN="LEFT"/>') + '<BR ALIGN="LEFT"/>'
        rows.append(f'<TR><TD ALIGN="LEFT">{text}</TD></TR>')
    cells = []
    for key, (attrs, text) in _LEGEND.items():
        if key not in styles:
            continue
        if key == "output":  # a double border: a bordered cell in a bordered table
            cells.append(f'<TD {attrs}><TABLE BORDER="1" CELLBORDER="1" CELLSPACING="2" '
                         f'CELLPADDING="2"><TR><TD>{text}</TD></TR></TABLE></TD>')  # fmt: skip
        else:
            cells.append(f"<TD {attrs}>{text}</TD>")
    if grads_hidden and styles:
        cells.append('<TD BORDER="0">grad ? = not computed yet</TD>')
    if cells:
        legend = "".join(cells)
        rows.append(
            '<TR><TD ALIGN="LEFT"><TABLE BORDER="0" CELLSPACING="4" CELLPADDING="3">'
            f"<TR>{legend}</TR></TABLE></TD></TR>"
        )
    if not rows:
        return None
    return f'<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0">{"".join(rows)}</TABLE>'


# Per-role node attributes (beyond the defaults in graph_header).
ROLE_ATTRS = {
    "value": "",
    "input": f' color="{INK}" penwidth=1.6',
    "param": f' style="rounded,filled" color="{PARAM_COLOR}" penwidth=1.8',
    "output": f' color="{INK}" penwidth=1.4 peripheries=2',
    "const": f' style="dashed,filled" color="{MUTED}" fontcolor="{MUTED}" margin="0.07,0.02"',
    "op": ' shape=ellipse margin="0.02,0.01" width=0.3 height=0.3',
    "neuron": f' style="rounded,filled" color="{INK}" penwidth=1.4',
    "layer": f' style="rounded,filled" color="{INK}" penwidth=1.4',
}


def state_attrs(state: str) -> str:
    """Node attributes for an animation state: "pending", "forward", "backward", "active",
    or several separated by spaces ("forward active")."""
    attrs = []
    for token in state.split():
        if token in STATE_FILLS:
            attrs.append(f' fillcolor="{STATE_FILLS[token]}"')
            if token == "pending":
                attrs.append(f' fontcolor="{MUTED}"')
        elif token == "active":
            attrs.append(f' color="{ACTIVE_COLOR}" penwidth=3')
    return "".join(attrs)


def edge_state_attrs(state: str) -> str:
    """Edge attributes for the state of the value the edge leads to."""
    tokens = state.split()
    if "active" in tokens:
        return f' color="{ACTIVE_COLOR}" penwidth=2.2'
    if "backward" in tokens:
        return f' color="{BACKWARD_COLOR}" penwidth=1.6'
    if "forward" in tokens:
        return f' color="{FORWARD_COLOR}" penwidth=1.6'
    if "pending" in tokens:
        return f' color="{COLORS["edge-pending"]}"'
    return ""


def value_label(
    name: str, generated: bool, bold: bool, data: str, grad: str | None, note: str = ""
) -> str:
    """The HTML label of a value node: name | data | grad, in one row (grad None: no grad
    cell at all, for `draw(show_grad=False)`); `note` is a muted line under the name
    (a PyTorch leaf's `AccumulateGrad`).

    The SVG post-processing in `render` relies on this order: the name's text lines
    first, then exactly one text for data and one for grad. Long names are clipped.
    """
    name = clip(name)
    if generated:
        name_html = f'<FONT FACE="{ITALIC}" COLOR="{MUTED}">{html_text(name)}</FONT>'
    elif bold:
        name_html = f'<FONT FACE="{BOLD}">{html_text(name)}</FONT>'
    else:
        name_html = html_text(name)
    if note:
        name_html += f'<BR/><FONT COLOR="{MUTED}">{html_text(clip(note, lines=1))}</FONT>'
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" COLUMNS="*" '
        f'COLOR="{RULE}">'
        f"<TR><TD>{name_html}</TD><TD>data {html_text(data)}</TD>{_grad_cell(grad)}</TR>"
        "</TABLE>>"
    )


def _grad_cell(grad: str | None) -> str:
    return "" if grad is None else f"<TD>grad {html_text(grad)}</TD>"


def neuron_label(name: str, activation: str, data: str, grad: str | None) -> str:
    """The HTML label of a collapsed neuron: name and activation, then data | grad
    (no grad cell for grad None)."""
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">'
        f'<TR><TD COLSPAN="2"><FONT FACE="{BOLD}">{html_text(clip(name, lines=1))}</FONT>  '
        f"{html_text(activation)}</TD></TR>"
        f"<TR><TD>data {html_text(data)}</TD>{_grad_cell(grad)}</TR></TABLE>>"
    )


def layer_label(title: str, rows: list[tuple[str, str, str | None]]) -> str:
    """The HTML label of a collapsed layer: a title row, then name | data | grad per neuron
    (the first `MAX_LAYER_ROWS - 1` of them, and how many more, for a wide layer); no grad
    column where the grads are None."""
    grads = any(g is not None for _, _, g in rows)
    if len(rows) > MAX_LAYER_ROWS:
        more = len(rows) - MAX_LAYER_ROWS + 1
        rows = [*rows[: MAX_LAYER_ROWS - 1], ("…", f"{more} more", "")]
    rows = [(clip(n, 20, 1), d, g) for n, d, g in rows]
    body = "".join(
        f'<TR><TD ALIGN="LEFT">{html_text(n)}</TD><TD ALIGN="RIGHT">{html_text(d)}</TD>'
        + (f'<TD ALIGN="RIGHT">{html_text(g or "")}</TD>' if grads else "")
        + "</TR>"
        for n, d, g in rows
    )
    head = f'<TD ALIGN="RIGHT"><FONT COLOR="{MUTED}">grad</FONT></TD>' if grads else ""
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">'
        f'<TR><TD COLSPAN="{3 if grads else 2}"><FONT FACE="{BOLD}">{html_text(title)}</FONT>'
        f'</TD></TR><TR><TD ALIGN="LEFT"><FONT COLOR="{MUTED}">neuron</FONT></TD>'
        f'<TD ALIGN="RIGHT"><FONT COLOR="{MUTED}">data</FONT></TD>{head}</TR>{body}</TABLE>>'
    )
