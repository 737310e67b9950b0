"""Finish the SVG that graphviz writes: `finish` drops the XML prolog, turns the bold and italic
face names of `autograd_viz.view.dot` into CSS font-weight and font-style, and gives every value
node's data and grad texts their ids, which `dot` cannot do for the cells of an HTML-like label (it
emits a cell's ID only with a link) and the animation needs; by plain string scanning, no XML parse
(about 0.4 ms per 100 values).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from autograd_viz.view.dot import MAX_LAYER_ROWS, SVG_FACES

_VALUE_NODE = '<g id="v'


def finish(svg: str) -> str:
    """The SVG `autograd_viz.view.layout` ships, from `dot -Tsvg` output.

    >>> out = finish('<?xml version="1.0"?><svg><g id="v0" class="node input"><title>v0'
    ...              '</title><text>x</text><text>data 2</text><text>grad ?</text></g></svg>')
    >>> out.startswith("<svg>"), '<g id="v0-label" class="label"><text>x</text></g>' in out
    (True, True)
    >>> '<text id="v0-data">data 2</text><text id="v0-grad">grad ?</text>' in out
    True
    """
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    for face, css in SVG_FACES.items():
        svg = svg.replace(face, css)
    return tag_cells(svg)


def tag_cells(svg: str) -> str:
    """Give the texts of every value node their ids.

    A value node's texts come in table order: its name's line(s), then one text for
    data and one for grad (a constant has only its number). Plain string scanning:
    about 15x faster than a regular expression over a large SVG.
    """
    out: list[str] = []
    pos = search = 0  # copied up to `pos`; looking for the next node from `search`
    while True:
        start = svg.find(_VALUE_NODE, search)
        if start < 0:
            break
        key_end = svg.find('"', start + 7)
        key = svg[start + 7 : key_end]
        head_end = svg.find(">", key_end) + 1
        end = svg.find("</g>", head_end)
        search = head_end
        head = svg[key_end:head_end]
        if not key[1:].isdigit() or 'class="node' not in head or end < 0:
            continue
        grad = svg.rfind("<text", head_end, end)
        if grad < 0:
            continue
        if " const" in head:
            cells, first = [(grad, "data")], -1
        elif not svg.startswith("grad ", svg.find(">", grad) + 1):  # show_grad=False: no grad
            cells, first = [(grad, "data")], svg.find("<text", head_end, grad)
        else:
            data = svg.rfind("<text", head_end, grad)
            if data < 0:
                continue
            cells, first = [(data, "data"), (grad, "grad")], svg.find("<text", head_end, data)
        if first >= 0:  # the name's text lines, grouped
            last = svg.rfind("</text>", first, cells[0][0]) + 7
            out.append(svg[pos:first])
            out.append(f'<g id="{key}-label" class="label">')
            out.append(svg[first:last])
            out.append("</g>")
            pos = last
        for t, cell in cells:
            out.append(svg[pos:t])
            out.append(f'<text id="{key}-{cell}"')
            pos = t + 5
        search = end
    out.append(svg[pos:])
    return "".join(out)


def tag_layer_cells(svg: str, members: Mapping[str, Sequence[int]]) -> str:
    """Give each collapsed layer's data and grad texts the ids of the neuron outputs they
    show (`v{i}-data`, `v{i}-grad`), so an animation fills them in like any value's.

    `members` maps a layer box's id to its neuron outputs, in row order. A layer box's
    texts are its title, three column heads, then name, data and grad per row
    (`autograd_viz.view.dot.layer_label`); a box that differs is left untagged.
    """
    tags: list[tuple[int, str]] = []  # (position of a "<text", its id)
    for key, rows in members.items():
        start = svg.find(f'<g id="{key}" class="node')
        end = svg.find("</g>", start)
        if start < 0 or end < 0:
            continue
        texts, t = [], svg.find("<text", start, end)
        while t >= 0:
            texts.append(t)
            t = svg.find("<text", t + 5, end)
        shown = list(rows)
        if len(shown) > MAX_LAYER_ROWS:
            shown = shown[: MAX_LAYER_ROWS - 1]
        cells = texts[4:]
        if len(cells) < 3 * len(shown):
            continue
        for r, i in enumerate(shown):
            tags += [(cells[3 * r + 1], f"v{i}-data"), (cells[3 * r + 2], f"v{i}-grad")]
    out, pos = [], 0
    for t, cell in sorted(tags):
        out += [svg[pos:t], f'<text id="{cell}"']
        pos = t + 5
    out.append(svg[pos:])
    return "".join(out)


MIN_FIT_TEXT = 10  # CSS px: a picture is fitted to a width only where its text stays this large


def width_px(svg: str) -> float:
    """The picture's width in CSS pixels (graphviz writes points: 1 pt = 4/3 px).

    >>> width_px('<svg width="75pt" height="10pt">')
    100.0
    """
    match = re.search(r'<svg[^>]*?\swidth="([0-9.]+)(pt|px)?"', svg)
    if not match:
        return 0.0
    return float(match.group(1)) * (4 / 3 if match.group(2) in (None, "pt") else 1)


def fitted_text_px(svg: str, width: float) -> float:
    """The smallest text of the picture, in CSS px, once it is scaled to `width` px.

    >>> fitted_text_px('<svg width="150pt"><text font-size="12.00">x</text></svg>', 100)
    8.0
    """
    sizes = [float(v) for v in re.findall(r'font-size="([0-9.]+)"', svg)] or [14.0]
    return min(sizes) * (4 / 3) * width / width_px(svg)
