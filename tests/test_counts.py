"""The options that count things (`max_nodes`, `max_frames`) are checked by one helper: a whole
number of at least 1, numpy's too, never a bool or a fraction, each refused with the same words
before any graph is read, and a numpy count is shown as a plain number in the advice. The other
whole-number options (a player's history and step, a frame's index, columns, digits, a width or
height, a training view's steps) take numpy's integers too, and keep them as Python's own."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_viz
from autograd_viz import Value
from autograd_viz.api import ask_table
from autograd_viz.export import worksheet
from autograd_viz.frames import Frames
from autograd_viz.trace import trace
from autograd_viz.view.render import GraphTooLargeError


def _z() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    return (x + y) * y


COUNTED = {
    "draw": lambda n: autograd_viz.draw(_z(), max_nodes=n),
    "trace": lambda n: trace(_z(), max_nodes=n),
    "ask_table": lambda n: ask_table(_z(), max_nodes=n),
    "quiz": lambda n: autograd_viz.quiz(_z(), max_nodes=n),
    "explore": lambda n: autograd_viz.explore(lambda x, y: (x + y) * y, x=2.0, y=3.0, max_nodes=n),
    "animate": lambda n: autograd_viz.animate(_z(), max_frames=n),
    "animate, inline": lambda n: autograd_viz.animate(_z(), widgets=False, max_frames=n),
    "worksheet": lambda n: worksheet(_z(), max_nodes=n),
    "Frames": lambda n: Frames(_z(), max_frames=n),
}


@pytest.mark.parametrize("call", COUNTED.values(), ids=COUNTED.keys())
def test_a_numpy_count_is_a_count(call):
    """It was refused: "max_frames must be a positive int, got np.int64(50)"."""
    assert call(np.int64(50)) is not None
    assert call(np.int32(50)) is not None


@pytest.mark.parametrize("call", COUNTED.values(), ids=COUNTED.keys())
@pytest.mark.parametrize("bad", [0, -3, 2.5, np.float64(50.0), True, np.bool_(True), "50"])
def test_what_is_not_a_count_is_refused_with_the_same_words(call, bad):
    with pytest.raises(Exception, match=r"max_(nodes|frames) must be a positive int, got "):
        call(bad)


def test_a_numpy_count_reads_as_a_plain_number_in_the_advice():
    with pytest.raises(GraphTooLargeError) as refused:
        autograd_viz.draw(_z(), max_nodes=np.int64(3))
    assert "np.int64" not in str(refused.value)
    assert "max_nodes=3" in str(refused.value) or "more than 3" in str(refused.value)


def _chain(make, n: int):
    x = make(0.5)
    for _ in range(n):
        x = x * 1.0000001
    return x


def _entries(root, n) -> dict:
    from autograd_viz.export import filmstrip, svg_animation
    from autograd_viz.player import Player

    return {
        "draw": lambda: autograd_viz.draw(root, max_nodes=n),
        "animate": lambda: autograd_viz.animate(root, max_nodes=n),
        "animate, inline": lambda: autograd_viz.animate(root, max_nodes=n, widgets=False),
        "trace": lambda: trace(root, max_nodes=n),
        "ask_table": lambda: ask_table(root, max_nodes=n),
        "quiz": lambda: autograd_viz.quiz(root, max_nodes=n),
        "worksheet": lambda: worksheet(root, max_nodes=n),
        "Frames": lambda: Frames(root, max_nodes=n),
        "Player": lambda: Player(root, max_nodes=n),
        "svg_animation": lambda: svg_animation(root, max_nodes=n),
        "filmstrip": lambda: filmstrip(root, max_nodes=n),
    }


@pytest.mark.parametrize("engine", ["ours", "micrograd"])
def test_a_numpy_max_nodes_refuses_a_large_graph_before_it_is_read(engine):
    """The door counted only a plain int: with max_nodes=np.int64(100) a 601-value graph was
    read whole, then refused ("this graph has 601 values"), by every entry but draw."""
    make = Value if engine == "ours" else pytest.importorskip("micrograd.engine").Value
    root = _chain(make, 300)  # 601 values
    for name, call in _entries(root, np.int64(100)).items():
        with pytest.raises(Exception, match="more than 100 values") as refused:
            call()
        assert "601" not in str(refused.value), (name, str(refused.value))


# ---- the other whole-number options: numpy's integers taken, and kept as Python's own ----------


def _whole_options(n, tmp_path) -> dict:
    """Each option that takes a whole number, with `n`, and what it kept of `n` (an int)."""
    from autograd_viz import MLP
    from autograd_viz.core.derive import derive
    from autograd_viz.export import filmstrip, save_gif
    from autograd_viz.front.inline import InlinePlayer
    from autograd_viz.front.training import TrainingView
    from autograd_viz.open.snapshot import snapshot
    from autograd_viz.player import Player

    def training(option):
        view = TrainingView(MLP(2, [2, 1], seed=1), [[0, 0], [1, 1], [0, 1]], [0, 1, 1], show=False,
                            **{"steps": 4, "every": 2, option: n})  # fmt: skip
        return getattr(view, option)

    def stepped():
        player = Player(_z())
        player.step = n
        return player.step

    def network():
        from autograd_viz.front.training import draw_network

        return draw_network(MLP(2, [2, 1], seed=1), [[0, 0], [1, 1], [0, 1]], [0, 1, 1],
                            sample=n).source  # fmt: skip

    return {
        "Player history": lambda: Player(_z(), history=n).history,
        "TrainingView sample": lambda: training("sample"),
        "draw_network sample": network,
        "Player step": stepped,
        "Frames caption index": lambda: Frames(_z()).caption(n).text,
        "filmstrip columns": lambda: filmstrip(_z(), columns=n).columns,
        "derive digits": lambda: derive(snapshot(_z()), "backward", digits=n)[-1].text,
        "TrainingView steps": lambda: training("steps"),
        "TrainingView every": lambda: training("every"),
        "InlinePlayer height": lambda: InlinePlayer(snapshot(_z()), height=n).height,
        "save_gif width": lambda: save_gif(_z(), tmp_path / "z.gif", width=n).stat().st_size,
    }


_PIXELS = {"InlinePlayer height": 200, "save_gif width": 200}  # the others take 2


@pytest.mark.parametrize("option", list(_whole_options(2, None)))
def test_a_numpy_whole_number_is_taken_as_the_same_plain_int(option, tmp_path):
    """They were refused ("columns must be a positive whole number, got np.int64(2)") or, for
    a frame's index, said the frame did not exist."""
    if option == "save_gif width":
        pytest.importorskip("cairosvg")
    good = _PIXELS.get(option, 2)
    plain = _whole_options(good, tmp_path)[option]()
    for n in (np.int64(good), np.int32(good)):
        kept = _whole_options(n, tmp_path)[option]()
        assert kept == plain and type(kept) is type(plain), (option, kept, plain)


@pytest.mark.parametrize("option", list(_whole_options(2, None)))
@pytest.mark.parametrize("bad", [lambda g: g + 0.5, np.float64, lambda g: True, str],
                         ids=["a fraction", "numpy float", "True", "a string"])
def test_what_is_not_a_whole_number_is_still_refused(option, bad, tmp_path):
    if option == "save_gif width":
        pytest.importorskip("cairosvg")
    with pytest.raises((ValueError, TypeError, IndexError)):
        _whole_options(bad(_PIXELS.get(option, 2)), tmp_path)[option]()


# ---- the door takes a count or nothing: a bad max_nodes reaches the option check on every path --


def _door_paths() -> dict:
    from autograd_viz import MLP

    loss = MLP(2, [3, 1], seed=1)([1.0, 2.0])
    neurons = {"collapse": "neuron"}
    paths = {
        "animate, neurons counted": lambda n: autograd_viz.animate(loss, **neurons, max_nodes=n),
        "animate inline, neurons counted": lambda n: autograd_viz.animate(
            loss, **neurons, widgets=False, max_nodes=n
        ),
        "quiz": lambda n: autograd_viz.quiz(_z(), max_nodes=n),
    }
    try:
        import torch
    except ImportError:  # PyTorch is optional
        return paths
    x = torch.tensor(2.0, requires_grad=True)
    y = torch.tensor(3.0, requires_grad=True)
    z = (x + y) * y
    for name in ("animate", "quiz", "draw"):
        call = getattr(autograd_viz, name)
        paths[f"{name}, a PyTorch tensor"] = (
            lambda n, call=call: call(z, names={"x": x, "y": y}, max_nodes=n)
        )
    return paths


@pytest.mark.parametrize("path", list(_door_paths()))
@pytest.mark.parametrize("bad", ["x", 2.5, True, 0])
def test_a_bad_max_nodes_is_refused_in_the_options_words_on_every_path_through_the_door(path, bad):
    with pytest.raises(Exception, match=r"max_nodes must be a positive int, got "):
        _door_paths()[path](bad)
