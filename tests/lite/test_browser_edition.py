"""What the package does differently under Pyodide (the JupyterLite edition), checked natively.

The real thing runs in tests/lite/test_lite_site.py (Chromium, Pyodide, Graphviz-WASM); these
pin the messages a learner meets in the browser when asking for what it cannot do, and that
importing the package natively loads none of the browser code.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograd_viz import Value
from autograd_viz.export import ExportError, save_gif
from autograd_viz.view import layout
from autograd_viz.view.layout import GraphvizError


@pytest.fixture
def in_the_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "emscripten")


@pytest.mark.parametrize("fmt", ["png", "pdf"])
def test_png_and_pdf_say_the_browser_edition_cannot_write_them(in_the_browser, fmt):
    with pytest.raises(GraphvizError, match=rf"JupyterLite.*cannot write {fmt.upper()}.*\.svg"):
        layout.run_dot("digraph { a -> b }", fmt, timeout=5)


def test_saving_a_drawing_as_png_in_the_browser_says_save_as_svg(in_the_browser, tmp_path):
    drawing = (Value(2.0, label="x") * 3).draw()
    with pytest.raises(GraphvizError, match=r"save the drawing as \.svg"):
        drawing.save(tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_gif_export_in_the_browser_points_to_the_exports_that_work(in_the_browser, tmp_path):
    with pytest.raises(ExportError, match=r"JupyterLite.*save_svg_animation or save_html"):
        save_gif(Value(2.0, label="x") * 3, tmp_path / "x.gif")


def test_importing_the_package_natively_loads_no_browser_code():
    code = "import sys, autograd_viz; print('autograd_viz.view.wasm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


_FREE_FLAT = """
import tracemalloc
from autograd_viz import Value, _pyodide

_pyodide.free_graphs_flat()
nesting, deepest = 0, 0
def counting(node):  # the installed finalizer, counting how deep its calls nest
    global nesting, deepest
    nesting += 1
    deepest = max(deepest, nesting)
    try:
        _pyodide._free_flat(node)
    finally:
        nesting -= 1
Value.__del__ = counting

tracemalloc.start()
base = tracemalloc.get_traced_memory()[0]
x = r = Value(1.000001)
v = x
for _ in range(200_000):
    v = v * r
v.backward()
held = tracemalloc.get_traced_memory()[0] - base
del x, r, v
left = tracemalloc.get_traced_memory()[0] - base
print(held > 10_000_000, left < 0.01 * held, deepest, len(_pyodide._dying), _pyodide._freeing)
"""


def test_browser_setup_frees_a_long_chain_node_by_node():
    """Under Pyodide a 7,000-step chain freed the usual way (each node inside the next) overflows
    the browser's stack; the browser setup frees any chain with finalizers nested 2 deep."""
    out = subprocess.run([sys.executable, "-c", _FREE_FLAT], capture_output=True, text=True,
                         check=True, timeout=120)  # fmt: skip
    assert out.stdout.split() == ["True", "True", "2", "0", "False"], out.stdout + out.stderr
