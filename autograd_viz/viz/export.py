"""Static forms of the animation, for printing, slides and places without widgets.

Three exports, all from the one layout of `autograd_viz.viz.frames.Frames`, and none needs
a kernel or the network:

* `filmstrip(root)` — chosen frames in a grid with each step's equation under it, as
  an HTML page (prints one frame per cell, never split across pages) or as one SVG.
* `save_html(root, "backprop.html")` — a standalone page with its own controls
  (Play/Pause, Prev/Next, a step slider, speed; keys ← → space Home End) and the
  derivation so far, one line per step as in the blog, the current one bold. It holds the
  SVG once plus, per frame, only what changes (class attributes and cell texts), and
  ~2 kB of inline vanilla JavaScript applies them: no CDN, no library.
* `save_svg_animation(root, "backprop.svg")` — an animated SVG that plays by itself
  wherever SVG does (browsers, GitHub READMEs, HTML slides): the drawing once, plus one
  copy of each node or edge per change, each shown in its stretch of steps by a CSS
  keyframe animation, with each step's equation as a caption. This is the main
  animated export: it needs no extra package, stays sharp on a projector and its text
  stays searchable.
* `save_gif(root, "backprop.gif")` — the same frames as a looping GIF, for slide software
  that cannot play SVG (PowerPoint, Keynote, Google Slides). Rasterising SVG needs a
  renderer, so this one alone needs the optional `cairosvg` package.

`source` is a `Value` or a graph snapshot (traced and laid out here, with `phase` and
any drawing options, `autograd_viz.viz.options`) or an existing `Frames`. Every export
says the same caption as the widget (`Frames.caption`) and colours through the palette
(`autograd_viz.viz.palette`); the page's CSS and JavaScript are the package's
`viz/static/page.css` and `page.js`.
"""

from __future__ import annotations

import html
import io
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from autograd_viz.foreign import LOOKS_FOR
from autograd_viz.graph import Graph
from autograd_viz.viz.frames import Frames
from autograd_viz.viz.palette import COLORS, resolve, var
from autograd_viz.viz.static import static_text
from autograd_viz.viz.svg import MIN_FIT_TEXT, fitted_text_px, width_px

Source = Any  # a Value, a Graph snapshot or Frames

__all__ = [
    "ExportError",
    "Filmstrip",
    "filmstrip",
    "save_gif",
    "save_html",
    "save_svg_animation",
    "standalone_html",
    "svg_animation",
]


def _frames(source: Source, phase: str | None, draw_options: dict[str, Any]) -> Frames:
    if isinstance(source, Frames):
        if draw_options:
            raise TypeError(
                f"drawing options {sorted(draw_options)} only apply when exporting a Value; "
                "these Frames are laid out already"
            )
        return source if phase in (None, source.phase) else source.for_phase(phase)
    try:
        return Frames(source, phase or "both", **draw_options)
    except TypeError as err:
        if isinstance(source, Graph) or "Frames needs a Value" not in str(err):
            raise
        raise TypeError(
            f"export needs a Value or Frames, got {type(source).__name__}: {source!r}. {LOOKS_FOR}."
        ) from None


def _caption(frames: Frames, k: int) -> str:
    return frames.caption(k).text


def _size(svg: str) -> tuple[float, float]:
    """The width and height (in pt) of a graphviz SVG."""
    m = re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if not m:
        raise ValueError("the frame SVG has no width/height in pt; was it made by graphviz?")
    return float(m.group(1)), float(m.group(2))


# ---- filmstrip ------------------------------------------------------------------------


class Filmstrip:
    """Chosen frames in a grid, each with its step's equation: `.html()`, `.svg()`,
    `.save(path)` (.html or .svg); shows inline in Jupyter."""

    def __init__(self, frames: Frames, indices: Sequence[int], columns: int) -> None:
        self.frames = frames
        self.indices = list(indices)
        self.columns = columns

    def html(self, *, full_page: bool = True) -> str:
        """An HTML grid of the frames with their equations (a whole page, or a fragment)."""
        figures = "".join(
            '<figure class="avz-cell">'
            f'<div class="avz-graph">{_renamed(self.frames.frame_svg(k))}</div>'
            f'<figcaption><span class="avz-step">{html.escape(_caption(self.frames, k))}'
            f"</span><br>{html.escape(self.frames.steps[k].text)}</figcaption></figure>"
            for k in self.indices
        )
        style = (
            f".avz-strip{{display:grid;grid-template-columns:repeat({self.columns},minmax(0,1fr));"
            "gap:14px;font-family:Arial,Helvetica,sans-serif}"
            f".avz-cell{{margin:0;padding:6px;border:1px solid {var('border')};break-inside:avoid;"
            "page-break-inside:avoid}"
            ".avz-graph svg{width:100%;height:auto}"
            ".avz-cell figcaption{font-size:13px;line-height:1.4;margin-top:4px}"
            f".avz-step{{color:{var('muted')};font-size:11px}}"
            "@page{margin:12mm}"
            "@media print{.avz-strip{-webkit-print-color-adjust:exact;print-color-adjust:exact}}"
        )
        body = f'<style>{style}</style><div class="avz-strip">{figures}</div>'
        if not full_page:
            return body
        return (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>Backpropagation, step by step</title></head><body>{body}</body></html>"
        )

    def svg(self, *, caption_size: float = 11) -> str:
        """One SVG: the frames in a grid, each with its equation underneath."""
        width, height = _size(self.frames.base_svg)
        captions = _Captions(self.frames, self.indices, width, caption_size)
        cell_h = height + captions.height + 4
        cell_w = width + 16
        rows = -(-len(self.indices) // self.columns)
        cols = min(self.columns, len(self.indices))
        parts = []
        for n, k in enumerate(self.indices):
            x0, y0 = (n % self.columns) * cell_w + 8, (n // self.columns) * cell_h + 8
            frame = _nested(_renamed(self.frames.frame_svg(k)), x0, y0, width, height)
            parts.append(frame + captions.svg(k, x0, y0 + height))
        total_w, total_h = cols * cell_w, rows * cell_h
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:g}pt" '
            f'height="{total_h:g}pt" viewBox="0 0 {total_w:g} {total_h:g}" '
            f'font-family="Arial, Helvetica, sans-serif" font-size="{caption_size:g}">'
            f'<rect width="100%" height="100%" fill="white"/>{"".join(parts)}</svg>\n'
        )

    def save(self, path: str | Path) -> Path:
        """Write the filmstrip to `path`: .html (a printable page) or .svg."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".html":
            path.write_text(self.html(), encoding="utf-8")
        elif suffix == ".svg":
            path.write_text(self.svg(), encoding="utf-8")
        else:
            raise ValueError(
                f"cannot save a filmstrip as {suffix or 'a file without a suffix'!r}: "
                "use a path ending in .html or .svg"
            )
        return path

    def _repr_html_(self) -> str:
        return self.html(full_page=False)

    def __repr__(self) -> str:
        return f"<Filmstrip of {len(self.indices)} frames in {self.columns} columns>"


def _wrap(text: str, width: int) -> list[str]:
    """Break an equation into lines of about `width` characters, at its spaces."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    return [*lines, current]


class _Captions:
    """The caption geometry under a frame, one for every SVG export: the grey caption
    line, then the step's equation wrapped to the frame's width. `height` is the room
    the tallest caption of the chosen frames needs."""

    def __init__(self, frames: Frames, indices: Sequence[int], width: float, size: float) -> None:
        self.frames = frames
        self.line = size * 1.4
        chars = max(20, int(width / (size * 0.55)))
        self.lines = {k: _wrap(frames.steps[k].text, chars) for k in indices}
        self.height = self.line * (1 + max(len(c) for c in self.lines.values())) + 8

    def svg(self, k: int, x: float, top: float) -> str:
        """SVG text lines under frame k, whose picture ends at `top`."""
        grey = f' fill="{COLORS["muted"]}"'  # an SVG attribute: a literal colour
        texts = [_caption(self.frames, k), *self.lines[k]]
        return "".join(
            f'<text x="{x:g}" y="{top + self.line * (i + 1):g}"{grey if i == 0 else ""}>'
            f"{html.escape(t, quote=False)}</text>"
            for i, t in enumerate(texts)
        )


def _nested(svg: str, x: float, y: float, width: float, height: float) -> str:
    """A frame's SVG placed at (x, y) inside a larger SVG whose units are pt."""
    svg = re.sub(
        r'width="[\d.]+pt" height="[\d.]+pt"',
        f'x="{x:g}" y="{y:g}" width="{width:g}" height="{height:g}"',
        svg,
        count=1,
    )
    return svg.strip()


def filmstrip(
    source: Source,
    steps: Sequence[int] | None = None,
    *,
    columns: int = 3,
    phase: str | None = None,
    **draw_options: Any,
) -> Filmstrip:
    """A grid of frames with their equations, for printing and slides.

    `steps`: the frame indices to show (default: all); negative indices count from the end.

    >>> from autograd_viz import Value

    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> strip = filmstrip((x + y) * y, steps=[0, 2, -1])
    >>> strip.indices
    [0, 2, 8]
    """
    frames = _frames(source, phase, draw_options)
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise ValueError(f"columns must be a positive whole number, got {columns!r}")
    n = len(frames)
    chosen = list(range(n)) if steps is None else list(steps)
    if not chosen:
        raise ValueError("steps is empty: pass the frame indices to show, or None for all")
    indices = []
    for k in chosen:
        if isinstance(k, bool) or not isinstance(k, int) or not -n <= k < n:
            raise IndexError(f"step {k!r} does not exist; frames are 0..{n - 1} (or -{n}..-1)")
        indices.append(k % n)
    return Filmstrip(frames, indices, columns)


# ---- standalone HTML with its own controls ----------------------------------------------


PAGE_WIDTH = 1000  # CSS px: wider graphs scroll on the standalone page instead of shrinking


def standalone_html(
    source: Source,
    *,
    phase: str | None = None,
    title: str = "Backpropagation, step by step",
    interval: float = 1.2,
    projector: bool = False,
    **draw_options: Any,
) -> str:
    """A self-contained HTML page that steps through the animation with its own controls.

    `interval`: seconds per step when playing (the page also offers slow/fast).
    `projector`: larger type for a classroom projector (every text 20 px or more).

    >>> from autograd_viz import Value

    >>> x = Value(3.0, label="x")
    >>> page = standalone_html(x * x)
    >>> "<script" in page and "http" not in page.split("<svg", 1)[0]
    True
    """
    frames = _frames(source, phase, draw_options)
    if not (isinstance(interval, (int, float)) and 0.05 <= interval <= 60):
        raise ValueError(f"interval must be seconds between 0.05 and 60, got {interval!r}")
    strings: dict[str, int] = {}
    kinds = [kind for kind, _ in frames.slots]
    rows = [  # per frame, each slot's content as an index into one table of strings
        [
            strings.setdefault("" if kind == "svg" else v, len(strings))  # the JS sets the tag
            for kind, v in zip(kinds, frames.slot_values(k))
        ]
        for k in range(len(frames))
    ]
    data = {
        "slots": frames.slots,
        "strings": list(strings),
        "frames": rows,
        "equations": [s.text for s in frames.steps],
        "captions": [_caption(frames, k) for k in range(len(frames))],
        "active": [s.active for s in frames.steps],
    }
    # "<" as \u003c: no label can close the <script> that carries the data, or open one
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    ms = round(interval * 1000)
    speeds = "".join(
        f'<option value="{round(ms * f)}"{" selected" if f == 1 else ""}>{name}</option>'
        for name, f in (("slow", 2), ("normal", 1), ("fast", 0.5))
    )
    n = len(frames)
    # a graph too wide to fit with readable text keeps its size and scrolls sideways
    wide = width_px(frames.base_svg) > PAGE_WIDTH
    wide_class = " avz-wide" if wide else ""
    fit = (
        '<label><input type="checkbox" id="avz-fit"> fit to width</label>'
        if wide and fitted_text_px(frames.base_svg, PAGE_WIDTH) >= MIN_FIT_TEXT
        else ""
    )
    hint = (
        '<p class="avz-help">&#x21C6; A wide graph: scroll it sideways; each step&#x2019;s node '
        "comes into view.</p>"
        if wide
        else ""
    )
    derivation = "".join(
        f'<li class="{s.phase}{" avz-later" if k else " avz-now"}">{html.escape(s.text)}</li>'
        for k, s in enumerate(frames.steps)
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title><style>{static_text("page.css")}</style></head>
<body{' class="avz-projector"' if projector else ''}><main class="avz-player{wide_class}">
<h1>{html.escape(title)}</h1>
<div class="avz-graph">{frames.frame_svg(0)}</div>
<p class="avz-caption" id="avz-caption">{html.escape(_caption(frames, 0))}</p>
<p class="avz-equation" id="avz-equation" aria-live="polite">{html.escape(frames.steps[0].text)}</p>
<div class="avz-controls">
<button id="avz-first" title="first step (Home)">First</button>
<button id="avz-prev" title="previous step (&#x2190;)">&#x25C0; Prev</button>
<button id="avz-play" title="play / pause (space)">&#x25B6; Play</button>
<button id="avz-next" title="next step (&#x2192;)">Next &#x25B6;</button>
<input id="avz-slider" type="range" min="0" max="{n - 1}" value="0" aria-label="step">
<label>speed <select id="avz-speed">{speeds}</select></label>{fit}
</div>{hint}
<p class="avz-help">Keys: &#x2190; &#x2192; or PageUp PageDown step,
space play/pause, Home/End first/last.</p>
<h2 class="avz-help">The derivation so far</h2>
<ol class="avz-derivation" id="avz-derivation">{derivation}</ol>
</main>
<script type="application/json" id="avz-data">{payload}</script>
<script>{static_text("page.js")}</script>
</body></html>
"""


def save_html(source: Source, path: str | Path, **options: Any) -> Path:
    """Write `standalone_html(source, **options)` to `path` and return the path.

    >>> import tempfile, os
    >>> from autograd_viz import Value
    >>> x = Value(3.0, label="x")
    >>> out = save_html(x * x, os.path.join(tempfile.mkdtemp(), "square.html"))
    >>> out.suffix
    '.html'
    """
    path = Path(path)
    path.write_text(standalone_html(source, **options), encoding="utf-8")
    return path


# ---- animated SVG ----------------------------------------------------------------------


# In the animation's copies of the layout: ids (they must stay unique in one document),
# graphviz's comments and tooltips (a quarter of the bytes).
_COPY_NOISE = re.compile(r'\sid="[^"]*"|<!--.*?-->\n?|<title>[^<]*</title>\n?', re.S)


def _captioned(frames: Frames, caption_size: float) -> tuple[list[str], float, float]:
    """Every frame as SVG markup with its caption underneath (for a document whose units
    are pt), and the width and height they all share."""
    width, height = _size(frames.base_svg)
    captions = _Captions(frames, range(len(frames)), width, caption_size)
    out = []
    for k in range(len(frames)):
        frame = _nested(frames.frame_svg(k), 0, 0, width, height)
        frame = _COPY_NOISE.sub("", frame)  # one document: ids must stay unique
        out.append(frame + captions.svg(k, 4, height))
    return out, width, height + captions.height


def _document(body: str, width: float, height: float, caption_size: float, head: str = "") -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}pt" height="{height:g}pt" '
        f'viewBox="0 0 {width:g} {height:g}" font-family="Arial, Helvetica, sans-serif" '
        f'font-size="{caption_size:g}"><title>Backpropagation, step by step</title>{head}'
        f'<rect width="100%" height="100%" fill="white"/>{body}</svg>\n'
    )


def _check_seconds(seconds_per_step: float) -> None:
    if not (isinstance(seconds_per_step, (int, float)) and 0.05 <= seconds_per_step <= 60):
        raise ValueError(f"seconds_per_step must be between 0.05 and 60, got {seconds_per_step!r}")


_ELEMENT = re.compile(r'<g id="[^"]+" class="(?:node|edge)\b[^"]*">.*?\n</g>', re.S)
_ROOT_DATA = re.compile(r'\s(?:data-(?:step|phase|active)|role|aria-label)="[^"]*"')


def _versions(svgs: list[str]) -> tuple[list[str], list[list[tuple[int, str]]]]:
    """Frame 0 split into the static text around its nodes and edges, and for each node
    or edge the versions it goes through: (first frame, markup), one per change."""
    static = _ELEMENT.split(svgs[0])
    versions: list[list[tuple[int, str]]] = [[(0, m)] for m in _ELEMENT.findall(svgs[0])]
    for k, svg in enumerate(svgs[1:], start=1):
        elements = _ELEMENT.findall(svg)
        if len(elements) != len(versions):
            raise ValueError("frames differ in their nodes and edges; they must share one layout")
        for history, markup in zip(versions, elements):
            if markup != history[-1][1]:
                history.append((k, markup))
    return static, versions


def svg_animation(
    source: Source,
    *,
    phase: str | None = None,
    seconds_per_step: float = 1.5,
    caption_size: float = 13,
    **draw_options: Any,
) -> str:
    """An SVG that plays the animation by itself, in a loop, with each step's equation.

    The drawing appears once; every node or edge that changes during the animation
    appears once per change (the orange version, the blue one, the active one, ...),
    each shown during its stretch of steps by one CSS keyframe animation, delayed to
    its first step. A step costs only the few elements it changes.

    >>> from autograd_viz import Value

    >>> x = Value(3.0, label="x")
    >>> svg_animation(x * x).count(" of 6 — ")  # a caption for each of the 6 steps
    6
    """
    frames = _frames(source, phase, draw_options)
    _check_seconds(seconds_per_step)
    n = len(frames)
    width, height = _size(frames.base_svg)
    static, versions = _versions([frames.frame_svg(k) for k in range(n)])
    lengths: set[int] = set()

    def shown(markup: str, start: int, end: int) -> str:
        if end - start == n:  # never changes: no animation
            return markup
        lengths.add(end - start)
        return (
            f'<g class="avz-w" style="animation-name:avz-w{end - start};'
            f'animation-delay:{start * seconds_per_step:g}s">{markup}</g>'
        )

    parts = [static[0]]
    for history, after in zip(versions, static[1:]):
        ends = [start for start, _ in history[1:]] + [n]
        parts += [shown(_renamed(m), start, end) for (start, m), end in zip(history, ends)]
        parts.append(after)
    drawing = _COPY_NOISE.sub("", "".join(parts))
    tag_end = drawing.index(">")
    drawing = _nested(
        _ROOT_DATA.sub("", drawing[:tag_end]) + drawing[tag_end:], 0, 0, width, height
    )

    captions = _Captions(frames, range(n), width, caption_size)
    total_h = height + captions.height
    texts = "".join(shown(captions.svg(k, 4, height), k, k + 1) for k in range(n))
    cycle = n * seconds_per_step
    style = (
        f".avz-w {{visibility: hidden; animation-duration: {cycle:g}s;"
        " animation-timing-function: step-end; animation-iteration-count: infinite;}"
    ) + "".join(
        f"@keyframes avz-w{length} {{0% {{visibility: visible;}} {100 * length / n:.6g}% "
        "{visibility: hidden;} 100% {visibility: hidden;}}"
        for length in sorted(lengths)
    )
    return _document(drawing + texts, width, total_h, caption_size, f"<style>{style}</style>")


def _renamed(markup: str) -> str:
    """Copies of one drawing in one document: ids become data-avz (ids must stay unique)."""
    return markup.replace(' id="', ' data-avz="')


def save_svg_animation(source: Source, path: str | Path, **options: Any) -> Path:
    """Write `svg_animation(source, **options)` to `path` (an .svg file) and return the path."""
    path = Path(path)
    if path.suffix.lower() != ".svg":
        raise ValueError(f"an SVG animation needs a path ending in .svg, got {str(path)!r}")
    path.write_text(svg_animation(source, **options), encoding="utf-8")
    return path


# ---- animated GIF (for slide software that cannot play SVG) ------------------------------


class ExportError(RuntimeError):
    """An export needs something that is not installed."""


def save_gif(
    source: Source,
    path: str | Path,
    *,
    phase: str | None = None,
    seconds_per_step: float = 1.5,
    width: int = 960,
    caption_size: float = 13,
    **draw_options: Any,
) -> Path:
    """Write the animation as a looping GIF, `width` pixels wide, for slide software.

    Each frame (drawing and equation) is rasterised from the one layout with cairosvg
    (an optional dependency: `pip install cairosvg`; it uses the Cairo library that
    Graphviz already brings) and assembled with Pillow. The last frame stays up three
    times as long, so the final gradients can be read before the loop restarts.

    >>> import tempfile, os
    >>> from autograd_viz import Value
    >>> x = Value(3.0, label="x")
    >>> save_gif(x * x, os.path.join(tempfile.mkdtemp(), "square.gif")).suffix
    '.gif'
    """
    path = Path(path)
    if path.suffix.lower() != ".gif":
        raise ValueError(f"save_gif needs a path ending in .gif, got {str(path)!r}")
    if isinstance(width, bool) or not isinstance(width, int) or not 100 <= width <= 4000:
        raise ValueError(f"width must be a whole number of pixels from 100 to 4000, got {width!r}")
    _check_seconds(seconds_per_step)
    if sys.platform == "emscripten":  # JupyterLite: the Cairo library does not exist in a browser
        raise ExportError(
            "save_gif needs the Cairo library, which the browser edition (JupyterLite) does not "
            "have: use save_svg_animation or save_html here (both play in any browser and in "
            "slides), or save_gif where Python is installed."
        )
    try:
        import cairosvg
    except ImportError:  # OSError too, below: cairosvg is there but the Cairo library is not
        raise ExportError(
            "save_gif rasterises frames with cairosvg, which is not installed: "
            "`pip install cairosvg` (or `conda install -c conda-forge cairosvg`). "
            "save_svg_animation and save_html need nothing extra."
        ) from None
    except OSError as err:
        raise ExportError(
            f"cairosvg is installed but cannot load the Cairo library ({err}); install Cairo "
            "(it comes with Graphviz from conda-forge, apt or brew)."
        ) from None
    from PIL import Image

    frames = _frames(source, phase, draw_options)
    bodies, w, h = _captioned(frames, caption_size)
    images = []
    for body in bodies:
        png = cairosvg.svg2png(
            # cairosvg knows no CSS custom properties: the palette's colours, written out
            bytestring=resolve(_document(body, w, h, caption_size)).encode("utf-8"),
            output_width=width,
        )
        images.append(Image.open(io.BytesIO(png)).convert("RGB"))
    ms = round(seconds_per_step * 1000)
    durations = [ms] * (len(images) - 1) + [3 * ms]
    images[0].save(
        path, save_all=True, append_images=images[1:], duration=durations, loop=0, disposal=1
    )
    return path
