"""The layers import only downwards: engine <- nn; engine <- graph <- trace <- viz (never nn).

Each check runs in a fresh interpreter, so what one import pulls in is seen exactly.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import autograd_viz

# every module of the drawing subpackage, found on disk so a new one is checked too
VIZ = sorted(
    f"autograd_viz.viz.{path.stem}"
    for path in (Path(autograd_viz.__file__).parent / "viz").glob("*.py")
    if path.stem != "__init__"
)


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize(
    "module",
    [*VIZ, "autograd_viz.render", "autograd_viz.trace", "autograd_viz.graph"],
)
def test_viewers_and_the_snapshot_never_import_nn(module):
    loaded = _loaded_after(f"import {module}")
    assert module in loaded and "autograd_viz.nn" not in loaded


@pytest.mark.parametrize("module", ["autograd_viz.trace", "autograd_viz.graph", "autograd_viz.ops"])
def test_below_the_viewers_nothing_imports_a_viewer(module):
    loaded = _loaded_after(f"import {module}")
    assert not {m for m in loaded if m.startswith("autograd_viz.viz")}
    assert "ipywidgets" not in loaded


def test_the_top_level_names_still_import_and_nn_loads_on_first_use():
    loaded = _loaded_after("from autograd_viz import MLP, Neuron, Parameter, Value, gradcheck")
    assert "autograd_viz.nn" in loaded and "ipywidgets" not in loaded
    assert "autograd_viz.nn" not in _loaded_after("from autograd_viz import Value")


@pytest.mark.parametrize("module", ["autograd_viz.answers", "autograd_viz.classroom"])
def test_the_class_answers_need_only_the_standard_library(module):
    """Recording runs inside exercises (which build on the engine only) and the teacher's
    command on a machine without widgets: beyond the package itself, nothing but Python."""
    base = _loaded_after("import autograd_viz")
    extra = _loaded_after(f"import {module}") - base
    ours = {m for m in extra if m.startswith("autograd_viz")}
    assert ours <= {"autograd_viz.answers", "autograd_viz.classroom"}
    assert "ipywidgets" not in extra and "numpy" not in extra
