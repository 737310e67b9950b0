"""Package data — the CSS and JavaScript of the player, the standalone page, the quiz and the
deck — kept as real .css and .js files so they can be linted, diffed and read on their own:
`static_text(name)` reads one from the installed package with every palette property
declared first (a stylesheet copies no colour; `autograd_viz.view.palette.with_palette`), and
`module_text()` is the one player module (`player.js`) as every host ships it.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

from autograd_viz.view.palette import with_palette

# Plain scripts (no import/export) that the player module calls, prepended to it in this
# order: `ask.js` defines `attachAsk(root, svg, ask)` (asking the graph).
_HELPERS = ("ask.js",)


@functools.cache
def static_text(name: str) -> str:
    """The text of one file in this folder, e.g. `static_text("page.js")`; a stylesheet
    (`.css`) comes with the palette's custom properties declared before it."""
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    return with_palette(text) if name.endswith(".css") else text


@functools.cache
def module_text() -> str:
    """The player's ES module as the widget, the page, the inline player and the deck ship
    it: `player.js` with the helper scripts of `_HELPERS` put in front, so the module can
    call them.

    >>> "export default" in module_text()
    True
    """
    return "\n".join(_compact(static_text(name)) for name in (*_HELPERS, "player.js"))


def _compact(source: str) -> str:
    """A script without its comments and indentation, as every player saves a copy (~35 %
    smaller); the file itself stays the readable one. Block comments start a line (`/*`)."""
    source = re.sub(r"^\s*/\*.*?\*/[ \t]*$", "", source, flags=re.S | re.M)
    lines = (line.strip() for line in source.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))


_KATEX = resources.files("autograd_viz.front").joinpath("vendor", "katex")
# the faces the derivation's equations use (Latin, italic maths, operators, big delimiters)
EQUATION_FONTS = ("Main-Regular", "Main-Bold", "Math-Italic", "Size1-Regular", "Size2-Regular",
                  "AMS-Regular")  # fmt: skip


@functools.cache
def katex_js() -> str:
    """The vendored KaTeX script (`front/vendor/katex`): the player typesets with it, no CDN."""
    return _KATEX.joinpath("katex.min.js").read_text(encoding="utf-8")


@functools.cache
def katex_css(fonts: tuple[str, ...] | None = None) -> str:
    """KaTeX's stylesheet with its woff2 fonts written in as data: URLs; with `fonts`, only
    those faces (e.g. `EQUATION_FONTS`), the others' rules dropped, so nothing is fetched."""
    import base64
    import re

    def face(match: re.Match) -> str:
        name = match.group(1)
        if fonts is not None and name not in fonts:
            return ""
        data = base64.b64encode(_KATEX.joinpath("fonts", f"KaTeX_{name}.woff2").read_bytes())
        head = match.group(0).split("src:")[0]
        return f'{head}src:url(data:font/woff2;base64,{data.decode()}) format("woff2")}}'

    css = _KATEX.joinpath("katex.min.css").read_text(encoding="utf-8")
    return re.sub(r"@font-face\{[^}]*src:url\(fonts/KaTeX_([\w-]+)\.woff2\)[^}]*\}", face, css)
