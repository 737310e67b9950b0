"""A player's speed and the widgets switch: what the docs say is what the code accepts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograd_viz import Value
from autograd_viz.front.inline import _NO, _YES, WIDGETS_ENV, FrontendError, widgets_render
from autograd_viz.front.player import PlayerError
from autograd_viz.player import Player
from autograd_viz.view.options import check_speed


def _z() -> Value:
    return Value(2.0, label="x") * Value(3.0, label="y")


@pytest.mark.parametrize("speed", [1e-320, 0.01, 0.0, -1.0, float("nan")])
def test_a_speed_slower_than_a_step_a_minute_is_refused_by_both_players(speed):
    # 1e-320 made the widget raise OverflowError: cannot convert float infinity to integer
    with pytest.raises(PlayerError, match=r"at least 1/60 \(one step a minute\); got"):
        Player(_z(), speed=speed)
    with pytest.raises(ValueError, match=r"at least 1/60 \(one step a minute\); got"):
        _z().animate(speed=speed, widgets=False)


def test_numpys_numbers_are_speeds_like_any_other():
    np = pytest.importorskip("numpy")
    # np.int64(2) was refused as "must be > 0, got np.int64(2)"
    assert Player(_z(), speed=np.int64(4)).interval == 250 == Player(_z(), speed=4).interval
    assert check_speed(np.float32(0.5)) == 0.5


@pytest.mark.parametrize("speed", ["2", True, None, [2]])
def test_a_speed_that_is_not_a_number_says_so(speed):
    with pytest.raises(ValueError, match=r"got \w+: .*Pass a number, e\.g\. speed=2"):
        check_speed(speed)


def test_the_widgets_switch_lists_every_spelling_it_accepts(monkeypatch):
    monkeypatch.setenv(WIDGETS_ENV, "maybe")
    with pytest.raises(FrontendError) as info:
        widgets_render()
    message = str(info.value)
    for word in (*_YES, *_NO):
        assert re.search(rf"\b{word}\b", message), word
    for word in _YES:
        monkeypatch.setenv(WIDGETS_ENV, word.upper())
        assert widgets_render() is True
    for word in _NO:
        monkeypatch.setenv(WIDGETS_ENV, word.capitalize())
        assert widgets_render() is False


def test_docs_errors_md_says_which_settings_the_widgets_switch_accepts():
    # the page said "1 or 0" while yes, False, on ... worked too
    errors = Path(__file__).parent.parent / "docs" / "errors.md"
    row = next(line for line in errors.read_text().splitlines() if "AUTOGRAD_VIZ_WIDGETS" in line)
    for word in (*_YES, *_NO):
        assert f"`{word}`" in row, word
