"""Every notebook's slide metadata is what the slideshow tools understand.

Why: jupyterlab-slideshow reads a literal `"slide_type": "-"` as "on no slide" and hides the
cell (players, exercises, drawings vanish from the deck); JupyterLab's own inspector writes an
empty string. A cell that continues the current slide simply leaves `slide_type` out. And the
lessons a teacher presents first must carry slide metadata at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
SLIDE_TYPES = {"slide", "subslide", "fragment", "skip", "notes"}
PRESENTED = ["02", "03", "04", "05", "06", "10"]  # lessons a teacher presents as slides


def slide_types(path: Path) -> list[object]:
    """Each cell's slide_type, or None where the cell has none (it continues its slide)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [c.get("metadata", {}).get("slideshow", {}).get("slide_type") for c in nb["cells"]]


def bad_slide_types(path: Path) -> list[str]:
    return [
        f"cell {i}: {t!r}"
        for i, t in enumerate(slide_types(path))
        if t is not None and t not in SLIDE_TYPES
    ]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_slide_types_are_ones_the_slideshow_shows(path):
    bad = bad_slide_types(path)
    assert not bad, (
        f"{path.name}: slide types {bad}; use one of {sorted(SLIDE_TYPES)}, or leave "
        "slide_type out for a cell that continues the current slide ('-' hides it)"
    )


@pytest.mark.parametrize("prefix", PRESENTED)
def test_presented_lesson_carries_slide_metadata(prefix):
    [path] = [p for p in PATHS if p.name.startswith(prefix + "_")]
    types = slide_types(path)
    assert types[0] == "slide", f"{path.name}: the first cell (the title) is not a slide"
    assert types.count("slide") >= 3, f"{path.name}: fewer than 3 slides ({types.count('slide')})"


def test_the_check_refuses_a_dash_and_an_empty_type(tmp_path):
    nb = {"cells": [{"cell_type": "code", "metadata": {"slideshow": {"slide_type": t}}}
                    for t in ("slide", "-", "", "fragment")]}  # fmt: skip
    nb["cells"].append({"cell_type": "markdown", "metadata": {}})
    path = tmp_path / "99_x.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert bad_slide_types(path) == ["cell 1: '-'", "cell 2: ''"]
