"""The fill-in quiz: blanks in backward order, hints that name the rule with its numbers,
answers read like exercises read them, and no answer in the widget until it is earned."""

from __future__ import annotations

import pytest
from examples import sum_times_y

from autograd_viz import MLP, Value, quiz
from autograd_viz.exercises import hide_all, reveal_all
from autograd_viz.viz.quiz import Quiz, QuizError


def _labels(q: Quiz) -> list[str]:
    return [b.label for b in q.blanks]


def test_every_gradient_is_a_blank_in_backward_order():
    q = quiz(sum_times_y())
    assert _labels(q) == ["∂z/∂z", "∂z/∂s", "∂z/∂x", "∂z/∂y"]
    assert [b.answer for b in q.blanks] == [1.0, 3.0, 3.0, 8.0]
    assert "4 of 4" in q.progress.value


def test_the_picture_holds_no_answer_until_it_is_given():
    q = quiz(sum_times_y())
    for i in range(4):
        assert f'<text id="v{i}-grad"' in q.graph.value
        assert f'id="v{i}-grad" text-anchor="start"' in q.graph.value
    assert "grad 8" not in q.graph.value and "grad 3" not in q.graph.value
    assert all(b.widget.value == "" for b in q.blanks)


def test_a_wrong_answer_for_a_reused_value_names_the_sum_of_the_two_paths():
    q = quiz(sum_times_y())
    assert q.submit("∂z/∂y", "4") is False
    said = q.feedback.value
    assert "sum of the two paths" in said
    assert "∂z/∂s = 3" in said and "s = 5" in said  # the numbers each path needs
    assert "agv-wrong" in q.blanks[3].widget._dom_classes


def test_one_path_alone_is_recognised():
    q = quiz(sum_times_y())
    q.submit("∂z/∂y", "5")
    assert "one path only" in q.feedback.value


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
    assert '<g id="v1" class="node input backward' in q.graph.value
    assert "grad 8" in q.graph.value
    assert q.blanks[3].widget.layout.display == "none"
    assert "3 of 4" in q.progress.value and "Right" in q.feedback.value
    for label, text in (("∂z/∂z", "1"), ("∂z/∂s", "3,0"), ("∂z/∂x", "1·3")):
        assert q.submit(label, text), label
    assert q.left == 0 and "All 4" in q.progress.value


def test_two_misses_offer_the_steps_equation_with_its_result_left_open():
    q = quiz(sum_times_y())
    q.submit("∂z/∂x", "1")
    assert q.equation_button.layout.display == "none"
    q.submit("∂z/∂x", "2")
    assert q.equation_button.layout.display == "flex"
    q.equation_button.click()
    assert q.equation.value == "∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = ?"


def test_an_unreadable_answer_says_so_and_counts_no_miss():
    q = quiz(sum_times_y())
    q.submit("∂z/∂x", "three")
    assert "couldn't read" in q.feedback.value and q.blanks[2].misses == 0


def test_values_are_asked_first_in_forward_order():
    z = sum_times_y()
    q = quiz(z, values=True, grads=["y"])
    assert _labels(q) == ["s", "z", "∂z/∂y"]
    assert "data ?" in q.graph.value and '<g id="v2" class="node value pending' in q.graph.value
    assert q.submit("s", "2+3") and "data 5" in q.graph.value
    assert '<g id="v2" class="node value pending' not in q.graph.value
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
    weights = [n.index for n in q._graph.nodes if n.role == "param"]
    assert len(q.blanks) == 104 and len(weights) == 37
    assert {(i, "grad") for i in weights} <= set(q._cells)  # drawn as rounded boxes
    one = MLP(2, [4, 4, 1], seed=0).layers[0].neurons[0]([1.0, -1.0])
    small = quiz(one)  # "one neuron's output": its 3 weights and every operation, not 1 and -1
    assert {b.node for b in small.blanks} == {
        n.index for n in small._graph.nodes if n.role != "const"
    } and small.left == 8


def test_the_teacher_switch_reveals_and_hides_quiz_answers():
    q = quiz(sum_times_y())
    reveal_all()
    assert "grad 8" in q.graph.value and "revealed" in q.progress.value
    hide_all()
    assert "grad 8" not in q.graph.value and "4 of 4" in q.progress.value


def test_each_blank_sits_on_its_nodes_cell():
    q = quiz(sum_times_y(), values=True)
    for b in q.blanks:
        left, top, width, height = q._cells[(b.node, b.what)]
        assert b.widget.layout.left == f"{left:.1f}px" and b.widget.layout.top == f"{top:.1f}px"
        assert width > 30 and 20 < height < 40
    # the data cell of s lies left of its grad cell, on the same row
    data, grad = q._cells[(2, "data")], q._cells[(2, "grad")]
    assert data[0] + data[2] == pytest.approx(grad[0]) and data[1] == grad[1]
