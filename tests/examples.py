"""The blog's worked examples as graphs, built fresh for each test that needs one, and the graphs
that make graphviz's layout work hardest (tests/test_layout_bounds.py, benchmarks/)."""

from __future__ import annotations

from autograd_viz import Value


def sum_times_y() -> Value:
    """z = (x + y)·y at x = 2, y = 3, with s = x + y named; topological order x, y, s, z."""
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    s = x + y
    s.label = "s"
    z = s * y
    z.label = "z"
    return z


def blog_z() -> Value:
    """z = (x + y)·y at x = 2, y = 3 as the blog writes it: the sum left unnamed."""
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


def power_chain(k: int) -> Value:
    """x * w * w * … * w: one w feeding k multiplications along the chain."""
    x, w = Value(2.0, label="x"), Value(0.5, label="w")
    z = x
    for _ in range(k):
        z = z * w
    return z


def shared_tanh(k: int) -> Value:
    """k layers of z = (z * w).tanh(), one w shared (notebook 13's shape)."""
    w, z = Value(0.5, label="w"), Value(0.3, label="x")
    for _ in range(k):
        z = (z * w).tanh()
    return z


def tanh_chain(k: int) -> Value:
    """k tanh()s in a row from x = 0.5: the longest graph of one value per step."""
    z = Value(0.5, label="x")
    for _ in range(k):
        z = z.tanh()
    return z
