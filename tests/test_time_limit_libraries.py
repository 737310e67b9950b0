"""The time limit on a learner's code stops only the learner's code, wherever Python keeps its
standard library. In the browser edition (Pyodide) the standard library is loaded from a zip,
/lib/python314.zip, which sysconfig does not name; contextlib's frames then counted as the
learner's, and a limit that ran out as a grader finished raised the kit's private `_TimeUp` from
contextlib's `__exit__`, outside the limit's own handler: notebook 05's teacher cell
(`topo_task.try_answers`) stopped with `_TimeUp` instead of a verdict on a slow machine."""

from __future__ import annotations

import contextlib
import os
import sysconfig
import time
import types

import pytest

from autograd_viz.code_exercises import CodeExercise
from autograd_viz.core import _watch, time_limits

ELSEWHERE = {"stdlib": "/lib/python3.14", "purelib": "/lib/python3.14/site-packages"}


def test_the_folder_the_standard_library_is_loaded_from_is_a_library(monkeypatch):
    monkeypatch.setattr(sysconfig, "get_paths", lambda *args, **kwargs: dict(ELSEWHERE))
    libraries = _watch._library_dirs()
    assert os.path.dirname(contextlib.__file__) + os.sep in libraries
    assert "/lib/python3.14/site-packages/" in libraries


def test_a_limit_running_out_as_the_grader_returns_gives_a_verdict(monkeypatch):
    """As in the browser: the clock-watching limit (no timer), sysconfig naming folders the
    standard library is not in, and the clock passing the deadline just as the check returns
    (its last line sets it), so the next lines to run are the limit's own way out through
    contextlib. The learner gets a verdict, never the kit's `_TimeUp`."""
    monkeypatch.setattr(sysconfig, "get_paths", lambda *args, **kwargs: dict(ELSEWHERE))
    monkeypatch.setattr(_watch, "_LIBRARIES", _watch._library_dirs())
    monkeypatch.setattr(time_limits, "_can_ring", lambda: False)
    late = {"by": 0.0}
    clock = types.SimpleNamespace(monotonic=lambda: time.monotonic() + late["by"])
    monkeypatch.setattr(time_limits, "time", clock)
    task = CodeExercise(
        "Write triple(x) = 3·x.",
        lambda f: (f(2) == 6, late.update(by=1e6))[0],  # one line: none of theirs runs after
        name="triple",
        model_answer="def triple(x):\n    return 3 * x",
    )
    try:
        verdict = task.grade(lambda x: 3 * x)
    except BaseException as err:  # the point: nothing of the kit's escapes
        pytest.fail(f"grading raised {type(err).__module__}.{type(err).__name__}: {err}")
    assert verdict.ok, verdict
