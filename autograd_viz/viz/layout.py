"""The renderer seam: DOT text in, a laid-out picture out. Every picture passes through here.

Layout is graphviz's job and 95-100 % of drawing time, so it happens once per picture
and in this one module. `run_dot` runs graphviz's `dot` program through a pipe (no
temporary files) with a timeout; `svg_from_dot` turns its SVG into the SVG the viewers
ship (ids on cell texts, plain CSS fonts). A browser-only edition plugs another
renderer (Graphviz compiled to WebAssembly) into `run_dot`; nothing above this module
needs to know which one drew the picture.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

from autograd_viz.errors import GraphvizError, GraphvizNotFoundError
from autograd_viz.viz import svg as _svg

__all__ = ["INSTALL_HINT", "GraphvizError", "GraphvizNotFoundError", "run_dot", "svg_from_dot"]

INSTALL_HINT = (
    "Install Graphviz, which provides it: `conda install -c conda-forge python-graphviz`, "
    "`apt-get install graphviz` (Debian/Ubuntu) or `brew install graphviz` (macOS); then "
    "restart the kernel. The DOT text is still available as `.source`."
)


def run_dot(dot: str, fmt: str, *, timeout: float, extra: Sequence[str] = ()) -> bytes:
    """Lay out `dot` and return the picture in format `fmt` ("svg", "png", "pdf").

    `extra` are further command-line flags (e.g. `-Gdpi=144`).

    >>> run_dot("digraph { a -> b }", "svg", timeout=30).startswith(b"<?xml")
    True
    """
    if sys.platform == "emscripten":  # the browser edition: Graphviz compiled to WebAssembly
        from autograd_viz.viz import wasm

        return wasm.run_dot(dot, fmt)
    try:
        proc = subprocess.run(
            ["dot", f"-T{fmt}", *extra],
            input=dot.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise GraphvizNotFoundError(
            f"Graphviz's `dot` program was not found on PATH ({os.environ.get('PATH', '')!r}). "
            + INSTALL_HINT
        ) from None
    except subprocess.TimeoutExpired:
        raise GraphvizError(
            f"`dot` took longer than {timeout:g} s to lay out this graph; draw less "
            "(a sub-expression or collapse='neuron') or pass a longer timeout"
        ) from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise GraphvizError(f"`dot -T{fmt}` failed (exit {proc.returncode}): {err}")
    return proc.stdout


def svg_from_dot(dot: str, *, timeout: float = 120) -> str:
    """Lay out DOT (one `run_dot`) and return the SVG the viewers ship.

    The XML prolog is dropped, so the string embeds directly in HTML, and the texts
    of value nodes get their ids (`v{i}-data`, `v{i}-grad`, `v{i}-label`).

    >>> svg = svg_from_dot("digraph { a -> b }")
    >>> svg.startswith("<svg")
    True
    """
    return _svg.finish(run_dot(dot, "svg", timeout=timeout).decode("utf-8"))
