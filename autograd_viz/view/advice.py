"""The limits of an animation, and what to do about one too large to play or to save, offering
only what would work for this graph: one frame per neuron (for an `nn` network, drawn one box per
neuron), one phase alone, a smaller graph, or a larger `max_frames` where every frame would still
fit the size limit. Both players (the widget and the inline page) check here, before any `dot`
run: an animation over the limits is refused, never saved as a page of hundreds of megabytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autograd_viz.core.errors import AnimationTooLargeError, PlayerError
from autograd_viz.core.graph import Graph
from autograd_viz.view.collapse import has_neurons
from autograd_viz.view.network import count_neuron_steps

if TYPE_CHECKING:
    from autograd_viz.view.frames import Frames

__all__ = [
    "DEFAULT_MAX_BYTES", "DEFAULT_MAX_FRAMES", "bytes_advice", "check_animation",
    "check_least_frames", "check_saved_size", "frame_advice", "too_many_frames",
]

DEFAULT_MAX_FRAMES = 5000
DEFAULT_MAX_BYTES = 30_000_000  # the step table as saved in the notebook (the drawing once)
# A step's row holds at least its equation twice (text and LaTeX) and ~40 bytes of caption and
# numbers; the drawing is at least 3x the DOT source: a floor, so the estimate before the
# layout never refuses what would fit.
_LAYOUT_PER_DOT_BYTE, _STEP_OVERHEAD = 3, 40


def check_animation(frames: Frames, max_frames: int) -> None:
    """Refuse an animation with no steps, more than `max_frames`, or an estimated size over
    the limit — from the steps and the DOT alone, before `dot` or any step runs (a Frames'
    `before_layout`)."""
    n, phase = len(frames.steps), frames.phase
    if n == 0:
        raise PlayerError(
            "nothing to animate: the graph has no operations. Build an expression first, "
            "e.g. z = (x + y) * y, then call z.animate()."
        )
    why = too_many_frames(frames, max_frames)
    if why:
        raise AnimationTooLargeError(why)
    drawing = _LAYOUT_PER_DOT_BYTE * len(frames.source)
    rows = sum(len(s.text) + len(s.latex) + _STEP_OVERHEAD for s in frames.steps)
    if drawing + rows > DEFAULT_MAX_BYTES:
        per_step = rows / n
        fit = max(0, int((DEFAULT_MAX_BYTES - drawing) / per_step))
        raise AnimationTooLargeError(
            f"the {n} steps would add up to at least {(drawing + rows) / 1e6:.1f} MB of "
            f"saved state (the limit is {DEFAULT_MAX_BYTES / 1e6:g} MB, phase={phase!r})"
            f": at most {fit} steps of this drawing fit, and a notebook that large is slow "
            f"to open. {bytes_advice(frames, fit // 3)}"
        )


def check_least_frames(graph: Graph, phase: str, by: str, max_frames: int) -> None:
    """Refuse, before the trace, an animation one frame per operation whose forward pass
    alone (the inputs, then one step per operation) has more than `max_frames` steps: tracing
    MLP(2, [256, 256, 1])'s 200,000 values took a minute before the count refused them."""
    if by != "operation" or phase == "backward":
        return  # a step per neuron, or the backward pass: counted once traced
    least = sum(1 for node in graph.nodes if not node.is_leaf) + 1
    if least > max_frames:
        raise AnimationTooLargeError(
            f"at least {least} frames (phase={phase!r}) is more than max_frames={max_frames}; "
            "each step is a row of the step table saved in the notebook. "
            + frame_advice(graph, phase, by, max_frames, frames=least)
        )


def too_many_frames(frames: Frames, max_frames: int) -> str | None:
    """Why `frames` has too many steps for `max_frames`, or None if it fits."""
    n = len(frames.steps)
    if n <= max_frames:
        return None
    per_step = sum(len(s.text) + len(s.latex) + _STEP_OVERHEAD for s in frames.steps) / n
    fit = int((DEFAULT_MAX_BYTES - _LAYOUT_PER_DOT_BYTE * len(frames.source)) / per_step)
    return (
        f"{n} frames (phase={frames.phase!r}) is more than max_frames={max_frames}; "
        "each step is a row of the step table saved in the notebook. "
        + frame_advice(frames.graph, frames.phase, frames.by, max_frames, fit=fit, frames=n)
    )


def check_saved_size(frames: Frames, size: int) -> None:
    """Refuse a step table of `size` bytes, as it would be saved, over the limit."""
    if size > DEFAULT_MAX_BYTES:
        n = len(frames)
        raise AnimationTooLargeError(
            f"the {n} steps add up to {size / 1e6:.1f} MB of saved state (the limit is "
            f"{DEFAULT_MAX_BYTES / 1e6:g} MB); a notebook that large is slow to open. "
            + bytes_advice(frames, DEFAULT_MAX_BYTES * n // size)
        )


def frame_advice(
    graph: Graph,
    phase: str,
    by: str,
    max_frames: int,
    *,
    fit: int | None = None,
    frames: int | None = None,
) -> str:
    """What to do about an animation with more frames than `max_frames`, offering only what
    works: one frame per neuron (for an `nn` network), the forward pass alone, a smaller graph,
    and a larger max_frames only where all `frames` would also fit the size limit.
    `fit`: how many frames of this drawing fit in the player's size limit, if fewer.

    >>> from autograd_viz.open.snapshot import snapshot
    >>> from autograd_viz.nn import MLP
    >>> loss = (MLP(2, [16, 16, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2
    >>> frame_advice(snapshot(loss), "both", "operation", 400).split(". ")[0]
    "Animate it one frame per neuron: animate(by='neuron') makes 73 frames"
    """
    offers = []
    # `fit` comes from a floor on a frame's size; pages measured 1.4-2.5x that floor (plain,
    # collapsed and one-per-neuron frames), so an offer of these frames must fit three times
    # over. One frame per neuron is drawn one box per neuron, far smaller than these frames
    # (XOR's whole loss: 75 of its frames fit, and all 105 of one per neuron do).
    room = max_frames if fit is None else min(max_frames, fit // 3)
    if by != "neuron" and has_neurons(graph):
        n = count_neuron_steps(graph, phase)
        if n <= max_frames:
            offers.append(f"animate it one frame per neuron: animate(by='neuron') makes {n} frames")
    if by == "operation" and phase == "both":
        forward = sum(1 for node in graph.nodes if not node.is_leaf) + 1
        if forward <= room:  # within both limits
            offers.append(f"animate the forward pass alone: phase='forward' ({forward} frames)")
    fits = fit is not None and frames is not None and frames <= fit // 3
    more = f", or raise max_frames to {frames}" if fits else ""
    offers.append(f"animate a smaller graph (a sub-expression){more}")
    text = ". Or ".join(offers) + "."
    return text[0].upper() + text[1:]


def bytes_advice(frames: Frames, fit: int) -> str:
    """What to do about an animation too large to save, offering only what would fit: one
    phase, one frame per neuron; else a smaller graph or one static drawing (which the
    size guard has passed already, with these options). `fit`: frames that would fit, with
    the margin the caller's estimate needs."""
    offers = []
    graph, by = frames.graph, frames.by
    if frames.phase == "both":
        if by == "neuron":
            forward = count_neuron_steps(graph, "forward")
        else:
            forward = sum(1 for node in graph.nodes if not node.is_leaf) + 1
        counts = {"forward": forward, "backward": len(frames.steps) - forward}
        phase = min(counts, key=counts.__getitem__)
        if counts[phase] <= fit:
            offers.append(f"animate one phase: phase={phase!r} ({counts[phase]} frames)")
    if by != "neuron" and has_neurons(graph):
        n = count_neuron_steps(graph, frames.phase)
        if n <= fit:  # each shows one box per neuron: smaller than this drawing's frames
            offers.append(f"animate it one frame per neuron: by='neuron' ({n} frames)")
    offers.append(
        "animate a smaller graph (a sub-expression, or a smaller network), or use .draw() "
        "for one static picture"
    )
    text = ". Or ".join(offers) + "."
    return text[0].upper() + text[1:]
