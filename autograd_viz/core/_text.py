"""How a label is written: `clean_label`, the one cleaning the graph snapshot gives every label, so
a drawing, the derivation under it, the player, a quiz and every exported page show the same name.
Characters XML and HTML cannot carry and the bidirectional controls (left open, they reorder the
text around the label, so an equation reads backwards) become U+FFFD, and a name longer than anyone
could read is clipped with "…" (`clip`, `MAX_LINES` lines of `MAX_LINE` characters).
"""

from __future__ import annotations

__all__ = ["MAX_LINE", "MAX_LINES", "clean_label", "clip"]

MAX_LINE = 60
MAX_LINES = 8

_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_BAD = [c for c in range(32) if c != ord("\n")] + [0x7F, *range(0xD800, 0xE000), 0xFFFE, 0xFFFF]
_BAD += _BIDI
_CLEAN: dict[int, str] = dict.fromkeys(_BAD, "\ufffd")
_CLEAN[ord("\t")] = " "


def clip(text: str, width: int = MAX_LINE, lines: int = MAX_LINES) -> str:
    """Shorten text to at most `lines` lines of `width` characters; "…" marks each cut.

    >>> clip("abcdef", width=4), clip("a|b|c".replace("|", chr(10)), lines=2)
    ('abc…', 'a\\nb…')
    """
    rows = str(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    cut = len(rows) > lines
    rows = [r if len(r) <= width else r[: width - 1] + "…" for r in rows[:lines]]
    if cut and not rows[-1].endswith("…"):
        rows[-1] = rows[-1][: width - 1] + "…"
    return "\n".join(rows)


def clean_label(text: str) -> str:
    """A label as every viewer shows it: clipped, and safe for XML, HTML and UTF-8.

    C0 controls, DEL, lone surrogates, U+FFFE, U+FFFF and the bidirectional embedding,
    override and isolate controls (U+202A–U+202E, U+2066–U+2069) become U+FFFD (�), and a tab
    becomes a space.

    >>> clean_label("a\\ud800b\\x00c\\td"), len(clean_label("x" * 100_000))
    ('a�b�c d', 60)
    >>> clean_label("x\\u202ey")  # a right-to-left override would flip what follows it
    'x�y'
    """
    return clip(text.replace("\r\n", "\n").replace("\r", "\n").translate(_CLEAN))
