"""The card every exercise is shown as, the fill-in number (`autograd_viz.exercises`) and the code
to write (`autograd_viz.code_exercises`) alike: its ipywidgets box, its answer revealed and hidden
by the teacher's switch (`autograd_viz.course.teacher`), and its widget-free form where no widget
manager renders the box; each exercise says only what its answer looks like (`_answer_html`)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from autograd_viz.course.teacher import answer_box
from autograd_viz.view.palette import var

if TYPE_CHECKING:
    import ipywidgets as widgets

__all__ = ["Card", "empty_line"]


def empty_line(kind: type[widgets.HTML] | type[widgets.HTMLMath]) -> widgets.HTML:
    """A line of the card that is empty until there is something to say (the feedback, the
    answer), and then takes no room: a notebook opened from its saved state, before its cells
    run, draws each widget with ipywidgets' "not connected" icon, which gave each empty line a
    line's height (an exercise 179 px tall instead of 98, five of them too tall for a slide)."""
    import ipywidgets as widgets

    line = kind(value="", layout=widgets.Layout(display="none"))
    line.observe(_shown_when_filled, names="value")
    return line


def _shown_when_filled(change: dict) -> None:
    change["owner"].layout.display = None if change["new"] else "none"


class Card:
    """What every exercise shows besides its checking: the ipywidgets box (`_box`), the answer
    (`_answer_html()`, labelled `SHOW` where it must be clicked open) revealed and hidden by the
    teacher's switch, and a widget-free form where no widget manager renders the box."""

    SHOW = "Show the answer"

    def _answer_html(self) -> str:
        raise NotImplementedError

    # ---- revealing: the teacher's switch (autograd_viz.course.teacher) -----------------

    def reveal(self) -> None:
        """Show the answer (and the explanation) under the question."""
        self.revealed = True
        self.solution.value = self._answer_html()

    def hide(self) -> None:
        """Hide the answer again."""
        self.revealed = False
        self.solution.value = ""

    # ---- display -------------------------------------------------------------

    @property
    def widget(self) -> widgets.VBox:
        """The ipywidgets box: the question, the input or Check button, feedback and answer."""
        return self._box

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        from autograd_viz.front.inline import widgets_render

        if not widgets_render():  # no widget manager: the question, and its answer to open
            return {"text/plain": repr(self), "text/html": self.static_html()}
        bundle = self._box._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle

    def static_html(self) -> str:
        """The exercise where no kernel can check it (Colab, a static page, a slide deck):
        the question, then the hint and the answer, each closed until clicked (the answer
        only where the teacher's lock is open: `autograd_viz.course.teacher.answer_box`)."""
        hint = html.escape(self.hint, quote=False)
        hint_html = f"<details><summary>Hint</summary>{hint}</details>" if self.hint else ""
        return (
            f'<div class="avz-exercise" style="border: 1px solid {var("muted")}; '
            f'padding: 4px 10px; margin: 6px 0">'
            f"<p>{html.escape(self.question, quote=False)}</p>{hint_html}"
            f"{answer_box(self.SHOW, self._answer_html())}</div>"
        )
