"""The backprop player: a widget that steps through the forward and backward pass.

`Player(root)` (or `root.animate()`) shows the computation graph, the current step's
equation as math, a caption ("step 3 of 12 — forward pass") and controls. Every frame is
made in Python once, from one graphviz layout (`autograd_viz.viz.frames.Frames`), and put in a
`widgets.Stack`; the browser then switches frames by itself. The Play button, the step
slider and the step box are `jslink`ed to the Stack's `selected_index`, so playing,
dragging or stepping costs no kernel round trip — smooth on a slow Binder connection and
alive in a notebook's HTML export (nbconvert, nbviewer) with saved widget state.

Why these controls: ipywidgets' core widgets change a number in the browser in only three
ways — `Play` counts up on a timer (its ■ goes back to step 1, so it is also the
kernel-free *reset*), a slider moves (drag, or ← → on its focused handle) and a number box
steps (its ▲ ▼, or ↑ ↓ when focused). So the kernel-free Prev/Next is the step box (and the
slider's arrow keys); a focused ▶ toggles with Space like any button. The big ◀ Prev /
Next ▶ buttons and the phase selector (which swaps the whole frame set, made in Python)
talk to the kernel: one message per click, never per frame. Where no kernel is connected
(ipywidgets then marks the view `jupyter-widgets-disconnected`: an HTML export, a dead
kernel) they are hidden rather than left to do nothing. A custom front end (anywidget) could
add kernel-free buttons and page-wide shortcuts, but nbconvert's offline widget manager
does not load its code, so the player would lose its HTML export.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
from ipywidgets.widgets.widget_string import HTMLMathStyle

from autograd_viz.door import open_graph
from autograd_viz.errors import LOOKS_FOR, CycleError, GraphError
from autograd_viz.graph import Graph, snapshot
from autograd_viz.trace import Step, check_phase
from autograd_viz.viz.frames import Frames
from autograd_viz.viz.network import frame_advice
from autograd_viz.viz.options import DrawOptions, check_speed
from autograd_viz.viz.static import static_text
from autograd_viz.viz.svg import MIN_FIT_TEXT, fitted_text_px, width_px

__all__ = ["AnimationTooLargeError", "Player", "PlayerError"]

DEFAULT_MAX_FRAMES = 400
DEFAULT_MAX_BYTES = 30_000_000  # all frames' SVG + HTML together, as saved in the notebook
# A frame's page is at least ~4x the DOT source's bytes (measured from 8 to 1,914 frames,
# plain and collapsed): 3x + 500 is a floor, so the estimate never refuses what would fit.
_PAGE_PER_DOT_BYTE, _PAGE_OVERHEAD = 3, 500


class PlayerError(ValueError):
    """The player cannot animate this graph with these options (the message says why)."""


class AnimationTooLargeError(PlayerError):
    """Too many frames, or frames too big, to keep in a notebook as widget state."""


_CSS = f"<style>{static_text('player.css')}</style>"
# the keys and scrolling of static/player_keys.js, run once by an image that fails to load
_BEHAVIOUR = (
    '<img src="data:," alt="" hidden '
    f'onerror="{html.escape(static_text("player_keys.js"), quote=True)}">'
)


class Player(widgets.VBox):
    """Step through backpropagation on the graph that ends at `root`.

    Forward steps light their node orange and show its value; backward steps light it
    blue and show its gradient; values and gradients appear only once computed. All
    frames share one layout, so nodes never move.

    Args:
        root: the output Value (e.g. a loss) whose graph to animate.
        phase: "forward", "backward" or "both" (forward, then backward).
        speed: playback speed in steps per second (the slider changes it later).
        projector: larger type and a full-width graph, for a classroom projector.
        max_frames: refuse to build more frames than this (each frame is a whole SVG).
        history: how many earlier lines of the derivation each frame lists, small, above
            the current equation — the hand derivation, one line per step (0: none).
        **draw_options: passed on to `autograd_viz.viz.frames.Frames`: the trace's `digits`
            and `notation` ("blog" or "adjoint"), `by="neuron"` for one frame per neuron of
            an `nn` network (`loss.animate(by="neuron")`: MLP(2, [4, 4, 1]) is 25 frames;
            the default for `collapse="neuron"`, which `by="operation"` overrides),
            and drawing options such as `rankdir="TB"`, `fmt=".3f"`, `font_size=16` (see
            `autograd_viz.viz.options`).

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> z = (x + y) * y; z.label = "z"
    >>> player = Player(z)              # or: z.animate()
    >>> player.n_frames, player.step    # steps count from 1, as in the caption
    (9, 1)
    >>> player.step = 3                 # jump there from Python (or use the controls)
    """

    def __init__(
        self,
        root: object,
        phase: str = "both",
        *,
        speed: float = 1.0,
        projector: bool = False,
        max_frames: int = DEFAULT_MAX_FRAMES,
        history: int = 3,
        **draw_options: object,
    ) -> None:
        most = draw_options.get("max_nodes", DrawOptions.max_nodes)
        try:  # the one door: size, the one read (a snapshot passes as is)
            opened = open_graph(root, caller="Player", max_nodes=most, error=GraphError)
        except CycleError:
            raise
        except GraphError:
            opened = root  # not a graph: `_graph` says what is wrong, with a hint
        if isinstance(opened, Graph) and opened.root.is_leaf and not isinstance(root, Graph):
            opened = root  # a lone leaf: `_graph` refuses it by the learner's own repr
        graph = _graph(opened)
        check_phase(phase)
        speed = check_speed(speed, PlayerError)
        if isinstance(max_frames, bool) or not isinstance(max_frames, int) or max_frames < 1:
            raise PlayerError(f"max_frames must be a positive int, got {max_frames!r}")
        if isinstance(history, bool) or not isinstance(history, int) or history < 0:
            raise PlayerError(f"history is a number of lines (0 or more), got {history!r}")
        if not isinstance(projector, bool):  # "no" would be true: projector mode, unasked
            raise PlayerError(f"projector must be True or False, got {projector!r}")
        self.history = history
        self.root = root
        self.graph = graph  # the one read of the user's graph; every frame comes from it
        self.max_frames = max_frames
        self.draw_options = dict(draw_options)
        self.projector = bool(projector)
        self.frames = None
        self.steps: Sequence = ()

        self._make_controls(interval=min(4000, max(50, 50 * round(20 / speed))), phase=phase)
        self.prev_button.on_click(lambda _: self._go(-1))
        self.next_button.on_click(lambda _: self._go(+1))

        self._load(phase)
        self.phase_selector.observe(self._on_phase, names="value")

        style = widgets.HTML(_CSS + _BEHAVIOUR, layout=widgets.Layout(display="none"))
        row = widgets.Layout(align_items="center", flex_flow="row wrap")
        controls = widgets.HBox(
            [self.play, self.prev_button, self.next_button, self.step_box, self.slider], layout=row
        )
        settings = widgets.HBox([self.phase_selector, self.speed_slider], layout=row)
        parts = [style, self.stack, controls, settings]
        wide = _wide_graph_notice(self.frames.base_svg, self.projector)
        if wide:  # under the frames: says the graph scrolls, offers "Fit to width"
            parts.insert(2, widgets.HTML(wide, layout=self._frame_layout))
        super().__init__(parts)
        self.add_class("agv-player")
        if self.projector:
            self.add_class("agv-projector")

    # ---- public API ------------------------------------------------------------

    @property
    def n_frames(self) -> int:
        """How many frames (one per step) the current phase has."""
        return len(self.steps)

    @property
    def step(self) -> int:
        """The step on show, counted from 1 like the caption; set it to jump there."""
        return self.play.value

    @step.setter
    def step(self, number: int) -> None:
        self.play.value = self._check_step(number)

    @property
    def phase(self) -> str:
        """The phase on show: "forward", "backward" or "both" (set it to switch)."""
        return self.phase_selector.value

    @phase.setter
    def phase(self, value: str) -> None:
        check_phase(value)
        self.phase_selector.value = value

    def reset(self) -> None:
        """Pause and go back to the first step."""
        self.play.playing = False
        self.play.value = 1

    def frame_html(self, step: int) -> str:
        """The HTML of step `step`'s frame (caption, graph SVG, equation), counted from 1."""
        return self.stack.children[self._check_step(step)].value

    def close(self) -> None:
        """Close the player and every widget it made (frames, controls, links, and their
        layouts and styles), freeing their models in the kernel and the browser; the
        player disappears from the page."""
        # getattr: Widget.__del__ calls close() on a player whose __init__ raised, too
        parts: list[widgets.Widget] = [*getattr(self, "links", ())]
        todo: list[object] = [*getattr(self, "children", ()), getattr(self, "stack", None)]
        seen: set[int] = set()
        while todo:  # every widget below the player, found by walking it, not by name
            part = todo.pop()
            if not isinstance(part, widgets.Widget) or id(part) in seen:
                continue
            seen.add(id(part))
            parts.append(part)
            todo += getattr(part, "children", ())
            todo += [getattr(part, "layout", None), getattr(part, "style", None)]
        for part in parts:
            part.close()
        super().close()

    def __repr__(self) -> str:
        if not hasattr(self, "phase_selector"):  # __init__ raised before the controls
            return "<Player, not built>"
        name = self.graph.root.label or "root"
        return f"<Player of {name!r}: {self.n_frames} frames, phase={self.phase!r}>"

    # ---- building frames ---------------------------------------------------------

    def _make_controls(self, interval: int, phase: str) -> None:
        """The controls, and the jslinks that let the browser switch frames on its own.

        Controls with the same look share one Layout / Style model (fewer models to build,
        sync and save); the frames share `_frame_layout`, which is a plain Layout.
        """
        self._frame_layout = widgets.Layout()
        self._frame_style = HTMLMathStyle()
        plain = {"layout": self._frame_layout}
        button = {"layout": widgets.Layout(width="auto"), "style": widgets.ButtonStyle()}
        label_fits = widgets.SliderStyle(description_width="initial")  # never cut off
        self.play = widgets.Play(
            value=1, min=1, max=1, step=1, interval=interval, show_repeat=True,
            description="Play", tooltip="Play / pause;  ■ goes back to the first step", **plain,
        )  # fmt: skip
        self.slider = widgets.IntSlider(
            value=1, min=1, max=1, description="step", readout=True, style=label_fits,
            continuous_update=True, layout=widgets.Layout(flex="1 1 auto", min_width="220px"),
        )  # fmt: skip
        self.step_box = widgets.BoundedIntText(
            value=1, min=1, max=1, description="", continuous_update=True,
            tooltip="Previous / next step (▲ ▼ or ↑ ↓) — works without a kernel",
            layout=widgets.Layout(width="5.5em"),
        )  # fmt: skip
        self.stack = widgets.Stack(children=(), selected_index=None, **plain)
        self.step_box.add_class("agv-step")  # player_keys.js steps through it
        self.stack.add_class("agv-stack")
        self.prev_button = widgets.Button(
            description="◀ Prev", tooltip="Previous step (needs a running kernel; "
            "without one use the step box's ▼ or the slider)", **button,
        )  # fmt: skip
        self.next_button = widgets.Button(
            description="Next ▶", tooltip="Next step (needs a running kernel; "
            "without one use the step box's ▲ or the slider)", **button,
        )  # fmt: skip
        self.speed_slider = widgets.IntSlider(
            value=interval, min=50, max=4000, step=50, description="ms/step", style=label_fits,
            tooltip="Time each step stays on screen while playing",
            layout=widgets.Layout(width="260px"),
        )  # fmt: skip
        self.phase_selector = widgets.ToggleButtons(
            options=[("forward", "forward"), ("backward", "backward"), ("both", "both")],
            value=phase,
            tooltips=[
                f"{what} (switching needs a running kernel)"
                for what in ("Forward pass only", "Backward pass only", "Forward, then backward")
            ],
            style={"button_width": "auto"}, **plain,
        )  # fmt: skip
        for control in (self.prev_button, self.next_button, self.phase_selector):
            control.add_class("agv-needs-kernel")
        self.links = (
            widgets.jslink((self.play, "value"), (self.stack, "selected_index")),
            widgets.jslink((self.play, "value"), (self.slider, "value")),
            widgets.jslink((self.play, "value"), (self.step_box, "value")),
            widgets.jslink((self.play, "interval"), (self.speed_slider, "value")),
        )

    def _load(self, phase: str) -> None:
        if self.frames is None:
            check = self._check_size  # before the layout, and before any frame is built
            frames = Frames(self.graph, phase=phase, before_layout=check, **self.draw_options)
        else:
            frames = self.frames.for_phase(phase)  # same layout: no new graphviz run
            self._check_size(frames)
        n = len(frames)
        steps, h = frames.steps, self.history
        pages = [_frame_page(frames, k, steps[max(0, k - h) : k], h) for k in range(n)]
        total = sum(map(len, pages))
        if total > DEFAULT_MAX_BYTES:
            raise AnimationTooLargeError(
                f"the {n} frames add up to {total / 1e6:.0f} MB of SVG (the limit is "
                f"{DEFAULT_MAX_BYTES // 1_000_000} MB); a notebook that large is slow to open. "
                + _bytes_advice(frames, DEFAULT_MAX_BYTES * n // total)
            )
        # One Layout and one Style shared by every frame: a frame is then one widget model,
        # not three, which halves both the build time and the saved notebook state.
        shared = {"layout": self._frame_layout, "style": self._frame_style}
        # Child 0 of the Stack is an empty placeholder, so that the Stack's index, the
        # slider, the step box and the caption all count steps from 1 (jslink copies
        # numbers as they are and cannot add an offset).
        children = [widgets.HTMLMath("", **shared)]
        children += [
            widgets.HTMLMath(page, _dom_classes=("agv-frame",), **shared) for page in pages
        ]
        old = self.stack.children
        self.play.playing = False
        # New frames and step 1 reach the browser in one message, so it never shows the
        # old set's step 1 first. Step 1 is selected before the swap: a Stack whose index
        # falls past its new children resets it to None, which jslink would pass on.
        with self.stack.hold_sync():
            if len(self.stack.children) > 1:
                self.stack.selected_index = 1
            self.stack.children = children
            self.stack.selected_index = 1
        self.play.value = 1
        for control in (self.play, self.slider, self.step_box):
            control.max = n
        self.frames = frames
        self.steps = tuple(frames.steps)
        for child in old:  # the previous phase's frames: free their models in the browser
            child.close()

    def _check_size(self, frames: Frames) -> None:
        """Refuse an animation with no steps, more than max_frames, or an estimated size
        over the limit — from the steps and the DOT alone, before `dot` or any frame runs."""
        n, phase = len(frames.steps), frames.phase
        if n == 0:
            raise PlayerError(
                "nothing to animate: the graph has no operations. Build an expression first, "
                "e.g. z = (x + y) * y, then call z.animate()."
            )
        per_frame = _PAGE_PER_DOT_BYTE * len(frames.source) + _PAGE_OVERHEAD
        if n > self.max_frames:
            fit = DEFAULT_MAX_BYTES // per_frame  # a phase offered must fit this too
            raise AnimationTooLargeError(
                f"{n} frames (phase={phase!r}) is more than max_frames={self.max_frames}; each "
                "frame is a whole drawing saved in the notebook. "
                + frame_advice(frames.graph, phase, frames.by, self.max_frames, fit=fit, frames=n)
            )
        if n * per_frame > DEFAULT_MAX_BYTES:
            fit = DEFAULT_MAX_BYTES // per_frame
            raise AnimationTooLargeError(
                f"the {n} frames would add up to at least {n * per_frame / 1e6:.0f} MB of SVG "
                f"(the limit is {DEFAULT_MAX_BYTES // 1_000_000} MB): each frame of this "
                f"drawing is ~{per_frame / 1e3:.0f} KB, so at most {fit} frames fit, and a "
                f"notebook that large is slow to open. {_bytes_advice(frames, fit // 3)}"
            )

    def _check_step(self, number: object) -> int:
        n = len(self.steps)
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= n:
            raise PlayerError(f"steps are numbered 1 to {n}, got {number!r}")
        return number

    def _on_phase(self, change: dict) -> None:
        try:
            self._load(change["new"])
        except Exception:
            # keep the selector honest: it goes back to the phase whose frames are on show
            with self.phase_selector.hold_trait_notifications():
                self.phase_selector.unobserve(self._on_phase, names="value")
                self.phase_selector.value = change["old"]
                self.phase_selector.observe(self._on_phase, names="value")
            raise

    def _go(self, delta: int) -> None:
        self.play.playing = False
        self.play.value = min(max(self.play.value + delta, 1), self.n_frames)


def _frame_page(frames: Frames, index: int, earlier: Sequence[Step], history: int) -> str:
    """Frame `index`'s page: caption, the graph (MathJax skips it), the `earlier` lines of
    the derivation in plain text, and the step's equation as math. Room for the lines not
    yet written is kept under the equation, so the controls below never move and no blank
    gap opens between graph and equation."""
    step, caption, svg = frames.steps[index], frames.caption(index), frames.frame_svg(index)
    k = index + 1
    kind = f' · <span class="agv-kind">{html.escape(caption.kind)}</span>' if caption.kind else ""
    caption_html = (
        f'<div class="agv-caption">{caption.counter} — '
        f'<span class="agv-phase-{caption.phase}">{caption.title}</span>{kind}</div>'
    )
    text = html.escape(step.text, quote=True)
    latex = html.escape(step.latex, quote=False)
    equation = (
        f'<div class="agv-eq" role="math" aria-label="{text}" title="{text}" '
        f'data-text="{text}" data-step="{k}">\\[{latex}\\]</div>'
    )
    graph = f'<div class="agv-graph tex2jax_ignore" data-step="{k}">{svg}</div>'
    lines = "".join(f"<li>{html.escape(s.text, quote=False)}</li>" for s in earlier)
    past = (
        f'<ol class="agv-history tex2jax_ignore" start="{k - len(earlier)}" '
        f'aria-label="earlier steps">{lines}</ol>'
        if history
        else ""
    )
    room = history - len(earlier)
    pad = (
        f'<div class="agv-history-pad" style="height: {1.4 * room:g}em" aria-hidden="true"></div>'
        if room
        else ""
    )
    return (
        f'<div class="agv-frame-body" data-step="{k}">'
        f"{caption_html}{graph}{past}{equation}{pad}</div>"
    )


PLAYER_WIDTH = 980  # CSS px: the player's max-width outside projector mode (player.css)


def _wide_graph_notice(svg: str, projector: bool) -> str:
    """For a graph wider than the player: say that it scrolls, and offer "Fit to width"
    where the node text would stay readable; "" for a graph that fits."""
    if projector or width_px(svg) <= PLAYER_WIDTH:
        return ""
    fit = (
        '<label class="agv-fit"><input type="checkbox">Fit to width</label>'
        if fitted_text_px(svg, PLAYER_WIDTH) >= MIN_FIT_TEXT
        else ""
    )
    return (
        '<div class="agv-wide"><span class="agv-scroll-hint">⇆ This graph is wider than the '
        "player: scroll it sideways (Shift + mouse wheel); each step's node comes into view."
        f"</span>{fit}</div>"
    )


def _graph(root: object, read: dict | None = None):
    """The snapshot of `root`'s graph, or a clear error for something that cannot animate."""
    try:
        graph = snapshot(root, read=read)
    except CycleError:  # a graph, but one that loops: its own message says where
        raise
    except GraphError:
        hint = ""
        if isinstance(root, (int, float)):
            hint = " Wrap numbers in Value(...) and build an expression from them."
        elif isinstance(root, (list, tuple)):
            hint = " Animate one output at a time, e.g. Player(loss)."
        raise TypeError(f"Player needs a Value (the output of an expression), got "
                        f"{type(root).__name__}.{hint} {LOOKS_FOR}.") from None  # fmt: skip
    if graph.root.is_leaf:
        raise PlayerError(
            f"nothing to animate: {root!r} is a leaf with no operations behind it. Build an "
            "expression first, e.g. z = (x + y) * y, then call z.animate()."
        )
    return graph


def _bytes_advice(frames: Frames, fit: int) -> str:
    """What to do about an animation too large to save, offering only what would fit: one
    phase, one frame per neuron; else a smaller graph or one static drawing (which the
    size guard has passed already, with these options). `fit`: frames that would fit, with
    the margin the caller's estimate needs."""
    from autograd_viz.viz.network import count_neuron_steps, has_neurons

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
