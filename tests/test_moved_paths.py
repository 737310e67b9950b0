"""The module paths from before the pipeline folders still import, as the module each became.

A teacher's script (`from autograd_viz.viz.slides import save_slides`), a saved notebook
(`from autograd_viz.grading import AnswerKey`) or an older guide's command
(`python -m autograd_viz.viz.slides`) must keep working for a release, saying where the module
went. Each check runs in a fresh interpreter, so an old path is met before anything imported
the new one.
"""

from __future__ import annotations

import json
import subprocess
import sys

from autograd_viz._moved import MOVED, NAMES_MOVED

_IMPORT_ALL = """
import importlib, json, warnings
results = {}
for old, new in MOVED.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module("autograd_viz." + old)
    said = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    results[old] = {
        "same": module is importlib.import_module("autograd_viz." + new),
        "spec": module.__spec__.name,
        "said": said,
    }
print(json.dumps(results))
"""


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_every_old_path_imports_as_the_module_it_became_and_says_where_it_went():
    out = _python("from autograd_viz._moved import MOVED\n" + _IMPORT_ALL)
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)
    assert len(results) == len(MOVED) >= 80
    for old, new in MOVED.items():
        got = results[old]
        if old == "viz" or old in NAMES_MOVED:  # a module of its own (below)
            assert not got["same"] and got["spec"] == f"autograd_viz.{old}"
        else:
            assert got["same"], f"autograd_viz.{old} is a second copy, not autograd_viz.{new}"
            assert got["spec"] == f"autograd_viz.{new}"  # the module keeps its own spec
        assert any(f"autograd_viz.{old} is now autograd_viz.{new}" in s for s in got["said"]), old


def test_the_old_paths_a_guide_or_a_notebook_used_still_work():
    out = _python(
        "from autograd_viz.viz.slides import save_slides\n"
        "from autograd_viz.viz import player, render, slides as deck\n"
        "from autograd_viz.viz.static import module_text\n"
        "from autograd_viz.engines import read\n"
        "import autograd_viz.front.player, autograd_viz.view.render, autograd_viz.exports.slides\n"
        "assert player.PlayerError is autograd_viz.front.player.PlayerError\n"
        "assert render is autograd_viz.view.render\n"
        "assert deck is autograd_viz.exports.slides and 'export default' in module_text()\n"
        "assert read.__name__ == 'autograd_viz.open.engines.read'\n"
        "from autograd_viz.viz.player import Player\n"
        "from autograd_viz.grading import AnswerKey\n"
        "from autograd_viz.answers import record_answers\n"
        "from autograd_viz.engines.read import read_graph\n"
        "from autograd_viz.graph import snapshot\n"
        "from autograd_viz import Value\n"
        "import autograd_viz.player as now\n"
        "x = Value(2.0, label='x'); z = x * x\n"
        "assert Player is now.Player and snapshot(z).nodes[1].local == (2.0, 2.0)\n"
        "assert AnswerKey(8).judge('8')[0] and not AnswerKey(8).judge('5')[0]\n"
    )
    assert out.returncode == 0, out.stderr
    command = [sys.executable, "-m", "autograd_viz.viz.slides", "--help"]
    run = subprocess.run(command, capture_output=True, text=True)
    assert run.returncode == 0 and "write the slides" in run.stdout, run.stderr


def test_a_name_that_moved_to_another_module_is_still_found_by_its_old_path():
    # these left the module their old path became: `from autograd_viz.viz.ask import
    # ask_table` raised ImportError, though `autograd_viz.viz.ask` itself imported
    out = _python(
        "import importlib, warnings\n"
        "from autograd_viz._moved import MOVED, NAMES_MOVED\n"
        "for old, names in NAMES_MOVED.items():\n"
        "    with warnings.catch_warnings():\n"
        "        warnings.simplefilter('ignore', DeprecationWarning)\n"
        "        module = importlib.import_module('autograd_viz.' + old)\n"
        "    new = importlib.import_module('autograd_viz.' + MOVED[old])\n"
        "    for name, where in names.items():\n"
        "        assert getattr(module, name) is getattr(\n"
        "            importlib.import_module('autograd_viz.' + where), name), (old, name)\n"
        "    for name in set(new.__all__) - set(names):  # what stayed is the new module's own\n"
        "        assert getattr(module, name) is getattr(new, name), (old, name)\n"
        "    assert set(module.__all__) == {*new.__all__, *names}\n"
        "from autograd_viz.graph import Edge, CycleError, snapshot\n"
        "from autograd_viz.size import layout_work, MAX_LAYOUT_WORK, LayoutWork\n"
        "from autograd_viz.viz.ask import ask_table\n"
        "from autograd_viz import Value\n"
        "x = Value(2.0, label='x')\n"
        "assert sorted(ask_table(x * x)['nodes']) == ['v0', 'v1']\n"
    )
    assert out.returncode == 0, out.stderr


def test_the_old_paths_of_the_public_calls_still_take_a_value():
    """The classes and functions below the entries take a Graph; their old paths (from
    before the folders) still stand for the public call that opens a Value."""
    out = _python(
        "import warnings\n"
        "warnings.simplefilter('ignore', DeprecationWarning)\n"
        "from autograd_viz import Value\n"
        "from autograd_viz.viz.frames import Frames\n"
        "from autograd_viz.viz.player import Player\n"
        "from autograd_viz.viz.quiz import quiz\n"
        "from autograd_viz.viz.explore import explore\n"
        "from autograd_viz.viz.animation import svg_animation\n"
        "from autograd_viz.viz.filmstrip import filmstrip\n"
        "from autograd_viz.viz.page import standalone_html\n"
        "from autograd_viz.viz.worksheet import worksheet\n"
        "x, y = Value(2.0, label='x'), Value(3.0, label='y')\n"
        "z = (x + y) * y\n"
        "assert len(Frames(z)) == 9 and Player(z).n_frames == 9\n"
        "assert quiz(z).submit('∂out/∂y', '8')\n"
        "ex = explore(lambda x, y: (x + y) * y, x=2, y=3)\n"
        "assert ex.result['cells']['v1-grad'] == 'grad 8'\n"
        "assert svg_animation(z).count(' of 9 — ') == 9\n"
        "assert filmstrip(z, steps=[0]).indices == [0]\n"
        "assert '<script' in standalone_html(z) and worksheet(z).lines[0] == 'x + y = __________'\n"
    )
    assert out.returncode == 0, out.stderr


def test_a_path_that_never_existed_is_still_not_found():
    out = _python("import autograd_viz.viz.no_such_module")
    assert "ModuleNotFoundError" in out.stderr
    out = _python("from autograd_viz.viz import no_such_module")
    assert "ImportError: cannot import name 'no_such_module'" in out.stderr
    out = _python("import autograd_viz.no_such_module")
    assert "ModuleNotFoundError" in out.stderr
