"""autograd_viz: see backpropagation work, one step and one equation at a time —
`from autograd_viz import Value` loads only the engine (standard library); drawing and
widgets load on first use.
"""

import sys as _sys

from autograd_viz import _moved
from autograd_viz.engine import Value
from autograd_viz.gradcheck import GradcheckError, GradReport, gradcheck

_NN = ("MLP", "Layer", "Module", "Neuron", "Parameter")


def __getattr__(name: str):
    """`from autograd_viz import MLP` loads nn on first use, so the drawing layers, which
    never need it, can be imported without it (they read neurons from the graph snapshot)."""
    if name in _NN:
        from autograd_viz import nn

        return getattr(nn, name)
    raise AttributeError(f"module 'autograd_viz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_NN])


if not any(isinstance(f, _moved.Finder) for f in _sys.meta_path):  # old module paths still import
    _sys.meta_path.insert(0, _moved.Finder())

if _sys.platform == "emscripten":  # in the browser (JupyterLite): see autograd_viz/_pyodide.py
    from autograd_viz import _pyodide

    _pyodide.setup()


def draw(root: object, **options):
    """Draw the graph ending at `root`: a Value of ours, micrograd's, or your own class's
    (anything with `data`, `grad` and operands in `_prev`; see `autograd_viz.open.engines`), or
    a PyTorch scalar tensor (its `grad_fn` graph; `names={"x": x}` labels its tensors).
    A learner's engine is checked too: the first wrong gradient is marked.

    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> draw((x + y) * y)  # shows inline as the last expression of a cell
    <Drawing of 4 values, 2 operations: .source is the DOT, .svg() the picture>
    """
    from autograd_viz import api  # lazily: no graphviz at import

    return api.draw(root, **options)


def animate(root: object, **options):
    """Step through the forward and backward pass of any engine's graph (a widget); for
    your own engine, with the numbers your own `_backward` closures produce."""
    from autograd_viz import api  # lazily: ipywidgets

    return api.animate(root, **options)


def side_by_side(value_root: Value, tensor_root: object = None, **options):
    """The kit's `Value` graph and PyTorch's graph of the same expression, drawn side by side
    and paired node for node: `_prev` ↔ `grad_fn.next_functions`, `_op` ↔ the Function's
    name, each value's data and grad from each side; what differs is reported (see
    `autograd_viz.front.side_by_side`). Without `tensor_root`, PyTorch builds the same
    expression from `value_root`'s graph. Needs PyTorch (`pip install torch`).

    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> side_by_side((x + y) * y)  # doctest: +SKIP
    <SideBySide of 4 pairs: every number agrees>
    """
    from autograd_viz import api  # lazily: graphviz, and torch when the graph needs it

    return api.side_by_side(value_root, tensor_root, **options)


def check_engine(root: object, *, timeout: float = 5.0):
    """Check your own engine's backward rules on the graph ending at `root`: each rule right,
    wrong or unchecked, and the first node whose gradient goes wrong (see
    `autograd_viz.open.engines.check`); your backward() runs once on your graph, for at most
    `timeout` seconds, and each method of your class is also tried on fresh values (`x * x`,
    `2 - x`: `autograd_viz.open.engines.probe`). A report that could check nothing says so."""
    from autograd_viz.open.door import check_engine as _check

    return _check(root, timeout=timeout)


def explore(f, /, **inputs):
    """Draw `f(**inputs)` with a number box and a slider per input, recomputed as you change
    them (see `autograd_viz.api.explore`):
    `explore(lambda x, y: (x + y) * y, x=2, y=3)`."""
    from autograd_viz import api  # lazily: anywidget loads on first use

    return api.explore(f, **inputs)


def quiz(root: Value, **options):
    """A fill-in quiz on `root`'s graph: blanks on its nodes (see `autograd_viz.front.quiz.Quiz`).

    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> q = quiz((x + y) * y)  # every gradient is a blank; Tab follows the backward pass
    """
    from autograd_viz import api  # lazily: ipywidgets loads on first use

    return api.quiz(root, **options)


__all__ = [
    "MLP",
    "GradReport",
    "GradcheckError",
    "Layer",
    "Module",
    "Neuron",
    "Parameter",
    "Value",
    "animate",
    "check_engine",
    "draw",
    "explore",
    "gradcheck",
    "quiz",
    "side_by_side",
]
__version__ = "0.1.0"
