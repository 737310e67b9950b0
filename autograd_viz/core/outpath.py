"""Where every export is written, checked before the work and written all or nothing: a GIF of a
network takes half a minute to make, so a path that cannot be written (a missing or read-only
folder, a folder given as the file, the wrong suffix) is refused at once with what to write
instead; then `write_output` (or `replacing`, for a writer that needs a file name) writes it
through `autograd_viz.core._files`, so a full disk part way leaves the old file as it was.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from autograd_viz.core._files import replacing, write_atomically

__all__ = ["output_path", "replacing", "write_output"]


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
    try:  # can a file be made there? (the permission bits do not tell for every user)
        fd, probe = tempfile.mkstemp(prefix=".autograd_viz.", dir=out.parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise PermissionError(
            f"{what}: cannot write in the folder {str(out.parent)!r} "
            f"({err.strerror or err}); write somewhere you can, e.g. your home folder"
        ) from None
    return out


def write_output(path: Path, data: str | bytes) -> Path:
    """Write an export's text or bytes to `path` all or nothing; returns `path`."""
    return write_atomically(path, data)
