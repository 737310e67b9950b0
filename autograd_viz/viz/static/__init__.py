"""Package data: the CSS and JavaScript of the player, the standalone page, the quiz, the deck.

Kept as real .css and .js files, so they can be linted, diffed and read on their own;
`static_text(name)` reads one from the installed package.
"""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def static_text(name: str) -> str:
    """The text of one file in this folder, e.g. `static_text("page.js")`."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
