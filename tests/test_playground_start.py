"""What the playground's cold start leans on, checked without a browser (the page itself is
tests/lite/test_playground.py):

- the drawing path imports none of the notebooks' widget or plotting packages;
- a page that loads Graphviz-WASM itself hands it to the kit, which then never reads its own
  copy (`autograd_viz._pyodide.page_graphviz`, `autograd_viz.view.wasm.start_loading`);
- the build's bundle of the kit's files (`lite/build.py: _files_bundle`) holds the wheel's files
  but Graphviz-WASM, plus the bytecode, in the format the page writes into site-packages.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest

from autograd_viz import _pyodide
from autograd_viz.view import wasm

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("ipywidgets", "anywidget", "matplotlib", "IPython", "traitlets", "numpy", "psygnal")


def test_the_playgrounds_drawing_path_imports_no_widget_or_plotting_package() -> None:
    """Every module imported on the way to the first drawing is loaded before it shows (36 in
    Pyodide, measured by benchmarks/playground.py): none of them may pull in ipywidgets & co.
    A fresh interpreter, so what other tests imported does not count."""
    code = (
        "import sys, json\n"
        "from autograd_viz import playground\n"
        "for mode in ('draw', 'steps', 'derivation'):\n"
        "    v = playground.view({'e': 'tanh(w*x + b)', 'w': '-3', 'x': '2', 'b': '6.88',"
        " 'mode': mode})\n"
        "    assert v['error'] is None, v\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)  # fmt: skip
    loaded = json.loads(out.stdout)
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY]
    assert heavy == [], f"the playground's drawing path imports {heavy}"
    assert "autograd_viz.front.quiz" not in loaded  # the quiz (ipywidgets) loads when opened


@pytest.fixture
def fresh_wasm(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """wasm's loading state as before any import; `_load` (the package's own copy) recorded."""
    monkeypatch.setattr(wasm, "_graphviz", None)
    monkeypatch.setattr(wasm, "_loading", None)
    monkeypatch.setattr(_pyodide, "free_graphs_flat", lambda: None)  # Value stays as it is
    read: list[str] = []

    async def own_copy() -> None:
        read.append(wasm.ENGINE_FILE)
        wasm._graphviz = "the package's copy"

    monkeypatch.setattr(wasm, "_load", own_copy)
    return read


def test_the_kit_takes_the_graphviz_the_page_loaded_and_never_reads_its_own(
    monkeypatch: pytest.MonkeyPatch, fresh_wasm: list[str]
) -> None:
    async def start() -> object:
        given = asyncio.get_running_loop().create_future()
        monkeypatch.setitem(sys.modules, "js", types.SimpleNamespace(avzGraphviz=given))
        _pyodide.setup()  # what `import autograd_viz` does in Pyodide
        assert not wasm._loading.done()  # waits for the page's, without blocking the import
        given.set_result("the page's Graphviz")
        await wasm._loading
        return wasm._graphviz

    assert asyncio.run(start()) == "the page's Graphviz"
    assert fresh_wasm == []


def test_without_a_page_graphviz_the_kit_loads_its_own_copy(
    monkeypatch: pytest.MonkeyPatch, fresh_wasm: list[str]
) -> None:
    """A JupyterLite kernel (a worker, no `avzGraphviz`) loads the copy inside the wheel."""

    async def start() -> object:
        monkeypatch.setitem(sys.modules, "js", types.SimpleNamespace())
        _pyodide.setup()
        await wasm._loading
        return wasm._graphviz

    assert asyncio.run(start()) == "the package's copy"
    assert fresh_wasm == [wasm.ENGINE_FILE]


def _build_module() -> types.ModuleType:
    """lite/build.py as `python lite/build.py` runs it: with its folder on sys.path, where it
    finds kernel_snapshot.py."""
    if str(ROOT / "lite") not in sys.path:
        sys.path.insert(0, str(ROOT / "lite"))
    spec = importlib.util.spec_from_file_location("lite_build", ROOT / "lite" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read_bundle(data: bytes) -> dict[str, bytes]:
    """The bundle read as the page reads it (lite/playground/playground.js: writeFiles)."""
    length = int.from_bytes(data[:4], "little")
    at, files = 4 + length, {}
    for name, size in json.loads(data[4:at]):
        files[name] = data[at : at + size]
        at += size
    assert at == len(data), "bytes after the last file"
    return files


def test_the_bundle_holds_the_wheels_files_but_graphviz_and_their_bytecode(
    tmp_path: Path,
) -> None:
    build = _build_module()
    engine = build.WASM_IN_PACKAGE.as_posix()
    wheel = tmp_path / "autograd_viz-0.1.0-py3-none-any.whl"
    record = f"autograd_viz/engine.py,sha256=x,3\n{engine},sha256=y,4\n"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("autograd_viz/engine.py", "x=1")
        archive.writestr(engine, "wasm")
        archive.writestr("autograd_viz/front/static/player.js", "export {};")
        archive.writestr("autograd_viz-0.1.0.dist-info/RECORD", record)
        # the build adds Pyodide's bytecode to the wheel itself (lite/compile_start.mjs)
        archive.writestr("autograd_viz/__pycache__/engine.cpython-314.pyc", b"\x00pyc")
    out = build._files_bundle(wheel, tmp_path / "autograd_viz.files")
    assert _read_bundle(out.read_bytes()) == {
        "autograd_viz/engine.py": b"x=1",
        "autograd_viz/front/static/player.js": b"export {};",
        "autograd_viz-0.1.0.dist-info/RECORD": b"autograd_viz/engine.py,sha256=x,3\n",
        "autograd_viz/__pycache__/engine.cpython-314.pyc": b"\x00pyc",
    }


def test_the_builds_caches_are_kept_per_user_so_a_new_clone_reuses_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wheels, the kernel's bytecode and its snapshot are kept where pip keeps its own
    (XDG's cache folder), not in the clone: a new clone of a new commit then remakes only the
    snapshot (benchmarks/lite_cold_start.py's docstring has the build times)."""
    monkeypatch.delenv("AUTOGRAD_VIZ_LITE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    build = _build_module()
    kept = build.CACHE_ROOT
    assert kept == tmp_path / "xdg" / "autograd_viz" / "lite"
    assert not kept.is_relative_to(ROOT)
    assert {build.CACHE.parent, build.BYTECODE_CACHE.parent} == {kept}
    monkeypatch.setenv("AUTOGRAD_VIZ_LITE_CACHE", str(tmp_path / "mine"))
    moved = _build_module().CACHE_ROOT
    assert moved == tmp_path / "mine"


def test_a_cache_entry_another_build_made_first_is_kept(tmp_path: Path) -> None:
    build = _build_module()
    first, second = tmp_path / "first.part1", tmp_path / "second.part2"
    for made in (first, second):
        made.mkdir()
        (made / "bytecode.whl").write_bytes(made.name.encode())
    build._into_place(first, tmp_path / "entry")
    build._into_place(second, tmp_path / "entry")  # the same entry, made by a second build
    assert (tmp_path / "entry" / "bytecode.whl").read_bytes() == b"first.part1"


def test_a_build_with_no_writable_home_keeps_its_cache_in_the_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("AUTOGRAD_VIZ_LITE_CACHE", raising=False)
    not_a_folder = tmp_path / "home"
    not_a_folder.write_text("a file where the home folder should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(not_a_folder))
    kept = _build_module().CACHE_ROOT
    assert kept == ROOT / "lite" / ".cache"
    assert "the build's cache stays in lite/.cache" in capsys.readouterr().out
