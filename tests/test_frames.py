"""Frames: one frame per step, node states per frame, one layout shared by every frame (and
every phase) with `dot` run once, and — in a real Chromium — colours and hidden values that
really apply, without two animations on one page restyling each other."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from examples import sum_times_y
from hypothesis import given, settings
from op_cases import expressions

from autograd_viz import Value, api
from autograd_viz.frames import PLACEHOLDER, Frames, FramesError
from autograd_viz.trace import TraceError
from autograd_viz.view import layout


@pytest.fixture
def dot_runs(monkeypatch) -> list[str]:
    """Count the real `dot` runs (each call still runs graphviz)."""
    calls: list[str] = []
    real = layout.run_dot

    def counting(dot, fmt, *args, **kwargs):
        calls.append(fmt)
        return real(dot, fmt, *args, **kwargs)

    monkeypatch.setattr(layout, "run_dot", counting)
    return calls


def test_one_frame_per_step():
    frames = Frames(sum_times_y())
    assert len(frames) == len(frames.steps) == 9
    assert len(frames.frame_svgs()) == 9
    assert [len(Frames(sum_times_y(), p)) for p in ("forward", "backward")] == [3, 6]


def test_node_states_per_frame_follow_the_derivation():
    frames = Frames(sum_times_y())
    table = [[frames.states(k)[i] for i in range(4)] for k in range(len(frames))]
    assert table == [
        ["forward active", "forward", "pending", "pending"],  # inputs: x = 2, y = 3
        ["forward", "forward", "forward active", "pending"],  # s = x + y
        ["forward", "forward", "forward", "forward active"],  # z = s · y
        ["forward", "forward", "forward", "backward active"],  # ∂z/∂z = 1
        ["forward", "forward", "backward active", "backward"],  # ∂z/∂s = y = 3
        ["forward", "forward active", "backward", "backward"],  # ȳ via the product
        ["backward active", "forward", "backward", "backward"],  # ∂z/∂x
        ["backward", "forward active", "backward", "backward"],  # ȳ via the sum
        ["backward", "backward active", "backward", "backward"],  # ∂z/∂y = 5 + 3 = 8
    ]


def _classes(svg: str) -> dict[str, str]:
    return dict(re.findall(r'<g id="([^"]+)" class="([^"]*)"', svg))


def _cells(svg: str) -> dict[str, str]:
    return dict(re.findall(r'<text id="(v\d+-(?:data|grad))"[^>]*>([^<]*)</text>', svg))


def test_values_and_grads_read_as_placeholders_until_computed():
    frames = Frames(sum_times_y())
    first, seed, last = (_cells(frames.frame_svg(k)) for k in (0, 3, 8))
    assert first["v0-data"] == "data 2" and first["v2-data"] == f"data {PLACEHOLDER}"
    assert all(first[f"v{i}-grad"] == f"grad {PLACEHOLDER}" for i in range(4))
    assert seed["v3-grad"] == "grad 1" and seed["v1-grad"] == f"grad {PLACEHOLDER}"
    assert [last[f"v{i}-grad"] for i in range(4)] == ["grad 3", "grad 8", "grad 3", "grad 1"]


def test_frame_classes_mark_states_touched_nodes_and_travelled_edges():
    frames = Frames(sum_times_y())
    step5 = _classes(frames.frame_svg(5))  # ȳ via the product = s = 5
    assert step5["v1"] == "node input forward active"
    assert step5["v3"] == "node output backward touched"
    assert step5["op3"] == "node op backward touched"
    assert step5["v1&#45;op3&#45;1"] == "edge avz-on"
    assert step5["op3&#45;v3"] == "edge avz-on"
    assert step5["v1&#45;op2&#45;1"] == "edge"
    step1 = _classes(frames.frame_svg(1))  # s = x + y: the operation itself is active
    assert step1["op2"] == "node op forward active"


def _layout(svg: str) -> str:
    """The SVG with everything a frame may change removed: classes, cell texts, style, tags."""
    svg = re.sub(r"\n<style>.*?</style>", "", svg, flags=re.S)
    svg = re.sub(
        r'<svg class="[^"]*" data-step="\d+" data-phase="\w+" data-active="v\d+" role="img" '
        r'aria-label="[^"]*"',
        "<svg",
        svg,
    )
    svg = re.sub(r' class="[^"]*"', "", svg)
    return re.sub(r'(<text id="v\d+-(?:data|grad)"[^>]*>)[^<]*', r"\1", svg)


def _coordinates(svg: str) -> list[str]:
    return re.findall(r'\b(?:points|d|cx|cy|rx|ry|x|y|width|height|viewBox)="([^"]*)"', svg)


def test_every_frame_shares_one_layout_and_dot_runs_once(dot_runs):
    frames = Frames(sum_times_y())
    svgs = frames.frame_svgs()
    assert dot_runs == ["svg"]
    assert {_layout(s) for s in svgs} == {_layout(frames.base_svg)}
    coordinates = _coordinates(frames.base_svg)
    assert len(coordinates) > 30
    assert all(_coordinates(s) == coordinates for s in svgs)


def test_other_phases_reuse_the_layout_without_dot(dot_runs):
    frames = Frames(sum_times_y())
    forward = frames.for_phase("forward")
    backward = frames.for_phase("backward")
    assert dot_runs == ["svg"]
    assert (len(forward), len(backward)) == (3, 6)
    assert (
        _layout(forward.frame_svg(2)) == _layout(backward.frame_svg(5)) == _layout(frames.base_svg)
    )
    assert len(frames) == 9  # the original is unchanged


def test_notation_reaches_the_steps_and_survives_a_phase_change():
    frames = Frames(sum_times_y(), notation="adjoint")
    assert frames.steps[3].text == "z̄ = ∂z/∂z = 1"
    assert frames.for_phase("backward").steps[0].text == "z̄ = ∂z/∂z = 1"
    assert len(frames) == 3 + 10


def test_forward_only_frames_are_laid_out_like_both():
    assert Frames(sum_times_y(), "forward").base_svg == Frames(sum_times_y()).base_svg


def test_layout_sizes_cells_for_final_grads_without_touching_the_graph():
    z = sum_times_y()
    frames = Frames(z)
    assert "grad 8" in frames.base_svg  # laid out with the final gradient...
    assert all(v.grad == 0 for v in z.topological_order())  # ...and the graph left as it was


def test_draw_options_reach_the_layout():
    frames = Frames(sum_times_y(), font_size=20, rankdir="TB")
    assert 'font-size="20.00"' in frames.base_svg
    assert Frames(sum_times_y()).base_svg != frames.base_svg


def test_frame_states_are_valid_render_states():
    z = sum_times_y()
    frames = Frames(z)
    for k in range(len(frames)):
        api.to_dot(z, states=frames.states(k))  # raises on an unknown state


def test_each_layout_has_its_own_scope_and_every_rule_uses_it():
    a = Frames(sum_times_y())
    x = Value(1.0, label="x")
    b = Frames(x.tanh())
    assert a.scope != b.scope
    style = re.search(r"<style>(.*?)</style>", a.frame_svg(0), re.S).group(1)
    selectors = [rule.split("{")[0].strip() for rule in style.split("}") if rule.strip()]
    assert selectors and all(s.startswith(f".{a.scope} ") for s in selectors)
    assert f'class="avz-frame {a.scope}"' in a.frame_svg(0)


def test_each_frame_is_named_by_its_equation_for_screen_readers():
    frames = Frames(sum_times_y())
    assert 'role="img" aria-label="step 2 of 9 — s = x + y = 2 + 3 = 5"' in frames.frame_svg(1)


def test_labels_with_markup_stay_escaped_in_frames():
    x = Value(1.0, label="<b>&x")
    frames = Frames(x * 2)
    svg = frames.frame_svg(len(frames) - 1)
    assert "<b>&" not in svg and "&lt;b&gt;&amp;x" in svg
    ET.fromstring(svg)  # still well-formed XML, aria-label included


def test_an_svg_frames_cannot_restyle_is_reported_not_drawn_grey(monkeypatch):
    real = layout.svg_from_dot

    def without_titles(dot, **kwargs):  # a future render whose node groups lack <title>
        return re.sub(r"<title>v\d+</title>\n", "", real(dot, **kwargs))

    monkeypatch.setattr(layout, "svg_from_dot", without_titles)
    with pytest.raises(FramesError, match="6 nodes and 6 edges, but frames found 2 and 6"):
        Frames(sum_times_y())


def test_bad_arguments_are_refused_clearly():
    z = sum_times_y()
    with pytest.raises(TypeError, match="Frames needs a Value"):
        Frames(3.0)  # type: ignore[arg-type]
    with pytest.raises(TraceError, match="phase must be one of"):
        Frames(z, "sideways")
    with pytest.raises(TypeError, match="Frames sets 'states' itself"):
        Frames(z, states={0: "forward"})
    frames = Frames(z)
    with pytest.raises(IndexError, match=r"frames are 0\.\.8"):
        frames.frame_svg(9)
    with pytest.raises(TraceError, match="phase must be one of"):
        frames.for_phase("up")


@settings(max_examples=25, deadline=None)
@given(expressions(max_steps=6))
def test_any_graph_gives_one_layout_and_states_that_follow_its_steps(root):
    frames = Frames(root)
    layout = _layout(frames.base_svg)
    for k, step in enumerate(frames.steps):
        svg = frames.frame_svg(k)
        assert _layout(svg) == layout
        classes, cells = _classes(svg), _cells(svg)
        for i, state in frames.states(k).items():
            drawn = classes[f"v{i}"]
            assert drawn.endswith(state) or drawn.endswith(f"{state} touched"), (k, i)
            if f"v{i}-grad" in cells:  # constants have no grad cell
                assert (cells[f"v{i}-grad"] != f"grad {PLACEHOLDER}") == (i in step.grads)
            if f"v{i}-data" in cells:
                assert (PLACEHOLDER not in cells[f"v{i}-data"]) == (i in step.values)


# ---- a real browser ----------------------------------------------------------------


_FILL = """([frame, id]) => {
  const el = document.querySelector(`#f${frame} #${id} > .avz-shape`);
  return getComputedStyle(el).fill;
}"""
_TEXT = """([frame, id]) => document.querySelector(`#f${frame} #${id}`).textContent"""
_EDGE = """([frame, id]) => getComputedStyle(
  document.querySelector(`#f${frame} [id="${id}"] > path`)).stroke"""

GREY, ORANGE, BLUE, VERMILION = (
    "rgb(238, 238, 238)",
    "rgb(230, 159, 0)",
    "rgb(86, 180, 233)",
    "rgb(213, 94, 0)",
)


def test_colours_and_placeholders_apply_in_chromium_and_frames_do_not_interfere(chromium, tmp_path):
    frames = Frames(sum_times_y())
    x = Value(0.5, label="x")
    other = Frames(x.tanh())  # a second animation on the same page, in a different state
    body = "".join(f'<div id="f{k}">{frames.frame_svg(k)}</div>' for k in range(len(frames)))
    body += f'<div id="f99">{other.frame_svg(0)}</div>'
    page = chromium.new_page()
    try:
        page.set_content(f"<!doctype html><html><body>{body}</body></html>")
        assert page.evaluate(_FILL, [0, "v2"]) == GREY  # s not computed yet
        assert page.evaluate(_FILL, [1, "v2"]) == ORANGE  # s = x + y
        assert page.evaluate(_FILL, [8, "v2"]) == BLUE  # its gradient is known
        assert page.evaluate(_FILL, [99, "v1"]) == GREY  # the other animation: tanh pending
        assert page.evaluate(_FILL, [99, "v0"]) == ORANGE
        assert page.evaluate(_TEXT, [0, "v2-data"]) == "data ?"
        assert page.evaluate(_TEXT, [8, "v1-grad"]) == "grad 8"
        assert page.evaluate(_EDGE, [5, "v1-op3-1"]) == VERMILION
        assert page.evaluate(_EDGE, [5, "v1-op2-1"]) != VERMILION
        width = page.evaluate(
            "() => getComputedStyle(document.querySelector('#f5 #v1 > .avz-shape')).strokeWidth"
        )
        assert width == "3.5px"  # the active value's thick border
        page.screenshot(path=str(tmp_path / "frames.png"), full_page=True)
    finally:
        page.close()


def test_the_docstring_examples_hold():
    import doctest

    import autograd_viz.view.frames as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def _wrong_add_z():
    import own_engines as oe

    return oe.sum_times_y(oe.SubtractingAdd)  # its forward steps carry a ✗ flag


def _mlp_loss():
    from autograd_viz.nn import MLP

    out = MLP(2, [3, 1], seed=0)([Value(1.0), Value(-1.0)])
    loss = (out - 1.0) ** 2
    loss.backward()
    return loss


@pytest.mark.parametrize(
    ("make", "options"),
    [
        (sum_times_y, {}),
        (sum_times_y, {"notation": "adjoint"}),
        (_mlp_loss, {}),
        (_mlp_loss, {"collapse": "neuron"}),  # one step per neuron
        (_wrong_add_z, {}),
    ],
    ids=["blog", "adjoint", "mlp", "mlp-by-neuron", "flagged"],
)
def test_a_phase_of_both_is_that_pass_of_the_both_frames_traced_once(make, options, monkeypatch):
    """One pass's frames made from frames of both passes equal those made on their own (the
    independent trace), and no second trace is run for them."""
    import autograd_viz.view.frames as frames_module

    root = make()
    both = Frames(root, **options)
    traced = []
    real = frames_module.steps_for
    spy = lambda *a, **k: traced.append(a) or real(*a, **k)  # noqa: E731
    monkeypatch.setattr(frames_module, "steps_for", spy)
    phases = {p: both.for_phase(p).steps for p in ("forward", "backward", "both")}
    assert traced == []
    monkeypatch.undo()
    for phase, steps in phases.items():
        assert steps == Frames(root, phase, **options).steps, phase
    assert [s.index for s in phases["backward"]] == list(range(len(phases["backward"])))
    assert any(s.flag for s in phases["forward"]) == (make is _wrong_add_z)
