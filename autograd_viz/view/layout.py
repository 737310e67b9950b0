"""The renderer seam: DOT text in, a laid-out picture out, for every picture. Layout is 95-100 % of
drawing time, so it happens once per picture and only here: `run_dot` runs graphviz's `dot` through
a pipe under a time limit, or, in the browser edition, Graphviz-WASM (`autograd_viz.view.wasm`), and
nothing above this module knows which one drew the picture; `svg_from_dot` finishes the SVG
(`autograd_viz.view.svg`). dot's work is bounded here for both renderers (`bounded`): a graph whose
placement step would be larger than `MAX_LAYOUT_WORK` (`layout_work`: `x*w*w*…*w` has 102 values
and 20,302 nodes to place) is
refused with `GraphTooLargeError`, and the rest are laid out with capped iterations, so every graph
the size guard admits lays out in seconds, and every lesson's graph exactly as unbounded dot draws
it."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from autograd_viz.core.errors import (
    GraphTooLargeError,
    GraphvizError,
    GraphvizNotFoundError,
    LayoutTimeoutError,
)
from autograd_viz.view import svg as _svg

__all__ = [
    "INSTALL_HINT",
    "ITERATION_BUDGET",
    "MAX_LAYOUT_WORK",
    "GraphvizError",
    "GraphvizNotFoundError",
    "LayoutTimeoutError",
    "LayoutWork",
    "bounded",
    "layout_work",
    "run_dot",
    "svg_from_dot",
]

# Network-simplex iterations times the size of the graph they run on: about 1.5 s of dot's
# placement natively. dot's default is no cap; 5 iterations per node (nslimit=5) changed no
# lesson's picture, so graphs within the budget keep that.
ITERATION_BUDGET = 6_000_000
_NSLIMIT = 5.0
_MCLIMIT = 0.5  # half dot's default passes of crossing minimisation: no lesson picture changed
_MCLIMIT_WORK = 5_000  # past this many nodes to place, fewer passes still, in proportion
_EDGE = re.compile(r"^\s*(\w+)\s*->\s*(\w+)", re.M)
_OPEN = re.compile(r"^\s*(?:strict\s+)?(?:di)?graph\b[^{]*\{", re.I)

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
    dot = bounded(dot)
    if sys.platform == "emscripten":  # the browser edition: Graphviz compiled to WebAssembly
        from autograd_viz.view import wasm

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
        raise LayoutTimeoutError(
            f"`dot` took longer than {timeout:g} s to lay out this graph (timeout={timeout:g}) "
            "and was stopped; draw less (a sub-expression or collapse='neuron') or pass a "
            "longer timeout="
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


def bounded(dot: str) -> str:
    """`dot` with its layout work bounded, the same for the native and the WASM renderer:
    refused if the graph dot would place is larger than `MAX_LAYOUT_WORK`, else given the
    graph attributes that cap dot's iterations (placed first, so the DOT's own win).

    The network-simplex iterations are capped (`nslimit`, `nslimit1`) so that iterations
    times the size of the graph dot places stay within a budget, and crossing minimisation is
    halved (`mclimit=0.5`, less on graphs with more than 5,000 nodes to place). Below the
    budget (every lesson's graph) the picture is the one unbounded dot draws. The native `dot`
    also runs under a time limit (`timeout`, `LayoutTimeoutError`); Graphviz-WASM runs inside
    the page and cannot be stopped part way, so there the bounds alone keep it short.

    >>> bounded("digraph { a -> b }")
    'digraph { graph [nslimit=5 nslimit1=5 mclimit=0.5];\\n a -> b }'
    """
    size = layout_work(_EDGE.findall(dot))
    if size.work > MAX_LAYOUT_WORK:
        raise GraphTooLargeError(
            f"this drawing would take too long to lay out: {_name(dot, size.widest)} feeds "
            f"operations far apart, so its arrows cross {size.crossed} columns, and Graphviz "
            f"would place {size.work} nodes (at most {MAX_LAYOUT_WORK}; counted before any "
            "layout). Draw less: a sub-expression (an intermediate Value), fewer uses of that "
            "value, or collapse='neuron' for a network."
        )
    per_node = ITERATION_BUDGET / max(size.nodes * size.work, 1)
    nslimit = f"{min(_NSLIMIT, max(per_node, 0.01)):.3g}"
    # crossing minimisation passes over every hidden node too: fewer passes on big graphs
    mclimit = f"{_MCLIMIT * min(1.0, _MCLIMIT_WORK / max(size.work, 1)):.2g}"
    attributes = f"graph [nslimit={nslimit} nslimit1={nslimit} mclimit={mclimit}];\n"
    opening = _OPEN.match(dot)
    if opening is None:  # not a graph dot would read: let dot say what is wrong
        return dot
    return dot[: opening.end()] + " " + attributes + dot[opening.end() :]


def _name(dot: str, node: object) -> str:
    """The value `node` (a DOT id) as the drawing labels it, for a message."""
    line = re.search(rf"^\s*{re.escape(str(node))} \[[^\n]*", dot, re.M)
    text = re.search(r"<FONT[^>]*>([^<]+)</FONT>", line[0]) if line else None
    return f"the value {html.unescape(text[1])!r}" if text else f"node {node}"


# ---- how much dot would have to place ------------------------------------------------------

# The most nodes dot's placement graph may have (see `layout_work`): 25,000 lays out in about
# 2 s natively here (benchmarks/layout_worst_case.py measures the worst graphs within it).
MAX_LAYOUT_WORK = 25_000


@dataclass(frozen=True)
class LayoutWork:
    """What `dot`'s work on a drawing grows with: `nodes` and `edges` drawn, and `work`, the
    nodes of the graph its placement step solves (`nodes + edges + 2 * hidden`, where
    `hidden` counts the ranks every edge crosses). `widest` is the node whose edges cross
    the most ranks, and `crossed` how many: the value to blame when `work` is too large."""

    nodes: int
    edges: int
    work: int
    widest: object = None
    crossed: int = 0


def layout_work(edges: Sequence[tuple[object, object]]) -> LayoutWork:
    """The size of the graph `dot` places (its x-coordinate step), from the drawing's edges.

    `dot` gives every node a rank (a column, left to right) and each edge a hidden node on
    every rank it crosses; placement then solves a network-simplex problem on all of them
    plus one node per edge. The ranks are estimated as dot's own ranking would at best make
    them: the fewer crossings of "as early" and "as late as possible" (dot minimises them,
    so its graph is never larger). Counting is linear in the edges: no layout is run.

    >>> layout_work([("x", "op"), ("w", "op"), ("op", "z")]).work
    7
    """
    succ: dict[object, list] = {}
    pred: dict[object, list] = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        pred.setdefault(b, []).append(a)
        succ.setdefault(b, [])
        pred.setdefault(a, [])
    indegree = {n: len(p) for n, p in pred.items()}
    order = [n for n, d in indegree.items() if d == 0]
    for n in order:  # Kahn's order; a node on a cycle (never ours) is simply left out
        for m in succ[n]:
            indegree[m] -= 1
            if indegree[m] == 0:
                order.append(m)
    early: dict[object, int] = {}
    for n in order:
        early[n] = max((early[p] + 1 for p in pred[n] if p in early), default=0)
    last = max(early.values(), default=0)
    late: dict[object, int] = {}
    for n in reversed(order):
        late[n] = min((late[s] - 1 for s in succ[n] if s in late), default=last)
    best: tuple[int, dict[object, int]] | None = None
    for rank in (early, late):
        crossed: dict[object, int] = {}
        for a, b in edges:
            if a in rank and b in rank:
                crossed[a] = crossed.get(a, 0) + max(rank[b] - rank[a] - 1, 0)
        total = sum(crossed.values())
        if best is None or total < best[0]:
            best = (total, crossed)
    hidden, crossed = best if best is not None else (0, {})
    widest = max(crossed, key=crossed.get, default=None)
    return LayoutWork(
        nodes=len(succ), edges=len(edges), work=len(succ) + len(edges) + 2 * hidden,
        widest=widest, crossed=crossed.get(widest, 0),
    )  # fmt: skip
