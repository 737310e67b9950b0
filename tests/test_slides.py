"""`save_slides`: a notebook's slide metadata made into one offline reveal.js page
(`autograd_viz.exports.slides`); the browser test tests/browser/test_classroom_slides.py presents
it."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import nbformat
import pytest

from autograd_viz.exports.slides import VENDOR, SlidesError, save_slides, slides_html

ROOT = Path(__file__).resolve().parents[1]


def _notebook(path: Path, cells: list[tuple[str, str, str]], **meta: dict) -> Path:
    """Write a notebook of (cell type, slide type, source) cells."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    for kind, slide, source in cells:
        cell = (nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell)(
            source
        )
        cell.metadata["slideshow"] = {"slide_type": slide}
        cell.metadata.update(meta.get(source, {}))
        nb.cells.append(cell)
    nbformat.write(nb, path)
    return path


def test_cells_become_slides_subslides_fragments_and_notes(tmp_path):
    path = _notebook(tmp_path / "deck.ipynb", [
        ("md", "slide", "# Title: $z = x \\cdot y$"),
        ("code", "-", "print('shown with its code')"),
        ("md", "subslide", "## Below"),
        ("md", "fragment", "appears later"),
        ("md", "skip", "never shown"),
        ("md", "notes", "for the speaker"),
        ("code", "slide", "import sys; print('hidden code', file=sys.stderr); 6 * 7"),
    ], **{"import sys; print('hidden code', file=sys.stderr); 6 * 7":
          {"jupyter": {"source_hidden": True}}})  # fmt: skip
    page = slides_html(path)
    body = page.split('<div class="slides">', 1)[1]
    slides = re.findall(r"<section>(<section>.*?</section>)</section>", body, re.S)
    assert len(slides) == 2
    assert slides[0].count("<section>") == 2  # the slide and its subslide
    assert "shown with its code" in slides[0] and "print(" in re.sub("<[^>]+>", "", slides[0])
    assert '<div class="fragment"><div class="avz-md"><p>appears later</p>' in slides[0]
    assert '<aside class="notes"><div class="avz-md"><p>for the speaker</p>' in slides[0]
    assert "never shown" not in page
    assert "42" in slides[1] and "6 * 7" not in slides[1]  # the output, not the hidden code
    assert "hidden code" not in page  # stderr is for the notebook, not the projector
    assert "$z = x \\cdot y$" in page  # left for KaTeX, which the page carries
    assert "anchor-link" not in page


def test_the_deck_carries_everything_it_needs(tmp_path):
    path = _notebook(tmp_path / "one.ipynb", [("md", "slide", "# One")])
    out = save_slides(path)
    assert out == tmp_path / "one.slides.html"
    page = out.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "a deck loads nothing"
    assert "Reveal.initialize" in page and "renderMathInElement" in page
    assert "url(fonts/" not in page and "data:font/woff2;base64," in page


def test_a_notebook_without_slide_metadata_is_refused_with_what_to_do(tmp_path):
    path = _notebook(tmp_path / "plain.ipynb", [("md", "-", "# Plain")])
    with pytest.raises(SlidesError, match="Property Inspector"):
        save_slides(path)


def test_a_path_that_is_not_a_notebook_is_refused(tmp_path):
    with pytest.raises(SlidesError, match=r"missing\.ipynb does not exist"):
        save_slides(tmp_path / "missing.ipynb")
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(SlidesError, match="not a notebook"):
        save_slides(tmp_path / "notes.txt")


def test_a_notebook_that_fails_says_to_fix_run_all_first(tmp_path):
    path = _notebook(tmp_path / "broken.ipynb", [("code", "slide", "1 / 0")])
    with pytest.raises(SlidesError, match="Run All works"):
        save_slides(path)


def test_vendored_copies_are_the_pinned_versions():
    pins = runpy.run_path(str(ROOT / "scripts" / "vendor_slides.py"))["PINS"]
    for name, (version, integrity, folder, _files) in pins.items():
        stamp = (VENDOR / folder / "VERSION").read_text(encoding="utf-8").split()
        assert stamp == [name, version, integrity]
        assert (VENDOR / folder / "LICENSE").is_file()


def test_a_cell_that_runs_too_long_names_the_cell_and_the_timeout(tmp_path):
    # nbclient's own CellTimeoutError (a TimeoutError) came through raw
    cells = [("md", "slide", "# Slow"), ("code", "slide", "x = 1"), ("code", "slide", ""),
             ("code", "slide", "import time; time.sleep(60)")]  # fmt: skip
    path = _notebook(tmp_path / "slow.ipynb", cells)
    with pytest.raises(SlidesError) as info:
        save_slides(path, timeout=2)
    message = str(info.value)
    assert message.startswith("slow.ipynb: cell 4 (`import time; time.sleep(60)`) ran longer than")
    assert "timeout=2 seconds" in message and "pass a longer timeout=" in message


def test_an_error_message_has_no_terminal_colour_codes(tmp_path):
    path = _notebook(tmp_path / "broken.ipynb", [("code", "slide", "1 / 0")])
    with pytest.raises(SlidesError) as info:
        save_slides(path)
    assert "ZeroDivisionError" in str(info.value) and "\x1b[" not in str(info.value)


@pytest.mark.parametrize("timeout", [0, -5, float("nan"), True, "600", float("inf"), 1e308,
                                     -float("inf"), 10**400])  # fmt: skip
def test_a_timeout_no_cell_could_meet_is_refused_before_the_notebook_runs(tmp_path, timeout):
    path = _notebook(tmp_path / "deck.ipynb", [("code", "slide", "1 / 0")])  # would fail if run
    with pytest.raises(SlidesError, match=r"timeout is the seconds each cell may run, a number "
                                          r"> 0 \(or None for no limit\)"):  # fmt: skip
        save_slides(path, timeout=timeout)


def test_a_timeout_in_fractions_of_a_second_works(tmp_path):
    # nbclient's timeout trait takes only ints: 2.5 passed the kit's check, then TraitError
    path = _notebook(tmp_path / "deck.ipynb", [("md", "slide", "# Quick"),
                                               ("code", "slide", "print(6 * 7)")])  # fmt: skip
    assert "42" in save_slides(path, timeout=2.5).read_text(encoding="utf-8")


def test_an_upper_case_ipynb_suffix_is_a_notebook(tmp_path):
    path = _notebook(tmp_path / "Deck.IPYNB", [("md", "slide", "# Shout")])
    assert "Shout" in save_slides(path, tmp_path / "deck.html").read_text()


@pytest.mark.parametrize(
    ("content", "what"),
    [("hello", "is not JSON"), ("{}", "is not a notebook"), ("[1]", "is not a notebook")],
)
def test_a_file_that_is_not_a_notebook_inside_is_a_slides_error(tmp_path, content, what):
    # nbformat's NotJSONError, a jsonschema ValidationError or an AttributeError came through
    path = tmp_path / "fake.ipynb"
    path.write_text(content)
    expected = rf"^fake\.ipynb {what}, so it cannot be made into slides .*saved by Jupyter"
    with pytest.raises(SlidesError, match=expected):
        save_slides(path)
