"""The teacher's switch: reveal (and hide) every answer in the notebook at once. Everything with an
answer to reveal (an `Exercise`, a `CodeExercise`, a `Quiz`) calls `register(item)` when it is
made; the registry holds it weakly and needs only `reveal()` and `hide()` (`Revealable`), so the
switch knows nothing about what it reveals. The lock opens on the teacher's machine
(`AUTOGRAD_VIZ_TEACHER=1` when Jupyter starts) or with the teacher's key
(`autograd_viz.course.teacher_key`), and every way the kit reveals answers goes through it
(`teacher_mode()`, `reveal_all()`, the click-to-open `answer_box` of a page without widgets); what
it cannot hide is what the learner's own kernel holds (the exercise cell's code, `ex.answer`).

>>> import os; os.environ["AUTOGRAD_VIZ_TEACHER"] = "1"  # the teacher's machine
>>> class Card:
...     revealed = False
...     def reveal(self): self.revealed = True
...     def hide(self): self.revealed = False
>>> card = Card(); register(card); _ = reveal_all(); card.revealed
True
>>> _ = hide_all(); card.revealed
False
>>> del os.environ["AUTOGRAD_VIZ_TEACHER"]
"""

from __future__ import annotations

import html
import os
import weakref
from typing import Protocol

import ipywidgets as widgets

__all__ = [
    "TEACHER_ENV",
    "Registry",
    "Revealable",
    "TeacherLockedError",
    "answer_box",
    "answers_unlocked",
    "hide_all",
    "register",
    "registry",
    "reveal_all",
    "teacher_mode",
    "unlocked_env",
]

TEACHER_ENV = "AUTOGRAD_VIZ_TEACHER"


def _teacher_machine() -> bool:
    """True where the environment says this is the teacher's machine (read at each call)."""
    return os.environ.get(TEACHER_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


class TeacherLockedError(PermissionError):
    """Answers were asked for where the lock holds: not the teacher's machine, no key given."""


class Revealable(Protocol):
    """What the switch reveals: anything with an answer to show and to hide again."""

    def reveal(self) -> None: ...

    def hide(self) -> None: ...


class Registry:
    """Every live item with an answer in this kernel, so one switch can reveal them all.

    `teacher` is True while answers are being revealed (from the start on the teacher's
    machine); `unlocked` once the teacher's key was given in this kernel.
    """

    def __init__(self) -> None:
        self._items: list[weakref.ref[Revealable]] = []
        self.teacher = _teacher_machine()  # revealing now (from the start on the teacher's)
        self.unlocked = False  # the teacher's key was given in this kernel

    def add(self, item: Revealable) -> None:
        """Hold `item` (weakly) so the switch reaches it."""
        self._items = [ref for ref in self._items if ref() is not None]
        self._items.append(weakref.ref(item))

    def live(self) -> list[Revealable]:
        """The items still alive, in the order they were made."""
        return [item for item in (ref() for ref in self._items) if item is not None]


registry = Registry()  # the one registry of this kernel


def register(item: Revealable) -> None:
    """Put `item` under the teacher's switch; reveal it now if the teacher is revealing.

    Why: an exercise made after the switch was turned on (or on the teacher's machine) must
    show its answer like the ones before it.
    """
    registry.add(item)
    if registry.teacher:
        item.reveal()


def answers_unlocked() -> bool:
    """True where the kit may show answers: the teacher's machine, or the key given here.

    Why: the one test every reveal path asks (the switch, `reveal_all()`, `answer_box`),
    so no path shows what the locked switch hides.
    """
    return _teacher_machine() or registry.unlocked or registry.teacher


def unlocked_env() -> dict[str, str]:
    """What a kernel started from this one (an export's) needs to carry the lock's state:
    `AUTOGRAD_VIZ_TEACHER=1` where the answers are unlocked here, else nothing."""
    return {TEACHER_ENV: "1"} if answers_unlocked() else {}


def reveal_all(key: str | None = None) -> int:
    """Reveal the answer of every exercise created in this kernel; return how many.

    Only where the answers are unlocked (`answers_unlocked()`), or with the teacher's `key`;
    elsewhere it raises `TeacherLockedError` and reveals nothing.
    """
    if not answers_unlocked():
        refusal = _key_refusal(key) if key is not None else None
        if key is None or refusal is not None:
            raise TeacherLockedError(
                f"reveal_all() is locked here: {_LOCKED_WHY}" + (f" {refusal}" if refusal else "")
            )
    items = registry.live()
    for item in items:
        item.reveal()
    return len(items)


def hide_all() -> int:
    """Hide every revealed answer again; return how many exercises there are."""
    items = registry.live()
    for item in items:
        item.hide()
    return len(items)


def answer_box(summary: str, answer_html: str) -> str:
    """An answer to open with a click (`<details>`) on a page without widgets, where the
    answers are unlocked (`answers_unlocked()`); elsewhere a note that the teacher has it.

    Why: with no widget manager (`AUTOGRAD_VIZ_WIDGETS=0`, Colab, an export) an exercise is
    plain HTML; an answer put there is on the page, so it must pass the lock like the switch.
    `answer_html` must already be escaped.
    """
    if answers_unlocked():
        return f"<details><summary>{summary}</summary>{answer_html}</details>"
    return (
        '<p class="avz-answer-locked"><i>The answer is locked: it opens on the teacher\'s '
        "machine, or after the teacher's key is given to teacher_mode().</i></p>"
    )


class _NoSwitch:
    """What `teacher_mode()` shows where widgets cannot render: each answer opens alone
    where the answers are unlocked; elsewhere, what unlocks them (and why a key failed)."""

    def __init__(self, refusal: str | None = None) -> None:
        self.refusal = refusal

    def _repr_html_(self) -> str:
        return f'<p class="avz-teacher-note">{html.escape(repr(self))}</p>'

    def __repr__(self) -> str:
        if answers_unlocked():
            return (
                "Teacher: each answer opens under its question (Show the answer); run an "
                "exercise's cell again to add it to an exercise shown while locked."
            )
        more = f" {self.refusal}" if self.refusal else ""
        return f"Teacher: locked, nothing is revealed; {_LOCKED_WHY}{more}"


_SWITCH_LABELS = {False: "Teacher: show all answers", True: "Teacher: hide all answers"}


class _TeacherSwitch(widgets.ToggleButton):
    def __repr__(self) -> str:
        return "Teacher switch: reveal every answer in this notebook"


def teacher_mode(key: str | None = None) -> widgets.DOMWidget | _NoSwitch:
    """A toggle that reveals (on) or hides (off) every answer in the notebook, now and later,
    on the teacher's machine only: where `AUTOGRAD_VIZ_TEACHER=1` is set, or with the
    teacher's key (`key=`, or typed into the box shown instead of the switch).

    Why: every notebook ends with this cell, and a student who runs it must not see the
    answers. Without the environment variable or the key it shows what it needs and reveals
    nothing. The key is checked against a salted hash the teacher makes with
    `python -m autograd_viz.classroom --make-key FOLDER` (see `autograd_viz.course.teacher_key`).
    Once the key is accepted, the switch stays unlocked until the kernel restarts.

    >>> import os; os.environ["AUTOGRAD_VIZ_TEACHER"] = "1"
    >>> switch = teacher_mode(); switch.value = True  # every exercise now shows its answer
    >>> switch.value = False; del os.environ["AUTOGRAD_VIZ_TEACHER"]
    """
    from autograd_viz.front.inline import widgets_render

    refusal = None
    if key is not None and not (_teacher_machine() or registry.unlocked):
        refusal = _key_refusal(key)
    if not widgets_render():
        return _NoSwitch(refusal)
    if _teacher_machine() or registry.unlocked:
        return _switch()
    return _TeacherLock(refusal)


def _key_refusal(key: object) -> str | None:
    """None when `key` is the teacher's (the switch unlocks), else why not, in a sentence."""
    from autograd_viz.course.teacher_key import check_teacher_key  # standard library only

    refusal = check_teacher_key(key)
    if refusal is None:
        registry.unlocked = True
    return refusal


_LOCKED_WHY = (
    f"answers open only on the teacher's machine (Jupyter started with {TEACHER_ENV}=1) or "
    'after the teacher\'s key is given (teacher_mode(key="...") or reveal_all(key="...")).'
)
_LOCKED = (
    "Teacher switch: locked, nothing is revealed. It works on the teacher's machine only: "
    f"start Jupyter with {TEACHER_ENV}=1, or give the teacher's key (type it below, or run "
    'teacher_mode(key="...")).'
)


class _TeacherLock(widgets.VBox):
    """What `teacher_mode()` shows without the teacher's machine or key: a box for the key."""

    def __init__(self, refusal: str | None = None) -> None:
        self.note = widgets.HTML(html.escape(_LOCKED + (f" {refusal}" if refusal else ""), False))
        self.key = widgets.Password(
            placeholder="teacher's key", layout=widgets.Layout(width="14em")
        )
        self.button = widgets.Button(description="Unlock", icon="unlock")
        self.button.on_click(lambda _button: self.unlock(self.key.value))
        super().__init__([self.note, widgets.HBox([self.key, self.button])])

    def unlock(self, key: str) -> bool:
        """Check `key`; the right one turns this box into the switch (as typed in the box)."""
        self.key.value = ""  # never kept in the widget (or in a saved notebook's state)
        refusal = _key_refusal(key)
        if refusal is not None:
            self.note.value = html.escape(f"{_LOCKED} {refusal}", quote=False)
            return False
        self.children = [_switch()]
        return True

    def __repr__(self) -> str:  # short: a widget's text form is cut at 110 characters
        return f"Teacher switch: locked, nothing is revealed (needs {TEACHER_ENV}=1 or the key)"


def _switch() -> _TeacherSwitch:
    switch = _TeacherSwitch(
        value=registry.teacher,
        description=_SWITCH_LABELS[registry.teacher],  # what a click will do next
        icon="eye-slash" if registry.teacher else "eye",
        layout=widgets.Layout(width="auto"),
    )

    def _toggle(change: dict) -> None:
        registry.teacher = bool(change["new"])
        switch.description = _SWITCH_LABELS[registry.teacher]
        switch.icon = "eye-slash" if registry.teacher else "eye"
        if registry.teacher:
            reveal_all()
        else:
            hide_all()

    switch.observe(_toggle, names="value")
    return switch
