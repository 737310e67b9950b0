"""A notebook's slides as one offline reveal.js page whose players need no kernel, because RISE in
JupyterLab 4 (jupyterlab-rise 0.43) cannot load ipywidgets 8's widget manager and shows every
player and exercise as a line of text. The notebook runs once in a fresh kernel with
`AUTOGRAD_VIZ_WIDGETS=0`, so each player and exercise gives its widget-free form; cells become
slides by the Slide Type RISE reads; reveal.js, KaTeX and their fonts come from pinned copies in
the package (`scripts/vendor_slides.py`), written into one file that presents from a USB stick with
no network. `static/deck.js` makes every slide fit the screen (1280×720, scaled to the projector)
and lets a presenter's remote step each player to its last step before the deck moves on.

>>> save_slides("notebooks/03_backprop_by_hand.ipynb")  # doctest: +SKIP
PosixPath('notebooks/03_backprop_by_hand.slides.html')
"""

from __future__ import annotations

import base64
import html
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograd_viz.core._checks import is_number
from autograd_viz.core.errors import SlidesError
from autograd_viz.core.outpath import output_path, write_output
from autograd_viz.front.static import static_text

__all__ = ["SlidesError", "save_slides", "slides_html"]

VENDOR = Path(__file__).parent.parent / "front" / "vendor"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_SLIDE_KINDS = {"slide", "subslide", "fragment", "skip", "notes", "-"}


@dataclass
class _Slide:
    parts: list[list[str]] = field(default_factory=lambda: [[]])  # subslides, each HTML bits
    notes: list[str] = field(default_factory=list)


def save_slides(
    notebook: str | Path, path: str | Path | None = None, *, timeout: float = 600
) -> Path:
    """Run `notebook` with widget-free output and write its slides to one HTML file.

    `path` defaults to the notebook's name with `.slides.html`, beside it. `timeout` is
    seconds per cell. Returns the path written.

    Each exercise shows its question with an answer to reveal where the teacher's lock is
    open in the kernel that exports (`autograd_viz.course.teacher.unlocked_env`); elsewhere the
    answer is locked. Slide Types are those RISE reads (slide, subslide, fragment, skip,
    notes); code cells whose input is hidden stay hidden. reveal.js lays each slide out at
    1280×720 and scales it to the projector (×0.96 at 1280×720, ×1.44 at 1920×1080), and
    `static/deck.js` measures every slide before the deck starts, with its hints and answers
    open: drawings shrink a little where that is enough, else what does not fit continues on
    a new slide below, under the same title and "(continued)". A player gets the height left
    on its slide (at least 400 px; text after it moves on when it would leave less than 560)
    and fills it. PageDown or → steps the player on the slide to its last step, then moves on
    (fragments, then the next slide); PageUp or ← the reverse, with no click needed and none
    trapping the keys; Esc shows the slide overview.
    """
    if not isinstance(notebook, (str, os.PathLike)):
        raise SlidesError(
            f"save_slides needs the path of a notebook (.ipynb), got {type(notebook).__name__}"
        )
    notebook = Path(notebook)
    timeout = cell_timeout(timeout)
    out = notebook.with_suffix(".slides.html") if path is None else path
    out = output_path(out, "save_slides", (".html", ".htm"))  # before the notebook runs
    write_output(out, slides_html(notebook, timeout=timeout))
    return out


def slides_html(notebook: str | Path, *, timeout: float = 600) -> str:
    """The reveal.js page `save_slides` writes, as a string."""
    timeout = cell_timeout(timeout)
    nb = _read(Path(notebook))
    execute_notebook(nb, Path(notebook), timeout, SlidesError, "making its slides")
    title = _title(nb) or Path(notebook).stem.replace("_", " ")
    return _page(title, _sections(nb))


# ---- reading and running ----------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # a terminal's colour codes, in a traceback


MAX_CELL_TIMEOUT = 7 * 24 * 3600  # a week: beyond it, None (no limit) says what is meant


def cell_timeout(timeout: object, error: type[Exception] = SlidesError) -> int | None:
    """Seconds each cell may run as nbclient takes them: a whole number (2.5 is rounded up
    to 3: nbclient counts whole seconds), or None for no limit.

    Why: nbclient's 0 would fail every cell at once, its `timeout` trait takes only ints
    (2.5 raised a TraitError), and 1e308 or inf cannot become one; each is `error` here,
    before the notebook runs.

    >>> cell_timeout(2.5), cell_timeout(None), cell_timeout(600)
    (3, None, 600)
    """
    if timeout is None:
        return None
    if not is_number(timeout) or not 0 < timeout <= MAX_CELL_TIMEOUT:  # nan, inf fail too
        raise error(
            f"timeout is the seconds each cell may run, a number > 0 (or None for no limit) "
            f"and at most {MAX_CELL_TIMEOUT} (a week); got {timeout!r}. E.g. timeout=600 "
            "(2.5 works too: it is rounded up to whole seconds)"
        )
    return math.ceil(timeout)


def read_notebook(nbformat: Any, path: Path, error: type[Exception], made: str) -> Any:
    """The notebook at `path`, or `error` saying what it is instead (missing, not a .ipynb, not
    JSON, not a notebook) and that it cannot be `made` ("made into slides") from it."""
    suffix = path.suffix.lower()  # Windows and macOS users may have saved NOTES.IPYNB
    if suffix == ".ipynb" and not path.exists():
        raise error(f"{path} does not exist; pass the path of a notebook that does")
    if suffix != ".ipynb" or not path.is_file():
        raise error(f"{path} is not a notebook file (.ipynb); pass the notebook's path")
    try:
        return nbformat.read(path, as_version=4)
    except OSError:
        raise
    except Exception as err:  # not JSON, or JSON that is no notebook: nbformat's many kinds
        what = "is not JSON" if type(err).__name__ == "NotJSONError" else "is not a notebook"
        raise error(
            f"{path.name} {what}, so it cannot be {made} ({type(err).__name__}: "
            f"{str(err)[:200]}); pass a notebook saved by Jupyter"
        ) from None


def _read(path: Path) -> Any:
    try:
        import nbformat
    except ImportError as error:  # the lab extra brings it
        raise SlidesError(
            "slides need nbformat and nbclient: pip install 'autograd-viz[lab]'"
        ) from error
    nb = read_notebook(nbformat, path, SlidesError, "made into slides")
    kinds = [_kind(cell) for cell in nb.cells]
    if not {"slide", "subslide"} & set(kinds):
        raise SlidesError(
            f"{path.name} has no slide metadata. In JupyterLab open the Property Inspector "
            "(the gear icon, right) and set Slide Type to 'Slide' on the cells that start a slide."
        )
    unknown = sorted(set(kinds) - _SLIDE_KINDS)
    if unknown:
        raise SlidesError(f"{path.name}: unknown slide types {unknown}; use {sorted(_SLIDE_KINDS)}")
    return nb


def execute_notebook(
    nb: Any, path: Path, timeout: float | None, error: type[Exception], doing: str
) -> None:
    """Run every cell in a fresh kernel in the notebook's folder, widgets off; a cell that
    fails or runs too long is `error`, saying it happened while `doing` ("making its slides")."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    from autograd_viz.course.teacher import unlocked_env
    from autograd_viz.front.inline import WIDGETS_ENV

    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3",
        resources={"metadata": {"path": str(path.resolve().parent)}},
    )  # fmt: skip
    try:
        client.execute(env={**os.environ, WIDGETS_ENV: "0", **unlocked_env()})
    except CellTimeoutError:
        raise error(
            f"{path.name}: {_timed_out(nb)} ran longer than timeout={timeout} seconds while "
            f"{doing}; pass a longer timeout= (seconds per cell, None for no limit), "
            "or make the cell quicker"
        ) from None
    except CellExecutionError as err:
        raise error(
            f"{path.name} stopped with an error while {doing}; fix the notebook "
            f"so that Run All works, then try again:\n{_ANSI.sub('', str(err))}"
        ) from err


def _timed_out(nb: Any) -> str:
    """The cell nbclient was running when time ran out, as "cell 4 (`first line`)": the last
    code cell the kernel has numbered (it numbers a cell as it starts running it)."""
    started = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
               and c.get("execution_count") is not None]  # fmt: skip
    if not started:
        return "a cell"
    first = nb.cells[started[-1]].source.strip().splitlines()[0][:60]
    return f"cell {started[-1] + 1} (`{first}`)"


def _kind(cell: Any) -> str:
    return cell.metadata.get("slideshow", {}).get("slide_type", "-") or "-"


def _title(nb: Any) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#\s+(.+)$", cell.source, re.M)
            if match:
                return match.group(1).strip()
    return ""


# ---- cells to sections ---------------------------------------------------------------------


def _sections(nb: Any) -> str:
    slides: list[_Slide] = []
    for cell in nb.cells:
        kind = _kind(cell)
        if kind == "skip":
            continue
        body = _cell_html(cell)
        if kind == "notes":
            (slides[-1] if slides else _new(slides)).notes.append(body)
            continue
        if kind == "slide" or not slides:
            _new(slides)
        elif kind == "subslide":
            slides[-1].parts.append([])
        if kind == "fragment":
            body = f'<div class="fragment">{body}</div>'
        if body:
            slides[-1].parts[-1].append(body)
    out = []
    for slide in slides:
        notes = "".join(slide.notes)
        aside = f'<aside class="notes">{notes}</aside>' if notes else ""
        inner = "".join(f"<section>{''.join(part)}{aside}</section>" for part in slide.parts)
        out.append(f"<section>{inner}</section>")
    return "\n".join(out)


def _new(slides: list[_Slide]) -> _Slide:
    slides.append(_Slide())
    return slides[-1]


def _cell_html(cell: Any) -> str:
    if cell.cell_type == "markdown":
        return f'<div class="avz-md">{_markdown(cell.source)}</div>'
    if cell.cell_type != "code":
        return ""
    jupyter = cell.metadata.get("jupyter", {})
    parts = []
    if cell.source.strip() and not jupyter.get("source_hidden"):
        parts.append(_code(cell.source))
    if not jupyter.get("outputs_hidden"):
        parts += [_output(output) for output in cell.get("outputs", [])]
    return "".join(p for p in parts if p)


def _markdown(source: str) -> str:
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    # the heading anchors (¶) are for a long page, not a slide
    return _ANCHOR.sub("", markdown2html_mistune(source))


_ANCHOR = re.compile(r'<a class="anchor-link"[^>]*>[^<]*</a>')


def _code(source: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    formatter = HtmlFormatter(noclasses=True, nowrap=True, style="default")
    return f'<pre class="avz-code"><code>{highlight(source, PythonLexer(), formatter)}</code></pre>'


def _output(output: Any) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        if output.get("name") == "stderr":
            return ""  # warnings belong in the notebook, not on the projector
        return f'<pre class="avz-out">{html.escape(output.get("text", ""))}</pre>'
    if kind == "error":
        text = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(output.get("traceback", [])))
        return f'<pre class="avz-out avz-error">{html.escape(text)}</pre>'
    data = output.get("data", {})
    if "text/html" in data:
        return f'<div class="avz-html">{_text(data["text/html"])}</div>'
    if "image/svg+xml" in data:
        return f'<div class="avz-svg">{_text(data["image/svg+xml"])}</div>'
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            src = f"data:{mime};base64,{_text(data[mime]).strip()}"
            return f'<img class="avz-img" alt="" src="{src}">'
    if "text/markdown" in data:
        return f'<div class="avz-md">{_markdown(_text(data["text/markdown"]))}</div>'
    if "text/latex" in data:
        return f'<div class="avz-md">{html.escape(_text(data["text/latex"]))}</div>'
    if WIDGET_VIEW in data:
        # A widget this package did not replace: say what it is instead of its repr.
        return (
            '<p class="avz-widget-note">An interactive widget is here in the notebook; '
            "open the notebook with a kernel to use it.</p>"
        )
    if "text/plain" in data:
        return f'<pre class="avz-out">{html.escape(_text(data["text/plain"]))}</pre>'
    return ""


def _text(value: str | list[str]) -> str:
    return "".join(value) if isinstance(value, list) else value


# ---- the page ----------------------------------------------------------------------------------


def _vendor(name: str) -> str:
    path = VENDOR / name
    if not path.is_file():
        raise SlidesError(
            f"{path} is missing from the installed package; reinstall autograd-viz "
            "(maintainers: python scripts/vendor_slides.py)"
        )
    return path.read_text(encoding="utf-8")


def _katex_css() -> str:
    """KaTeX's stylesheet with its woff2 fonts written in as data: URLs (no other formats)."""

    def font(match: re.Match) -> str:
        data = base64.b64encode((VENDOR / "katex" / "fonts" / match.group(1)).read_bytes())
        return f'src:url(data:font/woff2;base64,{data.decode()}) format("woff2")'

    css = _vendor("katex/katex.min.css")
    return re.sub(r"src:url\(fonts/([\w-]+\.woff2)\)[^;}]*", font, css)


_DECK_CSS = static_text("deck.css")  # package data: front/static/deck.css, deck.js
_DECK_JS = static_text("deck.js")


def _page(title: str, sections: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{_vendor("reveal/reveal.css")}</style>
<style>{_katex_css()}</style>
<style>{_DECK_CSS}</style>
</head><body>
<div class="reveal"><div class="slides">
{sections}
</div></div>
<script>{_vendor("reveal/reveal.js")}</script>
<script>{_vendor("katex/katex.min.js")}</script>
<script>{_vendor("katex/auto-render.min.js")}</script>
<script>{_DECK_JS}</script>
</body></html>
"""


def main(argv: list[str] | None = None) -> int:
    """`python -m autograd_viz.exports.slides NOTEBOOK [OUT]`: write the slides, print the path."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("notebook")
    parser.add_argument("out", nargs="?")
    args = parser.parse_args(argv)
    try:
        print(save_slides(args.notebook, args.out))
    except SlidesError as error:
        parser.exit(1, f"error: {error}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
