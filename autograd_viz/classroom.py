"""The teacher's side of the class's answers, on the standard library only: `python -m
autograd_viz.classroom FOLDER [--csv out.csv]` (or `class_answers`) turns a folder of the files
learners hand in (`autograd_viz.course.answers.record_answers`) into a table per question, and
`--make-key FOLDER` writes the salted hash of the teacher's key (`autograd_viz.course.teacher_key`,
whose names this module offers too); the table itself, its rows and how they are written as text or
CSV, is `autograd_viz.course.class_table`'s, whose names this module offers too.
docs/teachers_guide.md walks a teacher through both."""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from autograd_viz.core._checks import is_number
from autograd_viz.course.answers import FORMAT, SUFFIX
from autograd_viz.course.class_table import (
    ClassroomError,
    QuestionRow,
    csv_cell,
    csv_target,
    format_table,
    shown,
    write_csv,
)
from autograd_viz.course.teacher_key import (
    KEY_ENV,
    KEY_FILE,
    MIN_KEY_LENGTH,
    TeacherKeyError,
    check_teacher_key,
    hash_teacher_key,
    key_matches,
    write_teacher_key,
)

__all__ = [
    "KEY_ENV",
    "KEY_FILE",
    "MIN_KEY_LENGTH",
    "ClassroomError",
    "NoAnswersError",
    "QuestionRow",
    "SkippedAnswersWarning",
    "TeacherKeyError",
    "check_teacher_key",
    "class_answers",
    "csv_cell",
    "csv_target",
    "format_table",
    "hash_teacher_key",
    "key_matches",
    "main",
    "shown",
    "write_csv",
    "write_teacher_key",
]


class NoAnswersError(ValueError):
    """The folder holds no answers to tabulate (missing, empty, or no answers file in it)."""


class SkippedAnswersWarning(UserWarning):
    """A file (or a line of one) in the answers folder was skipped; the message names it."""


# ---- reading the folder ----------------------------------------------------------------------


_FIELDS = {"format": str, "session": str, "seq": int, "question": str, "prompt": str,
           "kind": str, "answer": str, "right": bool, "time": str}  # fmt: skip


def class_answers(folder: str | Path) -> list[QuestionRow]:
    """The teacher's table for a folder of answers files: one row per question, in the order
    the class met them (by first attempt).

    Why: what fraction of the class got ∂z/∂y right, and what the others wrote, without a
    server. Per question: how many learners tried it, how many attempts they made, the
    fraction right at their first try and right in the end, and the most common wrong answer
    (counted once per learner who gave it; `5` and `5.0` are one answer). The same attempt
    handed in twice counts once, and one learner's files from two sessions count as one
    learner. Skipped files and lines are reported as `SkippedAnswersWarning`s.

    >>> import tempfile; class_answers(tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    autograd_viz.classroom.NoAnswersError: the folder ... is empty: ...
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise NoAnswersError(
            f"{folder} is not a folder: put the learners' answers files ({SUFFIX}) in one "
            "folder and give its name"
        )
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not _hidden(p, folder))
    if not files:
        raise NoAnswersError(
            f"the folder {folder} is empty: put the learners' answers files ({SUFFIX}, written "
            "by record_answers) in it"
        )
    records: dict[tuple[str, int], dict] = {}
    for path in files:
        for record in _read(path, folder):
            records.setdefault((record["session"], record["seq"]), record)  # handed in twice
    if not records:
        raise NoAnswersError(
            f"no answers in {folder}: {len(files)} file(s), none of them an answers file "
            f"with an attempt in it ({SUFFIX}, written by record_answers)"
        )
    return _rows(list(records.values()))


def _hidden(path: Path, folder: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(folder).parts)


def _skip(message: str) -> None:
    warnings.warn(message, SkippedAnswersWarning, stacklevel=3)


def _read(path: Path, folder: Path) -> list[dict]:
    """The valid attempts in one file; a foreign or broken file (or line) is warned about."""
    name = path.relative_to(folder).as_posix()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        _skip(f"skipped {name}: cannot be read as text ({err})")
        return []
    good, bad = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        record = _record(line)
        if record is None:
            bad.append(number)
        else:
            good.append(record)
    if not good:
        what = "it is empty" if not text.strip() else "not an answers file"
        _skip(f"skipped {name}: {what} (no line written by record_answers, format {FORMAT})")
    elif bad:
        lines = ", ".join(map(str, bad[:5])) + (" ..." if len(bad) > 5 else "")
        _skip(f"{name}: skipped line(s) {lines}, which are not answers (the rest were read)")
    return good


def _record(line: str) -> dict | None:
    """One attempt, checked field by field; None for anything else."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: thousands of nested brackets
        return None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return None
    for key, kind in _FIELDS.items():
        value = record.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return None
    read = record.get("read")
    if read is not None:
        if not is_number(read, (int, float)):
            return None
        try:
            record["read"] = float(read)  # a 400-digit integer is no number anyone typed
        except OverflowError:
            return None
    student = record.get("student")
    if student is not None and not isinstance(student, str):
        return None
    try:
        record["_time"] = datetime.fromisoformat(record["time"])
    except ValueError:
        return None
    if record["_time"].tzinfo is None:
        return None
    return record


def _rows(records: list[dict]) -> list[QuestionRow]:
    by_question: dict[str, list[dict]] = {}
    for r in sorted(records, key=lambda r: (r["_time"], r["session"], r["seq"])):
        by_question.setdefault(r["question"], []).append(r)
    rows = []
    for question, tries in by_question.items():  # dicts keep the order of first attempts
        by_learner: dict[str, list[dict]] = {}
        for r in tries:
            by_learner.setdefault(_learner(r), []).append(r)
        wrong: dict[object, dict] = {}  # answer -> learners who gave it, and how they typed it
        for learner, theirs in by_learner.items():
            for r in theirs:
                if r["right"]:
                    continue
                group = wrong.setdefault(_same_answer(r), {"learners": set(), "typed": {}})
                group["learners"].add(learner)
                typed = " ".join(r["answer"].split())
                group["typed"][typed] = group["typed"].get(typed, 0) + 1
        common, count = None, 0
        if wrong:  # most learners; a tie goes to the answer given first
            top = max(wrong.values(), key=lambda g: len(g["learners"]))
            common = max(top["typed"], key=top["typed"].get)
            count = len(top["learners"])
        rows.append(
            QuestionRow(
                question=question,
                prompt=tries[0]["prompt"],
                learners=len(by_learner),
                attempts=len(tries),
                right_first=sum(t[0]["right"] for t in by_learner.values()),
                right_eventually=sum(any(r["right"] for r in t) for t in by_learner.values()),
                common_wrong=common,
                common_wrong_learners=count,
            )
        )
    return rows


def _learner(record: dict) -> str:
    """Who answered: the student's name (any case), else the session."""
    name = " ".join((record.get("student") or "").split()).casefold()
    return f"name:{name}" if name else f"session:{record['session']}"


def _same_answer(record: dict) -> object:
    """What makes two wrong answers the same: the number read (5 and 5.0), else the words."""
    read = record.get("read")
    if read is not None and math.isfinite(read):
        return ("number", float(read))
    return ("text", " ".join(record["answer"].split()).casefold())


# ---- the command -----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m autograd_viz.classroom FOLDER [--csv out.csv]`, or `--make-key FOLDER`."""
    parser = argparse.ArgumentParser(
        prog="python -m autograd_viz.classroom",
        description="A table per question from a folder of learners' answers files "
        f"({SUFFIX}, written by autograd_viz.course.answers.record_answers).",
    )
    parser.add_argument("folder", help="the folder of answers files (or, with --make-key, "
                        "the notebooks' folder)")  # fmt: skip
    parser.add_argument("--csv", metavar="OUT.csv", help="also write the table as CSV")
    parser.add_argument(
        "--make-key",
        action="store_true",
        help=f"ask for a teacher's key and write its hash to FOLDER/{KEY_FILE}",
    )
    args = parser.parse_args(argv)
    if args.make_key:
        import getpass

        key = getpass.getpass("Teacher's key: ")
        if getpass.getpass("The same again: ") != key:
            print("error: the two keys differ; nothing was written", file=sys.stderr)
            return 1
        try:
            path = write_teacher_key(key, args.folder)
        except TeacherKeyError as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        print(f"wrote {path}: teacher_mode(key=...) with that key now unlocks the switch there")
        return 0
    csv_out = None
    if args.csv:
        try:
            csv_out = csv_target(args.csv, args.folder)
        except ClassroomError as err:
            print(f"error: {shown(str(err))}", file=sys.stderr)
            return 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SkippedAnswersWarning)
        try:
            rows = class_answers(args.folder)
        except NoAnswersError as err:
            rows, failure = None, str(err)
    for w in caught:
        print(f"warning: {shown(str(w.message))}", file=sys.stderr)
    if rows is None:
        print(f"error: {shown(failure)}", file=sys.stderr)
        return 1
    print(format_table(rows))
    if csv_out is not None:
        try:
            print(f"wrote {shown(str(write_csv(rows, csv_out)))}")
        except ClassroomError as err:
            print(f"error: {shown(str(err))}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
