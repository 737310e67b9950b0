"""Running a learner's own backward pass once, recorded, within a time limit: `run_backward` calls
their `backward()` (so their topological order is the one recorded) with each node's `_backward`
wrapped by a recorder, and puts every `grad` and `_backward` back afterwards, so their graph is
left exactly as it was; a loop that never ends raises `BackwardTimeoutError` instead of hanging the
notebook. The recorded `BackwardRun` is what the rest of `autograd_viz.engines` works from (`check`
judges it, `replay` shows it in every picture), so their backward() runs at most once per public
call.
"""

from __future__ import annotations

import contextlib
import functools
import numbers
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from autograd_viz._checks import is_number
from autograd_viz._watch import _theirs
from autograd_viz.engines.ops import canonical_op, method_name
from autograd_viz.engines.read import ForeignGraph
from autograd_viz.errors import BackwardTimeoutError, CodeTimeoutError

__all__ = [
    "DEFAULT_TIMEOUT",
    "BackwardRun",
    "BackwardTimeoutError",
    "Call",
    "CodeTimeoutError",
    "call_with_time_limit",
    "code_time_limit",
    "run_backward",
    "shallow_stack",
    "time_limit",
]

DEFAULT_TIMEOUT = 5.0  # seconds a learner's backward() may run: a tiny graph takes milliseconds
MAX_TIMEOUT = 3600.0  # as explore()'s: longer is a hung notebook in all but name
_RING_AGAIN = 0.05  # seconds between rings once time is up, until their code has stopped
_RINGS = 100  # rings at most (5 s more): then only the trace watches their lines


# ---- a time limit on their code ---------------------------------------------------------------


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


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _kits(code: object) -> bool:
    """Whether `code` is the kit's own (a file inside the package), not the learner's."""
    return code.co_filename.startswith(_PACKAGE)


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
        if event == "line" and time.monotonic() > deadline and _theirs(frame.f_code):
            raise _TimeUp(state)
        return tick

    previous = sys.gettrace()

    def ring(signum, frame):
        if not state["on"]:
            return
        # everything this handler calls comes before the trace is on: none of it is theirs
        up, here = _TimeUp(state), "rang" not in state or _theirs(frame.f_code)
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


def _where(err: BaseException, graph: ForeignGraph) -> str:
    """Where their code was when time ran out: the function, file and line, and the node
    whose `_backward` it was running, if any."""
    frames = _frames(err)
    i = None  # the node whose `_backward` ran: the `_running` local of the kit's caller
    for f in frames:
        if "_running" in f.f_locals:
            i = f.f_locals["_running"]
    text = _where_code(frames)
    if i is not None:
        op = canonical_op(graph.ops[i], len(graph.operands[i]))
        method = method_name(graph.nodes[i], op) or graph.ops[i] or "an operation"
        label = graph.labels[i] or f"node {i}"
        text += f", inside the `_backward` of {label} (made by your `{method}`)"
    return text.lstrip(", ")


def _timed_out(what: str, seconds: float, where: str) -> BackwardTimeoutError:
    at = f": it was still running {where}" if where else ""
    return BackwardTimeoutError(
        f"{what} did not return within {seconds:g} s (timeout={seconds:g}){at}. Check that "
        "loop: a `while` whose condition never changes, a topological sort that never marks "
        "a node visited, or a `_backward` that calls backward() again. Every grad is as it "
        "was. If your graph is only slow, pass a longer timeout=."
    )


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


# ---- running their backward pass ------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One `_backward()` call of the learner's backward pass.

    `node` is the index of the node whose rule ran, `out_grad` its `grad` when it ran,
    `sent[i]` what the call added to operand node i's `grad` (one entry per distinct
    operand), `before[i]` that operand's `grad` just before the call.
    """

    node: int
    out_grad: float
    sent: dict[int, float]
    before: dict[int, float]


@dataclass(frozen=True)
class BackwardRun:
    """The learner's backward pass as recorded: the calls in the order they ran, every
    node's `grad` at the end, and whose order it was ("your backward()" or "the kit's
    order", with the reason in `note`)."""

    calls: tuple[Call, ...]
    grads: tuple[float, ...]
    order: str
    note: str = ""
    errors: tuple[tuple[int, str], ...] = ()  # (node, what its `_backward` raised)


class _Recorder:
    """Stands in for one node's `_backward` while their backward() runs."""

    __slots__ = ("index", "original", "graph", "log")

    def __init__(self, index, original, graph, log):
        self.index, self.original, self.graph, self.log = index, original, graph, log

    def __call__(self, *args, **kwargs):
        self.log.append(_snapshot_call(self.graph, self.index, self.original, args, kwargs))


def _grad(node: object) -> float:
    g = node.grad
    return float(g) if isinstance(g, numbers.Real) else float("nan")


def _snapshot_call(graph: ForeignGraph, i: int, rule: Callable, args=(), kwargs=None) -> Call:
    _running = i
    node = graph.nodes[i]
    distinct = list(dict.fromkeys(graph.operands[i]))
    before = {p: _grad(graph.nodes[p]) for p in distinct}
    out_grad = _grad(node)
    rule(*args, **(kwargs or {}))
    sent = {p: _grad(graph.nodes[p]) - before[p] for p in distinct}
    return Call(i, out_grad, sent, before)


def run_backward(graph: ForeignGraph, *, timeout: float = DEFAULT_TIMEOUT) -> BackwardRun:
    """Run the learner's backward pass on `graph`, record every call, restore everything.

    Each `_backward()` call is recorded: which node, its `grad` at that moment, and what the
    call added to each operand's `grad`. Their `backward()` runs with each node's `_backward`
    wrapped by a recorder; where that cannot be done the closures are called directly, in the
    kit's order.
    Every `grad` starts at 0 for the run (as in a freshly built graph) and gets its old
    value back afterwards, the very same object; so do the `_backward` attributes. Their
    code may run `timeout` seconds in all; past that, `BackwardTimeoutError` says where it
    was still running.
    """
    timeout = _check_timeout(timeout)
    nodes = graph.nodes
    saved = [node.grad for node in nodes]
    log: list[Call] = []
    installed: list[tuple[object, bool, object]] = []  # node, had own attribute, original
    order, note = "your backward()", ""
    try:
        for node in nodes:
            node.grad = 0.0
        root = nodes[-1]
        backward = getattr(root, "backward", None)
        if not callable(backward):
            note = "your class has no backward() method"
        else:
            for i, node in enumerate(nodes):
                original = getattr(node, "_backward", None)
                if not callable(original):
                    continue
                own = "_backward" in getattr(node, "__dict__", {})
                try:
                    node._backward = _Recorder(i, original, graph, log)
                except (AttributeError, TypeError):
                    note = f"{type(node).__name__}._backward cannot be replaced"
                    break
                installed.append((node, own, original))
            if not note:
                try:
                    with time_limit(timeout) as limit:
                        backward()
                except _TimeUp as err:
                    if err.limit is not limit:
                        raise
                    raise _timed_out("your backward()", timeout, _where(err, graph)) from None
                except RecursionError:
                    note = "your backward() hit Python's recursion limit"
                except Exception as err:  # their code: report it, then show the kit's order
                    note = f"your backward() raised {type(err).__name__}: {err}"
        _restore_rules(installed)
        installed = []
        errors: list[tuple[int, str]] = []
        if note:
            order = "the kit's order"
            try:
                with time_limit(timeout) as limit:
                    log = _kit_order(graph, errors)
            except _TimeUp as err:
                if err.limit is not limit:
                    raise
                where = _where(err, graph)
                raise _timed_out("a `_backward` of yours", timeout, where) from None
        grads = tuple(_grad(node) for node in nodes)
    finally:
        _restore_rules(installed)
        for node, g in zip(nodes, saved):
            node.grad = g
    return BackwardRun(tuple(log), grads, order, note, tuple(errors))


def _restore_rules(installed: list[tuple[object, bool, object]]) -> None:
    for node, own, original in installed:
        if own:
            node._backward = original
        else:
            del node._backward


def _kit_order(graph: ForeignGraph, errors: list[tuple[int, str]]) -> list[Call]:
    """Seed the root with 1 and call each closure in reverse topological order (a node that
    stores its local gradients sends `local · grad` instead); a closure that raises is
    recorded in `errors` and the pass goes on without it."""
    for node in graph.nodes:
        node.grad = 0.0
    graph.nodes[-1].grad = 1.0
    log = []
    for i in range(len(graph) - 1, -1, -1):
        local = graph.local_grads[i] if graph.local_grads else None
        if local is not None:
            log.append(_snapshot_call(graph, i, functools.partial(_send_local, graph, i, local)))
            continue
        rule = getattr(graph.nodes[i], "_backward", None)
        if graph.operands[i] and callable(rule):
            try:
                log.append(_snapshot_call(graph, i, rule))
            except Exception as err:  # their code: name it at its node
                errors.append((i, f"{type(err).__name__}: {err}"))
    return log


def _send_local(graph: ForeignGraph, i: int, local: tuple[float, ...]) -> None:
    """What a correct microgpt-style backward() does at node i: each operand gets
    `local · grad` (the kit's order, for a pass their backward() could not make)."""
    g = _grad(graph.nodes[i])
    for p, slope in zip(graph.operands[i], local):
        graph.nodes[p].grad += slope * g
