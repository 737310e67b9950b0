"""Animation frames from one graphviz layout — every step of a trace as an SVG whose nodes never
move: `Frames(graph)` traces a graph opened already (`autograd_viz.frames.Frames(root)`, the
public class, opens a Value first), lays it out ONCE with every value and final
gradient filled in (on a copy: the user's graph is never written, and each cell already has
its final width), and derives each step's frame from that SVG by changing only class
attributes and cell texts (values not computed yet read `data ?`; pending, forward and
backward nodes, the active value and the edges it travels are coloured by a `<style>` block
keyed on those classes, scoped by a class unique to the layout: `autograd_viz.view.frame_svg`),
so a frame costs a string join, not a `dot` run; and each frame's caption is written once,
here (`Frames.caption`), for every player and export to show.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

from autograd_viz.core._checks import check_count, whole
from autograd_viz.core.errors import FramesError
from autograd_viz.core.graph import Graph, opened
from autograd_viz.core.steps import Step, check_phase
from autograd_viz.view import layout, render, svg
from autograd_viz.view.collapse import collapse_view, has_neurons
from autograd_viz.view.frame_slots import PLACEHOLDER, slot_changes, slot_filler, state_of
from autograd_viz.view.frame_svg import (
    EDGE_ON_CLASS,
    SHAPE_CLASS,
    check_template,
    fill_template,
    frame_css,
    template,
)
from autograd_viz.view.network import steps_for, with_by
from autograd_viz.view.options import DrawOptions

__all__ = [
    "EDGE_ON_CLASS",
    "PLACEHOLDER",
    "SHAPE_CLASS",
    "Caption",
    "Frames",
    "FramesError",
    "Source",
    "frame_css",
    "frames_of",
]

PHASE_TITLES = {"forward": "forward pass", "backward": "backward pass"}
# what kind of line of the derivation a backward step is, said in the caption
KIND_TITLES = {
    "seed": "the seed",
    "local": "a local derivative",
    "contribution": "the chain rule",
    "accumulate": "adding up the paths",
}


class Caption(NamedTuple):
    """What a frame's caption says: "step 3 of 9", "backward pass", "the chain rule".

    The one writer of a caption's words: every front end and export shows `text`, or its
    three pieces `lead` + `title` + `tail` (a player colours the title by `phase`).
    """

    counter: str
    phase: str  # "forward" or "backward": the step's phase, for colouring the title
    title: str
    kind: str | None

    @property
    def lead(self) -> str:
        """What comes before the title: `step 3 of 9 — `."""
        return f"{self.counter} — "

    @property
    def tail(self) -> str:
        """What comes after the title: ` · the chain rule`, or nothing."""
        return f" · {self.kind}" if self.kind else ""

    @property
    def text(self) -> str:
        """The caption as one line: `step 3 of 9 — backward pass · the chain rule`."""
        return f"{self.lead}{self.title}{self.tail}"


class Frames:
    """The frames of an animated trace, all from one layout.

    `Frames(graph, phase="both", digits=4, notation="blog", **draw_options)`: `graph` is a graph
    opened already (`autograd_viz.frames.Frames(root)` opens a Value); `digits` and `notation`
    go to `autograd_viz.trace.trace`, `by="neuron"` makes one frame per neuron of an `nn`
    network (`autograd_viz.view.network`, drawn one box per neuron) instead of one per operation
    (`by="operation"`); left out, it is "neuron" for a network drawn `collapse="neuron"` (MLP(2,
    [4, 4, 1]): 25 frames, not 198 that light up hidden values inside the boxes), else
    "operation"; `draw_options` are the drawing options (`autograd_viz.view.options`: rankdir,
    fmt, font_size, ...; `states` and `show_grad` are the frames' own). `steps` is the trace;
    `frame_svg(k)` is the picture after step k (one frame per step); `states(k)` the value
    states of frame k in `render`'s vocabulary; `for_phase(p)` the same layout with another
    phase's steps (no new `dot` run). `before_layout(frames)`, if given, runs once the steps and
    the DOT source are ready, before `dot`: a size check there refuses an animation before the
    expensive work.

    >>> from autograd_viz import Value
    >>> from autograd_viz.open.snapshot import snapshot
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> frames = Frames(snapshot((x + y) * y))
    >>> len(frames) == len(frames.steps)
    True
    >>> frames.states(1)  # after "v2 = x + y = 2 + 3 = 5"
    {0: 'forward', 1: 'forward', 2: 'forward active', 3: 'pending'}
    """

    def __init__(
        self,
        graph: Graph,
        phase: str = "both",
        *,
        digits: int = 4,
        notation: str = "blog",
        by: str | None = None,
        before_layout: Callable[[Frames], None] | None = None,
        max_frames: int | None = None,
        **draw_options: Any,
    ) -> None:
        graph = opened(graph, "this Frames lays out", "autograd_viz.frames.Frames(root)")
        check_phase(phase)
        if by is None:  # a picture of one box per neuron steps one neuron at a time
            neurons = draw_options.get("collapse") == "neuron" and has_neurons(graph)
            by = "neuron" if neurons else "operation"
        for option in ("states", "show_grad"):
            if option in draw_options:
                raise TypeError(f"Frames sets {option!r} itself; leave it out of the options")
        draw_options = with_by(by, draw_options)  # one frame per neuron: one box per neuron
        self.options = DrawOptions.of(**draw_options)
        if max_frames is not None:  # counted before the trace: a huge one takes minutes
            from autograd_viz.view.advice import check_least_frames

            max_frames = check_count(max_frames, "max_frames", FramesError)
            check_least_frames(graph, phase, by, max_frames)
        self.graph = graph
        self.phase = phase
        self.digits = digits
        self.notation = notation
        self.by = by
        self.draw_options = dict(draw_options)
        # both passes traced once: every phase's steps are those steps of its pass
        self.all_steps: list[Step] = _flag_forward(
            graph, steps_for(graph, "both", by=by, digits=digits, notation=notation)
        )
        self.steps = _of_pass(self.all_steps, phase)
        # every final gradient written in (on a copy), so the layout sizes each cell for it
        finished = graph.with_grads(self.all_steps[-1].grads)
        shown = dataclasses.replace(self.options, show_grad=True)  # checked already
        self.source = render.dot_source(finished, shown)
        if before_layout is not None:
            before_layout(self)  # e.g. the player's frame count and size, before dot runs
        self.base_svg = layout.svg_from_dot(self.source, timeout=self.options.timeout)
        # a collapsed layer's rows: the neuron outputs each shows, so frames fill them in
        self._layers = _layer_members(graph, self.base_svg)
        self.base_svg = svg.tag_layer_cells(self.base_svg, self._layers)
        self.scope = "avz-" + hashlib.sha1(self.base_svg.encode("utf-8")).hexdigest()[:10]
        self._parts = template(self.base_svg)
        self._n = len(graph)
        check_template(self.base_svg, self.slots)

    def for_phase(self, phase: str) -> Frames:
        """The same layout and options with another phase's steps; runs no `dot` and traces
        nothing: one pass's steps are the steps of that pass, counted from 0.

        >>> from autograd_viz import Value
        >>> x = Value(2.0, label="x")
        >>> from autograd_viz.open.snapshot import snapshot
        >>> both = Frames(snapshot(x * x))
        >>> both.for_phase("backward").base_svg == both.base_svg
        True
        """
        check_phase(phase)
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.phase = phase
        other.steps = _of_pass(self.all_steps, phase)
        return other

    def __len__(self) -> int:
        return len(self.steps)

    def __repr__(self) -> str:
        return f"<Frames: {len(self)} frames of phase {self.phase!r}, one layout>"

    def _check(self, k: int) -> Step:
        index = whole(k)
        if index is None or not 0 <= index < len(self.steps):
            raise IndexError(f"frame {k!r} does not exist; frames are 0..{len(self.steps) - 1}")
        return self.steps[index]

    def caption(self, k: int) -> Caption:
        """What frame k's caption says (counted from 1 for the reader).

        >>> from autograd_viz import Value
        >>> x = Value(2.0, label="x")
        >>> from autograd_viz.open.snapshot import snapshot
        >>> Frames(snapshot(x * x)).caption(3).text
        'step 4 of 6 — backward pass · a local derivative'
        """
        step = self._check(k)
        return Caption(
            f"step {k + 1} of {len(self.steps)}",
            step.phase,
            PHASE_TITLES.get(step.phase, step.phase),
            f"✗ {step.flag}" if step.flag else KIND_TITLES.get(step.kind),
        )

    def states(self, k: int) -> dict[int, str]:
        """State of every value in frame k: "pending", "forward" or "backward", plus
        " active" on the value the step is about — the `states` drawing option.

        Blue ("backward") means the gradient is final: a value that receives one share of
        its gradient stays orange, with the active border, until the accumulation step.
        """
        return self._states(self._check(k))

    def _states(self, step: Step) -> dict[int, str]:
        return {i: state_of(i, step) for i in range(self._n)}

    @property
    def slots(self) -> list[tuple[str, str]]:
        """What a frame may change, in SVG order: ("node", id) and ("edge", id) class
        attributes, ("cell", id) texts of data/grad cells, and ("svg", "") the root tag."""
        return [(part[0], part[1]) for part in self._parts if not isinstance(part, str)]

    def slot_values(self, k: int) -> list[str]:
        """The content of every slot (see `slots`) in frame k: a class attribute, a cell's
        text (unescaped) or the opening of the root `<svg` tag."""
        lead = self.caption(k).lead  # the picture's name: "step 2 of 9 — s = x + y = 5"
        return self._slot_values(k, self._check(k), lead)

    def _slot_values(self, k: int, step: Step, lead: str) -> list[str]:
        fill = self._filler(k, step, lead)
        return [fill(p) for p in self._parts if not isinstance(p, str)]

    def slot_changes(self) -> Iterator[tuple[Step, list[str], Sequence[int]]]:
        """Every frame in step order as (step, the content of every slot, the slots that
        may differ from the frame before), one list rewritten in place: a player of n steps
        over m values costs O(n + m), not the O(n·m) of `slot_values` for each k
        (`autograd_viz.view.frame_slots.slot_changes`)."""
        parts = [p for p in self._parts if not isinstance(p, str)]
        leads = [self.caption(k).lead for k in range(len(self.steps))]
        return slot_changes(parts, self.steps, leads, scope=self.scope, layers=self._layers,
                            n=self._n)  # fmt: skip

    def _filler(self, k: int, step: Step, lead: str) -> Callable[[tuple], str]:
        return slot_filler(k, step, lead, scope=self.scope, layers=self._layers, n=self._n)

    def frame_svg(self, k: int) -> str:
        """The SVG of frame k: the one layout, restyled for the state after step k."""
        return self._svg(self.slot_values(k))

    def picture(self, state: Step) -> str:
        """The one layout restyled for any state of the graph (a quiz's, as its blanks are
        filled in), named by the state's own text: it is no step of this trace, so it
        says no "step k of n"."""
        return self._svg(self._slot_values(0, state, ""))

    def _svg(self, slot_values: list[str]) -> str:
        return fill_template(self._parts, slot_values, self.scope)

    def frame_svgs(self) -> list[str]:
        """Every frame's SVG, in step order."""
        return [self.frame_svg(k) for k in range(len(self))]


def _of_pass(steps: list[Step], phase: str) -> list[Step]:
    """The steps of one phase out of a trace of both passes, counted from 0."""
    if phase == "both":
        return list(steps)
    return [
        dataclasses.replace(s, index=k) for k, s in enumerate(s for s in steps if s.phase == phase)
    ]


def _flag_forward(graph: Graph, steps: list[Step]) -> list[Step]:
    """A learner's value that does not follow from its operation (their `__add__` giving
    2 + 3 = −1) is written as a call of their method (`__add__(2, 3) = −1`); its forward
    step says why, in the caption and the equation's text (`✗ your `__add__` gave ...`)."""
    flags = getattr(graph, "forward_flags", None)
    if not flags:
        return steps
    out = []
    for step in steps:
        flag = flags.get(step.active) if (step.phase, step.kind) == ("forward", "value") else None
        if flag and not step.flag:
            said, hint = flag
            text = f"{step.text}   ✗ {said}" + (f" — {hint}" if hint else "")
            step = dataclasses.replace(step, flag=said, text=text)
        out.append(step)
    return out


def _layer_members(graph: Graph, base_svg: str) -> dict[str, tuple[int, ...]]:
    """The neuron outputs each collapsed layer box of the drawing shows, in row order."""
    if '<g id="layer' not in base_svg:
        return {}
    return {b.key: b.members for b in collapse_view(graph, "layer").boxes}


Source = Any  # a Graph snapshot or Frames (`autograd_viz.export` opens a Value first)


def frames_of(source: Source, phase: str | None, draw_options: dict[str, Any]) -> Frames:
    """The Frames an export shows: a graph opened already, traced and laid out (with `phase`
    and drawing options), or existing Frames (for another phase if asked)."""
    if isinstance(source, Frames):
        if draw_options:
            raise TypeError(
                f"drawing options {sorted(draw_options)} only apply when exporting a Value; "
                "these Frames are laid out already"
            )
        return source if phase in (None, source.phase) else source.for_phase(phase)
    public = "the function of the same name in autograd_viz.export"  # the entry opens a Value
    source = opened(source, "this export shows Frames or", public)
    from autograd_viz.view.advice import DEFAULT_MAX_FRAMES, check_animation  # the players' limits

    return Frames(source, phase or "both", **draw_options,  # too many frames: refused unlaid
                  max_frames=DEFAULT_MAX_FRAMES,
                  before_layout=lambda f: check_animation(f, DEFAULT_MAX_FRAMES))
