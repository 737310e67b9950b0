"""A learner's backward pass run once and recorded (`autograd_viz.open.engines.run`): their order,
their rules, every `grad` left as it was."""

from __future__ import annotations

import os
import signal
import sys
import time

import own_engines as oe
import pytest

from autograd_viz.core.errors import BackwardTimeoutError, CodeTimeoutError
from autograd_viz.core.time_limits import call_with_time_limit
from autograd_viz.open.engines.read import read_graph
from autograd_viz.open.engines.run import run_backward

if os.environ.get("CI"):  # CI installs the test extra: a missing peer is a broken setup
    import micrograd.engine as mg
else:
    mg = pytest.importorskip("micrograd.engine", reason="pip install micrograd==0.1.0")

ENGINES = {"micrograd": lambda: mg.Value, "blog": lambda: oe.BlogValue}


# ---- their backward pass, step by step, and the graph left as it was -------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("backward_first", [False, True])
def test_running_their_backward_leaves_every_grad_byte_identical(engine, backward_first):
    z = oe.square_of_ab_plus_c(ENGINES[engine]())
    if backward_first:
        z.backward()
    before = oe.grads(z)
    rules = [(id(v), v._backward) for v in oe.nodes(z)]
    run = run_backward(read_graph(z))
    assert oe.grads(z) == before
    assert [(id(v), v._backward) for v in oe.nodes(z)] == rules
    assert run.grads[-1] == 1 and run.grads[:3] == (42, 28, 14)


@pytest.mark.parametrize("engine", ENGINES)
def test_their_calls_are_recorded_with_what_each_sent(engine):
    g = read_graph(oe.sum_times_y(ENGINES[engine]()))
    run = run_backward(g)
    assert run.order == "your backward()"
    ops = [(g.labels[c.node], c.out_grad, c.sent) for c in run.calls if g.operands[c.node]]
    assert ops == [("z", 1, {2: 3, 1: 5}), ("s", 3, {0: 3, 1: 3})]
    assert run.grads == (3, 8, 3, 1)


def test_a_class_without_backward_is_stepped_in_the_kits_order():
    x, y = oe.TinyValue(2.0), oe.TinyValue(3.0)
    g = read_graph((x + y) * y)
    run = run_backward(g)
    assert run.order == "the kit's order"
    assert run.note == "your class has no backward() method"
    assert run.grads == (3, 8, 3, 1)
    assert (x.grad, y.grad) == (0.0, 0.0)


def test_a_backward_that_raises_is_reported_and_stepped_in_the_kits_order():
    class Broken(oe.BlogValue):
        def backward(self):
            raise RuntimeError("oops")

    z = oe.sum_times_y(Broken)
    run = run_backward(read_graph(z))
    assert run.note == "your backward() raised RuntimeError: oops"
    assert run.grads == (3, 8, 3, 1)


# ---- the time limit against a loop that catches everything ---------------------------------


def _swallows_everything():
    """A learner's loop with a bare `except:` around its body: it catches the time limit's
    first interruption too."""
    while True:
        try:  # noqa: SIM105 - the learner's code under test, as they would write it
            time.sleep(0.01)
        except:  # noqa: E722
            pass


def test_a_bare_except_in_their_loop_cannot_swallow_the_time_limit():
    # the interval timer rang once; the bare except caught it and the loop ran for ever
    with pytest.raises(CodeTimeoutError) as caught:
        call_with_time_limit(_swallows_everything, what="your f", timeout=0.2)
    assert str(caught.value).startswith(
        "your f did not return within 0.2 s (timeout=0.2): it was still running in "
        "`_swallows_everything` (test_engines_run.py, line "
    )
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no timer left ringing
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
    assert sys.gettrace() is None or "coverage" in type(sys.gettrace()).__module__
    assert call_with_time_limit(lambda: 2 + 1, what="your f", timeout=0.2) == 3


def test_a_learners_backward_with_a_bare_except_loop_is_stopped_too():
    class Swallows(oe.BlogValue):
        def backward(self):
            _swallows_everything()

    z = oe.sum_times_y(Swallows)
    with pytest.raises(BackwardTimeoutError, match=r"within 0\.2 s .*in `_swallows_everything`"):
        run_backward(read_graph(z), timeout=0.2)


# ---- whose code a frame runs: the time limit raises only in the learner's -----------------


def _frames_of(call, filename: str) -> list:
    """The frames `call()` entered whose code has this file name."""
    frames: list = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == filename:
            frames.append(frame)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return frames


def test_code_that_python_generates_for_a_library_or_the_kit_is_not_the_learners():
    # a namedtuple's __new__ and a dataclass's __init__ are text run by exec, file "<string>";
    # the time limit once raised inside pytest's own namedtuple, taking it for a learner's
    from collections import namedtuple

    from autograd_viz.core._watch import _theirs
    from autograd_viz.core.graph import Graph

    point = namedtuple("Point", "x y")
    generated = _frames_of(lambda: point(1, 2), "<string>")
    generated += _frames_of(lambda: Graph(nodes=()), "<string>")
    assert len(generated) == 2
    assert not any(_theirs(frame) for frame in generated)
    # text a learner's answer runs through exec (no module of its own) stays theirs
    namespace: dict = {}
    exec(compile("def f():\n    return 1\n", "<your answer for f>", "exec"), namespace)
    [answer] = _frames_of(namespace["f"], "<your answer for f>")
    assert _theirs(answer)
    cell: dict = {"__name__": "__main__"}
    exec("def g():\n    return 2\n", cell)
    [in_a_cell] = _frames_of(cell["g"], "<string>")
    assert _theirs(in_a_cell)
