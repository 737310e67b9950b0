"""The tree a typed expression is read into (`Num`, `Name`, `Unary`, `Binary`, `Call`, and the
`Expression` holding it with its text and input names), walked without recursion, and written back
as Python over Values (`Expression.code`: `(w * x + b).tanh()`, for the notebook the playground
saves): plain data between `expression_parser`, which makes it from text, and `expression`, which
builds it with the engine.

>>> from autograd_viz.playground.expression_parser import parse_expression
>>> parse_expression("tanh(w*x + b)").code()
'(w * x + b).tanh()'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

# ---- the tree: what the parser reads ------------------------------------------------------


@dataclass(frozen=True)
class Num:
    value: float
    column: int


@dataclass(frozen=True)
class Name:
    name: str
    column: int


@dataclass(frozen=True)
class Unary:
    op: str  # "-" or "+"
    operand: Node
    column: int


@dataclass(frozen=True)
class Binary:
    op: str  # + - * / **
    left: Node
    right: Node
    column: int


@dataclass(frozen=True)
class Call:
    function: str
    argument: Node
    column: int


Node = Num | Name | Unary | Binary | Call


@dataclass(frozen=True)
class Expression:
    """A parsed expression: its text, its tree, its input names in order of appearance, and
    `most`, how many values its graph can have at most (counted before anything is built)."""

    text: str
    tree: Node
    names: tuple[str, ...]
    most: int

    def code(self, folded: Mapping[int, float] | None = None) -> str:
        """The expression as Python over Values (`(w * x + b).tanh()`), for a notebook.

        `folded` (node id -> number) writes a part made of numbers only as the one float the
        playground computed for it, so Python's exact integers never compute something else.
        """
        return _code(self.tree, 0, folded or {})


# ---- walking the tree ---------------------------------------------------------------------


def _nodes(tree: Node):
    """Every node of `tree`, walked iteratively (a deep expression never recurses)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Unary):
            stack.append(node.operand)
        elif isinstance(node, Call):
            stack.append(node.argument)
        elif isinstance(node, Binary):
            stack += [node.left, node.right]


def _first(tree: Node, name: str) -> int:
    """The column where `name` first appears (names are listed as the reader meets them)."""
    columns = (n.column for n in _nodes(tree) if isinstance(n, Name) and n.name == name)
    return min(columns, default=10**9)


# ---- the same expression as Python, for a notebook -----------------------------------------

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "u": 3, "**": 4}


def _code(node: Node, outer: int, folded: Mapping[int, float]) -> str:
    """Python for `node`, parenthesised where the surrounding precedence `outer` needs it;
    a part in `folded` is written as its number."""
    if id(node) in folded:
        return _literal(folded[id(node)], outer)
    if isinstance(node, Num):
        return _literal(node.value, outer)
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Call):
        inner = _code(node.argument, 5, folded)
        if _constant(node.argument):  # tanh(2): a number the drawing shows, not an input
            inner = f"Constant({_code(node.argument, 0, folded)})"
        return f"{inner}.{node.function}()"
    if isinstance(node, Unary):
        mine = _PRECEDENCE["u"]
        out = f"{node.op}{_code(node.operand, mine, folded)}"
    else:
        mine = _PRECEDENCE[node.op]
        if node.op == "**":  # right to left: the left side needs brackets at the same level
            out = f"{_code(node.left, mine + 1, folded)} ** {_code(node.right, mine - 1, folded)}"
        else:
            out = (
                f"{_code(node.left, mine, folded)} {node.op} {_code(node.right, mine + 1, folded)}"
            )
    return f"({out})" if mine < outer else out


def _literal(value: float, outer: int) -> str:
    """A float as Python that gives it back (whole numbers short: 2, not 2.0; ±inf and nan
    as `math.inf`, `math.nan`); a negative one bracketed where a sign would be."""
    if math.isnan(value):
        text = "math.nan"
    elif math.isinf(value):
        text = "math.inf" if value > 0 else "-math.inf"
    elif value == 0 or not value.is_integer() or abs(value) >= 2**53:
        text = repr(value)  # -0.0 keeps its sign; 1e+16, not seventeen digits
    else:
        text = str(int(value))  # exact: a whole float below 2**53 is an int and back
    return f"({text})" if text.startswith("-") and _PRECEDENCE["u"] < outer else text


def _constant(node: Node) -> bool:
    """Whether `node` has no names in it (the playground folds it into one number)."""
    return not any(isinstance(n, Name) for n in _nodes(node))
