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
    from autograd_viz.front import player as player_mod

    L = _many_frames()
    n = len(L.topological_order())
    monkeypatch.setattr(player_mod, "DEFAULT_MAX_BYTES", 200_000)  # its table is ~1 MB
    with pytest.raises(AnimationTooLargeError, match="MB"):
        L.animate(max_nodes=n, max_frames=100_000)
