"""Time limits on a learner's code, so a loop that never ends stops with a message instead of
hanging the notebook: `time_limit` (an interval timer, or a clock-watching trace where no timer
may ring: another thread, the browser edition), `code_time_limit` and `call_with_time_limit` (their
`f`, a code exercise's check, their class read as a graph: `CodeTimeoutError` saying where their
code was still running), and `shallow_stack` (a method that calls itself for ever raises
RecursionError before WebAssembly's stack runs out); their backward() runs under the same limit
(`autograd_viz.open.engines.run`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

from autograd_viz.core._checks import is_number
from autograd_viz.core._watch import PACKAGE_DIR, _theirs
from autograd_viz.core.errors import CodeTimeoutError

__all__ = [
    "DEFAULT_TIMEOUT",
    "call_with_time_limit",
    "code_time_limit",
    "shallow_stack",
    "time_limit",
]

DEFAULT_TIMEOUT = 5.0  # seconds a learner's backward() may run: a tiny graph takes milliseconds
MAX_TIMEOUT = 3600.0  # as explore()'s: longer is a hung notebook in all but name
_RING_AGAIN = 0.05  # seconds between rings once time is up, until their code has stopped
_RINGS = 100  # rings at most (5 s more): then only the trace watches their lines


class _TimeUp(BaseException):
    """Raised inside their code when time is up; a BaseException, so `except Exception`
    in their loop cannot swallow it. `limit` is the `time_limit` that rang: where limits
    nest (a code exercise's check runs `check_engine`), each one reports only its own."""

    def __init__(self, limit: dict) -> None:
        super().__init__()
        self.limit = limit


def _check_timeout(timeout: object) -> float:
    """The seconds their code may run: > 0, and at most an hour (the interval timer refuses
    `inf` or 1e10 with an OverflowError that would name nothing of this)."""
    if not is_number(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT:
        raise ValueError(
            f"timeout must be a number of seconds > 0 and at most {MAX_TIMEOUT:g}, got "
            f"{timeout!r}; e.g. timeout=5"
        )
    return float(timeout)


def _can_ring() -> bool:
    """Whether an interval timer may interrupt this code: the main thread, a platform with
    SIGALRM, and no timer already running (someone else's: leave it alone)."""
    return (
        sys.platform != "emscripten"
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    )



def _kits(code: object) -> bool:
    """Whether `code` is the kit's own (a file inside the package), not the learner's."""
    return code.co_filename.startswith(PACKAGE_DIR)


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[dict]:
    """Stop the code in the block with `_TimeUp` after `seconds`: a learner's loop that never
    ends must not hang the notebook. An interval timer (SIGALRM) where this is the main
    thread and no other timer runs (a kernel's cell, a test); else a trace function that
    looks at the clock on each line (slower, but works in any thread and in Pyodide). It
    yields the limit, which its `_TimeUp` carries: where limits nest, catch only your own
    (`if err.limit is not limit: raise`).

    Once time is up the timer rings every 50 ms more and turns the clock-watching trace on,
    and after the first ring both raise only inside the learner's own code (not the kit's,
    not a library's): a bare `except:` in their loop that swallows one `_TimeUp` meets the
    next on its next line, while the clean-up on the way out (this block's `finally`,
    contextlib's, a grader's) runs undisturbed."""
    deadline = time.monotonic() + seconds
    state = {"on": True}

    def tick(frame, event, arg):
        if not state["on"]:
            return None  # the block is over: stop tracing this frame
        # on a new line only (not as an exception unwinds) and only in their own code
        if event == "line" and time.monotonic() > deadline and _theirs(frame):
            raise _TimeUp(state)
        return tick

    previous = sys.gettrace()

    def ring(signum, frame):
        if not state["on"]:
            return
        # everything this handler calls comes before the trace is on: none of it is theirs
        up, here = _TimeUp(state), "rang" not in state or _theirs(frame)
        state["rang"] = state.get("rang", 0) + 1
        if state["rang"] >= _RINGS:  # enough: ring no more, whatever became of the block
            signal.setitimer(signal.ITIMER_REAL, 0)
        sys.settrace(tick)
        below = frame
        while below is not None:
            below.f_trace = tick
            below = below.f_back
        if here:
            raise up

    if _can_ring():
        old = signal.getsignal(signal.SIGALRM)
        try:
            signal.signal(signal.SIGALRM, ring)
            signal.setitimer(signal.ITIMER_REAL, seconds, _RING_AGAIN)
        except (OSError, ValueError):  # not allowed here after all: watch the clock instead
            signal.signal(signal.SIGALRM, old if old is not None else signal.SIG_DFL)
        else:
            try:
                yield state
            finally:
                state["on"] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old if old is not None else signal.SIG_DFL)
                sys.settrace(previous)
            return

    sys.settrace(tick)
    try:
        yield state
    finally:
        state["on"] = False
        sys.settrace(previous)


@contextlib.contextmanager
def shallow_stack(room: int = 100) -> Iterator[None]:
    """Let code in the block call at most `room` levels deeper than here. A learner's method
    that calls itself for ever (an `__rsub__` written as `other - self`, or one of the kit's
    trial fixes on a class without `__neg__`) must raise RecursionError, which the kit
    reports: in the browser edition WebAssembly's own stack runs out long before Python's
    default limit of 1000, and that kills the kernel instead."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(min(old, depth + room))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _frames(err: BaseException) -> list:
    frames = []
    tb = err.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return frames


def _where_code(frames: list) -> str:
    """The function, file and line of their code that was running (the last frame outside
    the kit), as "in `f` (cell.py, line 3)"; empty when none of it was."""
    theirs = [f for f in frames if not _kits(f.f_code)]
    if not theirs:
        return ""
    f = theirs[-1]
    return f"in `{f.f_code.co_name}` ({os.path.basename(f.f_code.co_filename)}, line {f.f_lineno})"


@contextlib.contextmanager
def code_time_limit(what: str, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    """Run the block within `timeout` seconds, else `CodeTimeoutError` saying where the
    learner's code was still running, in the words `backward()`'s time limit uses.

    Why: any learner's code the kit runs (explore's `f` on every slider move, a code
    exercise's check, their class's properties as their graph is read) must not hang the
    notebook. `what` names it in the message: "your f", "Your `neuron`".

    >>> with code_time_limit("your f", timeout=1):
    ...     print(2 + 1)
    3
    """
    timeout = _check_timeout(timeout)
    try:
        with time_limit(timeout) as limit:
            yield
    except _TimeUp as err:
        if err.limit is not limit:
            raise
        where = _where_code(_frames(err))
        at = f": it was still running {where}" if where else ""
        raise CodeTimeoutError(
            f"{what} did not return within {timeout:g} s (timeout={timeout:g}){at}. Check "
            "that loop: a `while` whose condition never changes, or a function that calls "
            "itself for ever. If it is only slow, pass a longer timeout=."
        ) from None


def call_with_time_limit(
    fn: Callable[..., object], /, *args: object, what: str, timeout: float = DEFAULT_TIMEOUT,
    **kwargs: object,
) -> object:  # fmt: skip
    """`fn(*args, **kwargs)` within `timeout` seconds (`code_time_limit`), else
    `CodeTimeoutError` saying where it was still running.

    >>> call_with_time_limit(lambda x: x + 1, 2, what="your f")
    3
    """
    with code_time_limit(what, timeout):
        return fn(*args, **kwargs)
