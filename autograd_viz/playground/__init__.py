"""The Python side of the playground page (`lite/playground/`, built into `_site/playground/`):
the page runs this module in Pyodide and asks it for everything it shows, in plain dicts of
strings and numbers, so the playground says exactly what the notebooks say — the expression
read by `autograd_viz.playground.expression` (an allow-list, never `eval`), drawn by `Value.draw`,
stepped through by the kernel-free inline player, derived by `autograd_viz.trace`, quizzed
by `autograd_viz.front.quiz` — while its JavaScript only places what comes back and keeps the
state in the URL (`#e=(x%2By)*y&x=2&y=3&mode=steps&step=7`; `step` counts from 1, as the
player's caption does).

>>> shown = view({"e": "(x + y) * y", "x": "2", "y": "3", "mode": "derivation"})
>>> shown["params"]
{'e': '(x + y) * y', 'x': '2', 'y': '3', 'mode': 'derivation', 'phase': 'both', 'notation': 'blog'}
>>> shown["lines"][-1]["text"]
'∂z/∂y = 5 + 3 = 8'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from autograd_viz.engine import Value
from autograd_viz.playground.expression import (
    ExpressionError,
    build,
    notebook_for,
    parse_expression,
)

__all__ = [
    "LINK_KEYS",
    "MODES",
    "answer",
    "equation",
    "notebook_json",
    "quiz_view",
    "view",
]

MODES = ("draw", "steps", "quiz", "derivation")
PHASES = ("forward", "backward", "both")
NOTATIONS = ("blog", "adjoint")
# The link's own keys; every other key is an input's value (`x=2`), so no input may take these.
LINK_KEYS = ("e", "mode", "phase", "notation", "step")
NEW_INPUT = "1"  # the value a name gets when it first appears in the expression

_built: dict[str, Any] = {}  # the last expression built: (text, values) -> its root and player
_quiz: dict[str, Any] = {}


def _settings(params: Mapping[str, str]) -> dict[str, str]:
    """mode, phase and notation from the link, each one of its allowed words (else the default)."""
    mode = params.get("mode", "draw")
    phase = params.get("phase", "both")
    notation = params.get("notation", "blog")
    return {
        "mode": mode if mode in MODES else "draw",
        "phase": phase if phase in PHASES else "both",
        "notation": notation if notation in NOTATIONS else "blog",
    }


def _error(err: ExpressionError) -> dict[str, Any]:
    return {"message": str(err), "what": err.what, "field": err.field, "column": err.column,
            "text": err.text}  # fmt: skip


def _canonical(text: str, params: Mapping[str, str]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The expression's names and each one's value text (new names get NEW_INPUT)."""
    names = parse_expression(text).names
    for name in names:
        if name in LINK_KEYS:
            raise ExpressionError(
                f"{name!r} is a word the playground's link keeps for itself "
                f"({', '.join(k + '=' for k in LINK_KEYS)}): choose another name",
                text, text.index(name) + 1,
            )  # fmt: skip
    return names, {n: str(params.get(n, NEW_INPUT)).strip() or NEW_INPUT for n in names}


def _root(text: str, values: dict[str, str]) -> Value:
    key = json.dumps([text, values])
    if _built.get("key") != key:
        root = build(text, values)
        root.backward()
        _built.clear()
        _built.update(key=key, root=root)
    return _built["root"]


def view(params: Mapping[str, str]) -> dict[str, Any]:
    """What the page shows for a link's parameters (`{"e": "(x+y)*y", "x": "2", ...}`).

    Returns `params` (the link written back canonically: the expression, its inputs in
    order of appearance, the settings), `names`, and per mode: `svg` (draw), `player` (the
    inline player's HTML), `steps` and `step` (the step to show, counted from 1 as the
    player's caption counts) (steps), `lines` (derivation), or `error` (an
    ExpressionError as a dict: message, what, field, column, text) if the text is refused.
    """
    text = str(params.get("e", ""))
    settings = _settings(params)
    out: dict[str, Any] = {"error": None, "names": [], **settings}
    try:
        names, values = _canonical(text, params)
        out["names"] = list(names)
        out["params"] = {"e": text, **values, **settings}
        root = _root(text, values)
    except ExpressionError as err:
        out.setdefault("params", {"e": text, **settings})
        out["error"] = _error(err)
        return out
    out["summary"] = _summary(root)
    mode, phase, notation = settings["mode"], settings["phase"], settings["notation"]
    if mode == "draw":
        out["svg"] = root.draw().svg()
    elif mode == "steps":
        from autograd_viz.api import player_for

        player = player_for(root, widgets=False, phase=phase, notation=notation)
        out["steps"] = player.n_frames
        out["player"] = player._repr_html_()  # the kit's own kernel-free player, as in a notebook
        try:
            step = int(params.get("step", "1"))
        except ValueError:
            step = 1
        # counted from 1, as the page shows it ("step 7 of 9"): a teacher writes that number
        out["step"] = max(1, min(player.n_frames, step))
        out["params"]["step"] = str(out["step"])
    elif mode == "derivation":
        from autograd_viz.trace import trace

        steps = trace(root, phase, notation=notation)
        out["lines"] = [{"text": s.text, "phase": s.phase} for s in steps]
    return out


def _summary(root: Value) -> str:
    from autograd_viz.trace import format_number

    grads = ", ".join(f"∂z/∂{v.label} = {format_number(v.grad, 4)}" for v in root.leaves()
                      if v.label)  # fmt: skip
    return f"z = {format_number(root.data, 4)}; {grads}"


def notebook_json(params: Mapping[str, str]) -> str:
    """The "Download notebook" file: a notebook that builds the same expression with the kit."""
    text = str(params.get("e", ""))
    _, values = _canonical(text, params)
    phase = _settings(params)["phase"]
    return json.dumps(notebook_for(text, values, phase=phase), indent=1, ensure_ascii=False)


# ---- the quiz: autograd_viz.front.quiz's Quiz, its blanks laid out by the page --------------


def quiz_view(params: Mapping[str, str]) -> dict[str, Any]:
    """The quiz on the link's expression: the graph's SVG, each blank's cell (the id of the
    drawing's text the page lays its box over), the progress line and the last feedback, as
    text.

    The Quiz is the notebooks' own (it loads anywidget, which the page fetches only when
    the quiz is first opened); it is kept while the expression stays the same.
    """
    text = str(params.get("e", ""))
    try:
        _, values = _canonical(text, params)
        root = _root(text, values)
    except ExpressionError as err:
        return {"error": _error(err)}
    key = _built["key"]
    if _quiz.get("key") != key:
        from autograd_viz.front.quiz import Quiz, QuizError

        try:
            made = Quiz(root)
        except QuizError as err:
            return {"error": {"message": str(err), "what": str(err), "field": "expression",
                              "column": 1, "text": text}}  # fmt: skip
        _quiz.clear()
        _quiz.update(key=key, quiz=made, right=None)
    return _quiz_state()


def answer(label: str, typed: str) -> dict[str, Any]:
    """Type `typed` into the blank `label` of the open quiz; its state after the verdict."""
    q = _quiz["quiz"]
    _quiz["right"] = q.submit(label, typed)
    return _quiz_state()


def equation(label: str) -> str:
    """The step's equation for the blank `label`, its result left as `?`: what the quiz
    offers after two wrong answers (`Quiz.step_equation`)."""
    return _quiz["quiz"].step_equation(label)


def _quiz_state() -> dict[str, Any]:
    q = _quiz["quiz"]
    blanks = [{"label": b.label, "what": b.what, "solved": b.solved, "misses": b.misses,
               "cell": b.cell} for b in q.blanks]  # fmt: skip
    return {
        "error": None,
        "svg": q.picture,
        "blanks": blanks,
        "progress": q.progress,
        "feedback": q.feedback,
        "right": _quiz["right"],
        "left": q.left,
    }
