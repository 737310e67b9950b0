"""Training you can watch: `TrainingView(model, xs, ys, steps=100)` shows, and keeps up to date
while a training loop runs (`view.update(step, loss)`), a progress bar, the loss curve, the
decision boundary of a two-input classifier and one sample's graph drawn one box per neuron; what
is on screen when the loop ends stays in the saved notebook. A ReLU neuron whose input is ≤ 0 for
every sample is dead (its output always 0, no gradient through it): `dead_neurons` finds them and
`draw_network` marks them with a dashed grey outline, the word "dead" and a legend row, so the mark
reads without colour.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from autograd_viz.core._checks import as_count, whole
from autograd_viz.core._numbers import format_number
from autograd_viz.core.derive import derive
from autograd_viz.core.graph import Graph
from autograd_viz.open.size import neurons_within
from autograd_viz.open.snapshot import snapshot
from autograd_viz.view import dot as _dot
from autograd_viz.view.options import DrawOptions
from autograd_viz.view.palette import COLORS
from autograd_viz.view.render import Drawing, drawing

__all__ = ["DEAD_FILL", "Plots", "TrainingView", "dead_neurons", "draw_network", "squared_error"]

DEAD_FILL = COLORS["dead"]  # grey: the neuron takes no part
DEAD_BORDER = COLORS["dead-border"]
_CAPTION = re.compile(r"^label=<(.*)> labelloc=b labeljust=l;$", re.M)


def squared_error(prediction: Any, target: float) -> Any:
    """(prediction − target)², the loss `draw_network` and `TrainingView` use by default."""
    return (prediction - target) ** 2


def _natural(name: str) -> list[object]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def dead_neurons(
    model: Callable[[Sequence[float]], Any], xs: Sequence[Sequence[float]]
) -> list[str]:
    """The names of the ReLU neurons whose input is ≤ 0 for every sample in `xs`.

    >>> from autograd_viz import MLP
    >>> dead_neurons(MLP(2, [4, 4, 1], seed=24), [[0, 0], [0, 1], [1, 0], [1, 1]])
    ['L3.n1']
    """
    alive: dict[str, bool] = {}
    for x in xs:
        graph = snapshot(model([float(v) for v in x]))
        for node in graph.nodes:
            if node.tag is not None and node.op == "ReLU":
                z = graph.nodes[node.operands[0]].data
                alive[node.tag] = alive.get(node.tag, False) or z > 0
    return sorted((name for name, ok in alive.items() if not ok), key=_natural)


def draw_network(
    model: Callable[[Sequence[float]], Any],
    xs: Sequence[Sequence[float]],
    ys: Sequence[float],
    *,
    sample: int = 0,
    loss: Callable[[Any, float], Any] = squared_error,
    **options: Any,
) -> Drawing:
    """One sample's loss graph, one box per neuron, with the gradients it has now and the
    dead ReLUs (over all of `xs`) marked. The model's own `.grad`s are not touched: the
    gradients come from a trace of the graph.

    >>> from autograd_viz import MLP
    >>> d = draw_network(MLP(2, [4, 4, 1], seed=24), [[0, 0], [1, 1]], [0, 0], sample=1)
    >>> "dead" in d.source
    True
    """
    sample = _sample_index(xs, sample)
    shown = DrawOptions.of(**{"collapse": "neuron", "show_grad": True, **options})
    root = loss(model([float(v) for v in xs[sample]]), ys[sample])
    read = neurons_within(root, shown.max_nodes)  # one box per neuron: too many refused here
    graph = snapshot(root, read=read or None)
    # the gradients one backward pass from the loss gives (the snapshot ran it once, on
    # fresh gradients); derived again only where a rule had no finite value
    if graph.once is not None:  # a constant's gradient is not drawn, as the derivation has none
        graph = graph.with_grads({n.index: graph.once[n.index] for n in graph.nodes
                                  if n.role != "const"})  # fmt: skip
    else:
        graph = graph.with_grads(derive(graph, "backward")[-1].grads)
    drawn = drawing(graph, shown)
    dead = set(dead_neurons(model, xs))
    if dead:
        drawn.source = _mark_dead(drawn.source, graph, dead, len(xs))
    return drawn


def _mark_dead(source: str, graph: Graph, dead: set[str], samples: int) -> str:
    """DOT `source` with the boxes of dead neurons restyled and a legend row for them (later
    DOT statements about a node override its attributes, so the marks are appended)."""
    extra = []
    for node in graph.nodes:
        if node.tag in dead and f'v{node.index} [id="v{node.index}"' in source:
            label = _dot.neuron_label(node.tag, "ReLU · dead", format_number(node.data),
                                      format_number(node.grad))  # fmt: skip
            extra.append(
                f'v{node.index} [class="neuron dead" label={label} style="rounded,filled,dashed" '
                f'color="{DEAD_BORDER}" fillcolor="{DEAD_FILL}" penwidth=2.5];'
            )
    if not extra:
        return source
    row = (
        f'<TABLE BORDER="0" CELLSPACING="4" CELLPADDING="3"><TR>'
        f'<TD BORDER="2" STYLE="rounded,dashed" COLOR="{DEAD_BORDER}" BGCOLOR="{DEAD_FILL}">'
        f'dead</TD><TD ALIGN="LEFT">dead ReLU: its input is ≤ 0 on all {samples} samples, so '
        "its output is always 0 and no gradient passes through it</TD></TR></TABLE>"
    )
    found = _CAPTION.search(source)
    if found:  # keep the drawing's own caption (a legend, a note) below the row
        row = (
            '<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0">'
            f'<TR><TD ALIGN="LEFT">{row}</TD></TR>'
            f'<TR><TD ALIGN="LEFT">{found.group(1)}</TD></TR></TABLE>'
        )
        source = source[: found.start()] + source[found.end() + 1 :]
    extra.append(f"label=<{row}> labelloc=b labeljust=l;")
    end = source.rfind("}")  # the digraph's closing brace
    return source[:end] + "\n".join(extra) + "\n" + source[end:]


class TrainingView:
    """Watch a two-input network train (see the module docstring).

    Create it before the loop (it shows itself), then call `update(step, loss)` after each
    step; it redraws every `every` steps and at the last one. `sample` picks the data point
    whose graph is drawn.

    >>> from autograd_viz import MLP
    >>> view = TrainingView(MLP(2, [4, 4, 1], seed=26), [[0, 0], [1, 1]], [0, 0], steps=2,
    ...                     show=False)
    >>> view.update(1, 0.3); view.update(2, 0.2); view.losses
    [0.3, 0.2]
    """

    def __init__(
        self,
        model: Callable[[Sequence[float]], Any],
        xs: Sequence[Sequence[float]],
        ys: Sequence[float],
        *,
        steps: int,
        sample: int = 0,
        every: int = 10,
        loss: Callable[[Any, float], Any] = squared_error,
        title: str = "",
        show: bool = True,
    ) -> None:
        import ipywidgets as widgets

        total, each = as_count(steps), as_count(every)
        if total is None:
            raise ValueError(f"steps is the number of training steps (>= 1), got {steps!r}")
        if each is None:
            raise ValueError(f"every is a number of steps (>= 1), got {every!r}")
        steps, every = total, each
        if not callable(model):
            raise TypeError(
                f"TrainingView needs the model to call on each point (e.g. an MLP), got "
                f"{type(model).__name__}: {str(model)[:60]}"
            )
        if not len(xs) or len(xs) != len(ys):  # zip would drop the unpaired ones unseen
            raise ValueError(
                f"xs and ys pair up, one target per point: got {len(xs)} points and {len(ys)} "
                "targets. Pass both lists whole, e.g. xs=[[0, 0], [0, 1]], ys=[0, 1]"
            )
        sample = _sample_index(xs, sample)
        _check_two_inputs_one_output(model, xs, sample)
        self.model, self.xs, self.ys = model, xs, ys
        self.steps, self.sample, self.every, self.loss, self.title = (
            steps,
            sample,
            every,
            loss,
            title,
        )
        self.losses: list[float] = []
        self.progress = widgets.IntProgress(
            value=0, min=0, max=steps, description=f"step 0 of {steps}",
            style={"description_width": "initial"}, layout=widgets.Layout(width="420px"),
        )  # fmt: skip
        self._handles: list[Any] = []
        if show:
            from IPython.display import display

            display(self.progress)
            self._handles = [display(self.plots(), display_id=True),
                             display(_Steady(self.drawing()), display_id=True)]  # fmt: skip

    def update(self, step: int, loss: float) -> None:
        """Record the loss after `step` (counted from 1); redraw when it is time."""
        self.losses.append(float(loss))
        self.progress.value = min(step, self.steps)
        self.progress.description = f"step {min(step, self.steps)} of {self.steps}"
        if self._handles and (step % self.every == 0 or step >= self.steps):
            self._handles[0].update(self.plots())
            self._handles[1].update(_Steady(self.drawing()))

    def drawing(self) -> Drawing:
        """The drawn sample's graph with its current gradients, dead ReLUs marked."""
        return draw_network(self.model, self.xs, self.ys, sample=self.sample, loss=self.loss)

    def plots(self) -> Plots:
        """The loss curve and the decision boundary as a picture that shows itself (PNG)."""
        import io

        buffer = io.BytesIO()
        self.figure().savefig(buffer, format="png", dpi=90)
        # one text for every update: a saved notebook shows the last picture, and a checker
        # that replays the cell sees only the first display's text
        return Plots(
            buffer.getvalue(), "<Training plots: the loss so far and the decision boundary>"
        )

    def figure(self) -> Any:
        """The loss curve so far beside the decision boundary (a matplotlib Figure)."""
        from matplotlib.figure import Figure

        fig = Figure(figsize=(9, 3.6))
        ax_loss, ax_map = fig.subplots(1, 2)
        ax_loss.plot(range(1, len(self.losses) + 1), self.losses, color=COLORS["curve"], lw=2)
        ax_loss.set_xlim(0, self.steps)
        ax_loss.set_xlabel("training step")
        ax_loss.set_ylabel("loss")
        last = f": {self.losses[-1]:.2g}" if self.losses else ""
        ax_loss.set_title(f"loss{last}")
        ax_loss.grid(alpha=0.3)
        boundary(self.model, self.xs, self.ys, ax_map)
        if self.title:
            fig.suptitle(self.title)
        fig.tight_layout()
        return fig


def _sample_index(xs: Sequence[Any], sample: object) -> int:
    """`sample` as an index into `xs` (a whole number, numpy's too; not a bool, which Python
    would take as 0 or 1), else an IndexError naming the indices there are."""
    index = whole(sample)
    if index is None or not 0 <= index < len(xs):
        raise IndexError(f"sample must be an index into xs (0..{len(xs) - 1}), got {sample!r}")
    return index


def _check_two_inputs_one_output(model: Callable[..., Any], xs: Sequence[Any], sample: int) -> None:
    """Refuse, before anything is shown, a model the view cannot picture: the decision
    boundary is a map of the plane (two inputs) coloured by one output (`sample`: an index
    `_sample_index` has checked)."""
    nin = getattr(model, "nin", None)
    if isinstance(nin, int) and nin != 2:
        raise ValueError(
            f"TrainingView draws the decision boundary of a two-input model over the plane, "
            f"and this model takes {nin} input{'s' * (nin != 1)}; train a model with two "
            "inputs, e.g. MLP(2, [4, 4, 1]), or for this one plot the losses yourself"
        )
    for i, x in enumerate(xs):
        if isinstance(x, (str, bytes)) or not hasattr(x, "__len__") or len(x) != 2:
            raise ValueError(
                f"TrainingView plots each point on the plane, so every point in xs has two "
                f"numbers (x1, x2); xs[{i}] is {x!r}. Pass e.g. xs=[[0, 0], [0, 1]]"
            )
    out = model([float(v) for v in xs[sample]])
    if not hasattr(out, "data") or isinstance(out, (list, tuple)):
        count = f"{len(out)} values" if isinstance(out, (list, tuple)) else type(out).__name__
        raise ValueError(
            f"TrainingView colours the plane by the model's one output (a score per point), "
            f"and this model returns {count}; give it one output, e.g. MLP(2, [4, 4, 1])"
        )


class _Steady:
    """A drawing shown with the same kinds of output on every update (SVG, HTML in a box
    that scrolls sideways, text), whatever its width: a notebook checker that replays the
    cell compares the first display with the last one saved."""

    def __init__(self, drawing: Drawing) -> None:
        self.drawing = drawing

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        bundle = self.drawing._repr_mimebundle_(include, exclude)
        if "image/svg+xml" in bundle:  # one wrapper, whether or not the drawing is wide
            svg = bundle["image/svg+xml"]
            bundle["text/html"] = f'<div style="overflow-x: auto; max-width: 100%">{svg}</div>'
        return bundle

    def __repr__(self) -> str:
        return repr(self.drawing)


class Plots:
    """A rendered picture of the plots: PNG bytes that Jupyter shows, and a short text form
    (no figure object is kept, so nothing is drawn twice at the end of a cell)."""

    def __init__(self, png: bytes, text: str) -> None:
        self.png, self.text = png, text

    def _repr_png_(self) -> bytes:
        return self.png

    def __repr__(self) -> str:
        return self.text


def boundary(
    model: Callable[[Sequence[float]], Any],
    xs: Sequence[Sequence[float]],
    ys: Sequence[float],
    ax: Any,
    *,
    points: int = 21,
    threshold: float = 0.5,
) -> None:
    """Colour the plane by the model's answer (orange: above `threshold`, blue: below) and mark
    the samples: ● for target 1, ✖ for target 0 — shapes, so it reads without colour."""
    lows = [min(float(x[k]) for x in xs) - 0.5 for k in (0, 1)]
    highs = [max(float(x[k]) for x in xs) + 0.5 for k in (0, 1)]
    us = [lows[0] + (highs[0] - lows[0]) * i / (points - 1) for i in range(points)]
    vs = [lows[1] + (highs[1] - lows[1]) * i / (points - 1) for i in range(points)]
    zz = [[float(model([u, v]).data > threshold) for u in us] for v in vs]
    below_above = [COLORS["backward"], COLORS["forward"]]
    ax.contourf(us, vs, zz, levels=[-0.5, 0.5, 1.5], colors=below_above, alpha=0.5)
    for x, t in zip(xs, ys):
        ax.scatter(float(x[0]), float(x[1]), s=120, marker="o" if t > threshold else "X",
                   c="black", zorder=3)  # fmt: skip
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title("orange: predicts 1, blue: predicts 0")
    ax.set_aspect("equal")
