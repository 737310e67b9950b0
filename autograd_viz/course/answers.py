"""A learner's answers, written to a file they hand in, so a teacher can see what the class
answered without a server: nothing is recorded until the notebook calls `record_answers`; then
every attempt at an `Exercise` or a quiz blank appends one line of JSON (the fields listed on
`record_answers`, nothing else about the learner or their machine) to a file in the notebook's
folder (in JupyterLite, the browser's storage: right-click the file and choose Download to hand it
in). Pressing Check again on the same text is not a new attempt; `python -m autograd_viz.classroom
FOLDER` turns a folder of these files into a table per question.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

__all__ = [
    "FORMAT",
    "SUFFIX",
    "AnswersError",
    "Recording",
    "RecordingWarning",
    "question_id",
    "record_answers",
    "recording",
    "stop_recording",
]

FORMAT = "autograd_viz.answers/1"  # every line carries it: the teacher's command checks it
SUFFIX = ".answers.jsonl"
_NAME = re.compile(r"[^\w\- .]+")  # what a student's name keeps in a file name
_MAX_NAME_BYTES = 89  # with the suffix, well inside every file system's 255-byte limit


class AnswersError(ValueError):
    """Recording cannot start as asked (no name, a folder as the file, a file not writable)."""


class RecordingWarning(UserWarning):
    """An attempt could not be written to the answers file (the check itself still works)."""


def question_id(kind: str, text: str, key: str = "") -> str:
    """The stable id of a question: the same text (or quiz and blank) gives the same id.

    >>> question_id("exercise", "2 + 3 = ?")
    'exercise:f47c4ee248'
    """
    clean = " ".join(text.split())
    if kind == "quiz":
        return f"quiz:{key}:{clean}"
    return f"exercise:{hashlib.sha256(clean.encode('utf-8')).hexdigest()[:10]}"


def graph_key(parts: list[str]) -> str:
    """10 hex digits naming a quiz's graph (its values' names, operations and numbers)."""
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:10]


@dataclass
class Recording:
    """Where this kernel's answers go; shown, it tells the learner which file to hand in."""

    path: Path
    student: str
    session: str = field(default_factory=lambda: secrets.token_hex(4))
    seq: int = 0
    _last: dict[str, str] = field(default_factory=dict, repr=False)

    def add(self, *, kind: str, question: str, prompt: str, answer: str, read: float | None,
            right: bool) -> bool:  # fmt: skip
        """Append one attempt; False (nothing written) when it repeats the last text typed."""
        if self._last.get(question) == answer:
            return False
        self._last[question] = answer
        self.seq += 1
        line = {
            "format": FORMAT, "student": self.student, "session": self.session,
            "seq": self.seq, "question": question, "prompt": prompt, "kind": kind,
            "answer": answer, "read": read, "right": bool(right),
            "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        }  # fmt: skip
        with self.path.open("a", encoding="utf-8") as f:  # appended: a rerun keeps the first
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
        return True

    def _message(self) -> str:
        return (
            f"Recording your answers to {self.path.name} (in this notebook's folder), "
            "one line per attempt: which question, what you typed, right or wrong, and when. "
            "Hand in that file (in the browser edition: right-click it in the file browser, "
            "then Download)."
        )

    def __repr__(self) -> str:
        return self._message()

    def _repr_html_(self) -> str:
        import html

        return f'<p class="avz-recording">{html.escape(self._message())}</p>'


_current: list[Recording] = []  # at most one: the recording on in this kernel


def record_answers(path: str | Path | None = None, *, student: str | None = None) -> Recording:
    """Turn recording on: every attempt from now on is appended to `path` (or, given only
    `student`, to `<student>.answers.jsonl` in the current directory, the notebook's folder).

    Why: so a teacher can see what the class answered without a server; the learner hands
    the file in. One line of JSON per attempt, with exactly these fields:

    - `format`: `"autograd_viz.answers/1"`, so the teacher's command knows the file;
    - `student`: the name given to `record_answers` (or the file's name without its suffixes);
    - `session`: 8 random hex digits, new at each `record_answers` call (a kernel restart);
    - `seq`: the attempt's number in the session (1, 2, ...), so a file handed in twice counts once;
    - `question`: a stable id (`question_id`): `exercise:` and 10 hex digits of the SHA-256 of the
      question's text, or `quiz:`, 10 hex digits of the quiz's graph (every value's name,
      operation, operands and number) and the blank's label (`quiz:1a2b3c4d5e:∂z/∂y`), so the
      same question gets the same id in any notebook, on any machine;
    - `prompt`: the question's text (an exercise), or "quiz on z (x = 2, y = 3): ∂z/∂y";
    - `kind`: `"exercise"` or `"quiz"`;
    - `answer`: the text typed; `read`: the number it was read as (`null` for a word, or text
      that could not be read);
    - `right`: true or false (text that could not be read is wrong);
    - `time`: when, in UTC (`2026-12-01T14:30:05.123+00:00`).

    >>> import tempfile, os; os.chdir(tempfile.mkdtemp())
    >>> record_answers("ada.answers.jsonl").student
    'ada'
    >>> stop_recording()
    >>> recording = record_answers(student="Ada")   # writes Ada.answers.jsonl
    >>> recording.path.name
    'Ada.answers.jsonl'
    >>> stop_recording()
    """
    if student is not None and (not isinstance(student, str) or not student.strip()):
        raise AnswersError(
            f"student= must be the learner's name, got {student!r}; e.g. "
            'record_answers(student="Ada")'
        )
    if path is None:
        if student is None:
            raise AnswersError(
                "record_answers needs a file name or a student name: "
                'record_answers("ada.answers.jsonl") or record_answers(student="Ada")'
            )
        path = Path(f"{_file_name(student)}{SUFFIX}")
    if not isinstance(path, (str, Path)) or not str(path).strip():
        raise AnswersError(f"the file name must be text, got {path!r}")
    path = Path(path)
    try:
        if path.is_dir():
            raise AnswersError(
                f"{path} is a folder: give a file name, e.g. {path / ('ada' + SUFFIX)}"
            )
        path.open("a", encoding="utf-8").close()  # can it be written? (creates it, empty)
    except OSError as err:
        raise AnswersError(
            f"cannot write the answers file {path}: {err.strerror or err}. Give a file in a "
            "folder you can write to (the notebook's own folder, by default)"
        ) from None
    who = student.strip() if student is not None else path.name.split(".")[0]
    _current[:] = [Recording(path=path, student=who)]
    return _current[0]


def _file_name(student: str) -> str:
    """The student's name as a file name: unsafe characters as `_`, and a name too long for
    a file system (255 bytes) shortened, with 8 hex digits of its hash so two long names
    sharing a beginning stay apart. The full name is still written in every line.

    >>> _file_name("Ada L/ovelace"), len(_file_name("A" * 300))
    ('Ada L_ovelace', 89)
    """
    name = _NAME.sub("_", student.strip()).strip(" .") or "student"
    if len(name.encode("utf-8")) <= _MAX_NAME_BYTES:
        return name
    digest = hashlib.sha256(student.strip().encode("utf-8")).hexdigest()[:8]
    cut = name.encode("utf-8")[: _MAX_NAME_BYTES - 9].decode("utf-8", "ignore").rstrip(" .")
    return f"{cut}-{digest}"


def stop_recording() -> None:
    """Turn recording off (the file keeps what was written)."""
    _current.clear()


def recording() -> Recording | None:
    """The recording that is on, or None (the default: nothing is recorded)."""
    return _current[0] if _current else None


def record_attempt(*, kind: str, question: str, prompt: str, answer: str, read: float | None,
                   right: bool) -> None:  # fmt: skip
    """Called by Exercise and Quiz after every verdict: writes only when recording is on."""
    if not _current:
        return
    try:
        _current[0].add(kind=kind, question=question, prompt=prompt, answer=answer, read=read,
                        right=right)  # fmt: skip
    except OSError as err:  # the file was moved or locked: the learner's check still answers
        warnings.warn(
            f"this answer was not recorded: cannot write {_current[0].path} "
            f"({err.strerror or err}). Run record_answers(...) again to record into a file "
            "you can write to",
            RecordingWarning,
            stacklevel=3,
        )
