"""The player widget: one frame per step from one layout, controls linked in the browser,
clear errors, and a saved widget state complete enough for HTML export.

Browser behaviour (clicks, playback, the HTML export) is in tests/browser/."""

from __future__ import annotations

import html
import re

import nbformat
import pytest
from nbclient import NotebookClient

from autograd_viz import MLP, Value
from autograd_viz.trace import TraceError, trace
from autograd_viz.viz.player import AnimationTooLargeError, Player, PlayerError
from autograd_viz.viz.render import GraphTooLargeError


def _blog_z() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


def _links(player: Player) -> set[tuple[tuple[int, str], tuple[int, str]]]:
    """Every jslink of the player as ((source id, trait), (target id, trait)), either way."""
    pairs = set()
    for link in player.links:
        (a, ta), (b, tb) = link.source, link.target
        pairs |= {((id(a), ta), (id(b), tb)), ((id(b), tb), (id(a), ta))}
    return pairs


def _data_text(page: str) -> str:
    return html.unescape(re.search(r'data-text="([^"]*)"', page).group(1))


# ---- frames ----------------------------------------------------------------------------


def test_one_frame_per_step_of_the_trace_starting_at_the_first():
    z = _blog_z()
    player = Player(z)
    steps = trace(z)
    assert player.n_frames == len(steps) == len(player.steps)
    assert player.step == 1 and player.stack.selected_index == 1  # steps count from 1
    assert player.play.min == player.slider.min == player.step_box.min == 1
    assert player.play.max == player.slider.max == player.step_box.max == len(steps)
    assert len(player.stack.children) == len(steps) + 1  # child 0: the unused placeholder


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
    assert 'class="agv-graph tex2jax_ignore"' in page
    assert re.search(r'<div class="agv-eq" role="math" aria-label="[^"]+"[^>]*>\\\[.+\\\]</div>',
                     page)  # fmt: skip


# ---- controls ----------------------------------------------------------------------------


def test_play_slider_step_box_and_stack_are_linked_in_the_browser():
    player = Player(_blog_z())
    links = _links(player)
    play = (id(player.play), "value")
    assert (play, (id(player.stack), "selected_index")) in links
    assert (play, (id(player.slider), "value")) in links
    assert (play, (id(player.step_box), "value")) in links
    assert ((id(player.play), "interval"), (id(player.speed_slider), "value")) in links
    assert all(link._model_name == "LinkModel" for link in player.links)  # jslink, not dlink


def test_next_and_prev_buttons_step_and_stop_at_the_ends():
    player = Player(_blog_z())
    player.prev_button.click()
    assert player.step == 1
    player.next_button.click()
    player.next_button.click()
    assert player.step == 3
    player.prev_button.click()
    assert player.step == 2
    player.step = player.n_frames
    player.next_button.click()
    assert player.step == player.n_frames


def test_buttons_pause_playback():
    player = Player(_blog_z())
    player.play.playing = True
    player.next_button.click()
    assert player.play.playing is False


def test_reset_pauses_and_goes_back_to_the_first_frame():
    player = Player(_blog_z())
    player.step = 4
    player.play.playing = True
    player.reset()
    assert player.step == 1 and player.play.playing is False


def test_phase_selector_swaps_the_frame_set_and_restarts():
    z = _blog_z()
    player = Player(z)
    player.step = 3
    player.phase = "backward"
    backward = trace(z, phase="backward")
    assert player.n_frames == len(backward) and player.step == 1
    assert player.play.max == len(backward)
    assert all(s.phase == "backward" for s in player.steps)
    assert _data_text(player.frame_html(1)) == backward[0].text
    player.phase_selector.value = "forward"
    assert player.n_frames == len(trace(z, phase="forward"))


def test_speed_is_steps_per_second_and_the_slider_shows_the_interval():
    player = Player(_blog_z(), speed=4)
    assert player.play.interval == 250 == player.speed_slider.value


def test_step_setter_refuses_out_of_range():
    player = Player(_blog_z())
    for bad in (0, player.n_frames + 1, 1.0, True):
        with pytest.raises(PlayerError, match="steps are numbered 1 to"):
            player.step = bad


def test_projector_mode_marks_the_player_for_large_type():
    assert "agv-projector" in Player(_blog_z(), projector=True)._dom_classes
    assert "agv-projector" not in Player(_blog_z())._dom_classes


def test_value_animate_returns_a_player_with_options():
    player = _blog_z().animate(phase="forward", speed=2)
    assert isinstance(player, Player)
    assert player.phase == "forward" and player.play.interval == 500


def test_draw_options_reach_the_drawing():
    player = Player(_blog_z(), rankdir="TB")
    lr = Player(_blog_z())
    assert player.frame_html(1) != lr.frame_html(1)


# ---- display ----------------------------------------------------------------------------


def test_displays_as_a_widget_view():
    player = Player(_blog_z())
    bundle = player._repr_mimebundle_()
    view = bundle["application/vnd.jupyter.widget-view+json"]
    assert view["model_id"] == player.model_id


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
    net = MLP(3, [8, 8, 1], seed=0)
    with pytest.raises(AnimationTooLargeError, match=r"frames \(phase='both'\)"):
        Player(net([1.0, -2.0, 0.5]))


def test_a_failed_phase_switch_keeps_the_frames_on_show():
    z = _blog_z()
    player = Player(z, phase="forward", max_frames=len(trace(z, phase="forward")))
    with pytest.raises(AnimationTooLargeError):
        player.phase = "both"
    assert player.n_frames == len(trace(z, phase="forward"))
    assert player.phase == "forward"


# ---- saved widget state --------------------------------------------------------------------


def test_executed_notebook_saves_every_model_the_player_needs(tmp_path):
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
    models = [m["model_name"] for m in state.values()]
    n = len(trace(_blog_z()))
    assert models.count("StackModel") == 1
    assert models.count("PlayModel") == 1
    assert models.count("LinkModel") >= 4
    assert models.count("HTMLMathModel") == n + 1  # a frame per step and the placeholder
    html_states = [m["state"] for m in state.values() if m["model_name"] == "HTMLMathModel"]
    assert len({m["layout"] for m in html_states}) == 1  # the frames share one Layout
    shown = nb.cells[0].outputs[-1]["data"]["application/vnd.jupyter.widget-view+json"]
    assert state[shown["model_id"]]["model_name"] == "VBoxModel"
    stack = next(m for m in state.values() if m["model_name"] == "StackModel")["state"]
    assert len(stack["children"]) == n + 1 and stack["selected_index"] == 1
    frames = [m["state"]["value"] for m in state.values() if m["model_name"] == "HTMLMathModel"]
    assert sum("<svg" in f for f in frames) == n


def test_close_frees_every_widget_the_player_made():
    player = Player(_blog_z())
    made = [player, player.play, player.slider, player.step_box, player.stack]
    made += [*player.stack.children, *player.links, player.phase_selector]
    assert all(w.comm is not None for w in made)
    player.close()
    assert all(w.comm is None for w in made)


def test_phase_switch_never_leaves_the_stack_without_a_frame():
    player = Player(_blog_z())
    player.stack.selected_index = player.n_frames  # as the browser syncs it after playback
    seen = []
    player.stack.observe(lambda change: seen.append(change["new"]), names="selected_index")
    player.phase = "backward"  # fewer frames than the index on show
    assert None not in seen  # jslink would hand None to the step box and break it
    assert player.stack.selected_index == 1


def test_backward_captions_name_the_kind_of_step():
    player = Player(_blog_z())
    captions = {s.kind: re.search(r'<div class="agv-caption">(.*?)</div>', player.frame_html(k))
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
        ol = re.search(r'<ol class="agv-history[^"]*" start="(\d+)"[^>]*>(.*?)</ol>',
                       player.frame_html(k))  # fmt: skip
        lines = [html.unescape(t) for t in re.findall(r"<li>(.*?)</li>", ol.group(2))]
        assert lines == texts[max(0, k - 4) : k - 1]  # at most 3, the latest last
        assert int(ol.group(1)) == k - len(lines)  # numbered as in the caption
    # room for the lines not yet written is kept under the equation (never between graph
    # and equation), so the controls below never move
    pad = r'<div class="agv-history-pad" style="height: ([\d.]+)em"'
    assert re.search(pad, player.frame_html(1)).group(1) == "4.2"
    assert re.search(pad, player.frame_html(3)).group(1) == "1.4"
    assert not re.search(pad, player.frame_html(4))
    assert player.frame_html(1).index("agv-eq") < player.frame_html(1).index("agv-history-pad")


def test_history_zero_shows_only_the_current_equation():
    assert "agv-history" not in Player(_blog_z(), history=0).frame_html(5)


@pytest.mark.parametrize("history", [-1, 1.5, "3", True])
def test_refuses_a_history_that_is_not_a_count(history):
    with pytest.raises(PlayerError, match="history is a number of lines"):
        Player(_blog_z(), history=history)


def test_controls_that_need_the_kernel_are_marked_to_hide_without_one():
    player = Player(_blog_z())
    marked = {w for w in (player.prev_button, player.next_button, player.phase_selector)
              if "agv-needs-kernel" in w._dom_classes}  # fmt: skip
    assert len(marked) == 3
    for in_browser in (player.play, player.slider, player.step_box, player.speed_slider):
        assert "agv-needs-kernel" not in in_browser._dom_classes
    css = player.children[0].value
    assert ".agv-player.jupyter-widgets-disconnected .agv-needs-kernel { display: none; }" in css


@pytest.mark.parametrize("max_frames", [0, -3, 2.5, True])
def test_refuses_a_max_frames_that_is_not_a_positive_count(max_frames):
    with pytest.raises(PlayerError, match="max_frames must be a positive int"):
        Player(_blog_z(), max_frames=max_frames)
