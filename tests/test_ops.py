"""ops: adding an operation is an engine method plus one table row, and nothing else.

A fixture adds a throwaway operation the documented way (a forward method with its
backward rule, one `Op` row) and takes it away again; the derivation, the drawing and
the animation all handle it with no other change. Without its row it still traces,
by number, never with another operation's formula.
"""

from __future__ import annotations

import pytest

from autograd_viz import Value
from autograd_viz.api import to_dot
from autograd_viz.core._equations import Eq
from autograd_viz.core.ops import OPS, Op, describe, register
from autograd_viz.frames import Frames
from autograd_viz.trace import derivation, trace


def _softsign(self: Value) -> Value:
    return Value(self.data / (1 + abs(self.data)), "softsign", _softsign_backward, self)


def _softsign_backward(out: Value) -> None:
    (a,) = out.parents
    a.grad += out.grad / (1 + abs(a.data)) ** 2  # d softsign(a)/da = 1/(1 + |a|)²


def _slope(x: Eq) -> Eq:
    return Eq(f"1/(1 + |{x.text}|)²", rf"\frac{{1}}{{(1 + |{x.latex}|)^2}}")


@pytest.fixture
def softsign(monkeypatch):
    """Value.softsign() and its table row, for one test."""
    monkeypatch.setattr(Value, "softsign", _softsign, raising=False)
    register(
        Op(
            "softsign",
            "the softsign",
            "soft",
            lambda xs, a: Eq(f"softsign({xs[0].text})", rf"\mathrm{{softsign}}({xs[0].latex})"),
            lambda k, a: (_slope(a.names[0]), _slope(a.numbers[0])),
            activation=True,
            symbol="ss",
            slope="1/(1 + |{z}|)²",
        )
    )
    yield
    del OPS["softsign"]


def _graph() -> Value:
    x = Value(1.0, label="x")
    y = x.softsign() + x.softsign() * x
    y.label = "y"
    return y


def test_a_new_operation_with_its_row_traces_draws_and_animates(softsign):
    y = _graph()
    texts = [s.text for s in trace(y)]
    assert texts[1] == "softsign(x) = softsign(1) = 0.5"  # named by its expression
    # the same name is taken: the second softsign is named after its op, softsign2
    assert texts[2] == "softsign2 = softsign(x) = softsign(1) = 0.5"
    assert (
        "x\u0304 via the softsign softsign2 = ∂y/∂softsign2 · ∂softsign2/∂x = 1 · 1/(1 + |x|)² "
        "= 1 · 1/(1 + |1|)² = 0.25"
    ) in texts
    assert texts[-1] == "∂y/∂x = 0.5 + 0.25 + 0.25 = 1"
    steps = trace(y)
    y.backward()
    assert steps[-1].grads[0] == y.topological_order()[0].grad
    dot = to_dot(y)
    assert dot.count("label=<ss>") == 2  # the row's symbol in both operation nodes
    frames = Frames(y)
    assert len(frames) == len(steps) and "softsign(x)" in frames.frame_svg(1)
    assert describe("softsign").activation


def test_a_new_operation_without_a_row_traces_by_number_only(monkeypatch):
    monkeypatch.setattr(Value, "softsign", _softsign, raising=False)
    x = Value(1.0, label="x")
    y = x.softsign()
    assert derivation(y, "backward") == "∂out/∂out = 1\n∂out/∂x = 0.25"  # the output: `out`
    assert not describe("softsign").known
    assert "label=<softsign>" in to_dot(y)  # drawn by its op string
    assert len(Frames(y)) == 4


def test_register_refuses_anything_but_a_row():
    with pytest.raises(TypeError, match="needs an Op row"):
        register({"key": "softsign"})
