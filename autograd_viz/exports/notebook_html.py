"""A notebook as one HTML file that opens offline, for a lesson handed out or projected with no
Jupyter and no network: `jupyter nbconvert --to html` loads the widget manager, RequireJS and
MathJax from CDNs, so off the network its players are empty boxes and its maths raw `$y$`. Here the
notebook runs once in a fresh kernel with `AUTOGRAD_VIZ_WIDGETS=0` (as `save_slides` does), so each
player and exercise gives its widget-free HTML, and nbconvert's JupyterLab template lays the cells
out with no CDN script, the package's KaTeX (`front/vendor/katex`) written into the file and local
images embedded; collapsed cells stay collapsed, and images from the web and Mermaid diagrams stay
links and text. From a shell: `python -m autograd_viz.exports.notebook_html
notebooks/03_backprop_by_hand.ipynb`.

>>> save_notebook_html("notebooks/03_backprop_by_hand.ipynb")  # doctest: +SKIP
PosixPath('notebooks/03_backprop_by_hand.html')
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from autograd_viz.core.errors import NotebookHTMLError
from autograd_viz.core.outpath import output_path, write_output
from autograd_viz.exports.slides import (
    WIDGET_VIEW,
    SlidesError,
    _katex_css,
    _title,
    _vendor,
    cell_timeout,
    execute_notebook,
    read_notebook,
)
from autograd_viz.view.palette import COLORS

__all__ = ["NotebookHTMLError", "notebook_html", "save_notebook_html"]

WIDGET_NOTE = (
    '<p class="avz-widget-note">An interactive widget is here in the notebook; '
    "open the notebook with a kernel to use it.</p>"
)


def save_notebook_html(
    notebook: str | Path, out: str | Path | None = None, *, timeout: float | None = 600
) -> Path:
    """Run `notebook` with widget-free output and write it as one offline HTML file.

    For a teacher who hands out or projects a lesson where there is no Jupyter and no
    network: the file opens from a USB stick, its players step without a kernel and its maths
    is typeset. `out` defaults to the notebook's name with `.html`, beside it; `timeout` is
    seconds per cell (None: no limit). Returns the path written.

    Each `animate()` gives the widget-free player (the standalone page in an
    `<iframe srcdoc>`), and each exercise and quiz its widget-free HTML, with an answer to
    open where the teacher's lock is open in the exporting kernel
    (`autograd_viz.course.teacher.unlocked_env`); a widget with no widget-free form is replaced by a
    line saying to open the notebook with a kernel. The page has no RequireJS,
    widget-manager script, MathJax or Mermaid loader. Code cells are shown; a cell whose input
    (or output) is collapsed in the notebook stays collapsed, behind a "▸ code hidden in the
    notebook" line that opens it. Images a markdown cell loads from the web show only online;
    a Mermaid diagram shows as its text; an escaped `\\$` is a dollar sign, as in JupyterLab.

    >>> save_notebook_html("notebooks/03_backprop_by_hand.ipynb", "lesson03.html")  # doctest: +SKIP
    PosixPath('lesson03.html')
    """
    if not isinstance(notebook, (str, os.PathLike)):
        raise NotebookHTMLError(
            "save_notebook_html needs the path of a notebook (.ipynb), "
            f"got {type(notebook).__name__}"
        )
    notebook = Path(notebook)
    timeout = cell_timeout(timeout, NotebookHTMLError)
    target = notebook.with_suffix(".html") if out is None else out
    target = output_path(target, "save_notebook_html", (".html", ".htm"))  # before it runs
    page = notebook_html(notebook, timeout=timeout)
    write_output(target, page)
    return target


def notebook_html(notebook: str | Path, *, timeout: float | None = 600) -> str:
    """The page `save_notebook_html` writes, as a string (runs the notebook first)."""
    if not isinstance(notebook, (str, os.PathLike)):
        raise NotebookHTMLError(
            f"notebook_html needs the path of a notebook (.ipynb), got {type(notebook).__name__}"
        )
    timeout = cell_timeout(timeout, NotebookHTMLError)
    path = Path(notebook)
    nb = _read(path)
    execute_notebook(nb, path, timeout, NotebookHTMLError, "exporting it to HTML")
    return _page(nb, _title(nb) or path.stem.replace("_", " "), path.resolve().parent)


# ---- reading and running ----------------------------------------------------------------


def _read(path: Path) -> Any:
    """The notebook at `path` (any notebook: slide metadata is not needed here)."""
    try:
        import nbclient  # noqa: F401  (checked here, used by execute_notebook)
        import nbconvert  # noqa: F401
        import nbformat
    except ImportError as error:  # the lab extra brings them (jupyterlab needs nbconvert)
        raise NotebookHTMLError(
            "exporting a notebook needs nbformat, nbclient and nbconvert: "
            "pip install 'autograd-viz[lab]'"
        ) from error
    return read_notebook(nbformat, path, NotebookHTMLError, "exported to HTML")


# ---- the page ----------------------------------------------------------------------------------

# nbconvert's JupyterLab page without the scripts that come from the web, collapsed cells
# kept collapsed, and KaTeX (written in by _page) where MathJax was.
_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_css -%}
<style>{{ resources.avz.katex_css }}</style>
<style>{{ resources.avz.css }}</style>
{%- endblock html_head_css -%}
{% block input_group -%}
{%- if cell.metadata.get('jupyter', {}).get('source_hidden') -%}
<details class="avz-collapsed avz-collapsed-input">
<summary>code hidden in the notebook (click to show)</summary>
{{ super() }}
</details>
{%- else -%}
{{ super() }}
{%- endif -%}
{%- endblock input_group %}
{% block output_group -%}
{%- if cell.metadata.get('jupyter', {}).get('outputs_hidden') -%}
<details class="avz-collapsed avz-collapsed-output">
<summary>output hidden in the notebook (click to show)</summary>
{{ super() }}
</details>
{%- else -%}
{{ super() }}
{%- endif -%}
{%- endblock output_group %}
{% block footer_js %}
<script>{{ resources.avz.katex_js }}</script>
<script>{{ resources.avz.auto_render_js }}</script>
<script>{{ resources.avz.typeset_js }}</script>
{% endblock footer_js %}
"""

# The delimiters JupyterLab's MathJax reads in markdown; code and text output stay as typed
# (auto-render skips pre and code by default).
_TYPESET_JS = """renderMathInElement(document.body,{delimiters:[
  {left:"$$",right:"$$",display:true},{left:"\\\\[",right:"\\\\]",display:true},
  {left:"$",right:"$",display:false},{left:"\\\\(",right:"\\\\)",display:false}],
  throwOnError:false,ignoredClasses:["avz-dollar"]});"""

_CSS = """.avz-collapsed>summary{cursor:pointer;color:var(--jp-ui-font-color1,INK);
  font:var(--jp-code-font-size,13px) var(--jp-code-font-family,monospace);padding:2px 0;
  margin-left:calc(var(--jp-cell-prompt-width,64px) + var(--jp-cell-padding,5px))}
.avz-collapsed[open]>summary{margin-bottom:4px}
.avz-widget-note{font-style:italic}""".replace("INK", COLORS["ink"])  # the palette's text colour


def _page(nb: Any, title: str, folder: Path) -> str:
    """`nb` (already run) as the offline page: nbconvert's lab layout, KaTeX written in."""
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    _replace_widgets(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _escaped_dollars(cell.source)
    nb.metadata.pop("widgets", None)  # saved widget state: only a widget manager reads it
    try:
        assets = {
            "katex_css": _katex_css(),
            "katex_js": _vendor("katex/katex.min.js"),
            "auto_render_js": _vendor("katex/auto-render.min.js"),
        }
    except SlidesError as error:  # the vendored copy is missing: a broken install
        raise NotebookHTMLError(str(error)) from None
    exporter = HTMLExporter(
        template_name="lab",
        template_file="avz_offline.html.j2",
        extra_loaders=[DictLoader({"avz_offline.html.j2": _TEMPLATE})],
        embed_images=True,  # markdown's local images, as data: URLs
        theme="light",
    )
    resources = {
        "metadata": {"name": title, "path": str(folder)},
        "avz": {**assets, "css": _CSS, "typeset_js": _TYPESET_JS},
    }
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    return body.replace(_DOLLAR, _DOLLAR_HTML)


# An escaped dollar (`\$5`) is a dollar sign in JupyterLab, but nbconvert's markdown writes it as
# a bare `$`, which KaTeX would pair with the next one. It goes through nbconvert as a private-use
# character and comes out in a span KaTeX skips. Code (fenced blocks, inline spans) stays as typed.
_CODE_OR_DOLLAR = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)|\\\$", re.S)
_DOLLAR = "\ue024"
_DOLLAR_HTML = "<span class='avz-dollar'>$</span>"


def _escaped_dollars(source: str) -> str:
    return _CODE_OR_DOLLAR.sub(lambda m: m.group(1) or _DOLLAR, source)


def _replace_widgets(nb: Any) -> None:
    """Outputs only a widget manager can show (none of this package's, with widgets off)
    become a line that says so, instead of a blank area or the widget's repr."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if WIDGET_VIEW in output.get("data", {}):
                output["data"] = {"text/html": WIDGET_NOTE}


def main(argv: list[str] | None = None) -> int:
    """`python -m autograd_viz.exports.notebook_html NOTEBOOK [OUT]`: write the offline HTML,
    print its path."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m autograd_viz.exports.notebook_html",
        description="Run a notebook (widgets off) and write it as one HTML file that opens "
        "offline: players step without a kernel, maths is typeset, nothing is fetched.",
    )
    parser.add_argument("notebook", help="the .ipynb to export")
    parser.add_argument("out", nargs="?", help="the .html to write (default: beside it)")
    parser.add_argument(
        "--timeout", type=float, default=600, help="seconds each cell may run (default 600)"
    )
    args = parser.parse_args(argv)
    try:
        print(save_notebook_html(args.notebook, args.out, timeout=args.timeout))
    except (ValueError, OSError) as error:  # ours, and output_path's
        parser.exit(1, f"error: {error}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
