"""explore(): the kernel side of the live drawing — a layout once, then only new texts;
a new layout only when f's graph changes shape; bad input refused before any work."""

from __future__ import annotations

import json

import pytest

import autograd_viz
from autograd_viz import Value, explore
from autograd_viz.front import explore as explore_module
from autograd_viz.front.explore import KERNEL_GONE, ExploreError, Explorer
from autograd_viz.view.render import GraphTooLargeError


def f(x, y):
    return (x + y) * y


def test_explore_is_exported_and_shows_the_drawing_at_the_starting_inputs():
    ex = autograd_viz.explore(f, x=2, y=3)
    assert isinstance(ex, Explorer)
    assert '<text id="v1-grad"' in ex.svg and ">grad 8<" in ex.svg
    assert ex.result["cells"]["v1-grad"] == "grad 8"
    assert ex.result["summary"] == "out = 15"
    assert [s["name"] for s in ex.spec] == ["x", "y"]
    assert ex.spec[0]["min"] < 2 < ex.spec[0]["max"]
    assert ex.result["ask"]["nodes"]["v1"]["sum"].endswith("= 5 + 3 = 8")


def test_a_request_from_the_browser_recomputes_every_text_without_a_new_layout(monkeypatch):
    ex = explore(f, x=2, y=3)
    svg = ex.svg
    layouts = []
    monkeypatch.setattr(explore_module, "_layout", lambda *a: layouts.append(a) or "<svg/>")
    ex.request = {"req": 1, "inputs": {"x": 1, "y": -2}}
    cells = ex.result["cells"]
    assert ex.result["req"] == 1 and ex.result["error"] == "" and ex.result["note"] == ""
    # z = (x + y) * y = (1 - 2) * -2 = 2; dz/dy = x + 2y = -3; dz/dx = y = -2
    assert cells["v3-data"] == "data 2" and cells["v1-grad"] == "grad −3"
    assert cells["v0-grad"] == "grad −2"
    assert ex.result["ask"]["nodes"]["v1"]["sum"].endswith("= −1 + (−2) = −3")
    assert ex.svg == svg and layouts == [] and ex.layouts == 1  # the same layout: no dot run
    assert ex.inputs == {"x": 1, "y": -2}


def test_a_request_from_the_browser_gets_one_message_back_the_answer_and_no_echo(monkeypatch):
    ex = explore(f, x=2, y=3)
    sent = []
    monkeypatch.setattr(ex, "_send", lambda msg, buffers=None: sent.append(msg))
    ex.set_state({"request": {"req": 1, "inputs": {"x": 1, "y": -2}}})  # as the comm does
    assert [m["method"] for m in sent] == ["update"]  # ipywidgets echoed `request` first
    assert sorted(sent[0]["state"]) == ["inputs", "result"]
    assert sent[0]["state"]["result"]["cells"]["v1-grad"] == "grad −3"


def test_the_learners_own_values_are_never_written():
    w = Value(0.5, label="w")
    ex = explore(lambda x: (w * x).tanh(), x=1)
    ex.recompute({"x": 2})
    ex.recompute({"x": 3})
    assert w.grad == 0


def test_a_branch_in_f_lays_the_graph_out_again_and_says_so():
    def g(x):
        return x * x if x.data > 0 else x + 1

    ex = explore(g, x=2)
    before = ex.svg
    ex.request = {"req": 1, "inputs": {"x": -1}}
    assert "laid out again" in ex.result["note"] and ex.layouts == 2
    assert ex.svg != before and ex.result["cells"]["v0-grad"] == "grad 1"
    ex.request = {"req": 2, "inputs": {"x": -3}}
    assert ex.result["note"] == "" and ex.layouts == 2  # the same shape as the last layout


def test_an_error_raised_by_f_or_a_non_number_is_shown_and_keeps_the_last_numbers():
    ex = explore(lambda x: x.log(), x=2)
    ex.request = {"req": 1, "inputs": {"x": -1}}
    assert ex.result["error"].startswith("ValueError: log(")
    assert ex.result["cells"]["v0-data"] == "data 2" and ex.inputs == {"x": 2.0}
    ex.request = {"req": 2, "inputs": {"x": ""}}
    assert ex.result["error"] == (
        "ExploreError: explore(): input x must be a number, got str ''; write e.g. explore(f, x=2)"
    )
    ex.request = {"req": 3, "inputs": {"q": 1}}
    assert "no input named 'q'" in ex.result["error"]


def test_inputs_set_from_python_recompute_too():
    ex = explore(f, x=2, y=3)
    ex.inputs = {"x": 0, "y": 1}
    assert ex.result["cells"]["v3-data"] == "data 1" and ex.result["req"] == -1


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: explore(3, x=1), TypeError, "f must be a function of Values, got int 3"),
        (lambda: explore(f, x=1, y="3"), ExploreError, "input y must be a number, got str '3'"),
        (lambda: explore(f, x=1, y=True), ExploreError, "input y must be a number"),
        (lambda: explore(f, x=1, y=float("nan")), ExploreError, "finite number"),
        (
            lambda: explore(f, x=1, y=2, w=3),
            ExploreError,
            "no input named 'w'; its inputs are x, y",
        ),
        (lambda: explore(f, x=1), ExploreError, r"f takes y but no starting number .*y=\.\.\."),
        (lambda: explore(f), ExploreError, "needs a starting number for each input"),
        (lambda: explore(lambda x: 2.0, x=1), ExploreError, "must return a Value .* got float 2.0"),
        (lambda: explore(f, x=1, y=2, max_nodes=0), ExploreError, "max_nodes must be a positive"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_graph_over_the_size_limit_is_refused_before_the_layout(monkeypatch):
    def chain(x):
        for _ in range(300):
            x = x * 1.01
        return x

    monkeypatch.setattr(explore_module, "_layout", lambda *a: pytest.fail("laid out"))
    with pytest.raises(GraphTooLargeError, match="more than 200 values"):
        explore(chain, x=1)


def test_f_that_is_not_called_when_its_inputs_are_wrong():
    calls = []

    def g(x):
        calls.append(x)
        return x

    with pytest.raises(ExploreError):
        explore(g, x=1, y=2)
    assert calls == []


def test_the_mimebundle_carries_a_kernel_free_drawing_and_the_state_is_json():
    ex = explore(f, x=2, y=3)
    data, _ = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    html = data["text/html"]
    assert "explore() at x = 2, y = 3" in html and "<svg" in html and ">grad 8<" in html
    json.dumps({"result": ex.result, "spec": ex.spec}, allow_nan=False)
    assert ex.kernel_gone == KERNEL_GONE
    assert "attachAsk" in ex._esm and "export default" in ex._esm


def test_the_explorer_ships_the_one_player_module_in_explore_mode():
    # one front end (docs/architecture.md, "One player"): no explore.js of its own beside
    # player.js; the model's `mode` tells the player module to render the number boxes
    from pathlib import Path

    from autograd_viz.front import static

    folder = Path(static.__file__).parent
    assert not (folder / "explore.js").exists()
    assert sorted(p.name for p in folder.glob("*.js")) == ["ask.js", "deck.js", "player.js"]
    ex = explore(f, x=2, y=3)
    assert ex._esm == static.module_text() == explore_module.module_text()
    assert ex.mode == "explore" and ex.get_state()["mode"] == "explore"
    assert "function exploreView(" in static.static_text("player.js")


def test_with_widgets_switched_off_only_the_kernel_free_drawing_is_shown(monkeypatch):
    ex = explore(f, x=2, y=3)
    monkeypatch.setenv("AUTOGRAD_VIZ_WIDGETS", "0")  # as exports/notebook_html.py runs a notebook
    data, _ = ex._repr_mimebundle_()
    assert sorted(data) == ["text/html", "text/plain"] and ">grad 8<" in data["text/html"]
    monkeypatch.setenv("AUTOGRAD_VIZ_WIDGETS", "1")
    assert "application/vnd.jupyter.widget-view+json" in ex._repr_mimebundle_()[0]


def test_the_modules_examples_run():
    import doctest

    from autograd_viz.front import explore

    result = doctest.testmod(explore)
    assert result.attempted >= 3 and result.failed == 0


def test_the_layout_leaves_room_for_longer_numbers_and_constants_keep_their_own(monkeypatch):
    sources = []
    real = explore_module.layout.svg_from_dot
    monkeypatch.setattr(
        explore_module.layout, "svg_from_dot", lambda s, **k: sources.append(s) or real(s, **k)
    )
    ex = explore(lambda x: x * 2 + 1, x=2)
    (source,) = sources
    assert source.count("data −0.000000") == 3 and source.count("grad −0.000000") == 3
    assert 'class="const" label=<2>' in source and 'class="const" label=<1>' in source
    assert ">data 2<" in ex.svg and ">grad 2<" in ex.svg and "−0.000000" not in ex.svg


@pytest.mark.slow
def test_the_offline_notebook_export_shows_the_drawing_at_the_starting_inputs(tmp_path):
    """exports/notebook_html runs a notebook with widgets off: explore's output is its drawing."""
    import nbformat

    from autograd_viz.exports.notebook_html import notebook_html

    nb = nbformat.v4.new_notebook()
    code = "from autograd_viz import explore\nexplore(lambda x, y: (x + y) * y, x=2, y=3)"
    nb.cells = [nbformat.v4.new_code_cell(code)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(nb, tmp_path / "explore.ipynb")
    page = notebook_html(tmp_path / "explore.ipynb", timeout=120)
    assert "explore() at x = 2, y = 3" in page and ">grad 8<" in page
    assert "vnd.jupyter.widget-view" not in page


# ---- hostile input ------------------------------------------------------------------------


def test_a_huge_starting_number_gets_a_finite_slider_or_a_clear_error():
    for start in (1e308, -1e308, 1.7976931348623157e308, 1e-320):
        spec = explore(lambda x: x * 2, x=start).spec[0]
        assert spec["min"] <= start <= spec["max"]
        assert all(abs(spec[k]) <= 1.7976931348623157e308 for k in ("min", "max", "step"))
        assert 0 < spec["step"] < spec["max"] - spec["min"]
    with pytest.raises(ExploreError, match=r"input x is too large for a float \(about 401 digits"):
        explore(lambda x: x * 2, x=10**400)
    ex = explore(f, x=2, y=3)
    assert "too large for a float" in ex.recompute({"x": 10**400, "y": 3})["error"]


MALFORMED = ["inputs", None, float("nan"), [1, 2], 7, {"req": "1", "inputs": {"x": 1}},
             {"req": None}, {"req": float("nan"), "inputs": {"x": 1}},
             {"req": [1], "inputs": {"x": 1}}, {"req": 5, "inputs": [1, 3]},
             {"req": 5, "inputs": None}]  # fmt: skip


@pytest.mark.parametrize("request_", MALFORMED, ids=repr)
def test_a_malformed_request_from_the_front_end_is_ignored(request_):
    ex = explore(f, x=2, y=3)
    before = (dict(ex.result), dict(ex.inputs))
    ex.request = request_  # what a broken or hostile front end could send; never raises
    assert (ex.result, ex.inputs) == before
    ex.request = {"req": 6, "inputs": {"x": 1, "y": 3}}  # and the next good one is answered
    assert ex.result["req"] == 6 and ex.result["summary"] == "out = 12"


def test_positional_only_inputs_are_inputs():
    def g(x, /, y):
        return (x + y) * y

    assert explore(g, x=2, y=3).result["summary"] == "out = 15"

    def h(x, y, /):
        return x * y

    with pytest.raises(ExploreError, match=r"f takes y but no starting number"):
        explore(h, x=2)


def test_star_args_and_nameless_builtins_say_how_to_name_the_inputs():
    def g(*args):
        return args[0] * args[1]

    with pytest.raises(ExploreError, match=r"f takes its inputs as \*args, .* wrap it in a "
                                           r"function that names them: explore\(lambda x, y: "
                                           r"g\(x, y\), x=\.\.\., y=\.\.\.\)"):  # fmt: skip
        explore(g, x=1, y=2)
    with pytest.raises(ExploreError, match=r"the inputs of max have no names .* explore\(lambda "
                                           r"x, y: max\(x, y\)"):  # fmt: skip
        explore(max, x=1, y=2)
    # abs takes one positional-only input: it is called, and the engine says what to write
    with pytest.raises(TypeError, match=r"abs\(\) is not one of the engine's operations"):
        explore(abs, x=1)


def test_the_kernel_free_drawing_escapes_input_names():
    name = "<img src=x onerror=alert(1)>"
    ex = explore(lambda **kw: sum(kw.values(), Value(0.0)), **{name: 1})
    page = ex._repr_mimebundle_()[0]["text/html"]
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_f_that_never_returns_is_stopped_with_the_time_limits_message():
    def stuck(x):
        while x.data > 2:
            pass
        return x * 2

    ex = explore(stuck, x=1, timeout=0.3)
    ex.request = {"req": 1, "inputs": {"x": 3}}  # the slider moves into the loop
    error = ex.result["error"]
    assert error.startswith("CodeTimeoutError: your f did not return within 0.3 s (timeout=0.3)")
    assert "it was still running in `stuck` (test_explore.py, line" in error
    assert ex.result["summary"] == "x · 2 = 2"  # the drawing keeps its last numbers
    with pytest.raises(autograd_viz.core.errors.CodeTimeoutError, match="pass a longer timeout="):
        explore(stuck, x=3, timeout=0.3)
    for bad in (0, -1, float("nan"), float("inf"), "5", True):
        with pytest.raises(ExploreError, match="timeout is the seconds f may run"):
            explore(stuck, x=1, timeout=bad)
