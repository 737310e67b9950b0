"""What to do about an animation too large to play or to save, offering only what would work
for this graph: one frame per neuron (for an `nn` network, drawn one box per neuron), one phase
alone, a smaller graph, or a larger `max_frames` where every frame would still fit the player's
size limit. The player asks here when it refuses an animation, before any `dot` run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autograd_viz.core.graph import Graph
from autograd_viz.view.collapse import has_neurons
from autograd_viz.view.network import count_neuron_steps

if TYPE_CHECKING:
    from autograd_viz.view.frames import Frames

__all__ = ["bytes_advice", "frame_advice"]


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
