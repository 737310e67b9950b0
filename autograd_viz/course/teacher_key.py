"""The teacher's key, on the standard library only: `hash_teacher_key` makes the salted hash
(PBKDF2-HMAC-SHA256, never the key itself) that `python -m autograd_viz.classroom --make-key
FOLDER` writes next to the notebooks (`write_teacher_key`), and `check_teacher_key` says whether a
key typed into `autograd_viz.exercises.teacher_mode(key=...)` is the one stored here, where
`AUTOGRAD_VIZ_TEACHER=1` cannot be set (the browser edition, a classroom computer).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from autograd_viz.core._files import write_atomically

__all__ = [
    "KEY_ENV",
    "KEY_FILE",
    "MIN_KEY_LENGTH",
    "TeacherKeyError",
    "check_teacher_key",
    "hash_teacher_key",
    "key_matches",
    "write_teacher_key",
]

KEY_FILE = "teacher_key.txt"  # looked for in the current directory: the notebook's folder
KEY_ENV = "AUTOGRAD_VIZ_TEACHER_KEY"
_ITERATIONS = 600_000  # OWASP's advice for PBKDF2-HMAC-SHA256 (Password Storage Cheat Sheet)
MIN_KEY_LENGTH = 15  # NIST SP 800-63B-4: a password that is the only factor, 15 characters
_SCHEME = "pbkdf2_sha256"


class TeacherKeyError(ValueError):
    """A teacher's key cannot be made as asked (empty, or the folder cannot be written)."""


def _pbkdf2(key: bytes, salt: bytes, iterations: int) -> bytes:
    """PBKDF2-HMAC-SHA256 (one block); in plain Python where hashlib lacks it (Pyodide)."""
    try:
        return hashlib.pbkdf2_hmac("sha256", key, salt, iterations)
    except (AttributeError, ValueError):
        pass
    mac = hmac.new(key, digestmod=hashlib.sha256)
    first = mac.copy()
    first.update(salt + b"\x00\x00\x00\x01")
    u = first.digest()
    total = int.from_bytes(u, "big")
    for _ in range(iterations - 1):
        step = mac.copy()
        step.update(u)
        u = step.digest()
        total ^= int.from_bytes(u, "big")
    return total.to_bytes(32, "big")


def hash_teacher_key(key: str, *, salt: bytes | None = None, iterations: int = _ITERATIONS) -> str:
    """The line to store for a teacher's key: `pbkdf2_sha256$iterations$salt$hash` (hex).

    Why: the notebooks' folder (or the browser edition's site) can carry the line; the key it
    was made from cannot be read back from it. Lines made with fewer iterations (100,000
    before) still check: the count is read from the line.

    >>> line = hash_teacher_key("correct horse battery", salt=b"0123456789abcdef", iterations=1000)
    >>> key_matches("correct horse battery", line), key_matches("Correct horse battery", line)
    (True, False)
    """
    if not isinstance(key, str) or not key.strip():
        raise TeacherKeyError("a teacher's key must be non-empty text, e.g. a short sentence")
    if len(key.strip()) < MIN_KEY_LENGTH:
        raise TeacherKeyError(
            f"a teacher's key needs at least {MIN_KEY_LENGTH} characters (this one has "
            f"{len(key.strip())}): its hash ships with the notebooks, where anyone can try "
            "guesses at it. Use a short sentence, e.g. 'seven owls read backprop'."
        )
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = _pbkdf2(key.encode("utf-8"), salt, iterations)
    return f"{_SCHEME}${iterations}${salt.hex()}${digest.hex()}"


def key_matches(key: str, line: str) -> bool:
    """True when `key` is the one `line` (from `hash_teacher_key`) was made from."""
    try:
        scheme, iterations, salt, digest = line.strip().split("$")
        if scheme != _SCHEME or not 0 < int(iterations) <= 10_000_000:
            return False
        wanted = bytes.fromhex(digest)
        got = _pbkdf2(key.encode("utf-8"), bytes.fromhex(salt), int(iterations))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, wanted)


def write_teacher_key(key: str, folder: str | Path = ".") -> Path:
    """Write the salted hash of `key` to `folder/teacher_key.txt` (the notebooks' folder)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise TeacherKeyError(f"{folder} is not a folder: give the folder holding the notebooks")
    path = folder / KEY_FILE
    line = hash_teacher_key(key)
    try:
        write_atomically(
            path,
            "# The teacher's key for autograd_viz's teacher_mode(key=...): a salted hash, "
            "not the key.\n" + line + "\n",
        )
    except OSError as err:
        raise TeacherKeyError(f"cannot write {path}: {err.strerror or err}") from None
    return path


def _stored_line() -> tuple[str, str] | None:
    """(where, hash line) of the teacher's key here: the environment, else teacher_key.txt."""
    line = os.environ.get(KEY_ENV, "").strip()
    if line:
        return KEY_ENV, line
    path = Path(KEY_FILE)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    lines = [t.strip() for t in text.splitlines() if t.strip() and not t.lstrip().startswith("#")]
    return (KEY_FILE, lines[0]) if lines else (KEY_FILE, "")


def check_teacher_key(key: object) -> str | None:
    """None when `key` is the teacher's key set here; else why not, in one sentence.

    Why: `teacher_mode(key=...)` must reveal nothing to a wrong key, and say what to do.
    """
    stored = _stored_line()
    if stored is None:
        return (
            f"No teacher's key is set here: the teacher makes one with python -m "
            f"autograd_viz.classroom --make-key FOLDER (it writes FOLDER/{KEY_FILE}, next "
            f"to the notebooks) or sets {KEY_ENV} to its line."
        )
    where, line = stored
    if not line.startswith(_SCHEME + "$") or line.count("$") != 3:
        return (
            f"{where} does not hold a key made by python -m autograd_viz.classroom "
            "--make-key: make it again."
        )
    if not isinstance(key, str) or not key_matches(key, line):
        return "That is not the teacher's key."
    return None
