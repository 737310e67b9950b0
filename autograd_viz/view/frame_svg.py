"""One layout's SVG as a template every frame fills in, so a frame costs a string join, not a
`dot` run: `template` cuts the SVG into literal text and slots (each node's and edge's class,
each data/grad cell's text, the root `<svg` tag), `check_template` refuses an SVG with a node or
edge no slot can restyle (never a silently grey frame), and `fill_template` puts one frame's
values in, with `frame_css`, the stylesheet keyed on those classes through the palette's
properties and scoped to the layout, so several players on a page never restyle each other.
"""

from __future__ import annotations

import html
import re

from autograd_viz.core.errors import FramesError
from autograd_viz.view.palette import var

__all__ = [
    "EDGE_ON_CLASS",
    "SHAPE_CLASS",
    "check_template",
    "fill_template",
    "frame_css",
    "template",
]

# Class added to the main shape (box, ellipse or rounded path) of every value and operation.
SHAPE_CLASS = "avz-shape"
# Class of an edge the current step travels.
EDGE_ON_CLASS = "avz-on"

_SLOT = re.compile(
    r"(?P<svg><svg\b)"
    r'|<g id="(?P<node>(?:v|op|layer)\d+)" class="(?P<ncls>node[^"]*)">'
    r"(?P<head>\s*<title>[^<]*</title>\s*<(?:polygon|path|ellipse))"
    r'|<g id="(?P<edge>[^"]+)" class="edge">'
    r'|<text id="(?P<cell>v\d+-(?:data|grad))"(?P<tattr>[^>]*)>(?P<text>[^<]*)</text>'
)


def frame_css(scope: str, *, active_width: float = 3.5) -> str:
    """The stylesheet of every frame of one layout; `scope` is the layout's class.

    >>> ".avz-x .forward > .avz-shape" in frame_css("avz-x")
    True
    """
    s, active = f".{scope}", var("active")
    return (
        f"{s} .pending > .{SHAPE_CLASS} {{fill: {var('pending')};}}"
        f"{s} .forward > .{SHAPE_CLASS} {{fill: {var('forward')};}}"
        f"{s} .backward > .{SHAPE_CLASS} {{fill: {var('backward')};}}"
        f"{s} .touched > .{SHAPE_CLASS} {{stroke: {active}; stroke-width: 2;}}"
        f"{s} .active > .{SHAPE_CLASS} {{stroke: {active}; stroke-width: {active_width:g};}}"
        f"{s} .pending text {{fill: {var('muted')};}}"
        f"{s} .forward text, {s} .backward text {{fill: {var('ink')};}}"
        f"{s} .edge.{EDGE_ON_CLASS} > path {{stroke: {active}; stroke-width: 2.5;}}"
        f"{s} .edge.{EDGE_ON_CLASS} > polygon {{stroke: {active}; fill: {active};}}"
    )


def check_template(svg: str, slots: list[tuple[str, str]]) -> None:
    """Every node and edge of the drawing must be restyleable — never a silently grey frame."""
    nodes = len(re.findall(r'<g id="(?:v|op|layer)\d+" class="node', svg))
    edges = len(re.findall(r'<g id="[^"]+" class="edge"', svg))
    found = {kind: sum(1 for k, _ in slots if k == kind) for kind in ("node", "edge", "svg")}
    if (found["node"], found["edge"], found["svg"]) != (nodes, edges, 1):
        raise FramesError(
            f"the drawing's SVG has {nodes} nodes and {edges} edges, but frames found "
            f"{found['node']} and {found['edge']} they can restyle: autograd_viz.view.render's SVG "
            "changed shape. Please report this; Value.draw() still works."
        )


def template(svg: str) -> list[str | tuple[str, str, str]]:
    """Split the SVG into literal text and slots (kind, key, original) that frames fill in."""
    parts: list[str | tuple[str, str, str]] = []
    pos = 0
    for m in _SLOT.finditer(svg):
        if m.group("svg"):
            parts += [svg[pos : m.start()], ("svg", "", "")]
        elif m.group("node"):
            head = m.group("head")
            parts += [svg[pos : m.start()], f'<g id="{m.group("node")}" class="',
                      ("node", m.group("node"), m.group("ncls")),
                      f'">{head} class="{SHAPE_CLASS}"']  # fmt: skip
        elif m.group("edge"):
            raw = m.group("edge")
            parts += [svg[pos : m.start()], f'<g id="{raw}" class="',
                      ("edge", html.unescape(raw), "edge"), '">']  # fmt: skip
        else:
            cell = m.group("cell")
            parts += [svg[pos : m.start()], f'<text id="{cell}"{m.group("tattr")}>',
                      ("cell", cell, html.unescape(m.group("text"))), "</text>"]  # fmt: skip
        pos = m.end()
    parts.append(svg[pos:])
    return parts


def fill_template(parts: list[str | tuple[str, str, str]], values: list[str], scope: str) -> str:
    """The SVG of one frame: `parts` (from `template`) with each slot's value put in, a cell's
    text escaped, and the stylesheet of `scope` right after the opening `<svg ...>` tag."""
    given = iter(values)
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif part[0] == "cell":
            out.append(html.escape(next(given), quote=False))
        else:
            out.append(next(given))
    svg = "".join(out)
    end = svg.index(">", svg.index("<svg")) + 1
    return f"{svg[:end]}\n<style>{frame_css(scope)}</style>{svg[end:]}"
