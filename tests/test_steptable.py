"""The step table (view/steptable.py) carries every word of each step's caption, as
`Frames.caption` wrote it once: the player shows those words and writes none of its own."""

from __future__ import annotations

import itertools
import re

import own_engines as oe
import pytest
from examples import blog_z

from autograd_viz.frames import Frames
from autograd_viz.front.static import static_text
from autograd_viz.nn import MLP
from autograd_viz.view.steptable import PHASES, step_table


def _mlp_loss():
    return (MLP(2, [3, 1], seed=0)([0.5, -1.0]) - 1.0) ** 2


def _flagged():  # a learner's engine whose product sends the wrong share: a "✗" caption
    root = oe.square_of_ab_plus_c(oe.SwappedMul)
    root.backward()
    return root


def _caption(table: dict, phase: str, k: int) -> str:
    """Step k's caption in `phase` as the player shows it: the lead, the heading, the tail."""
    i = table["phases"][phase][k]
    return table["leads"][phase][k] + table["heading"][i] + table["tail"][i]


@pytest.mark.parametrize(
    ("make", "options"),
    [(blog_z, {}), (_mlp_loss, {"by": "neuron"}), (_flagged, {})],
    ids=["blog", "by-neuron", "flagged"],
)
def test_each_steps_caption_in_the_table_is_the_one_frames_wrote(make, options):
    frames = Frames(make(), **options)
    table = step_table(frames)
    for phase in PHASES:
        these = frames.for_phase(phase)
        assert len(table["leads"][phase]) == len(table["phases"][phase]) == len(these)
        for k in range(len(these)):
            assert _caption(table, phase, k) == these.caption(k).text, (phase, k)
    if make is _flagged:
        assert any("✗ your `__mul__`" in t for t in table["tail"])


def test_a_step_shared_by_both_and_one_pass_is_one_row_with_each_phases_counter():
    table = step_table(Frames(blog_z()))
    both, backward = table["phases"]["both"], table["phases"]["backward"]
    assert both[3:] == backward  # the backward steps of "both" are those of "backward"
    assert table["leads"]["both"][3] == "step 4 of 9 — "
    assert table["leads"]["backward"][0] == "step 1 of 6 — "


def test_player_js_writes_no_word_of_a_caption():
    """The old player counted "step 4 of 9 — " and put " · " before the kind itself."""
    source = re.sub(r"^\s*//.*$|  // .*$", "", static_text("player.js"), flags=re.M)
    literals = re.findall(r'"((?:[^"\\\n]|\\.)*)"', source)
    pieces = r"^step $|^ of $|^ (\\u2014|—) $|\\u00B7|·"  # "step " + k + " of " + n + " — "
    assert [s for s in literals if re.search(pieces, s)] == []


def _rows_one_slot_at_a_time(frames: Frames, phases=PHASES) -> dict:
    """The oracle: every slot of every frame filled (`Frames.slot_values`), the unique rows
    kept in order, each row's changes from the one before — the table's rows and changes
    as the player replays them, written the plain O(steps × slots) way."""
    keep = [j for j, s in enumerate(frames.slots) if s[0] != "svg"]
    strings: dict[str, int] = {}
    seen: dict[tuple, int] = {}
    rows: list[list[int]] = []
    order = {}
    for phase in [frames.phase] + [p for p in phases if p != frames.phase]:
        these = frames.for_phase(phase)
        order[phase] = []
        for k, step in enumerate(these.steps):
            values = these.slot_values(k)
            row = [strings.setdefault(values[j], len(strings)) for j in keep]
            caption = these.caption(k)
            key = (tuple(row), step.text, step.latex, caption.title, caption.tail, step.active)
            if key not in seen:
                seen[key] = len(rows)
                rows.append(row)
            order[phase].append(seen[key])
    changes = [[]] + [[x for c, (a, b) in enumerate(zip(before, row)) if a != b for x in (c, b)]
                      for before, row in itertools.pairwise(rows)]  # fmt: skip
    return {"strings": list(strings), "base": rows[0], "changes": changes, "phases": order}


def _micrograd_graph():
    root = oe.b_used_twice(oe.BlogValue)
    root.backward()
    return root


_TABLE_CASES = {
    "blog": (blog_z, {}),
    "mlp": (lambda: (MLP(2, [4, 4, 1], seed=1)([1.0, -1.0]) - 1.0) ** 2, {}),
    "by-neuron": (_mlp_loss, {"by": "neuron"}),
    "layers": (lambda: (MLP(2, [4, 4, 1], seed=1)([1.0, -1.0]) - 1.0) ** 2, {"collapse": "layer"}),
    "their-engine": (_micrograd_graph, {}),
    "flagged": (_flagged, {}),
}


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("case", _TABLE_CASES)
def test_the_table_rewrites_only_what_a_step_changes_and_plays_as_every_slot_filled(case, phase):
    """The table fills only the slots a step can change (what it reveals, what it and the
    step before touch); replayed, it must give exactly the rows of every slot of every
    frame filled in, and store the same unique rows."""
    make, options = _TABLE_CASES[case]
    frames = Frames(make(), phase, **options)
    table, oracle = step_table(frames), _rows_one_slot_at_a_time(frames)
    assert {k: table[k] for k in oracle} == oracle


def test_a_players_table_costs_steps_plus_slots_not_their_product(monkeypatch):
    """Filling every slot of every frame made the table O(steps × values): MLP(2, [32, 32, 1])
    asked 41 million times whether a value was known yet, and its forward-pass player took
    52 s. Counted here on MLP(2, [8, 8, 1]) (303 values, 578 steps of both passes, 1,671
    slots): 1,284,979 asks before, 30,648 now."""
    from autograd_viz.core import steps

    asked = 0
    contains = steps._Revealed.__contains__

    def counted(self, key):
        nonlocal asked
        asked += 1
        return contains(self, key)

    frames = Frames((MLP(2, [8, 8, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2)
    monkeypatch.setattr(steps._Revealed, "__contains__", counted)
    step_table(frames)
    n_values, n_steps, n_slots = len(frames.graph), len(frames.all_steps), len(frames.slots)
    assert asked < 20 * (n_steps + n_slots), (asked, n_values, n_steps, n_slots)
