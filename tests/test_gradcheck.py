"""gradcheck: agrees with backprop on correct graphs and catches a wrong gradient."""

from __future__ import annotations

import pytest

from autograd_viz import Value, gradcheck


def test_worked_example_passes_with_the_blog_numbers():
    report = gradcheck(lambda a, b, c: (a * b + c) ** 2, {"a": 2.0, "b": 3.0, "c": 1.0})
    assert report.ok
    assert [r.analytic for r in report.rows] == [42, 28, 14]
    assert report["b"].numeric == pytest.approx(28, rel=1e-8)
    assert all(r.abs_error < 1e-5 for r in report.rows)


def test_every_op_passes_at_1e_minus_5():
    report = gradcheck(
        lambda a, b: (a * b).tanh() + a.exp() / b - (b**2).log() + a.sigmoid() * b.relu() + a**b,
        {"a": 0.5, "b": 1.5},
    )
    assert report.ok, str(report)


def test_a_graph_that_hides_a_dependency_fails_the_check():
    # Wrapping a.data in a new Value cuts the graph: backprop misses one path.
    report = gradcheck(lambda a: a * Value(a.data), {"a": 3.0})
    assert not report.ok
    assert report["a"].analytic == 3
    assert report["a"].numeric == pytest.approx(6, rel=1e-8)
    assert "FAIL" in str(report)


def test_report_prints_as_a_table():
    text = str(gradcheck(lambda x, y: x * y, [2.0, 3.0]))
    lines = text.splitlines()
    assert lines[0].split() == ["input", "analytic", "numeric", "abs", "error", "rel", "error"]
    assert lines[1].split()[:3] == ["x1", "3", "3"]
    assert lines[-1] == "all gradients match (tolerance 1e-05)"


def test_unknown_input_name_lists_the_known_ones():
    report = gradcheck(lambda x: x * x, {"x": 1.0})
    with pytest.raises(KeyError, match=r"inputs are \['x'\]"):
        report["y"]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"f": lambda x: 3.0, "inputs": [1.0]}, TypeError, "must return a Value, got float"),
        ({"f": lambda: Value(1.0), "inputs": []}, ValueError, "at least one input"),
        ({"f": lambda x: x, "inputs": [1.0], "h": 0}, ValueError, "positive number"),
    ],
)
def test_misuse_is_explained(kwargs, error, message):
    with pytest.raises(error, match=message):
        gradcheck(**kwargs)
