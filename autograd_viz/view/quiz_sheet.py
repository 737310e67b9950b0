"""The quiz's sheet: which blanks `quiz(z)` asks, in the order the passes fill them in, and the
right answer to each — the op table's derivatives (or central differences on a learner's own
forward method), never what their `_backward` sends — with the names, gradients and frames the
quiz's feedback (`view/quiz_hints.py`) and its widget (`front/quiz.py`) read; a blank asked whose
answer is unknown or cannot be typed is refused here, before anything is shown.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from autograd_viz.core._equations import Eq, partial, vector
from autograd_viz.core._numbers import format_number
from autograd_viz.core.errors import QuizError
from autograd_viz.core.graph import Graph
from autograd_viz.core.naming import expression_names
from autograd_viz.view.frames import Frames

__all__ = ["DEFAULT_MAX_NODES", "Blank", "Numbers", "Sheet", "check_options"]

DEFAULT_MAX_NODES = 60  # a quiz is a hand derivation: beyond this it is a chore, not a lesson

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


class Numbers(tuple):
    """A tensor's numbers, row by row, with its shape: the answer of a blank on a tensor of
    several numbers (a graph of PyTorch's small tensors)."""

    shape: tuple[int, ...]

    def __new__(cls, numbers: Iterable[float], shape: tuple[int, ...]) -> Numbers:
        made = super().__new__(cls, numbers)
        made.shape = tuple(shape)
        return made


def _finite(x: float | Numbers) -> bool:
    return all(map(math.isfinite, x)) if isinstance(x, tuple) else math.isfinite(x)


@dataclass
class Blank:
    """One blank: the value index it belongs to, what is asked, and how the learner fares."""

    node: int
    what: str  # "data" or "grad"
    label: str  # what the blank asks for: "∂z/∂y" or "x + y"
    answer: float | Numbers  # Numbers: a tensor's (a graph of PyTorch's small tensors)
    misses: int = 0
    solved: bool = False
    asked: str = ""  # the label before numbering, where two values share a name

    @property
    def cell(self) -> str:
        """The id of the drawing's cell the blank covers: "v1-grad"."""
        return f"v{self.node}-{self.what}"


def check_options(draw_options: dict[str, Any]) -> None:
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


class Sheet:
    """What a quiz on `graph` grades against and shows: the graph with the right derivatives
    (`graded`; for a learner's own engine, `theirs` is what their backward() gives, to say so
    where it differs), the backward pass's frames on one layout, the names the equations use,
    and the blanks asked, in Tab order."""

    def __init__(
        self,
        graph: Graph,
        grads: bool | Iterable[str],
        values: bool | Iterable[str],
        digits: int,
        draw_options: dict[str, Any],
    ) -> None:
        self.digits = digits
        self.order = graph.nodes
        self.graded, self.unknown_ops, self.theirs = graph.graded()
        self.frames = Frames(self.graded, "backward", digits=digits, **draw_options)
        self.backward = self.frames.steps
        # a graph of tensors: PyTorch's gradients, which its door checked against the op table
        self.tensors = bool(getattr(graph, "shapes", ()))
        self.grads = {i: self._numbers(i, "grad", g) for i, g in self.backward[-1].grads.items()}
        self.names = [e.text for e in expression_names(self.graded, 4)]  # as trace writes them
        self._eq_of = {e.text: e for e in expression_names(self.graded, digits)}
        self.uses = self.graded.consumers()
        self.root_name = self.names[-1]
        self.unknown = _depends_on(self.graded, self.unknown_ops)  # no right answer known here
        asked_values, asked_grads = self._ask(values, grads)
        self.values_asked = bool(asked_values)
        self.blanks = self._blanks(asked_values, asked_grads)
        what = {(True, False): "every gradient", (False, True): "every value"}
        self.what = what.get((bool(asked_grads), bool(asked_values)), "every blank")

    def num(self, x: float | Numbers) -> str:
        if isinstance(x, Numbers):
            return vector(x.shape, x, self.digits).text
        return format_number(x, self.digits)

    def value(self, i: int) -> float | Numbers:
        """Value i's number, or a tensor's numbers."""
        return self._numbers(i, "data", self.order[i].data)

    def _numbers(self, i: int, what: str, number: float) -> float | Numbers:
        if not self.tensors or self.graded.shapes[i] == ():  # type: ignore[attr-defined]
            return number
        data, grad = self.graded.tensors[i]  # type: ignore[attr-defined]
        return Numbers(data if what == "data" else grad, self.graded.shapes[i])  # type: ignore[attr-defined]

    def partial(self, top: str, bottom: str) -> str:
        """∂top/∂bottom as the derivation writes it: ∂z/∂(x + y) for an expression's name."""
        eq = self._eq_of.get
        return partial(eq(top, Eq(top, top)), eq(bottom, Eq(bottom, bottom))).text

    def blank(self, label: str) -> Blank:
        """The blank called `label`, or a QuizError naming the blanks there are."""
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

    def _ask(
        self, values: bool | Iterable[str], grads: bool | Iterable[str]
    ) -> tuple[list[int], list[int]]:
        """The values and gradients asked, in the order the passes fill them in; refused
        where nothing is asked or an answer is unknown or cannot be typed."""
        asked_values = self._pick(values, "values", [n.index for n in self.order if not n.is_leaf])
        grad_order = list(self.grads)  # in the order the backward pass finishes them
        asked_grads = self._pick(grads, "grads", grad_order)
        if not asked_values and not asked_grads:
            raise QuizError("nothing to fill in: pass grads=True or values=True (or names)")
        self._refuse_unknown(asked_grads, grad_order)
        self._refuse_unanswerable(asked_values, asked_grads)
        return asked_values, asked_grads

    def _blanks(self, asked_values: list[int], asked_grads: list[int]) -> list[Blank]:
        wanted = [(i, "data", self.names[i], self.value(i)) for i in asked_values] + [
            (i, "grad", self.partial(self.root_name, self.names[i]), self.grads[i])
            for i in asked_grads
        ]
        labels = _numbered([label for _, _, label, _ in wanted])
        return [Blank(i, what, label, answer if isinstance(answer, Numbers) else float(answer),
                      asked=asked)
                for (i, what, asked, answer), label in zip(wanted, labels)]  # fmt: skip

    def _pick(self, choice: bool | Iterable[str], option: str, candidates: list[int]) -> list[int]:
        if choice is True:
            return candidates
        if choice is False or choice is None:
            return []
        if isinstance(choice, str) or not isinstance(choice, Iterable):
            raise QuizError(f"{option} must be True, False or a list of names, got {choice!r}")
        by_name: dict[str, list[int]] = {}  # two values may share a name: both are asked
        for i in candidates:
            by_name.setdefault(self.names[i], []).append(i)
        picked = []
        for name in choice:
            if name not in by_name:
                known = ", ".join(repr(n) for n in by_name) or "none"
                raise QuizError(f"{option}: no value named {name!r} can be asked here; "
                                f"the names are {known}")  # fmt: skip
            picked += by_name[name]
        return [i for i in candidates if i in set(picked)]  # always in pass order

    def _refuse_unknown(self, asked: list[int], candidates: list[int]) -> None:
        """A gradient below an operation of a learner's engine whose right derivative the kit
        cannot find has no right answer to grade against: the quiz will not grade their rule."""
        bad = [i for i in asked if i in self.unknown]
        if not bad:
            return
        ops = ", ".join(sorted({f"`{self.order[i].op}` ({self.names[i]})"
                                for i in self.unknown_ops}))  # fmt: skip
        keep = [self.names[i] for i in candidates if i not in self.unknown]
        which = ", ".join(self.partial(self.root_name, self.names[i]) for i in bad)
        raise QuizError(
            f"the kit cannot work out the right {which}: it depends on {ops}, an operation the "
            "op table does not know and that could not be re-run on fresh values of your class "
            "for central differences, and a quiz never grades against your engine's own rule. "
            + (f"Ask only for the others: quiz(root, grads={keep!r})" if keep else
               "Quiz an expression made of operations the kit knows (+, *, **, tanh, exp, ...)")
        )  # fmt: skip

    def _refuse_unanswerable(self, asked_values: list[int], asked_grads: list[int]) -> None:
        """A blank whose answer is nan or inf can never be filled in: no one types it."""
        data = {i: self.value(i) for i in asked_values}
        grad = {i: self.grads[i] for i in asked_grads}
        bad = [f"{self.names[i]} = {self.num(x)}" for i, x in data.items() if not _finite(x)] + [
            f"{self.partial(self.root_name, self.names[i])} = {self.num(x)}"
            for i, x in grad.items()
            if not _finite(x)
        ]
        if not bad:
            return
        keep = []
        for option, asked in (("values", data), ("grads", grad)):
            names = [self.names[i] for i, x in asked.items() if _finite(x)]
            if names:
                keep.append(f"{option}={names!r}")
        raise QuizError(
            f"no one can type the answer to {', '.join(bad)}: a quiz needs finite numbers. "
            "Quiz it at inputs where every value is finite"
            + (f", or ask only for the others: quiz(root, {', '.join(keep)})" if keep else "")
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


def _depends_on(graph: Graph, unknown: set[int]) -> set[int]:
    """The values whose gradient passes through an operation in `unknown` (its operands,
    and theirs, down to the inputs)."""
    below: set[int] = set()
    for node in reversed(graph.nodes):  # every consumer of a value comes after it
        if node.index in unknown or node.index in below:
            below.update(node.operands)
    return below
