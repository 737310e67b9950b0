"""Options every entry point takes alike: `timeout=` is accepted everywhere the messages
suggest it, and an unknown option is refused naming the public function and its options.
"""

from __future__ import annotations

import pytest

from autograd_viz import Value
from autograd_viz import export as export_mod
from autograd_viz.frames import Frames
from autograd_viz.player import Player


def _blog() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


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
