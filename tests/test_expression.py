"""autograd_viz.playground.expression: the allow-list reader of typed expressions, its limits, and
the notebook it writes (plus autograd_viz.playground, the page's Python side that uses it)."""

from __future__ import annotations

import builtins
import json
import math

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograd_viz import playground
from autograd_viz.engine import Constant, Value
from autograd_viz.playground.expression import (
    FUNCTIONS,
    MAX_DEPTH,
    MAX_EXPONENT,
    MAX_LENGTH,
    MAX_NODES,
    ExpressionError,
    build,
    notebook_for,
    parse_expression,
    parse_inputs,
)
from autograd_viz.trace import format_number

# What a link may carry: (expression, inputs, the character the message must name, column).
HOSTILE = [
    ("__import__('os')", {}, "'_'", 1),
    ("().__class__", {}, "'.'", 3),
    ("lambda: 1", {}, "':'", 7),
    ("9**9**9", {}, "'**'", 2),
    ("x" * 10_000, {}, "column 501", MAX_LENGTH + 1),
    ("(" * 500 + "x" + ")" * 500, {}, "'('", MAX_DEPTH + 1),
    ("<script>alert(1)</script>", {}, "'<'", 1),
    ("javascript:alert(1)", {}, "':'", 11),
    ("x * 2", {"x": "<script>alert(1)</script>"}, "'<'", 1),
    ("x * 2", {"x": "javascript:alert(1)"}, "'j'", 1),
    ("tanh(x).__globals__", {"x": "1"}, "'.'", 8),
    ("x.data", {"x": "1"}, "'.'", 2),
    ("open(x)", {"x": "1"}, "'open'", 1),
    ("exec(x)", {"x": "1"}, "'exec'", 1),
    ("x if x else x", {"x": "1"}, "'if'", 3),
    ("avz_canary.update(touched=True)", {}, "'.'", 11),  # the canary, in reach of eval
    ("avz_canary", {}, "no value for avz_canary", 1),  # a name is an input, never a lookup
    ("[x]", {"x": "1"}, "'['", 1),
    ("x; x", {"x": "1"}, "';'", 2),
    ("x\n+1", {"x": "1"}, "U+000A", 2),
]


@pytest.mark.parametrize(("text", "inputs", "named", "column"), HOSTILE)
def test_hostile_text_is_refused_naming_the_character_and_nothing_runs(
    text: str, inputs: dict, named: str, column: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []  # eval, exec and compile become traps while the text is read
    made: list[float] = []  # and so does Value(): refused before any work means no value built
    canary = {"touched": False}
    builtins.__dict__["avz_canary"] = canary
    try:
        with monkeypatch.context() as traps:
            for name in ("eval", "exec", "compile"):
                traps.setattr(builtins, name, lambda *a, _n=name, **k: calls.append(_n))
            real_init = Value.__init__
            traps.setattr(Value, "__init__", lambda v, data, *a, **k: (
                made.append(data), real_init(v, data, *a, **k))[1])  # fmt: skip
            try:
                build(text, inputs)
            except ExpressionError as refused:
                err = refused
            else:
                err = None
    finally:
        del builtins.__dict__["avz_canary"]
    assert err is not None, f"{text!r} was built"
    assert made == [], f"values were built before the text was refused: {made}"
    first, pointer, caret = str(err).split("\n")
    assert named in first, first
    assert err.column == column
    assert caret.strip() == "^"  # the caret sits under the offending character
    under = pointer[caret.index("^")]
    assert under == (err.text[column - 1] if err.text[column - 1].isprintable() else "?")
    assert calls == [] and canary == {"touched": False}


def test_the_caret_sits_under_the_offending_character() -> None:
    with pytest.raises(ExpressionError) as info:
        parse_expression("(x + y) ^ 2")
    _, line, caret = str(info.value).split("\n")
    assert line[caret.index("^")] == "^" and info.value.column == 9
    assert "write powers with **" in str(info.value)


def test_a_long_expression_shows_a_window_around_the_column() -> None:
    text = "x + " * 40 + "$" + " + x" * 40
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    _, line, caret = str(info.value).split("\n")
    assert len(line) < 70 and line[caret.index("^")] == "$"
    assert line.strip().startswith("…") and line.endswith("…")


@pytest.mark.parametrize(
    ("text", "inputs", "data", "grads"),
    [
        ("(x + y) * y", {"x": "2", "y": "3"}, 15.0, {"x": 3.0, "y": 8.0}),
        ("x - y / 2", {"x": "1", "y": "4"}, -1.0, {"x": 1.0, "y": -0.5}),
        ("-x**2", {"x": "3"}, -9.0, {"x": -6.0}),  # -(x**2), as Python reads it
        ("2**-1 * x", {"x": "4"}, 2.0, {"x": 0.5}),
        ("x ** y", {"x": "2", "y": "3"}, 8.0, {"x": 12.0, "y": 8 * math.log(2)}),
        ("relu(x) + sigmoid(x)", {"x": "0.5"}, 0.5 + 1 / (1 + math.exp(-0.5)), None),
        ("exp(log(x)) * sin(x) + cos(x)", {"x": "1.2"}, None, None),
        ("tanh(w*x + b)", {"w": "-3", "x": "2", "b": "6.8813735870195432"}, 0.7071068, None),
        ("1.5e1 * x + .5", {"x": "-0.1"}, -1.0, {"x": 15.0}),
        ("+x * +2", {"x": "3"}, 6.0, {"x": 2.0}),
    ],
)
def test_expressions_build_with_the_engine(text, inputs, data, grads) -> None:
    z = build(text, inputs)
    values = {k: float(v) for k, v in inputs.items()}
    local = {n: getattr(math, n) for n in ("tanh", "exp", "log", "sin", "cos")}
    local |= {"relu": lambda v: max(v, 0.0), "sigmoid": lambda v: 1 / (1 + math.exp(-v))}
    if data is not None:
        assert z.data == pytest.approx(data, rel=1e-6)
    z.backward()
    leaves = {v.label: v for v in z.leaves() if not isinstance(v, Constant)}
    assert set(leaves) == set(inputs)
    for name, leaf in leaves.items():
        if grads is not None:
            assert leaf.grad == pytest.approx(grads[name], rel=1e-9)
        # every gradient against central differences, computed from the text by our own reader
        h = 1e-6
        up = build(text, {**values, name: values[name] + h}).data
        down = build(text, {**values, name: values[name] - h}).data
        assert leaf.grad == pytest.approx((up - down) / (2 * h), rel=1e-4, abs=1e-6)
    assert z.label == "z"
    assert set(local) == set(FUNCTIONS)  # the list is exactly the engine's functions
    assert set(FUNCTIONS) == {"tanh", "exp", "log", "relu", "sigmoid", "sin", "cos"}
    assert all(callable(getattr(Value, f)) for f in FUNCTIONS)


def test_names_come_in_order_of_appearance_and_reused_names_are_one_input() -> None:
    assert parse_expression("tanh(w*x + b) * w").names == ("w", "x", "b")
    z = build("x * x", {"x": "3"})
    (x,) = [v for v in z.leaves()]
    z.backward()
    assert x.grad == 6.0


def test_numbers_fold_and_functions_of_numbers_stay_in_the_graph() -> None:
    z = build("x ** (1 + 1)", {"x": "3"})
    assert z.op == "**2" and z.data == 9.0
    z = build("tanh(0.5) * x", {"x": "2"})
    assert z.parents[0].op == "tanh" and isinstance(z.parents[0].parents[0], Constant)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the expression is empty"),
        ("x +", "ends early"),
        ("(x + y", "')' should come here, to close the '(' of column 1"),
        ("x + y)", "')' without its '('"),
        ("x y", "cannot follow"),
        ("2 * 3", "no inputs"),
        ("9 ** 200 * x", "at most 100"),
        ("x ** 101", "at most 100"),
        ("x", "the input x alone"),
        ("e * x", "keeps"),  # the link's own key: only in the playground
        ("if * x", "a word Python or the kit keeps"),
        ("tanh * x", "is a function, not a name"),
        ("Value * x", "a word Python or the kit keeps"),
        ("foo(x)", "'foo' at column 1 is not a function here"),
        ("x" + "y" * 30, "characters long: at most 24"),
        ("1" * 30 + " * x", "is 30 characters long"),
        ("1e999 * x", "too large for a float"),
        ("log(x - 5)", "log"),
        ("x / (x - x)", "division by zero"),
        ("(0 - 8) ** (1 / 3) * x", "negative base"),
        ("x, y", "decimals take a point"),
        ("x × y", "write products with *"),
        ("x − y", "'−' at column 3: type the minus sign as -"),  # pasted from a text
        ("x ÷ y", "write divisions with /"),
        ("x * 2 + .", "'.' at column 9: a point belongs inside a number"),
        ("x²", "'²' at column 2: write powers with ** (x**2), not ²"),
        ("x * ٣", "'٣' at column 5: not allowed here"),  # a digit, but not an ASCII one
    ],
)
def test_refusals_say_what_to_do(text: str, message: str) -> None:
    params = {"e": text, "x": "2", "y": "3"}
    if message == "keeps":
        shown = playground.view(params)
        assert "keeps for itself" in shown["error"]["message"]
        return
    with pytest.raises(ExpressionError, match=None) as info:
        build(text, {"x": "2", "y": "3"})
    assert message in str(info.value), str(info.value)
    assert playground.view(params)["error"]["what"] == info.value.what


def test_the_depth_limit_holds_for_signs_powers_and_calls_too() -> None:
    for text in ["-" * 40 + "x", "x" + "**x" * 40, "tanh(" * 20 + "x" + ")" * 20]:
        with pytest.raises(ExpressionError, match=r"levels deep|parentheses deep"):
            build(text, {"x": "0.5"})
    assert build("-" * 20 + "x", {"x": "1"}).data == 1.0  # inside the limit, fine


def test_the_node_limit_refuses_before_building(monkeypatch: pytest.MonkeyPatch) -> None:
    text = " + ".join(f"x{i}" for i in range(60))  # 60 inputs, 59 sums: within the length limit
    assert len(text) <= MAX_LENGTH
    built = []
    monkeypatch.setattr(Value, "__init__", lambda *a, **k: built.append(1) or None)
    with pytest.raises(ExpressionError, match=f"more than the {MAX_NODES}"):
        parse_expression(" + ".join(["x * x - x"] * 40))
    assert built == []


@pytest.mark.parametrize(
    "text",
    ["x - y - 2", "x / y / 3", "-(-x)", "tanh(x) * sin(y) / cos(x - y)", "x ** y ** 2",
     "2 * 3 * x", "(x + 1) * (x - 1) / (y + 2)", "sigmoid(relu(x) - exp(-y)) + log(x * y)"],
)  # fmt: skip
def test_the_count_before_building_is_never_below_the_graph(text: str) -> None:
    z = build(text, {"x": "1.5", "y": "2.5"})
    assert len(z.topological_order()) <= parse_expression(text).most


def test_every_size_limit_is_checked_against_the_kit_guard() -> None:
    from autograd_viz.open.size import check_size

    z = build(" + ".join(f"x{i}" for i in range(40)), {f"x{i}": "1" for i in range(40)})
    check_size(z, MAX_NODES)  # what build() ran: a built expression always fits a drawing
    assert MAX_EXPONENT == 100


def test_inputs_are_read_as_numbers_only() -> None:
    names = ("x", "y")
    assert parse_inputs(names, {"x": " -0.5 ", "y": 2, "z": "ignored"}) == {"x": -0.5, "y": 2.0}
    with pytest.raises(ExpressionError, match="no value for y") as info:
        parse_inputs(names, {"x": "1"})
    assert info.value.field == "y"
    with pytest.raises(ExpressionError, match="'x' at column 3") as info:
        parse_inputs(("a",), {"a": " 2x"})
    assert info.value.field == "a"
    with pytest.raises(ExpressionError, match="is not a number"):
        parse_inputs(("a",), {"a": "٣"})
    with pytest.raises(TypeError, match="a number or its text"):
        parse_inputs(("a",), {"a": None})
    with pytest.raises(TypeError, match="the expression is text"):
        parse_expression(3)


def test_code_is_python_that_builds_the_same_graph() -> None:
    for text in ["(x + y) * y", "-x**2", "x - (y - x)", "x / (y * x)", "(x ** 2) ** y",
                 "tanh(w*x + b)", "2 ** x", "-(x + y)", "sin(2) * x"]:  # fmt: skip
        expression = parse_expression(text)
        values = {n: 1.5 + 0.25 * k for k, n in enumerate(expression.names)}
        leaves = {n: Value(v, label=n) for n, v in values.items()}
        code = expression.code()
        # our own generated code, run by the test to hold it to the reader (never user text)
        mine = builtins.eval(code, {"Value": Value, "Constant": Constant}, leaves)
        assert mine.data == pytest.approx(build(text, values).data, rel=1e-12), (text, code)
    assert parse_expression("x - (y - x)").code() == "x - (y - x)"
    assert parse_expression("(x ** 2) ** y").code() == "(x ** 2) ** y"
    assert parse_expression("tanh(w*x + b)").code() == "(w * x + b).tanh()"


def test_the_notebook_builds_draws_and_animates_the_same_expression(tmp_path) -> None:
    nb = notebook_for("tanh(w*x + b)", {"w": "-3", "x": "2", "b": "0.5"}, phase="backward")
    notebook = nbformat.reads(json.dumps(nb), as_version=4)
    nbformat.validate(notebook)
    sources = [c.source for c in notebook.cells]
    assert sources[1].splitlines() == [
        "from autograd_viz import Value",
        "",
        'w = Value(-3.0, label="w")',
        'x = Value(2.0, label="x")',
        'b = Value(0.5, label="b")',
        "z = (w * x + b).tanh()",
        'z.label = "z"',
    ]
    assert sources[3:] == ["z.draw()", 'z.animate(phase="backward")']
    namespace: dict = {}
    for source in sources[1:3]:
        builtins.exec(source, namespace)  # the kit's own generated cells
    assert namespace["z"].data == pytest.approx(math.tanh(-5.5))
    with pytest.raises(ExpressionError):
        notebook_for("__import__('os')", {})
    with pytest.raises(ValueError, match="phase"):
        notebook_for("x * 2", {"x": "1"}, phase="sideways")


def test_playground_view_writes_the_link_back_canonically() -> None:
    shown = playground.view({"e": "(x+y)*y", "y": "3", "mode": "steps", "step": "99",
                             "phase": "<script>", "junk": "1"})  # fmt: skip
    last = str(shown["steps"])  # counted from 1, as the page shows it
    assert shown["params"] == {"e": "(x+y)*y", "x": "1", "y": "3", "mode": "steps",
                               "phase": "both", "notation": "blog", "step": last}  # fmt: skip
    assert "<iframe" in shown["player"] and shown["summary"] == "z = 12; ∂z/∂x = 3, ∂z/∂y = 7"
    drawn = playground.view({"e": "x*2", "x": "3", "mode": "bogus"})
    assert drawn["mode"] == "draw" and drawn["svg"].lstrip().startswith(("<svg", "<?xml"))
    derived = playground.view({"e": "x*2", "x": "3", "mode": "derivation", "notation": "adjoint"})
    assert derived["lines"][0]["text"] == "inputs: x = 3"
    assert any("x̄" in line["text"] for line in derived["lines"])
    refused = playground.view({"e": "x * 2", "x": "javascript:alert(1)"})
    assert refused["error"]["field"] == "x" and refused["error"]["column"] == 1


def test_playground_quiz_is_the_kits_quiz_answered_through_its_view() -> None:
    """The page gets the Quiz's own View (its synced traits, no answer in them) and sends what
    player.js's quiz mode sends; the verdicts are the Quiz's."""
    q = playground.widget_view({"e": "(x + y) * y", "x": "2", "y": "3", "mode": "quiz"})
    traits = q["traits"]
    assert traits["mode"] == "quiz" and q["css"] and q["error"] is None
    labels = [b["label"] for b in traits["asked"]]
    assert labels == ["∂z/∂z", "∂z/∂(x + y)", "∂z/∂x", "∂z/∂y"]
    assert "grad 8" not in json.dumps(traits)  # the View holds no answer
    k = labels.index("∂z/∂y")
    wrong = playground.widget_update("send", {"req": 1, "answer": k, "text": "5"})["state"]
    assert wrong["req"] == 1 and wrong["right"] is False and wrong["feedback"].startswith("✘")
    playground.widget_update("send", {"req": 2, "answer": k, "text": "7"})
    offered = playground.widget_update("send", {"req": 3, "equation": k})["state"]
    assert offered["offered"] == k and offered["equation"].endswith("= ?")
    right = playground.widget_update("send", {"req": 4, "answer": k, "text": "5+3"})["state"]
    assert right["right"] is True and right["feedback"] == "✔ Right: ∂z/∂y = 8."
    assert right["solved"] == [False, False, False, True]
    assert right["progress"] == "3 of 4 blanks left to fill in."
    # the same quiz while the expression and inputs stay; another input: a new quiz
    again = playground.widget_view({"e": "(x + y) * y", "x": "2", "y": "3", "mode": "quiz"})
    assert again["key"] == q["key"] and again["traits"]["state"]["solved"][k] is True
    other = playground.widget_view({"e": "(x + y) * y", "x": "1", "y": "3", "mode": "quiz"})
    assert other["key"] != q["key"] and not any(other["traits"]["state"]["solved"])


def test_playground_quiz_refuses_a_graph_too_big_to_fill_in_by_hand() -> None:
    text = " + ".join(f"tanh(x{i})" for i in range(31))  # 31 inputs, 31 tanh, 30 sums: 92
    shown = playground.widget_view({"e": text, "mode": "quiz"})
    assert "a quiz draws every value with a blank" in shown["error"]["message"]
    assert playground.view({"e": text, "mode": "draw"})["error"] is None  # drawing it is fine


def test_playground_explore_is_explore_of_the_expression_recomputed_through_its_view() -> None:
    """explore mode is `explore()` of a function that builds the expression on its inputs:
    a slider's request (what player.js's explore mode sets) gives the numbers `build` gives,
    and the page's input boxes set the explorer's inputs on the same layout."""
    params = {"e": "tanh(w*x + b)", "w": "-3", "x": "2", "b": "6.8814", "mode": "explore"}
    shown = playground.widget_view(params)
    traits = shown["traits"]
    assert traits["mode"] == "explore"
    assert [s["name"] for s in traits["spec"]] == ["w", "x", "b"]
    svg = traits["svg"]

    def agrees(result: dict, values: dict[str, str]) -> None:
        z = build("tanh(w*x + b)", values)
        z.backward()
        leaves = {v.label: v for v in z.leaves()}
        assert result["summary"] == f"z = {format_number(z.data, 4)}"
        for i, name in enumerate(["w", "x"]):  # the leaves come first, in the order they meet
            assert result["cells"][f"v{i}-grad"] == f"grad {format_number(leaves[name].grad, 4)}"

    agrees(traits["result"], params)
    request = {"req": 1, "inputs": {"w": -3, "x": 1.5, "b": 6.8814}}  # as the view sends it
    moved = playground.widget_update("set", {"request": request})
    assert moved["result"]["error"] == ""
    assert moved["result"]["req"] == 1 and moved["inputs"]["x"] == 1.5
    agrees(moved["result"], {**params, "x": "1.5"})
    typed = playground.widget_view({**params, "x": "0.5"})  # the page's own box
    assert typed["key"] == shown["key"] and typed["traits"]["svg"] == svg  # laid out once
    assert typed["traits"]["result"]["req"] == -1  # from Python: the view shows the inputs
    agrees(typed["traits"]["result"], {**params, "x": "0.5"})
    assert playground.summary({**params, "x": "0.5"}).startswith(
        typed["traits"]["result"]["summary"] + ";")
    widget = playground._widget["widget"]
    playground.widget_update("set", {"layouts": 9, "_esm": ""})  # not traits of the View
    assert widget.layouts == 1 and widget._esm


def test_playground_notebook_json_is_the_notebook_for_the_link() -> None:
    params = {"e": "x*y", "x": "2", "y": "-1", "mode": "steps", "phase": "forward"}
    notebook = json.loads(playground.notebook_json(params))
    assert notebook == notebook_for("x*y", {"x": "2", "y": "-1"}, phase="forward")
    with pytest.raises(ExpressionError, match="keeps for itself"):
        playground.notebook_json({"e": "step * 2"})


_PIECES = [*"xy0123456789.+-*/()^_ ,:;'\"<>[]{}²٣−\n\t", "**", "tanh(", "log(", "exp(", "lambda",
           "__", "9**", "e", "step"]  # fmt: skip


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_any_text_builds_a_value_or_is_refused_with_an_expression_error(text: str) -> None:
    try:
        z = build(text, {"x": "0.5", "y": "-2", "e": "1", "step": "2"})
    except ExpressionError as err:
        assert 1 <= err.column <= max(len(err.text), 1) + 1
        return
    assert isinstance(z, Value) and z.label == "z"
