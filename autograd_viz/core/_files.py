"""Write a file so that a failed write never leaves a truncated file in place of a good one: every
export and the teacher's CSV write here, to a temporary file beside the target (same folder, so the
same disk) that then replaces it in one step (`os.replace`). A full disk, a crash or an error part
way leaves the old file as it was and no temporary file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["replacing", "write_atomically"]


@contextlib.contextmanager
def replacing(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside `path` to write to; on success it replaces `path`.

    Why: a writer that needs a file name (matplotlib, graphviz, a zip) still gets an
    all-or-nothing write. On an error the temporary file is removed and `path` is untouched.

    >>> import tempfile; p = Path(tempfile.mkdtemp()) / "a.txt"
    >>> with replacing(p) as tmp: _ = tmp.write_text("new")
    >>> p.read_text()
    'new'
    """
    target = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{target.name[:40]}.", suffix=".part",
                                dir=target.parent)  # fmt: skip
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if target.exists():  # keep the permissions the old file had
            with contextlib.suppress(OSError):
                os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_atomically(path: str | os.PathLike, data: str | bytes, encoding: str = "utf-8") -> Path:
    """Write `data` (text or bytes) to `path` all or nothing; returns `path` as a Path.

    >>> import tempfile; p = Path(tempfile.mkdtemp()) / "a.txt"
    >>> write_atomically(p, "hello").read_text()
    'hello'
    """
    target = Path(path)
    with replacing(target) as tmp, open(tmp, "wb") as f:
        f.write(data.encode(encoding) if isinstance(data, str) else data)
        f.flush()
        os.fsync(f.fileno())
    return target
