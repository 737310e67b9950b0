"""What changes when Python runs in the browser (Pyodide, the JupyterLite edition), set up by
`import autograd_viz` there and only there: drawing through Graphviz compiled to WebAssembly,
started at import (or handed over by a page that started it before Python, the playground's
`globalThis.avzGraphviz`), since Pyodide has no `dot`; and long graphs freed one node at a
time (`free_graphs_flat`), because the browser's stack is smaller than the interpreter
assumes and dropping a chain of ~7,000 Values nested that many deallocations and killed the
kernel (notebook 05's million-step chain could never be freed).
"""

from __future__ import annotations

from autograd_viz.engine import Value

__all__ = ["free_graphs_flat", "setup"]

_dying: list[Value | None] = []
_freeing = False


def _free_flat(node: Value) -> None:
    """Value's finalizer under Pyodide: queue the operands instead of freeing them inside.

    No tuples: Python keeps freed small tuples for reuse, which would look like memory kept.
    """
    global _freeing
    _dying.append(node._a)
    _dying.append(node._b)
    node._a = node._b = None
    if _freeing:  # an outer call is emptying the queue: it will free these too
        return
    _freeing = True
    try:
        while _dying:
            _dying.pop()  # frees the operands; their finalizers queue theirs
    finally:
        _freeing = False


def free_graphs_flat() -> None:
    """Free graphs node by node (no nesting) from now on: every Value gets `_free_flat`."""
    Value.__del__ = _free_flat


def page_graphviz() -> object | None:
    """The Graphviz-WASM the page is already loading (`globalThis.avzGraphviz`), if any.

    Why: the playground compiles it while Python starts (ready at 0.8 s of a cold start, not
    after the kit's import); a JupyterLite kernel (a worker with no such global) gets None.
    """
    import js  # Pyodide's bridge to the browser

    return getattr(js, "avzGraphviz", None)


def setup() -> None:
    """Everything the browser edition needs, done once at import."""
    from autograd_viz.view import wasm

    free_graphs_flat()
    wasm.start_loading(page_graphviz())
