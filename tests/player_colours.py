"""What a browser test reads of a player's colours, and the palette's colours as a browser
writes them, for the tests of the palette in a page and in JupyterLab's themes alike."""

from __future__ import annotations

from autograd_viz.view.palette import COLORS

# The computed colours of a player (`.avz-player`): its caption, a button, the forward phase's
# title, and inside the drawing a computed value's text and a pending one's.
PLAYER_COLOURS = """(player) => {
  const colour = (el, p) => el && getComputedStyle(el).getPropertyValue(p);
  const svg = player.querySelector(".avz-graph svg");
  return {
    caption: colour(player.querySelector(".avz-caption"), "color"),
    button: colour(player.querySelector(".avz-button"), "background-color"),
    forward: colour(player.querySelector(".avz-phase-forward"), "color"),
    computed: colour(svg.querySelector(".forward text, .backward text"), "fill"),
    pending: colour(svg.querySelector(".pending text"), "fill"),
  };
}"""


def rgb(name: str) -> str:
    """The palette's colour `name` as getComputedStyle gives it: `rgb(213, 94, 0)`."""
    return "rgb({}, {}, {})".format(*(int(COLORS[name][k : k + 2], 16) for k in (1, 3, 5)))
