"""Read an expression a person typed in the playground (`lite/playground/`), or that a link's URL
carried, and build it with the engine. Since a link can carry any text at all, this module is the
only door from that text to Python and it is an allow-list: numbers, names, `+ - * / **`, unary
minus, parentheses and the engine's own functions, read by a hand-written tokenizer and
recursive-descent parser; nothing here calls `eval`, `exec` or `compile`, looks up an attribute a
text names, or calls anything outside the list. Every refusal is an `ExpressionError` naming the
offending character with a caret under its column, and size limits (the text's length, nesting
depth, number of values, size of an exponent: `9**9**9` is refused, never computed) refuse before
any work.

>>> z = build("(x + y) * y", {"x": "2", "y": "3"})
>>> z.data, z.label
(15.0, 'z')
>>> z.backward(); [(v.label, v.grad) for v in z.leaves()]
[('x', 3.0), ('y', 8.0)]
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from autograd_viz._checks import is_number
from autograd_viz.engine import Constant, Value
from autograd_viz.ops import OPS
from autograd_viz.size import MAX_LAYOUT_WORK, check_size, layout_work

__all__ = [
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_LENGTH",
    "MAX_NODES",
    "Expression",
    "ExpressionError",
    "build",
    "notebook_for",
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


# ---- reading ------------------------------------------------------------------------------


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
    autograd_viz.expression.ExpressionError: '^' at column 3: write powers with ** (x**2), not ^
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


# ---- building -----------------------------------------------------------------------------


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
    root = _evaluate(expression, leaves)
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


def _evaluate(expression: Expression, leaves: dict[str, Value]) -> Value | float:
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


def notebook_for(text: str, inputs: Mapping[str, object], *, phase: str = "both") -> dict:
    """A notebook (nbformat 4.5, as a dict: `json.dump` it) that builds the expression with the
    kit, draws it and steps through it: what the playground's "Download notebook" button saves.

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
        "find the gradients, draw the graph and step through its forward and backward pass.",
        f'from autograd_viz import Value{constant}\n\n{assign}\nz = {code}\nz.label = "z"',
        "z.backward()\n[(v.label, v.grad) for v in z.leaves()]",
        "z.draw()",
        f'z.animate(phase="{phase}")',
    ]
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
