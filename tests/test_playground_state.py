"""The playground's state says what its page shows: the link's step counts as the page does,
an input cannot take the output's name, and the downloaded notebook computes the numbers
the page showed (floats, as the page computes them, never Python's exact integers)."""

from __future__ import annotations

import json
import math

import pytest

from autograd_viz import playground
from autograd_viz.api import player_for
from autograd_viz.playground.expression import ExpressionError, build, notebook_for


def _steps(params: dict[str, str]) -> dict:
    return playground.view({"e": "(x+y)*y", "x": "2", "y": "3", "mode": "steps", **params})


def test_a_links_step_is_the_step_the_page_shows_with_that_number():
    shown = _steps({"step": "7"})
    assert shown["params"]["step"] == "7" and shown["step"] == 7
    player = player_for(build("(x+y)*y", {"x": "2", "y": "3"}), widgets=False)
    # the page goes to frame step - 1, whose caption is the number in the link
    assert player.frames.caption(shown["step"] - 1).text.startswith("step 7 of 9")


@pytest.mark.parametrize(("step", "shown"), [(None, "1"), ("0", "1"), ("-4", "1"), ("1", "1"),
                                             ("9", "9"), ("99", "9"), ("x", "1")])  # fmt: skip
def test_a_links_step_counts_from_1_to_the_last_step(step, shown):
    params = {} if step is None else {"step": step}
    out = _steps(params)
    assert out["steps"] == 9
    assert out["params"]["step"] == shown and out["step"] == int(shown)


@pytest.mark.parametrize("text", ["z * x", "x * z", "tanh(z)", "(x + z) * z"])
def test_an_input_named_like_the_output_is_refused_with_a_message(text):
    column = text.index("z") + 1
    with pytest.raises(ExpressionError, match="'z' is the output's name") as err:
        build(text, {"x": "3", "z": "2"})
    assert err.value.column == column and err.value.field == "expression"
    shown = playground.view({"e": text, "x": "3", "z": "2", "mode": "derivation"})
    assert "output's name" in shown["error"]["message"] and "lines" not in shown
    with pytest.raises(ExpressionError, match="output's name"):
        playground.notebook_json({"e": text, "x": "3", "z": "2"})


def _run_notebook(text: str, values: dict[str, str]) -> dict:
    """Run the downloaded notebook's code cells that build and differentiate (not draw)."""
    nb = json.loads(playground.notebook_json({"e": text, **values}))
    scope: dict = {}
    exec(nb["cells"][1]["source"], scope)  # the kit's own generated code
    exec(nb["cells"][2]["source"], scope)
    return scope


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (
        a == b and math.copysign(1, a) == math.copysign(1, b)
    )


@pytest.mark.parametrize(
    ("text", "data"),
    [
        ("x*(1e16+1-1e16)", 0.0),  # floats: 1e16 + 1 is 1e16; Python's ints would give 1
        ("x*(1e300*1e300)", math.inf),  # floats overflow to inf; ints raise OverflowError
        ("x*(1e300*1e300 - 1e300*1e300)", math.nan),
        ("x*(0*-1)", -0.0),
        ("x*(0-2) + (0-2)*x + x**(0-2)", None),
        ("x * 2 + 3 / x", None),
        ("x*(1e200**2)", math.inf),  # the page: 1e200 ** 2 overflows to inf
        ("tanh(1+1) * x + x ** (1/3)", None),
        ("x * 1e20 + 9007199254740993 * x", None),
    ],
)
def test_the_downloaded_notebook_computes_what_the_page_showed(text, data):
    page = build(text, {"x": "2"})
    page.backward()
    x = next(v for v in page.leaves() if v.label == "x")
    if data is not None:
        assert _same(page.data, data)
    scope = _run_notebook(text, {"x": "2"})
    assert _same(scope["z"].data, page.data), (scope["z"].data, page.data)
    assert _same(scope["x"].grad, x.grad), (scope["x"].grad, x.grad)


def test_the_notebook_writes_short_numbers_where_they_are_exact():
    nb = notebook_for("x * 2 + (1+1) * x - 0.5", {"x": "1"})
    assert "z = x * 2 + 2 * x - 0.5" in nb["cells"][1]["source"]
    assert "import math" not in nb["cells"][1]["source"]
    inf = notebook_for("x * (1e300*1e300)", {"x": "1"})["cells"][1]["source"]
    assert "z = x * math.inf" in inf and "import math" in inf


@pytest.mark.parametrize("mode", ["quiz", "explore"])
def test_the_notebook_of_a_quiz_or_explore_link_opens_the_same_widget_on_the_same_numbers(mode):
    """A learner who downloads the notebook from the quiz or explore mode gets that widget as
    the notebook's last cell, on the numbers the page showed (folded constants included)."""
    params = {"e": "tanh(w*x + b)*2 + (1+1)*x", "w": "-3", "x": "2", "b": "0.5", "mode": mode}
    nb = json.loads(playground.notebook_json(params))
    scope: dict = {}
    for cell in nb["cells"][1:3]:
        exec(cell["source"], scope)
    assert nb["cells"][0]["source"].endswith(
        ", and the last is the quiz." if mode == "quiz" else ", and the last moves its inputs.")
    widget = eval(nb["cells"][-1]["source"].split("\n")[-1], {**scope, **_imports(nb)})
    page = playground.widget_view(params)["traits"]
    if mode == "quiz":
        assert [b.label for b in widget.blanks] == [b["label"] for b in page["asked"]]
    else:
        assert widget.result["cells"] == page["result"]["cells"]
        assert widget.inputs == {"w": -3.0, "x": 2.0, "b": 0.5}
        assert widget.result["cells"]["v0-grad"] == f"grad {scope['w'].grad:.4g}"
    assert mode not in json.dumps(playground.notebook_for("x*2", {"x": "1"})["cells"][-1])


def _imports(nb: dict) -> dict:
    scope: dict = {}
    exec(nb["cells"][-1]["source"].split("\n")[0], scope)
    return scope
