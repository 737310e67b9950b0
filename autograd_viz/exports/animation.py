"""The animation that plays by itself: `svg_animation` draws the layout once plus one copy of each
node or edge per change, each shown in its stretch of steps by a CSS keyframe animation with each
step's equation as a caption, so it needs no extra package, stays sharp on a projector and keeps
its text searchable (the main animated export); `save_gif` rasterises the same frames for
PowerPoint, Keynote or Google Slides, which cannot play SVG, and alone needs the optional
`cairosvg`.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from typing import Any

from autograd_viz.core._checks import is_number, whole
from autograd_viz.core.errors import ExportError
from autograd_viz.core.outpath import output_path, replacing, write_output
from autograd_viz.exports.compose import Captions, frame_size, nested, renamed
from autograd_viz.view.frames import Frames, Source, frames_of
from autograd_viz.view.palette import resolve

__all__ = ["ExportError", "save_gif", "save_svg_animation", "svg_animation"]


# In the animation's copies of the layout: ids (they must stay unique in one document),
# graphviz's comments and tooltips (a quarter of the bytes).
_COPY_NOISE = re.compile(r'\sid="[^"]*"|<!--.*?-->\n?|<title>[^<]*</title>\n?', re.S)


def _captioned(frames: Frames, caption_size: float) -> tuple[list[str], float, float]:
    """Every frame as SVG markup with its caption underneath (for a document whose units
    are pt), and the width and height they all share."""
    width, height = frame_size(frames.base_svg)
    captions = Captions(frames, range(len(frames)), width, caption_size)
    out = []
    for k in range(len(frames)):
        frame = nested(frames.frame_svg(k), 0, 0, width, height)
        frame = _COPY_NOISE.sub("", frame)  # one document: ids must stay unique
        out.append(frame + captions.svg(k, 4, height))
    return out, width, height + captions.height


def _document(body: str, width: float, height: float, caption_size: float, head: str = "") -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}pt" height="{height:g}pt" '
        f'viewBox="0 0 {width:g} {height:g}" font-family="Arial, Helvetica, sans-serif" '
        f'font-size="{caption_size:g}"><title>Backpropagation, step by step</title>{head}'
        f'<rect width="100%" height="100%" fill="white"/>{body}</svg>\n'
    )


def _check_seconds(seconds_per_step: float) -> None:
    """A number of seconds from 0.05 to 60 (numpy's numbers too); True is no number of seconds."""
    s = seconds_per_step
    if not is_number(s) or not 0.05 <= s <= 60:
        raise ValueError(
            f"seconds_per_step must be a number of seconds between 0.05 and 60, got {s!r}; "
            "e.g. seconds_per_step=1.5"
        )


_ELEMENT = re.compile(r'<g id="[^"]+" class="(?:node|edge)\b[^"]*">.*?\n</g>', re.S)
_ROOT_DATA = re.compile(r'\s(?:data-(?:step|phase|active)|role|aria-label)="[^"]*"')


def _versions(svgs: list[str]) -> tuple[list[str], list[list[tuple[int, str]]]]:
    """Frame 0 split into the static text around its nodes and edges, and for each node
    or edge the versions it goes through: (first frame, markup), one per change."""
    static = _ELEMENT.split(svgs[0])
    versions: list[list[tuple[int, str]]] = [[(0, m)] for m in _ELEMENT.findall(svgs[0])]
    for k, svg in enumerate(svgs[1:], start=1):
        elements = _ELEMENT.findall(svg)
        if len(elements) != len(versions):
            raise ValueError("frames differ in their nodes and edges; they must share one layout")
        for history, markup in zip(versions, elements):
            if markup != history[-1][1]:
                history.append((k, markup))
    return static, versions


def svg_animation(
    source: Source,
    *,
    phase: str | None = None,
    seconds_per_step: float = 1.5,
    caption_size: float = 13,
    **draw_options: Any,
) -> str:
    """An SVG that plays the animation by itself, in a loop, with each step's equation.

    The drawing appears once; every node or edge that changes during the animation
    appears once per change (the orange version, the blue one, the active one, ...),
    each shown during its stretch of steps by one CSS keyframe animation, delayed to
    its first step. A step costs only the few elements it changes.

    >>> from autograd_viz import Value

    >>> from autograd_viz.open.snapshot import snapshot
    >>> x = Value(3.0, label="x")
    >>> svg_animation(snapshot(x * x)).count(" of 6 — ")  # a caption for each of the 6 steps
    6
    """
    _check_seconds(seconds_per_step)  # before the work
    frames = frames_of(source, phase, draw_options)
    n = len(frames)
    width, height = frame_size(frames.base_svg)
    static, versions = _versions([frames.frame_svg(k) for k in range(n)])
    lengths: set[int] = set()

    def shown(markup: str, start: int, end: int) -> str:
        if end - start == n:  # never changes: no animation
            return markup
        lengths.add(end - start)
        return (
            f'<g class="avz-w" style="animation-name:avz-w{end - start};'
            f'animation-delay:{start * seconds_per_step:g}s">{markup}</g>'
        )

    parts = [static[0]]
    for history, after in zip(versions, static[1:]):
        ends = [start for start, _ in history[1:]] + [n]
        parts += [shown(renamed(m), start, end) for (start, m), end in zip(history, ends)]
        parts.append(after)
    drawing = _COPY_NOISE.sub("", "".join(parts))
    tag_end = drawing.index(">")
    drawing = nested(_ROOT_DATA.sub("", drawing[:tag_end]) + drawing[tag_end:], 0, 0, width, height)

    captions = Captions(frames, range(n), width, caption_size)
    total_h = height + captions.height
    texts = "".join(shown(captions.svg(k, 4, height), k, k + 1) for k in range(n))
    cycle = n * seconds_per_step
    style = (
        f".avz-w {{visibility: hidden; animation-duration: {cycle:g}s;"
        " animation-timing-function: step-end; animation-iteration-count: infinite;}"
    ) + "".join(
        f"@keyframes avz-w{length} {{0% {{visibility: visible;}} {100 * length / n:.6g}% "
        "{visibility: hidden;} 100% {visibility: hidden;}}"
        for length in sorted(lengths)
    )
    return _document(drawing + texts, width, total_h, caption_size, f"<style>{style}</style>")


def save_svg_animation(source: Source, path: str | Path, **options: Any) -> Path:
    """Write `svg_animation(source, **options)` to `path` (an .svg file) and return the path."""
    path = output_path(path, "save_svg_animation", (".svg",))  # before the work
    write_output(path, svg_animation(source, **options))
    return path


# ---- animated GIF (for slide software that cannot play SVG) ------------------------------


def save_gif(
    source: Source,
    path: str | Path,
    *,
    phase: str | None = None,
    seconds_per_step: float = 1.5,
    width: int = 960,
    caption_size: float = 13,
    **draw_options: Any,
) -> Path:
    """Write the animation as a looping GIF, `width` pixels wide, for slide software.

    Each frame (drawing and equation) is rasterised from the one layout with cairosvg
    (an optional dependency: `pip install cairosvg`; it uses the Cairo library that
    Graphviz already brings) and assembled with Pillow. The last frame stays up three
    times as long, so the final gradients can be read before the loop restarts.

    >>> import tempfile, os
    >>> from autograd_viz import Value
    >>> from autograd_viz.open.snapshot import snapshot
    >>> x = Value(3.0, label="x")
    >>> save_gif(snapshot(x * x), os.path.join(tempfile.mkdtemp(), "square.gif")).suffix
    '.gif'
    """
    path = output_path(path, "save_gif", (".gif",))  # before the work
    pixels = whole(width)
    if pixels is None or not 100 <= pixels <= 4000:
        raise ValueError(f"width must be a whole number of pixels from 100 to 4000, got {width!r}")
    width = pixels
    _check_seconds(seconds_per_step)
    if sys.platform == "emscripten":  # JupyterLite: the Cairo library does not exist in a browser
        raise ExportError(
            "save_gif needs the Cairo library, which the browser edition (JupyterLite) does not "
            "have: use save_svg_animation or save_html here (both play in any browser and in "
            "slides), or save_gif where Python is installed."
        )
    try:
        import cairosvg
    except ImportError:  # OSError too, below: cairosvg is there but the Cairo library is not
        raise ExportError(
            "save_gif rasterises frames with cairosvg, which is not installed: "
            "`pip install cairosvg` (or `conda install -c conda-forge cairosvg`). "
            "save_svg_animation and save_html need nothing extra."
        ) from None
    except OSError as err:
        raise ExportError(
            f"cairosvg is installed but cannot load the Cairo library ({err}); install Cairo "
            "(it comes with Graphviz from conda-forge, apt or brew)."
        ) from None
    from PIL import Image

    frames = frames_of(source, phase, draw_options)
    bodies, w, h = _captioned(frames, caption_size)
    images = []
    for body in bodies:
        png = cairosvg.svg2png(
            # cairosvg knows no CSS custom properties: the palette's colours, written out
            bytestring=resolve(_document(body, w, h, caption_size)).encode("utf-8"),
            output_width=width,
        )
        images.append(Image.open(io.BytesIO(png)).convert("RGB"))
    ms = round(seconds_per_step * 1000)
    durations = [ms] * (len(images) - 1) + [3 * ms]
    with replacing(path) as part:  # all or nothing, as every export
        images[0].save(part, format="GIF", save_all=True, append_images=images[1:],
                       duration=durations, loop=0, disposal=1)  # fmt: skip
    return path
