"""The one palette — every colour the package paints with (drawings, frames, the widget, the
standalone page, quizzes, exercises, the training view, slide decks): Okabe–Ito colours
(colour-blind safe) for the four animation states and the greys of ink, rules and muted
text, each a CSS custom property `--avz-<name>` so a page re-themes every picture at once;
stylesheets and scripts in `front/static/` colour through `var(--avz-<name>)` alone, declared
before them at zero specificity (`with_palette`, on `:root` and `:host`), JupyterLab's dark
themes take the `dark-*` rows, Python's SVG and HTML write `var(--avz-<name>, <colour>)`
(`var`), DOT takes literals (`COLORS`) and renderers without custom properties get literal
CSS (`resolve`).
"""

from __future__ import annotations

import re

__all__ = ["COLORS", "css_variables", "resolve", "var", "with_palette"]

COLORS = {
    "forward": "#E69F00",  # orange: value computed in the forward pass
    "backward": "#56B4E9",  # sky blue: gradient final in the backward pass
    "active": "#D55E00",  # vermilion: the step being explained (thick border)
    "pending": "#EEEEEE",  # light grey: not reached yet
    "param": "#009E73",  # bluish green: border of trainable weights and biases
    "ink": "#222222",  # text and input/output borders
    "muted": "#6B6B6B",  # generated names, interior borders, constants, captions
    "rule": "#B0B0B0",  # the thin lines between a node's cells
    "edge-pending": "#BBBBBB",  # an edge not reached yet
    "forward-text": "#9A6100",  # "forward pass" written in text (5.1:1 on white)
    "backward-text": "#1F6F99",  # "backward pass" written in text (4.5:1 on white)
    "highlight": "#FBEFE6",  # background of the current line of a derivation
    "border": "#DDDDDD",  # frames around cells and lists
    "history": "#555555",  # earlier lines of the derivation
    "wrong": "#A23B72",  # reddish purple: where a learner's rule goes wrong (6:1 on white)
    "wrong-fill": "#F7E1EE",  # the background of that operation
    "right-answer": "#009E73",  # bluish green: the bar beside an exercise's right answer
    "wrong-answer": "#D55E00",  # vermilion: the bar beside a wrong answer, a wrong quiz blank
    "right-text": "#00734F",  # a right answer's feedback written in text (5.9:1 on white)
    "wrong-text": "#B34700",  # a wrong answer's feedback written in text (5.5:1 on white)
    "focus": "#0072B2",  # blue: the quiz blank being typed in
    "blank": "#FFFDF5",  # the background of a quiz blank
    "answer-box": "#BBBBBB",  # the frame around an exercise
    "dead": "#D9D9D9",  # grey: a dead ReLU neuron takes no part in training
    "dead-border": "#4D4D4D",  # its border
    "curve": "#0072B2",  # blue: the loss curve of the training view
    "link": "#0B5C8E",  # links and controls of a slide deck (7:1 on white)
    "code": "#F5F5F5",  # the background of a code cell on a slide
    "error": "#D55E00",  # vermilion: the bar beside an error on a slide
    "print-ink": "#000000",  # a worksheet's text and blanks: black, whatever the printer
    "print-paper": "#FFFFFF",  # a worksheet's page
    "paper": "#FFFFFF",  # the page behind a slide deck
    "projector-ink": "#1A1A1A",  # a slide deck's text: darker than ink, for a projector
    "projector-muted": "#4D4D4D",  # its captions and notes (8.4:1 on white)
    "projector-rule": "#D0D0D0",  # the bar beside its code
    # JupyterLab's dark themes: the player's own text and controls (4.5:1 or more on the dark
    # backgrounds, #111111 to #000000); its drawing keeps its light card and light colours
    "dark-ink": "#E8E8E8",
    "dark-history": "#C8C8C8",
    "dark-muted": "#BDBDBD",
    "dark-card": "#2B2B2B",  # a button's background
    "dark-border": "#777777",
    "dark-forward-text": "#F0B642",
    "dark-backward-text": "#8FD0F5",
    "dark-right-text": "#4CC795",  # the quiz's verdicts (6.7:1 on dark-card)
    "dark-wrong-text": "#FF9A57",
}


def var(name: str) -> str:
    """The CSS value that colours by the palette: `var(--avz-forward, #E69F00)`.

    >>> var("active")
    'var(--avz-active, #D55E00)'
    """
    return f"var(--avz-{name}, {COLORS[name]})"


def css_variables(selector: str = ":root") -> str:
    """One CSS rule that sets every custom property, for a page that themes its pictures."""
    body = ";".join(f"--avz-{name}:{color}" for name, color in COLORS.items())
    return f"{selector}{{{body}}}"


def with_palette(css: str) -> str:
    """A stylesheet with every palette property declared before it, so its
    `var(--avz-<name>)` is defined wherever it is used, with no colour copied into it.

    Why: a fallback in each `var()` was a second copy of the palette in every CSS file. The
    declarations sit on `:where(:root)`, which has no specificity: a theme that sets a
    property anywhere (`:root{--avz-ink:...}`, a deck's projector look) still wins. They sit
    on `:host` too, for a stylesheet inside a shadow tree (marimo shows each anywidget in
    one), where `:root` matches nothing; in a page's own stylesheet `:host` matches nothing.

    >>> with_palette("a{color:var(--avz-ink)}").startswith(":where(:root){--avz-forward:")
    True
    """
    return f"{css_variables(':where(:root)')}{css_variables(':host')}\n{css}"


_VAR = re.compile(r"var\(--avz-[\w-]+, (#[0-9A-Fa-f]{6})\)")


def resolve(css: str) -> str:
    """CSS with every `var(--avz-..., #colour)` replaced by its colour.

    >>> resolve(".a{fill: var(--avz-forward, #E69F00)}")
    '.a{fill: #E69F00}'
    """
    return _VAR.sub(r"\1", css)
