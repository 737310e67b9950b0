"""Build an expression a person typed in the playground (`lite/playground/`), or that a link's URL
carried, with the engine, and write the notebook that builds it again (what the page's "Download
notebook" saves): the playground's one entry from text to a graph. The text is read first by
`expression_parser`, the allow-list (its names are importable from here too), into the tree of
`expression_tree`; here that tree is computed bottom-up into Values (numbers only fold into
numbers), and refused with an `ExpressionError` pointing at the operation when its maths fails or
its drawing would be too large to lay out.

>>> z = build("(x + y) * y", {"x": "2", "y": "3"})
>>> z.data, z.label
(15.0, 'z')
>>> z.backward(); [(v.label, v.grad) for v in z.leaves()]
[('x', 3.0), ('y', 8.0)]
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from autograd_viz.engine import Constant, Value
from autograd_viz.open.size import check_size
from autograd_viz.playground.expression_parser import (
    FUNCTIONS,
    MAX_DEPTH,
    MAX_EXPONENT,
    MAX_LENGTH,
    MAX_NODES,
    ExpressionError,
    parse_expression,
    parse_inputs,
)
from autograd_viz.playground.expression_tree import (
    Binary,
    Call,
    Expression,
    Name,
    Node,
    Num,
    Unary,
    _first,
)
from autograd_viz.view.layout import MAX_LAYOUT_WORK, layout_work

__all__ = [
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_LENGTH",
    "MAX_NODES",
    "Expression",
    "ExpressionError",
    "build",
    "evaluate",
    "notebook_for",
    "parse_expression",
    "parse_inputs",
]


def build(text: str, inputs: Mapping[str, object], *, label: str = "z") -> Value:
    """Build the expression `text` with the engine, its inputs from `inputs` ({"x": "2"}).

    The inputs are Values labelled with their names, the result is labelled `label`.
    Errors of the maths (log of a negative number, division by zero) are ExpressionErrors
    that point at the operation.

    >>> round(build("tanh(w*x + b)", {"w": -3, "x": 2, "b": 6.8813735870195432}).data, 6)
    0.707107
    """
    expression = parse_expression(text)
    if label in expression.names:  # ∂z/∂z would mean two things at once
        raise ExpressionError(
            f"{label!r} is the output's name: the gradients are written ∂{label}/∂(input), so an "
            f"input called {label} would give ∂{label}/∂{label} two meanings. Call this input "
            "another name",
            text, _first(expression.tree, label),
        )  # fmt: skip
    values = parse_inputs(expression.names, inputs)
    leaves = {name: Value(v, label=name) for name, v in values.items()}
    root = evaluate(expression, leaves)
    if not expression.names or not isinstance(root, Value):
        raise ExpressionError(
            "the expression has no inputs, so no gradient to find: use a name, e.g. x * 3",
            text, 1,
        )  # fmt: skip
    if any(root is leaf for leaf in leaves.values()):  # `x` alone: nothing to propagate
        raise ExpressionError(
            f"the expression is the input {root.label} alone: combine it with something, "
            f"e.g. {root.label} * 2",
            text, 1,
        )  # fmt: skip
    check_size(root, MAX_NODES)  # the drawings' own size guard
    _check_layout(root, expression, text)
    root.label = label
    return root


def _check_layout(root: Value, expression: Expression, text: str) -> None:
    """Refuse, before any drawing, what the renderer seam would refuse: a value feeding
    operations far apart (`x*w*w*…*w`) makes dot's placement graph too large to lay out."""
    edges: list[tuple[object, object]] = []
    seen, stack = {id(root)}, [root]
    while stack:
        v = stack.pop()
        if v.parents:  # drawn as operands -> operation -> value
            op = ("op", id(v))
            edges.append((op, v))
            for p in v.parents:
                edges.append((p, op))
                if id(p) not in seen:
                    seen.add(id(p))
                    stack.append(p)
    work = layout_work(edges)
    if work.work <= MAX_LAYOUT_WORK:
        return
    name = getattr(work.widest, "label", "") or ""
    column = _first(expression.tree, name) if name in expression.names else 1
    advice = f"Use {name} fewer times, e.g. {name}**3 for {name}*{name}*{name}" if name else (
        "Write a shorter expression"
    )  # fmt: skip
    raise ExpressionError(
        f"the drawing would take too long to lay out: {name or 'a value'} feeds operations "
        f"far apart, so its arrows cross {work.crossed} columns and Graphviz would place "
        f"{work.work} nodes (at most {MAX_LAYOUT_WORK}). {advice}",
        text, column,
    )  # fmt: skip


def evaluate(expression: Expression, leaves: dict[str, Value]) -> Value | float:
    """The tree's value, computed bottom-up without recursion (numbers fold into numbers)."""
    return _results(expression, leaves)[id(expression.tree)]


def _results(expression: Expression, leaves: dict[str, Value]) -> dict[int, Value | float]:
    """Every node's value by `id(node)`: a Value, or a float where only numbers met."""
    text = expression.text
    results: dict[int, Value | float] = {}
    stack: list[tuple[Node, bool]] = [(expression.tree, False)]
    while stack:
        node, ready = stack.pop()
        if isinstance(node, Num):
            results[id(node)] = node.value
        elif isinstance(node, Name):
            results[id(node)] = leaves[node.name]
        elif not ready:
            stack.append((node, True))
            children = (
                [node.left, node.right] if isinstance(node, Binary)
                else [node.operand if isinstance(node, Unary) else node.argument]
            )  # fmt: skip
            stack += [(child, False) for child in children]
        else:
            try:
                results[id(node)] = _apply(node, results, text)
            except (ArithmeticError, ValueError) as err:
                if isinstance(err, ExpressionError):
                    raise
                raise ExpressionError(
                    f"at column {node.column}, {_op_name(node)}: {err}", text, node.column
                ) from None
    return results


def _op_name(node: Node) -> str:
    if isinstance(node, Call):
        return f"{node.function}(...)"
    return f"the {'sign' if isinstance(node, Unary) else repr(node.op)}"


def _apply(node: Node, results: dict[int, Value | float], text: str) -> Value | float:
    if isinstance(node, Unary):
        a = results[id(node.operand)]
        return a if node.op == "+" else -a
    if isinstance(node, Call):
        a = results[id(node.argument)]
        if not isinstance(a, Value):  # tanh(2): the engine's rule on a number
            a = Constant(a)
        return getattr(Value, node.function)(a)  # one of FUNCTIONS, never the text itself
    assert isinstance(node, Binary)
    a, b = results[id(node.left)], results[id(node.right)]
    if node.op == "+":
        return a + b
    if node.op == "-":
        return a - b
    if node.op == "*":
        return a * b
    if node.op == "/":
        return a / b
    if not isinstance(b, Value) and abs(b) > MAX_EXPONENT:
        raise ExpressionError(
            f"the exponent of '**' at column {node.column} is {b:g}: at most {MAX_EXPONENT} "
            "(either sign) is allowed, nothing was computed",
            text, node.column,
        )  # fmt: skip
    if isinstance(a, Value) or isinstance(b, Value):
        return a**b
    if a < 0 and not float(b).is_integer():
        raise ValueError(f"{a:g} ** {b:g}: a negative base with a fractional exponent")
    try:
        return float(a**b)
    except OverflowError:
        return math.inf


# ---- the same expression as Python, for a notebook -----------------------------------------
def notebook_for(
    text: str, inputs: Mapping[str, object], *, phase: str = "both", mode: str = "steps"
) -> dict:
    """A notebook (nbformat 4.5, as a dict: `json.dump` it) that builds the expression with the
    kit, draws it and steps through it, then (`mode` "quiz" or "explore") opens the page's quiz
    or explorer on it: what the playground's "Download notebook" button saves.

    Written by hand rather than with nbformat, which the browser page does not load.

    >>> nb = notebook_for("(x + y) * y", {"x": 2, "y": 3})
    >>> print(nb["cells"][1]["source"])
    from autograd_viz import Value
    <BLANKLINE>
    x = Value(2.0, label="x")
    y = Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    """
    from autograd_viz.trace import check_phase

    check_phase(phase)
    expression = parse_expression(text)
    values = parse_inputs(expression.names, inputs)
    build(text, values)  # refuses what the playground would refuse, before writing anything
    # parts made of numbers only are written as the floats the page computed for them:
    # Python's exact integers would make 1e16 + 1 - 1e16 one, not zero, and overflow
    # where the page's floats give inf
    results = _results(expression, {n: Value(v, label=n) for n, v in values.items()})
    code = expression.code({k: v for k, v in results.items() if not isinstance(v, Value)})
    assign = "\n".join(f'{n} = Value({values[n]!r}, label="{n}")' for n in expression.names)
    constant = "\nfrom autograd_viz.engine import Constant" if "Constant(" in code else ""
    constant += "\nimport math" if "math." in code else ""
    shown = ", ".join(f"{n} = {values[n]:g}" for n in expression.names)
    sources = [
        f"# Backpropagation through `{code}`\n\n"
        f"Made by the autograd_viz playground from `{text.strip()}` with {shown}. Run the "
        "cells in order: the first builds the expression with the kit's engine, the next "
        "find the gradients, draw the graph and step through its forward and backward pass"
        + {"quiz": ", and the last is the quiz", "explore": ", and the last moves its inputs"}
        .get(mode, "") + ".",
        f'from autograd_viz import Value{constant}\n\n{assign}\nz = {code}\nz.label = "z"',
        "z.backward()\n[(v.label, v.grad) for v in z.leaves()]",
        "z.draw()",
        f'z.animate(phase="{phase}")',
    ]
    if mode == "quiz":  # the page's quiz, where the learner left it: fill it in here too
        sources.append("from autograd_viz import quiz\n\nquiz(z)")
    elif mode == "explore":  # the page's sliders: f builds the expression on explore's inputs
        names = ", ".join(expression.names)
        starts = ", ".join(f"{n}={values[n]!r}" for n in expression.names)
        sources.append(f"from autograd_viz import explore\n\nexplore(lambda {names}: {code}, "
                       f"{starts})")  # fmt: skip
    cells: list[dict] = []
    for k, source in enumerate(sources):
        cell = {"cell_type": "markdown" if k == 0 else "code", "id": f"cell-{k}",
                "metadata": {}, "source": source}  # fmt: skip
        if k:
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
