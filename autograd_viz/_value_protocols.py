"""How a Value behaves towards the rest of Python, kept out of `engine.py` because it is not the
lesson: input checks (a real number for `Value()`, text for a label); a TypeError in the kit's
voice, saying what to write instead, wherever plain maths (`float(x)`, `math.exp(x)`, `x > 0`,
`max`, `abs`, `round`, `f"{x:.2f}"`) or a PyTorch or numpy habit (`x.sqrt()`, `x.item()`) would
silently turn a Value into a bare number and cut it out of the graph (equality stays identity, so
Values still work in sets and dicts); and copying and pickling that write the graph parents-first
in one flat pass, so a million-step chain copies and pickles at Python's default recursion limit
and a node reached twice (in one graph, or from several objects pickled together) stays one object.
"""

from __future__ import annotations

import copy
import math
import numbers
from typing import Any

# ---- what a Value accepts: real numbers, and text as labels -----------------------------


def is_real(x: object) -> bool:
    """int, float, bool, Fraction, numpy's numbers (numpy's bool is no numbers.Real)."""
    return isinstance(x, numbers.Real) or (
        type(x).__module__ == "numpy" and type(x).__name__ in ("bool", "bool_")
    )


def as_float(data: object) -> float:
    """Accept real numbers (int, float, bool, numpy scalars); refuse anything else clearly."""
    if is_real(data):
        try:
            return float(data)
        except OverflowError:  # an int (or Fraction) past the largest float, ~1.8e308
            raise _too_large(data) from None
    hint = ""
    if isinstance(data, str):
        hint = f" Convert it first, e.g. Value(float({data!r}))."
    elif isinstance(data, (list, tuple)):
        hint = " A Value holds one number; make one Value per element."
    elif isinstance(data, ValueProtocols):
        hint = " It is a Value already: use it as it is, or Value(v.data) for a new input."
    elif hasattr(data, "data") and hasattr(data, "grad"):  # a node of another engine
        kind = f"{type(data).__module__}.{type(data).__qualname__}"
        hint = (
            f" It is a value of another engine ({kind}): one expression uses one engine, "
            "so build every input with the same Value class (autograd_viz.draw draws either)."
        )
    raise TypeError(
        f"Value() needs a real number (int, float or numpy scalar), "
        f"got {type(data).__name__}: {data!r}.{hint}"
    )


def _too_large(number: object) -> OverflowError:
    """Python's "int too large to convert to float", saying how large and what to write."""
    size = ""
    if isinstance(number, numbers.Integral):  # digits from the bit length: str() stops at 4300
        size = f" (an int of about {int(abs(int(number)).bit_length() * math.log10(2)) + 1} digits)"
    return OverflowError(
        f"{type(number).__name__} too large for a float{size}: the largest float is about "
        "1.8e308. Scale the number down (work in other units, or with its log), or write "
        "float('inf') if you mean infinity"
    )


def as_label(label: object) -> str:
    """Labels are text: a number is written out, None means no label, the rest is refused."""
    if label is None:
        return ""
    if isinstance(label, (str, numbers.Number)):
        return str(label)
    shown = repr(label)[:60]
    raise TypeError(f"a label is text, got {type(label).__name__}: {shown}; write e.g. label='x'")


# ---- plain maths: say what to write instead --------------------------------------------

_NOT_A_FLOAT = (
    "a Value can't become a plain number: its place in the graph would be lost and no "
    "gradient would flow through it. Use the Value's own operations instead of math "
    "functions (x.exp(), x.log(), x.tanh(), x ** 0.5), or read the number with x.data{}."
)


def _compare(symbol: str):
    def refuse(self, other: object) -> bool:
        raise TypeError(
            f"Values can't be compared with {symbol}: compare x.data instead "
            f"(e.g. x.data {symbol} 0), and give max, min and sorted key=lambda v: v.data. "
            "A comparison has no gradient; for a smooth choice use x.relu()."
        )

    return refuse


class _Missing:
    """An attribute people reach for (from PyTorch or numpy) that the engine spells differently."""

    def __init__(self, instead: str) -> None:
        self.instead = instead

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type | None = None):
        raise AttributeError(f"'Value' object has no attribute '{self.name}': write {self.instead}")


class ValueProtocols:
    """Python protocols for Value: helpful refusals, copy and pickle. Holds no data."""

    __slots__ = ()

    def __float__(self) -> float:
        raise TypeError(_NOT_A_FLOAT.format(" (float(x.data) is the same number)"))

    def __int__(self) -> int:
        raise TypeError(_NOT_A_FLOAT.format("; int(x.data) rounds it towards zero"))

    def __round__(self, ndigits: int | None = None) -> float:
        raise TypeError(
            "round() would cut a Value out of the graph: round its number, "
            "round(x.data, 2), or print it rounded with f'{x.data:.2f}'."
        )

    def __abs__(self):
        raise TypeError(
            "abs() is not one of the engine's operations: write x.relu() + (-x).relu() "
            "(slope −1 left of 0, 1 right of it, 0 at 0), or abs(x.data) for the number."
        )

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        raise TypeError(
            f"a Value has no number format; format its number instead: f'{{x.data:{spec}}}'"
        )

    __lt__ = _compare("<")
    __le__ = _compare("<=")
    __gt__ = _compare(">")
    __ge__ = _compare(">=")

    sqrt = _Missing("x ** 0.5")
    square = _Missing("x ** 2")
    pow = _Missing("x ** n")
    abs = _Missing("x.relu() + (-x).relu()")
    item = _Missing("x.data (the number) — a Value holds one")
    value = _Missing("x.data (the number)")
    detach = _Missing("Value(x.data) (a new input with the same number)")

    # ---- copy and pickle, parents first ------------------------------------------------

    def __copy__(self):
        """A new node with the same number, grad, label and parents (the graph is shared)."""
        return _rebuild(*_fields(self), (self.grad, self._label, self.tag))

    def __deepcopy__(self, memo: dict[int, Any]):
        """Copy the graph parents-first, so no step recurses into the one before it."""
        keep = memo.setdefault(id(memo), [])
        for node in self.topological_order():
            if id(node) in memo:
                continue
            cls, data, op, rule, a, b, arg = _fields(node)
            if any(p is not None and id(p) not in memo for p in (a, b)):  # `x._a = y`: a loop
                from autograd_viz.core.errors import cycle_error  # lazily: only on this error path

                raise cycle_error(node)
            a = None if a is None else memo[id(a)]
            b = None if b is None else memo[id(b)]
            memo[id(node)] = new = _rebuild(cls, data, op, rule, a, b, arg)
            keep.append(node)
            new.__setstate__((node.grad, node._label, copy.deepcopy(node.tag, memo)))
        return memo[id(self)]

    def __reduce_ex__(self, protocol: int):
        # The first Value a pickle meets lists its ancestors, parents first, so each of
        # them is written when its own parents already are (a reference, not a nested
        # write). The ancestors, meeting this list, write just themselves.
        state = (self.grad, self._label, self.tag)
        if _listed.pop(id(self), None) is self:
            return _rebuild, (*_fields(self), None), state
        ancestors = _parents_first(self)[:-1]
        for node in ancestors:
            _listed[id(node)] = node
        return _rebuild_after, (tuple(ancestors), _Forget(ancestors), *_fields(self)), state

    def __setstate__(self, state: tuple) -> None:
        self.grad, self._label, self.tag = state


def _parents_first(root) -> list:
    """`root.topological_order()`, checked: each node's parents come before it, which fails
    only where the graph loops (`x._a = z`), and pickle would then recurse to its limit."""
    order = root.topological_order()
    placed: set[int] = set()
    for node in order:
        if any(p is not None and id(p) not in placed for p in (node._a, node._b)):
            from autograd_viz.core.errors import cycle_error  # lazily: only on this error path

            raise cycle_error(node)
        placed.add(id(node))
    return order


# id -> Value: ancestors being pickled by the value that listed them (see __reduce_ex__)
_listed: dict[int, object] = {}


def _fields(v) -> tuple:
    return type(v), v.data, v._op, v._rule, v._a, v._b, v._arg


def _rebuild(cls, data, op, rule, a, b, arg, state=None):
    v = cls.__new__(cls)
    v.data, v._op, v._rule, v._a, v._b, v._arg = data, op, rule, a, b, arg
    v.grad, v._label, v.tag = state or (0.0, "", None)
    return v


def _rebuild_after(ancestors, forgotten, *fields):
    """Unpickle a value whose ancestors were unpickled (parents first) just before it."""
    return _rebuild(*fields)


class _Forget:
    """Written right after the ancestors: unlists those the pickle had already written."""

    __slots__ = ("nodes",)

    def __init__(self, nodes: list) -> None:
        self.nodes = nodes

    def __reduce__(self):
        for node in self.nodes:
            if _listed.get(id(node)) is node:
                del _listed[id(node)]
        return _nothing, ()


def _nothing() -> None:
    return None
