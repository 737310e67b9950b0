"""dot's work is bounded at the renderer seam (autograd_viz.view.layout.bounded, with the
count in autograd_viz.view.layout.layout_work): a graph whose layout would run for minutes is
refused before dot starts, the rest are laid out with capped iterations in the native and
the WASM renderer alike, and a native layout past its time limit ends with the kit's error.
No test here times anything: each checks what dot is told, what it reports, or what runs."""

from __future__ import annotations

import re
import subprocess
import sys
import types

import pytest
from examples import blog_z, power_chain, shared_tanh, sum_times_y

from autograd_viz import MLP, Value
from autograd_viz.api import draw, to_dot
from autograd_viz.core.errors import GraphTooLargeError, GraphvizError, LayoutTimeoutError
from autograd_viz.playground.expression import ExpressionError, build
from autograd_viz.view import layout
from autograd_viz.view.layout import MAX_LAYOUT_WORK, layout_work


def _edges(dot: str) -> list[tuple[str, str]]:
    return re.findall(r"^\s*(\w+)\s*->\s*(\w+)", dot, re.M)


def _dot_reports(dot: str) -> str:
    """What `dot -v` says about its network-simplex runs (nodes, iteration caps)."""
    proc = subprocess.run(["dot", "-v", "-Tsvg"], input=dot.encode(), capture_output=True,
                          check=True, timeout=300)  # fmt: skip
    return proc.stderr.decode()


def test_the_count_is_the_graph_dot_places():
    # dot -v names the size of its placement graph: the count must be exactly that
    for root in (power_chain(30), shared_tanh(12), blog_z()):
        dot = to_dot(root)
        placed = re.findall(r"network simplex: (\d+) nodes", _dot_reports(dot))
        assert int(placed[-1]) == layout_work(_edges(dot)).work


def test_lesson_graphs_are_drawn_exactly_as_unbounded_dot_draws_them():
    net = MLP(2, [4, 4, 1], seed=0)([Value(1.0, label="x1"), Value(-2.0, label="x2")])
    for root, options in [(sum_times_y(), {}), (blog_z(), {}), (net, {}),
                          (net, {"collapse": "neuron"}), (shared_tanh(10), {})]:  # fmt: skip
        dot = to_dot(root, **options)
        assert "nslimit=5 nslimit1=5 mclimit=0.5" in layout.bounded(dot)
        plain = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True)
        assert layout.run_dot(dot, "svg", timeout=60) == plain.stdout


@pytest.mark.parametrize("root", [power_chain(100), shared_tanh(60)], ids=["w100", "tanh60"])
def test_the_issues_graphs_are_laid_out_with_capped_iterations(root):
    # x*w*…*w (100 w's) and 60 shared-weight tanh layers ran for minutes: dot is now told
    # to stop its placement after ITERATION_BUDGET / (nodes × placed nodes) iterations a node
    dot = to_dot(root)
    size = layout_work(_edges(dot))
    assert size.work <= MAX_LAYOUT_WORK
    caps = [int(c) for c in re.findall(r"maxiter=(\d+)", _caps(layout.bounded(dot)))]
    assert len(caps) == 2  # ranking and placement
    assert max(caps) * size.work <= layout.ITERATION_BUDGET * 1.01
    assert re.findall(r"maxiter=(\d+)", _caps(dot)) == ["2147483647"] * 2  # unbounded: none


def _caps(dot: str) -> str:
    """What dot -v says up to the start of its placement step, with the iteration caps of
    its two network-simplex runs; dot is stopped there, its layout unfinished."""
    proc = subprocess.Popen(["dot", "-v", "-Tsvg"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    proc.stdin.write(dot.encode())
    proc.stdin.close()
    text = ""
    while text.count("maxiter") < 2:
        line = proc.stderr.readline().decode()
        if not line:
            break
        text += line
    proc.kill()
    proc.wait()
    return text


def test_a_graph_too_costly_to_lay_out_is_refused_before_dot_runs(monkeypatch):
    root = power_chain(150)  # 152 values, far under max_nodes, but 45,452 nodes to place

    def no_dot(*args, **kwargs):
        raise AssertionError("dot ran")

    monkeypatch.setattr(subprocess, "run", no_dot)
    with pytest.raises(GraphTooLargeError, match=r"the value 'w' feeds operations far apart.*"
                                                 r"45452 nodes \(at most 25000"):  # fmt: skip
        draw(root)  # at once, not when the drawing is shown
    with pytest.raises(GraphTooLargeError):
        layout.svg_from_dot(to_dot(root))  # and at the seam, for every other picture


def test_the_playground_refuses_it_as_an_expression_error_pointing_at_the_name():
    text = "x" + "*w" * 140  # 201+ characters, 142 values: inside the reader's own limits
    with pytest.raises(ExpressionError, match="would take too long to lay out: w feeds") as info:
        build(text, {"x": "2", "w": "0.5"})
    assert info.value.column == 3  # the first w
    build("x" + "*w" * 100, {"x": "2", "w": "0.5"})  # the issue's link: within the bound


def test_a_native_layout_past_its_time_limit_is_the_kits_error(monkeypatch):
    def slow(*args, timeout=None, **kwargs):
        raise subprocess.TimeoutExpired("dot", timeout)

    monkeypatch.setattr(subprocess, "run", slow)
    with pytest.raises(LayoutTimeoutError, match=r"took longer than 7 s .*timeout=7.*draw less"):
        draw(sum_times_y(), timeout=7).svg()
    assert issubclass(LayoutTimeoutError, GraphvizError)  # old handlers still catch it


def test_the_wasm_renderer_gets_the_same_bounds(monkeypatch):
    seen = []
    fake = types.ModuleType("autograd_viz.view.wasm")
    fake.run_dot = lambda dot, fmt: seen.append(dot) or b"<svg/>"
    monkeypatch.setitem(sys.modules, "autograd_viz.view.wasm", fake)
    monkeypatch.setattr("autograd_viz.view.wasm", fake, raising=False)
    import autograd_viz.view as viz_package

    monkeypatch.setattr(viz_package, "wasm", fake, raising=False)
    monkeypatch.setattr(sys, "platform", "emscripten")
    dot = to_dot(power_chain(100))
    layout.run_dot(dot, "svg", timeout=5)
    assert seen == [layout.bounded(dot)] and "nslimit=1.46 nslimit1=1.46" in seen[0]
    with pytest.raises(GraphTooLargeError):
        layout.run_dot(to_dot(power_chain(150)), "svg", timeout=5)
    assert len(seen) == 1  # refused before Graphviz-WASM was asked
