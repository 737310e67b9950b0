"""Where widgets cannot render: the choice `animate()` makes, and what the widget-free player,
an exercise, the teacher switch and a quiz show instead (`autograd_viz.front.inline`)."""

from __future__ import annotations

import html
import json
import re
import sys
import types

import pytest

from autograd_viz import Value, quiz
from autograd_viz.api import player_for as animate
from autograd_viz.exercises import Exercise, teacher_mode
from autograd_viz.front.inline import (
    WIDGETS_ENV,
    FrontendError,
    InlinePlayer,
    widgets_render,
)
from autograd_viz.front.static import module_text
from autograd_viz.player import Player


def _blog_z() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


@pytest.fixture
def no_widgets(monkeypatch):
    monkeypatch.setenv(WIDGETS_ENV, "0")


@pytest.mark.parametrize(("setting", "expected"), [("1", True), ("0", False), (" Off ", False),
                                                    ("yes", True), ("", True)])  # fmt: skip
def test_the_environment_variable_decides(monkeypatch, setting, expected):
    monkeypatch.setenv(WIDGETS_ENV, setting)
    assert widgets_render() is expected


def test_an_unreadable_setting_says_which_values_work(monkeypatch):
    monkeypatch.setenv(WIDGETS_ENV, "maybe")
    with pytest.raises(FrontendError, match=r"set it to 1 \(widgets\) or 0"):
        widgets_render()


def test_colab_gets_the_widget_free_player(monkeypatch):
    monkeypatch.delenv(WIDGETS_ENV, raising=False)
    assert widgets_render() is True
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    assert widgets_render() is False
    assert isinstance(animate(_blog_z()), InlinePlayer)
    monkeypatch.setenv(WIDGETS_ENV, "1")  # the variable overrides the guess
    assert isinstance(animate(_blog_z()), Player)


def test_value_animate_follows_the_choice(no_widgets):
    player = _blog_z().animate()
    assert isinstance(player, InlinePlayer)
    assert player.n_frames == 9
    assert isinstance(_blog_z().animate(widgets=True), Player)


def test_animate_rejects_a_widgets_option_that_is_not_a_bool():
    with pytest.raises(FrontendError, match="True, False or None"):
        animate(_blog_z(), widgets="no")


def test_inline_player_is_the_standalone_page_in_a_frame_of_its_own():
    player = animate(_blog_z(), widgets=False, speed=2, projector=True)
    out = player._repr_html_()
    assert out.startswith('<iframe class="avz-inline"') and out.endswith("</iframe>")
    page = html.unescape(re.search(r'srcdoc="([^"]*)"', out).group(1))
    assert page.startswith("<!doctype html>") and '<body class="avz-projector">' in page
    data = json.loads(re.search(r'id="avz-data">(.*?)</script>', page).group(1))
    assert data["interval"] == 500 and data["projector"] is True  # 2 steps per second
    assert module_text() in page  # the one player module, with the presenter's keys
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing to fetch
    assert "katex.min" not in page and "KaTeX_Main" not in page  # KaTeX of the page around
    with_maths = html.unescape(animate(_blog_z(), widgets=False, katex=True)._repr_html_())
    assert "KaTeX_Main" in with_maths.split('id="avz-data"', 1)[0]  # its own KaTeX
    assert repr(player) == "<InlinePlayer of 'z': 9 frames (widget-free)>"


@pytest.mark.parametrize("height", [50, 1.5, True, "400"])
def test_inline_player_rejects_a_height_that_is_not_css_pixels(height):
    with pytest.raises(ValueError, match="CSS pixels"):
        animate(_blog_z(), widgets=False, height=height)


def test_without_widgets_an_exercise_shows_its_question_and_an_answer_to_open(
    no_widgets, monkeypatch
):
    monkeypatch.setenv("AUTOGRAD_VIZ_TEACHER", "1")  # the answer is on the page for the teacher
    ex = Exercise("With x = 2 and y = 3, what is x + y?", answer=5, hint="Add them.")
    bundle = ex._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    page = bundle["text/html"]
    assert "what is x + y?" in page
    assert "<details><summary>Hint</summary>Add them.</details>" in page
    assert re.search(r"<details><summary>Show the answer</summary><b>Answer:</b> 5</details>", page)


def test_with_widgets_the_answer_stays_out_of_the_page(monkeypatch):
    monkeypatch.setenv(WIDGETS_ENV, "1")
    bundle = Exercise("2 + 3 = ?", answer=5)._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "text/html" not in bundle


def test_without_widgets_the_teacher_switch_says_answers_open_one_by_one(no_widgets, monkeypatch):
    monkeypatch.setenv("AUTOGRAD_VIZ_TEACHER", "1")
    note = teacher_mode()
    assert "each answer opens under its question" in note._repr_html_()


def test_teacher_switch_label_says_what_a_click_will_do(monkeypatch):
    monkeypatch.setenv(WIDGETS_ENV, "1")
    monkeypatch.setenv("AUTOGRAD_VIZ_TEACHER", "1")  # the switch needs the teacher's machine
    switch = teacher_mode()
    assert switch.description == "Teacher: show all answers"
    switch.value = True
    assert switch.description == "Teacher: hide all answers"
    switch.value = False
    assert switch.description == "Teacher: show all answers"


def test_without_widgets_a_quiz_is_a_graph_to_fill_in_on_paper(no_widgets, monkeypatch):
    monkeypatch.setenv("AUTOGRAD_VIZ_TEACHER", "1")  # the answers are on the page for the teacher
    page = quiz(_blog_z())._repr_mimebundle_()["text/html"]
    assert "<svg" in page and "Show the answers" in page
    assert "<li>∂z/∂y = 8</li>" in page and "<li>∂z/∂x = 3</li>" in page


def test_a_wide_drawing_scrolls_in_its_output_and_a_narrow_one_stays_a_picture():
    w = Value(1.0, label="a")
    for k in range(7):
        w = w * Value(1.0 + k / 10, label=f"w{k}")
    wide = w.draw()._repr_mimebundle_()
    assert 'class="avz-wide-drawing" style="overflow-x: auto' in wide["text/html"]
    assert wide["image/svg+xml"] in wide["text/html"]  # the same picture, at its own size
    assert "text/html" not in _blog_z().draw()._repr_mimebundle_()


def test_a_learners_own_engine_gets_the_widget_free_player_too(no_widgets):
    import autograd_viz
    from autograd_viz.open.snapshot import snapshot

    player = autograd_viz.animate(_blog_z())
    assert isinstance(player, InlinePlayer) and player.n_frames == 9
    assert repr(animate(snapshot(_blog_z()), widgets=False)).startswith("<InlinePlayer of 'z'")


def test_the_widget_free_player_needs_neither_anywidget_nor_ipywidgets():
    # the playground runs the kit in Pyodide with neither installed: asking for the widget-free
    # player must not import the widget's module
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['anywidget'] = sys.modules['ipywidgets'] = None\n"
        "from autograd_viz import Value\n"
        "from autograd_viz.api import player_for\n"
        "x, y = Value(2.0, label='x'), Value(3.0, label='y')\n"
        "print(player_for((x + y) * y, widgets=False)._repr_html_()[:7])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "<iframe"
