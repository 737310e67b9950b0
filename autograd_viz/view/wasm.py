"""Graphviz compiled to WebAssembly: how the browser edition (JupyterLite), which has no `dot`
program, lays out pictures (`layout.run_dot` asks here under Pyodide). `@hpcc-js/wasm-graphviz`
ships inside the package as `graphviz_wasm.js` (put there when `scripts/lite.sh` builds the site's
wheel, so loading it makes no request); `import autograd_viz` starts loading it in the background
(about a second), after which every layout is one synchronous call, and a drawing asked for before
then waits where the browser can pause Python (JSPI), or else says in one line to run the cell
again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from importlib import resources

from autograd_viz.core.errors import GraphvizError, GraphvizLoadingError
from autograd_viz.view.dot import NODE_MARGIN

__all__ = ["FORMATS", "GraphvizLoadingError", "run_dot", "start_loading"]

ENGINE_FILE = "graphviz_wasm.js"
# What Graphviz-WASM can write: no Cairo inside, so no PNG or PDF.
FORMATS = ("svg", "dot", "json", "plain")
# Graphviz-WASM has no font library: it sizes text from a built-in table of Arial widths, and
# the browser's Arial (Liberation Sans on Linux) runs a little wider — "grad 0.09546" at 12 pt
# ended 0.8 px past its node's border in Chromium. Nodes laid out here get 0.03 in (2 pt) more
# room on each side, so every label stays inside its box.
_BROWSER_NODE_MARGIN = "0.08,0.03"

_graphviz = None  # the loaded Graphviz (a JsProxy), once ready
_loading: asyncio.Future | None = None


def start_loading(loaded: Awaitable | None = None) -> None:
    """Begin loading Graphviz-WASM in the background, once; returns at once.

    A page that loads Graphviz-WASM itself, in parallel with Python (the playground), passes
    the promise of its `Graphviz.load()` as `loaded`: the copy inside the package is not read.
    """
    global _loading
    if _loading is None:
        _loading = asyncio.ensure_future(_load() if loaded is None else _given(loaded))


async def _given(loaded: Awaitable) -> None:
    global _graphviz
    _graphviz = await loaded


async def _load() -> None:
    global _graphviz
    from js import URL, Blob, Object  # Pyodide's bridge to the browser
    from pyodide.code import run_js
    from pyodide.ffi import to_js

    try:
        source = resources.files("autograd_viz.view").joinpath(ENGINE_FILE).read_text("utf-8")
    except FileNotFoundError:
        raise GraphvizLoadingError(
            f"this autograd_viz has no {ENGINE_FILE} (Graphviz-WASM): install the wheel that "
            "`bash scripts/lite.sh` builds, which carries it"
        ) from None
    options = to_js({"type": "text/javascript"}, dict_converter=Object.fromEntries)
    url = URL.createObjectURL(Blob.new([source], options))
    try:
        module = await run_js("(url) => import(url)")(url)
        _graphviz = await module.Graphviz.load()
    finally:
        URL.revokeObjectURL(url)


def _ready():
    """The loaded Graphviz, waiting for it if the runtime can; else a one-line error."""
    if _graphviz is not None:
        return _graphviz
    start_loading()
    assert _loading is not None
    if not _loading.done():
        from pyodide.ffi import can_run_sync, run_sync

        if not can_run_sync():
            raise GraphvizLoadingError(
                "Graphviz (WebAssembly) is still loading in the background: run this cell "
                "again in a moment."
            )
        run_sync(_loading)
    if (error := _loading.exception()) is not None:
        raise GraphvizLoadingError(f"Graphviz (WebAssembly) could not be loaded: {error}")
    return _graphviz


def run_dot(dot: str, fmt: str) -> bytes:
    """Lay out `dot` with Graphviz-WASM and return the picture in format `fmt`.

    PNG and PDF need Cairo, which only the `dot` program has: in the browser, save as SVG.
    """
    if fmt not in FORMATS:
        raise GraphvizError(
            f"the browser edition (JupyterLite) draws with Graphviz compiled to WebAssembly, "
            f"which cannot write {fmt.upper()}: save the drawing as .svg here, or as .{fmt} "
            "on a machine with Python and Graphviz installed"
        )
    graphviz = _ready()
    from pyodide.ffi import JsException

    dot = dot.replace(f'margin="{NODE_MARGIN}"', f'margin="{_BROWSER_NODE_MARGIN}"', 1)
    try:
        return str(graphviz.layout(dot, fmt, "dot")).encode("utf-8")
    except JsException as err:
        raise GraphvizError(f"Graphviz (WebAssembly) could not lay out this graph: {err}") from None
