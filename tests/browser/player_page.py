"""Reading the backprop player as a learner sees it in the browser (shared by the browser tests).

`read_player(page)` returns the step number on show, caption, equation (plain text, from the
equation's `data-text`), the ids of the highlighted (active) graph nodes with the fill and
stroke the browser paints them, and whether KaTeX has typeset the equation. `demo_notebook()` is
the one-cell notebook both tests run.
"""

from __future__ import annotations

from dataclasses import dataclass

DEMO_SOURCE = """\
from autograd_viz import Value

x, y = Value(2.0, label="x"), Value(3.0, label="y")
z = (x + y) * y
z.label = "z"
player = z.animate(speed=4)
player"""

_READ_PLAYER = """
(player) => {
  if (!player.dataset.step) return null;
  const eq = player.querySelector('.avz-eq');
  const nodes = [...player.querySelectorAll('.avz-graph g.node.active')];
  const active = nodes.map((g) => g.id);
  // the colours the browser actually paints (CSS in the frame overrides graphviz's)
  const paint = {};
  for (const g of nodes) {
    const shape = g.querySelector('.avz-shape');
    if (shape) {
      const style = getComputedStyle(shape);
      paint[g.id] = [style.fill, style.stroke];
    }
  }
  return {
    step: Number(player.dataset.step),
    frames: player.querySelectorAll('.avz-graph svg').length,
    caption: player.querySelector('.avz-caption').textContent,
    equation: eq.dataset.text,
    active: active,
    paint: paint,
    typeset: !!eq.querySelector('.katex'),
  };
}
"""


def demo_notebook(*sources: str) -> object:
    """A notebook with one code cell per source (by default one: the blog's z = (x + y)·y in a
    player)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python",
    }  # fmt: skip
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources or (DEMO_SOURCE,)]
    return nb


@dataclass(frozen=True)
class PlayerState:
    """What a learner sees: step number (from 1), caption, equation, highlighted nodes."""

    step: int
    frames: int
    caption: str
    equation: str
    active: list[str]
    paint: dict[str, list[str]]  # node id -> [computed fill, computed stroke]
    typeset: bool

    def active_value(self) -> tuple[str, str, str]:
        """The highlighted value node: (id, fill, stroke) as the browser paints them."""
        [(node, (fill, stroke))] = [(k, v) for k, v in self.paint.items() if k.startswith("v")]
        return node, fill, stroke


def read_player(page: object, selector: str = ".avz-player") -> PlayerState:
    """The first player on the page, read from its visible frame."""
    data = page.locator(selector).first.evaluate(_READ_PLAYER)
    assert data is not None, "the player shows no frame"
    return PlayerState(**data)


def wait_for_step(
    page: object, step: int, selector: str = ".avz-player", timeout: float = 30_000
) -> PlayerState:
    """Wait until the player shows step number `step` (counted from 1), then read it."""
    page.locator(f"{selector}[data-step='{step}']").first.wait_for(timeout=timeout)
    return read_player(page, selector)


ORANGE, BLUE, VERMILION = "rgb(230, 159, 0)", "rgb(86, 180, 233)", "rgb(213, 94, 0)"
