"""Change the graph: `autograd_viz.explore(f, x=2, y=3)` (the entry, which checks f and the
inputs) shows `f`'s graph with a number box and a slider per
input, as an anywidget laid out ONCE (the one player module, `front/static/player.js`, in explore
mode). When an input changes, the kernel calls `f` again, traces it on a snapshot (so no `.grad`
of the learner's is written) and sends back only the data and grad texts that change, by the ids
the drawing already carries, and the new "ask the graph" table (`autograd_viz.view.ask`); it lays
out again only when the graph's shape changes, and says so. Where no kernel answers the view says
so instead of freezing, and a kernel-free `text/html` (the drawing at the starting inputs) serves
exports and viewers without widgets.
"""

from __future__ import annotations

import html
import math
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

import anywidget
import traitlets

from autograd_viz.core._checks import is_number
from autograd_viz.core.derive import derive
from autograd_viz.core.errors import ExploreError
from autograd_viz.core.graph import Graph
from autograd_viz.core.time_limits import DEFAULT_TIMEOUT, call_with_time_limit
from autograd_viz.engine import Value
from autograd_viz.front.static import module_text
from autograd_viz.view import layout, render
from autograd_viz.view.ask import ask_of
from autograd_viz.view.dot import html_text, number_formatter
from autograd_viz.view.explore_inputs import arguments, number_input, slider_spec
from autograd_viz.view.options import DrawOptions
from autograd_viz.view.palette import with_palette

__all__ = ["MAX_EXPLORE_NODES", "ExploreError", "Explorer"]

MAX_EXPLORE_NODES = 200  # every change re-runs f and the trace: keep it a classroom graph
KERNEL_GONE = "the kernel is not running: values cannot be recomputed; re-run the cell"


class Explorer(anywidget.AnyWidget):
    """The live drawing `autograd_viz.explore()` returns: `inputs` are the current inputs (set
    them from Python too: `ex.inputs = {"x": 1, "y": 3}`), `svg` the layout, `result` the
    latest texts.

    >>> from autograd_viz import explore
    >>> ex = explore(lambda x, y: (x + y) * y, x=2, y=3)
    >>> ex.inputs = {"x": 1, "y": 3}  # as if the learner typed it
    >>> ex.result["cells"]["v3-data"], ex.result["summary"]
    ('data 12', 'out = 12')
    """

    _esm = module_text()  # the one player module; `mode` tells it to render explore mode
    _css = with_palette("")  # the palette's properties, which ask.js and explore mode colour by

    mode = traitlets.Unicode("explore").tag(sync=True)

    svg = traitlets.Unicode("").tag(sync=True)
    spec = traitlets.List().tag(sync=True)  # per input: name, value, min, max, step
    inputs = traitlets.Dict().tag(sync=True)
    # from the browser: {"req": n, "inputs": {...}}; not echoed back (the browser sent it, and
    # the echo would be one more message on every change, before the answer)
    # (Any, not Dict: whatever arrives is checked in _on_request, never raised on)
    request = traitlets.Any(None).tag(sync=True, echo_update=False)
    result = traitlets.Dict().tag(sync=True)  # to the browser: {"req", "cells", "ask", ...}
    kernel_gone = traitlets.Unicode(KERNEL_GONE).tag(sync=True)
    timeout_ms = traitlets.Int(4000).tag(sync=True)  # no answer this long: the kernel is gone

    def __init__(
        self, f: Callable[..., Value], start: Mapping[str, float], *,
        opened: Callable[[Value], Graph], digits: int, timeout: float = DEFAULT_TIMEOUT,
    ) -> None:  # fmt: skip
        self._f, self._opened, self._digits = f, opened, digits
        self._timeout = timeout
        self._answering = False  # while a browser request is answered: inputs set from there
        self._number = number_formatter(None)
        graph, steps = self._run(dict(start))
        self._shape = _shape(graph)
        self.layouts = 1  # dot runs so far: one, unless f's graph changed shape
        svg = _layout(graph, steps)
        super().__init__(
            svg=svg,
            spec=[slider_spec(name, value) for name, value in start.items()],
            inputs=dict(start),
            result=self._result(0, graph, steps, None),
        )
        self._static_svg = svg
        self.observe(self._on_request, names="request")
        self.observe(self._on_inputs, names="inputs")

    # ---- one recomputation ------------------------------------------------------------

    def _run(self, values: dict[str, float]) -> tuple[Graph, list]:
        """Call f on fresh Values (the forward pass), open its graph (`opened`: the size counted
        first, then a snapshot), and trace the
        backward pass by the engine's own rules (on the snapshot: no `.grad` is written)."""
        leaves = {name: Value(float(v), label=name) for name, v in values.items()}
        args, kwargs = arguments(self._f, leaves)
        out = call_with_time_limit(self._f, *args, what="your f", timeout=self._timeout, **kwargs)
        if not isinstance(out, Value):
            raise ExploreError(
                f"explore(): f must return a Value built from its inputs, got "
                f"{type(out).__name__} {out!r}; write f with the Value operations "
                "(+, *, **, tanh(), ...), e.g. lambda x, y: (x + y) * y"
            )
        graph = self._opened(out)  # as the entry (`autograd_viz.explore`) opens it: size first
        steps = derive(graph, "backward", digits=self._digits)
        return graph, steps

    def _result(self, req: int, graph: Graph, steps: list, note: str | None) -> dict[str, Any]:
        number = self._number
        grads = steps[-1].grads
        cells: dict[str, str] = {}
        for node in graph.nodes:
            i = node.index
            if node.role == "const":
                continue
            cells[f"v{i}-data"] = f"data {number(node.data)}"
            cells[f"v{i}-grad"] = f"grad {number(grads[i])}"
        out = graph.nodes[-1]
        table = ask_of(graph, digits=self._digits, steps=steps, latex=False)  # text only
        return {
            "req": req,
            "cells": cells,
            "ask": table,
            "note": note or "",
            "error": "",
            "summary": f"{table['root']} = {number(out.data)}",
        }

    def recompute(self, values: Mapping[str, object], req: int = 0) -> dict[str, Any]:
        """Rerun f at `values` and return what the view changes (also used by the view).

        A value that is not a number, or an exception raised by f, comes back as
        `result["error"]` (the drawing keeps its last numbers)."""
        try:
            checked = {k: number_input(k, v) for k, v in values.items()}
            unknown = sorted(set(checked) - {s["name"] for s in self.spec})
            if unknown:
                raise ExploreError(f"explore(): no input named {unknown[0]!r}")
            graph, steps = self._run(checked)
        except Exception as err:  # f is the learner's code: show what it raised, keep going
            return {**self.result, "req": req, "error": f"{type(err).__name__}: {err}"}
        note = None
        shape = _shape(graph)
        if shape != self._shape:
            self._shape = shape
            self.layouts += 1
            note = (
                "the graph's shape changed at these inputs (f took another branch): laid out again"
            )
            result = self._result(req, graph, steps, note)
            result["svg"] = _layout(graph, steps)
            return result
        return self._result(req, graph, steps, note)

    def _on_request(self, change: dict) -> None:
        request = change["new"]
        if not isinstance(request, dict):  # null, a list, a number: not from our front end
            return
        req, values = request.get("req", 0), request.get("inputs", {})
        if isinstance(req, float) and math.isfinite(req) and req == int(req):
            req = int(req)
        if not is_number(req, int) or not isinstance(values, dict):  # "1", NaN, null: ignored
            return
        result = self.recompute(values, req)
        with self.hold_sync():  # one message to the browser: svg (if new), inputs, result
            if "svg" in result:
                self.svg = result.pop("svg")
            if not result["error"]:
                self._answering = True
                try:
                    self.inputs = {**self.inputs, **values}
                finally:
                    self._answering = False
            self.result = result

    def _on_inputs(self, change: dict) -> None:
        """Inputs set from Python (`ex.inputs = {...}`): recompute, as the browser would."""
        if self._answering or change["new"] == change["old"]:
            return
        self._on_request({"new": {"req": -1, "inputs": dict(change["new"])}})

    # ---- outputs ------------------------------------------------------------------------

    def _repr_mimebundle_(self, **kwargs: Any):
        """The widget, plus a kernel-free `text/html` of the drawing at the starting inputs
        (what an export or a viewer without widgets shows). With widgets switched off
        (`AUTOGRAD_VIZ_WIDGETS=0`, as the kit's offline notebook export runs), only that."""
        from autograd_viz.front.inline import WIDGETS_ENV, widgets_render

        if os.environ.get(WIDGETS_ENV, "").strip() and not widgets_render():
            data, metadata = {"text/plain": repr(self)}, {}
        else:
            bundle = super()._repr_mimebundle_(**kwargs)
            if bundle is None:
                return None
            data, metadata = bundle
        spec = ", ".join(f"{s['name']} = {self._number(s['value'])}" for s in self.spec)
        spec = html.escape(spec)  # an input's name is any text **inputs carried
        data["text/html"] = (
            '<div class="avz-explore-static">'
            f'<div style="font-size: 0.9em">explore() at {spec} (a live view: run the notebook '
            "to change the inputs)</div>"
            f"{self._static_svg}</div>"
        )
        return data, metadata

    def __repr__(self) -> str:
        spec = ", ".join(f"{s['name']}={self._number(s['value'])}" for s in self.spec)
        return f"<Explorer of f({spec}): {self.result.get('summary', '')}>"


def _shape(graph: Graph) -> tuple:
    """What the layout depends on: operations, operands, roles and labels, constants' values."""
    return tuple(
        (
            n.op,
            n.operands,
            n.role,
            n.label,
            n.exponent,
            n.tag,
            repr(n.data) if n.role == "const" else "",
        )
        for n in graph.nodes
    )


# Every data and grad cell is laid out this wide, whatever number it holds now, so a longer
# number later (−0.001234 where 2 was) still fits its box: the layout never has to change.
_RESERVE = "−0.000000"
_CELL = re.compile(r'(<text id="(v\d+-(?:data|grad))"[^>]*>)[^<]*(</text>)')


def _layout(graph: Graph, steps: list) -> str:
    """One `dot` run: the drawing with room in each cell for any number of `digits`
    significant digits, then the real numbers written into the cells by their ids."""
    finished = graph.with_grads(steps[-1].grads)
    number = number_formatter(None)
    reserved = DrawOptions.of(
        show_grad=True, fmt=lambda _x: _RESERVE, max_nodes=max(len(graph.nodes), 1)
    )
    source = render.dot_source(finished, reserved)
    for node in graph.nodes:  # a constant never changes: its own number, its own width
        if node.role == "const":
            i = node.index
            source = source.replace(
                f'v{i} [id="v{i}" class="const" label=<{html_text(_RESERVE)}>',
                f'v{i} [id="v{i}" class="const" label=<{html_text(number(node.data))}>',
            )
    wide = layout.svg_from_dot(source)
    texts = {}
    for node in graph.nodes:
        i = node.index
        if node.role == "const":
            texts[f"v{i}-data"] = number(node.data)
            continue
        texts[f"v{i}-data"] = f"data {number(node.data)}"
        texts[f"v{i}-grad"] = f"grad {number(finished.nodes[i].grad)}"
    return _CELL.sub(lambda m: m[1] + html.escape(texts.get(m[2], ""), quote=False) + m[3], wide)
