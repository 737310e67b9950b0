"""The step table (viz/steptable.py) carries every word of each step's caption, as
`Frames.caption` wrote it once: the player shows those words and writes none of its own."""

from __future__ import annotations

import re

import own_engines as oe
import pytest
from examples import blog_z

from autograd_viz.nn import MLP
from autograd_viz.viz.frames import Frames
from autograd_viz.viz.static import static_text
from autograd_viz.viz.steptable import PHASES, step_table


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
