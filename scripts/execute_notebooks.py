"""Execute the notebooks in place, saving outputs and widget state, with clean, repeatable diffs.

Each notebook runs top to bottom in a fresh kernel with `notebooks/` as the working directory
(as nbval runs it). Outputs and the widget state (`metadata.widgets`, so GitHub, nbviewer and
exported HTML can show the widgets) are saved back into the file. Then the file is normalised so a
re-run changes nothing that did not really change: widget model ids (random UUIDs) are renumbered
deterministically per notebook, timing metadata is dropped, the kernel spec is fixed to `python3`
and the Python version is removed from `language_info`. Cells that create an `Exercise` (or a
`CodeExercise`) get their input collapsed (`metadata.jupyter.source_hidden`), so the answer in
the code is not on show.
A failing cell stops everything loudly (exit status 1) and leaves that notebook untouched.

Usage (from the repository root):

    .venv/bin/python scripts/execute_notebooks.py                      # every notebooks/NN_*.ipynb
    .venv/bin/python scripts/execute_notebooks.py notebooks/03_backprop_by_hand.ipynb
    .venv/bin/python scripts/execute_notebooks.py --timeout 300 notebooks/07_xor_network.ipynb
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import uuid
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError
from nbconvert.preprocessors import ExecutePreprocessor

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
_NAMESPACE = uuid.UUID("6f1c2a8e-3b7d-4c59-9a0e-5d2b8f4e7a11")  # fixed: ids stay stable
_CELL_METADATA_NOISE = ("execution", "collapsed", "scrolled", "jupyter")
_EXERCISE_CALL = re.compile(r"^\s*(?:\w+\s*=\s*)?(?:\w+\.)?(?:Code)?Exercise\(", re.M)


class NotebookExecutionError(RuntimeError):
    """A notebook failed to execute; the message names the notebook and the failing cell."""


def default_notebooks() -> list[Path]:
    """Every numbered notebook, in reading order: notebooks/00_*.ipynb, 01_*, ..."""
    return sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def execute(path: Path, timeout: int = 120) -> float:
    """Run `path` in a fresh kernel and write it back executed and normalised; return seconds."""
    nb = nbformat.read(path, as_version=4)
    processor = ExecutePreprocessor(
        timeout=timeout,
        kernel_name="python3",
        store_widget_state=True,
        record_timing=False,
    )
    start = time.perf_counter()
    try:
        processor.preprocess(nb, {"metadata": {"path": str(path.parent)}})
    except CellExecutionError as err:
        raise NotebookExecutionError(f"{path.name} failed:\n{err}") from None
    seconds = time.perf_counter() - start
    nb = normalise(nb, path.stem)
    _check_widget_state(nb, path.name)
    nbformat.write(nb, path)
    return seconds


def normalise(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """Strip run-to-run noise: renumber widget ids, drop timings and version details."""
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    info = nb.metadata.get("language_info", {})
    info.pop("version", None)
    nb.metadata["language_info"] = info
    for cell in nb.cells:
        for key in _CELL_METADATA_NOISE:
            cell.metadata.pop(key, None)
        if is_exercise_cell(cell):
            # The learner sees the question box, not the code holding its answer:
            # JupyterLab shows the input collapsed (one click expands it).
            cell.metadata["jupyter"] = {"source_hidden": True}
    text = json.dumps(nb)
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for n, old in enumerate(state):
        new = uuid.uuid5(_NAMESPACE, f"{name}/{n}").hex
        text = text.replace(old, new)
    return nbformat.from_dict(json.loads(text))


def is_exercise_cell(cell: nbformat.NotebookNode) -> bool:
    """True for a code cell that creates a self-check `Exercise` (its source holds the answer)."""
    return cell.cell_type == "code" and _EXERCISE_CALL.search(cell.source) is not None


def _check_widget_state(nb: nbformat.NotebookNode, name: str) -> None:
    shown = {
        out["data"][WIDGET_VIEW]["model_id"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if WIDGET_VIEW in out.get("data", {})
    }
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    missing = sorted(shown - set(state))
    if missing:
        raise NotebookExecutionError(
            f"{name}: {len(missing)} displayed widget(s) have no saved state "
            f"(e.g. {missing[0]}); is ipywidgets installed in the kernel's environment?"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: all numbered)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds allowed per cell")
    args = parser.parse_args(argv)
    paths = args.paths or default_notebooks()
    if not paths:
        print(f"no notebooks found in {NOTEBOOKS}", file=sys.stderr)
        return 1
    # Committed notebooks never show answers, whatever the caller's environment says.
    os.environ.pop("AUTOGRAD_VIZ_TEACHER", None)
    total = 0.0
    for path in paths:
        if not path.is_file():
            print(f"{path}: no such notebook", file=sys.stderr)
            return 1
        try:
            seconds = execute(path.resolve(), args.timeout)
        except NotebookExecutionError as err:
            print(err, file=sys.stderr)
            return 1
        total += seconds
        print(f"{path.name}: executed in {seconds:.1f} s")
    print(f"{len(paths)} notebook(s) in {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
