"""The errors met when a graph is opened, traced, drawn, played or exported, in one module below
every layer that needs nothing but Python, so the graph snapshot, the size check, other engines'
readers and the viewers raise the same classes without importing one another. The modules that
raised them before re-export them under their old names
(`autograd_viz.view.render.GraphTooLargeError` is this class); each class says when it is raised,
and docs/errors.md says what each one means and what to do.
"""

from __future__ import annotations

__all__ = [
    "LOOKS_FOR",
    "OPERAND_NAMES",
    "AnimationTooLargeError",
    "BackwardTimeoutError",
    "CodeTimeoutError",
    "CycleError",
    "ExploreError",
    "ExportError",
    "FramesError",
    "FrontendError",
    "GraphError",
    "GraphTooLargeError",
    "GraphvizError",
    "GraphvizLoadingError",
    "GraphvizNotFoundError",
    "LayoutTimeoutError",
    "NetworkError",
    "NotAGraphError",
    "NotebookHTMLError",
    "NumberOutOfRangeError",
    "PlayerError",
    "QuizError",
    "SlidesError",
    "StaleGraphError",
    "TorchGraphError",
    "TorchNotInstalledError",
    "TraceError",
    "WorksheetError",
    "cycle_error",
]

# Where another engine's node keeps its operands (micrograd: `_prev`), in the order tried.
OPERAND_NAMES = ("_prev", "_children", "children", "parents", "_parents", "prev")

# What the kit looks for, said once: every "not a graph" message ends with it.
LOOKS_FOR = (
    "The kit draws any object that has `data` and `grad` and its operands under one of "
    + ", ".join(f"`{n}`" for n in OPERAND_NAMES)
    + " (its operation under `_op` or `op`, a name under `label` or `name`, both optional)"
)


class GraphError(TypeError):
    """The object given is not a graph node this package can read."""


class CycleError(GraphError):
    """A value is among its own operands: something rewrote a node's operand slots
    (`x._a = y`) after it was made, so the graph loops and no walk of it can end."""


class StaleGraphError(ValueError):
    """A value of the graph no longer follows from its operands: some `.data` was changed
    after the graph was built, so every picture of it would show an equation that is false."""


class NotAGraphError(TypeError):
    """The object is not a computation graph the kit can read; the message says what it
    looked for and what it found."""


class NumberOutOfRangeError(ValueError):
    """A node holds a whole number too large for a float (`data = 10**400`): the kit draws
    and checks floats, as the engine computes with them."""


class GraphTooLargeError(ValueError):
    """The graph has more values than a readable drawing can show."""


class BackwardTimeoutError(TimeoutError):
    """The learner's own `backward()` (or one `_backward` closure) did not return within the
    time limit; the message says where it was still running. Every `grad` is as it was."""


class CodeTimeoutError(TimeoutError):
    """A learner's function that the kit runs (explore's `f`, a code exercise's function
    under its check) did not return within the time limit; the message says where it was."""


class GraphvizNotFoundError(RuntimeError):
    """Graphviz's `dot` program is not installed (or not on PATH)."""


class GraphvizError(RuntimeError):
    """`dot` ran but failed; the message carries what it printed."""


class LayoutTimeoutError(GraphvizError):
    """`dot` ran past its time limit (`timeout=`) and was stopped; the message says what to do."""


class GraphvizLoadingError(GraphvizNotFoundError):
    """Graphviz-WASM is still loading (or failed to load): nothing can be laid out yet."""


class FramesError(RuntimeError):
    """The drawing's SVG is not in the form frames restyle (a bug to report, not a user error)."""


def cycle_error(node: object) -> CycleError:
    """The error for a graph that loops back to `node` (what to look for, and how to mend it)."""
    label = getattr(node, "label", "")
    name = f"the value labelled {label!r}" if label else repr(node)
    return CycleError(
        f"{name} is one of its own operands (directly or through others): a computation graph "
        "has no cycles, so it cannot be drawn, traced or copied. A Value's "
        "operands are fixed when the operation makes it; something set an operand slot "
        "(`_a` or `_b`) afterwards. Build the expression again from its inputs."
    )


class TraceError(ValueError):
    """The graph cannot be traced (a bad argument, or a local derivative with no value)."""


class FrontendError(ValueError):
    """The frontend choice was given in a form this package does not understand."""


class QuizError(ValueError):
    """The quiz cannot be built for this graph with these options (the message says why)."""


class SlidesError(ValueError):
    """The notebook cannot be made into slides (the message says what to change)."""


class NotebookHTMLError(ValueError):
    """The notebook cannot be exported to offline HTML (the message says what to change)."""


class ExportError(RuntimeError):
    """An export needs something that is not installed."""


class ExploreError(ValueError):
    """`explore()` was given something it cannot explore (said before any work)."""


class NetworkError(TraceError):
    """The graph has no `nn` neurons to animate neuron by neuron (the message says what to do)."""


class PlayerError(ValueError):
    """The player cannot animate this graph with these options (the message says why)."""


class AnimationTooLargeError(PlayerError):
    """Too many frames, or a step table too big, to keep in a notebook as widget state."""


class WorksheetError(ValueError):
    """This graph cannot be put on one worksheet (the message says what to do instead)."""


class TorchGraphError(ValueError):
    """A PyTorch graph the kit does not draw (yet), or one it cannot read as it is: the
    message says what is supported and what to do instead."""


class TorchNotInstalledError(ImportError):
    """PyTorch is needed (a side-by-side comparison) and is not installed."""
