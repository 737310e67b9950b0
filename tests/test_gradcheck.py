"""gradcheck: agrees with backprop on correct graphs and catches a wrong gradient."""

from __future__ import annotations

import math
import re

import pytest

from autograd_viz import Value, gradcheck
from autograd_viz.gradcheck import GradcheckError, numeric_gradient


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


# ---- a mapping binds by name -------------------------------------------------------------


def test_a_dict_binds_to_the_parameters_by_name_not_by_position():
    report = gradcheck(lambda b, a: a * 10 + b, {"a": 1.0, "b": 2.0})
    assert report.ok
    assert report["a"].analytic == 10 and report["a"].numeric == pytest.approx(10, rel=1e-8)
    assert report["b"].analytic == 1 and report["b"].numeric == pytest.approx(1, rel=1e-8)
    assert [r.name for r in report.rows] == ["a", "b"]  # the rows keep the dict's order


def test_a_keyword_only_function_gets_its_inputs_by_name():
    def f(*, a, b):
        return a * b

    report = gradcheck(f, {"b": 3.0, "a": 2.0})
    assert report.ok and report["a"].analytic == 3 and report["b"].analytic == 2


def test_a_list_still_binds_by_position():
    report = gradcheck(lambda b, a: a * 10 + b, [1.0, 2.0])
    assert [r.analytic for r in report.rows] == [1, 10]


def test_a_dict_whose_names_are_not_the_parameters_is_refused_before_f_runs():
    calls = []

    def f(x, y):
        calls.append(1)
        return x * y

    with pytest.raises(TypeError, match=r"named \['a', 'b'\] but f takes \(x, y\).*bind by"):
        gradcheck(f, {"a": 1.0, "b": 2.0})
    assert calls == []


def test_numeric_gradient_binds_by_name_when_given_names():
    slope = numeric_gradient(lambda b, a: a * 10 + b, [1.0, 2.0], 0, names=["a", "b"])
    assert slope == pytest.approx(10, rel=1e-8)


# ---- where no fair verdict is possible, the report says why ----------------------------------


def test_a_probe_leaving_the_domain_is_explained_with_an_h_that_works():
    with pytest.raises(GradcheckError, match=r"x1 − h = -9e-07 \(with h = 1e-06\)") as info:
        gradcheck(lambda a: a.log(), [1e-7])
    message = str(info.value)
    assert "leaves f's domain" in message and "pass a smaller h" in message
    suggested = float(re.search(r"h=([0-9.e+-]+)\)", message).group(1))
    report = gradcheck(lambda a: a.log(), [1e-7], h=suggested)  # following the advice works
    assert report.ok, str(report)


def test_a_kink_is_reported_as_not_differentiable_not_as_a_bare_fail():
    report = gradcheck(lambda a: a.relu(), {"a": 0.0})
    row = report["a"]
    assert not report.ok and row.kink and row.verdict == "kink"
    assert row.analytic == 0 and row.numeric == pytest.approx(0.5)
    text = str(report)
    assert "FAIL" not in text and "NOT DIFFERENTIABLE at these inputs" in text
    assert "slope is 0 from the left and 1 from the right" in text


def test_a_wrong_gradient_is_not_mistaken_for_a_kink():
    report = gradcheck(lambda a: a * Value(a.data), {"a": 3.0})
    assert not report["a"].kink and report["a"].verdict == "FAIL"
    assert report["a"].note == ""


def test_a_smooth_function_next_to_a_kink_still_passes():
    assert gradcheck(lambda a: a.relu(), {"a": 1e-3}).ok


def test_a_sharp_curve_suggests_a_smaller_h_that_works():
    report = gradcheck(lambda a: a.log(), [1e-5])
    assert not report.ok and not report["x1"].kink
    note = report["x1"].note
    assert "too coarse" in note and note in str(report)
    suggested = float(re.search(r"h=([0-9.e+-]+)", note).group(1))
    assert gradcheck(lambda a: a.log(), [1e-5], h=suggested).ok


def test_f_that_is_infinite_at_the_inputs_is_refused():
    with pytest.raises(GradcheckError, match="no slope to measure"):
        gradcheck(lambda a: a * Value(float("inf")), [1.0])


# ---- bad arguments -----------------------------------------------------------------------


@pytest.mark.parametrize("tol", [0, 0.0, -1e-5, float("nan"), float("inf")])
def test_a_tolerance_that_no_slope_could_meet_is_refused(tol):
    with pytest.raises(ValueError, match="tol must be a positive number"):
        gradcheck(lambda x: x * x, [1.0], tol=tol)


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ("1.0", r"got the string '1.0'; pass a dict such as"),
        (Value(1.0), r"got one Value; wrap it, e.g. gradcheck\(f, \[1.0\]\)"),
        (2.0, r"got one float; wrap it, e.g. gradcheck\(f, \[2.0\]\)"),
        ([Value(2.0)], r"input 'x1' is a Value; .* pass its number, 2.0"),
        ({"x": Value(2.0)}, r"input 'x' is a Value"),
        ({"x": "2"}, r"input 'x' is the string '2'; pass a number"),
        ([float("nan")], r"input 'x1' is nan; slopes need finite inputs"),
        ([True], r"input 'x1' must be a number, got bool"),
    ],
)
def test_inputs_that_are_not_plain_numbers_are_explained(inputs, message):
    with pytest.raises((TypeError, ValueError), match=message):
        gradcheck(lambda x: x * x, inputs)


def test_an_input_on_the_edge_of_the_domain_is_reported_one_sided_not_cured_by_a_smaller_h():
    # sqrt at 0: f is undefined left of 0 at every h, so "pass a smaller h" can never help.
    report = gradcheck(lambda a: a**0.5, [0.0])
    row = report["x1"]
    assert not report.ok and row.edge and not row.kink and row.verdict == "edge"
    assert row.analytic == math.inf and row.numeric == pytest.approx(1000)  # from the right
    text = str(report)
    assert "NOT DIFFERENTIABLE at these inputs" in text and "FAIL" not in text
    assert "smaller h cannot help" in row.note and "derivative is infinite" in row.note
    assert "pass a smaller h" not in text
    point = float(re.search(r"e\.g\. x1 = ([0-9.e+-]+)", row.note).group(1))
    assert gradcheck(lambda a: a**0.5, [point]).ok  # following the advice works


def test_an_edge_input_leaves_the_other_inputs_checked():
    report = gradcheck(lambda a, b: a**0.5 * b + b, {"a": 0.0, "b": 2.0})
    assert report["a"].verdict == "edge" and report["b"].ok
    assert "slope from the right" in report["a"].note
    mirrored = gradcheck(lambda a: (-a) ** 0.5, [0.0])["x1"]
    assert mirrored.edge and "slope from the left" in mirrored.note and "x1 = -0.1" in mirrored.note


def test_a_function_that_is_not_callable_or_takes_other_inputs_is_explained():
    with pytest.raises(TypeError, match=r"f must be a function of the inputs, got int"):
        gradcheck(3, [1.0])
    with pytest.raises(TypeError, match=r"1 input\(s\) given but f takes \(a, b\)"):
        gradcheck(lambda a, b: a * b, [1.0])
    assert gradcheck(lambda a, b=2: a * b, [1.0]).ok  # a default fills the rest
    assert gradcheck(lambda *xs: xs[0] * xs[1], [1.0, 2.0]).ok


def test_a_learners_backward_that_raises_at_the_input_is_a_gradcheck_error():
    mg = pytest.importorskip("micrograd.engine")
    with pytest.raises(GradcheckError, match=r"backward\(\) raised ZeroDivisionError.*x1 = 0"):
        gradcheck(lambda a: a**0.5, [0.0], engine=mg.Value)  # micrograd: 0.0 ** -0.5


def test_an_h_too_small_to_move_the_input_is_refused_not_reported_as_a_wrong_gradient():
    # 1e12 + 1e-6 == 1e12 in floating point: the slope measured 0, a FAIL that blamed backprop
    with pytest.raises(ValueError, match=r"h = 1e-06 is too small to move input 'x1' = 1e\+12"):
        gradcheck(lambda a: a * a, [1e12])
    with pytest.raises(ValueError, match=r"e\.g\. h=1e\+06") as info:
        gradcheck(lambda a: a * a, [1e12])
    suggested = float(re.search(r"h=([0-9.e+-]+)$", str(info.value)).group(1))
    assert gradcheck(lambda a: a * a, [1e12], h=suggested).ok  # following the advice works


def test_an_engine_that_is_not_a_value_class_is_explained():
    for engine in (float, "micrograd"):
        with pytest.raises(TypeError, match="engine must be your Value class"):
            gradcheck(lambda a: a * a, [1.0], engine=engine)


def test_a_probe_landing_on_a_pole_is_explained_not_a_bare_fail():
    # 1/a at 1e-7 with h = 1e-6: the h/10 probe lands on a = 0, where 1/a has no value. The
    # report used to say FAIL with no note (at 5e-7, where no probe lands on 0, it had one).
    for x in (1e-7, -1e-7):
        report = gradcheck(lambda a: 1 / a, [x])
        note = report["x1"].note
        assert not report.ok and not report["x1"].kink
        assert "too coarse" in note and note in str(report)
        assert "undefined at x1" in note and "= 0 (ZeroDivisionError)" in note
        suggested = float(re.search(r"h=([0-9.e+-]+)", note).group(1))
        assert gradcheck(lambda a: 1 / a, [x], h=suggested).ok  # following the advice works


def test_a_point_near_a_pole_is_not_called_a_kink():
    # at 2e-7 the one-sided slopes differ at h and h/10 (the probes straddle the pole at 0),
    # which was reported as "not differentiable here"; 1/a is differentiable at 2e-7
    row = gradcheck(lambda a: 1 / a, [2e-7])["x1"]
    assert not row.kink and row.verdict == "FAIL" and "too coarse" in row.note


class _NoBackward:
    """A micrograd-style node a learner has not yet given backward()."""

    def __init__(self, data, _children=()):
        self.data, self.grad, self._prev = data, 0.0, tuple(_children)

    def __mul__(self, other):
        return _NoBackward(self.data * other.data, (self, other))


def test_an_engine_without_backward_is_told_to_add_it():
    with pytest.raises(TypeError, match=r"your _NoBackward nodes have no backward\(\) method"):
        gradcheck(lambda a: a * a, [2.0], engine=_NoBackward)


@pytest.mark.parametrize("module", ["numpy", "torch"])
def test_an_array_type_as_engine_is_refused_by_name(module):
    lib = pytest.importorskip(module)
    engine = lib.ndarray if module == "numpy" else lib.Tensor
    with pytest.raises(TypeError, match=rf"engine={module}\.\w+ is an array type, not a scalar"):
        gradcheck(lambda a: a * a, [2.0], engine=engine)


def test_an_engine_that_cannot_be_built_from_a_number_says_what_it_raised():
    class NeedsTwo:
        def __init__(self, data, grad):
            self.data = data

    with pytest.raises(TypeError, match=r"NeedsTwo\(1\.0\) raised TypeError"):
        gradcheck(lambda a: a * a, [2.0], engine=NeedsTwo)
