"""The standalone page: one HTML file that steps through the animation with its own
controls (Play/Pause, Prev/Next, a step slider, speed; keys ← → PageUp PageDown space Home
End) and the derivation so far, one line per step as in the blog, the current one bold.

It holds the SVG once plus, per frame, only what changes (class attributes and cell
texts), and the package's `viz/static/page.js` applies them (styled by `page.css`): no
CDN, no library, no kernel.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from autograd_viz.viz.compose import Source, frames_of
from autograd_viz.viz.outpath import output_path
from autograd_viz.viz.static import static_text
from autograd_viz.viz.svg import MIN_FIT_TEXT, fitted_text_px, width_px

__all__ = ["PAGE_WIDTH", "save_html", "standalone_html"]


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
    if not isinstance(projector, bool):  # "no" would be true: projector mode, unasked
        raise ValueError(f"projector must be True or False, got {projector!r}")
    frames = frames_of(source, phase, draw_options)
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
        "captions": [frames.caption(k).text for k in range(len(frames))],
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
<body{' class="avz-projector"' if projector else ""}><main class="avz-player{wide_class}">
<h1>{html.escape(title)}</h1>
<div class="avz-graph">{frames.frame_svg(0)}</div>
<p class="avz-caption" id="avz-caption">{html.escape(frames.caption(0).text)}</p>
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
    path = output_path(path, "save_html", (".html", ".htm"))  # before the work
    path.write_text(standalone_html(source, **options), encoding="utf-8")
    return path
