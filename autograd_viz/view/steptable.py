"""The one player's data — what `front/static/player.js` renders in the widget, the standalone
page, the inline player and the slide deck alike: `step_table(frames)` holds the one layout
(graphviz ran once) and, per unique step (the backward steps of "both" are those of
"backward"), only the slots it changes from the step before (class attributes and cell
texts, as indices into one table of strings), its caption pieces as `Frames.caption` wrote
them (the player writes no word), its equation as LaTeX and text, each phase's step order,
the text alternative of the graph and what clicking a value explains — so a step is a row,
not a drawing (MLP(2, [16, 16, 1]) one neuron at a time: 73 steps in ~0.3 MB, where an SVG
per step was 12.2 MB).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from autograd_viz.view.ask import ask_of
from autograd_viz.view.svg import fitted_text_px, width_px

if TYPE_CHECKING:  # annotations only
    from autograd_viz.core.steps import Step
    from autograd_viz.view.frames import Frames

__all__ = ["PHASES", "payload", "step_table"]

PHASES = ("both", "forward", "backward")


def step_table(
    frames: Frames,
    *,
    phases: Iterable[str] = PHASES,
    fits: Callable[[Frames], str | None] | None = None,
    history: int = 3,
    interval: int = 1000,
    projector: bool = False,
    title: str = "",
) -> dict[str, Any]:
    """The JSON-able table `player.js` plays: `frames`'s layout and the steps of `phases`.

    `fits(frames_of_a_phase)`, if given, returns why a phase cannot be offered (too many
    steps) or None; `frames.phase` itself is always in the table (the caller checked it).

    >>> from autograd_viz import Value
    >>> from autograd_viz.frames import Frames
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> table = step_table(Frames((x + y) * y))
    >>> [len(table["phases"][p]) for p in PHASES], len(table["text"])
    ([9, 3, 6], 9)
    """
    strings: dict[str, int] = {}
    slots = [s for s in frames.slots if s[0] != "svg"]
    column = {j: c for c, j in enumerate(i for i, s in enumerate(frames.slots) if s[0] != "svg")}
    seen: dict[tuple, int] = {}
    base: list[int] = []  # the first row; each new row after it is its changes from the last
    changes: list[list[int]] = []
    columns: dict[str, list] = {"heading": [], "tail": [], "tex": [], "text": [], "active": []}
    columns["pass"] = []
    order: dict[str, list[int]] = {}
    leads: dict[str, list[str]] = {}
    refused: dict[str, str] = {}
    wanted = [frames.phase] + [p for p in phases if p != frames.phase]
    held: list[int] = []  # the row the player holds after the last new row
    for phase in wanted:
        these = frames if phase == frames.phase else frames.for_phase(phase)
        why = None if these is frames or fits is None else fits(these)
        if why:
            refused[phase] = why
            continue
        order[phase], leads[phase] = [], []
        row = [0] * len(column)
        newest = None  # the step of this phase that was the last new row
        for k, (step, values, dirty) in enumerate(these.slot_changes()):
            moved = [(column[j], j) for j in dirty if j in column]
            for c, j in moved:
                row[c] = strings.setdefault(values[j], len(strings))
            caption = these.caption(k)
            leads[phase].append(caption.lead)
            key = (_state_key(step, row), step.text, step.latex, caption.title, caption.tail)
            if key not in seen:
                seen[key] = len(changes)
                if not changes:
                    base, held = list(row), list(row)
                # the player holds the row of step k - 1 only if that was the last new row
                near = [c for c, _ in moved] if newest == k - 1 else range(len(row))
                changes.append([x for c in near if held[c] != row[c] for x in (c, row[c])])
                for c in near:
                    held[c] = row[c]
                newest = k
                columns["heading"].append(caption.title)
                columns["tail"].append(caption.tail)
                columns["tex"].append(step.latex)
                columns["text"].append(step.text)
                columns["active"].append(step.active)
                columns["pass"].append(step.phase)
            order[phase].append(seen[key])
    ask = _ask(frames)
    svg = re.sub(r"<!--.*?-->\n?", "", frames.frame_svg(0), flags=re.S)  # graphviz's notes
    return {
        "svg": svg,
        "slots": slots,
        "strings": list(strings),
        "base": base,
        "changes": changes,
        **columns,
        "phases": order,
        "leads": leads,
        "refused": refused,
        "phase": frames.phase,
        "nodes": _nodes(frames),
        # the drawing's width and smallest text (CSS px): "fit to width" only where readable
        "width": round(width_px(svg), 1),
        "text_px": round(fitted_text_px(svg, width_px(svg)), 2),
        "history": history,
        "interval": interval,
        "projector": projector,
        "title": title,
        **ask,
    }


def _state_key(step: Step, row: list[int]) -> tuple:
    """What a step's row is a function of: what is known after it (a view of its trace's
    numbers), the values and edges it touches, the value it is about; two steps with equal
    keys have equal rows, so a pass's steps shared by "both" are stored once. A step whose
    numbers are not such a view is keyed by its row itself."""
    views = [getattr(known, "view_key", None) for known in (step.values, step.grads)]
    if None in views:
        return tuple(row), step.active
    return (*views, step.nodes, step.edges, step.active, step.kind)


ASK_MAX_NODES = 100  # values whose chain-rule sums a player saves (clicking one explains it)


def _ask(frames: Frames) -> dict[str, Any]:
    """{"ask": ...}: what clicking a value explains (view/ask.py); the frames' own trace is
    handed on where it is the one ask_of reads (blog notation, one step per operation), so
    nothing is traced twice. Only for a graph drawn value by value with at most
    `ASK_MAX_NODES` values: every value's sum is saved, and on an MLP's thousands of values
    that table alone (3.3 MB) would outweigh the player."""
    if frames.by != "operation" or len(frames.graph.nodes) > ASK_MAX_NODES:
        return {}  # a neuron's box, or more values than a learner clicks through: no table
    if getattr(frames.graph, "shapes", ()):  # tensors: the steps say it element by element
        return {}
    same = frames.by == "operation" and frames.notation == "blog"
    table = ask_of(
        frames.graph, digits=frames.digits, steps=list(frames.all_steps) if same else None
    )
    return {"ask": table}


_LABEL = re.compile(r'<g id="(v\d+)-label"[^>]*>(.*?)</g>', re.S)


def _nodes(frames: Frames) -> list[list[str]]:
    """[id, label, operation] of each value drawn with cells, in graph order; the label as
    the drawing writes it (`x + y` for an unnamed sum)."""
    cells = {key.split("-")[0] for kind, key in frames.slots if kind == "cell"}
    drawn = {m[1]: m[2] for m in _LABEL.finditer(frames.base_svg)}  # one pass over the SVG
    out = []
    for node in frames.graph.nodes:
        key = f"v{node.index}"
        if key in cells:
            label = html.unescape(re.sub(r"<[^>]+>", "", drawn.get(key, "")))
            op = node.op or ("parameter" if node.trainable else "input")
            out.append([key, label.strip() or node.name, op])
    return out


def payload(table: dict[str, Any]) -> str:
    """The table as JSON safe inside a `<script>`: no label can close or open one."""
    text = json.dumps(table, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c")
