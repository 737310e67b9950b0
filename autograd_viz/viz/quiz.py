"""Fill in the graph: `quiz(z)` draws z's graph (one layout, restyled per state) with a text
box over every gradient's cell, or over the values and gradients a teacher picks, Tab in
the order the backward pass fills them; every answer is judged by the exercises' one judge
(`autograd_viz.grading.AnswerKey`), a wrong one is told the rule to apply with its numbers
and after two misses offered the step's equation; on a learner's own engine the answers are
the right derivatives (the op table's, or central differences on their forward method),
never what their `_backward` sends; no answer is in the widget or its saved state until it
is given or revealed (`reveal()`, the teacher's switch), and with recording on
(`autograd_viz.answers`) every attempt goes to the learner's answers file.
"""

from __future__ import annotations

import dataclasses
import difflib
import html
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets

from autograd_viz import answers
from autograd_viz._checks import is_number
from autograd_viz._equations import Eq, partial
from autograd_viz._numbers import format_number
from autograd_viz.answers import graph_key
from autograd_viz.door import open_graph
from autograd_viz.errors import QuizError
from autograd_viz.grading import ANSWER_HELP, AnswerKey, AnswerParseError, read_or_none, unreadable
from autograd_viz.graph import Graph, with_numbers
from autograd_viz.naming import expression_names
from autograd_viz.ops import describe
from autograd_viz.teacher import answer_box, register
from autograd_viz.trace import Step, node_names
from autograd_viz.viz.frames import Frames
from autograd_viz.viz.static import static_text

__all__ = ["Quiz", "QuizError", "quiz"]

DEFAULT_MAX_NODES = 60  # a quiz is a hand derivation: beyond this it is a chore, not a lesson
_PT_TO_PX = 4 / 3  # an SVG drawn at its natural size: 1 pt = 4/3 CSS px
_CELLPADDING = 3  # the value label's CELLPADDING (autograd_viz.viz.dot.value_label)

_CSS = f"<style>{static_text('quiz.css')}</style>"

# Drawing options a quiz passes on, and those it sets itself (with the reason).
_DRAW_OPTIONS = ("rankdir", "font_size", "legend", "timeout", "notation")
_SETS_ITSELF = {
    "collapse": "puts a blank on every value, so it draws every value",
    "by": "asks for every value, so it steps operation by operation",
    "phase": "is about the backward pass (values=True asks the forward values too)",
    "show_grad": "shows each gradient once it is filled in",
    "states": "colours each node by what is filled in",
    "fmt": "writes numbers to digits= significant digits, as it checks them (use digits=)",
}


def _too_many(count: str, max_nodes: int, when: str = "") -> QuizError:
    return QuizError(
        f"this graph has {count} values (max_nodes={max_nodes}): a quiz draws every "
        f"value with a blank, too many to fill in by hand{when}. Quiz a sub-expression (an "
        "intermediate Value, e.g. one neuron's output), or raise max_nodes."
    )


def _opened(root: object, max_nodes: int) -> Graph:
    """`root`'s graph opened at the door (a graph too big is refused before it is read), or
    a QuizError for a leaf, which has nothing to fill in."""
    graph = open_graph(
        root, caller="quiz()", max_nodes=max_nodes, every_value=True,
        too_large=lambda n: _too_many(f"more than {n}", n,
                                      " (counting stopped there, before any work)"),
        needs="a Value (an expression's output)",
    )  # fmt: skip
    if graph.root.is_leaf:
        raise QuizError(
            f"nothing to quiz: {root!r} is a leaf. Build an expression first, "
            "e.g. z = (x + y) * y, then quiz(z)."
        )
    if len(graph) > max_nodes:
        raise _too_many(str(len(graph)), max_nodes)
    return graph


@dataclass
class _Blank:
    """One blank: the value index it belongs to, what is asked, and how the learner fares."""

    node: int
    what: str  # "data" or "grad"
    label: str  # what the blank asks for: "∂z/∂y" or "x + y"
    answer: float
    widget: widgets.Text = field(repr=False)
    misses: int = 0
    solved: bool = False
    asked: str = ""  # the label before numbering, where two values share a name


def quiz(root: object, **options: Any) -> Quiz:
    """A fill-in quiz on `root`'s graph (see `Quiz` for the options).

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> z = (x + y) * y; z.label = "z"
    >>> q = quiz(z)
    >>> q.submit("∂z/∂y", "5+3")
    True
    """
    return Quiz(root, **options)


class Quiz(widgets.VBox):
    """The graph of `root` with blanks for a learner to fill in.

    Args:
        root: the output Value of the expression.
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
        graph: the snapshot of `root`'s graph (`autograd_viz.graph.Graph`), as `Player.graph`.
        picture: the HTML widget showing the drawing, restyled as blanks are filled in.
        blanks: the blanks, in the order Tab visits them.
    """

    def __init__(
        self,
        root: object,
        *,
        grads: bool | Iterable[str] = True,
        values: bool | Iterable[str] = False,
        digits: int = 4,
        max_nodes: int = DEFAULT_MAX_NODES,
        **draw_options: Any,
    ) -> None:
        if not is_number(max_nodes, int) or max_nodes < 1:
            raise QuizError(f"max_nodes must be a positive int, got {max_nodes!r}")
        _check_options(draw_options)
        self.graph = _opened(root, max_nodes)  # the one read of the user's graph
        self.digits = digits
        self._learn(self.graph, draw_options)
        asked_values, asked_grads = self._ask(values, grads)
        self.blanks = self._make_blanks(asked_values, asked_grads)
        self.revealed = False
        self._active: int | None = None
        self._typing: _Blank | None = None  # the blank submit() is filling in
        super().__init__(self._board(bool(asked_values)))
        self.add_class("avz-quiz")
        what = {(True, False): "every gradient", (False, True): "every value"}
        self._what = what.get((bool(asked_grads), bool(asked_values)), "every blank")
        self._redraw()
        register(self)  # under the teacher's switch (autograd_viz.teacher)

    # ---- public API ------------------------------------------------------------

    @property
    def left(self) -> int:
        """How many blanks are still to fill in."""
        return sum(not b.solved for b in self.blanks)

    def submit(self, label: str, text: str) -> bool:
        """Type `text` into the blank called `label` (e.g. "∂z/∂y") as a learner would; the
        verdict on `text` is shown and returned (a blank already filled in is not filled in
        again, but `text` is still judged).

        >>> from autograd_viz import Value
        >>> x = Value(2.0, label="x"); y = x * x; y.label = "y"
        >>> Quiz(y).submit("∂y/∂x", "3")
        False
        """
        blank = self._blank(label)
        if is_number(text, (int, float)):
            text = repr(text)  # submit("∂z/∂y", 8) reads as the learner typing 8
        if not isinstance(text, str):
            raise QuizError(
                f"submit() takes the text a learner would type, got {type(text).__name__}: "
                f"{text!r}; e.g. submit({label!r}, '8')"
            )
        self._typing = blank  # typed into the box as a learner would, checked once, here
        try:
            blank.widget.value = text
        finally:
            self._typing = None
        return self._answer(blank, text)

    def hint(self, label: str, text: str | None = None) -> str:
        """The rule to apply for the blank called `label`, with the numbers it needs (as
        plain text); `text`, a wrong answer, may sharpen it ("that is one path only")."""
        blank = self._blank(label)
        return self._hint(blank, text)

    def step_equation(self, label: str) -> str:
        """The step's equation for a blank, its result left as `?` (plain text)."""
        return self._equation(self._blank(label))

    def reveal(self) -> None:
        """Show every answer on the graph (for teachers)."""
        self.revealed = True
        self._redraw()

    def hide(self) -> None:
        """Hide the answers again: the graph shows what the learner has filled in."""
        self.revealed = False
        self._redraw()

    def __repr__(self) -> str:
        name = self._graph.root.label or "root"
        return f"<Quiz on {name!r}: {len(self.blanks)} blanks, {self.left} left>"

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        from autograd_viz.viz.inline import widgets_render

        if not widgets_render():  # no widget manager: the graph to fill in on paper
            return {"text/plain": repr(self), "text/html": self.static_html()}
        return super()._repr_mimebundle_(**kwargs)

    def static_html(self) -> str:
        """The quiz where no kernel can check it (Colab, a static page, a slide deck): the
        graph with its blanks, to fill in on paper, and the answers, closed until clicked."""
        answers = "".join(
            f"<li>{html.escape(b.label)} = {html.escape(self._num(b.answer))}</li>"
            for b in self.blanks
        )
        return (
            '<div class="avz-quiz"><p>Fill in the graph on paper: every "?" asked below is a '
            f"blank.</p>{self._drawing(lambda b: False)}"
            f"{answer_box('Show the answers', f'<ol>{answers}</ol>')}"
            "</div>"
        )

    # ---- building ------------------------------------------------------------

    def _learn(self, graph: Graph, draw_options: dict[str, Any]) -> None:
        """What the quiz grades against and shows: the right derivatives (for a learner's own
        engine, `_theirs` is what their backward() gives, to say so where it differs), the
        backward pass's frames on one layout, and the names the equations use."""
        self._order = graph.nodes
        graded, self._unknown_ops, self._theirs = _right_answers(graph)
        self._graph = graded  # the snapshot with the right derivatives
        self._frames = Frames(graded, "backward", digits=self.digits, **draw_options)
        self._backward = self._frames.steps
        self._grads = dict(self._backward[-1].grads)
        self._names = node_names(graded)
        self._eq_of = {e.text: e for e in expression_names(graded, self.digits)}
        self._parents = [n.operands for n in self._order]
        self._uses = graded.consumers()
        self._root_name = self._names[-1]
        self._unknown = _depends_on(graded, self._unknown_ops)  # no right answer known here

    def _ask(
        self, values: bool | Iterable[str], grads: bool | Iterable[str]
    ) -> tuple[list[int], list[int]]:
        """The values and gradients asked, in the order the passes fill them in; refused
        where nothing is asked or an answer is unknown or cannot be typed."""
        asked_values = self._pick(values, "values", [n.index for n in self._order if not n.is_leaf])
        grad_order = list(self._grads)  # in the order the backward pass finishes them
        asked_grads = self._pick(grads, "grads", grad_order)
        if not asked_values and not asked_grads:
            raise QuizError("nothing to fill in: pass grads=True or values=True (or names)")
        self._refuse_unknown(self._unknown_ops, asked_grads, grad_order)
        self._refuse_unanswerable(asked_values, asked_grads)
        return asked_values, asked_grads

    def _make_blanks(self, asked_values: list[int], asked_grads: list[int]) -> list[_Blank]:
        """A text box over each asked cell of the drawing, in Tab order."""
        self._cells = _cell_boxes(self._frames.base_svg)
        wanted = [(i, "data", self._names[i], self._order[i].data) for i in asked_values] + [
            (i, "grad", self._partial(self._root_name, self._names[i]), self._grads[i])
            for i in asked_grads
        ]
        labels = _numbered([label for _, _, label, _ in wanted])
        return [self._make_blank(i, what, label, answer, asked)
                for (i, what, asked, answer), label in zip(wanted, labels)]  # fmt: skip

    def _board(self, values_asked: bool) -> list[widgets.Widget]:
        """The widgets the quiz shows: its intro, the drawing with the blanks over it, the
        progress, the feedback and the step's equation (offered after two misses)."""
        self.picture = widgets.HTML("")  # the drawing's SVG, restyled as blanks are filled in
        board_px = _svg_size_px(self._frames.base_svg)
        self.board = widgets.Box(
            [self.picture, *(b.widget for b in self.blanks)],
            layout=widgets.Layout(width=f"{board_px[0]:.0f}px", height=f"{board_px[1]:.0f}px"),
        )
        self.board.add_class("avz-quiz-board")
        scroll = widgets.Box([self.board])
        scroll.add_class("avz-quiz-scroll")
        intro = widgets.HTML(
            '<div class="avz-quiz-intro">Fill in the boxes on the graph: type a number (a sum '
            "such as 5+3 is fine) and press Enter or Tab. Tab moves on in the order the "
            f"{'forward and ' if values_asked else ''}backward pass fills them in.</div>"
        )
        self.progress = widgets.HTML("")
        self.progress.add_class("avz-quiz-progress")
        self.feedback = widgets.HTML("")
        self.feedback.add_class("avz-quiz-feedback")
        self.equation_button = widgets.Button(
            description="Show the step's equation", icon="lightbulb-o",
            layout=widgets.Layout(width="auto", display="none"),
        )  # fmt: skip
        self.equation_button.on_click(lambda _: self._show_equation())
        self.equation = widgets.HTML("")
        self.equation.add_class("avz-quiz-equation")
        style = widgets.HTML(_CSS, layout=widgets.Layout(display="none"))
        return [style, intro, scroll, self.progress, self.feedback, self.equation_button,
                self.equation]  # fmt: skip

    def _refuse_unknown(self, unknown: set[int], asked: list[int], candidates: list[int]) -> None:
        """A gradient below an operation of a learner's engine whose right derivative the kit
        cannot find has no right answer to grade against: the quiz will not grade their rule."""
        bad = [i for i in asked if i in self._unknown]
        if not bad:
            return
        ops = ", ".join(sorted({f"`{self._order[i].op}` ({self._names[i]})" for i in unknown}))
        keep = [self._names[i] for i in candidates if i not in self._unknown]
        which = ", ".join(self._partial(self._root_name, self._names[i]) for i in bad)
        raise QuizError(
            f"the kit cannot work out the right {which}: it depends on {ops}, an operation the "
            "op table does not know and that could not be re-run on fresh values of your class "
            "for central differences, and a quiz never grades against your engine's own rule. "
            + (f"Ask only for the others: quiz(root, grads={keep!r})" if keep else
               "Quiz an expression made of operations the kit knows (+, *, **, tanh, exp, ...)")
        )  # fmt: skip

    def _refuse_unanswerable(self, asked_values: list[int], asked_grads: list[int]) -> None:
        """A blank whose answer is nan or inf can never be filled in: no one types it."""
        data = {i: self._order[i].data for i in asked_values}
        grad = {i: self._grads[i] for i in asked_grads}
        bad = [f"{self._names[i]} = {x}" for i, x in data.items() if not math.isfinite(x)] + [
            f"{self._partial(self._root_name, self._names[i])} = {x}"
            for i, x in grad.items()
            if not math.isfinite(x)
        ]
        if not bad:
            return
        keep = []
        for option, asked in (("values", data), ("grads", grad)):
            names = [self._names[i] for i, x in asked.items() if math.isfinite(x)]
            if names:
                keep.append(f"{option}={names!r}")
        raise QuizError(
            f"no one can type the answer to {', '.join(bad)}: a quiz needs finite numbers. "
            "Quiz it at inputs where every value is finite"
            + (f", or ask only for the others: quiz(root, {', '.join(keep)})" if keep else "")
        )

    def _pick(self, choice: bool | Iterable[str], option: str, candidates: list[int]) -> list[int]:
        if choice is True:
            return candidates
        if choice is False or choice is None:
            return []
        if isinstance(choice, str) or not isinstance(choice, Iterable):
            raise QuizError(f"{option} must be True, False or a list of names, got {choice!r}")
        by_name: dict[str, list[int]] = {}  # two values may share a name: both are asked
        for i in candidates:
            by_name.setdefault(self._names[i], []).append(i)
        picked = []
        for name in choice:
            if name not in by_name:
                known = ", ".join(repr(n) for n in by_name) or "none"
                raise QuizError(f"{option}: no value named {name!r} can be asked here; "
                                f"the names are {known}")  # fmt: skip
            picked += by_name[name]
        return [i for i in candidates if i in set(picked)]  # always in pass order

    def _partial(self, top: str, bottom: str) -> str:
        """∂top/∂bottom as the derivation writes it: ∂z/∂(x + y) for an expression's name."""
        eq = self._eq_of.get
        return partial(eq(top, Eq(top, top)), eq(bottom, Eq(bottom, bottom))).text

    def _make_blank(self, i: int, what: str, label: str, answer: float, asked: str) -> _Blank:
        left, top, width, height = self._cells[(i, what)]
        text = widgets.Text(
            value="",
            placeholder="data ?" if what == "data" else "grad ?",
            description=label,
            tooltip=ANSWER_HELP,
            continuous_update=False,
            layout=widgets.Layout(
                left=f"{left:.1f}px", top=f"{top:.1f}px",
                width=f"{max(width, 40):.1f}px", height=f"{height:.1f}px",
            ),
        )  # fmt: skip
        text.add_class("avz-quiz-blank")
        text.add_class(f"avz-quiz-node-v{i}")
        blank = _Blank(i, what, label, float(answer), text, asked=asked)
        text.observe(lambda change, b=blank: self._on_typed(b, change["new"]), names="value")
        return blank

    def _blank(self, label: str) -> _Blank:
        for b in self.blanks:
            if b.label == label:
                return b
        shared = [b.label for b in self.blanks if b.asked == label]
        if shared:
            raise QuizError(
                f"{len(shared)} blanks are called {label!r}: values share a name. Say which: "
                f"{', '.join(map(repr, shared))}, numbered in the order Tab visits them (or "
                "give the values different labels)"
            )
        raise QuizError(f"no blank is called {label!r}; the blanks are "
                        f"{', '.join(b.label for b in self.blanks)}")  # fmt: skip

    # ---- checking ------------------------------------------------------------

    def _on_typed(self, blank: _Blank, text: str) -> None:
        if self._typing is not blank and text.strip():  # submit() checks what it types itself;
            self._answer(blank, text)  # a box emptied is not an answer (as in an Exercise)

    def _answer(self, blank: _Blank, text: str) -> bool:
        """Judge `text` for `blank`, and record the attempt if the notebook turned that on."""
        right = self._on_answer(blank, text)
        if text.strip() and answers.recording() is not None:
            self._record(blank, text, right)
        return right

    def _record(self, blank: _Blank, text: str, right: bool) -> None:
        """One attempt, under an id made of this graph and the blank's label (so the same
        quiz in another notebook is the same question; see `autograd_viz.answers`)."""
        parts = [f"{self._names[n.index]}|{n.op}|{n.operands}|{n.data!r}" for n in self._order]
        inputs = ", ".join(
            f"{self._names[n.index]} = {self._num(n.data)}" for n in self._order if n.is_leaf
        )
        answers.record_attempt(
            kind="quiz", question=answers.question_id("quiz", blank.label, graph_key(parts)),
            prompt=f"quiz on {self._root_name} ({inputs}): {blank.label}",
            answer=text.strip(), read=read_or_none(text), right=right,
        )  # fmt: skip

    def _on_answer(self, blank: _Blank, text: str) -> bool:
        try:  # the exercises' one judge: its reading, its separators, its notes
            right, note = AnswerKey(blank.answer, digits=self.digits).judge(text)
        except AnswerParseError as err:
            self._say(unreadable(err), right=False)
            return False
        number = format_number(blank.answer, self.digits)
        if blank.solved:  # filled in already: judged, but nothing changes
            verdict = "✔ Right" if right else f"✘ {text.strip()} is not it"
            self._say(f"{verdict}: {blank.label} is filled in already, = {number}.", right=right)
            return right
        theirs = self._engine_says(blank)
        if right:
            blank.solved = True
            blank.widget.remove_class("avz-quiz-missed")
            blank.widget.layout.display = "none"  # the node now shows the number itself
            self._active = None
            self.equation_button.layout.display = "none"
            self.equation.value = ""
            done = " Every blank is filled in: well done!" if self.left == 0 else ""
            more = f" {theirs}" if theirs else ""
            self._say(f"✔ Right: {blank.label} = {number}.{more}{done}", right=True)
        else:
            blank.misses += 1
            blank.widget.add_class("avz-quiz-missed")
            self._active = blank.node
            if theirs and self._reads_as(text, self._theirs[blank.node]):
                said = (f"✘ Not quite: {text.strip()} is what your engine's backward() gives "
                        f"for {blank.label}, but it is not the right derivative. "
                        f"{self._blame()} {self._hint(blank, text)}")  # fmt: skip
            else:
                more = f" ({theirs})" if theirs else ""
                said = f"✘ Not quite. {note + ' ' if note else ''}{self._hint(blank, text)}{more}"
            self._say(said, right=False)
            if blank.misses >= 2:
                self._offered = blank
                self.equation_button.layout.display = "flex"
        self._redraw()
        return right

    def _reads_as(self, text: str, number: float) -> bool:
        """Whether `text` is `number` (one path's share, what a learner's engine gives) by the
        judge that grades the blanks: a known wrong answer is recognised as a right one is."""
        try:
            return math.isfinite(number) and AnswerKey(number, digits=self.digits).judge(text)[0]
        except AnswerParseError:
            return False

    def _engine_says(self, blank: _Blank) -> str:
        """For a learner's engine whose backward() gives another number for this blank: a
        sentence saying so ('' where it agrees, or for the kit's own engine)."""
        if self._theirs is None or blank.what != "grad":
            return ""
        theirs = self._theirs[blank.node]
        if self._reads_as(repr(theirs), blank.answer):  # their number, typed, would be right
            return ""
        return (f"Your engine's backward() gives {self._num(theirs)} for {blank.label}, "
                f"which is not right. {self._blame()}")  # fmt: skip

    def _blame(self) -> str:
        """Where to look, said only as far as the check of this very graph backs it: a
        finding there means `check_engine` names it; none, and the quiz promises nothing."""
        root = self._graph.root.label
        call = f"check_engine({root})" if root.isidentifier() else "check_engine(your output)"
        checked = getattr(self.graph, "checked", None)
        report = checked().report if callable(checked) else None
        if report is not None and report.findings:
            return f"Your engine goes wrong on this graph: {call} names where."
        return (f"The check of this graph found no single wrong rule to blame; {call} "
                "also tries each method of your class on its own.")  # fmt: skip

    def _say(self, text: str, *, right: bool) -> None:
        cls = "avz-quiz-right" if right else "avz-quiz-wrong"
        self.feedback.value = (
            f'<div role="status" aria-live="polite" class="{cls}">'
            f"{html.escape(text, quote=False)}</div>"
        )

    def _show_equation(self) -> None:
        blank = getattr(self, "_offered", None)
        if blank is not None:
            self.equation.value = html.escape(self._equation(blank), quote=False).replace(
                "\n", "<br>"
            )

    # ---- what a wrong answer is told ---------------------------------------

    def _num(self, x: float) -> str:
        return format_number(x, self.digits)

    def _hint(self, blank: _Blank, text: str | None = None) -> str:
        if blank.what == "data":
            return self._value_hint(blank.node)
        return self._grad_hint(blank.node, text)

    def _value_hint(self, i: int) -> str:
        node, name = self._order[i], self._names[i]
        parts = [self._operand(p) for p in dict.fromkeys(self._parents[i])]
        return (f"{name} is computed from {' and '.join(parts)}: work the operation "
                f"{_OP_WORDS.get(_family(node.op), node.op)} out on those numbers.")  # fmt: skip

    def _operand(self, p: int) -> str:
        name, number = self._names[p], self._num(self._order[p].data)
        return number if name == number else f"{name} = {number}"

    def _grad_hint(self, p: int, text: str | None) -> str:
        top = self._root_name
        if p == len(self._order) - 1:
            return (f"This is the seed: {top} changes one-for-one with itself, so "
                    f"{self._partial(top, top)} is 1.")  # fmt: skip
        uses = self._uses[p]
        if len(uses) == 1:
            i, k = uses[0]
            return self._path_rule(p, i, k, alone=True)
        paths = [self._path_rule(p, i, k, alone=False) for i, k in uses]
        count = {2: "two", 3: "three"}.get(len(uses), str(len(uses)))
        whole = self._partial(top, self._names[p])
        hint = (f"{self._names[p]} is used {_times(len(uses))}, so {whole} "
                f"is the sum of the {count} paths: add what arrives along each. "
                + "; ".join(paths).capitalize()[:1] + "; ".join(paths)[1:] + ".")  # fmt: skip
        if text is not None:
            for (i, _k), amount in zip(uses, self._contributions(p)):
                if self._reads_as(text, amount):
                    return (f"That is one path only (via {_noun(self._order[i].op)}: "
                            f"{self._num(amount)}). {hint}")  # fmt: skip
        return hint

    def _path_rule(self, p: int, i: int, k: int, *, alone: bool) -> str:
        """The rule of operation i for its operand k (value p), with the numbers it needs:
        a sentence when it is p's only path, a clause ("via the sum s, …") when one of several."""
        top, out = self._root_name, self._names[i]
        op = _family(self._order[i].op)
        noun = _noun(self._order[i].op)
        is_root = i == len(self._order) - 1
        arriving = f"{self._partial(top, out)} = {self._num(self._grads[i])}"
        parents = self._parents[i]
        if op == "*" and len(parents) == 2:
            other = self._operand(parents[1 - k])
            if alone:
                if is_root:  # the output's own product: what arrives is 1
                    need = f"{self._partial(top, self._names[p])} = {other}"
                else:
                    need = f"{arriving}, and the other input is {other}"
                return (
                    f"The product sends each input the other input's value, times the "
                    f"gradient arriving at it: {need}."
                )
            times = "" if is_root else f", times {arriving}"
            return f"via the product {out}: the other input's value, {other}{times}"
        if op == "+":
            if alone:
                return f"The sum passes the gradient arriving at it on unchanged: {arriving}."
            return f"via the sum {out}: passed on unchanged, {arriving}"
        if op == "ReLU":
            gate = "> 0, so it passes" if self._order[p].data > 0 else "≤ 0, so it blocks"
            need = f"its input {self._operand(p)} is {gate} the gradient; {arriving}"
            if alone:
                return (
                    f"ReLU passes the gradient on where its input is > 0 and blocks it "
                    f"elsewhere: {need}."
                )
            return f"via ReLU: {need}"
        local = f"{self._partial(out, self._names[p])} = {self._num(self._locals(i)[k])}"
        if alone:
            return (
                f"Multiply the gradient arriving at {out} by {noun}'s local derivative: "
                f"{arriving}, {local}."
            )
        return f"via {noun} {out}: {arriving} times its local derivative {local}"

    def _contributions(self, p: int) -> list[float]:
        """What one backward pass sends p along each of its uses, as the graph holds it."""
        return [self._graph.nodes[i].sent[k] for i, k in self._uses[p]]

    def _locals(self, i: int) -> tuple[float, ...]:
        """Operation i's local derivatives, from the engine's own backward rule."""
        return self._graph.local(i)

    # ---- the step's equation, offered after two misses --------------------------

    def _equation(self, blank: _Blank) -> str:
        i = blank.node
        if blank.what == "data":
            forward = [s for s in self._frames.all_steps if s.phase == "forward"]
            lines = [s for s in forward if s.active == i and s.kind == "value"]
        else:
            lines = [s for s in self._backward if s.active == i]
        texts = [s.text for s in lines]
        if not texts:
            return f"{blank.label} = ?"
        head, _, _ = texts[-1].rpartition(" = ")
        texts[-1] = f"{head} = ?"
        return "\n".join(texts)

    # ---- the picture -----------------------------------------------------------

    def _redraw(self) -> None:
        self.picture.value = self._drawing(lambda b: b.solved or self.revealed)
        for b in self.blanks:
            shown = not b.solved and not self.revealed
            b.widget.layout.display = None if shown else "none"
        n = len(self.blanks)
        if self.revealed:
            self.progress.value = f"Answers revealed ({n} blanks)."
        elif self.left:
            self.progress.value = f"{self.left} of {n} blanks left to fill in."
        else:
            self.progress.value = f"All {n} blanks filled in."

    def _drawing(self, filled: Callable[[_Blank], bool]) -> str:
        """The graph with the answers of the blanks `filled` picks, every other blank a "?"."""
        known_values = dict(enumerate(v.data for v in self._order))
        known_grads = {
            i: g for i, g in self._grads.items() if i not in self._unknown and not any(
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
        state = Step(
            index=0, phase="backward", kind="value", nodes=(), edges=(), active=active,
            values=known_values, grads=known_grads, text="quiz: fill in the blanks", latex="",
        )  # fmt: skip
        return self._frames.picture(state)


def _times(n: int) -> str:
    return {2: "twice", 3: "three times"}.get(n, f"{n} times")


def _family(op: str) -> str:
    return "**" if op.startswith("**") else op


_OP_WORDS = {"+": "+ (add)", "*": "× (multiply)", "**": "** (a power)"}


def _noun(op: str) -> str:
    """The operation's name in prose, from its op table row ("the product"; its op string
    for an operation the table does not know)."""
    return describe(op).noun


def _check_options(draw_options: dict[str, Any]) -> None:
    """Refuse a drawing option the quiz sets itself (saying why) or does not know (listing
    only what it takes: every option it names works when passed)."""
    for key, value in draw_options.items():
        if key == "collapse" and value is None:
            continue  # the default: every value drawn
        if key in _SETS_ITSELF:
            raise QuizError(f"a quiz {_SETS_ITSELF[key]}: leave out {key}=")
        if key not in _DRAW_OPTIONS:
            options = ["grads", "values", "digits", "max_nodes", *_DRAW_OPTIONS]
            close = difflib.get_close_matches(key, [*options, *_SETS_ITSELF], n=1)
            hint = f" (did you mean {close[0]}=?)" if close else ""
            if close and close[0] in _SETS_ITSELF:  # named, but not offered: it would fail
                hint = f" ({close[0]}= is not one: a quiz {_SETS_ITSELF[close[0]]})"
            raise TypeError(
                f"quiz() got an unknown option {key!r}{hint}; its options are {', '.join(options)}"
            )


def _numbered(labels: list[str]) -> list[str]:
    """Labels made distinct where values share a name: '∂z/∂x (1 of 2)', '∂z/∂x (2 of 2)'."""
    counts = {label: labels.count(label) for label in labels}
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        if counts[label] == 1:
            out.append(label)
            continue
        seen[label] = seen.get(label, 0) + 1
        out.append(f"{label} ({seen[label]} of {counts[label]})")
    return out


# ---- the right answers, whoever's engine built the graph -------------------------------------


def _right_answers(graph: Graph) -> tuple[Graph, set[int], tuple[float, ...] | None]:
    """The graph to grade against, the operations with no known right derivative, and what
    the learner's own backward() gives for every value (None for the kit's own engine).

    The kit's `Value` has the op table's rules already. A learner's graph gets, at each
    operation, the op table's derivative, or central differences on their own forward method
    where the table has no row (`autograd_viz.engines.ops`), never their `_backward`'s: a quiz
    that graded against their rule would call their bug right. Their backward() is run once
    here (or its run is taken from the check that already ran it)."""
    from autograd_viz.engines.replay import ForeignSnapshot  # only for their engine

    if not isinstance(graph, ForeignSnapshot) or graph.source is None:
        return graph, set(), None
    source = graph.source
    right: dict[int, tuple[float, ...]] = {}
    unknown: set[int] = set()
    for i, node in enumerate(graph.nodes):
        partials = None if node.is_leaf else _right_partials(source, i)
        if partials is None and not node.is_leaf:
            unknown.add(i)  # its operands' gradients are neither shown nor asked
            partials = [0.0] * len(node.operands)
        if partials is not None:
            right[i] = tuple(partials)
    run = graph.run  # the one run of their backward(), which the check judged too
    plain = dataclasses.replace(graph, report=None, flags={}, source=None, run=None)
    # no flags: a caption saying "the product rule gives 3" would give the answer away
    graded = with_numbers(plain, lambda i, g: tuple(d * g for d in right[i]))
    return graded, unknown, run.grads


def _right_partials(source: Any, i: int) -> list[float] | None:
    """∂node_i/∂(each operand position): the op table's, else central differences."""
    from autograd_viz.engines.ops import (
        canonical_op,
        method_name,
        numeric_partials,
        table_partials,
    )

    operands = source.operands[i]
    args = [source.data[p] for p in operands]
    canonical = canonical_op(source.ops[i], len(operands))
    exponent, out = source.exponents[i], source.data[i]
    partials = table_partials(canonical, args, exponent, out)
    if partials is None:
        method = method_name(source.nodes[i], canonical)
        partials = numeric_partials(source.nodes[i], method, args, exponent, out)
    return partials


def _depends_on(graph: Graph, unknown: set[int]) -> set[int]:
    """The values whose gradient passes through an operation in `unknown` (its operands,
    and theirs, down to the inputs)."""
    below: set[int] = set()
    for node in reversed(graph.nodes):  # every consumer of a value comes after it
        if node.index in unknown or node.index in below:
            below.update(node.operands)
    return below


# ---- where the blanks go: cell boxes read from the laid-out SVG ----------------------------

_NODE = re.compile(r'<g id="v(\d+)" class="node[^"]*">(.*?)</g>\s*(?=<!--|</g>)', re.S)
_POLYGON = re.compile(r'<polygon ([^>]*?)points="([^"]+)"')
_PATH = re.compile(r'<path [^>]*?d="M([^"]+)"')  # a weight's rounded box (nn.Parameter)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_TEXT_X = re.compile(r'<text id="v(\d+)-(data|grad)"[^>]*? x="([-\d.]+)"')
_TRANSFORM = re.compile(
    r'class="graph" transform="scale\(([-\d.]+) [-\d.]+\) rotate\(0\) '
    r'translate\(([-\d.]+) ([-\d.]+)\)"'
)
_SIZE = re.compile(r'<svg[^>]*? width="([\d.]+)pt" height="([\d.]+)pt"')


def _svg_size_px(svg: str) -> tuple[float, float]:
    m = _SIZE.search(svg)
    if not m:
        raise QuizError("the drawing's SVG has no size in points; please report this")
    return float(m[1]) * _PT_TO_PX, float(m[2]) * _PT_TO_PX


def _cell_boxes(svg: str) -> dict[tuple[int, str], tuple[float, float, float, float]]:
    """(value index, "data" | "grad") -> (left, top, width, height) in CSS px from the
    picture's top-left corner, for every data and grad cell of a value node."""
    m = _TRANSFORM.search(svg)
    if not m:
        raise QuizError("the drawing's SVG has no graph transform; please report this")
    scale, tx, ty = float(m[1]), float(m[2]), float(m[3])

    def px(x: float, y: float) -> tuple[float, float]:
        return (x + tx) * scale * _PT_TO_PX, (y + ty) * scale * _PT_TO_PX

    boxes = {}
    for node in _NODE.finditer(svg):
        i, body = int(node[1]), node[2]
        shapes, rules = [], []
        for _attrs, points in _POLYGON.findall(body):
            xy = [tuple(map(float, p.split(","))) for p in points.split()]
            xs, ys = [p[0] for p in xy], [p[1] for p in xy]
            box = (min(xs), min(ys), max(xs), max(ys))
            if box[2] - box[0] < 1:  # a vertical rule between two cells
                rules.append(box[0])
            else:
                shapes.append(box)
        for d in [] if shapes else _PATH.findall(body):  # a weight: a rounded box, whose
            xs, ys = (list(map(float, _NUMBER.findall(d)))[k::2] for k in (0, 1))  # corners'
            shapes.append((min(xs), min(ys), max(xs), max(ys)))  # control points stay inside
        if not shapes:
            continue
        _left, top, right, bottom = min(shapes, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))
        starts = {what: float(x) for j, what, x in _TEXT_X.findall(body) if int(j) == i}
        edges = {}
        for what, x in starts.items():
            before = [r for r in rules if r <= x]
            edges[what] = max(before) if before else x - _CELLPADDING
        for what, start in edges.items():
            end = right if what == "grad" or "grad" not in edges else edges["grad"]
            (x0, y0), (x1, y1) = px(start, top), px(end, bottom)
            boxes[(i, what)] = (x0, y0, x1 - x0, y1 - y0)
    return boxes
