"""The fill-in quiz: blanks in backward order, hints that name the rule with its numbers,
answers read like exercises read them, and no answer in the widget until it is earned."""

from __future__ import annotations

import json
import math
import re

import own_engines as oe
import pytest
from examples import sum_times_y

from autograd_viz import MLP, Value, quiz
from autograd_viz.core._numbers import format_number
from autograd_viz.exercises import Exercise, hide_all, reveal_all
from autograd_viz.front.quiz import Quiz, QuizError


def _labels(q: Quiz) -> list[str]:
    return [b.label for b in q.blanks]


def _from_browser(q: Quiz, **message: object) -> None:
    """A message from the quiz's front end (player.js in quiz mode), as the comm delivers it."""
    q._handle_custom_msg(message, [])


def test_every_gradient_is_a_blank_in_backward_order():
    q = quiz(sum_times_y())
    assert _labels(q) == ["∂z/∂z", "∂z/∂s", "∂z/∂x", "∂z/∂y"]
    assert [b.answer for b in q.blanks] == [1.0, 3.0, 3.0, 8.0]
    assert "4 of 4" in q.progress


def test_the_picture_holds_no_answer_until_it_is_given():
    q = quiz(sum_times_y())
    for i in range(4):
        assert f'<text id="v{i}-grad"' in q.picture
        assert f'id="v{i}-grad" text-anchor="start"' in q.picture
    assert "grad 8" not in q.picture and "grad 3" not in q.picture
    saved = json.dumps(q.get_state(), ensure_ascii=False)  # what a saved notebook keeps
    assert ">grad ?<" in saved and "∂z/∂y" in saved
    assert "grad 8" not in saved and "grad 3" not in saved and '"answer"' not in saved


def test_a_wrong_answer_for_a_reused_value_names_the_sum_of_the_two_paths():
    q = quiz(sum_times_y())
    assert q.submit("∂z/∂y", "4") is False
    said = q.feedback
    assert "sum of the two paths" in said
    assert "∂z/∂s = 3" in said and "s = 5" in said  # the numbers each path needs
    assert q.state["missed"] == [False, False, False, True]


def test_one_path_alone_is_recognised():
    q = quiz(sum_times_y())
    q.submit("∂z/∂y", "5")
    assert "one path only" in q.feedback


def test_the_product_hint_gives_the_other_input_with_its_value():
    q = quiz(sum_times_y())
    assert q.hint("∂z/∂s") == (
        "The product sends each input the other input's value, times the gradient "
        "arriving at it: ∂z/∂s = y = 3."
    )
    assert "passes the gradient arriving at it on unchanged: ∂z/∂s = 3" in q.hint("∂z/∂x")


def test_a_right_answer_turns_the_node_blue_and_counts_down():
    q = quiz(sum_times_y())
    assert q.submit("∂z/∂y", "5+3") is True  # a sum, as a derivation writes it
    assert '<g id="v1" class="node input backward' in q.picture
    assert "grad 8" in q.picture
    assert q.state["solved"] == [False, False, False, True]
    assert "3 of 4" in q.progress and "Right" in q.feedback
    for label, text in (("∂z/∂z", "1"), ("∂z/∂s", "3,0"), ("∂z/∂x", "1·3")):
        assert q.submit(label, text), label
    assert q.left == 0 and "All 4" in q.progress


def test_two_misses_offer_the_steps_equation_with_its_result_left_open():
    q = quiz(sum_times_y())
    q.submit("∂z/∂x", "1")
    assert q.state["offered"] == -1
    q.submit("∂z/∂x", "2")
    assert q.state["offered"] == 2 and q.equation == ""
    _from_browser(q, equation=2, req=7)  # the learner clicks "Show the step's equation"
    assert q.equation == "∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = ?" and q.state["req"] == 7
    _from_browser(q, equation=1)  # a blank not offered: nothing shown
    assert q.equation == "∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = ?"
    assert q.submit("∂z/∂x", "3") and q.state["offered"] == -1 and q.equation == ""


def test_an_unreadable_answer_says_so_and_counts_no_miss():
    q = quiz(sum_times_y())
    q.submit("∂z/∂x", "three")
    assert "couldn't read" in q.feedback and q.blanks[2].misses == 0


def test_values_are_asked_first_in_forward_order():
    z = sum_times_y()
    q = quiz(z, values=True, grads=["y"])
    assert _labels(q) == ["s", "z", "∂z/∂y"]
    assert "data ?" in q.picture and '<g id="v2" class="node value pending' in q.picture
    assert q.submit("s", "2+3") and "data 5" in q.picture
    assert '<g id="v2" class="node value pending' not in q.picture
    assert q.hint("z") == (
        "z is computed from s = 5 and y = 3: work the operation × (multiply) out on those numbers."
    )


def test_named_blanks_must_exist():
    with pytest.raises(QuizError, match=r"no value named 'w'.*'z', 's', 'x', 'y'"):
        quiz(sum_times_y(), grads=["w"])


def test_a_leaf_a_collapsed_drawing_and_a_network_are_refused_with_advice():
    with pytest.raises(QuizError, match="leaf"):
        quiz(Value(1.0))
    with pytest.raises(QuizError, match="collapse"):
        quiz(sum_times_y(), collapse="neuron")
    big = MLP(2, [4, 4, 1], seed=0)([1.0, -1.0])
    with pytest.raises(QuizError, match=r"more than 60 values.*raise max_nodes"):
        quiz(big)


def test_a_big_graph_is_refused_before_it_is_read(monkeypatch):
    x = Value(0.5, label="x")
    for _ in range(100_000):
        x = x * 1.0000001
    reads = []
    parents = Value.parents
    monkeypatch.setattr(Value, "parents", property(lambda v: reads.append(v) or parents.fget(v)))
    with pytest.raises(QuizError, match=r"more than 60 values .*before any work"):
        quiz(x)
    assert len(reads) <= 61  # not the 100,001 values behind x


def test_following_the_size_advice_quizzes_a_network_with_a_blank_on_every_weight():
    big = MLP(2, [4, 4, 1], seed=0)([1.0, -1.0])
    q = quiz(big, max_nodes=200)  # "raise max_nodes"
    weights = [n.index for n in q.graph.nodes if n.role == "param"]
    assert len(q.blanks) == 104 and len(weights) == 37
    assert {f"v{i}-grad" for i in weights} <= {b.cell for b in q.blanks}  # rounded boxes
    assert all(f'<text id="{b.cell}"' in q.svg for b in q.blanks)
    one = MLP(2, [4, 4, 1], seed=0).layers[0].neurons[0]([1.0, -1.0])
    small = quiz(one)  # "one neuron's output": its 3 weights and every operation, not 1 and -1
    assert {b.node for b in small.blanks} == {
        n.index for n in small.graph.nodes if n.role != "const"
    } and small.left == 8


def test_the_teacher_switch_reveals_and_hides_quiz_answers(monkeypatch):
    monkeypatch.setenv("AUTOGRAD_VIZ_TEACHER", "1")  # reveal_all() works on the teacher's machine
    q = quiz(sum_times_y())
    reveal_all()
    assert "grad 8" in q.picture and "revealed" in q.progress
    hide_all()
    assert "grad 8" not in q.picture and "4 of 4" in q.progress


def test_each_blank_names_its_nodes_cell_in_the_one_layout():
    """Where a box goes is the front end's to find (tests/browser/test_quiz_browser.py): the
    View names each blank's cell by the id the drawing carries."""
    q = quiz(sum_times_y(), values=True)
    assert [(b["cell"], b["label"], b["what"]) for b in q.asked] == [
        ("v2-data", "s", "data"), ("v3-data", "z", "data"), ("v3-grad", "∂z/∂z", "grad"),
        ("v2-grad", "∂z/∂s", "grad"), ("v0-grad", "∂z/∂x", "grad"), ("v1-grad", "∂z/∂y", "grad"),
    ]  # fmt: skip
    for b in q.asked:
        assert f'<text id="{b["cell"]}"' in q.svg
    assert ["cell", "v2-data"] in q.slots and len(q.state["shown"]) == len(q.slots)


# ---- issue 18: right answers only ------------------------------------------------------------


class OwnValueMul(oe.BlogValue):
    """`__mul__`'s rule sends `self` its own value (`self.data * out.grad`); `other` is right."""

    def __mul__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += self.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out


def _x_times_y(cls):
    x, y = oe._named(cls(2.0), "x"), oe._named(cls(3.0), "y")
    return oe._named(x * y, "z")


@pytest.mark.parametrize("ran_backward", [False, True], ids=["fresh", "after-backward"])
def test_a_quiz_on_a_learners_engine_grades_the_right_derivative_not_their_bug(ran_backward):
    z = _x_times_y(OwnValueMul)
    if ran_backward:
        z.backward()
    q = quiz(z)
    assert [(b.label, b.answer) for b in q.blanks] == [("∂z/∂z", 1), ("∂z/∂x", 3), ("∂z/∂y", 2)]
    assert q.submit("∂z/∂x", "2") is False  # their bug: was "✔ Right"
    assert (
        "✘ Not quite: 2 is what your engine's backward() gives for ∂z/∂x, but it is not the "
        "right derivative. Your engine goes wrong on this graph: check_engine(z) names where."
    ) in q.feedback
    assert "∂z/∂x = y = 3" in q.feedback  # the hint and the grade now agree
    assert q.submit("∂z/∂x", "3") is True  # the right derivative: was "Not quite"
    assert "✔ Right: ∂z/∂x = 3. Your engine's backward() gives 2 for ∂z/∂x" in q.feedback
    assert q.submit("∂z/∂y", "2") and "Your engine" not in q.feedback  # they agree here
    assert z.grad == (1.0 if ran_backward else 0.0)  # their graph is left as it was


def test_every_number_of_a_quiz_on_a_buggy_engine_is_the_op_tables():
    root = oe.square_of_ab_plus_c(oe.SwappedMul)  # L = (a·b + c)²: 42, 28, 14
    q = quiz(root, grads=["a", "b", "c", "d"])
    assert {b.label: b.answer for b in q.blanks} == {
        "∂L/∂a": 42.0, "∂L/∂b": 28.0, "∂L/∂c": 14.0, "∂L/∂d": 14.0,
    }  # fmt: skip
    assert q.hint("∂L/∂a") == (
        "The product sends each input the other input's value, times the gradient arriving "
        "at it: ∂L/∂d = 14, and the other input is b = 3."
    )
    q.submit("∂L/∂a", "1")
    q.submit("∂L/∂a", "2")
    _from_browser(q, equation=q.state["offered"])
    assert q.equation == "∂L/∂a = ∂L/∂d · ∂d/∂a = 14 · b = 14 · 3 = ?"
    assert "the product rule gives" not in q.picture  # no caption gives the answer away


def test_a_quiz_on_a_correct_engine_says_nothing_about_it():
    q = quiz(oe.sum_times_y(oe.BlogValue))
    assert [b.answer for b in q.blanks] == [1.0, 3.0, 3.0, 8.0]
    assert q.submit("∂z/∂y", "8") and "engine" not in q.feedback
    assert not q.submit("∂z/∂x", "5") and "engine" not in q.feedback


class CountsBackward(OwnValueMul):
    runs = 0

    def backward(self):
        CountsBackward.runs += self.label == "z"  # not the fresh values check_engine probes
        super().backward()


@pytest.mark.parametrize("ran_backward", [False, True], ids=["fresh", "after-backward"])
def test_their_backward_runs_once_per_quiz(ran_backward):
    z = _x_times_y(CountsBackward)
    if ran_backward:
        z.backward()
    CountsBackward.runs = 0
    q = quiz(z)
    q.submit("∂z/∂x", "2")
    q.submit("∂z/∂y", "7")
    assert CountsBackward.runs == 1


class Sinh(oe.BlogValue):
    """An operation the op table does not know; its rule forgets the chain rule's factor."""

    def sinh(self):
        out = type(self)(math.sinh(self.data), (self,), "sinh")

        def _backward():
            self.grad += math.cosh(self.data)

        out._backward = _backward
        return out


def test_an_operation_the_table_does_not_know_is_graded_by_central_differences():
    a, b = oe._named(Sinh(0.5), "a"), oe._named(Sinh(3.0), "b")
    s = oe._named(a.sinh(), "s")
    z = oe._named(s * b, "z")
    q = quiz(z)
    right = 3 * math.cosh(0.5)  # their rule sends cosh(0.5) = 1.128
    assert q.blanks[-1].label == "∂z/∂a" and q.blanks[-1].answer == pytest.approx(right)
    assert not q.submit("∂z/∂a", format_number(math.cosh(0.5)))
    assert "is what your engine's backward() gives" in q.feedback
    assert q.submit("∂z/∂a", f"{right:.6f}")


def _mystery(v):
    """An operation made outside any method: the kit can neither look it up nor re-run it."""
    out = type(v)(v.data**3, (v,), "mystery")

    def _backward():
        v.grad += out.grad

    out._backward = _backward
    return out


def test_a_gradient_no_right_rule_is_known_for_is_refused_not_graded_against_their_rule():
    a, b = oe._named(oe.BlogValue(0.5), "a"), oe._named(oe.BlogValue(3.0), "b")
    m = oe._named(_mystery(a), "m")
    z = oe._named(m * b, "z")
    with pytest.raises(QuizError) as err:
        quiz(z)
    said = str(err.value)
    assert "cannot work out the right ∂z/∂a: it depends on `mystery` (m)" in said
    assert "never grades against your engine's own rule" in said
    assert "Ask only for the others: quiz(root, grads=['z', 'm', 'b'])" in said
    q = quiz(z, grads=["z", "m", "b"])  # the advice, followed
    assert [b.answer for b in q.blanks] == [1.0, 3.0, 0.125]
    assert '<text id="v0-grad"' in q.picture and "grad 0<" not in q.picture


# ---- one tolerance rule for quizzes and exercises -----------------------------------------


@pytest.mark.parametrize(
    ("answer", "typed", "right"),
    [
        (12345.678, "1.235e4", True),  # as the drawing and the hint print it: was wrong
        (12345.678, "12345.68", True),
        (5e-10, "0", False),  # the quiz's abs_tol 1e-9 accepted it
        (2e-7, "0", False),  # Exercise's abs_tol 1e-6 accepted it
        (8.0, "8.0004", False),  # a whole number is checked in full: the quiz accepted it
        (2 / 3, "0.6667", True),
        (2 / 3, "0.66667", True),
        (2 / 3, "0.667", False),
        (-1.5e-7, "−1.5e−7", True),
    ],
)
def test_a_quiz_and_an_exercise_accept_exactly_the_same_numbers(answer, typed, right):
    x, w = Value(2.0, label="x"), Value(answer, label="w")
    z = x * w
    z.label = "z"
    assert quiz(z, grads=["x"]).submit("∂z/∂x", typed) is right
    assert Exercise("∂z/∂x?", answer=answer).is_correct(typed) is right


def test_a_blank_states_the_rule_it_is_judged_by():
    from autograd_viz.core._numbers import ANSWER_RULE

    assert ANSWER_RULE in quiz(sum_times_y()).answer_help  # each box's title says it


@pytest.mark.parametrize("typed", ["\u200f8", "٨", "۸", "\u20678\u2069", "７½+½"])
def test_a_quiz_reads_direction_marks_and_digits_of_any_script(typed):
    assert quiz(sum_times_y()).submit("∂z/∂y", typed)


# ---- a blank filled in, blanks that share a name, the options a quiz takes ---------------


def test_a_blank_filled_in_already_still_judges_what_is_typed():
    q = quiz(sum_times_y())
    assert q.submit("∂z/∂y", "8")
    assert q.submit("∂z/∂y", "41") is False  # was True for any text
    assert "✘ 41 is not it: ∂z/∂y is filled in already, = 8." in q.feedback
    assert q.submit("∂z/∂y", "5+3") is True and q.left == 3


def test_the_same_wrong_answer_twice_counts_twice():
    q = quiz(sum_times_y())
    assert not q.submit("∂z/∂x", "1") and not q.submit("∂z/∂x", "1")
    assert q.blanks[2].misses == 2 and q.state["offered"] == 2


def _two_called_x() -> Value:
    a, b = Value(2.0, label="x"), Value(3.0, label="x")
    z = a * b
    z.label = "z"
    return z


def test_values_that_share_a_name_get_blanks_that_can_each_be_filled_in():
    q = quiz(_two_called_x())
    assert _labels(q) == ["∂z/∂z", "∂z/∂x (1 of 2)", "∂z/∂x (2 of 2)"]
    with pytest.raises(QuizError, match=r"2 blanks are called '∂z/∂x'.*'∂z/∂x \(1 of 2\)'"):
        q.submit("∂z/∂x", "3")
    assert q.submit("∂z/∂x (1 of 2)", "3") and q.submit("∂z/∂x (2 of 2)", "2")
    assert [b.node for b in quiz(_two_called_x(), grads=["x"]).blanks] == [0, 1]


def test_an_unknown_option_lists_only_options_the_quiz_takes_and_each_works():
    with pytest.raises(TypeError) as err:
        quiz(sum_times_y(), colour="red")
    said = str(err.value)
    listed = said.split("its options are ")[1].split(", ")
    assert listed == ["grads", "values", "digits", "max_nodes", "rankdir", "font_size",
                      "legend", "timeout", "notation"]  # fmt: skip
    values = {"grads": ["y"], "values": True, "digits": 3, "max_nodes": 10, "rankdir": "TB",
              "font_size": 16, "legend": True, "timeout": 60, "notation": "adjoint"}  # fmt: skip
    for option in listed:  # phase=, show_grad= and by= were listed and then refused
        assert quiz(sum_times_y(), **{option: values[option]}).blanks, option


@pytest.mark.parametrize("option", ["collapse", "by", "phase", "show_grad", "states", "fmt"])
def test_an_option_a_quiz_sets_itself_is_refused_saying_why(option):
    value = {"collapse": "neuron", "by": "neuron", "phase": "forward", "show_grad": True,
             "states": {}, "fmt": ".2f"}[option]  # fmt: skip
    with pytest.raises(QuizError, match=rf"^a quiz .*: leave out {option}=$"):
        quiz(sum_times_y(), **{option: value})


def test_a_misspelt_option_the_quiz_sets_itself_is_not_suggested():
    with pytest.raises(TypeError, match=r"'colapse' \(collapse= is not one: a quiz puts a blank"):
        quiz(sum_times_y(), colapse="neuron")


def test_quiz_graph_is_the_snapshot_as_player_graph_is_and_picture_is_the_drawing():
    from autograd_viz.core.graph import Graph
    from autograd_viz.open.engines.replay import ForeignSnapshot
    from autograd_viz.player import Player

    z = sum_times_y()
    q, player = quiz(z), Player(z)
    assert isinstance(q.graph, Graph) and isinstance(player.graph, Graph)
    assert [n.label for n in q.graph.nodes] == [n.label for n in player.graph.nodes]
    assert q.graph.root.data == z.data == 15
    assert q.picture.startswith("<svg") and q.svg.startswith("<svg")
    theirs = quiz(_x_times_y(OwnValueMul))  # a learner's engine: the snapshot of their graph
    assert isinstance(theirs.graph, ForeignSnapshot) and theirs.graph.source is not None


def test_the_quiz_styles_itself_with_one_prefix_and_no_colour_of_its_own():
    from pathlib import Path

    import autograd_viz.front.quiz as quiz_module

    q = quiz(sum_times_y())
    q.submit("∂z/∂y", "5")
    assert q.state["missed"][3] and q.state["right"] is False
    own = (Path(quiz_module.__file__).parent / "static" / "quiz.css").read_text(encoding="utf-8")
    classes = set(re.findall(r"\.(avz-[\w-]+)", own))
    assert classes and all(c.startswith("avz-quiz") for c in classes), classes
    assert not re.search(r"#[0-9A-Fa-f]{3,6}\b", own)  # every colour is the palette's
    css = Quiz._css
    assert "agv-" not in css and ".avz-quiz-missed" in css and ".avz-quiz-wrong" in css
    assert css.startswith(":where(:root){--avz-forward:")  # the palette, declared first


def test_the_paper_quiz_shows_its_blanks_even_where_the_answers_are_revealed(monkeypatch):
    """The kernel-free quiz (a static page, a slide deck) is the sheet to fill in: made where
    the teacher has revealed the answers, it still shows every blank as "?" and keeps the
    answers in the box to open."""
    monkeypatch.setenv("AUTOGRAD_VIZ_TEACHER", "1")
    q = quiz(sum_times_y(), grads=True, values=False)
    q.reveal()
    page = q.static_html()
    picture, answers = page.split("Show the answers", 1)
    assert picture.count(">grad ?<") == len(q.blanks) == 4
    assert all(f"{b.label} = " in answers for b in q.blanks)


def test_the_quiz_judges_a_typed_number_as_the_exercises_do_with_their_notes():
    """One grader (`grading.AnswerKey`) for exercises and the quiz: a number given to too few
    digits gets the exercises' "give more digits" note, a comma read as a thousands separator
    gets "Did you mean", each at the quiz's own `digits`."""
    from autograd_viz.course.grading import AnswerKey

    x = Value(0.3, label="x")
    z = x.tanh()
    z.label = "z"
    q = quiz(z, digits=4)  # ∂z/∂x = 1 − tanh²(0.3) = 0.91513...
    assert q.submit("∂z/∂x", "0.92") is False
    said = q.feedback
    assert "Close: give at least 4 significant digits" in said, said
    assert AnswerKey(1 - math.tanh(0.3) ** 2, digits=4).judge("0.92")[1] in said
    assert q.submit("∂z/∂x", "0.9151") is True
    a, b = Value(1.5, label="a"), Value(2.0, label="b")
    c = a * b
    c.label = "c"
    q = quiz(c)  # ∂c/∂b = a = 1.5
    assert q.submit("∂c/∂b", "1,500") is False
    assert "Did you mean 1.5? I read '1,500' as 1500" in q.feedback, q.feedback
    q6 = quiz(z, digits=6)
    assert q6.submit("∂z/∂x", "0.9151") is False  # drawn as 0.915137: four digits are short
    assert "Close: give at least 6 significant digits" in q6.feedback
    assert q6.submit("∂z/∂x", "0.915137") is True


# ---- wrong is worse than missing: the quiz's one judge on what learners really type -------


@pytest.mark.parametrize(
    ("typed", "right", "said"),
    [
        ("8", True, "✔ Right: ∂z/∂y = 8."),
        ("5+3", True, "✔ Right"),  # the sum of the two paths, as the derivation writes it
        ("8.0", True, "✔ Right"),
        ("８", True, "✔ Right"),
        ("8,0", True, "✔ Right"),  # a decimal comma
        ("−8", False, "sum of the two paths"),  # a sign error
        ("5", False, "That is one path only (via the product: 5)"),  # forgot to add the sum's 3
        ("3", False, "That is one path only (via the sum: 3)"),
        ("", False, "I couldn't read that: the answer box is empty"),  # was silent
        ("abc", False, "I couldn't read that: only numbers and + − × / ^ ( ) can be used"),
    ],
)
def test_the_quiz_judges_what_learners_type_for_a_reused_value(typed, right, said):
    q = quiz(sum_times_y())  # ∂z/∂y = (x + y) + y = 5 + 3 = 8
    assert q.submit("∂z/∂y", typed) is right
    assert said in q.feedback, q.feedback
    assert ("Right" in q.feedback) is right
    readable = typed.strip() and typed != "abc"
    assert q.blanks[3].misses == (0 if right or not readable else 1)


def _times(w: float, digits: int = 4) -> Quiz:
    x, weight = Value(2.0, label="x"), Value(w, label="w")
    z = x * weight
    z.label = "z"
    return quiz(z, grads=["x"], digits=digits)  # ∂z/∂x = w


@pytest.mark.parametrize(
    ("answer", "typed", "right", "note"),
    [
        (2 / 3, "0.6667", True, ""),
        (2 / 3, "2/3", True, ""),
        (2 / 3, "0.67", False, "Close: give at least 4 significant digits"),
        (1000.0, "1,000", True, ""),
        (1000.0, "1 000", True, ""),
        (1000.0, "1.000", False, "Did you mean 1000? I read '1.000' as 1"),
        (1.0, "1,000", False, "Did you mean 1? I read '1,000' as 1000"),
        (-24.0, "−24", True, ""),  # the Unicode minus the drawings print
        (-24.0, "–24", True, ""),  # an en dash
        (-24.0, "24", False, ""),
        (0.005, "0.01", False, "Close: give at least 4 significant digits"),
        (0.005, "0", False, ""),  # a typed zero is not "close" to a small number
        (0.2, "0.0", False, ""),
        (-0.125, "-0", False, ""),
    ],
)
def test_the_quiz_gives_the_exercises_verdict_and_note(answer, typed, right, note):
    q = _times(answer)
    ex = Exercise("∂z/∂x?", answer=answer)
    assert q.submit("∂z/∂x", typed) is right is ex.submit(typed)
    if note:
        assert note in q.feedback and note in ex.feedback.value, q.feedback
    else:
        assert "Close" not in q.feedback and "Close" not in ex.feedback.value, q.feedback


def test_an_unreadable_answer_is_told_the_exercises_words():
    q, ex = quiz(sum_times_y()), Exercise("∂z/∂y?", answer=8)
    for typed in ("abc", "0x8", ""):
        q.submit("∂z/∂y", typed)
        ex.submit(typed)
        said = q.feedback
        assert said.startswith("I couldn't read that") and said in ex.feedback.value


def test_emptying_a_box_is_not_an_answer():
    q = quiz(sum_times_y())
    _from_browser(q, answer=3, text="5", req=1)  # typed into the box, as in the notebook
    said = q.feedback
    assert "one path only" in said and q.state["req"] == 1
    _from_browser(q, answer=3, text=" ", req=2)  # cleared to try again: nothing judged
    assert q.feedback == said and q.blanks[3].misses == 1
    assert q.state["req"] == 2  # the view hears that the kernel answered
    for junk in ({"answer": 9, "text": "1"}, {"answer": "3", "text": "1"}, {"answer": 3}, [1]):
        q._handle_custom_msg(junk, [])  # not from our front end: ignored, never raised on
    assert q.blanks[3].misses == 1


def test_the_answers_file_records_what_the_judge_read(tmp_path):
    import json

    from autograd_viz.course import answers

    path = tmp_path / "ada.answers.jsonl"
    answers.record_answers(path, student="Ada")
    try:
        q = quiz(sum_times_y())
        for typed in (" 1,000 ", "abc", "", "5+3"):  # an empty box is no attempt
            q.submit("∂z/∂y", typed)
    finally:
        answers.stop_recording()
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [(r["kind"], r["answer"], r["read"], r["right"]) for r in lines] == [
        ("quiz", "1,000", 1000.0, False), ("quiz", "abc", None, False),
        ("quiz", "5+3", 8.0, True)]  # fmt: skip


def test_the_quiz_picture_is_named_by_what_it_asks_not_by_a_step_count():
    """A screen reader hears "quiz: fill in the blanks", not "step 1 of 1 — …": the quiz's
    picture is no step of a trace."""
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    q = quiz((x + y) * y)
    label = re.search(r'<svg [^>]*aria-label="([^"]*)"', q.picture)[1]
    assert label == "quiz: fill in the blanks"
