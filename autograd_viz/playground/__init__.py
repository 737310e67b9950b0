"""The Python side of the playground page (`lite/playground/`, built into `_site/playground/`):
the page runs this module in Pyodide and asks it for everything it shows, in plain dicts of
strings and numbers, so the playground says exactly what the notebooks say — the expression
read by `autograd_viz.playground.expression` (an allow-list, never `eval`), drawn by `Value.draw`,
stepped through by the kernel-free inline player, derived by `autograd_viz.trace`, quizzed
and explored by the notebooks' own widgets (`autograd_viz.front.quiz`, `.explore`), which the
page renders with the one player module, its Python standing in for the kernel — while its
JavaScript only places what comes back and keeps the
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

from autograd_viz.core.errors import ExploreError, QuizError
from autograd_viz.engine import Value
from autograd_viz.playground.expression import (
    ExpressionError,
    build,
    evaluate,
    notebook_for,
    parse_expression,
    parse_inputs,
)

__all__ = [
    "LINK_KEYS",
    "MODES",
    "front_end",
    "notebook_json",
    "summary",
    "view",
    "widget_update",
    "widget_view",
]

MODES = ("draw", "steps", "quiz", "explore", "derivation")
PHASES = ("forward", "backward", "both")
NOTATIONS = ("blog", "adjoint")
# The link's own keys; every other key is an input's value (`x=2`), so no input may take these.
LINK_KEYS = ("e", "mode", "phase", "notation", "step")
NEW_INPUT = "1"  # the value a name gets when it first appears in the expression

_built: dict[str, Any] = {}  # the last expression built: (text, values) -> its root and player
_widget: dict[str, Any] = {}  # the quiz or explorer shown: its key and the widget


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


def summary(params: Mapping[str, str]) -> str:
    """The line under the graph for a link's parameters: z and each input's gradient."""
    text = str(params.get("e", ""))
    _, values = _canonical(text, params)
    return _summary(_root(text, values))


def _summary(root: Value) -> str:
    from autograd_viz.trace import format_number

    grads = ", ".join(f"∂z/∂{v.label} = {format_number(v.grad, 4)}" for v in root.leaves()
                      if v.label)  # fmt: skip
    return f"z = {format_number(root.data, 4)}; {grads}"


def notebook_json(params: Mapping[str, str]) -> str:
    """The "Download notebook" file: a notebook that builds the same expression with the kit."""
    text = str(params.get("e", ""))
    _, values = _canonical(text, params)
    settings = _settings(params)
    made = notebook_for(text, values, phase=settings["phase"], mode=settings["mode"])
    return json.dumps(made, indent=1, ensure_ascii=False)


# ---- the quiz and explore: the notebooks' own widgets, rendered by the one player module -----


def widget_view(params: Mapping[str, str]) -> dict[str, Any]:
    """The widget of the quiz or explore mode on the link's expression, as the page's player
    module (`front_end()`) renders it: `traits` are the widget's synced traits (its View) and
    `css` its stylesheet, as anywidget would hand them to a view; or `error`.

    The widget is the notebooks' own (`Quiz`, `Explorer`: they load anywidget, which the page
    fetches only when such a mode is first opened), kept while the expression, the mode and
    (for the quiz) the inputs stay the same; explore starts at the link's inputs and the
    page's input boxes then set its `inputs`, as `ex.inputs = {...}` does in a notebook.
    """
    text = str(params.get("e", ""))
    mode = _settings(params)["mode"]
    try:
        names, values = _canonical(text, params)
        root = _root(text, values)
    except ExpressionError as err:
        return {"error": _error(err)}
    key = _built["key"] if mode == "quiz" else json.dumps([text, mode])
    try:
        if _widget.get("key") != key:
            made = _quiz_of(root) if mode == "quiz" else _explorer_of(text, values)
            _widget.clear()
            _widget.update(key=key, widget=made)
        elif mode == "explore":  # the page's input boxes, as `ex.inputs = {...}` in a notebook
            _widget["widget"].inputs = parse_inputs(names, values)
    except (QuizError, ExploreError) as err:
        return {"error": {"message": str(err), "what": str(err), "field": "expression",
                          "column": 1, "text": text}}  # fmt: skip
    widget = _widget["widget"]
    return {"error": None, "key": key, "traits": _traits(widget), "css": widget._css}


def _quiz_of(root: Value) -> Any:
    from autograd_viz.api import quiz

    return quiz(root)


def _explorer_of(text: str, values: dict[str, str]) -> Any:
    from autograd_viz.api import explore

    expression = parse_expression(text)
    start = parse_inputs(expression.names, values)

    def f(**leaves: Value) -> Value:  # the expression built on explore's own leaves
        out = evaluate(expression, leaves)
        if isinstance(out, Value):
            out.label = "z"
        return out

    f.__name__ = "z"
    return explore(f, **start)


def widget_update(kind: str, payload: Any) -> dict[str, Any]:
    """What the page's view did to the open widget, done as a kernel would: `"send"` a
    message (`model.send`: a quiz's answer), `"set"` traits (`model.save_changes`: explore's
    request). Returns the widget's traits after it answered; the page tells the view which
    changed."""
    widget = _widget["widget"]
    if kind == "send":
        widget._handle_custom_msg(payload, [])
    elif kind == "set" and isinstance(payload, dict):
        own = _view_names(widget)
        for name, value in payload.items():
            if name in own:
                setattr(widget, name, value)
    return _traits(widget)


def _view_names(widget: Any) -> list[str]:
    """The widget's own synced traits (its View), not those every ipywidget has."""
    from anywidget import AnyWidget

    common = set(AnyWidget.class_trait_names())
    return [name for name in widget.trait_names(sync=True)
            if name not in common and not name.startswith("_")]  # fmt: skip


def _traits(widget: Any) -> dict[str, Any]:
    return {name: getattr(widget, name) for name in _view_names(widget)}


def front_end() -> str:
    """The one player module (`player.js` as every host ships it), which the page imports to
    render the quiz and explore modes."""
    from autograd_viz.front.static import module_text

    return module_text()
