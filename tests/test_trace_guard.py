"""trace() and derivation() refuse a graph too large to read before reading it, as draw() does.

Before the guard a 1e5-op chain took 13.6 s and 437 MB to trace, and one input used 1e5 times
~79 s and 1 GB with a last line of 788,908 characters. The refusal is pinned by counting the
work (values read, bytes allocated), not by a clock.
"""

from __future__ import annotations

import tracemalloc

import pytest
from examples import tanh_chain

import autograd_viz.open.size as guard
from autograd_viz import Value
from autograd_viz.trace import MAX_NODES, derivation, trace
from autograd_viz.view.render import GraphTooLargeError


def _one_input_used(n: int) -> Value:
    x = Value(0.5, label="x")
    z = x
    for _ in range(n):
        z = z + x
    return z


@pytest.fixture
def reads(monkeypatch) -> list[int]:
    """How many values the guard's walk reads (one entry per value)."""
    seen: list[int] = []
    real = guard.read_operands

    def counting(v):
        seen.append(1)
        return real(v)

    monkeypatch.setattr(guard, "read_operands", counting)
    return seen


@pytest.mark.parametrize("build", [tanh_chain, _one_input_used])
@pytest.mark.parametrize("call", [trace, derivation])
def test_a_graph_of_1e5_values_is_refused_after_reading_max_nodes_of_them(build, call, reads):
    root = build(100_000)
    with pytest.raises(GraphTooLargeError, match=r"^trace\(\): this graph has more than 500"):
        call(root)
    assert 0 < len(reads) <= MAX_NODES + 1  # counting stopped at the limit


@pytest.mark.parametrize("build", [tanh_chain, _one_input_used])
def test_the_refusal_allocates_kilobytes_not_the_hundreds_of_megabytes_a_trace_took(build):
    root = build(100_000)
    with pytest.raises(GraphTooLargeError):  # once, so the error's module is imported
        derivation(root)
    tracemalloc.start()
    try:
        with pytest.raises(GraphTooLargeError):
            derivation(root)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 500_000, f"refusing took {peak:,} bytes"


def test_the_refusal_gives_the_viewers_advice():
    with pytest.raises(GraphTooLargeError) as info:
        trace(tanh_chain(MAX_NODES))  # MAX_NODES ops + the input: one value too many
    message = str(info.value)
    assert "counting stopped there, before any work" in message
    assert "a sub-expression (an intermediate Value" in message and "raise max_nodes" in message


def test_raising_max_nodes_traces_the_graph_and_a_graph_at_the_limit_traces_as_before():
    root = tanh_chain(MAX_NODES - 1)  # exactly MAX_NODES values
    assert len(trace(root)) == 2 * MAX_NODES
    bigger = tanh_chain(MAX_NODES)
    assert derivation(bigger, max_nodes=MAX_NODES + 1).count("\n") == 2 * (MAX_NODES + 1) - 1


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "500"])
def test_a_bad_max_nodes_is_a_trace_error(bad):
    from autograd_viz.trace import TraceError

    with pytest.raises(TraceError, match="max_nodes must be a positive int"):
        trace(Value(1.0) * 2, max_nodes=bad)


def test_another_engines_large_graph_is_refused_too():
    mg = pytest.importorskip("micrograd.engine")
    y = mg.Value(0.5)
    for _ in range(2_000):
        y = y.relu()
    with pytest.raises(GraphTooLargeError, match="more than 500 values"):
        trace(y)
