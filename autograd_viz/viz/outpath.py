"""Check where an export will be written before the work is done.

A GIF of a network takes half a minute to make; a path that cannot be written (a folder
that does not exist, a folder given as the file, a number, the wrong suffix) should say
so at once, not after the work, and say what to write instead.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["output_path"]


def output_path(path: object, what: str, suffixes: tuple[str, ...] = ()) -> Path:
    """`path` as a Path that `what` (e.g. "save_html") can write: a str or PathLike, in a
    folder that exists, not a folder itself, ending in one of `suffixes` (any if empty).

    >>> output_path("z.html", "save_html", (".html",)).name
    'z.html'
    >>> output_path(5, "save_html")
    Traceback (most recent call last):
    ...
    TypeError: save_html needs a file path (a str or pathlib.Path), got int: 5
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"{what} needs a file path (a str or pathlib.Path), got {type(path).__name__}: "
            f"{str(path)[:60]}"
        )
    out = Path(path).expanduser()
    example = out / f"animation{suffixes[0] if suffixes else ''}"
    if suffixes and out.suffix.lower() not in suffixes and not out.is_dir():
        names = " or ".join(suffixes)
        raise ValueError(f"{what} needs a path ending in {names}, got {str(out)!r}")
    if out.is_dir():
        raise IsADirectoryError(
            f"{what}: {str(out)!r} is a folder; give a file name in it, e.g. {str(example)!r}"
        )
    if not out.parent.is_dir():
        raise FileNotFoundError(
            f"{what}: the folder {str(out.parent)!r} does not exist; create it first "
            f"(Path({str(out.parent)!r}).mkdir(parents=True)) or write somewhere else"
        )
    return out
