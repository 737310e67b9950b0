"""Package data: the CSS and JavaScript of the player, the standalone page, the quiz, the deck.

Kept as real .css and .js files, so they can be linted, diffed and read on their own;
`static_text(name)` reads one from the installed package. A stylesheet copies no colour: it
colours through the palette's custom properties (`var(--avz-ink)`), and `static_text` gives
it with every property declared first (`autograd_viz.viz.palette.with_palette`).
"""

from __future__ import annotations

import functools
from importlib import resources

from autograd_viz.viz.palette import with_palette


@functools.cache
def static_text(name: str) -> str:
    """The text of one file in this folder, e.g. `static_text("page.js")`; a stylesheet
    (`.css`) comes with the palette's custom properties declared before it."""
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    return with_palette(text) if name.endswith(".css") else text
