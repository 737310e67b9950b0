"""One palette: every colour the package paints with is a row of `view.palette.COLORS`.

What Python writes colours through `var(--avz-<name>, <fallback>)`, and each fallback must be
that row's colour (a stale copy would show only where nobody sets the property); the
stylesheets and scripts of `front/static/` colour through `var(--avz-<name>)` alone, with every
property declared before them, the dark theme's rows too; any other literal colour in the
package's Python, CSS or JavaScript is a copy of the palette waiting to drift.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from player_colours import PLAYER_COLOURS, rgb

import autograd_viz
from autograd_viz.view.palette import COLORS, css_variables, resolve, var

PACKAGE = Path(autograd_viz.__file__).parent
FALLBACK = re.compile(r"var\(--avz-([\w-]+),\s*(#[0-9A-Fa-f]{3,8})\)")
DECLARED = re.compile(r"--avz-[\w-]+\s*:\s*#[0-9A-Fa-f]{3,8}\b")  # a theme sets a property
HEX = re.compile(r"(?<![&\w])#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})\b")  # not &#128512; or ids


def _sources() -> list[Path]:
    return sorted(
        path
        for path in PACKAGE.rglob("*")
        if path.suffix in (".py", ".css", ".js")
        and "vendor" not in path.parts  # reveal.js and KaTeX, copied as published
        and path.name != "palette.py"
    )


def test_the_scan_reads_the_package_sources():
    names = {path.name for path in _sources()}
    assert {"render.py", "quiz.py", "exercises.py", "player.css", "page.css", "quiz.css"} <= names


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_css_fallback_is_the_palette_colour(path):
    text = path.read_text(encoding="utf-8")
    wrong = [m[0] for m in FALLBACK.finditer(text) if COLORS.get(m[1], "").lower() != m[2].lower()]
    assert wrong == [], f"set these fallbacks to the palette's colour (view/palette.py): {wrong}"


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_literal_colour_outside_the_palette(path):
    text = DECLARED.sub("", FALLBACK.sub("", path.read_text(encoding="utf-8")))
    literals = HEX.findall(text)
    assert literals == [], f"add a row to view/palette.COLORS and use it instead of {literals}"


def test_a_stale_fallback_or_a_literal_colour_is_caught():
    assert FALLBACK.search("color: var(--avz-ink, #000000)")[2] != COLORS["ink"]
    assert HEX.findall("border: 1px solid #bbb; fill: #E69F00") == ["#bbb", "#E69F00"]
    assert HEX.findall("&#128512; href='#avz-fit'") == []


def test_var_css_variables_and_resolve_agree():
    assert var("forward") == "var(--avz-forward, #E69F00)"
    assert resolve(f"a{{color:{var('curve')}}}") == f"a{{color:{COLORS['curve']}}}"
    declared = dict(re.findall(r"--avz-([\w-]+):(#[0-9A-Fa-f]{6})", css_variables()))
    assert declared == COLORS


# ---- the stylesheets copy no colour: the palette's properties are declared before them --------

STATIC = PACKAGE / "front" / "static"
STYLESHEETS = sorted(STATIC.glob("*.css"))
STATIC_FILES = sorted([*STYLESHEETS, *STATIC.glob("*.js")])
USED = re.compile(r"var\(--avz-([\w-]+)\s*[,)]")
SET_HERE = re.compile(r"--avz-([\w-]+)\s*:")


@pytest.mark.parametrize("path", STATIC_FILES, ids=lambda p: p.name)
def test_a_static_file_copies_no_colour_from_the_palette(path):
    """Not even a fallback: player.css's dark theme and ask.js's `var(--avz-active, #D55E00)`
    were copies. The palette declares every property, dark-theme rows included, before the
    stylesheets; a script's styles use the properties its host's stylesheet declares."""
    literals = HEX.findall(path.read_text(encoding="utf-8"))
    assert literals == [], f"colour through var(--avz-<name>) alone, not {literals}"


@pytest.mark.parametrize("path", STATIC_FILES, ids=lambda p: p.name)
def test_every_property_a_static_file_uses_is_a_palette_row(path):
    text = path.read_text(encoding="utf-8")
    unknown = set(USED.findall(text)) - set(COLORS) - set(SET_HERE.findall(text))
    assert unknown == set(), f"no palette row for --avz-{sorted(unknown)}"


def test_every_widget_declares_the_palette_its_scripts_colour_by():
    """ask.js (in the player and the explorer) and player.js's explore mode copy no colour:
    the widget's stylesheet declares the properties they use."""
    from autograd_viz.front.explore import Explorer
    from autograd_viz.player import Player

    for widget in (Player, Explorer):
        assert widget._css.startswith(css_variables(":where(:root)")), widget.__name__
        assert css_variables(":host") in widget._css  # marimo puts it in a shadow tree


def test_the_dark_theme_takes_every_dark_row_of_the_palette():
    sheets = ("player.css", "quiz.css")
    text = "".join((STATIC / name).read_text(encoding="utf-8") for name in sheets)
    dark = {name[len("dark-") :] for name in COLORS if name.startswith("dark-")}
    set_dark = set(re.findall(r"--avz-([\w-]+): var\(--avz-dark-\1\)", text))
    assert set_dark == dark


def _ratio(one: str, other: str) -> float:
    """WCAG 2's contrast ratio of two #RRGGBB colours."""

    def luminance(colour: str) -> float:
        rgb = [int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


PLAYER_TEXT = (
    *("ink", "history", "muted", "forward-text", "backward-text"),
    *("right-text", "wrong-text"),  # the quiz's verdicts
)
DARK_OUTPUTS = ("#111111", "#212121")  # JupyterLab Dark's layout colours 0 and 1


@pytest.mark.parametrize("name", PLAYER_TEXT)
def test_the_players_text_reaches_4_5_to_1_in_light_and_dark_themes(name):
    assert _ratio(COLORS[name], COLORS["paper"]) >= 4.5
    for background in (*DARK_OUTPUTS, COLORS["dark-card"]):  # a button's text on its card
        assert _ratio(COLORS[f"dark-{name}"], background) >= 4.5, background


@pytest.mark.parametrize("path", STYLESHEETS, ids=lambda p: p.name)
def test_a_stylesheet_comes_with_every_palette_property_declared_first(path):
    from autograd_viz.front.static import static_text

    text = static_text(path.name)
    head, _, body = text.partition("\n")
    # zero specificity on the page, so any theme wins; and in a shadow tree (marimo)
    assert head == css_variables(":where(:root)") + css_variables(":host")
    assert body == path.read_text(encoding="utf-8")


def test_a_theme_still_wins_over_the_declared_palette():
    """The deck's projector look sets ink and greys on :root; the palette's own declarations
    sit on :where(:root), which has no specificity, so the deck's come out on top."""
    from autograd_viz.front.static import static_text

    deck = static_text("deck.css")
    assert deck.startswith(":where(:root){")
    assert ":root{--avz-ink:var(--avz-projector-ink)" in deck


_COMPUTED = """([selector, properties]) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const style = getComputedStyle(el);
  return properties.map((p) => style.getPropertyValue(p));
}"""


def test_the_page_and_the_deck_show_the_palette_colours_in_a_browser(chromium, tmp_path):
    """With no fallback in page.css or deck.css, a property the palette failed to declare
    would leave the text black and the bars transparent: the browser shows each row."""
    import nbformat

    from autograd_viz import Value
    from autograd_viz.export import save_html
    from autograd_viz.exports.slides import save_slides

    z = Value(2.0, label="x") * Value(3.0, label="y")
    page_file = save_html(z, tmp_path / "page.html")
    nb = nbformat.v4.new_notebook()
    slide = {"slideshow": {"slide_type": "slide"}}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Colours\n\nA [link](#colours).", metadata=slide),
        nbformat.v4.new_code_cell("print(6)"),
    ]
    nbformat.write(nb, tmp_path / "deck.ipynb")
    deck_file = save_slides(tmp_path / "deck.ipynb", tmp_path / "deck.html")
    expected = {
        page_file: [
            ("body", ["color"], [rgb("ink")]),
            (".avz-caption", ["color"], [rgb("ink")]),  # the player's caption: ink, bold
            (".avz-help", ["color"], [rgb("muted")]),
            (".avz-table summary", ["color"], [rgb("muted")]),
        ],
        deck_file: [
            ("body", ["background-color"], [rgb("paper")]),
            (".reveal", ["color"], [rgb("projector-ink")]),  # the deck's theme wins
            (".reveal a", ["color"], [rgb("link")]),
            (".reveal pre.avz-code", ["background-color", "border-left-color"],
             [rgb("code"), rgb("projector-rule")]),
        ],
    }  # fmt: skip
    page = chromium.new_page()
    try:
        for path, checks in expected.items():
            page.goto(path.as_uri())
            for selector, properties, colours in checks:
                got = page.evaluate(_COMPUTED, [selector, properties])
                assert got == colours, (path.name, selector, got)
    finally:
        page.close()


def test_a_dark_theme_lights_the_players_text_and_keeps_its_drawing_dark_on_light(
    chromium, tmp_path
):
    """On a JupyterLab dark theme the player's text takes the palette's dark rows, and inside
    the drawing (its own light card) the properties are unset: the drawing's var() fallbacks,
    the light palette, show."""
    from autograd_viz import Value
    from autograd_viz.export import save_html

    z = Value(2.0, label="x") * Value(3.0, label="y")
    page = chromium.new_page()
    try:
        page.goto(save_html(z, tmp_path / "page.html").as_uri())
        page.evaluate('document.body.setAttribute("data-jp-theme-light", "false")')
        got = page.locator(".avz-player").evaluate(PLAYER_COLOURS)
    finally:
        page.close()
    assert got == {
        "caption": rgb("dark-ink"),
        "button": rgb("dark-card"),
        "forward": rgb("dark-forward-text"),
        "computed": rgb("ink"),
        "pending": rgb("muted"),
    }
