"""The course's navigation says what the notebooks are: 00's reading order and slide list, the
README's lesson table, the glossary, and the teacher's guide's plans and browser notes.

Why: these pages are what a learner and a teacher read first. They went stale as notebooks
11-14 were added (00's table stopped at 10, its slide list named six notebooks of thirteen, the
guide's browser row named three of the five notebooks that fetch matplotlib), and the course
named one idea four ways (local derivative, local gradient, local partial, local rate).
Everything here is derived from the notebooks themselves, so a new notebook is checked too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
# The glossary sits beside the notebooks: JupyterLab opens a notebook's links from there, the
# browser edition's site is built from notebooks/ (docs/ is not shipped), and GitHub resolves them
# too. docs/glossary.md only points to it.
GLOSSARY = NOTEBOOKS / "glossary.md"
DOCS_GLOSSARY = ROOT / "docs" / "glossary.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")
GUIDE = ROOT / "docs" / "teachers_guide.md"
README = ROOT / "README.md"
# Files that must use the course's one term, "local derivative": every lesson and the pages.
ONE_TERM_FILES = [
    *LESSONS,
    README,
    GUIDE,
    GLOSSARY,
    ROOT / "scripts" / "make_worksheets.py",
]
OTHER_NAMES = re.compile(r"local (gradient|partial|rate)s?\b", re.I)


def _cells(path: Path, kind: str) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == kind]


def _number(path: Path) -> str:
    return path.name[:2]


def _with_slides() -> set[str]:
    found = set()
    for path in LESSONS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        if any("slideshow" in c.get("metadata", {}) for c in nb["cells"]):
            found.add(_number(path))
    return found


def _named_range(text: str) -> set[str]:
    """'Notebooks 02 to 14 carry slide metadata' (or 02–14) -> {'02', ..., '14'}."""
    match = re.search(r"Notebooks (\d\d)\s*(?:to|–)\s*(\d\d) carry slide metadata", text)
    assert match, "no sentence 'Notebooks NN to MM carry slide metadata'"
    first, last = int(match.group(1)), int(match.group(2))
    return {f"{n:02}" for n in range(first, last + 1)}


def _importing(pattern: str) -> set[str]:
    """The lessons whose code imports a module matching `pattern`."""
    found = set()
    for path in LESSONS:
        code = "\n".join(_cells(path, "code"))
        if re.search(rf"^\s*(?:import|from)\s+(?:{pattern})\b", code, re.M):
            found.add(_number(path))
    return found


def test_start_here_lists_every_notebook_in_reading_order():
    text = "\n".join(_cells(NOTEBOOKS / "00_start_here.ipynb", "markdown"))
    linked = re.findall(r"^\| (\d\d) \| \[[^\]]+\]\((\d\d_[\w]+\.ipynb)\)", text, re.M)
    assert [name for _, name in linked] == [p.name for p in LESSONS]
    assert all(number == name[:2] for number, name in linked)


def test_start_here_and_readme_name_the_notebooks_with_slides():
    start = "\n".join(_cells(NOTEBOOKS / "00_start_here.ipynb", "markdown"))
    assert _named_range(start) == _with_slides()
    assert _named_range(README.read_text(encoding="utf-8")) == _with_slides()


def test_readme_lesson_table_lists_every_notebook():
    text = README.read_text(encoding="utf-8")
    linked = re.findall(r"^\| \[\d\d · [^\]]+\]\(notebooks/(\d\d_\w+\.ipynb)\)", text, re.M)
    assert linked == [p.name for p in LESSONS]


def test_readme_row_for_11_uses_the_notebooks_convention():
    """11 stores W one row per neuron and a batch as rows, so dW = dYᵀ·X (Xᵀ·dY is the other
    storage's)."""
    row = next(
        ln for ln in README.read_text(encoding="utf-8").splitlines() if "(notebooks/11_" in ln
    )
    assert "dW = dYᵀ·X" in row and "Xᵀ·dY" not in row
    assert any(
        "dYᵀ" in cell for cell in _cells(LESSONS[11], "markdown") + _cells(LESSONS[11], "code")
    )


@pytest.mark.parametrize(
    "term",
    ["Local derivative", "Upstream gradient", "Seed gradient", "Random seed", "Forward-mode seed"],
)
def test_the_glossary_defines_each_term_once(term):
    text = GLOSSARY.read_text(encoding="utf-8")
    assert text.count(f"**{term}**") == 1, term


def test_the_glossary_is_linked_from_start_here_the_readme_and_the_guide():
    start = "\n".join(_cells(NOTEBOOKS / "00_start_here.ipynb", "markdown"))
    assert "(glossary.md)" in start
    assert "(notebooks/glossary.md)" in README.read_text(encoding="utf-8")
    assert "(../notebooks/glossary.md)" in GUIDE.read_text(encoding="utf-8")


def test_docs_glossary_points_to_the_one_beside_the_notebooks_and_defines_nothing():
    text = DOCS_GLOSSARY.read_text(encoding="utf-8")
    assert "(../notebooks/glossary.md)" in text
    assert "**" not in text  # one copy of the definitions, the one the notebooks link to


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_every_link_from_a_notebook_opens_where_the_notebooks_are(path):
    """A relative link in a lesson must name a file in notebooks/: JupyterLab (scripts/lab.sh,
    Binder) resolves it from the notebook's folder, and the browser edition ships what the site is
    built from there; '../docs/glossary.md' opened nothing in the browser edition."""
    for cell in _cells(path, "markdown"):
        for target in LINK.findall(cell):
            if re.match(r"[a-z][a-z+.-]*:|#", target):  # https:, mailto:, an anchor on the page
                continue
            file = (NOTEBOOKS / target.partition("#")[0]).resolve()
            assert file.is_relative_to(NOTEBOOKS), f"{path.name} links outside notebooks/: {target}"
            assert file.is_file(), f"{path.name} links to a missing file: {target}"


@pytest.mark.parametrize("path", ONE_TERM_FILES, ids=lambda p: p.name)
def test_one_name_for_the_local_derivative(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        text = "\n".join(_cells(path, "markdown") + _cells(path, "code"))
    # other texts' words, named as theirs: the glossary's note, 02's account of CS231n
    text = text.replace("(Other texts: *local gradient*, *local partial*.)", "")
    text = text.replace("what it calls the local gradient", "")
    assert not OTHER_NAMES.findall(text), f"{path.name}: {sorted(set(OTHER_NAMES.findall(text)))}"


def test_guide_browser_row_names_every_notebook_that_fetches_numpy_or_matplotlib():
    row = next(
        ln for ln in GUIDE.read_text(encoding="utf-8").splitlines() if ln.startswith("| what runs")
    )
    plots, _, rest = row.partition("from Pyodide's CDN")
    assert set(re.findall(r"\b(\d\d)\b", plots)) == _importing("numpy|matplotlib")
    torch = rest.partition("skip their PyTorch cells")[0]
    assert set(re.findall(r"\b(\d\d)\b", torch)) == _importing("torch") | {"08"}


def test_guide_has_a_lesson_plan_row_for_every_notebook_from_11():
    rows = [ln for ln in GUIDE.read_text(encoding="utf-8").splitlines() if ln.startswith("| ")]
    planned = {m.group(1) for ln in rows if (m := re.match(r"\| [\d–]+ \| (\d\d) ", ln))}
    assert {_number(p) for p in LESSONS if _number(p) >= "11"} <= planned
