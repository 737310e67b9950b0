"""Read an expression a person typed in the playground (`lite/playground/`), or that a link's URL
carried, into a tree (`expression_tree`), and the text of its inputs into numbers. Since a link can
carry any text at all, this module is the only door from that text to Python and it is an
allow-list: numbers, names, `+ - * / **`, unary minus, parentheses and the engine's own functions,
read by a hand-written tokenizer and recursive-descent parser; nothing here calls `eval`, `exec`
or `compile`, looks up an attribute a text names, or calls anything outside the list. Every
refusal is an `ExpressionError` naming the offending character with a caret under its column,
and size limits (the text's length, nesting depth, number of values, size of an exponent:
`9**9**9` is refused, never computed) refuse before any work.

>>> parse_expression("(x + y) * y").names
('x', 'y')
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Mapping

from autograd_viz.core._checks import is_number
from autograd_viz.core.ops import OPS
from autograd_viz.playground.expression_tree import (
    Binary,
    Call,
    Expression,
    Name,
    Node,
    Num,
    Unary,
    _first,
    _nodes,
)

__all__ = [
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_LENGTH",
    "MAX_NODES",
    "ExpressionError",
    "parse_expression",
    "parse_inputs",
]

# The engine's functions of one Value, each a method of the same name (engine.py), read from
# the op table, so an operation added there (docs/architecture.md) can be typed here too.
FUNCTIONS = tuple(
    row.method for row in OPS.values() if row.arity == 1 and not row.method.startswith("_")
)
MAX_LENGTH = 500  # characters: a longer expression is not one a person reads
MAX_DEPTH = 30  # nested parentheses, calls, signs and powers: refused before the parser recurses
MAX_NODES = 150  # values in the graph: past this a drawing of it is no longer read
MAX_EXPONENT = 100  # |n| in x ** n: 9**9**9 is refused instead of computed
MAX_NAME = 24  # characters in a name
MAX_NUMBER = 24  # characters in a number literal
RESERVED = frozenset((*FUNCTIONS, "Value", "Constant", "autograd_viz"))

_ALLOWED = "numbers, names, + - * / **, parentheses and the functions " + " ".join(FUNCTIONS)
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # ASCII digits only
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_DIGITS = "0123456789"
_VALUE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class ExpressionError(ValueError):
    """The text is not an expression the playground builds; the message shows where.

    `column` is the 1-based position of the offending character in `text`, and `field` says
    which text it is: "expression", or the name of an input whose value was refused.
    """

    def __init__(self, what: str, text: str, column: int, field: str = "expression") -> None:
        self.what, self.text, self.column, self.field = what, text, column, field
        super().__init__(f"{what}\n{_pointer(text, column)}")


def _pointer(text: str, column: int) -> str:
    """The text around `column` (at most ~60 characters of it) with a caret under it."""
    start = max(0, column - 31)
    end = min(len(text), start + 60)
    shown = "".join(c if c.isprintable() else "?" for c in text[start:end])
    before = "…" if start else ""
    after = "…" if end < len(text) else ""
    return f"  {before}{shown}{after}\n  {' ' * (len(before) + column - 1 - start)}^"


def _char(c: str) -> str:
    return repr(c) if c.isprintable() else f"U+{ord(c):04X}"


# ---- reading -------------------------------------------------------------------------------


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, column) for every token; refuses any character outside the list."""
    out: list[tuple[str, str, int]] = []
    i = 0
    while i < len(text):
        c, col = text[i], i + 1
        if c in " \t":
            i += 1
        elif c in _DIGITS or (c == "." and i + 1 < len(text) and text[i + 1] in _DIGITS):
            m = _NUMBER.match(text, i)
            assert m is not None
            if len(m.group()) > MAX_NUMBER:
                raise ExpressionError(
                    f"the number at column {col} is {len(m.group())} characters long: "
                    f"write at most {MAX_NUMBER}",
                    text, col,
                )  # fmt: skip
            out.append(("num", m.group(), col))
            i = m.end()
        elif c.isascii() and c.isalpha():
            m = _NAME.match(text, i)
            assert m is not None
            out.append(("name", m.group(), col))
            i = m.end()
        elif text.startswith("**", i):
            out.append(("op", "**", col))
            i += 2
        elif c in "+-*/":
            out.append(("op", c, col))
            i += 1
        elif c in "()":
            out.append(("paren", c, col))
            i += 1
        else:
            raise ExpressionError(f"{_char(c)} at column {col}: {_advice(c)}", text, col)
    return out


def _advice(c: str) -> str:
    if c == "^" or c in "²³":
        return f"write powers with ** (x**2), not {c}"
    if c == "_":
        return "names start with a letter and have letters, digits and _ only"
    if c == ".":
        return "a point belongs inside a number (2.5); nothing here has attributes"
    if c in "·×":
        return "write products with *"
    if c in "−–":
        return "type the minus sign as -"
    if c == "÷":
        return "write divisions with /"
    if c == ",":
        return "each function takes one argument, and decimals take a point (2.5), not a comma"
    return f"not allowed here: an expression has only {_ALLOWED}"


class _Parser:
    """Recursive descent over the tokens, one method per precedence level, as Python reads
    them: `+ -` < `* /` < unary sign < `**` (right to left, so -x**2 is -(x**2))."""

    def __init__(self, text: str, tokens: list[tuple[str, str, int]]) -> None:
        self.text, self.tokens, self.at, self.depth = text, tokens, 0, 0

    def peek(self) -> tuple[str, str, int]:
        if self.at < len(self.tokens):
            return self.tokens[self.at]
        return ("end", "", len(self.text) + 1)

    def fail(self, what: str, column: int) -> ExpressionError:
        return ExpressionError(what, self.text, column)

    def deeper(self, column: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(
                f"the expression nests more than {MAX_DEPTH} levels deep at column {column} "
                "(parentheses, functions, signs and powers inside each other): write it in "
                "fewer levels",
                column,
            )

    def expression(self) -> Node:
        self.deeper(self.peek()[2])
        node = self.term()
        while (tok := self.peek())[0] == "op" and tok[1] in "+-" and len(tok[1]) == 1:
            self.at += 1
            node = Binary(tok[1], node, self.term(), tok[2])
        self.depth -= 1
        return node

    def term(self) -> Node:
        node = self.unary()
        while (tok := self.peek())[0] == "op" and tok[1] in ("*", "/"):
            self.at += 1
            node = Binary(tok[1], node, self.unary(), tok[2])
        return node

    def unary(self) -> Node:
        tok = self.peek()
        if tok[0] == "op" and tok[1] in "+-" and len(tok[1]) == 1:
            self.at += 1
            self.deeper(tok[2])
            node = Unary(tok[1], self.unary(), tok[2])
            self.depth -= 1
            return node
        return self.power()

    def power(self) -> Node:
        node = self.atom()
        tok = self.peek()
        if tok[0] == "op" and tok[1] == "**":
            self.at += 1
            self.deeper(tok[2])
            node = Binary("**", node, self.unary(), tok[2])
            self.depth -= 1
        return node

    def atom(self) -> Node:
        kind, word, col = self.peek()
        if kind == "num":
            self.at += 1
            value = float(word)
            if not math.isfinite(value):
                raise self.fail(f"the number {word} at column {col} is too large for a float", col)
            return Num(value, col)
        if kind == "name":
            self.at += 1
            following = self.peek()
            if following[0] == "paren" and following[1] == "(":
                if word not in FUNCTIONS:
                    raise self.fail(
                        f"{word!r} at column {col} is not a function here: the functions are "
                        f"{', '.join(FUNCTIONS)}",
                        col,
                    )
                self.at += 1
                self.deeper(following[2])
                argument = self.expression()
                self.close(following[2])
                self.depth -= 1
                return Call(word, argument, col)
            _check_name(word, self.text, col)
            return Name(word, col)
        if kind == "paren" and word == "(":
            self.at += 1
            self.deeper(col)
            node = self.expression()
            self.close(col)
            self.depth -= 1
            return node
        if kind == "end":
            what = "the expression is empty" if not self.tokens else "the expression ends early"
            raise self.fail(f"{what}: a number, a name or '(' should come at column {col}", col)
        raise self.fail(f"{word!r} at column {col}: a number, a name or '(' should come here", col)

    def close(self, opened: int) -> None:
        kind, word, col = self.peek()
        if kind == "paren" and word == ")":
            self.at += 1
            return
        found = "the end" if kind == "end" else repr(word)
        raise self.fail(
            f"{found} at column {col}: ')' should come here, to close the '(' of column {opened}",
            col,
        )


def _check_name(word: str, text: str, col: int, field: str = "expression") -> None:
    if len(word) > MAX_NAME:
        raise ExpressionError(
            f"the name at column {col} is {len(word)} characters long: at most {MAX_NAME}",
            text, col, field,
        )  # fmt: skip
    if keyword.iskeyword(word) or keyword.issoftkeyword(word) or word in RESERVED:
        why = "a function" if word in FUNCTIONS else "a word Python or the kit keeps"
        raise ExpressionError(
            f"{word!r} at column {col} is {why}, not a name for an input: choose another name",
            text, col, field,
        )  # fmt: skip


def parse_expression(text: str) -> Expression:
    """Read `text` into an `Expression` (nothing is computed); ExpressionError if it is not one.

    >>> parse_expression("tanh(w*x + b)").names
    ('w', 'x', 'b')
    >>> parse_expression("x ^ 2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    autograd_viz.playground.expression_parser.ExpressionError: '^' at column 3: ...
    ...
    """
    if not isinstance(text, str):
        raise TypeError(f"the expression is text, got {type(text).__name__}")
    depth = 0
    for column, c in enumerate(text[: MAX_LENGTH + 1], 1):  # the deepest first: no work yet
        depth += (c == "(") - (c == ")")
        if depth > MAX_DEPTH:
            raise ExpressionError(
                f"'(' at column {column} nests {depth} parentheses deep: at most {MAX_DEPTH} "
                "are allowed (write the expression in fewer levels)",
                text, column,
            )  # fmt: skip
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f"the expression is {len(text)} characters long: at most {MAX_LENGTH} are "
            f"allowed (column {MAX_LENGTH + 1} is the first too many)",
            text, MAX_LENGTH + 1,
        )  # fmt: skip
    parser = _Parser(text, _tokens(text))
    tree = parser.expression()
    kind, word, col = parser.peek()
    if kind != "end":
        hint = "; ')' without its '('" if word == ")" else ": an operator should come between"
        raise ExpressionError(f"{word!r} at column {col} cannot follow what is before it{hint}",
                              text, col)  # fmt: skip
    walked = list(_nodes(tree))
    names = {n.name for n in walked if isinstance(n, Name)}
    # how many values the graph can have at most: each name once, -a is a * -1 (a node and
    # its constant), a - b is a + b * -1 (three values), a / b is a * b ** -1 (two)
    nodes = len(names) + sum(
        2 if isinstance(n, Unary) else {"-": 3, "/": 2}.get(n.op, 1) if isinstance(n, Binary) else 1
        for n in walked
        if not isinstance(n, Name)
    )
    if nodes > MAX_NODES:
        raise ExpressionError(
            f"the expression could make up to {nodes} values, more than the {MAX_NODES} a "
            "drawing can show: write a shorter one",
            text, 1,
        )  # fmt: skip
    return Expression(text, tree, tuple(sorted(names, key=lambda n: _first(tree, n))), nodes)


def parse_inputs(names: tuple[str, ...], inputs: Mapping[str, object]) -> dict[str, float]:
    """Each input's value as a float, read from text like "2" or "-0.5" (numbers only).

    A name the expression does not use is left out; a name it uses but `inputs` lacks is
    refused. ExpressionError (with `field` the input's name) for anything not a number.
    """
    values: dict[str, float] = {}
    for name in names:
        if name not in inputs:
            raise ExpressionError(f"no value for {name}: give it one, e.g. {name}=1", name, 1, name)
        raw = inputs[name]
        if not (is_number(raw, (int, float)) or isinstance(raw, str)):
            raise TypeError(f"the value of {name} is a number or its text, got {raw!r}")
        text = raw if isinstance(raw, str) else repr(float(raw))
        m = _VALUE.fullmatch(text.strip())
        if m is None:
            stripped = text.strip()
            good = _VALUE.match(stripped)
            at = (good.end() if good else 0) + (len(text) - len(text.lstrip()))
            c = text[at] if at < len(text) else ""
            what = f"{_char(c)} at column {at + 1}" if c else "it is empty"
            raise ExpressionError(
                f"the value of {name} is not a number: {what} (write a number such as 2, -0.5 "
                "or 1e-3)",
                text, at + 1, name,
            )  # fmt: skip
        if len(text) > MAX_NUMBER:
            raise ExpressionError(
                f"the value of {name} is {len(text)} characters long: write at most {MAX_NUMBER}",
                text, MAX_NUMBER + 1, name,
            )  # fmt: skip
        value = float(m.group())
        if not math.isfinite(value):
            raise ExpressionError(f"the value of {name} is too large for a float", text, 1, name)
        values[name] = value
    return values
