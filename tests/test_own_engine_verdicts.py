"""A learner's own engine, judged only by what is true: forward bugs named as forward bugs,
a missing operator as missing (with advice that works when pasted in), a backward() that
never returns stopped with a clear error, and their backward() run once per call."""

from __future__ import annotations

import own_engines as oe
import pytest

import autograd_viz
from autograd_viz.foreign import NumberOutOfRangeError, read_graph

# ---- numbers a node may hold ------------------------------------------------------------------


def test_a_node_holding_bools_is_read_as_one_and_zero_like_our_value():
    x, y = oe.BlogValue(True), oe.BlogValue(3.0)
    z = x * y
    z.backward()
    graph = read_graph(z)
    assert graph.data == (1.0, 3.0, 3.0)
    assert graph.grads == (3.0, 1.0, 1.0)
    assert "data ?" not in autograd_viz.draw(z, check=False).source


def test_a_node_holding_an_int_too_large_for_a_float_says_so():
    z = oe.BlogValue(10**400) * oe.BlogValue(1)
    with pytest.raises(NumberOutOfRangeError, match="a whole number of 401 digits, too large"):
        read_graph(z)
    with pytest.raises(NumberOutOfRangeError, match=r"the largest is about 1\.8e308"):
        autograd_viz.draw(z)
