"""The player widget: an anywidget over the one player module, every step of every phase a
row of one step table from one layout, `step` and `phase` synced both ways, clear errors, and
a saved widget state small enough to keep (a table row per step, not a drawing).

Browser behaviour (clicks, keys, playback, the kernel driving it, the HTML export) is in
tests/browser/ and tests/smoke/test_notebook7.py."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograd_viz import MLP, Value
from autograd_viz.front.player import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_FRAMES,
    AnimationTooLargeError,
    PlayerError,
)
from autograd_viz.front.static import module_text, static_text
from autograd_viz.player import Player
from autograd_viz.trace import TraceError, trace
from autograd_viz.view.render import GraphTooLargeError
from autograd_viz.view.steptable import payload

STATIC = Path(__file__).resolve().parents[1] / "autograd_viz" / "front" / "static"


def _blog_z() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


def _data_text(page: str) -> str:
    return html.unescape(re.search(r'data-text="([^"]*)"', page).group(1))


# ---- frames ----------------------------------------------------------------------------


def test_one_frame_per_step_of_the_trace_starting_at_the_first():
    z = _blog_z()
    player = Player(z)
    steps = trace(z)
    assert player.n_frames == len(steps) == len(player.steps)
    assert player.step == 1  # steps count from 1
    table = player.data
    assert table["phases"]["both"] == list(range(len(steps)))
    assert table["text"] == [s.text for s in steps] and table["tex"] == [s.latex for s in steps]
    assert table["svg"].count("<svg") == 1  # the drawing once; a step is a row


def test_every_phase_is_in_the_one_table_without_repeating_a_step():
    z = _blog_z()
    table = Player(z).data
    forward, backward = trace(z, phase="forward"), trace(z, phase="backward")
    assert [table["text"][i] for i in table["phases"]["forward"]] == [s.text for s in forward]
    assert [table["text"][i] for i in table["phases"]["backward"]] == [s.text for s in backward]
    assert len(table["text"]) == len(trace(z))  # the phases share their rows with "both"


def test_a_step_row_holds_only_the_slots_it_changes():
    player = Player(_blog_z())
    table = player.data
    slots, strings = table["slots"], table["strings"]
    row = list(table["base"])
    for k, changes in enumerate(table["changes"]):
        pairs = list(zip(changes[::2], changes[1::2]))
        assert all(row[j] != v for j, v in pairs)  # only real changes are saved
        for j, v in pairs:
            row[j] = v
        svg = player.frames.frame_svg(k)  # the drawing Python makes for that step
        for (kind, key), v in zip(slots, row):
            if kind == "node":
                assert f'<g id="{key}" class="{strings[v]}">' in svg, (k, key)
            elif kind == "cell":
                assert f">{html.escape(strings[v], quote=False)}</text>" in svg, (k, key)


def test_each_frame_holds_caption_graph_and_that_steps_equation():
    z = _blog_z()
    player = Player(z)
    steps = trace(z)
    n = len(steps)
    for k, step in enumerate(steps, start=1):
        page = player.frame_html(k)
        assert f"step {k} of {n}" in page
        assert step.phase in page
        assert "<svg" in page and 'id="v0"' in page
        assert _data_text(page) == step.text
        assert html.escape(step.latex, quote=False) in page


def test_blog_example_first_and_last_equations():
    player = Player(_blog_z())
    assert "x = 2" in _data_text(player.frame_html(1))
    last = _data_text(player.frame_html(player.n_frames))
    assert last == player.steps[-1].text and last.endswith("= 8")  # ∂z/∂y = 5 + 3 = 8


def test_frames_light_forward_steps_orange_and_backward_steps_blue():
    player = Player(_blog_z())
    for k, step in enumerate(player.steps, start=1):
        svg = player.frame_html(k)
        active = re.search(rf'<g id="v{step.active}" class="([^"]*)"', svg).group(1).split()
        assert "active" in active
        if step.phase == "forward":
            assert "forward" in active
        else:  # blue once its gradient is final (a shared input waits for its last branch)
            assert ("backward" in active) == (step.active in step.grads)
        assert ".forward > .avz-shape {fill: var(--avz-forward, #E69F00);}" in svg
        assert ".backward > .avz-shape {fill: var(--avz-backward, #56B4E9);}" in svg
    assert any("backward" in player.frame_html(k) for k in range(1, player.n_frames + 1))


def test_values_appear_only_once_computed():
    z = _blog_z()
    player = Player(z, phase="forward")
    first = player.frame_html(1)
    last = player.frame_html(player.n_frames)
    assert "data 15" not in first and "data ?" in first  # z is not computed yet
    assert "data 15" in last and "grad ?" in last  # no gradient in the forward pass


def test_every_frame_uses_the_same_layout():
    player = Player(_blog_z())
    geometry = {
        tuple(re.findall(r'(?:points|d|cx|x)="([^"]+)"', player.frame_html(k)))
        for k in range(1, player.n_frames + 1)
    }
    assert len(geometry) == 1  # every coordinate of every frame is the same


def test_graph_is_hidden_from_mathjax_and_equation_is_display_math():
    page = Player(_blog_z()).frame_html(1)
    assert 'class="avz-graph tex2jax_ignore"' in page
    assert re.search(r'<div class="avz-eq" role="math" aria-label="[^"]+"[^>]*>\\\[.+\\\]</div>',
                     page)  # fmt: skip


# ---- controls ----------------------------------------------------------------------------


def test_the_widget_is_an_anywidget_over_the_one_player_module():
    import anywidget

    player = Player(_blog_z())
    assert isinstance(player, anywidget.AnyWidget)
    assert player._esm == module_text() and "export default" in player._esm
    assert player._css == static_text("player.css")
    synced = {name for name in player.trait_names(sync=True)}
    assert {"step", "phase", "data"} <= synced


def test_next_and_prev_step_and_stop_at_the_ends():
    player = Player(_blog_z())
    player.prev()
    assert player.step == 1
    player.next()
    player.next()
    assert player.step == 3
    player.prev()
    assert player.step == 2
    player.step = player.n_frames
    player.next()
    assert player.step == player.n_frames


def test_the_browser_moving_the_step_reaches_python():
    player = Player(_blog_z())
    seen = []
    player.observe(lambda change: seen.append(change["new"]), names="step")
    player.set_state({"step": 4})  # what a click on Next in the browser sends
    assert player.step == 4 and seen == [4]
    player.set_state({"phase": "backward", "step": 1})  # the phase buttons send both
    assert player.phase == "backward" and player.n_frames == len(trace(_blog_z(), "backward"))


def test_reset_pauses_and_goes_back_to_the_first_frame():
    player = Player(_blog_z())
    sent = []
    player.send = sent.append  # what reaches the browser
    player.step = 4
    player.reset()
    assert player.step == 1 and {"pause": True} in sent


def test_phase_selector_swaps_the_frame_set_and_restarts():
    z = _blog_z()
    player = Player(z)
    player.step = 3
    player.phase = "backward"
    backward = trace(z, phase="backward")
    assert player.n_frames == len(backward) and player.step == 1
    assert all(s.phase == "backward" for s in player.steps)
    assert _data_text(player.frame_html(1)) == backward[0].text
    player.phase = "forward"
    assert player.n_frames == len(trace(z, phase="forward"))


def test_speed_is_steps_per_second_and_the_table_keeps_the_interval():
    player = Player(_blog_z(), speed=4)
    assert player.interval == 250 == player.data["interval"]


def test_step_setter_refuses_out_of_range():
    player = Player(_blog_z())
    for bad in (0, player.n_frames + 1, 1.0, True):
        with pytest.raises(PlayerError, match="steps are numbered 1 to"):
            player.step = bad


def test_projector_mode_marks_the_player_for_large_type():
    assert Player(_blog_z(), projector=True).data["projector"] is True
    assert Player(_blog_z()).data["projector"] is False
    assert ".avz-player.avz-projector" in static_text("player.css")


def test_value_animate_returns_a_player_with_options():
    player = _blog_z().animate(phase="forward", speed=2)
    assert isinstance(player, Player)
    assert player.phase == "forward" and player.interval == 500


def test_draw_options_reach_the_drawing():
    player = Player(_blog_z(), rankdir="TB")
    lr = Player(_blog_z())
    assert player.frame_html(1) != lr.frame_html(1)


# ---- display ----------------------------------------------------------------------------


def test_displays_as_a_widget_view_with_a_kernel_free_html_beside_it():
    player = Player(_blog_z())
    player.step = 4
    bundle, _ = player._repr_mimebundle_()
    view = bundle["application/vnd.jupyter.widget-view+json"]
    assert view["model_id"] == player.model_id
    frame = bundle["text/html"]  # where no widget manager runs: the same module and table
    assert frame.startswith('<iframe class="avz-inline"')
    page = html.unescape(re.search(r'srcdoc="([^"]*)"', frame).group(1))
    # its own module and KaTeX (packed), not a first player's: Colab shows each output in a
    # frame of its own, and a saved file's first output is not the kernel's (architecture.md)
    assert module_text() in page and 'id="avz-katex"' in page
    data = json.loads(re.search(r'id="avz-data">(.*?)</script>', page).group(1))
    assert data["start"] == 4 and data["text"] == player.data["text"]
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing to fetch


def test_repr_is_short_and_names_the_root():
    player = Player(_blog_z())
    assert repr(player) == f"<Player of 'z': {player.n_frames} frames, phase='both'>"


# ---- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize("root", [3.0, [1, 2], None, "z"])
def test_refuses_a_root_that_is_not_a_value(root):
    with pytest.raises(TypeError, match="Player needs a Value"):
        Player(root)


def test_refuses_a_leaf_with_nothing_to_animate():
    with pytest.raises(PlayerError, match="nothing to animate"):
        Player(Value(1.0, label="x"))


@pytest.mark.parametrize("phase", ["up", "", None, "Forward"])
def test_refuses_an_unknown_phase(phase):
    with pytest.raises(TraceError, match="phase must be one of"):  # the one phase check
        Player(_blog_z(), phase=phase)


@pytest.mark.parametrize("speed", [0, -1, "fast", True])
def test_refuses_a_speed_that_is_not_positive(speed):
    with pytest.raises(PlayerError, match="speed is in steps per second"):
        Player(_blog_z(), speed=speed)


def test_refuses_more_frames_than_max_frames_with_advice():
    with pytest.raises(AnimationTooLargeError, match=r"Animate the forward pass alone: "
                       r"phase='forward' \(3 frames\)\. Or animate a smaller graph"):  # fmt: skip
        Player(_blog_z(), max_frames=5)


def test_a_graph_too_large_to_draw_is_refused_by_the_drawing():
    x = Value(0.5, label="x")
    out = x
    for _ in range(15):
        out = out * x + 1  # 45 values, no neurons to collapse
    with pytest.raises(GraphTooLargeError, match="max_nodes=20"):
        Player(out, max_nodes=20)


def test_a_network_on_one_input_has_too_many_frames_and_says_what_to_do():
    net = MLP(3, [8, 8, 1], seed=0)  # 623 steps: under the default limit, over this one
    with pytest.raises(AnimationTooLargeError, match=r"623 frames \(phase='both'\)"):
        Player(net([1.0, -2.0, 0.5]), max_frames=400)


@pytest.mark.slow
def test_a_2000_step_animation_fits_under_the_limits():
    loss = (MLP(3, [16, 16, 1], seed=0)([1.0, 1.0, 1.0]) - 1.0) ** 2
    player = Player(loss, collapse="neuron", by="operation")  # every operation, one layout
    assert player.n_frames == 2011 <= DEFAULT_MAX_FRAMES
    assert len(payload(player.data).encode()) < DEFAULT_MAX_BYTES / 10  # ~1 MB
    player.close()


@pytest.mark.slow
def test_the_mlp_neuron_animation_saves_at_most_2_5_mb():
    loss = (MLP(2, [16, 16, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2
    player = loss.animate(by="neuron", widgets=True)
    assert player.n_frames == 73
    saved = len(payload(player.data).encode()) + len(player._esm) + len(player._css)
    assert saved <= 2_500_000  # a copy of the SVG per step was 12.2 MB
    player.close()


def test_too_many_steps_are_refused_before_the_layout(monkeypatch):
    from autograd_viz.view import layout

    def no_layout(*args, **kwargs):
        raise AssertionError("dot ran before the step count was checked")

    monkeypatch.setattr(layout, "svg_from_dot", no_layout)
    with pytest.raises(AnimationTooLargeError, match="more than max_frames=5"):
        Player(_blog_z(), max_frames=5)


def test_a_failed_phase_switch_keeps_the_frames_on_show():
    z = _blog_z()
    player = Player(z, phase="forward", max_frames=len(trace(z, phase="forward")))
    with pytest.raises(AnimationTooLargeError):
        player.phase = "both"
    assert player.n_frames == len(trace(z, phase="forward"))
    assert player.phase == "forward"


# ---- saved widget state --------------------------------------------------------------------


@pytest.mark.slow
def test_executed_notebook_saves_one_model_with_the_table_and_no_drawing_per_step(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "from autograd_viz import Value\n"
            'x, y = Value(2.0, label="x"), Value(3.0, label="y")\n'
            "z = (x + y) * y\n"
            "player = z.animate()\n"
            "player"
        )
    ]
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", store_widget_state=True,
        resources={"metadata": {"path": str(tmp_path)}},
    )  # fmt: skip
    client.execute()
    state = nb.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    shown = nb.cells[0].outputs[-1]["data"]["application/vnd.jupyter.widget-view+json"]
    model = state[shown["model_id"]]
    assert model["model_name"] == "AnyModel" and model["model_module"] == "anywidget"
    table = model["state"]["data"]
    assert table["svg"].count("<svg") == 1 and len(table["text"]) == len(trace(_blog_z()))
    assert model["state"]["step"] == 1 and model["state"]["phase"] == "both"
    assert len(state) <= 3  # the player and its Layout: no model per frame or control
    assert json.dumps(state).count("<svg") == 1


def test_notebook_03s_player_saves_at_most_20_kb_of_step_table():
    # notebook 03's walkthrough player is the blog's z = (x + y) * y, 9 steps
    player = Player(_blog_z())
    assert player.n_frames == 9
    assert len(payload(player.data).encode()) <= 20_000


def test_close_frees_the_players_model():
    player = Player(_blog_z())
    assert player.comm is not None
    player.close()
    assert player.comm is None


def test_backward_captions_name_the_kind_of_step():
    player = Player(_blog_z())
    captions = {s.kind: re.search(r'<div class="avz-caption">(.*?)</div>', player.frame_html(k))
                for k, s in enumerate(player.steps, start=1)}  # fmt: skip
    text = {kind: re.sub("<[^>]+>", "", m.group(1)) for kind, m in captions.items()}
    assert text["value"].endswith("— forward pass")
    assert text["seed"].endswith("backward pass · the seed")
    assert text["local"].endswith("· a local derivative")
    assert text["contribution"].endswith("· the chain rule")
    assert text["accumulate"].endswith("· adding up the paths")


def test_each_frame_lists_the_earlier_lines_of_the_derivation():
    player = Player(_blog_z(), history=3)
    texts = [s.text for s in player.steps]
    for k in range(1, player.n_frames + 1):
        ol = re.search(r'<ol class="avz-history[^"]*" start="(\d+)"[^>]*>(.*?)</ol>',
                       player.frame_html(k))  # fmt: skip
        lines = [html.unescape(t) for t in re.findall(r"<li>(.*?)</li>", ol.group(2))]
        assert lines == texts[max(0, k - 4) : k - 1]  # at most 3, the latest last
        assert int(ol.group(1)) == k - len(lines)  # numbered as in the caption
    # room for the lines not yet written is kept under the equation (never between graph
    # and equation), so the controls below never move
    pad = r'<div class="avz-history-pad" style="height: ([\d.]+)em"'
    assert re.search(pad, player.frame_html(1)).group(1) == "4.2"
    assert re.search(pad, player.frame_html(3)).group(1) == "1.4"
    assert not re.search(pad, player.frame_html(4))
    assert player.frame_html(1).index("avz-eq") < player.frame_html(1).index("avz-history-pad")
    assert player.data["history"] == 3  # the module lists the same lines in the browser


def test_history_zero_shows_only_the_current_equation():
    assert "avz-history" not in Player(_blog_z(), history=0).frame_html(5)


@pytest.mark.parametrize("history", [-1, 1.5, "3", True])
def test_refuses_a_history_that_is_not_a_count(history):
    with pytest.raises(PlayerError, match="history is a number of lines"):
        Player(_blog_z(), history=history)


def test_only_player_js_steps_a_player_or_handles_its_keys():
    # one implementation: a second stepper (the old page.js, player_keys.js) would come back
    # with its own key table (Home/End) or its own slot painting
    scripts = sorted(STATIC.glob("*.js"))
    assert "player.js" in [p.name for p in scripts]
    for path in scripts:
        if path.name == "player.js":
            continue
        text = path.read_text(encoding="utf-8")
        keys = re.findall(r"""["']?\b(Home|End|PageDown|ArrowRight)\b["']?\s*[:=]""", text)
        steps = re.findall(r"""setAttribute\(\s*["']class["']|\.strings\[|\.changes\[""", text)
        assert not (keys and ("Home" in keys or "End" in keys)), (path.name, keys)
        assert not steps, (path.name, steps)
    player_js = (STATIC / "player.js").read_text(encoding="utf-8")
    assert "keydown" in player_js and "Home" in player_js and "PageDown" in player_js


def test_player_js_is_small_named_pieces_not_one_closure():
    """mount() was one 362-line closure; now it puts named pieces together (the graph stage,
    the caption, the equation, the history, the controls, the table, the keys, ...)."""
    lines = (STATIC / "player.js").read_text(encoding="utf-8").splitlines()
    sizes = {}
    for i, line in enumerate(lines):
        if m := re.match(r"(?:export )?(?:async )?function (\w+)", line):
            sizes[m.group(1)] = lines.index("}", i) - i + 1
    assert {"mount", "graphStage", "captionView", "controlsView", "keyAction"} <= set(sizes)
    assert max(sizes.values()) <= 110, sizes


@pytest.mark.parametrize("max_frames", [0, -3, 2.5, True])
def test_refuses_a_max_frames_that_is_not_a_positive_count(max_frames):
    with pytest.raises(PlayerError, match="max_frames must be a positive int"):
        Player(_blog_z(), max_frames=max_frames)


def test_the_shipped_module_parses_as_an_es_module(tmp_path):
    import shutil
    import subprocess

    node = shutil.which("node")
    if not node:
        pytest.skip("node is not installed: it checks the module's syntax")
    for name, text in (("player.mjs", static_text("player.js")), ("shipped.mjs", module_text())):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, (name, done.stderr)


@pytest.mark.slow
def test_a_players_nodes_explain_their_gradient_on_a_classroom_sized_graph_only():
    from autograd_viz.view.steptable import ASK_MAX_NODES

    small = Player(_blog_z()).data["ask"]["nodes"]
    assert small["v1"]["sum"] == "∂z/∂y = ȳ via the product + ȳ via the sum = 5 + 3 = 8"
    chain = Value(0.5, label="x")
    for _ in range(ASK_MAX_NODES):
        chain = chain * 1.0
    assert "ask" not in Player(chain).data  # its sums would outweigh the player
    assert "ask" not in Player(MLP(2, [2, 1])([1.0, 2.0]), by="neuron").data
