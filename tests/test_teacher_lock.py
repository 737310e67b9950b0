"""Every way the kit reveals answers goes through the teacher's lock.

A student's kernel (no `AUTOGRAD_VIZ_TEACHER`, a key file present, the key not given):
`reveal_all()`, the widget-free answer box (`AUTOGRAD_VIZ_WIDGETS=0`), the widget-free quiz
and `teacher_mode()` without widgets reveal nothing; the teacher's machine or key opens them.
The key itself must be long enough, and is stretched with OWASP's iteration count.
"""

from __future__ import annotations

import pytest

from autograd_viz import Value, classroom, quiz
from autograd_viz.classroom import (
    MIN_KEY_LENGTH,
    TeacherKeyError,
    hash_teacher_key,
    key_matches,
    write_teacher_key,
)
from autograd_viz.course import teacher, teacher_key
from autograd_viz.course.teacher import TeacherLockedError, unlocked_env
from autograd_viz.exercises import TEACHER_ENV, Exercise, reveal_all, teacher_mode
from autograd_viz.front.inline import WIDGETS_ENV

KEY = "seven owls read backprop"


@pytest.fixture(autouse=True)
def _student(monkeypatch, tmp_path):
    """A student's kernel in the notebooks' folder, which holds the teacher's key file."""
    monkeypatch.delenv(TEACHER_ENV, raising=False)
    monkeypatch.delenv(classroom.KEY_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(classroom.KEY_ENV, hash_teacher_key(KEY, iterations=1000))
    saved = teacher.registry.teacher, teacher.registry.unlocked
    teacher.registry.teacher = teacher.registry.unlocked = False
    yield
    teacher.registry.teacher, teacher.registry.unlocked = saved


def _z() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


def test_reveal_all_in_a_students_kernel_is_refused_and_reveals_nothing():
    ex = Exercise("2 + 3 = ?", answer=5)
    with pytest.raises(TeacherLockedError, match=f"{TEACHER_ENV}=1.*teacher's key"):
        reveal_all()
    assert not ex.revealed and ex.solution.value == ""


def test_reveal_all_with_a_wrong_key_says_so_and_with_the_key_reveals():
    ex = Exercise("2 + 3 = ?", answer=5)
    with pytest.raises(TeacherLockedError, match="That is not the teacher's key"):
        reveal_all(key="seven owls read backprob")
    assert not ex.revealed
    assert reveal_all(key=KEY) >= 1 and ex.revealed
    assert reveal_all() >= 1  # unlocked for the rest of this kernel


def test_reveal_all_on_the_teachers_machine_needs_no_key(monkeypatch):
    monkeypatch.setenv(TEACHER_ENV, "1")
    ex = Exercise("2 + 3 = ?", answer=5)
    assert reveal_all() >= 1 and ex.revealed


def test_without_widgets_a_students_exercise_page_holds_no_answer(monkeypatch):
    monkeypatch.setenv(WIDGETS_ENV, "0")
    page = Exercise("2 + 3 = ?", answer=5, hint="Add.")._repr_mimebundle_()["text/html"]
    assert "2 + 3 = ?" in page and "<summary>Hint</summary>Add." in page
    assert "Answer:" not in page and "5" not in page.split("Add.")[1]
    assert "The answer is locked" in page


def test_without_widgets_the_teachers_exercise_page_has_the_answer_to_open(monkeypatch):
    monkeypatch.setenv(WIDGETS_ENV, "0")
    monkeypatch.setenv(TEACHER_ENV, "1")
    page = Exercise("2 + 3 = ?", answer=5)._repr_mimebundle_()["text/html"]
    assert "<details><summary>Show the answer</summary><b>Answer:</b> 5</details>" in page


def test_without_widgets_a_students_quiz_page_holds_no_answer(monkeypatch):
    monkeypatch.setenv(WIDGETS_ENV, "0")
    page = quiz(_z())._repr_mimebundle_()["text/html"]
    assert "<svg" in page and "The answer is locked" in page
    assert "Show the answers" not in page and "∂z/∂y = 8" not in page


def test_without_widgets_teacher_mode_is_locked_until_the_key(monkeypatch):
    monkeypatch.setenv(WIDGETS_ENV, "0")
    locked = repr(teacher_mode())
    assert locked.startswith("Teacher: locked, nothing is revealed") and TEACHER_ENV in locked
    assert "That is not the teacher's key" in repr(teacher_mode(key="not the key at all"))
    assert "Answer:" not in Exercise("2 + 3 = ?", answer=5).static_html()
    assert "each answer opens under its question" in repr(teacher_mode(key=KEY))
    assert "<b>Answer:</b> 5" in Exercise("2 + 3 = ?", answer=5).static_html()


def test_an_export_kernel_inherits_the_lock():
    assert unlocked_env() == {}
    assert reveal_all(key=KEY) >= 0
    assert unlocked_env() == {TEACHER_ENV: "1"}


@pytest.mark.parametrize("key", ["k", "open sesame", "x" * (MIN_KEY_LENGTH - 1), " " * 20 + "ab"])
def test_a_short_key_is_refused_with_the_length_it_needs(key, tmp_path):
    with pytest.raises(TeacherKeyError, match=f"at least {MIN_KEY_LENGTH} characters"):
        hash_teacher_key(key, iterations=1000)
    with pytest.raises(TeacherKeyError, match="short sentence"):
        write_teacher_key(key, tmp_path)
    assert not (tmp_path / classroom.KEY_FILE).exists()


def test_make_key_on_the_command_line_refuses_a_short_key(monkeypatch, tmp_path, capsys):
    import getpass

    monkeypatch.setattr(getpass, "getpass", lambda prompt="": "hunter2")
    assert classroom.main(["--make-key", str(tmp_path)]) == 1
    assert f"at least {MIN_KEY_LENGTH} characters" in capsys.readouterr().err
    assert not (tmp_path / classroom.KEY_FILE).exists()


def test_a_new_key_is_stretched_with_owasps_600000_iterations(monkeypatch):
    calls = []
    monkeypatch.setattr(teacher_key, "_pbkdf2", lambda k, s, n: calls.append(n) or b"\0" * 32)
    line = hash_teacher_key(KEY)
    assert line.split("$")[1] == "600000" and calls == [600_000]


def test_a_key_file_made_with_the_old_100000_iterations_still_unlocks():
    old = hash_teacher_key(KEY, iterations=100_000)
    assert old.split("$")[1] == "100000"
    assert key_matches(KEY, old) and not key_matches(KEY + ".", old)
