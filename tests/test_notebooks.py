"""Checks on the committed notebooks: executed, with widget state, shaped as lessons, not stale.

These tests read the committed `.ipynb` files; they fail when a notebook was committed without
being executed (a code cell with no execution count, or counts not 1, 2, 3, ... as a fresh
top-to-bottom run gives), with an error output, with widget outputs but no saved widget state
(`metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]`), with an exercise
answer already revealed or its code not collapsed, or without the lesson shape (title, "What
you'll learn", recap, self-check exercises; slide metadata and the player in the walkthroughs).
The last tests check the tooling itself: nbval with our sanitizer really fails a stale output,
and the execution script really saves widget state and re-runs to identical bytes.

Staleness — committed outputs that no longer match what the code prints — is nbval's job: it
re-executes every notebook in a fresh kernel and compares every text output. The test command
must therefore run nbval over the notebooks in the same pytest run, with exactly these arguments
(from the repository root):

    .venv/bin/python -m pytest tests notebooks --nbval --nbval-current-env \
        --nbval-sanitize-with notebooks/nbval_sanitize.cfg

`--nbval-current-env` runs the notebooks with this environment's Python (not whichever `python3`
kernel is installed first); the sanitize file replaces only SVG drawings (inline or as base64
data URIs: layout differs between Graphviz versions) and memory addresses. PNG images and
widget model ids are never compared by nbval; widget text reprs are. Regenerate notebooks
with `scripts/execute_notebooks.py`.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
CURRICULUM = [
    "00_start_here.ipynb",
    "01_why_derivatives.ipynb",
    "02_chain_rule.ipynb",
    "03_backprop_by_hand.ipynb",
    "04_value_class.ipynb",
    "05_topological_order.ipynb",
    "06_verifying_the_engine.ipynb",
    "07_xor_network.ipynb",
    "08_pytorch.ipynb",
    "09_pitfalls.ipynb",
    "10_longer_backward_pass.ipynb",
    "13_vanishing_and_exploding_gradients.ipynb",
    "14_forward_vs_reverse_mode.ipynb",
]
WALKTHROUGHS = {"03", "05", "06", "10"}  # presented as slides, and animated with the player
SLIDE_TYPES = {"slide", "subslide", "fragment", "skip", "notes", "-"}

PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _code_cells(nb: dict) -> list[dict]:
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


def _source(cell: dict) -> str:
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def _widget_views(nb: dict) -> list[str]:
    return [
        out["data"][WIDGET_VIEW]["model_id"]
        for cell in _code_cells(nb)
        for out in cell.get("outputs", [])
        if WIDGET_VIEW in out.get("data", {})
    ]


def _widget_state(nb: dict) -> dict:
    return nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


def _id(path: Path) -> str:
    return path.name


def test_the_curriculum_is_complete():
    present = {p.name for p in PATHS}
    missing = [name for name in CURRICULUM if name not in present]
    assert not missing, f"notebooks missing from notebooks/: {missing}"


@pytest.mark.parametrize("path", PATHS, ids=_id)
def test_every_code_cell_was_executed_top_to_bottom_in_a_fresh_kernel(path):
    counts = [cell.get("execution_count") for cell in _code_cells(_load(path))]
    assert None not in counts, (
        f"{path.name}: code cell {counts.index(None) + 1} was never executed; "
        "run scripts/execute_notebooks.py on it"
    )
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: execution counts {counts} are not 1, 2, 3, ...: the outputs come from an "
        "out-of-order or partial run; re-run scripts/execute_notebooks.py on it"
    )


@pytest.mark.parametrize("path", PATHS, ids=_id)
def test_no_cell_shows_an_error(path):
    for n, cell in enumerate(_code_cells(_load(path)), 1):
        errors = [out for out in cell.get("outputs", []) if out["output_type"] == "error"]
        assert not errors, f"{path.name}: code cell {n} shows {errors[0].get('ename')}"
        streams = [o for o in cell.get("outputs", []) if o.get("name") == "stderr"]
        text = "".join("".join(o["text"]) for o in streams)
        assert "Traceback" not in text, f"{path.name}: code cell {n} printed a traceback"


@pytest.mark.parametrize("path", PATHS, ids=_id)
def test_notebook_showing_widgets_carries_their_saved_state(path):
    nb = _load(path)
    views = _widget_views(nb)
    if not views:
        pytest.skip(f"{path.name} shows no widgets")
    state = _widget_state(nb)
    assert state, (
        f"{path.name} shows widgets but has no metadata.widgets[{WIDGET_STATE!r}]['state']; "
        "execute it with scripts/execute_notebooks.py (store_widget_state=True)"
    )
    missing = [view for view in views if view not in state]
    assert not missing, f"{path.name}: widget views {missing[:3]} have no saved state"
    for model_id, entry in state.items():
        assert {"model_name", "model_module", "state"} <= entry.keys(), (
            f"{path.name}: widget {model_id} state is malformed"
        )
        for ref in re.findall(r"IPY_MODEL_([0-9a-f]{32})", json.dumps(entry["state"])):
            assert ref in state, f"{path.name}: widget {model_id} refers to unsaved model {ref}"


@pytest.mark.parametrize("path", PATHS, ids=_id)
def test_committed_notebook_reveals_no_exercise_answer(path):
    state = _widget_state(_load(path))
    revealed = [
        entry["state"].get("value", "")
        for entry in state.values()
        if "<b>Answer:</b>" in str(entry["state"].get("value", ""))
    ]
    assert not revealed, (
        f"{path.name} was executed with answers revealed ({revealed[0]!r}); "
        "re-execute it without AUTOGRAD_VIZ_TEACHER and without calling reveal_all()"
    )


@pytest.mark.parametrize("path", PATHS, ids=_id)
def test_exercise_cells_show_the_question_box_but_not_the_code_holding_the_answer(path):
    for n, cell in enumerate(_code_cells(_load(path)), 1):
        if re.search(r"^\s*(?:\w+\s*=\s*)?(?:\w+\.)?(?:Code)?Exercise\(", _source(cell), re.M):
            hidden = cell.get("metadata", {}).get("jupyter", {}).get("source_hidden")
            assert hidden is True, (
                f"{path.name}: code cell {n} creates an Exercise but its input (with the answer) "
                "is not collapsed; re-execute it with scripts/execute_notebooks.py"
            )


@pytest.mark.parametrize("path", PATHS, ids=_id)
def test_notebook_metadata_is_normalised_for_clean_diffs(path):
    meta = _load(path)["metadata"]
    assert meta.get("kernelspec", {}).get("name") == "python3", f"{path.name}: kernelspec"
    assert "version" not in meta.get("language_info", {}), (
        f"{path.name}: language_info carries a Python version; execute it with "
        "scripts/execute_notebooks.py, which normalises metadata"
    )


@pytest.mark.parametrize("path", PATHS, ids=_id)
def test_notebook_is_shaped_as_a_lesson(path):
    nb = _load(path)
    markdown = [_source(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert markdown and markdown[0].lstrip().startswith("# "), f"{path.name}: no title first"
    text = "\n".join(markdown).lower()
    assert "what you'll learn" in text or "what you will learn" in text, path.name
    assert "recap" in text, f"{path.name}: no recap"
    code = "\n".join(_source(c) for c in _code_cells(nb))
    assert "autograd_viz.exercises" in code and "Exercise(" in code, (
        f"{path.name}: no self-check exercises from autograd_viz.exercises"
    )
    assert "assert " in code, f"{path.name}: the numbers the prose states are not asserted"


@pytest.mark.parametrize(
    "path", [p for p in PATHS if p.name[:2] in WALKTHROUGHS], ids=_id
)
def test_walkthrough_is_a_slideshow_with_the_player(path):
    nb = _load(path)
    types = [c.get("metadata", {}).get("slideshow", {}).get("slide_type") for c in nb["cells"]]
    assert all(t in SLIDE_TYPES for t in types), (
        f"{path.name}: every cell needs metadata.slideshow.slide_type, one of {sorted(SLIDE_TYPES)}"
    )
    assert types.count("slide") >= 3, f"{path.name}: fewer than 3 slides"
    code = "\n".join(_source(c) for c in _code_cells(nb))
    assert ".animate(" in code or "Player(" in code, f"{path.name}: the player is not used"


# ---- the tooling itself: nbval with our sanitizer, and the execution script -----------------

ROOT = NOTEBOOKS.parent
SANITIZE = NOTEBOOKS / "nbval_sanitize.cfg"


def _notebook(source: str, outputs: list[dict]) -> dict:
    cell = {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
            "outputs": outputs, "source": source}
    return {"cells": [cell], "metadata": {"kernelspec": {"name": "python3", "language": "python",
            "display_name": "Python 3"}}, "nbformat": 4, "nbformat_minor": 5}


def _svg(x: int) -> str:
    return (
        f'<?xml version="1.0"?>\n<!-- Generated by graphviz -->\n<svg xmlns="http://www.w3.org/2000/'
        f'svg" width="20pt" height="20pt"><rect x="{x}" y="1" width="5" height="5"/></svg>'
    )


def _img(x: int) -> str:
    """The SVG as an <img> data URI, the way an untrusted JupyterLab still shows a drawing."""
    return f'<img src="data:image/svg+xml;base64,{base64.b64encode(_svg(x).encode()).decode()}">'


@pytest.fixture(scope="module")
def nbval_verdicts(tmp_path_factory) -> dict[str, str]:
    """Run nbval with our sanitizer once over three small notebooks; return name -> verdict."""
    folder = tmp_path_factory.mktemp("nbval")
    stale = [{"output_type": "stream", "name": "stdout", "text": "3\n"}]  # the code prints 2
    (folder / "stale.ipynb").write_text(json.dumps(_notebook("print(1 + 1)", stale)))
    code = (f"from IPython.display import HTML, SVG, display\nprint('drawn')\n"
            f"display(HTML({_img(1)!r}))\nSVG({_svg(1)!r})")
    for name, text, x in [("moved", "drawn\n", 7), ("changed", "drawn differently\n", 1)]:
        outputs = [
            {"output_type": "stream", "name": "stdout", "text": text},
            {"output_type": "display_data", "metadata": {},
             "data": {"text/html": _img(x), "text/plain": "<IPython.core.display.HTML object>"}},
            {"output_type": "execute_result", "execution_count": 1, "metadata": {},
             "data": {"image/svg+xml": _svg(x), "text/plain": "<IPython.core.display.SVG object>"}},
        ]  # fmt: skip
        (folder / f"{name}.ipynb").write_text(json.dumps(_notebook(code, outputs)))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "--nbval",
         "--nbval-current-env", "--nbval-sanitize-with", str(SANITIZE), "--rootdir", str(folder),
         "."],
        cwd=folder, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300,
    )  # fmt: skip
    verdicts = dict(
        (m.group(2), m.group(1))
        for m in re.finditer(r"^(PASSED|FAILED) \S*?(\w+)\.ipynb::", result.stdout, re.M)
    )
    assert len(verdicts) == 3, result.stdout[-3000:]
    return verdicts


def test_nbval_with_our_sanitizer_fails_on_a_stale_text_output(nbval_verdicts):
    assert nbval_verdicts["stale"] == "FAILED"


def test_nbval_with_our_sanitizer_ignores_a_different_svg_layout(nbval_verdicts):
    assert nbval_verdicts["moved"] == "PASSED"


def test_nbval_with_our_sanitizer_still_compares_text_next_to_an_svg(nbval_verdicts):
    assert nbval_verdicts["changed"] == "FAILED"


def _execute_script():
    spec = importlib.util.spec_from_file_location("execute_notebooks", ROOT / "scripts" /
                                                  "execute_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_execute_script_saves_widget_state_and_reruns_give_identical_files(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOGRAD_VIZ_TEACHER", raising=False)  # main() drops it; keep ours intact
    script = _execute_script()
    path = tmp_path / "99_widgets.ipynb"
    source = "import ipywidgets as w\nprint('hello')\nw.VBox([w.IntSlider(3), w.Label('x')])"
    cell = _notebook(source, [])["cells"][0] | {"execution_count": None}
    path.write_text(json.dumps({**_notebook(source, []), "cells": [cell]}))
    assert script.main([str(path)]) == 0
    first = path.read_bytes()
    assert script.main([str(path)]) == 0
    assert path.read_bytes() == first, "re-executing an unchanged notebook changed the file"
    nb = _load(path)
    state = _widget_state(nb)
    assert len(state) >= 3 and set(_widget_views(nb)) <= set(state)
    assert _code_cells(nb)[0]["execution_count"] == 1
    assert "version" not in nb["metadata"]["language_info"]


def test_execute_script_fails_loudly_and_leaves_a_broken_notebook_untouched(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv("AUTOGRAD_VIZ_TEACHER", raising=False)
    script = _execute_script()
    path = tmp_path / "98_broken.ipynb"
    path.write_text(json.dumps(_notebook("1 / 0", [])))
    before = path.read_bytes()
    assert script.main([str(path)]) == 1
    assert "ZeroDivisionError" in capsys.readouterr().err
    assert path.read_bytes() == before
