"""Fill in the graph: `quiz(z)` is a View of z's graph — one layout, the blanks (each a cell of
the drawing and a label, never an answer) and the state of the board — that the one player
module (`front/static/player.js`) renders in quiz mode, an answer box on each blank's cell, Tab
in the order the backward pass fills them. A typed answer comes to the kernel as a message and
is judged there by the exercises' one judge (`grading.AnswerKey`); the verdict goes back as
text with the rule to apply (`view/quiz_hints.py`), the step's equation after two misses, and
the cells of the blanks now filled in. No answer is in the View until it is given or revealed
(`reveal()`, the teacher's switch); with recording on (`autograd_viz.course.answers`) every attempt
goes to the learner's answers file.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import Any

import anywidget
import traitlets

from autograd_viz.core._checks import check_count, is_number
from autograd_viz.core.errors import QuizError
from autograd_viz.core.graph import Graph, opened
from autograd_viz.core.steps import Step
from autograd_viz.course import answers
from autograd_viz.course.answers import graph_key
from autograd_viz.course.grading import (
    ANSWER_HELP,
    TENSOR_HELP,
    AnswerParseError,
    judge_answer,
    read_or_none,
    unreadable,
)
from autograd_viz.course.teacher import answer_box, register
from autograd_viz.front.static import module_text, static_text
from autograd_viz.view import quiz_hints as hints
from autograd_viz.view.quiz_sheet import (
    DEFAULT_MAX_NODES,
    Blank,
    Sheet,
    check_options,
)

__all__ = ["DEFAULT_MAX_NODES", "Quiz", "QuizError"]

KERNEL_GONE = "the kernel is not running: answers cannot be checked; re-run the cell"


def too_many(count: str, max_nodes: int, when: str = "") -> QuizError:
    return QuizError(
        f"this graph has {count} values (max_nodes={max_nodes}): a quiz draws every "
        f"value with a blank, too many to fill in by hand{when}. Quiz a sub-expression (an "
        "intermediate Value, e.g. one neuron's output), or raise max_nodes."
    )


def checked(graph: Graph, max_nodes: int) -> Graph:
    """`graph` (opened already, at the edge: `autograd_viz.quiz`), or a QuizError for a leaf,
    which has nothing to fill in, or for more than `max_nodes` values."""
    graph = opened(graph, "this Quiz asks about", "autograd_viz.quiz(z)")
    if graph.root.is_leaf:
        raise QuizError(
            f"nothing to quiz: {graph.root.shown} is a leaf. Build an expression "
            "first, e.g. z = (x + y) * y, then quiz(z)."
        )
    if len(graph) > max_nodes:
        raise too_many(str(len(graph)), max_nodes)
    return graph


class Quiz(anywidget.AnyWidget):
    """A graph with blanks for a learner to fill in (`autograd_viz.quiz(z)` opens z's graph,
    of any engine, once, and hands it here).

    Args:
        graph: the graph of the expression's output, opened already.
        grads: which gradients are blanks: True (all, the default), False (none), or the
            names of the values whose gradient is asked (`["y", "x"]`).
        values: which values of operations are blanks: False (none, the default), True
            (every operation's result) or a list of names. Inputs are always given.
        digits: significant digits of the numbers shown (an answer written to the digits
            the drawing shows is right).
        max_nodes: refuse a graph with more values than this (a quiz is a hand derivation).
        **draw_options: `rankdir`, `font_size`, `legend`, `timeout` (as for `draw`) and
            `notation` (of the step equations); the quiz sets the others itself.

    Attributes:
        graph: the graph asked about (`autograd_viz.core.graph.Graph`), as `Player.graph`.
        blanks: the blanks, in the order Tab visits them.
        picture: the drawing as it shows now (SVG), the blanks filled in so far.
        feedback, progress, equation: the texts the quiz shows now.

    The View the front end renders: `svg` (the layout, every blank a "?"), `slots` (the node
    classes and cell texts a state sets), `asked` (per blank its cell and label, in Tab
    order) and `state` (the slots' values now, each blank solved or missed, the texts). The
    front end sends `{"answer": k, "text": ...}` (blank k typed in) and `{"equation": k}`.
    """

    _esm = module_text()  # the one player module; `mode` tells it to render quiz mode
    _css = static_text("quiz.css")

    mode = traitlets.Unicode("quiz").tag(sync=True)
    svg = traitlets.Unicode("").tag(sync=True)
    slots = traitlets.List().tag(sync=True)
    asked = traitlets.List().tag(sync=True)  # per blank: cell, label, what
    intro = traitlets.Unicode("").tag(sync=True)
    answer_help = traitlets.Unicode(ANSWER_HELP).tag(sync=True)  # each box's description
    state = traitlets.Dict().tag(sync=True)
    kernel_gone = traitlets.Unicode(KERNEL_GONE).tag(sync=True)
    timeout_ms = traitlets.Int(4000).tag(sync=True)  # no verdict this long: the kernel is gone

    def __init__(
        self,
        graph: Graph,
        *,
        grads: bool | Iterable[str] = True,
        values: bool | Iterable[str] = False,
        digits: int = 4,
        max_nodes: int = DEFAULT_MAX_NODES,
        **draw_options: Any,
    ) -> None:
        max_nodes = check_count(max_nodes, "max_nodes", QuizError)
        check_options(draw_options)
        self.graph = checked(graph, max_nodes)  # read once, at the edge
        self.digits = digits
        self._sheet = sheet = Sheet(self.graph, grads, values, digits, draw_options)
        self.blanks: list[Blank] = sheet.blanks
        self.revealed = False
        self._active: int | None = None  # the value of the blank last missed
        self._said: tuple[str, bool | None] = ("", None)
        self._offered: int | None = None  # the blank whose step's equation is offered
        self._equation = ""
        super().__init__(
            svg=self._drawing(lambda b: False),
            slots=[list(s) for s in sheet.frames.slots if s[0] != "svg"],
            asked=[{"cell": b.cell, "label": b.label, "what": b.what} for b in self.blanks],
            intro="Fill in the boxes on the graph: type a number (a sum such as 5+3 is fine) "
            + ("or a tensor's numbers in order ([0.5, -1.5]) " if sheet.tensors else "")
            + "and press Enter or Tab. Tab moves on in the order the "
            f"{'forward and ' if sheet.values_asked else ''}backward pass fills them in.",
            answer_help=TENSOR_HELP if sheet.tensors else ANSWER_HELP,
        )
        self._show()
        self.on_msg(self._on_message)
        register(self)  # under the teacher's switch (autograd_viz.course.teacher)

    # ---- public API ------------------------------------------------------------

    @property
    def left(self) -> int:
        """How many blanks are still to fill in."""
        return sum(not b.solved for b in self.blanks)

    @property
    def picture(self) -> str:
        """The drawing as it shows now: the blanks filled in (or revealed) with their numbers."""
        return self._drawing(lambda b: b.solved or self.revealed)

    @property
    def feedback(self) -> str:
        """The verdict on the last answer, as the learner reads it."""
        return self.state.get("feedback", "")

    @property
    def progress(self) -> str:
        """How many blanks are left, as the learner reads it."""
        return self.state.get("progress", "")

    @property
    def equation(self) -> str:
        """The step's equation shown (after two misses, once asked for), or ''."""
        return self.state.get("equation", "")

    def submit(self, label: str, text: str) -> bool:
        """Type `text` into the blank called `label` (e.g. "∂z/∂y") as a learner would; the
        verdict on `text` is shown and returned (a blank already filled in is not filled in
        again, but `text` is still judged).

        >>> from autograd_viz import Value, quiz
        >>> x = Value(2.0, label="x"); y = x * x; y.label = "y"
        >>> quiz(y).submit("∂y/∂x", "3")
        False
        """
        blank = self._sheet.blank(label)
        if is_number(text, (int, float)):
            text = repr(text)  # submit("∂z/∂y", 8) reads as the learner typing 8
        if not isinstance(text, str):
            raise QuizError(
                f"submit() takes the text a learner would type, got {type(text).__name__}: "
                f"{text!r}; e.g. submit({label!r}, '8')"
            )
        return self._answer(blank, text)

    def hint(self, label: str, text: str | None = None) -> str:
        """The rule to apply for the blank called `label`, with the numbers it needs (as
        plain text); `text`, a wrong answer, may sharpen it ("that is one path only")."""
        return hints.hint(self._sheet, self._sheet.blank(label), text)

    def step_equation(self, label: str) -> str:
        """The step's equation for a blank, its result left as `?` (plain text)."""
        return hints.equation(self._sheet, self._sheet.blank(label))

    def reveal(self) -> None:
        """Show every answer on the graph (for teachers)."""
        self.revealed = True
        self._show()

    def hide(self) -> None:
        """Hide the answers again: the graph shows what the learner has filled in."""
        self.revealed = False
        self._show()

    def __repr__(self) -> str:
        name = self._sheet.graded.root.label or "root"
        return f"<Quiz on {name!r}: {len(self.blanks)} blanks, {self.left} left>"

    def _repr_mimebundle_(self, **kwargs: object) -> Any:
        from autograd_viz.front.inline import widgets_render

        if not widgets_render():  # no widget manager: the graph to fill in on paper
            return {"text/plain": repr(self), "text/html": self.static_html()}
        return super()._repr_mimebundle_(**kwargs)

    def static_html(self) -> str:
        """The quiz where no kernel can check it (Colab, a static page, a slide deck): the
        graph with its blanks, to fill in on paper, and the answers, closed until clicked."""
        answers = "".join(
            f"<li>{html.escape(b.label)} = {html.escape(self._sheet.num(b.answer))}</li>"
            for b in self.blanks
        )
        return (
            '<div class="avz-quiz"><p>Fill in the graph on paper: every "?" asked below is a '
            f"blank.</p>{self._drawing(lambda b: False)}"
            f"{answer_box('Show the answers', f'<ol>{answers}</ol>')}"
            "</div>"
        )

    # ---- the front end's messages ------------------------------------------------

    def _on_message(self, _widget: object, content: Any, _buffers: object) -> None:
        """{"answer": k, "text": ...}: blank k typed in (an emptied box is no answer, as in
        an Exercise); {"equation": k}: show blank k's step equation, if it is offered. The
        state goes back with `req`, so the view knows the kernel answered; anything else (not
        from our front end) is ignored."""
        if not isinstance(content, dict):
            return
        req = content.get("req", 0)
        k = content.get("answer", content.get("equation"))
        if not is_number(k, int) or not 0 <= k < len(self.blanks):
            return
        text = content.get("text")
        if "answer" in content and isinstance(text, str) and text.strip():
            self._answer(self.blanks[k], text, req=req)
            return
        if "equation" in content and k == self._offered:
            self._equation = hints.equation(self._sheet, self.blanks[k])
        self._show(req)

    # ---- judging -------------------------------------------------------------

    def _answer(self, blank: Blank, text: str, req: object = 0) -> bool:
        """Judge `text` for `blank`, show the verdict, and record the attempt if the notebook
        turned that on."""
        right = self._judge(blank, text)
        self._show(req)
        if text.strip() and answers.recording() is not None:
            self._record(blank, text, right)
        return right

    def _judge(self, blank: Blank, text: str) -> bool:
        sheet = self._sheet
        try:  # the exercises' one judge: its reading, its separators, its notes
            right, note = judge_answer(text, blank.answer, digits=self.digits)
        except AnswerParseError as err:
            self._said = (unreadable(err), False)
            return False
        number = sheet.num(blank.answer)
        if blank.solved:  # filled in already: judged, but nothing changes
            verdict = "✔ Right" if right else f"✘ {text.strip()} is not it"
            self._said = (f"{verdict}: {blank.label} is filled in already, = {number}.", right)
            return right
        theirs = hints.engine_says(sheet, blank, self.graph)
        if right:
            blank.solved = True
            self._active = None
            self._offered, self._equation = None, ""
            done = " Every blank is filled in: well done!" if self.left == 0 else ""
            more = f" {theirs}" if theirs else ""
            self._said = (f"✔ Right: {blank.label} = {number}.{more}{done}", True)
            return True
        blank.misses += 1
        self._active = blank.node
        hint = hints.hint(sheet, blank, text)
        if theirs and hints.reads_as(text, sheet.theirs[blank.node], self.digits):
            said = (f"✘ Not quite: {text.strip()} is what your engine's backward() gives "
                    f"for {blank.label}, but it is not the right derivative. "
                    f"{hints.blame(sheet, self.graph)} {hint}")  # fmt: skip
        else:
            more = f" ({theirs})" if theirs else ""
            said = f"✘ Not quite. {note + ' ' if note else ''}{hint}{more}"
        self._said = (said, False)
        if blank.misses >= 2 and self._offered != self.blanks.index(blank):
            self._offered, self._equation = self.blanks.index(blank), ""
        return False

    def _record(self, blank: Blank, text: str, right: bool) -> None:
        """One attempt, under an id made of this graph and the blank's label (so the same
        quiz in another notebook is the same question; see `autograd_viz.course.answers`)."""
        sheet = self._sheet
        parts = [f"{sheet.names[n.index]}|{n.op}|{n.operands}|{n.data!r}" for n in sheet.order]
        inputs = ", ".join(
            f"{sheet.names[n.index]} = {sheet.num(sheet.value(n.index))}"
            for n in sheet.order if n.is_leaf
        )  # fmt: skip
        answers.record_attempt(
            kind="quiz", question=answers.question_id("quiz", blank.label, graph_key(parts)),
            prompt=f"quiz on {sheet.root_name} ({inputs}): {blank.label}",
            answer=text.strip(), read=read_or_none(text), right=right,
        )  # fmt: skip

    # ---- the board ---------------------------------------------------------------

    def _show(self, req: object = 0) -> None:
        """The state the front end shows: every slot's value (the blanks filled in or
        revealed), which blanks are solved and missed, the progress and the verdict."""
        n = len(self.blanks)
        if self.revealed:
            progress = f"Answers revealed ({n} blanks)."
        elif self.left:
            progress = f"{self.left} of {n} blanks left to fill in."
        else:
            progress = f"All {n} blanks filled in."
        known = self._known(lambda b: b.solved or self.revealed)
        values = self._sheet.frames._slot_values(0, known, "")  # as Frames.picture fills them
        shown = [v for s, v in zip(self._sheet.frames.slots, values) if s[0] != "svg"]
        self.state = {
            "req": req if is_number(req, int) else 0,
            "shown": shown,
            "solved": [b.solved or self.revealed for b in self.blanks],
            "missed": [b.misses > 0 and not b.solved for b in self.blanks],
            "progress": progress,
            "feedback": self._said[0],
            "right": self._said[1],
            "offered": -1 if self._offered is None else self._offered,
            "equation": self._equation,
        }

    def _drawing(self, filled: Callable[[Blank], bool]) -> str:
        """The graph with the answers of the blanks `filled` picks, every other blank a "?"."""
        return self._sheet.frames.picture(self._known(filled))

    def _known(self, filled: Callable[[Blank], bool]) -> Step:
        """The state of the graph with the answers of the blanks `filled` picks."""
        sheet = self._sheet
        known_values = dict(enumerate(v.data for v in sheet.order))
        known_grads = {
            i: g for i, g in sheet.grads.items() if i not in sheet.unknown and not any(
                b.node == i and b.what == "grad" for b in self.blanks
            )
        }  # fmt: skip
        for b in self.blanks:
            if filled(b):
                (known_values if b.what == "data" else known_grads)[b.node] = b.answer
            elif b.what == "data":  # a value not found yet: its gradient cannot be shown
                known_values.pop(b.node, None)
                known_grads.pop(b.node, None)
        active = self._active if self._active is not None else -1
        return Step(
            index=0, phase="backward", kind="value", nodes=(), edges=(), active=active,
            values=known_values, grads=known_grads, text="quiz: fill in the blanks", latex="",
        )  # fmt: skip
