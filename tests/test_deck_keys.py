"""The remote's keys in the live deck: the kit's JupyterLab settings defaults.

jupyterlab-slideshow binds only the arrows and Space; a presenter's remote sends PageDown and
PageUp. `jupyter-config/lab/overrides.d/autograd-viz.json` binds them to the deck's own "go"
command with the arguments and selector the extension gives Space / Shift+Space, and every way
the kit is installed puts that file where JupyterLab reads settings defaults. The keys working
in a real deck is tests/smoke/test_slideshow.py (JupyterLab) and tests/lite (the browser
edition); this file checks the parts that an upgrade or a setup change would silently break.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "jupyter-config" / "lab" / "overrides.d" / "autograd-viz.json"
INSTALLED = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.d"
SLIDESHOW = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "jupyterlab-slideshow"


def _bindings() -> list[dict]:
    return json.loads(SOURCE.read_text())["@jupyterlab/shortcuts-extension:shortcuts"]["shortcuts"]


def test_pagedown_and_pageup_go_down_then_forward_and_up_then_back():
    keys = {b["keys"][0]: (b["command"], b["args"]) for b in _bindings()}
    assert keys == {
        "PageDown": ("deck:go", {"direction": "down", "alternate": "forward"}),
        "PageUp": ("deck:go", {"direction": "up", "alternate": "back"}),
    }


@pytest.mark.skipif(not SLIDESHOW.exists(), reason="jupyterlab-slideshow is not installed")
def test_the_bindings_use_the_installed_decks_own_command_and_selector():
    """An upgrade of jupyterlab-slideshow that renames its command or changes the selector its
    notebook keys use would leave PageDown bound to nothing: read them from its bundle."""
    bundle = "\n".join(p.read_text(errors="replace") for p in SLIDESHOW.glob("static/*.js"))
    for binding in _bindings():
        assert f'"{binding["command"]}"' in bundle, binding["command"]
        assert binding["selector"].removeprefix(".jp-Deck ") in bundle, binding["selector"]


def test_setup_installed_the_settings_into_this_environment():
    """scripts/setup.sh copies them (an editable install skips a wheel's data files)."""
    installed = INSTALLED / SOURCE.name
    assert installed.exists(), f"{installed} is missing: run bash scripts/setup.sh"
    assert json.loads(installed.read_text()) == json.loads(SOURCE.read_text())


def test_the_wheel_and_every_setup_path_ship_the_settings():
    import tomllib  # Python 3.11+

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = project["tool"]["setuptools"]["data-files"]
    assert data["share/jupyter/lab/settings/overrides.d"] == [str(SOURCE.relative_to(ROOT))]
    for path in ("scripts/setup.sh", "binder/postBuild", "lite/build.py"):
        text = (ROOT / path).read_text()
        assert "overrides.d" in text and SOURCE.name in text, f"{path} does not install {SOURCE}"


@pytest.mark.slow
def test_a_built_wheel_carries_the_settings(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    [wheel] = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(
        n.endswith("data/share/jupyter/lab/settings/overrides.d/autograd-viz.json") for n in names
    ), names
