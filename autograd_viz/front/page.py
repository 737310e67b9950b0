"""The standalone page: one HTML file that plays the animation with no kernel and no network —
the one player module (`front/static/player.js`) on a page of its own, with the drawing once
and a table row per step (`autograd_viz.view.steptable`), its CSS and the vendored KaTeX, its
controls and keys (← → PageUp PageDown Space Home End) working anywhere on the page; the
inline player and the slide deck show it in a frame.
"""

from __future__ import annotations

import base64
import functools
import gzip
import html
import json
from pathlib import Path
from typing import Any

from autograd_viz.core.outpath import output_path, write_output
from autograd_viz.front.static import EQUATION_FONTS, katex_css, katex_js, module_text, static_text
from autograd_viz.view.frames import Source, frames_of
from autograd_viz.view.steptable import payload, step_table

__all__ = ["PAGE_HISTORY", "page_from_table", "save_html", "standalone_html"]

PACKED_FONTS = ("Main-Regular", "Math-Italic")  # a packed page's faces: the rest fall back
PAGE_HISTORY = 6  # earlier lines of the derivation the page lists above the current one


def standalone_html(
    source: Source,
    *,
    phase: str | None = None,
    title: str = "Backpropagation, step by step",
    interval: float = 1.2,
    projector: bool = False,
    katex: bool = True,
    **draw_options: Any,
) -> str:
    """A self-contained HTML page that steps through the animation with its own controls.

    `interval`: seconds per step when playing (the page also offers slow/fast).
    `projector`: larger type for a classroom projector (every text 20 px or more).
    `katex`: write KaTeX into the page to typeset the equations (~0.4 MB); without it the
    page uses the KaTeX of the page around it (a deck's frame) or shows them as text.

    >>> from autograd_viz import Value
    >>> from autograd_viz.open.snapshot import snapshot
    >>> x = Value(3.0, label="x")
    >>> page = standalone_html(snapshot(x * x))
    >>> import re
    >>> "<script" in page and not re.search(r"(src|href)=.?(https?:)?//", page)
    True
    """
    if not isinstance(projector, bool):  # "no" would be true: projector mode, unasked
        raise ValueError(f"projector must be True or False, got {projector!r}")
    frames = frames_of(source, phase, draw_options)
    if not (isinstance(interval, (int, float)) and 0.05 <= interval <= 60):
        raise ValueError(f"interval must be seconds between 0.05 and 60, got {interval!r}")
    table = step_table(
        frames, history=PAGE_HISTORY, interval=round(interval * 1000), projector=projector,
        title=title,
    )  # fmt: skip
    return page_from_table(table, title=title, projector=projector, katex=katex)


def page_from_table(
    table: dict[str, Any], *, title: str, projector: bool = False, katex: bool | str = True
) -> str:
    """The page of one step table (`autograd_viz.view.steptable.step_table`): the player
    module mounts it, with page-wide keys, and offers `window.avzPlayer` to a deck.
    `katex`: True writes KaTeX in as it is, "packed" gzip'd (~0.1 MB, unpacked by the
    browser), False leaves it out."""
    maths = unpack = ""
    if katex == "packed":
        maths = f'<script type="application/octet-stream" id="avz-katex">{packed_katex()}</script>'
        unpack = (
            'unpackKatex(document.getElementById("avz-katex").textContent)'
            ".then(() => window.avzPlayer.typeset());"
        )
    elif katex:
        maths = f"<style>{katex_css(EQUATION_FONTS)}</style><script>{katex_js()}</script>"
    mount = (
        'mount(document.getElementById("avz-root"), '
        'JSON.parse(document.getElementById("avz-data").textContent), {pageKeys: true});'
        'window.avzPlayer = document.querySelector(".avz-player").avzPlayer;' + unpack
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{static_text("player.css")}</style><style>{static_text("page.css")}</style>{maths}</head>
<body{' class="avz-projector"' if projector else ""}><main class="avz-page">
<h1>{html.escape(title)}</h1>
<div id="avz-root"></div>
<p class="avz-help">Keys: &#x2190; &#x2192; or PageUp PageDown step,
space play/pause, Home/End first/last.</p>
</main>
<script type="application/json" id="avz-data">{payload(table)}</script>
<script type="module">{module_text()}
{mount}</script>
</body></html>
"""


@functools.cache
def packed_katex() -> str:
    """KaTeX's script and stylesheet (with the equations' main faces) as base64 of gzip'd
    JSON, for `page_from_table(katex="packed")`; the same bytes on every run."""
    text = json.dumps({"js": katex_js(), "css": katex_css(PACKED_FONTS)}, separators=(",", ":"))
    return base64.b64encode(gzip.compress(text.encode("utf-8"), 9, mtime=0)).decode("ascii")


def save_html(source: Source, path: str | Path, **options: Any) -> Path:
    """Write `standalone_html(source, **options)` to `path` and return the path.

    >>> import tempfile, os
    >>> from autograd_viz import Value
    >>> from autograd_viz.open.snapshot import snapshot
    >>> x = Value(3.0, label="x")
    >>> out = save_html(snapshot(x * x), os.path.join(tempfile.mkdtemp(), "square.html"))
    >>> out.suffix
    '.html'
    """
    path = output_path(path, "save_html", (".html", ".htm"))  # before the work
    write_output(path, standalone_html(source, **options))
    return path
