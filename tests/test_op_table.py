"""The op table is the one description of an operation: every reader takes what it needs from
the row (nn's `act=`, the neuron steps' slope, the quiz's noun, other engines' spellings,
methods, arity and rule names), and adding `softplus` the documented way — an engine method,
one `ops` row, one test case — is all it takes.

`_lacks(row)` is the completeness check: what a row is missing for any of its readers. Every
row of the table must lack nothing; rows built to lack one thing each show the check can fail.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import op_cases as cases  # tests/op_cases.py: the test cases, one per operation
import own_engines as oe
import pytest

import autograd_viz
from autograd_viz import MLP, Neuron, Value, quiz
from autograd_viz.core._equations import call
from autograd_viz.core.ops import (
    DERIVED,
    OPS,
    POWER_N,
    Op,
    activation_row,
    activations,
    describe,
    register,
    row,
    rows,
)
from autograd_viz.open.engines.check import RIGHT, WRONG
from autograd_viz.open.engines.ops import (
    canonical_op,
    engine_op,
    method_name,
    op_of_method,
    rule_name,
    table_partials,
    table_value,
    what_it_computes,
    written,
)
from autograd_viz.open.engines.read import read_graph
from autograd_viz.view.network import neuron_steps

# ---- the completeness check ------------------------------------------------------------------


def _build(r: Op) -> Value:
    """The row's operation on fresh Values, made by its engine method (as other engines' nodes
    are re-built to be checked)."""
    leaves = [Value(0.7, label="a"), Value(1.3, label="b")][: r.arity]
    if r.key == POWER_N:
        return getattr(Value, r.method)(leaves[0], 2)
    return getattr(Value, r.method)(*leaves)


def _lacks(r: Op) -> list[str]:
    """What row `r` is missing for one of its readers ([] when nothing)."""
    missing = []
    if r.arity not in (1, 2):
        missing.append(f"arity must be 1 or 2, not {r.arity!r}")
    if not callable(getattr(Value, r.method, None)):
        missing.append(f"no engine method Value.{r.method} (other engines' nodes are re-built "
                       "with it; nn calls an activation's)")  # fmt: skip
    elif r.arity in (1, 2):
        try:
            out = _build(r)
        except TypeError as e:
            missing.append(f"Value.{r.method} does not take {r.arity} operand(s): {e}")
        else:
            if not r.derived and describe(out.op) is not r:
                missing.append(f"Value.{r.method} makes op {out.op!r}, whose row is not this one")
    if not r.derived and not r.known:
        missing.append("no local derivative (`local`): the derivation needs its formula")
    if r.key in OPS and r.key in DERIVED:
        missing.append("a derived row shares its key with an engine op")
    if "rule" not in r.rule:
        missing.append(f"rule {r.rule!r} does not name a rule (engine_check's messages)")
    names = ["A", "B"][: r.arity]
    try:
        text = r.written.format(*names, n="2")
    except (IndexError, KeyError) as e:
        missing.append(f"written {r.written!r} needs more than {r.arity} operand(s): {e}")
    else:
        if not all(name in text for name in names):
            missing.append(f"written {r.written!r} leaves out an operand")
    if r.arity == 2 and not r.noun.removeprefix("the ").isidentifier():
        missing.append(f"noun {r.noun!r}: a call of three operands is named by it, `sum(a, b, c)`")
    if r.key != POWER_N:
        for spelling in r.spellings:
            if row(spelling) is not r:
                missing.append(f"spelling {spelling!r} is also row {row(spelling).key!r}'s")
    if r.activation:
        if r.arity != 1 or r.derived:
            missing.append("an activation is an engine op of one operand")
        if not r.slope:
            missing.append("an activation needs `slope` (the neuron step's text)")
        else:
            try:
                r.slope.format(z="0.5")
            except (IndexError, KeyError) as e:
                missing.append(f"slope {r.slope!r} may use only {{z}}: {e}")
        if activation_row(r.method) is not r:
            missing.append(f"act={r.method!r} is another activation's name too")
    return missing


@pytest.mark.parametrize("key", [r.key for r in rows()])
def test_every_row_has_what_every_reader_needs(key):
    r = OPS.get(key) or DERIVED[key]
    assert _lacks(r) == []


@pytest.fixture
def restore_table():
    """Undo every row a test registers."""
    saved = dict(OPS), dict(DERIVED)
    yield
    for table, rows_before in zip((OPS, DERIVED), saved):
        table.clear()
        table.update(rows_before)


def _row(**fields) -> Op:
    """A made-up row "wobble" with `fields`, registered (the fixture takes it away)."""
    return register(
        Op("wobble", "wobble", "wobble", lambda xs, a: call("wobble", "wobble", *xs),
           lambda k, a: (a.names[0], None), **fields)
    )  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "lack"),
    [
        ({"method": "tanh", "activation": True}, "an activation needs `slope`"),
        ({"method": "tanh", "activation": True, "slope": "f({x})"}, "may use only {z}"),
        ({}, "no engine method Value.wobble"),
        ({"method": "tanh"}, "makes op 'tanh', whose row is not this one"),
        ({"method": "__add__", "arity": 1}, "does not take 1 operand"),
        ({"method": "tanh", "arity": 3}, "arity must be 1 or 2"),
        ({"method": "tanh", "aliases": ("add",)}, "spelling 'add' is also row '+'"),
        ({"method": "tanh", "written": "{0} + {1}"}, "needs more than 1 operand"),
        ({"method": "tanh", "written": "wobble"}, "leaves out an operand"),
        ({"method": "tanh", "rule": "the wobble"}, "does not name a rule"),
        ({"method": "__add__", "arity": 2, "written": "{0} ~ {1}"}, "whose row is not this one"),
        ({"method": "tanh", "activation": True, "slope": "s"}, "act='tanh' is another"),
    ],
)
def test_the_completeness_check_names_what_a_row_lacks(restore_table, fields, lack):
    r = _row(**fields)
    assert any(lack in m for m in _lacks(r)), _lacks(r)


def test_an_engine_row_without_a_formula_is_incomplete(restore_table):
    r = register(Op("wobble", "wobble", "wobble", lambda xs, a: xs[0], None, method="tanh"))
    assert any("no local derivative" in m for m in _lacks(r))


def test_a_two_operand_row_needs_a_one_word_noun(restore_table):
    r = register(Op("~", "the wob ble", "wob", lambda xs, a: xs[0], None, derived=True,
                    method="__sub__", arity=2, written="{0} ~ {1}"))  # fmt: skip
    assert [m for m in _lacks(r) if "noun" in m] == [
        "noun 'the wob ble': a call of three operands is named by it, `sum(a, b, c)`"
    ]


# ---- other engines read the same rows --------------------------------------------------------


def _case(key: str) -> cases.Case:
    """The test case of an engine op (the square for every `x ** number`)."""
    if key == POWER_N:
        return cases.BY_NAME["square"]
    return next(c for c in cases.CASES if c.op == key and c.arity == OPS[key].arity)


@pytest.mark.parametrize("key", [r.key for r in rows() if r.key != POWER_N])
def test_every_spelling_of_a_row_is_that_row_to_another_engine(key):
    r = OPS.get(key) or DERIVED[key]
    for spelling in (*r.spellings, r.key.upper(), f" {r.method} "):
        assert canonical_op(spelling, r.arity) == key, spelling
    assert op_of_method(r.method) == key
    assert method_name(object(), key) == r.method  # no closure to read: the row's method
    assert rule_name(key) == r.rule
    assert engine_op(key) == (None if r.derived else key)
    assert written(key, ["p", "q"][: r.arity]) == r.written.format("p", "q")


def test_a_number_power_is_the_power_n_row_whatever_its_spelling():
    for spelling in ("**2", "** 2", "**(-1)", "pow", "__pow__", "**"):
        assert canonical_op(spelling, 1) == POWER_N, spelling
    assert canonical_op("**", 2) == "**"
    assert method_name(object(), POWER_N) == "__pow__"
    assert written(POWER_N, ["x"], 3.0) == "x**3"


@pytest.mark.parametrize("key", [r.key for r in rows() if not r.derived])
def test_another_engines_right_derivatives_are_the_engines_own_and_sympys(key):
    """engines.ops' numbers for a row agree with the test case's sympy derivative."""
    sympy = pytest.importorskip("sympy")
    case = _case(key)
    args = [0.7, 1.3][: case.arity]
    exponent = 2.0 if key == POWER_N else None
    symbols = sympy.symbols(f"a0:{case.arity}", real=True)
    expr = case.sympy(*symbols)
    at = dict(zip(symbols, args))
    assert math.isclose(table_value(key, args, exponent), float(expr.subs(at)), rel_tol=1e-9)
    got = table_partials(key, args, exponent)
    want = [float(sympy.diff(expr, s).subs(at)) for s in symbols]
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_derived_rows_are_rebuilt_from_the_engines_operations():
    assert table_value("-", [2.0, 5.0], None) == -3.0
    assert table_partials("/", [3.0, 2.0], None) == [0.5, -0.75]
    assert table_partials("neg", [4.0], None) == [-1.0]
    assert what_it_computes(-3.0, [2.0, 5.0], None, "+") == ("-", False)
    assert what_it_computes(3.0, [2.0, 5.0], None, "+") == ("-", True)
    # no node of ours carries one; another engine's does (PyTorch's SubBackward0): described
    assert describe("-") is DERIVED["-"] and describe("/").known and describe("neg").known
    assert set(DERIVED) == {"-", "/", "neg"} and not set(DERIVED) & set(OPS)


def test_the_readers_keep_no_list_of_operations_of_their_own():
    """The dicts that used to repeat the table are gone; each reader asks the table."""
    import autograd_viz.front.quiz as quiz_module
    import autograd_viz.nn as nn
    import autograd_viz.open.engines.ops as foreign_ops
    import autograd_viz.open.engines.read as foreign
    import autograd_viz.open.snapshot as graph
    import autograd_viz.view.network as network

    gone = {
        foreign_ops: ["_SPELLINGS", "_BUILD", "RULE_NAMES", "_METHODS", "ENGINE_OPS", "_ARITY",
                      "_WRITTEN"],
        nn: ["ACTIVATIONS", "_NAMES"],
        network: ["_ACTIVATIONS"],
        quiz_module: ["_NOUNS"],
        foreign: ["_CALLED"],
        graph: ["_FORWARD"],
    }  # fmt: skip
    for module, names in gone.items():
        assert [n for n in names if hasattr(module, n)] == [], module.__name__
    assert activations() == ("relu", "tanh", "sigmoid")


# ---- softplus, added the documented way (docs/architecture.md, "An operation") ---------------


def _softplus(self: Value) -> Value:  # edit 1: the engine method and its backward rule
    x = self.data
    return Value(max(x, 0.0) + math.log1p(math.exp(-abs(x))), "softplus", _softplus_back, self)


def _softplus_back(out: Value) -> None:
    (a,) = out.parents
    a.grad += out.grad / (1 + math.exp(-a.data))  # d softplus(a)/da = σ(a)


def _sigma(x):
    return call("σ", r"\sigma", x)


SOFTPLUS_ROW = Op(  # edit 2: one row
    "softplus",
    "the softplus",
    "softplus",
    lambda xs, a: call("softplus", r"\operatorname{softplus}", xs[0]),
    lambda k, a: (_sigma(a.names[0]), _sigma(a.numbers[0])),
    activation=True,
    slope="σ({z})",
)
SOFTPLUS_CASE = cases.Case(  # edit 3: one test case
    "softplus",
    1,
    lambda a: a.softplus(),
    lambda a: math.log1p(math.exp(a)),
    lambda a: cases._sympy().log(1 + cases._sympy().exp(a)),
    lambda a: abs(a) < 30,
    "softplus",
)


@pytest.fixture
def softplus(monkeypatch):
    """The three documented edits, undone after the test."""
    monkeypatch.setattr(Value, "softplus", _softplus, raising=False)
    register(SOFTPLUS_ROW)
    monkeypatch.setattr(cases, "CASES", (*cases.CASES, SOFTPLUS_CASE))
    monkeypatch.setattr(cases, "BY_NAME", {**cases.BY_NAME, "softplus": SOFTPLUS_CASE})
    yield
    del OPS["softplus"]


class _Learners(oe.BlogValue):
    """A learner's micrograd-style class with their own softplus (right)."""

    def softplus(self):
        out = type(self)(math.log1p(math.exp(self.data)), (self,), "softplus")

        def _backward():
            self.grad += 1 / (1 + math.exp(-self.data)) * out.grad

        out._backward = _backward
        return out


class _LearnersBug(oe.BlogValue):
    """The same, with softplus itself sent back instead of its slope σ."""

    def softplus(self):
        out = type(self)(math.log1p(math.exp(self.data)), (self,), "softplus")

        def _backward():
            self.grad += out.data * out.grad

        out._backward = _backward
        return out


def _learner_graph(cls):
    a, b = cls(0.5, label="a"), cls(-1.5, label="b")
    return (a * b).softplus() + a


def test_softplus_added_the_documented_way_is_an_activation_for_nn(softplus):
    model = MLP(2, [2, 1], act="softplus", seed=0)
    assert repr(model) == (
        "MLP of [Layer of [SoftplusNeuron(2), SoftplusNeuron(2)], Layer of [SoftplusNeuron(2)]]"
    )
    out = Neuron(2, act="softplus", seed=0)([1.0, -1.0])
    assert out.op == "softplus" and "softplus" in activations()
    assert _lacks(SOFTPLUS_ROW) == []


def test_softplus_added_the_documented_way_is_covered_by_the_stale_graph_check(softplus):
    """The stale check reads the op table: a softplus whose input changed after the forward
    pass is refused by name, as a built-in op would be."""
    from autograd_viz.core.errors import StaleGraphError
    from autograd_viz.open.snapshot import snapshot

    x = Value(1.0, label="x")
    y = x.softplus()
    y.label = "y"
    snapshot(y)  # current: fine
    x.data = 3.0
    with pytest.raises(StaleGraphError, match=r"y = softplus\(x\) was computed as 1\.313"):
        snapshot(y)


def test_softplus_neuron_steps_name_its_slope(softplus):
    model = MLP(2, [2, 1], act="softplus", seed=0)
    loss = (model([1.0, -1.0]) - 1.0) ** 2
    from autograd_viz.open.snapshot import snapshot

    texts = [s.text for s in neuron_steps(snapshot(loss), "backward")]
    neuron = next(t for t in texts if t.startswith("∂out/∂L2.n1 = "))
    assert "; ∂out/∂z = −0.7556 · σ(−0.1473) = −0.7556 · 0.4632 = −0.35 → weights" in neuron
    assert not any("its weights get input · this" in t for t in texts)


def test_softplus_has_its_noun_in_the_quiz(softplus):
    x = Value(0.5, label="x")
    y = x.softplus()
    y.label = "y"
    assert quiz(y).hint("∂y/∂x") == (
        "Multiply the gradient arriving at y by the softplus's local derivative: ∂y/∂y = 1, "
        "∂y/∂x = 0.6225."
    )


def test_a_learners_softplus_is_checked_against_the_tables_derivative(softplus):
    report = autograd_viz.check_engine(_learner_graph(_Learners))
    checked = {r.method: (r.status, r.how) for r in report.rules}
    assert report.ok and checked["softplus"] == (RIGHT, "op table")
    wrong = autograd_viz.check_engine(_learner_graph(_LearnersBug))
    assert {r.method: (r.status, r.how) for r in wrong.rules}["softplus"] == (WRONG, "op table")
    assert wrong.findings[0].message == (
        "your `softplus` sent 0.3869 to a · b; the softplus's rule gives 0.3208"
    )


def test_without_its_row_a_learners_softplus_is_only_measured(monkeypatch):
    """The contrast: no row, so the check falls back to central differences."""
    monkeypatch.setattr(Value, "softplus", _softplus, raising=False)
    report = autograd_viz.check_engine(_learner_graph(_Learners))
    assert {r.method: r.how for r in report.rules}["softplus"] == "central differences"
    with pytest.raises(ValueError, match="act must be 'relu', 'tanh', 'sigmoid' or None"):
        MLP(2, [1], act="softplus")


def test_softplus_case_covers_its_row_and_agrees_with_sympy(softplus):
    """The test case entry: every row has a case (as tests/test_engine_properties checks for
    the table at rest), and the engine's slope is sympy's."""
    sympy = pytest.importorskip("sympy")
    assert set(OPS) <= {c.op for c in cases.CASES}
    case = cases.BY_NAME["softplus"]
    a = sympy.Symbol("a0", real=True)
    for x in (-2.0, 0.3, 4.0):
        assert case.tame(x)
        want = float(sympy.diff(case.sympy(a), a).subs(a, x))
        assert table_partials("softplus", [x], None) == [pytest.approx(want, rel=1e-12)]
        v = Value(x)
        out = case.value(v)
        out.backward()
        assert math.isclose(out.data, case.float(x), rel_tol=1e-12) and v.grad == pytest.approx(
            want, rel=1e-12
        )


def test_the_architecture_docs_recipe_is_the_fixtures_three_edits():
    """docs/architecture.md says exactly the edits the softplus fixture makes, and what they
    give with no other edit."""
    doc = (Path(autograd_viz.__file__).parent.parent / "docs" / "architecture.md").read_text(
        encoding="utf-8"
    )
    recipe = doc[doc.index("**An operation**") : doc.index("**A control**")]
    assert "exactly three edits" in recipe
    steps = re.findall(r"^(\d+)\. `([^`]+)`", recipe, re.M)
    assert steps == [("1", "engine.py"), ("2", "ops.py"), ("3", "tests/op_cases.py")]
    for gets in ('act="softplus"', 'slope="σ({z})"', "check_engine", "tests/test_op_table.py"):
        assert gets in recipe, gets


@pytest.mark.parametrize(
    ("op", "n", "written_as"),
    [("+", 3, "sum"), ("add", 3, "sum"), ("-", 3, "difference"), ("/", 3, "quotient"),
     ("*", 1, "product"), ("**", 3, "power"), ("+", 2, "+"), ("tanh", 2, "tanh")],
)  # fmt: skip
def test_a_two_operand_op_with_another_count_is_a_call_named_by_its_noun(op, n, written_as):
    """A learner's "+" over three values is drawn `sum(a, b, c)`: the row's noun, not `+`."""
    leaves = [oe.BlogValue(float(k + 2), label=f"x{k}") for k in range(n)]
    node = oe.BlogValue(1.0, tuple(leaves), op)
    assert read_graph(node).ops[-1] == written_as


@pytest.mark.parametrize(
    ("spelt", "value", "drawn"),
    [("relu", lambda a, b: a, "ReLU"), ("RELU", lambda a, b: a, "ReLU"),
     ("add", lambda a, b: a + b, "+"), ("__mul__", lambda a, b: a * b, "*"),
     ("ln", lambda a, b: math.log(a), "log"), ("σ", lambda a, b: 1 / (1 + math.exp(-a)), "sigmoid"),
     ("sub", lambda a, b: a - b, "sub")],
)  # fmt: skip
def test_another_engines_spelling_is_drawn_as_the_engines_op(spelt, value, drawn):
    """Their "relu" is drawn (and traced) as our "ReLU"; a derived op keeps their spelling."""
    from autograd_viz.open.engines.replay import foreign_snapshot

    a, b = oe.BlogValue(2.0, label="a"), oe.BlogValue(3.0, label="b")
    r = row(spelt)
    node = oe.BlogValue(value(2.0, 3.0), (a, b)[: r.arity], spelt)
    snap = foreign_snapshot(node, check=False)
    assert snap.root.op == drawn and not snap.forward
