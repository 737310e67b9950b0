"""What each frame writes into the slots of the one layout's template
(`autograd_viz.view.frame_svg`) — a node's state classes, an edge the step travels, a cell's number
or `?`, the root tag naming the step — and which slots a step can change from the one before, so the
player's step table rewrites only those: a step reveals a value or a gradient and touches a few
nodes and edges, and filling every slot of every frame made a player O(steps × values) (MLP(2, [32,
32, 1]): 6,890 steps × 20,000 slots, minutes), where this is O(steps + values)."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from autograd_viz.view.frame_svg import EDGE_ON_CLASS

if TYPE_CHECKING:  # annotations only
    from autograd_viz.core.steps import Step

__all__ = ["PLACEHOLDER", "slot_changes", "slot_filler", "state_of"]

PLACEHOLDER = "?"

Part = tuple[str, str, str]  # a template's slot: (kind, key, what the layout wrote there)


def state_of(i: int, step: Step) -> str:
    """Value i's state after `step`: pending, forward (its value known) or backward (its
    gradient final), with " active" on the value the step is about."""
    state = "backward" if i in step.grads else "forward" if i in step.values else "pending"
    return f"{state} active" if i == step.active else state


def slot_filler(
    k: int, step: Step, lead: str, *, scope: str, layers: dict[str, tuple[int, ...]], n: int
) -> Callable[[Part], str]:
    """The content of one slot in frame k, `step` its state, `lead` the caption's lead (the
    picture's accessible name starts with it), `layers` the rows of each collapsed layer box,
    `n` the number of values."""
    touched = set(step.nodes)
    edges_on = set(step.edges)
    ops_on = _ops(step.edges)

    def state(i: int) -> str:
        return state_of(i, step) if 0 <= i < n else ""

    def node_class(key: str, base: str) -> str:
        if key.startswith("layer"):
            return f"{base} {_box_state(layers.get(key, ()), step, touched)}"
        if key.startswith("op"):
            i = int(key[2:])
            plain = state(i).replace(" active", "")
            if key in ops_on and step.kind == "value" and i == step.active:
                return f"{base} {plain} active"
            return f"{base} {plain} touched" if key in ops_on else f"{base} {plain}"
        i = int(key[1:])
        now = state(i)
        if i in touched and "active" not in now:
            now += " touched"
        return f"{base} {now}"

    def cell_text(key: str, text: str) -> str:
        i, what = key[1:].split("-")
        known = step.values if what == "data" else step.grads
        if int(i) in known:
            return text
        head, _, _ = text.partition(" ")
        return f"{head} {PLACEHOLDER}" if head in ("data", "grad") else PLACEHOLDER

    fill: dict[str, Callable[[str, str], str]] = {
        "node": node_class,
        "edge": lambda key, base: f"{base} {EDGE_ON_CLASS}" if key in edges_on else base,
        "cell": cell_text,
        "svg": lambda key, base: (  # the equation doubles as the picture's accessible name
            f'<svg class="avz-frame {scope}" data-step="{k}" '
            f'data-phase="{step.phase}" data-active="v{step.active}" role="img" '
            f'aria-label="{html.escape(lead + step.text, quote=True)}"'
        ),
    }
    return lambda part: fill[part[0]](part[1], part[2])


def slot_changes(
    parts: list[Part],
    steps: Sequence[Step],
    leads: Sequence[str],
    *,
    scope: str,
    layers: dict[str, tuple[int, ...]],
    n: int,
) -> Iterator[tuple[Step, list[str], Sequence[int]]]:
    """Each step with every slot's content after it (one list, rewritten in place) and the
    slots that may differ from the step before: those of the values it reveals and of the
    values and edges it or the step before touches or is about, and the root tag. Where two
    steps are not views of one trace's numbers, every slot is filled again. `leads` are the
    steps' caption leads; the rest as for `slot_filler`."""
    by_value, by_key, always = _slot_index(parts, layers)
    values: list[str] = []
    before: Step | None = None
    for k, (step, lead) in enumerate(zip(steps, leads)):
        fill = slot_filler(k, step, lead, scope=scope, layers=layers, n=n)
        changed = _changed_values(before, step)
        if changed is None:
            values[:] = [fill(p) for p in parts]
            dirty: Sequence[int] = range(len(parts))
        else:
            edges = (*before.edges, *step.edges)  # type: ignore[union-attr]
            keys = {*edges, *_ops(edges)}
            dirty = sorted({*always, *(j for i in changed for j in by_value.get(i, ())),
                            *(j for key in keys for j in by_key.get(key, ()))})  # fmt: skip
            for j in dirty:
                values[j] = fill(parts[j])
        yield step, values, dirty
        before = step


def _ops(edges: Iterable[str]) -> set[str]:
    """The operation nodes at either end of the edges a step travels."""
    return {e.split("-")[1] for e in edges if e.startswith("v")} | {
        e.split("-")[0] for e in edges if e.startswith("op")
    }


def _changed_values(before: Step | None, step: Step) -> set[int] | None:
    """The values whose slots may differ between two consecutive steps: those `step`
    reveals, and those either step touches or is about; None for the first step, or where
    the two are not views of one trace's table of numbers."""
    if before is None:
        return None
    pairs = ((step.values, before.values), (step.grads, before.grads))
    since = [getattr(now, "added_since", lambda _: None)(then) for now, then in pairs]
    if None in since:
        return None
    return {*since[0], *since[1], *before.nodes, *step.nodes, before.active, step.active}


def _slot_index(parts: list[Part], layers: dict[str, tuple[int, ...]]) -> tuple[dict, dict, list]:
    """Which slots show which value (its node, its operation node, its cells, the layer box
    it is a row of), which slots an edge's or an operation node's key names, and the slots
    every frame rewrites (the root tag)."""
    by_value: dict[int, list[int]] = {}
    by_key: dict[str, list[int]] = {}
    always: list[int] = []
    for j, (kind, key, _base) in enumerate(parts):
        if kind == "svg":
            always.append(j)
            continue
        by_key.setdefault(key, []).append(j)
        if kind == "edge":
            continue
        if key.startswith("layer"):
            for i in layers.get(key, ()):
                by_value.setdefault(i, []).append(j)
        else:
            head = key.split("-")[0]  # v12, v12-data, op12: value 12
            by_value.setdefault(int(head[2:] if head.startswith("op") else head[1:]), []).append(j)
    return by_value, by_key, always


def _box_state(members: tuple[int, ...], step: Step, touched: set[int]) -> str:
    """A layer box changes state like a value: pending until one of its neurons has its
    value, forward until all have their final gradients, then backward; active while
    the step is about one of them."""
    if members and all(i in step.grads for i in members):
        state = "backward"
    elif any(i in step.values for i in members):
        state = "forward"
    else:
        state = "pending"
    if step.active in members:
        return f"{state} active"
    return f"{state} touched" if any(i in touched for i in members) else state
