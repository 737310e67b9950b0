"""What a quiz tells a wrong answer: the rule to apply with the numbers it needs ("the sum of
the two paths", "that is one path only"), the step's equation with its result left as "?"
(offered after two misses), and, on a learner's own engine, what their backward() gives where
it is not the right derivative and where to look — all read from the quiz's sheet
(`view/quiz_sheet.py`), each sentence written here once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from autograd_viz.core._equations import vector
from autograd_viz.core.ops import describe
from autograd_viz.course.grading import AnswerParseError, judge_answer

if TYPE_CHECKING:  # annotations only
    from autograd_viz.core.graph import Graph
    from autograd_viz.view.quiz_sheet import Blank, Sheet

__all__ = ["blame", "engine_says", "equation", "hint", "reads_as"]

_OP_WORDS = {"+": "+ (add)", "*": "× (multiply)", "**": "** (a power)"}


def hint(sheet: Sheet, blank: Blank, text: str | None = None) -> str:
    """The rule to apply for `blank`, with its numbers; `text`, a wrong answer, may sharpen
    it ("that is one path only")."""
    if sheet.tensors:  # a graph of PyTorch's small tensors: element by element
        return _tensor_hint(sheet, blank, text)
    if blank.what == "data":
        return _value_hint(sheet, blank.node)
    return _grad_hint(sheet, blank.node, text)


def equation(sheet: Sheet, blank: Blank) -> str:
    """The step's equation for a blank, its result left as `?` (plain text)."""
    i = blank.node
    if blank.what == "data":
        forward = [s for s in sheet.frames.all_steps if s.phase == "forward"]
        lines = [s for s in forward if s.active == i and s.kind == "value"]
    else:
        lines = [s for s in sheet.backward if s.active == i]
    texts = [s.text for s in lines]
    if not texts:
        return f"{blank.label} = ?"
    head, _, _ = texts[-1].rpartition(" = ")
    texts[-1] = f"{head} = ?"
    return "\n".join(texts)


def reads_as(
    text: str, number: float | Sequence[float], digits: int, shape: tuple[int, ...] | None = None
) -> bool:
    """Whether `text` is `number` (one path's share, what a learner's engine gives; a tensor's
    numbers with their `shape`) by the judge that grades the blanks: a known wrong answer is
    recognised as a right one is."""
    numbers = [number] if shape is None else list(number)  # type: ignore[arg-type]
    try:
        return all(map(math.isfinite, numbers)) and judge_answer(
            text, number, shape=shape, digits=digits
        )[0]
    except AnswerParseError:
        return False


def engine_says(sheet: Sheet, blank: Blank, graph: Graph) -> str:
    """For a learner's engine whose backward() gives another number for this blank: a
    sentence saying so ('' where it agrees, or for the kit's own engine)."""
    if sheet.theirs is None or blank.what != "grad":
        return ""
    theirs = sheet.theirs[blank.node]
    if reads_as(repr(theirs), blank.answer, sheet.digits):  # their number, typed, is right
        return ""
    return (f"Your engine's backward() gives {sheet.num(theirs)} for {blank.label}, "
            f"which is not right. {blame(sheet, graph)}")  # fmt: skip


def blame(sheet: Sheet, graph: Graph) -> str:
    """Where to look, said only as far as the check of this very graph backs it: a
    finding there means `check_engine` names it; none, and the quiz promises nothing."""
    root = sheet.graded.root.label
    call = f"check_engine({root})" if root.isidentifier() else "check_engine(your output)"
    checked = getattr(graph, "checked", None)
    report = checked().report if callable(checked) else None
    if report is not None and report.findings:
        return f"Your engine goes wrong on this graph: {call} names where."
    return (f"The check of this graph found no single wrong rule to blame; {call} "
            "also tries each method of your class on its own.")  # fmt: skip


def _value_hint(sheet: Sheet, i: int) -> str:
    node, name = sheet.order[i], sheet.names[i]
    parts = [_operand(sheet, p) for p in dict.fromkeys(node.operands)]
    return (f"{name} is computed from {' and '.join(parts)}: work the operation "
            f"{_OP_WORDS.get(_family(node.op), node.op)} out on those numbers.")  # fmt: skip


def _operand(sheet: Sheet, p: int) -> str:
    name, number = sheet.names[p], sheet.num(sheet.order[p].data)
    return number if name == number else f"{name} = {number}"


def _grad_hint(sheet: Sheet, p: int, text: str | None) -> str:
    top = sheet.root_name
    if p == len(sheet.order) - 1:
        return (f"This is the seed: {top} changes one-for-one with itself, so "
                f"{sheet.partial(top, top)} is 1.")  # fmt: skip
    uses = sheet.uses[p]
    if len(uses) == 1:
        i, k = uses[0]
        return _path_rule(sheet, p, i, k, alone=True)
    paths = [_path_rule(sheet, p, i, k, alone=False) for i, k in uses]
    count = {2: "two", 3: "three"}.get(len(uses), str(len(uses)))
    whole = sheet.partial(top, sheet.names[p])
    said = (f"{sheet.names[p]} is used {_times(len(uses))}, so {whole} "
            f"is the sum of the {count} paths: add what arrives along each. "
            + "; ".join(paths).capitalize()[:1] + "; ".join(paths)[1:] + ".")  # fmt: skip
    if text is not None:
        shares = [sheet.graded.nodes[i].sent[k] for i, k in uses]  # as one backward pass sent
        for (i, _k), amount in zip(uses, shares):
            if reads_as(text, amount, sheet.digits):
                return (f"That is one path only (via {describe(sheet.order[i].op).noun}: "
                        f"{sheet.num(amount)}). {said}")  # fmt: skip
    return said


def _path_rule(sheet: Sheet, p: int, i: int, k: int, *, alone: bool) -> str:
    """The rule of operation i for its operand k (value p), with the numbers it needs:
    a sentence when it is p's only path, a clause ("via the sum s, …") when one of several."""
    top, out = sheet.root_name, sheet.names[i]
    op = _family(sheet.order[i].op)
    noun = describe(sheet.order[i].op).noun  # the op table's name in prose: "the product"
    is_root = i == len(sheet.order) - 1
    arriving = f"{sheet.partial(top, out)} = {sheet.num(sheet.grads[i])}"
    parents = sheet.order[i].operands
    if op == "*" and len(parents) == 2:
        other = _operand(sheet, parents[1 - k])
        if alone:
            if is_root:  # the output's own product: what arrives is 1
                need = f"{sheet.partial(top, sheet.names[p])} = {other}"
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
        gate = "> 0, so it passes" if sheet.order[p].data > 0 else "≤ 0, so it blocks"
        need = f"its input {_operand(sheet, p)} is {gate} the gradient; {arriving}"
        if alone:
            return (
                f"ReLU passes the gradient on where its input is > 0 and blocks it "
                f"elsewhere: {need}."
            )
        return f"via ReLU: {need}"
    local = f"{sheet.partial(out, sheet.names[p])} = {sheet.num(sheet.graded.local(i)[k])}"
    if alone:
        return (
            f"Multiply the gradient arriving at {out} by {noun}'s local derivative: "
            f"{arriving}, {local}."
        )
    return f"via {noun} {out}: {arriving} times its local derivative {local}"


def _times(n: int) -> str:
    return {2: "twice", 3: "three times"}.get(n, f"{n} times")


def _family(op: str) -> str:
    return "**" if op.startswith("**") else op


# ---- a graph of tensors (PyTorch's): the same rules, element by element ----------------------


def _tensor_hint(sheet: Sheet, blank: Blank, text: str | None) -> str:
    """The rule for a blank of a graph of tensors, with its numbers as vectors: each
    operation acts element by element, a stretched operand adds up its shares, a sum sends
    what arrives to every element, and a tensor used several times adds its paths."""
    p, top = blank.node, sheet.root_name
    if blank.what == "data":
        node = sheet.order[p]
        parts = [f"{sheet.names[q]} = {sheet.num(sheet.value(q))}"
                 for q in dict.fromkeys(node.operands)]  # fmt: skip
        return (f"{sheet.names[p]} is computed from {' and '.join(parts)}: work "
                f"{_OP_WORDS.get(_family(node.op), node.op)} out element by element.")  # fmt: skip
    if p == len(sheet.order) - 1:
        return f"This is the seed: {sheet.partial(top, top)} is 1."
    uses = sheet.uses[p]
    paths = [_tensor_path(sheet, p, i, k) for i, k in uses]
    if len(uses) == 1:
        return paths[0][0].upper() + paths[0][1:] + "."
    whole = sheet.partial(top, sheet.names[p])
    said = (f"{sheet.names[p]} is used {_times(len(uses))}, so {whole} is the sum of the "
            f"paths, element by element: {'; '.join(paths)}.")  # fmt: skip
    if text is not None:
        for i, k in uses:
            share = sheet.graded.tensor_edges[i][k][1]  # type: ignore[attr-defined]
            if reads_as(text, share, sheet.digits, sheet.graded.shapes[p]):  # type: ignore[attr-defined]
                return (f"That is one path only (via {describe(sheet.order[i].op).noun} "
                        f"{sheet.names[i]}). {said}")  # fmt: skip
    return said


def _tensor_path(sheet: Sheet, p: int, i: int, k: int) -> str:
    """What one operation i sends its operand k (value p), as a clause."""
    graded, top, out = sheet.graded, sheet.root_name, sheet.names[i]
    arriving = f"{sheet.partial(top, out)} = {sheet.num(sheet.grads[i])}"
    op = sheet.order[i].op
    if op in ("sum", "mean"):
        each = "" if op == "sum" else f", divided by {len(graded.tensors[p][0])}"  # type: ignore[attr-defined]
        return f"via {out}: what arrives, {arriving}, goes to every element{each}"
    local = vector(graded.shapes[i], graded.tensor_edges[i][k][0], sheet.digits).text  # type: ignore[attr-defined]
    twice = f", operand {k + 1}" if sheet.order[i].operands.count(p) > 1 else ""
    said = (f"via {describe(op).noun} {out}{twice}: {arriving}, times its local derivative "
            f"{sheet.partial(out, sheet.names[p])} = {local}, element by element")  # fmt: skip
    if graded.shapes[p] != graded.shapes[i]:  # type: ignore[attr-defined]
        said += ", then each element's shares added up (it was stretched to fit)"
    return said
