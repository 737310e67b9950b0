"""A printable worksheet for any expression, and its answer key: the hand derivation on paper.
`save_worksheet(graph, "z.pdf")` (a Value is opened by `autograd_viz.export.save_worksheet`) writes
one A4 or Letter page, the graph with a blank for every value
and gradient and the derivation's lines (the player's, from `autograd_viz.trace`) with each result
left blank ("∂z/∂x = ∂z/∂s · ∂s/∂x = ______"); `key=True` fills every number in, and a `.html` path
gives a print-ready page. It is black-and-white safe (no colour carries meaning) and one sheet: a
graph or derivation too large for a page is refused before any layout. The PDF needs cairosvg (the
lab extra, as for `save_gif`); the HTML needs nothing.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograd_viz.core.derive import derive
from autograd_viz.core.errors import WorksheetError
from autograd_viz.core.graph import Graph, opened
from autograd_viz.core.outpath import output_path, write_output
from autograd_viz.core.steps import Step, check_phase
from autograd_viz.view import render
from autograd_viz.view.options import DrawOptions
from autograd_viz.view.palette import COLORS, resolve

__all__ = ["PAPERS", "Worksheet", "WorksheetError", "save_worksheet", "worksheet"]

# paper sizes in PostScript points (1/72 inch)
PAPERS = {"a4": (595.28, 841.89), "letter": (612.0, 792.0)}
BLANK = "_" * 10  # where the learner writes a number
DEFAULT_MAX_NODES = 30  # every value gets two blanks: beyond this, not a worksheet but a chore
MAX_LINES = 36  # the derivation lines one page holds at a size a learner can write under
_MARGIN = 48.0
_HEADER = 58.0  # title and instructions
_FOOTER = 18.0
_LINE = 17.0  # least line height of the derivation (11 pt text, room for handwriting)
_LINE_MAX = 30.0  # most: lines further apart stop reading as one derivation
_MIN_GRAPH = 110.0  # a graph squeezed below this is unreadable on paper
_FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"
_INK, _PAPER = COLORS["print-ink"], COLORS["print-paper"]  # black on white: prints anywhere
# a number as a derivation writes it: 4, −3, 0.25, 1e-05, 4² (a power of a number), ∞
_NUMBER = re.compile(r"\d[\d.,]*(?:e[+\-−]?\d+)?[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]*|∞|inf|nan")
# what separates the words of one part of a line: spaces, operators, brackets
_SEPARATORS = re.compile(r"[\s+\-−·×*/^()]+")


@dataclass(frozen=True)
class Worksheet:
    """One sheet: `title`, `inputs` (the given values, as text), `lines` (the derivation, blanked
    unless `key`), `graph_svg` (blank cells unless `key`), `paper` ("a4" or "letter")."""

    title: str
    inputs: str
    lines: tuple[str, ...]
    graph_svg: str
    key: bool
    paper: str

    @property
    def instructions(self) -> str:
        if self.key:
            return f"{self.inputs}. Every value, gradient and line filled in."
        return (
            f"{self.inputs}. Fill in every data (value) and grad (gradient) on the graph, "
            "then finish each line below."
        )

    def html(self) -> str:
        """The sheet as a print-ready HTML page (File ▸ Print, or save as PDF from a browser)."""
        size = "A4" if self.paper == "a4" else "letter"
        items = "".join(f"<li>{_html_line(line)}</li>" for line in self.lines)
        name = "" if self.key else "<p class=name>Name: <span class=blank></span></p>"
        return (
            "<!doctype html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
            f"<title>{html.escape(self.title)}</title>\n<style>\n"
            f"@page {{ size: {size}; margin: 16mm; }}\n"
            f"body {{ font-family: {_FONT}; color: {_INK}; background: {_PAPER}; margin: 0 auto;"
            " max-width: 180mm; }\n"
            "h1 { font-size: 16pt; margin: 0 0 4pt; }\n"
            "p { font-size: 10pt; margin: 0 0 8pt; }\n"
            ".graph svg { display: block; max-width: 100%; height: auto; max-height: 40vh;"
            " margin: 6pt auto 10pt; }\n"
            "ol { font-size: 11pt; line-height: 1.9; padding-left: 2em; }\n"
            f".blank {{ display: inline-block; min-width: 7em;"
            f" border-bottom: 1px solid {_INK}; }}\n"
            "@media print { .graph svg { max-height: 110mm; } }\n"
            "</style>\n</head>\n<body>\n"
            f"<h1>{html.escape(self.title)}</h1>\n{name}\n"
            f"<p>{html.escape(self.instructions)}</p>\n"
            f'<div class="graph">{self.graph_svg}</div>\n<ol>{items}</ol>\n'
            "</body>\n</html>\n"
        )

    def page_svg(self) -> str:
        """The sheet as one SVG page of the paper's size (what the PDF is drawn from)."""
        width, height = PAPERS[self.paper]
        inner = width - 2 * _MARGIN
        graph_top = _MARGIN + _HEADER
        room = height - _MARGIN - _FOOTER - graph_top  # for the graph and the lines
        gw, gh = _svg_size(self.graph_svg)
        # the graph as large as it reads well (at most 45 % of the page, 1.6x its size), the
        # lines spread over what is left, with room to write under each
        scale = min(inner / gw, (room - _LINE * (len(self.lines) + 1)) / gh, 0.45 * height / gh,
                    1.6)  # fmt: skip
        graph_w, graph_h = gw * scale, gh * scale
        line = min(_LINE_MAX, max(_LINE, (room - graph_h) / (len(self.lines) + 1)))
        graph = _nested(self.graph_svg, _MARGIN + (inner - graph_w) / 2, graph_top,
                        graph_w, graph_h)  # fmt: skip
        text_top = graph_top + graph_h + line
        rows = []
        for n, text in enumerate(self.lines, 1):
            y = text_top + (n - 1) * line
            rows.append(f'<text x="{_MARGIN:.1f}" y="{y:.1f}" font-size="11">'
                        f"{n}. {html.escape(text, quote=False)}</text>")  # fmt: skip
        name = (
            ""
            if self.key
            else (
                f'<text x="{width - _MARGIN:.1f}" y="{_MARGIN + 14:.1f}" font-size="10" '
                f'text-anchor="end">Name: {BLANK * 2}</text>'
            )
        )
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}pt" height="{height}pt" '
            f'viewBox="0 0 {width} {height}" font-family="{_FONT}" fill="{_INK}">\n'
            f'<rect width="{width}" height="{height}" fill="{_PAPER}"/>\n'
            f'<text x="{_MARGIN:.1f}" y="{_MARGIN + 14:.1f}" font-size="16" font-weight="bold">'
            f"{html.escape(self.title, quote=False)}</text>\n{name}\n"
            f'<text x="{_MARGIN:.1f}" y="{_MARGIN + 38:.1f}" font-size="10">'
            f"{html.escape(self.instructions, quote=False)}</text>\n"
            f"{graph}\n" + "\n".join(rows) + "\n"
            f'<text x="{_MARGIN:.1f}" y="{height - _MARGIN + 4:.1f}" font-size="8">'
            "autograd_viz worksheet</text>\n</svg>\n"
        )

    def pdf(self) -> bytes:
        """The sheet as a one-page PDF (needs cairosvg and the Cairo library)."""
        try:
            import cairosvg
        except ImportError:
            raise WorksheetError(
                "a PDF worksheet is drawn with cairosvg, which is not installed: "
                "`pip install cairosvg` (or save the worksheet as .html and print it)"
            ) from None
        except OSError as err:
            raise WorksheetError(
                f"cairosvg is installed but cannot load the Cairo library ({err}); install "
                "Cairo (apt-get install libcairo2), or save the worksheet as .html"
            ) from None
        return cairosvg.svg2pdf(bytestring=self.page_svg().encode("utf-8"))

    def save(self, path: str | Path) -> Path:
        """Write the sheet to `path`: `.pdf` or `.html`."""
        out = output_path(path, "save_worksheet", (".pdf", ".html"))
        if out.suffix.lower() == ".pdf":
            write_output(out, self.pdf())
        else:
            write_output(out, self.html())
        return out

    def _repr_html_(self) -> str:
        return self.html()


def worksheet(
    graph: Graph,
    *,
    key: bool = False,
    phase: str = "both",
    paper: str = "a4",
    title: str | None = None,
    digits: int = 4,
    **draw_options: Any,
) -> Worksheet:
    """The worksheet (or, with `key=True`, its answer key) for a graph opened already
    (`autograd_viz.export.worksheet(root)` opens a Value, refusing more than `max_nodes`
    values before it is read).

    >>> from autograd_viz import Value
    >>> from autograd_viz.open.snapshot import snapshot
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> z = (x + y) * y
    >>> z.label = "z"
    >>> sheet = worksheet(snapshot(z))
    >>> sheet.lines[0]
    'x + y = __________'
    >>> worksheet(snapshot(z), key=True).lines[0]
    'x + y = 2 + 3 = 5'
    """
    graph = opened(graph, "this worksheet shows", "autograd_viz.export.worksheet(root)")
    if not isinstance(key, bool):
        raise TypeError(f"key must be True (the answer key) or False, got {key!r}")
    if paper not in PAPERS:
        raise WorksheetError(f"paper must be one of {sorted(PAPERS)}, got {paper!r}")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}")
    check_phase(phase)
    for option in ("fmt", "show_grad", "states"):
        if option in draw_options:
            raise TypeError(f"save_worksheet sets {option!r} itself; leave it out")
    draw_options.setdefault("rankdir", "TB")  # a portrait page: the graph grows downwards
    if len(graph) == 1:
        raise WorksheetError(
            "this is a single value with no operation behind it: nothing to work out. Make "
            "a worksheet of an expression built from it, e.g. (x + y) * y."
        )
    # a learner's engine: the key gives the maths' numbers (the op table's), never their rules'
    graph, unknown, _ = graph.graded()
    if unknown:
        ops = ", ".join(sorted({repr(graph.nodes[i].op) for i in unknown}))
        raise WorksheetError(
            f"this graph's operation {ops} is one the kit knows no derivative for, so an "
            "answer key could not be trusted. Make the worksheet of an expression built "
            "from +, −, ·, /, powers, exp, log, tanh, ReLU and the other operations the kit knows."
        )
    steps = derive(graph, "both", digits=digits)  # one trace: the lines, inputs, grads, title
    given = [s for s in steps if s.kind == "value" and s.text.startswith("inputs:")]
    forward = [s for s in steps if s.phase == "forward" and s not in given]
    body = [s for s in steps if s not in given and phase in ("both", s.phase)]
    _check_fits(len(body), PAPERS[paper][1])
    finished = graph.with_grads(steps[-1].grads)
    if key:
        drawing = render.drawing(finished, DrawOptions.of(show_grad=True, **draw_options))
    else:
        blank = DrawOptions.of(show_grad=True, fmt=lambda _: BLANK, **draw_options)
        drawing = render.drawing(finished, blank)
    inputs = given[0].text.replace("inputs:", "Inputs:", 1) if given else "No inputs"
    expression = _line(forward[-1], key=False).removesuffix(f" = {BLANK}")
    heading = title or f"{'Answer key' if key else 'Worksheet'}: {expression}"
    return Worksheet(
        title=heading,
        inputs=inputs,
        lines=tuple(_line(s, key) for s in body),
        graph_svg=resolve(drawing.svg()),
        key=key,
        paper=paper,
    )


def save_worksheet(graph: Graph, path: str | Path, **options: Any) -> Path:
    """Write the worksheet (`key=True`: the answer key) of `graph` to `path` (.pdf or .html).

    Options as in `worksheet`: key, phase, paper ("a4" or "letter"), title, digits and
    drawing options (rankdir, font_size).

    >>> save_worksheet(z, "z_worksheet.pdf")             # doctest: +SKIP
    >>> save_worksheet(z, "z_key.pdf", key=True)         # doctest: +SKIP
    """
    out = output_path(path, "save_worksheet", (".pdf", ".html"))  # before the work
    return worksheet(graph, **options).save(out)


# ---- helpers --------------------------------------------------------------------------


def _line(step: Step, key: bool) -> str:
    """The step's text; on a worksheet its symbolic parts with every number worked out left
    blank. A line reads name = formula = substituted numbers = result ("e = d + c = −6 + 10 =
    4", "∂L/∂a = ∂L/∂d · ∂d/∂a = 8 · b = ..."): the name and the formula stay (a formula may
    hold the expression's own constants, as in d · 2); any later part with a number in it
    (8 · b holds ∂L/∂d, 4² holds e) is an answer, and goes."""
    if key:
        return step.text
    name, *rest = step.text.split(" = ")
    kept = [name]
    for n, part in enumerate(rest[:-1]):
        words = [w for w in _SEPARATORS.split(part) if w]
        numbers = [w for w in words if _NUMBER.fullmatch(w)]
        if not numbers or (n == 0 and len(numbers) < len(words)):
            kept.append(part)
    return " = ".join([*kept, BLANK])


def _html_line(line: str) -> str:
    return html.escape(line).replace(BLANK, "<span class=blank></span>")


def _check_fits(lines: int, page_height: float) -> None:
    room = page_height - 2 * _MARGIN - _HEADER - _FOOTER - _MIN_GRAPH
    most = min(MAX_LINES, int(room // _LINE))
    if lines > most:
        raise WorksheetError(
            f"this derivation has {lines} lines; one worksheet holds at most {most}. Make a "
            "worksheet of one pass (phase='forward' or phase='backward') or of a "
            "sub-expression (an intermediate Value)."
        )


_SIZE = re.compile(r'<svg[^>]*?width="([\d.]+)pt"[^>]*?height="([\d.]+)pt"', re.S)


def _svg_size(svg: str) -> tuple[float, float]:
    match = _SIZE.search(svg)
    if not match:
        raise WorksheetError("the drawing has no size in points (not a graphviz SVG?)")
    return float(match.group(1)), float(match.group(2))


def _nested(svg: str, x: float, y: float, width: float, height: float) -> str:
    """The drawing as an <svg> element placed at (x, y) and scaled to width × height."""
    body = svg[svg.index("<svg") :]
    body = _SIZE.sub(
        lambda m: (
            m.group(0)
            .replace(f'width="{m.group(1)}pt"', f'x="{x:.2f}" y="{y:.2f}" width="{width:.2f}"')
            .replace(f'height="{m.group(2)}pt"', f'height="{height:.2f}"')
        ),
        body,
        count=1,
    )
    return body
