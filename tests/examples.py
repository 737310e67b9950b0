"""The blog's worked examples as graphs, built fresh for each test that needs one."""

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
