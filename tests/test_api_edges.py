"""The public entry points as a new user meets them: a big graph of any engine is refused
before it is read, whichever door it comes in by (`autograd_viz.draw` / `animate` as well
as `Value.draw` / `animate`), and the advice in the refusal works when followed."""

from __future__ import annotations

import pytest

import autograd_viz
from autograd_viz import Value
from autograd_viz.view.render import GraphTooLargeError

micrograd = pytest.importorskip("micrograd.engine")


def _chain(make, n: int):
    x = make(0.5)
    for _ in range(n):
        x = x * 1.0000001
    return x


@pytest.fixture
def parents_read(monkeypatch) -> list:
    reads: list = []
    parents = Value.parents
    monkeypatch.setattr(Value, "parents", property(lambda v: reads.append(v) or parents.fget(v)))
    return reads


@pytest.mark.parametrize("entry", ["draw", "animate"])
def test_the_top_level_entry_points_refuse_a_big_graph_of_ours_before_reading_it(
    entry, parents_read
):
    root = _chain(Value, 20_000)
    parents_read.clear()
    with pytest.raises(GraphTooLargeError, match="before any work"):
        getattr(autograd_viz, entry)(root)
    assert len(parents_read) <= 501  # not the 40,001 values behind root


@pytest.mark.parametrize("entry", ["draw", "animate"])
def test_a_big_micrograd_graph_is_refused_before_it_is_read(entry, monkeypatch):
    import autograd_viz.open.engines.replay

    def read_all(*args, **kwargs):
        raise AssertionError("the whole graph was read before the size check")

    monkeypatch.setattr(autograd_viz.open.engines.replay, "read_graph", read_all)
    root = _chain(micrograd.Value, 5_000)
    with pytest.raises(GraphTooLargeError, match=r"more than 500 values.*raise max_nodes"):
        getattr(autograd_viz, entry)(root)


def test_raising_max_nodes_as_advised_draws_a_micrograd_chain():
    root = _chain(micrograd.Value, 300)  # 601 values
    with pytest.raises(GraphTooLargeError):
        autograd_viz.draw(root)
    drawing = autograd_viz.draw(root, max_nodes=700)
    assert drawing.source.count("->") > 600


def test_a_bad_max_nodes_is_refused_before_a_micrograd_graph_is_read(monkeypatch):
    import autograd_viz.open.engines.replay

    monkeypatch.setattr(autograd_viz.open.engines.replay, "read_graph", None)  # any read would fail
    root = _chain(micrograd.Value, 10)
    for entry in (autograd_viz.draw, autograd_viz.animate):
        with pytest.raises(ValueError, match="max_nodes must be a positive int, got 'x'"):
            entry(root, max_nodes="x")


@pytest.mark.parametrize(("xs", "ys"), [([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1]), ([], [])])
def test_training_view_refuses_points_and_targets_that_do_not_pair_up(xs, ys):
    from autograd_viz import MLP
    from autograd_viz.front.training import TrainingView

    # zip() in the decision-boundary plot dropped the unpaired points without a word
    with pytest.raises(ValueError, match=rf"got {len(xs)} points and {len(ys)} targets"):
        TrainingView(MLP(2, [4, 1], seed=0), xs, ys, steps=2, show=False)


def test_mixing_our_value_with_another_engines_names_the_other_engine():
    with pytest.raises(TypeError, match=r"another engine \(micrograd\.engine\.Value\).*one engine"):
        Value(1.0) * micrograd.Value(2.0)


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (5, TypeError, "needs a file path .* got int: 5"),
        ("{tmp}/missing/z.{ext}", FileNotFoundError, "folder .*missing' does not exist"),
        ("{tmp}", IsADirectoryError, "is a folder; give a file name in it"),
    ],
)
@pytest.mark.parametrize("export", ["save_html", "save_svg_animation", "save_gif"])
def test_an_export_path_that_cannot_be_written_is_refused_before_the_work(
    export, bad, error, message, tmp_path, monkeypatch
):
    from autograd_viz import export as exports
    from autograd_viz.exports import animation
    from autograd_viz.front import page

    def no_work(*args, **kwargs):
        raise AssertionError("the animation was made before the path was checked")

    for module in (page, animation):
        monkeypatch.setattr(module, "frames_of", no_work)
    ext = {"save_html": "html", "save_svg_animation": "svg", "save_gif": "gif"}[export]
    path = bad.format(tmp=tmp_path, ext=ext) if isinstance(bad, str) else bad
    x = Value(2.0, label="x")
    with pytest.raises(error, match=message):
        getattr(exports, export)(x * x, path)


def test_save_html_to_a_file_that_is_not_html_is_refused(tmp_path):
    from autograd_viz.export import save_html

    x = Value(2.0, label="x")
    with pytest.raises(ValueError, match=r"save_html needs a path ending in \.html or \.htm"):
        save_html(x * x, tmp_path / "z.svg")  # an HTML page in a .svg file shows nothing
    assert save_html(x * x, tmp_path / "z.html").read_text().startswith("<!")


def test_a_drawing_and_a_filmstrip_explain_a_missing_folder(tmp_path):
    from autograd_viz.export import filmstrip

    x = Value(2.0, label="x")
    for save in ((x * x).draw().save, filmstrip(x * x).save):
        with pytest.raises(FileNotFoundError, match=r"does not exist; create it first"):
            save(tmp_path / "missing" / "z.svg")


def test_save_slides_says_a_missing_notebook_is_missing(tmp_path):
    from autograd_viz.exports.slides import SlidesError, save_slides

    with pytest.raises(SlidesError, match=r"nope\.ipynb does not exist"):
        save_slides(tmp_path / "nope.ipynb")
    with pytest.raises(SlidesError, match=r"needs the path of a notebook .* got Value"):
        save_slides(Value(1.0))


def test_a_quiz_whose_answer_no_one_can_type_is_refused_with_the_blanks_that_remain():
    import re

    from autograd_viz import quiz
    from autograd_viz.front.quiz import QuizError

    x, n = Value(2.0, label="x"), Value(float("nan"), label="n")
    w = n * x
    w.label = "w"
    with pytest.raises(QuizError, match=r"∂w/∂x = nan: a quiz needs finite numbers") as info:
        quiz(w)  # a nan blank: the answer box reads only numbers, so it could never be filled
    advice = re.search(r"quiz\(root, (.*)\)$", str(info.value)).group(1)
    assert advice == "grads=['w', 'n']"
    q = quiz(w, grads=["w", "n"])  # following the advice
    assert q.submit("∂w/∂w", "1") and q.submit("∂w/∂n", "2") and q.left == 0


class _Node:
    """A learner's node class whose ops do not always have the operands the kit expects."""

    def __init__(self, data, prev=(), op=""):
        self.data, self.grad, self._prev, self._op = data, 0.0, tuple(prev), op
        self._backward = lambda: None


@pytest.mark.parametrize(
    ("op", "n", "written"),
    [("+", 3, "sum"), ("add", 1, "sum"), ("*", 3, "product"), ("**2", 2, "power")],
)
def test_an_own_engine_op_with_other_than_two_operands_is_written_as_a_call(op, n, written):
    from autograd_viz.trace import trace

    root = _Node(6.0, [_Node(float(i + 1)) for i in range(n)], op)
    assert autograd_viz.draw(root).svg().startswith("<svg")  # was TypeError deep in ops.py
    forward = [s.text for s in trace(root, "forward")]
    assert any(f"{written}(" in text for text in forward), forward
    assert autograd_viz.animate(root).n_frames > 0


def test_a_layers_list_of_outputs_is_explained_with_what_to_draw_instead():
    from autograd_viz import Layer
    from autograd_viz.open.engines.read import NotAGraphError

    out = Layer(2, 3, seed=0)([1.0, 2.0])
    for entry in (autograd_viz.draw, autograd_viz.animate):
        with pytest.raises(NotAGraphError, match=r"3 graph outputs .* e\.g\. out\[0\]"):
            entry(out)
    assert autograd_viz.draw(out[0]).svg().startswith("<svg")  # following the advice


@pytest.mark.slow
def test_an_animation_too_large_to_save_offers_only_what_fits_and_the_offer_works():
    import re

    from autograd_viz import MLP
    from autograd_viz.front.player import AnimationTooLargeError

    loss = (MLP(2, [24, 24, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2
    assert loss.animate(by="neuron").n_frames > 0  # a row per step: fits (SVG per frame did not)
    with pytest.raises(AnimationTooLargeError, match="max_frames=60") as info:
        loss.animate(by="neuron", max_frames=60)  # offered collapse='neuron', which it refuses
    message = str(info.value)
    assert "collapse=" not in message and "by='neuron'" not in message, message
    raised = int(re.search(r"raise max_frames to (\d+)", message).group(1))
    assert loss.animate(by="neuron", max_frames=raised).n_frames == raised  # the advice works


def test_a_weights_blanks_name_its_rounded_boxs_cells():
    """Each weight's data and grad blank names its cell in the drawing; the browser test
    (tests/browser/test_quiz_browser.py) sees the boxes sit on the rounded box's cells."""
    from autograd_viz import quiz
    from autograd_viz.nn import Neuron

    out = Neuron(2, seed=0)([Value(1.0, label="a"), Value(-1.0, label="b")])
    q = quiz(out, values=True)
    weights = [n.index for n in q.graph.nodes if n.role == "param"]
    assert len(weights) == 3  # w1, w2, b: drawn as rounded boxes (<path>), not polygons
    cells = [b["cell"] for b in q.asked]
    for i in weights:
        assert f"v{i}-grad" in cells
        assert f'<text id="v{i}-data"' in q.svg and f'<text id="v{i}-grad"' in q.svg


def test_training_view_explains_a_model_that_cannot_be_called():
    from autograd_viz import MLP
    from autograd_viz.front.training import TrainingView

    net = MLP(2, [4, 1], seed=0)
    with pytest.raises(TypeError, match=r"needs the model to call on each point .* got list"):
        TrainingView(net.parameters(), [[0, 0]], [0], steps=2, show=False)


@pytest.mark.parametrize("widgets", [True, False])
def test_projector_must_be_true_or_false_not_any_truthy_text(widgets):
    x = Value(2.0, label="x")
    with pytest.raises(ValueError, match="projector must be True or False, got 'no'"):
        (x * x).animate(projector="no", widgets=widgets)  # bool("no") switched it on


def test_save_html_projector_must_be_true_or_false(tmp_path):
    from autograd_viz.export import save_html

    x = Value(2.0, label="x")
    with pytest.raises(ValueError, match="projector must be True or False, got 1"):
        save_html(x * x, tmp_path / "z.html", projector=1)


def test_an_exercise_reads_a_number_submitted_as_typed_and_explains_bad_options():
    from autograd_viz.exercises import Exercise, ExerciseError

    exercise = Exercise("∂z/∂y = ?", 8.0)
    assert exercise.submit(8) and exercise.submit(8.0)  # was a TraitError from ipywidgets
    assert not exercise.submit(5)
    with pytest.raises(ExerciseError, match=r"submit\(\) takes the text a learner would type"):
        exercise.submit(None)
    with pytest.raises(ExerciseError, match="tol must be a finite number >= 0"):
        Exercise("q?", 3.0, tol="0.1")  # was TypeError: '>=' not supported


def test_a_quiz_reads_a_number_submitted_as_typed():
    from autograd_viz import quiz
    from autograd_viz.front.quiz import QuizError

    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    q = quiz(z)
    assert q.submit("∂z/∂y", 8) and q.left == 3  # was a TraitError from ipywidgets
    with pytest.raises(QuizError, match=r"submit\(\) takes the text a learner would type"):
        q.submit("∂z/∂x", None)


@pytest.mark.parametrize("dpi", [-1, 0, 100_000, "300", True])
def test_a_pngs_dpi_out_of_range_is_refused_before_dot_runs(dpi, tmp_path, monkeypatch):
    from autograd_viz.view import layout

    def no_dot(*args, **kwargs):
        raise AssertionError("dot ran before dpi was checked")

    x = Value(2.0, label="x")
    drawing = (x * x).draw()
    monkeypatch.setattr(layout, "run_dot", no_dot)
    with pytest.raises(ValueError, match="dpi is the PNG's dots per inch, from 10 to 1200"):
        drawing.save(tmp_path / "g.png", dpi=dpi)


def test_a_quiz_on_a_big_micrograd_graph_is_refused_before_it_is_read(monkeypatch):
    import autograd_viz.open.engines.replay
    from autograd_viz.front.quiz import QuizError

    monkeypatch.setattr(autograd_viz.open.engines.replay, "read_graph", None)  # any read would fail
    with pytest.raises(QuizError, match=r"more than 60 values .*before any work"):
        autograd_viz.quiz(_chain(micrograd.Value, 5_000))


@pytest.mark.slow
def test_the_too_many_frames_advice_offers_no_phase_that_is_then_too_large_to_save():
    from autograd_viz import MLP
    from autograd_viz.front.player import AnimationTooLargeError

    net = MLP(2, [4, 4, 1], seed=26)
    points = [([0, 0], 0), ([0, 1], 1), ([1, 0], 1), ([1, 1], 0)]
    loss = sum(((net(x) - y) ** 2 for x, y in points), 0.0)  # XOR's whole loss
    with pytest.raises(AnimationTooLargeError, match="more than max_frames=400") as info:
        loss.animate(max_frames=400)
    advice = str(info.value)
    # phase='forward' (273 frames) once failed on the 30 MB size limit; a row a step fits
    if "phase='forward'" in advice:
        assert loss.animate(phase="forward", max_frames=400).n_frames <= 400
    assert "animate(by='neuron') makes 105 frames" in advice
    assert loss.animate(by="neuron").n_frames == 105  # following the advice works
