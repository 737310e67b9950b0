"""The course credits the work it builds on and points every lesson to further reading.

Why: the engine and its lessons follow Andrej Karpathy's micrograd and his lecture, and the
blog post this course teaches; a course that does not say so misleads its learners. Every
lesson notebook closes with a "Further reading" section naming at least two of the sources
below, so a learner always knows where to go next.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))

# Each source, and the words that name it in a notebook's text (any one is enough).
SOURCES: dict[str, tuple[str, ...]] = {
    "CS231n backprop notes": ("cs231n.github.io/optimization-2",),
    "micrograd lecture": ("building micrograd", "karpathy/micrograd"),
    "d2l.ai automatic differentiation": ("d2l.ai",),
    "DeZero": ("dezero", "deep learning from scratch 3"),
    "the blog post": ("backpropagation from scratch: build an autograd engine in python",),
}
HEADING = re.compile(r"^(#{1,6})\s+(.*)$", re.M)


def _markdown(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in nb["cells"]
        if c["cell_type"] == "markdown"
    ]


def further_reading(markdown: list[str]) -> str:
    """The text under a 'Further reading' heading, up to the next heading of its level or
    higher (it may continue across cells); '' if there is none."""
    text = "\n\n".join(markdown)
    for m in HEADING.finditer(text):
        if m.group(2).strip().lower().rstrip(":") == "further reading":
            level = len(m.group(1))
            rest = text[m.end() :]
            end = next(
                (n.start() for n in HEADING.finditer(rest) if len(n.group(1)) <= level), None
            )
            return rest if end is None else rest[:end]
    return ""


def sources_named(text: str) -> list[str]:
    low = " ".join(text.lower().split())  # a title may wrap across lines
    return [name for name, words in SOURCES.items() if any(w in low for w in words)]


def test_readme_credits_micrograd_and_its_author():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = further_reading(
        [readme.replace("## Credits and further reading", "## Further reading")]
    )
    assert section, "README.md has no '## Credits and further reading' section"
    assert "Andrej Karpathy" in section and "github.com/karpathy/micrograd" in section
    assert "building micrograd" in section, "README credits micrograd but not its lecture"
    assert len(sources_named(section)) == len(SOURCES), sources_named(section)


def test_start_notebook_credits_micrograd_and_the_blog():
    text = "\n".join(_markdown(NOTEBOOKS / "00_start_here.ipynb"))
    assert "Andrej Karpathy" in text and "micrograd" in text
    assert "Backpropagation from Scratch: Build an Autograd Engine in Python" in text


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_every_lesson_ends_with_further_reading_naming_two_sources(path):
    section = further_reading(_markdown(path))
    assert section, f"{path.name}: no 'Further reading' section (a markdown heading)"
    named = sources_named(section)
    assert len(named) >= 2, (
        f"{path.name}: further reading names {named}; name at least two of {list(SOURCES)}"
    )


def test_the_check_finds_a_missing_section_and_too_few_sources():
    assert further_reading(["# Title", "## Recap\nsee d2l.ai"]) == ""
    one = further_reading(
        ["## Further reading\n- d2l.ai's autograd chapter", "## Exercises\nDeZero"]
    )
    assert sources_named(one) == ["d2l.ai automatic differentiation"]  # stops at the next heading


def test_01_credits_its_expression_swell_example():
    """01's logistic-map example of expression swell is Baydin et al.'s (2018 survey, Table 1);
    the course credited it only in 14."""
    text = " ".join(" ".join(_markdown(NOTEBOOKS / "01_why_derivatives.ipynb")).split())
    assert "Baydin" in text and "Automatic Differentiation in Machine Learning" in text
    assert "Baydin" in further_reading(_markdown(NOTEBOOKS / "01_why_derivatives.ipynb"))
