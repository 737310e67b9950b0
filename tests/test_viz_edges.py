"""Viewers at their edges (issue 10): collapsed animations, over-limit graphs refused
before the work, options and hostile labels treated the same by every entry point,
and x ** n at 0 agreeing between the engine, the trace, the player and gradcheck.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import re
import tracemalloc

import pytest

from autograd_viz import MLP, Value, gradcheck
from autograd_viz import export as export_mod
from autograd_viz._numbers import format_number
from autograd_viz.frames import Frames
from autograd_viz.player import AnimationTooLargeError, Player
from autograd_viz.render import GraphTooLargeError, draw
from autograd_viz.trace import trace
from autograd_viz.viz import layout


def _blog() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


def _group(svg: str, key: str) -> str:
    """The SVG group of one node, by its id."""
    start = svg.index(f'<g id="{key}" ')
    return svg[start : svg.index("</g>", start)]


# ---- item 2: a collapsed layer shows only what has been computed ----------------------


def _layer_net() -> Value:
    return (MLP(2, [3, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2


def test_layer_boxes_show_data_only_after_their_neurons_compute_it():
    L = _layer_net()
    order = L.topological_order()
    frames = Frames(L, collapse="layer")
    members = [i for i, v in enumerate(order) if v.tag is not None and v.tag.name.startswith("L1")]
    assert len(members) == 3
    box = "layer" + str(members[0])
    for k, step in enumerate(frames.steps):
        group = _group(frames.frame_svg(k), box)
        for i in members:
            shown = f">{format_number(order[i].data)}<" in group
            assert shown == (i in step.values), (k, i, step.text)
    first, last = _group(frames.frame_svg(0), box), _group(frames.frame_svg(len(frames) - 1), box)
    assert "pending" in first.split(">")[0]
    assert "backward" in last.split(">")[0]


def test_layer_animation_never_repeats_a_frame():
    frames = Frames(_layer_net(), collapse="layer")
    svgs = frames.frame_svgs()
    assert sum(a == b for a, b in itertools.pairwise(svgs)) == 0


# ---- items 5 and 6: refuse an over-limit graph before doing the work -------------------


def _chain(steps: int) -> Value:
    v = Value(0.5, label="x")
    for _ in range(steps):
        v = (v * 1.0001 + 0.0).tanh()
    return v


BIG = _chain(12_000)  # 60,001 values


ENTRY_POINTS = {
    "draw": lambda z, tmp: draw(z),
    "animate": lambda z, tmp: z.animate(),
    "Player": lambda z, tmp: Player(z),
    "Frames": lambda z, tmp: Frames(z),
    "save_html": lambda z, tmp: export_mod.save_html(z, tmp / "a.html"),
    "save_svg_animation": lambda z, tmp: export_mod.save_svg_animation(z, tmp / "a.svg"),
    "save_gif": lambda z, tmp: export_mod.save_gif(z, tmp / "a.gif"),
    "filmstrip": lambda z, tmp: export_mod.filmstrip(z),
}


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_over_limit_graph_is_refused_without_building_anything_its_size(name, tmp_path):
    for module in ("cairosvg", "PIL.Image"):  # save_gif's imports are no part of the graph
        with contextlib.suppress(ImportError, OSError):
            importlib.import_module(module)
    tracemalloc.start()
    try:
        with pytest.raises((GraphTooLargeError, AnimationTooLargeError), match="values"):
            ENTRY_POINTS[name](BIG, tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the graph itself is ~7 MB; a walk that stops at the limit needs well under 1 MB
    assert peak < 2_000_000, f"{name} allocated {peak / 1e6:.1f} MB before refusing"


@pytest.fixture
def no_dot(monkeypatch):
    """Fail the test if anything runs a layout."""

    def refuse(*args, **kwargs):
        raise AssertionError("a layout ran before the size check")

    monkeypatch.setattr(layout, "run_dot", refuse)


def _many_frames() -> Value:
    net = MLP(2, [16, 16, 1], seed=0)
    return (net([1.0, -1.0]) - 1.0) ** 2


def test_too_many_frames_is_refused_before_any_layout(no_dot):
    L = _many_frames()
    n = len(L.topological_order())
    with pytest.raises(AnimationTooLargeError, match="max_frames"):
        L.animate(max_nodes=n, max_frames=1000)  # its 3,000-odd steps: a row each


def test_too_many_bytes_is_refused_before_any_layout(no_dot, monkeypatch):
    from autograd_viz.viz import player as player_mod

    L = _many_frames()
    n = len(L.topological_order())
    monkeypatch.setattr(player_mod, "DEFAULT_MAX_BYTES", 200_000)  # its table is ~1 MB
    with pytest.raises(AnimationTooLargeError, match="MB"):
        L.animate(max_nodes=n, max_frames=100_000)


# ---- item 8: options everywhere the messages suggest them ------------------------------


def test_timeout_is_accepted_by_every_entry_point(tmp_path):
    z = _blog()
    z.draw(timeout=300).svg()
    z.animate(timeout=300)
    Frames(z, timeout=300)
    export_mod.save_html(z, tmp_path / "a.html", timeout=300)
    export_mod.save_svg_animation(z, tmp_path / "a.svg", timeout=300)


UNKNOWN_OPTION = {  # call, the public name it must give, an option it must list
    "animate": (lambda z, tmp: z.animate(projecter=True), "animate", "projector"),
    "Player": (lambda z, tmp: Player(z, projecter=True), "Player", "projector"),
    "draw": (lambda z, tmp: z.draw(projecter=True), "draw", "rankdir"),
    "save_html": (
        lambda z, tmp: export_mod.save_html(z, tmp / "a.html", projecter=True),
        "save_html",
        "rankdir",
    ),
    "save_svg_animation": (
        lambda z, tmp: export_mod.save_svg_animation(z, tmp / "a.svg", projecter=True),
        "save_svg_animation",
        "seconds_per_step",
    ),
}


@pytest.mark.parametrize("name", UNKNOWN_OPTION)
def test_unknown_option_names_the_public_function_and_its_options(name, tmp_path):
    call, public, listed = UNKNOWN_OPTION[name]
    with pytest.raises(TypeError, match="projecter") as err:
        call(_blog(), tmp_path)
    assert f"{public}()" in str(err.value)
    assert listed in str(err.value)


# ---- item 12: hostile labels, the same everywhere --------------------------------------

HOSTILE = "a\ud800b\x00c\x07d\x1be"


def _hostile() -> Value:
    return Value(2.0, label=HOSTILE) * Value(3.0, label="y")


@pytest.mark.parametrize("suffix", ["html", "svg"])
def test_exports_write_hostile_labels_as_draw_does(suffix, tmp_path):
    z = _hostile()
    save = export_mod.save_html if suffix == "html" else export_mod.save_svg_animation
    path = save(z, tmp_path / f"a.{suffix}")
    text = path.read_bytes().decode("utf-8")  # valid UTF-8
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]", text)
    drawn = draw(z).svg()
    shown = re.search(r">(a[^<]*e)<", drawn).group(1)  # the label as draw() shows it
    assert shown in text


# ---- show_grad=False, huge labels ------------------------------------------------------


def test_show_grad_false_leaves_the_grad_out():
    z = _blog()
    z.backward()
    svg = z.draw(show_grad=False).svg()
    nodes = re.findall(r'<g id="v\d+" class="node.*?</g>', svg, re.S)
    assert nodes and not any("grad" in n for n in nodes)


def test_a_huge_label_is_clipped_in_equations_as_in_drawings(tmp_path):
    x = Value(2.0, label="x" * 100_000)
    z = x * x + 1
    longest = max(len(s.text) for s in trace(z))
    assert longest < 1_000
    assert len(Frames(z).frame_svg(0)) < 100_000
    assert export_mod.save_html(z, tmp_path / "a.html", katex=False).stat().st_size < 300_000


# ---- item 1: x ** n at 0, everywhere ---------------------------------------------------


def test_power_zero_at_zero_has_slope_zero_in_trace_and_gradcheck():
    x = Value(0.0, label="x")
    p = x**0 + 2 * x + 3 * x**2
    p.backward()
    steps = trace(p, "backward")
    assert steps[-1].grads[0] == x.grad == 2
    assert not any("⁻¹" in s.text or "∞" in s.text for s in steps)
    report = gradcheck(lambda a: a**0 + 2 * a + 3 * a**2, [0.0])
    assert report.ok


# ---- item 11: a number as label, the same in every viewer ------------------------------


def test_a_number_label_is_shown_as_text_by_trace_frames_and_draw():
    z = Value(2.0, label=5) * 3
    z.backward()
    assert trace(z)[-1].text.startswith("∂")
    assert any("5" in s.text for s in trace(z, "forward"))
    assert ">5<" in draw(z).svg()
    assert ">5<" in Frames(z).frame_svg(0)
