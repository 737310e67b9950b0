"""`save_notebook_html`: a notebook run with widgets off and written as one offline HTML file
(`autograd_viz.exports.notebook_html`); tests/browser/test_html_export_browser.py opens notebook
03's export from `file://` with the network refused. These pin what the file holds and the errors.
"""

from __future__ import annotations

import base64
import re
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbconvert import HTMLExporter

from autograd_viz.export import NotebookHTMLError, save_notebook_html
from autograd_viz.exports import notebook_html as module
from autograd_viz.exports.notebook_html import WIDGET_NOTE, main, notebook_html

# a 1×1 PNG, for a markdown cell's local image
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
# what a JupyterLab save leaves in a notebook that had widgets on show
SAVED_WIDGET_STATE = {
    "application/vnd.jupyter.widget-state+json": {"state": {}, "version_major": 2,
                                                   "version_minor": 0},
}  # fmt: skip


def _notebook(path: Path, cells: list[tuple[str, str]], **metadata: dict) -> Path:
    """Write a notebook of (cell type, source) cells; `metadata[source]` goes on that cell."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    for kind, source in cells:
        cell = (nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell)(
            source
        )
        cell.metadata.update(metadata.get(source, {}))
        nb.cells.append(cell)
    nbformat.write(nb, path)
    return path


LESSON_CELLS = [
    ("md", "# A lesson on $z = x \\cdot y$\n\n![pixel](pixel.png)"),
    ("code", "from autograd_viz import Value\nimport ipywidgets\n"
             "x, y = Value(2.0, label='x'), Value(3.0, label='y')\nz = x * y"),
    ("code", "z.animate()"),
    ("code", "ipywidgets.IntSlider(3)"),
    ("code", "print('hidden' + ' code')"),
    ("code", "print('hidden' + ' output')"),
    ("md", "It costs \\$5 or \\$10 (`\\$` in code stays)."),
]  # fmt: skip


@pytest.fixture(scope="module")
def lesson(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A small lesson exported once through the command a teacher types: (file, page, stdout)."""
    folder = tmp_path_factory.mktemp("lesson")
    (folder / "pixel.png").write_bytes(PIXEL)
    path = _notebook(
        folder / "lesson.ipynb",
        LESSON_CELLS,
        **{
            "print('hidden' + ' code')": {"jupyter": {"source_hidden": True}},
            "print('hidden' + ' output')": {"jupyter": {"outputs_hidden": True}},
        },
    )
    nb = nbformat.read(path, as_version=4)
    nb.metadata["widgets"] = SAVED_WIDGET_STATE
    nbformat.write(nb, path)
    import contextlib
    import io

    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert main([str(path)]) == 0
    out = folder / "lesson.html"
    return out, out.read_text(encoding="utf-8"), stdout.getvalue()


# ---- what the file holds -----------------------------------------------------------------


def test_the_command_writes_the_html_beside_the_notebook_and_prints_its_path(lesson):
    out, page, stdout = lesson
    assert stdout.strip() == str(out)
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>A lesson on $z = x \\cdot y$</title>" in page  # the first heading


def test_the_page_loads_nothing_from_elsewhere(lesson):
    _, page, _ = lesson
    assert not re.search(r"<script[^>]*\bsrc=", page)
    assert not re.search(r"<link[^>]*stylesheet", page)
    for web in ("unpkg.com", "cdnjs.cloudflare.com", "cdn.jsdelivr.net", "require.js",
                "MathJax", "mermaid.esm", "widget-state+json"):  # fmt: skip
        assert web not in page, f"{web} is in the offline page"


def test_the_maths_is_left_for_the_vendored_katex_written_into_the_page(lesson):
    _, page, _ = lesson
    assert "renderMathInElement(document.body" in page
    assert "katex" in page and page.count("data:font/woff2;base64,") >= 20
    assert "$z = x \\cdot y$" in page  # the markdown's maths as typed, for KaTeX to typeset


def test_players_are_the_widget_free_player_and_other_widgets_say_what_they_are(lesson):
    _, page, _ = lesson
    assert page.count('<iframe class="avz-inline"') == 1  # z.animate(), widgets off
    assert "application/vnd.jupyter.widget-view+json" not in page
    assert page.count(WIDGET_NOTE) == 1  # the IntSlider: no kernel-free form
    assert "IntSlider(value=3)" not in page  # its repr is not shown as text


def test_code_is_shown_and_collapsed_cells_stay_collapsed(lesson):
    _, page, _ = lesson
    text = re.sub(r"<[^>]+>", "", page)  # highlighted code, as read
    assert "z.animate()" in text and "ipywidgets.IntSlider(3)" in text  # code cells are shown
    hidden_code = page.split('class="avz-collapsed avz-collapsed-input"')
    inside = re.sub(r"<[^>]+>", "", hidden_code[1].split("</details>")[0])
    assert len(hidden_code) == 2 and "print('hidden' + ' code')" in inside
    assert "<summary>code hidden in the notebook (click to show)</summary>" in page
    hidden_output = page.split('class="avz-collapsed avz-collapsed-output"')
    assert len(hidden_output) == 2 and "hidden output" in hidden_output[1].split("</details>")[0]
    assert "hidden code" in page  # its output stays on show


def test_an_escaped_dollar_stays_a_dollar_sign_and_is_no_maths(lesson):
    _, page, _ = lesson
    dollar = "<span class='avz-dollar'>$</span>"
    assert f"It costs {dollar}5 or {dollar}10 (<code>\\$</code> in code stays)." in page
    assert 'ignoredClasses:["avz-dollar"]' in page  # KaTeX skips it


def test_a_markdown_cells_local_image_is_written_into_the_page(lesson):
    _, page, _ = lesson
    assert 'src="data:image/png;base64,' in page and 'src="pixel.png"' not in page


def test_plain_nbconvert_asks_the_internet_for_what_this_export_writes_in():
    """Why the module exists (docs/classroom.md says so): nbconvert's own page of a notebook
    with saved widget state loads RequireJS, MathJax and the widget manager from CDNs."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("$y$")])
    nb.metadata["widgets"] = SAVED_WIDGET_STATE
    body, _ = HTMLExporter().from_notebook_node(nb)
    assert "cdnjs.cloudflare.com/ajax/libs/require.js" in body
    assert "cdnjs.cloudflare.com/ajax/libs/mathjax" in body
    assert "unpkg.com/@jupyter-widgets/html-manager" in body


# ---- errors -----------------------------------------------------------------------------------


def test_a_missing_notebook_says_it_does_not_exist(tmp_path):
    with pytest.raises(NotebookHTMLError, match=r"nope\.ipynb does not exist; pass the path"):
        save_notebook_html(tmp_path / "nope.ipynb")


@pytest.mark.parametrize("name", ["notes.txt", "folder.ipynb"])
def test_a_path_that_is_not_a_notebook_file_is_refused(tmp_path, name):
    path = tmp_path / name
    path.mkdir() if name.endswith(".ipynb") else path.write_text("hi")
    with pytest.raises(NotebookHTMLError, match=r"is not a notebook file \(\.ipynb\); pass"):
        save_notebook_html(path, tmp_path / "out.html")


@pytest.mark.parametrize(
    ("content", "what"),
    [("hello", "is not JSON"), ("{}", "is not a notebook"), ("[1]", "is not a notebook")],
)
def test_a_file_that_is_not_a_notebook_inside_is_refused(tmp_path, content, what):
    path = tmp_path / "fake.ipynb"
    path.write_text(content)
    expected = rf"^fake\.ipynb {what}, so it cannot be exported to HTML .*saved by Jupyter"
    with pytest.raises(NotebookHTMLError, match=expected):
        save_notebook_html(path)


@pytest.mark.parametrize("notebook", [3, None, ["a.ipynb"]])
def test_something_that_is_not_a_path_is_refused(notebook):
    with pytest.raises(NotebookHTMLError, match=r"needs the path of a notebook \(\.ipynb\), got"):
        save_notebook_html(notebook)
    with pytest.raises(NotebookHTMLError, match=r"needs the path of a notebook"):
        notebook_html(notebook)


def test_a_notebook_that_fails_names_the_error_and_says_to_fix_run_all(tmp_path):
    path = _notebook(tmp_path / "broken.ipynb", [("code", "x = 1"), ("code", "1 / x0")])
    with pytest.raises(NotebookHTMLError) as info:
        save_notebook_html(path)
    message = str(info.value)
    assert message.startswith("broken.ipynb stopped with an error while exporting it to HTML;")
    assert "so that Run All works" in message and "NameError" in message
    assert "\x1b[" not in message  # no terminal colour codes
    assert not (tmp_path / "broken.html").exists()


def test_a_cell_that_runs_too_long_names_the_cell_and_the_timeout(tmp_path):
    cells = [("md", "# Slow"), ("code", "x = 1"), ("code", "import time; time.sleep(60)")]
    path = _notebook(tmp_path / "slow.ipynb", cells)
    with pytest.raises(NotebookHTMLError) as info:
        save_notebook_html(path, timeout=2)
    message = str(info.value)
    assert message.startswith("slow.ipynb: cell 3 (`import time; time.sleep(60)`) ran longer than")
    assert "timeout=2 seconds while exporting it to HTML" in message
    assert "pass a longer timeout=" in message


@pytest.mark.parametrize("timeout", [0, -5, float("nan"), True, "600", float("inf"), 1e308,
                                     10**400])  # fmt: skip
def test_a_timeout_no_cell_could_meet_is_refused_before_the_notebook_runs(tmp_path, timeout):
    path = _notebook(tmp_path / "lesson.ipynb", [("code", "1 / 0")])  # would fail if run
    with pytest.raises(NotebookHTMLError, match=r"timeout is the seconds each cell may run"):
        save_notebook_html(path, timeout=timeout)


def test_where_it_cannot_write_is_said_before_the_notebook_runs(tmp_path):
    path = _notebook(tmp_path / "lesson.ipynb", [("code", "1 / 0")])  # would fail if run
    with pytest.raises(ValueError, match=r"save_notebook_html needs a path ending in \.html"):
        save_notebook_html(path, tmp_path / "lesson.pdf")
    with pytest.raises(FileNotFoundError, match="does not exist; create it first"):
        save_notebook_html(path, tmp_path / "no" / "lesson.html")


def test_a_timeout_in_fractions_of_a_second_works_and_on_the_command_line(tmp_path, capsys):
    # nbclient's timeout trait takes only ints: 2.5 and --timeout 0.5 raised a TraitError
    path = _notebook(tmp_path / "lesson.ipynb", [("code", "print(6 * 7)")])
    assert "42" in save_notebook_html(path, timeout=2.5).read_text(encoding="utf-8")
    assert main([str(path), str(tmp_path / "cli.html"), "--timeout", "0.5"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "cli.html")
    assert "42" in (tmp_path / "cli.html").read_text(encoding="utf-8")


def test_a_folder_it_cannot_write_in_is_said_before_the_notebook_runs(tmp_path, monkeypatch):
    path = _notebook(tmp_path / "lesson.ipynb", [("code", "1 / 0")])  # would fail if run
    locked = tmp_path / "locked"
    locked.mkdir()
    real = tempfile.mkstemp

    def refused(*args, dir=None, **kwargs):  # what a read-only folder does, even for root
        if dir is not None and Path(dir) == locked:
            raise PermissionError(13, "Permission denied")
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    with pytest.raises(PermissionError, match=r"cannot write in the folder .*locked"):
        save_notebook_html(path, locked / "lesson.html")


def test_the_command_prints_the_error_and_exits_1(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main([str(tmp_path / "nope.ipynb")])
    assert info.value.code == 1
    assert capsys.readouterr().err == f"error: {tmp_path / 'nope.ipynb'} does not exist; " \
        "pass the path of a notebook that does\n"  # fmt: skip


def test_without_nbconvert_it_says_what_to_install(tmp_path, monkeypatch):
    path = _notebook(tmp_path / "lesson.ipynb", [("md", "# hi")])
    monkeypatch.setitem(sys.modules, "nbconvert", None)  # import nbconvert -> ImportError
    with pytest.raises(NotebookHTMLError, match=r"pip install 'autograd-viz\[lab\]'"):
        save_notebook_html(path)


def test_a_missing_vendored_katex_says_to_reinstall(tmp_path, monkeypatch):
    import autograd_viz.exports.slides as slides

    monkeypatch.setattr(slides, "VENDOR", tmp_path)  # the package data, gone
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("$y$")])
    with pytest.raises(NotebookHTMLError, match=r"missing from the installed package; reinstall"):
        module._page(nb, "t", tmp_path)
