"""The lessons' code exercises, as the notebooks make them, refuse typical wrong answers (each
for its reason) and accept right answers in other styles (autograd_viz.lesson_answers), and
keep doing so when a learner re-runs the class cells above or defines helpers of their own."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from autograd_viz import Value, lesson_answers
from autograd_viz.code_exercises import CodeExercise
from autograd_viz.course import teacher
from autograd_viz.course.code_checks import function_check, method_check, on

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


@pytest.fixture(autouse=True)
def _teacher_off():
    saved = teacher.registry.teacher
    teacher.registry.teacher = False
    yield
    teacher.registry.teacher = saved


def _cells(notebook: str) -> list[str]:
    path = next(NOTEBOOKS.glob(f"{notebook}_*.ipynb"))
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def _run_cells(notebook: str, markers: tuple[str, ...], ns: dict) -> dict:
    """Run, in order, the notebook's code cells that contain one of `markers` (the cells
    defining a class, say), in `ns`."""
    for source in _cells(notebook):
        if any(m in source for m in markers):
            exec(compile(source, f"<{notebook}>", "exec"), ns)
    return ns


CLASS_CELLS = {
    "04": ("class TinyValue", "def add_to_class", "@add_to_class(TinyValue)", "def as_value",
           "TinyValue.__radd__"),
    "08": ("class Tiny:", "Tiny.__neg__"),
    "09": ("class Tiny:", "Tiny.__neg__"),
    "14": ("class Dual:",),
}  # fmt: skip

EXERCISES = [
    ("04", "sigmoid_task", "SIGMOID"),
    ("05", "topo_task", "TOPOLOGICAL_ORDER"),
    ("06", "central_task", "CENTRAL_DIFFERENCE"),
    ("07", "neuron_task", "NEURON"),
    ("08", "div_task", "DIV"),
    ("09", "mul_task", "MUL"),
    ("10", "backward_task", "BY_HAND_BACKWARD"),
    ("12", "ce_task", "CROSS_ENTROPY_GRAD"),
    ("14", "div_task", "DUAL_DIV"),
]


def _exercise(notebook: str, task: str) -> tuple[CodeExercise, dict]:
    """The notebook's own exercise cell, run after its class cells: the exercise a learner
    meets, and the namespace it was made in."""
    ns: dict = {
        "math": math,
        "Value": Value,
        "CodeExercise": CodeExercise,
        "method_check": method_check,
    }
    _run_cells(notebook, CLASS_CELLS.get(notebook, ()), ns)
    (cell,) = [s for s in _cells(notebook) if f"{task} = CodeExercise(" in s]
    exec(compile(cell, f"<{notebook} exercise>", "exec"), ns)
    return ns[task], ns


@pytest.mark.parametrize(("notebook", "task", "answers"), EXERCISES)
def test_every_exercise_refuses_its_wrong_answers_and_accepts_other_right_ones(
    notebook, task, answers
):
    exercise, _ = _exercise(notebook, task)
    tried = exercise.try_answers(**getattr(lesson_answers, answers))  # raises if one is misjudged
    assert sum(not ok for _, ok, _ in tried.rows) >= 4 and sum(ok for _, ok, _ in tried.rows) >= 3


@pytest.mark.parametrize(("notebook", "task"), [("04", "sigmoid_task"), ("09", "mul_task")])
def test_the_model_answer_passes_after_the_class_cells_are_run_again(notebook, task):
    exercise, ns = _exercise(notebook, task)
    old = {k: ns[k] for k in ("TinyValue", "Tiny") if k in ns}
    _run_cells(notebook, CLASS_CELLS[notebook], ns)  # the learner re-runs the cells above
    assert all(ns[k] is not cls for k, cls in old.items())  # a new class of the same name
    exec(exercise.model_answer, ns)  # ...then types the model answer in their own cell
    verdict = exercise.check(ns[exercise.name])
    assert verdict.ok, verdict


def test_a_dual_div_of_a_re_run_class_is_graded_on_that_class():
    exercise, ns = _exercise("14", "div_task")
    _run_cells("14", CLASS_CELLS["14"], ns)
    exec(exercise.model_answer, ns)
    assert exercise.check(ns["dual_div"]).ok


def test_cross_entropy_grad_ignores_a_softmax_the_learner_rebinds():
    exercise, ns = _exercise("12", "ce_task")
    ns["softmax"] = lambda z: "not the notebook's softmax"  # the learner's own name
    exec(lesson_answers.CROSS_ENTROPY_GRAD["right"]["its own softmax helper"], ns)
    assert exercise.check(ns["cross_entropy_grad"]).ok


# ---- the cases, one by one -------------------------------------------------------------


def _defined(exercise: CodeExercise, code: str):
    return exercise._run_source(code, "answer", None)


def test_a_sigmoid_node_without_parents_is_refused_on_the_graph_where_it_is_wrong():
    exercise, ns = _exercise("04", "sigmoid_task")
    code = lesson_answers.SIGMOID["wrong"]["a node with no parents: TinyValue(s, (), 'sigmoid')"][0]
    verdict = exercise.check(_defined(exercise, code))
    assert not verdict.ok and "does not lead back to x" in verdict.message
    assert "(self,)" in verdict.hint
    # x = 0.5, y = x·x, z = σ(y)·y: that sigmoid gives 0.5622 where the right rule gives 0.6237
    TinyValue = ns["TinyValue"]
    x = TinyValue(0.5)
    y = x * x
    z = _defined(exercise, code)(y) * y
    z.backward()
    assert round(x.grad, 4) == 0.5622
    s = 1 / (1 + math.exp(-0.25))
    assert round(2 * 0.5 * (s + 0.25 * s * (1 - s)), 4) == 0.6237


@pytest.mark.parametrize(
    "bug", ["the factors swapped", "no * out.grad", "parents (self,) only", "parents ()"]
)
def test_nine_refuses_the_four_wrong_products_it_once_passed(bug):
    exercise, _ = _exercise("09", "mul_task")
    verdict = exercise.check(_defined(exercise, lesson_answers.MUL["wrong"][bug][0]))
    assert not verdict.ok, verdict


def test_fourteen_asks_for_an_operation_its_dual_class_does_not_show():
    """14 once asked for dual_mul, which its Dual class shows line for line (`__mul__`)."""
    exercise, ns = _exercise("14", "div_task")
    operator = {"dual_mul": "__mul__", "dual_div": "__truediv__"}[exercise.name]
    assert operator not in vars(ns["Dual"])
    cells = _cells("14")
    before = cells[: next(i for i, s in enumerate(cells) if "div_task = CodeExercise(" in s)]
    assert not any("b.val ** 2" in s or "b.val**2" in s for s in before)  # the rule is not shown


@pytest.mark.parametrize(
    ("bug", "words"),
    [
        ("b held still: a'/b", "leaves out b's derivative"),
        ("the sign flipped: a·b' − a'·b", "sign is flipped"),
        ("divided by b, not b²", "not by b"),
        ("a measured slope", "measured slope"),
    ],
)
def test_fourteen_names_the_slip_in_a_wrong_quotient_rule(bug, words):
    exercise, _ = _exercise("14", "div_task")
    verdict = exercise.check(_defined(exercise, lesson_answers.DUAL_DIV["wrong"][bug][0]))
    assert not verdict.ok and words in verdict.message
    # refused on the first pair, where both derivatives are nonzero
    assert "dual_div(Dual(2, 1), Dual(3, 0.5))" in verdict.message


def test_five_refuses_a_recursive_dfs_that_raises_the_recursion_limit_and_restores_it():
    import sys

    exercise, _ = _exercise("05", "topo_task")
    limit = sys.getrecursionlimit()
    code = lesson_answers.TOPOLOGICAL_ORDER["wrong"][
        "a recursive DFS that raises the recursion limit"
    ]
    verdict = exercise.check(_defined(exercise, code[0]))
    assert not verdict.ok and "`visit` calls itself" in verdict.message
    assert sys.getrecursionlimit() == limit


def test_ten_reads_no_words_a_comment_or_docstring_holds():
    exercise, _ = _exercise("10", "backward_task")
    code = '''def my_backward(a, b, c):
    """Like Value's backward(), by hand."""
    e = a * b + c   # Value and backward() are not used here
    return 2 * e * b, 2 * e * a, 2 * e'''
    assert exercise.check(_defined(exercise, code)).ok


# ---- the general graders -------------------------------------------------------------------------


SIGMOID = function_check(lambda x: 1 / (1 + math.exp(-x)), [-1.5, 0.5, 2.0], without=["sigmoid"])


def test_a_my_sigmoid_that_calls_backward_is_told_so_not_about_x_data():
    def my_sigmoid(x):
        out = 1 / (1 + (-x).exp())
        out.backward()
        return out

    verdict = SIGMOID(my_sigmoid, "my_sigmoid")
    assert not verdict.ok and "calls backward() itself" in verdict.message
    assert "x.data" not in str(verdict)


def test_a_function_right_alone_but_wrong_in_a_larger_graph_is_refused():
    memo: dict = {}

    def my_sigmoid(x):  # keeps the first graph it built for each number: stale in a new graph
        if x.data not in memo:
            memo[x.data] = 1 / (1 + (-x).exp())
        return memo[x.data]

    verdict = SIGMOID(my_sigmoid, "my_sigmoid")
    assert not verdict.ok


def test_method_check_refuses_graphs_written_wrongly():
    from autograd_viz.code_exercises import CodeExerciseError

    class Node:
        def __init__(self, data, _prev=()):
            self.data, self.grad, self._prev = data, 0.0, _prev

    with pytest.raises(CodeExerciseError, match="give the graphs"):
        method_check(Node, "__mul__")
    with pytest.raises(CodeExerciseError, match="needs the inputs"):
        on(lambda x: x)


def test_the_watch_sees_recursion_and_calls_not_words():
    from autograd_viz.core._watch import watching

    def count(n):
        """Not recursive in words: topological_order() backward() visit(visit)."""
        return n

    with watching() as seen:
        count(3)
    assert seen.recursion is None and not seen.called(Value.topological_order)

    def down(n):
        return 0 if n == 0 else down(n - 1)

    with watching() as seen:
        down(5)
        Value(1.0).topological_order()
    assert seen.recursion == ("down", 6) and seen.called(Value.topological_order)


@pytest.mark.parametrize(
    ("notebook", "task", "kinds"),
    [
        ("04", "sigmoid_task", {"upstream gradient ≠ 1", "computed operand", "reused operand"}),
        ("08", "div_task", None),
        ("09", "mul_task", None),
    ],
)
def test_each_method_exercise_checks_every_kind_of_graph(notebook, task, kinds):
    exercise, _ = _exercise(notebook, task)
    every = {
        "a node as second operand",
        "two different operands",
        "upstream gradient ≠ 1",
        "computed operand",
        "reused operand",
    }
    model = exercise._run_source(exercise.model_answer, "model answer", None)
    assert exercise._check.coverage(model) == (kinds or every)


def test_coverage_finds_what_the_old_single_graph_of_nine_left_out():
    exercise, ns = _exercise("09", "mul_task")
    old = method_check(ns["Tiny"], "__mul__", lambda t: t * t + t, lambda v: v * v + v, [3.0])
    model = exercise._run_source(exercise.model_answer, "model answer", None)
    assert old.coverage(model) == {"reused operand", "a node as second operand"}
    assert old.missing_kinds(model) == [
        "two different operands",
        "upstream gradient ≠ 1",
        "computed operand",
    ]


@pytest.mark.parametrize(
    "module", ["core._watch", "course.class_checks", "course.code_checks", "code_exercises"]
)
def test_the_examples_in_the_docstrings_run(module):
    import doctest
    import importlib

    result = doctest.testmod(
        importlib.import_module(f"autograd_viz.{module}"), extraglobs={"math": math}
    )
    assert result.attempted and not result.failed


def test_fourteen_says_a_derivative_that_is_not_a_number_is_not_one():
    exercise, _ = _exercise("14", "div_task")
    code = "def dual_div(a, b):\n    return Dual(a.val / b.val, None)"
    verdict = exercise.check(_defined(exercise, code))
    assert not verdict.ok and "der = None, not a number" in verdict.message


def test_twelves_reference_gradient_is_softmax_minus_one_hot_on_every_score_vector():
    # the check's own backward() against p − y worked at 50 digits (mpmath), and PyTorch's
    import mpmath

    from autograd_viz.course import number_checks

    for z, c in number_checks._SCORES:
        with mpmath.workdps(50):
            exps = [mpmath.exp(mpmath.mpf(v)) for v in z]
            want = [float(e / mpmath.fsum(exps)) - (k == c) for k, e in enumerate(exps)]
        assert number_checks._backward_gradient(z, c) == pytest.approx(want, abs=1e-12)
    torch = pytest.importorskip("torch")
    for z, c in number_checks._SCORES:
        t = torch.tensor(z, dtype=torch.float64, requires_grad=True)
        torch.nn.functional.cross_entropy(t[None], torch.tensor([c])).backward()
        assert number_checks._backward_gradient(z, c) == pytest.approx(t.grad.tolist(), abs=1e-12)


@pytest.mark.parametrize("shift", ["min(z)", "sum(z) / len(z)", "z[0]", "z[c]"])
def test_twelve_refuses_every_shift_but_the_largest_scores(shift):
    # exp(z − shift) overflows on scores 2,000 apart unless the shift is max z
    ex, _ = _exercise("12", "ce_task")
    code = f"""def cross_entropy_grad(z, c):
    shift = {shift}
    exps = [math.exp(zk - shift) for zk in z]
    return [e / sum(exps) - (k == c) for k, e in enumerate(exps)]"""
    verdict = ex.grade(ex._run_source(code, shift, None))
    assert not verdict.ok
    assert "subtract the largest score before exp" in str(verdict)
