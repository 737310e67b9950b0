"""The widget-free player inline in a notebook, and the choice between it and the widget:
ipywidgets 8 needs a widget manager in the page, which JupyterLab 4 and Notebook 7 have and
Google Colab, VS Code without a working widget manager and static viewers (nbviewer, GitHub,
a slide deck) lack — there `animate(root)` shows the standalone page of
`autograd_viz.export` in an `<iframe srcdoc>` (its script and keys never meet the
notebook's own; no kernel, no network), chosen per call with `widgets=True/False` or per
session with the environment variable `AUTOGRAD_VIZ_WIDGETS=0` (or `1`).

>>> from autograd_viz import Value, animate
>>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
>>> z = (x + y) * y
>>> player = animate(z, widgets=False)
>>> player.n_frames, "<iframe" in player._repr_html_()
(9, True)
"""

from __future__ import annotations

import html
import os
import sys
from typing import Any

from autograd_viz.core._checks import check_count, whole
from autograd_viz.core.errors import FrontendError, PlayerError
from autograd_viz.core.graph import Graph, opened
from autograd_viz.view.advice import DEFAULT_MAX_FRAMES, check_animation, check_saved_size

__all__ = ["WIDGETS_ENV", "InlinePlayer", "inline_html", "widgets_render"]

WIDGETS_ENV = "AUTOGRAD_VIZ_WIDGETS"
_YES, _NO = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def widgets_render() -> bool:
    """Whether ipywidgets 8 widgets can be expected to render where this kernel runs.

    `AUTOGRAD_VIZ_WIDGETS=1` or `=0` decides if set (true/false, yes/no, on/off too, in any
    case). Otherwise False in Google Colab (its widget manager is not ipywidgets 8's) and
    True everywhere else: JupyterLab 4 and Notebook 7 render widgets, and a kernel cannot
    see whether a VS Code window has a working widget manager (set the variable to 0 there
    if players show nothing).
    """
    setting = os.environ.get(WIDGETS_ENV, "").strip().lower()
    if setting in _YES:
        return True
    if setting in _NO:
        return False
    if setting:
        raise FrontendError(
            f"{WIDGETS_ENV}={os.environ[WIDGETS_ENV]!r} is not understood: set it to 1 "
            "(widgets) or 0 (the widget-free player) — true/false, yes/no and on/off work too, "
            "in any case — or unset it to let autograd_viz choose"
        )
    return "google.colab" not in sys.modules


# Inline, the page sits under the notebook's own heading: no title of its own, less margin.
_INLINE_CSS = "body{margin:4px 8px}h1{display:none}"


class InlinePlayer:
    """The one player (`front/static/player.js`) on a page of its own, shown inline in a
    notebook output (no widgets).

    Same steps, captions and equations as the widget; steps with its own buttons, the
    slider, and keys once clicked: → / PageDown next, ← / PageUp previous, Space play,
    Home / End first / last (a presenter's remote sends PageUp/PageDown).

    Args:
        graph: the graph to animate, opened already (`animate()` opens a Value of any
            engine, once, and hands it here).
        phase: "forward", "backward" or "both".
        projector: larger type for a classroom projector.
        height: the frame's height in CSS pixels (default: enough for the page).
        katex: write KaTeX into the page, so the equations are typeset where nothing
            around it has KaTeX (~0.4 MB); by default they use the KaTeX of the page around
            the frame (a slide deck, an offline notebook page), else show as text.
        max_frames: refuse more steps than this, before the layout (as the widget does: each
            step is a row of the page saved in the notebook).
        **options: the page's options (`title`, `interval`) and drawing options.
    """

    def __init__(
        self,
        graph: Graph,
        phase: str = "both",
        *,
        projector: bool = False,
        height: int | None = None,
        katex: bool = False,
        max_frames: int = DEFAULT_MAX_FRAMES,
        **options: Any,
    ) -> None:
        from autograd_viz.front.page import PAGE_HISTORY
        from autograd_viz.view.frames import Frames
        from autograd_viz.view.steptable import payload, step_table

        graph = opened(graph, "this InlinePlayer plays", "autograd_viz.animate(z, widgets=False)")
        pixels = None if height is None else whole(height)
        if height is not None and (pixels is None or not 100 <= pixels <= 10_000):
            raise ValueError(f"height is in CSS pixels (100 to 10000), got {height!r}")
        height = pixels
        if not isinstance(projector, bool):  # "no" would be true: projector mode, unasked
            raise ValueError(f"projector must be True or False, got {projector!r}")
        max_frames = check_count(max_frames, "max_frames", PlayerError)
        title = options.pop("title", "Backpropagation, step by step")
        interval = options.pop("interval", 1.2)
        if not (isinstance(interval, (int, float)) and 0.05 <= interval <= 60):
            raise ValueError(f"interval must be seconds between 0.05 and 60, got {interval!r}")
        self.graph = graph
        self.frames = Frames(graph, phase=phase, **options, max_frames=max_frames,
                             before_layout=lambda f: check_animation(f, max_frames))  # fmt: skip
        self.projector = projector
        self.katex = bool(katex)
        self.table = step_table(
            self.frames, history=PAGE_HISTORY, interval=round(interval * 1000),
            projector=projector, title=title,
        )  # fmt: skip
        check_saved_size(self.frames, len(payload(self.table).encode("utf-8")))
        self.height = height

    @property
    def n_frames(self) -> int:
        """How many frames (one per step) the player has."""
        return len(self.frames)

    def _repr_html_(self) -> str:
        return inline_html(self.table, katex=self.katex, height=self.height)

    def __repr__(self) -> str:
        name = self.graph.root.label or "root"
        return f"<InlinePlayer of {name!r}: {self.n_frames} frames (widget-free)>"


def inline_html(
    table: dict[str, Any], *, katex: bool | str = False, height: int | None = None
) -> str:
    """The kernel-free player of a step table, as one `<iframe srcdoc>`: the page of
    `autograd_viz.front.page`, so its script, styles and keys never meet the notebook's own."""
    from autograd_viz.front.page import page_from_table

    page = page_from_table(table, title=table.get("title") or "Backpropagation, step by step",
                           projector=bool(table.get("projector")), katex=katex)  # fmt: skip
    # Same-origin srcdoc: the frame's onload sizes it to its page (no script needed
    # where inline handlers are blocked: then the fixed fallback height holds).
    # A hidden frame (a slide not on show) measures 0: it keeps its height till shown.
    fallback = height or 640
    fit = (
        ""
        if height
        else (
            "var h=this.contentDocument&&this.contentDocument.documentElement.scrollHeight;"
            "if(h)this.style.height=(h+4)+'px'"
        )
    )
    page = page.replace("</head>", f"<style>{_INLINE_CSS}</style></head>", 1)
    return (
        f'<iframe class="avz-inline" title="Backpropagation player" '
        f'srcdoc="{html.escape(page, quote=True)}" '
        f'style="width:100%;height:{fallback}px;border:0;display:block" '
        f'onload="{fit}"></iframe>'
    )
