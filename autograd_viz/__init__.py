"""autograd_viz: see backpropagation work, one step and one equation at a time.

`from autograd_viz import Value` loads only the engine (standard library);
drawing and widgets load on first use.
"""

import sys as _sys

from autograd_viz.engine import Value
from autograd_viz.gradcheck import GradReport, gradcheck
from autograd_viz.nn import MLP, Layer, Module, Neuron, Parameter

if _sys.platform == "emscripten":  # in the browser (JupyterLite): start loading Graphviz-WASM now
    from autograd_viz.viz import wasm as _wasm

    _wasm.start_loading()


def quiz(root: Value, **options):
    """A fill-in quiz on `root`'s graph: blanks on its nodes (see `autograd_viz.viz.quiz.Quiz`).

    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> q = quiz((x + y) * y)  # every gradient is a blank; Tab follows the backward pass
    """
    from autograd_viz.viz.quiz import Quiz  # lazily: ipywidgets loads on first use

    return Quiz(root, **options)


__all__ = [
    "MLP",
    "GradReport",
    "Layer",
    "Module",
    "Neuron",
    "Parameter",
    "Value",
    "gradcheck",
    "quiz",
]
__version__ = "0.1.0"
