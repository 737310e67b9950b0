"""The teacher's table of the class's answers, on the standard library only: one `QuestionRow` per
question (how many learners tried it, how many were right at their first try and in the end, the
most common wrong answer), written as plain text for a terminal (`format_table`) or as CSV for a
spreadsheet (`write_csv`), with what learners typed kept harmless on the way: control characters
written out (`shown`), a cell never run as a formula (`csv_cell`), and a learner's answers file
never replaced by the table (`csv_target`). `autograd_viz.classroom` reads the folder into these
rows and offers these names too.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from autograd_viz.core._files import write_atomically
from autograd_viz.course.answers import SUFFIX

__all__ = [
    "ClassroomError",
    "QuestionRow",
    "csv_cell",
    "csv_target",
    "format_table",
    "shown",
    "write_csv",
]


class ClassroomError(ValueError):
    """The teacher's table cannot be written as asked (over an answers file, no such folder)."""


@dataclass(frozen=True)
class QuestionRow:
    """One question's line of the teacher's table (fractions are of the learners who tried)."""

    question: str  # the stable id (autograd_viz.course.answers.question_id)
    prompt: str
    learners: int
    attempts: int
    right_first: int  # learners whose first attempt was right
    right_eventually: int  # learners with a right attempt at any try
    common_wrong: str | None  # the most common wrong answer, as most of them typed it
    common_wrong_learners: int  # how many learners gave it

    @property
    def first_try(self) -> Fraction:
        """The fraction of learners right at their first try."""
        return Fraction(self.right_first, self.learners)

    @property
    def eventually(self) -> Fraction:
        """The fraction of learners right in the end."""
        return Fraction(self.right_eventually, self.learners)


_CONTROLS = [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x061C, 0x200E, 0x200F,
             *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029]  # fmt: skip
_SHOWN = {c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" for c in _CONTROLS}


def shown(text: str) -> str:
    """Learner's text as a terminal may print it: control characters written out as `\\x1b`.

    Why: an answers file is written by whoever hands it in; an escape sequence in it would
    otherwise recolour, retitle or rewrite the teacher's terminal, and a bidirectional
    control would reorder the table around it.

    >>> shown("5\\x1b[2J"), shown("a\\u202eb")
    ('5\\\\x1b[2J', 'a\\\\u202eb')
    """
    return str(text).translate(_SHOWN)


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def csv_cell(text: str) -> str:
    """A text cell a spreadsheet shows as text, never runs as a formula (OWASP's advice).

    Why: a typed answer such as `=HYPERLINK("http://...")` would otherwise be a live formula
    in the teacher's spreadsheet. A cell beginning with `=`, `+`, `-`, `@`, a tab or a
    carriage return gets a `'` in front, unless it is a plain number (`-3`, `+2.5e-1`),
    which a spreadsheet reads as a number.

    >>> csv_cell("=1+1"), csv_cell("-3"), csv_cell("-3+1"), csv_cell("8")
    ("'=1+1", '-3', "'-3+1", '8')
    """
    text = str(text)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _fraction(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)"


def format_table(rows: Sequence[QuestionRow], width: int = 44) -> str:
    """The rows as a plain-text table, one line per question (the question clipped to `width`);
    control characters in what learners typed are written out (`shown`)."""
    head = ["question", "learners", "attempts", "right 1st try", "right in the end",
            "most common wrong answer"]  # fmt: skip
    body = []
    for r in rows:
        prompt = shown(" ".join(r.prompt.split()))
        prompt = prompt if len(prompt) <= width else prompt[: width - 1] + "…"
        wrong = "—" if r.common_wrong is None else (
            f"{shown(r.common_wrong)} ({r.common_wrong_learners} of {r.learners})"
        )  # fmt: skip
        body.append([prompt, str(r.learners), str(r.attempts),
                     _fraction(r.right_first, r.learners),
                     _fraction(r.right_eventually, r.learners), wrong])  # fmt: skip
    widths = [max(len(line[k]) for line in [head, *body]) for k in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip()
             for line in [head, *body]]  # fmt: skip
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def csv_target(path: str | Path, folder: str | Path | None = None) -> Path:
    """Where the CSV may go: refused (`ClassroomError`) when it would replace a learner's
    answers file or a file in the answers folder, or when its folder does not exist.

    Why: `--csv answers/ada.answers.jsonl` once replaced Ada's hand-in with the table, and
    `--csv missing/out.csv` printed the table and then failed; both are said before any work.
    """
    out = Path(path).expanduser()
    inside = folder is not None and _within(out, Path(folder))
    if out.name.endswith(SUFFIX) or inside:
        where = "a learner's answers file" if out.name.endswith(SUFFIX) else (
            f"inside the answers folder {folder}"
        )  # fmt: skip
        raise ClassroomError(
            f"--csv {out}: that is {where}; the table would replace what was handed in. "
            "Write it somewhere else, e.g. --csv class_table.csv"
        )
    if out.is_dir():
        raise ClassroomError(f"--csv {out} is a folder: give a file name, e.g. {out / 'table.csv'}")
    if not out.parent.is_dir():
        raise ClassroomError(
            f"--csv {out}: the folder {out.parent} does not exist; create it first or write "
            "somewhere else"
        )
    return out


def _within(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def write_csv(rows: Sequence[QuestionRow], path: str | Path) -> Path:
    """The rows as CSV (fractions as decimals to 4 places), for a spreadsheet; learners' text
    is kept from running as a formula (`csv_cell`), and the file is replaced only once
    written in full. A learner's answers file is never replaced (`csv_target`)."""
    path = csv_target(path)
    text = io.StringIO(newline="")
    out = csv.writer(text)
    out.writerow(["question_id", "question", "learners", "attempts", "right_first_try",
                  "right_eventually", "most_common_wrong_answer",
                  "learners_with_that_answer"])  # fmt: skip
    for r in rows:
        out.writerow([csv_cell(r.question), csv_cell(r.prompt), r.learners, r.attempts,
                      f"{float(r.first_try):.4f}", f"{float(r.eventually):.4f}",
                      csv_cell(r.common_wrong or ""), r.common_wrong_learners])  # fmt: skip
    try:
        return write_atomically(path, text.getvalue())
    except OSError as err:
        raise ClassroomError(f"cannot write {path}: {err.strerror or err}") from None
