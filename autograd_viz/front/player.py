"""The backprop player: `Player(root)` (or `root.animate()`) is an anywidget over the one
player module (`front/static/player.js`) showing the graph, the step's equation as math, a
caption ("step 3 of 12 — forward pass") and controls; the graph is laid out and saved once
(`autograd_viz.view.frames.Frames`) and every step of every phase is a row of a compact table
(`autograd_viz.view.steptable`), so stepping, playing, the speed and the phase switch run in
the browser without a kernel, while `step` and `phase` sync both ways; where no widget
manager runs (an nbconvert export, a static viewer) the output's kernel-free HTML — the
same module and table in the inline player, with KaTeX — plays instead.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import anywidget
import traitlets

from autograd_viz.core._checks import check_count, whole
from autograd_viz.core.errors import (
    AnimationTooLargeError,
    PlayerError,
)
from autograd_viz.core.graph import Graph, opened
from autograd_viz.core.steps import Step, check_phase
from autograd_viz.front.static import katex_css, katex_js, module_text, static_text
from autograd_viz.view.advice import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_FRAMES,
    check_animation,
    check_saved_size,
    too_many_frames,
)
from autograd_viz.view.frames import Frames
from autograd_viz.view.options import check_speed
from autograd_viz.view.steptable import payload, step_table

__all__ = [
    "DEFAULT_MAX_BYTES", "DEFAULT_MAX_FRAMES", "AnimationTooLargeError", "Player", "PlayerError",
]



class Player(anywidget.AnyWidget):
    """Step through backpropagation on a graph opened already (`autograd_viz.player.Player`,
    the public class, and `animate()` open a Value of any engine, once, and hand it here).

    Forward steps light their node orange and show its value; backward steps light it
    blue and show its gradient; values and gradients appear only once computed. All
    steps share one layout, so nodes never move.

    Args:
        graph: the graph to animate (a snapshot of a loss, say).
        phase: "forward", "backward" or "both" (forward, then backward); the player's
            phase buttons switch between them in the browser.
        speed: playback speed in steps per second (the speed menu changes it later).
        projector: larger type and a full-width graph, for a classroom projector.
        max_frames: refuse more steps than this (each is a row of the saved step table).
        history: how many earlier lines of the derivation the player lists, small, above
            the current equation — the hand derivation, one line per step (0: none).
        **draw_options: passed on to `autograd_viz.view.frames.Frames`: the trace's `digits`
            and `notation` ("blog" or "adjoint"), `by="neuron"` for one step per neuron of
            an `nn` network (`loss.animate(by="neuron")`: MLP(2, [4, 4, 1]) is 25 steps;
            the default for `collapse="neuron"`, which `by="operation"` overrides),
            and drawing options such as `rankdir="TB"`, `fmt=".3f"`, `font_size=16` (see
            `autograd_viz.view.options`).

    >>> from autograd_viz import Value
    >>> from autograd_viz.open.snapshot import snapshot
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> z = (x + y) * y; z.label = "z"
    >>> player = Player(snapshot(z))    # or: z.animate()
    >>> player.n_frames, player.step    # steps count from 1, as in the caption
    (9, 1)
    >>> player.step = 3                 # jump there from Python (or use the controls)
    """

    _esm = module_text()
    _css = static_text("player.css")
    data = traitlets.Dict().tag(sync=True)  # the step table (view/steptable.py)
    step = traitlets.Any(1).tag(sync=True)  # the step on show, counted from 1 (checked below)
    phase = traitlets.Unicode("both").tag(sync=True)  # the phase on show

    def __init__(
        self,
        graph: Graph,
        phase: str = "both",
        *,
        speed: float = 1.0,
        projector: bool = False,
        max_frames: int = DEFAULT_MAX_FRAMES,
        history: int = 3,
        **draw_options: object,
    ) -> None:
        public = "autograd_viz.player.Player(root) or z.animate()"
        graph = opened(graph, "this Player plays", public)
        if graph.root.is_leaf:
            raise PlayerError(
                f"nothing to animate: {graph.root.shown} is a leaf with no operations behind it. "
                "Build an expression first, e.g. z = (x + y) * y, then call z.animate()."
            )
        check_phase(phase)
        speed = check_speed(speed, PlayerError)
        max_frames = check_count(max_frames, "max_frames", PlayerError)
        lines = whole(history)
        if lines is None or lines < 0:
            raise PlayerError(f"history is a number of lines (0 or more), got {history!r}")
        history = lines
        if not isinstance(projector, bool):  # "no" would be true: projector mode, unasked
            raise PlayerError(f"projector must be True or False, got {projector!r}")
        self.history = history
        self.graph = graph  # the one read of the user's graph; every step comes from it
        self.max_frames = max_frames
        self.draw_options = dict(draw_options)
        self.projector = projector
        self.interval = int(min(4000, max(50, 50 * round(20 / speed))))  # ms a step is on show
        # the count and the size estimate come before the layout, and before any step is built
        frames = Frames(graph, phase=phase, before_layout=self._check_size,
                        max_frames=max_frames, **self.draw_options)  # fmt: skip
        table = step_table(
            frames, fits=self._refusal, history=history, interval=self.interval,
            projector=projector,
        )  # fmt: skip
        check_saved_size(frames, len(payload(table).encode("utf-8")))
        self._frames = {phase: frames}
        self.frames = frames
        super().__init__(data=table, step=1, phase=phase)
        self.on_msg(self._on_message)

    # ---- public API ------------------------------------------------------------

    @property
    def steps(self) -> Sequence[Step]:
        """The steps of the phase on show, in order."""
        return tuple(self.frames.steps)

    @property
    def n_frames(self) -> int:
        """How many steps (frames) the current phase has."""
        return len(self.data["phases"][self.phase])

    @property
    def phases(self) -> tuple[str, ...]:
        """The phases this player can show (a phase too long for max_frames is left out)."""
        return tuple(self.data["phases"])

    def next(self) -> None:
        """Show the next step (stays on the last one)."""
        self.step = min(self.step + 1, self.n_frames)

    def prev(self) -> None:
        """Show the previous step (stays on the first one)."""
        self.step = max(self.step - 1, 1)

    def reset(self) -> None:
        """Pause and go back to the first step."""
        self.send({"pause": True})
        self.step = 1

    def frame_html(self, step: int) -> str:
        """What step `step` (counted from 1) shows — caption, graph SVG, earlier lines and
        the equation — as one HTML fragment, made on demand (the player saves only the table)."""
        k = self._check_step(step) - 1
        h = self.history
        return _frame_page(self.frames, k, self.frames.steps[max(0, k - h) : k], h)

    def _repr_mimebundle_(self, **kwargs: object) -> tuple[dict, dict] | None:
        """The widget view, plus a kernel-free HTML player of the same table for places
        with no widget manager (an nbconvert HTML export): it plays offline, maths included."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle
        from autograd_viz.front.inline import inline_html

        data["text/html"] = inline_html(self.table_for(self.phase, self.step), katex="packed")
        return data, metadata

    def table_for(self, phase: str, step: int = 1) -> dict:
        """The step table, starting on `phase` at `step` (for the kernel-free player)."""
        return {**self.data, "phase": phase, "start": step}

    def __repr__(self) -> str:
        if not hasattr(self, "frames"):  # __init__ raised before the steps were made
            return "<Player, not built>"
        name = self.graph.root.label or "root"
        return f"<Player of {name!r}: {self.n_frames} frames, phase={self.phase!r}>"

    # ---- checks and sync -----------------------------------------------------------

    @traitlets.validate("step")
    def _valid_step(self, proposal: dict) -> int:
        return self._check_step(proposal["value"])

    @traitlets.validate("phase")
    def _valid_phase(self, proposal: dict) -> str:
        phase = proposal["value"]
        check_phase(phase)
        if self.data and phase not in self.data["phases"]:
            raise AnimationTooLargeError(self.data["refused"][phase])
        return phase

    @traitlets.observe("phase")
    def _on_phase(self, change: dict) -> None:
        """Another phase: the same layout and table, its own steps (no new `dot` run)."""
        phase = change["new"]
        if phase not in self._frames:
            self._frames[phase] = self.frames.for_phase(phase)
        self.frames = self._frames[phase]
        self.step = 1  # a phase starts at its first step

    def _on_message(self, _widget: object, content: dict, _buffers: object) -> None:
        """The front end asks once per page for KaTeX (too big to save with every player)."""
        if isinstance(content, dict) and content.get("want") == "katex":
            self.send({"katex": katex_js(), "css": katex_css()})

    def _check_size(self, frames: Frames) -> None:
        check_animation(frames, self.max_frames)  # before the layout

    def _refusal(self, frames: Frames) -> str | None:
        return too_many_frames(frames, self.max_frames)

    def _check_step(self, number: object) -> int:
        n = self.n_frames
        step = whole(number)
        if step is None or not 1 <= step <= n:
            raise PlayerError(f"steps are numbered 1 to {n}, got {number!r}")
        return step


def _frame_page(frames: Frames, index: int, earlier: Sequence[Step], history: int) -> str:
    """Frame `index`'s page: caption, the graph (MathJax skips it), the `earlier` lines of
    the derivation in plain text, and the step's equation as math. Room for the lines not
    yet written is kept under the equation, so the controls below never move and no blank
    gap opens between graph and equation."""
    step, caption, svg = frames.steps[index], frames.caption(index), frames.frame_svg(index)
    k = index + 1
    caption_html = (  # the pieces the player shows, the title coloured by its phase
        f'<div class="avz-caption">{html.escape(caption.lead, quote=False)}'
        f'<span class="avz-phase-{caption.phase}">{html.escape(caption.title, quote=False)}'
        f"</span>{html.escape(caption.tail, quote=False)}</div>"
    )
    text = html.escape(step.text, quote=True)
    latex = html.escape(step.latex, quote=False)
    equation = (
        f'<div class="avz-eq" role="math" aria-label="{text}" title="{text}" '
        f'data-text="{text}" data-step="{k}">\\[{latex}\\]</div>'
    )
    graph = f'<div class="avz-graph tex2jax_ignore" data-step="{k}">{svg}</div>'
    lines = "".join(f"<li>{html.escape(s.text, quote=False)}</li>" for s in earlier)
    past = (
        f'<ol class="avz-history tex2jax_ignore" start="{k - len(earlier)}" '
        f'aria-label="earlier steps">{lines}</ol>'
        if history
        else ""
    )
    room = history - len(earlier)
    pad = (
        f'<div class="avz-history-pad" style="height: {1.4 * room:g}em" aria-hidden="true"></div>'
        if room
        else ""
    )
    return (
        f'<div class="avz-frame-body" data-step="{k}">'
        f"{caption_html}{graph}{past}{equation}{pad}</div>"
    )
