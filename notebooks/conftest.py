"""Prepare the environment nbval runs the notebooks in.

nbval compares every text output, stderr included. In a fresh environment (a new CI machine,
a new Binder image) matplotlib builds its font cache on first import and, if that takes more
than a few seconds, logs "Matplotlib is building the font cache" to stderr: the first notebook
that plots would then differ from its committed outputs for a reason that has nothing to do with
the lesson. Building the cache here, once, before any notebook runs, removes that noise.
"""

from __future__ import annotations


def pytest_sessionstart(session) -> None:
    import matplotlib.font_manager  # noqa: F401  (a core dependency; importing builds the cache)
