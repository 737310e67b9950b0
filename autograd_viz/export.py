"""Static forms of the animation, for printing, slides and places without widgets, gathered in one
module, and the entry of each: `filmstrip` (`exports/filmstrip.py`), `save_html` (the standalone
page, `front/page.py`), `save_svg_animation` and `save_gif` (`exports/animation.py`) and the
printable `save_worksheet` (`exports/worksheet.py`) take a `Value` of any engine, opened here once
(a graph snapshot passes as is; the animations also take existing `Frames`), draw from one layout
and say the same caption as the widget (`Frames.caption`); `save_notebook_html`
(`exports/notebook_html.py`) writes a whole notebook. None needs a kernel or the network to be
viewed."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from autograd_viz.core._checks import check_count
from autograd_viz.core.graph import Graph
from autograd_viz.exports import animation
from autograd_viz.exports import filmstrip as _filmstrip
from autograd_viz.exports import worksheet as _worksheet
from autograd_viz.exports.animation import ExportError
from autograd_viz.exports.filmstrip import Filmstrip
from autograd_viz.exports.notebook_html import NotebookHTMLError, save_notebook_html
from autograd_viz.exports.worksheet import DEFAULT_MAX_NODES, Worksheet, WorksheetError
from autograd_viz.front import page
from autograd_viz.open.door import open_graph
from autograd_viz.view.frames import Frames
from autograd_viz.view.options import DrawOptions

__all__ = [
    "ExportError",
    "Filmstrip",
    "NotebookHTMLError",
    "Worksheet",
    "WorksheetError",
    "filmstrip",
    "save_gif",
    "save_html",
    "save_notebook_html",
    "save_svg_animation",
    "save_worksheet",
    "standalone_html",
    "svg_animation",
    "worksheet",
]

Export = TypeVar("Export", bound=Callable[..., Any])


def _opening(export: Export) -> Export:
    """`export`, which shows a graph opened already or Frames, taking a Value of any engine
    too: opened here, once, counted against its `max_nodes` before it is read."""

    @functools.wraps(export)
    def entry(source: object, *args: Any, **options: Any) -> Any:
        if not isinstance(source, (Graph, Frames)):
            most = options.get("max_nodes", DrawOptions.max_nodes)
            source = open_graph(source, caller=f"{export.__name__}()", max_nodes=most,
                                needs="a Value or Frames", check=True)  # fmt: skip
        return export(source, *args, **options)

    return entry  # type: ignore[return-value]


svg_animation = _opening(animation.svg_animation)
save_svg_animation = _opening(animation.save_svg_animation)
save_gif = _opening(animation.save_gif)
filmstrip = _opening(_filmstrip.filmstrip)
standalone_html = _opening(page.standalone_html)
save_html = _opening(page.save_html)


def worksheet(root: object, *, max_nodes: int = DEFAULT_MAX_NODES, **options: Any) -> Worksheet:
    """The worksheet of `root`'s graph (see `autograd_viz.exports.worksheet.worksheet` for the
    options), opened here once; a graph of more than `max_nodes` values is refused before it
    is read.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> worksheet((x + y) * y).lines[0]
    'x + y = __________'
    """
    return _worksheet.worksheet(_sheet_graph(root, max_nodes), **options)


def save_worksheet(root: object, path: str | Path, *, max_nodes: int = DEFAULT_MAX_NODES,
                   **options: Any) -> Path:  # fmt: skip
    """Write the worksheet (`key=True`: the answer key) of `root`'s graph to `path` (.pdf or
    .html); see `autograd_viz.exports.worksheet.save_worksheet`."""
    return _worksheet.save_worksheet(_sheet_graph(root, max_nodes), path, **options)


def _sheet_graph(root: object, max_nodes: int) -> Graph:
    max_nodes = check_count(max_nodes, "max_nodes", WorksheetError)  # before any reading
    return open_graph(root, caller="save_worksheet", max_nodes=max_nodes)  # counted first
