"""Every viewer refuses a graph, or an animation, over its limits before doing the work:
counting stops at the limit (well under 1 MB for a 60,001-value graph) and no layout runs.
"""

from __future__ import annotations

import contextlib
import importlib
import tracemalloc

import pytest

from autograd_viz import MLP, Value
from autograd_viz import export as export_mod
from autograd_viz.frames import Frames
from autograd_viz.player import AnimationTooLargeError, Player
from autograd_viz.render import GraphTooLargeError, draw
from autograd_viz.view import layout


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
    from autograd_viz.view import advice

    L = _many_frames()
    n = len(L.topological_order())
    monkeypatch.setattr(advice, "DEFAULT_MAX_BYTES", 200_000)  # its table is ~1 MB
    with pytest.raises(AnimationTooLargeError, match="MB"):
        L.animate(max_nodes=n, max_frames=100_000)


def test_the_inline_player_and_every_export_refuse_too_many_frames_before_any_layout(no_dot):
    """Where widgets do not render (Colab, VS Code, a static page) `animate()` is the inline
    page, and it had no frame limit: MLP(2, [256, 256, 1])'s loss became a page of 399,114
    frames and 188 MB after 74 s. The page, the exports and the widget share the limits now
    (`view.advice`), checked before the layout."""
    from autograd_viz import animate
    from autograd_viz.export import filmstrip, save_html, standalone_html, svg_animation

    loss = (MLP(2, [32, 32, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2
    n = len(loss.topological_order())  # ~1,200 values: over 5,000 steps
    with pytest.raises(AnimationTooLargeError, match="max_frames=5000"):
        animate(loss, widgets=False, max_nodes=n)
    with pytest.raises(AnimationTooLargeError, match="max_frames=100"):
        animate(_many_frames(), widgets=False, max_nodes=n, max_frames=100)
    for export in (svg_animation, standalone_html, filmstrip):
        with pytest.raises(AnimationTooLargeError, match="max_frames=5000"):
            export(loss, max_nodes=n)
    with pytest.raises(AnimationTooLargeError, match="max_frames=5000"):
        save_html(loss, "never-written.html", max_nodes=n)


def test_a_forward_pass_longer_than_max_frames_is_refused_before_the_trace(monkeypatch):
    """The inputs and one step per operation are counted from the graph before any step is
    traced: MLP(2, [256, 256, 1])'s 200,000 values were traced for a minute (widget 67 s,
    inline page 74 s) before the frame count refused them. The count is a floor of the real
    one (each of the forward pass's steps is one of them)."""
    from autograd_viz import animate
    from autograd_viz.view import frames as frames_mod

    def no_trace(*args, **kwargs):
        raise AssertionError("the steps were traced before the count refused them")

    loss = (MLP(2, [32, 32, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2
    n = len(loss.topological_order())
    monkeypatch.setattr(frames_mod, "steps_for", no_trace)
    for widgets in (True, False):
        with pytest.raises(AnimationTooLargeError, match=r"at least \d+ frames .*by='neuron'"):
            animate(loss, widgets=widgets, max_nodes=n, max_frames=1000)


def test_the_count_before_the_trace_never_exceeds_the_real_one():
    """`check_least_frames` refuses only what the trace would refuse too: its floor (the
    inputs and one step per operation) is at most the forward pass's real steps, on 120 random
    expressions and 5 networks, both notations."""
    import random

    from autograd_viz.open.snapshot import snapshot
    from autograd_viz.view import advice

    rng = random.Random(7)
    ops = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b, lambda a, b: a.tanh(),
           lambda a, b: a.relu(), lambda a, b: a**2, lambda a, b: a / (b * b + 1)]  # fmt: skip
    roots = []
    for _ in range(120):
        made = [Value(rng.uniform(-2, 2), label=name) for name in "abc"] + [Value(3.0)]
        for _ in range(rng.randint(1, 20)):
            made.append(rng.choice(ops)(rng.choice(made), rng.choice(made)))
        roots.append(made[-1])
    roots += [(MLP(2, [4, 4, 1], seed=s)([1.0, -1.0]) - 1.0) ** 2 for s in range(5)]
    for root in roots:
        graph = snapshot(root)
        if graph.root.is_leaf:
            continue
        least = sum(1 for node in graph.nodes if not node.is_leaf) + 1
        with pytest.raises(AnimationTooLargeError):
            advice.check_least_frames(graph, "forward", "operation", least - 1)
        advice.check_least_frames(graph, "both", "operation", least)  # at the floor: passes
        for notation in ("blog", "adjoint"):
            frames = Frames(graph, "forward", notation=notation, max_nodes=len(graph))
            assert len(frames.steps) >= least, (notation, len(frames.steps), least)
