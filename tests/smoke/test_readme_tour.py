"""README's API tour says what it does: the numbers its comments promise are the ones the
code gives, and every call the API table writes out runs as written (test_readme.py runs
the tour block; test_readme_api.py checks that the names exist)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
TOUR = re.findall(r"^```python\n(.*?)^```", README, re.S | re.M)[0]


@pytest.fixture(scope="module")
def tour() -> dict:
    names: dict = {}
    exec(compile(TOUR, "README.md", "exec"), names)  # the README's own code
    return names


def test_the_tours_gradients_are_the_ones_its_comment_promises(tour):
    assert "x.grad == 3.0, y.grad == 8.0" in TOUR
    assert tour["x"].grad == 3.0 and tour["y"].grad == 8.0


def test_the_tours_network_steps_in_as_many_frames_as_it_says(tour):
    frames = int(re.search(r"one frame per neuron \((\d+)\)", TOUR).group(1))
    assert tour["loss"].animate(by="neuron").n_frames == frames
    assert tour["loss"].data > 0 and any(p.grad != 0 for p in tour["net"].parameters())
    # seed 0 starts with a dead output ReLU: every gradient 0 (the comment beside seed=26)
    from autograd_viz import MLP

    dead = MLP(2, [4, 4, 1], seed=0)
    loss = (dead([1.0, -1.0]) - 1.0) ** 2
    loss.backward()
    assert all(p.grad == 0 for p in dead.parameters())


def test_the_api_tables_calls_run_as_written(tour, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import autograd_viz
    from autograd_viz import export, gradcheck
    from autograd_viz.exercises import Exercise, reveal_all, teacher_mode
    from autograd_viz.front.training import TrainingView, dead_neurons

    z = tour["z"]
    table = README.split("| | what it gives you |", 1)[1].split("\n\n", 1)[0]
    for call in ('save_html(z, "z.html")', 'save_svg_animation(z, "z.svg")',
                 'save_gif(z, "z.gif")', "filmstrip(z)"):  # fmt: skip
        assert call in table
    assert export.save_html(z, "z.html").stat().st_size > 0
    assert export.save_svg_animation(z, "z.svg").read_text().startswith("<")
    assert export.save_gif(z, "z.gif").read_bytes()[:3] == b"GIF"
    assert export.filmstrip(z).save("z_strip.html").stat().st_size > 0  # the teacher's guide
    for option in ("rankdir", "fmt", "font_size", "max_nodes", "show_grad", "legend"):
        assert f"`{option}`" in table
    z.draw(rankdir="TB", font_size=16, max_nodes=50, show_grad=False, legend=True).svg()
    for collapse in (None, "neuron", "layer"):
        tour["loss"].draw(collapse=collapse)
    assert "projector=True" in table and 'by="neuron"' in table
    z.animate(phase="backward", projector=True)

    assert "autograd_viz.quiz(z, grads=True, values=False)" in table
    assert autograd_viz.quiz(z, grads=True, values=False).left == 4
    assert "Exercise(question, answer, hint=...)" in table
    exercise = Exercise("∂z/∂y?", 8.0, hint="y is used twice")
    assert exercise.submit("5+3")
    from autograd_viz.course.teacher import TeacherLockedError

    monkeypatch.delenv("AUTOGRAD_VIZ_TEACHER", raising=False)
    with pytest.raises(TeacherLockedError):  # a student's kernel: the lock holds
        reveal_all()
    monkeypatch.setenv("AUTOGRAD_VIZ_TEACHER", "1")  # the teacher's machine, as the table says
    teacher_mode()
    reveal_all()
    assert "gradcheck(f, inputs, engine=MyValue)" in table
    from micrograd.engine import Value as MyValue

    assert gradcheck(lambda a, b: a * b + a, [2.0, 3.0], engine=MyValue).ok
    assert "TrainingView(model, xs, ys, steps=...)" in table and "dead_neurons(model, xs)" in table
    model = tour["net"]
    xs, ys = [[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0]
    view = TrainingView(model, xs, ys, steps=2, show=False)
    view.update(1, 0.5)
    assert isinstance(dead_neurons(model, xs), list)
