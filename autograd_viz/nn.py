"""Neural networks from Values, as in micrograd: `Neuron` computes act(w·x + b), stacked into a
`Layer` and an `MLP`, with act ReLU (the blog's choice) or any activation row of the op table
(`autograd_viz.core.ops`, named by its `Value` method, so a new one needs no edit here). Every
weight is a `Parameter` (a Value that drawings style as a weight) and every neuron's output carries
its neuron (`Value.tag`, named like "L2.n1"), so a drawing can collapse a network into one box per
neuron without importing this module. A seed draws from a private `random.Random(seed)`, so a seeded
model never disturbs anyone else's random numbers; without one the global `random` module is used,
so the blog's `random.seed(42); MLP(2, [4, 4, 1])` works as written."""

from __future__ import annotations

import operator
import random
from collections.abc import Iterable, Sequence

from autograd_viz.core.ops import activation_row, activations
from autograd_viz.engine import Operand, Value


class Parameter(Value):
    """A trainable Value (a weight or a bias). Behaves exactly like a Value."""

    __slots__ = ()
    trainable = True  # read by the graph snapshot, so viewers need not import nn


def _check_act(act: object) -> str | None:
    """An activation the op table has (by its method name, "tanh"), or None for linear."""
    if act is not None and activation_row(act) is None:
        names = ", ".join(repr(a) for a in activations())
        raise ValueError(f"act must be {names} or None (a linear neuron), got {act!r}")
    return act


def _act(act: str | None, nonlin: bool) -> str | None:
    """The activation from the two ways to ask for one: `act=` or the older `nonlin=`."""
    _check_act(act)
    if not nonlin and act not in ("relu", None):
        raise ValueError(f"nonlin=False asks for a linear neuron, act={act!r} for another; "
                         "pass only act=..., e.g. act=None for linear")  # fmt: skip
    return act if nonlin else None


class Module:
    """Anything with parameters: gives `parameters()` and `zero_grad()`."""

    def parameters(self) -> list[Parameter]:
        return []

    def zero_grad(self) -> None:
        """Reset every parameter's gradient to 0 before the next backward()."""
        for p in self.parameters():
            p.grad = 0.0


def _rng(seed: int | random.Random | None):
    """A private generator for a seed; the global `random` module when there is none."""
    if seed is None or seed is random or isinstance(seed, random.Random):
        return random if seed is None else seed
    if not isinstance(seed, (bool, int, float, str, bytes, bytearray)):
        try:  # numpy's integers (np.int64(3)) are whole numbers too
            seed = operator.index(seed)
        except TypeError:
            raise TypeError(
                f"seed must be a whole number (or a random.Random), got "
                f"{type(seed).__name__}: {seed!r}; e.g. seed=0"
            ) from None
    return random.Random(seed)


def _count(value: object, what: str, example: str) -> int:
    """A size (inputs, neurons): a positive whole number, numpy's integers included."""
    if isinstance(value, (bool, float, str)):  # would read as 1, or not a count at all
        raise TypeError(f"{what} must be a positive int, got {value!r}; e.g. {example}")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(
            f"{what} must be a positive int, got {type(value).__name__}: {value!r}; e.g. {example}"
        ) from None
    return n


def _inputs(owner: str, x: object, n: int) -> list[Operand]:
    """The inputs of a call, as a list of n numbers or Values: one number, a string, or the
    wrong count is refused with the call to write."""
    example = f"model([{', '.join(f'{i + 1}.0' for i in range(n))}])"
    if isinstance(x, (str, bytes)) or not isinstance(x, Iterable):
        one = "the string" if isinstance(x, (str, bytes)) else f"one {type(x).__name__}"
        raise TypeError(
            f"{owner} expects a list of {n} inputs (numbers or Values), got {one} {x!r}; "
            f"call it with a list, e.g. {example}"
            if n > 1
            else f"{owner} expects a list of 1 input (a number or Value), got {one} {x!r}; "
            f"wrap it in a list: model([{x!r}])"
        )
    x = list(x)
    if len(x) != n:
        raise ValueError(f"{owner} expects {n} inputs, got {len(x)}")
    return x


class Neuron(Module):
    """One neuron: act(w·x + b), with act "relu" (the default), "tanh", "sigmoid" (or any
    activation row of the op table, by its method) or None (linear: w·x + b; `nonlin=False`
    says the same).

    >>> n = Neuron(2, act="tanh", seed=0)
    >>> out = n([1.0, -2.0])
    >>> out.op, out.tag is n
    ('tanh', True)
    """

    def __init__(
        self,
        nin: int,
        nonlin: bool = True,
        *,
        act: str | None = "relu",
        seed: int | random.Random | None = None,
        name: str = "n",
    ) -> None:
        act = _act(act, nonlin)
        nin = _count(nin, "Neuron's nin (its number of inputs)", "Neuron(2)")
        if nin < 1:
            raise ValueError(f"Neuron needs nin >= 1 inputs, got {nin!r}")
        rng = _rng(seed)
        self.name = name
        self.w = [Parameter(rng.uniform(-1, 1), label=f"{name}.w{i + 1}") for i in range(nin)]
        self.b = Parameter(0.0, label=f"{name}.b")
        self.act = act

    @property
    def nonlin(self) -> bool:
        """False for a linear neuron; setting it False makes one (True restores ReLU)."""
        return self.act is not None

    @nonlin.setter
    def nonlin(self, value: bool) -> None:
        self.act = (self.act or "relu") if value else None

    def __call__(self, x: Sequence[Operand]) -> Value:
        x = _inputs(self.name, x, len(self.w))
        total = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        act = _check_act(self.act)
        out = total if act is None else getattr(total, act)()
        out.tag = self
        return out

    def parameters(self) -> list[Parameter]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        row = None if self.act is None else activation_row(self.act)
        kind = "Linear" if row is None else row.key[:1].upper() + row.key[1:]  # ReLU, Tanh
        return f"{kind}Neuron({len(self.w)})"


class Layer(Module):
    """A row of neurons that all see the same inputs (each with activation `act`)."""

    def __init__(
        self,
        nin: int,
        nout: int,
        nonlin: bool = True,
        *,
        act: str | None = "relu",
        seed: int | random.Random | None = None,
        name: str = "L",
    ) -> None:
        act = _act(act, nonlin)
        nout = _count(nout, "Layer's nout (its number of neurons)", "Layer(2, 3)")
        if nout < 1:
            raise ValueError(f"Layer needs nout >= 1 neurons, got {nout!r}")
        rng = _rng(seed)
        self.name = name
        self.neurons = [
            Neuron(nin, act=act, seed=rng, name=f"{name}.n{j + 1}") for j in range(nout)
        ]

    def __call__(self, x: Sequence[Operand]) -> Value | list[Value]:
        x = _inputs(self.name, x, len(self.neurons[0].w))
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Parameter]:
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """A multi-layer perceptron: `MLP(2, [4, 4, 1])` maps 2 inputs to 1 output.

    Every layer uses ReLU, as in the blog, or the activation `act` ("tanh", "sigmoid",
    or None for linear); pass `linear_output=True` for a linear last layer (micrograd's
    choice, better for regression and SVM losses).

    >>> model = MLP(2, [4, 4, 1], seed=0)
    >>> len(model.parameters())
    37
    >>> MLP(2, [3, 1], act="tanh", linear_output=True, seed=0)
    MLP of [Layer of [TanhNeuron(2), TanhNeuron(2), TanhNeuron(2)], Layer of [LinearNeuron(3)]]
    """

    def __init__(
        self,
        nin: int,
        nouts: Sequence[int],
        *,
        act: str | None = "relu",
        linear_output: bool = False,
        seed: int | random.Random | None = None,
    ) -> None:
        _check_act(act)
        nin = _count(nin, "MLP's nin (its number of inputs)", "MLP(2, [4, 4, 1])")
        nouts = _sizes(nin, nouts)
        rng = _rng(seed)
        sizes = [nin, *nouts]
        last = len(nouts) - 1
        self.nin = nin
        self.layers = [
            Layer(
                sizes[i],
                sizes[i + 1],
                act=None if linear_output and i == last else act,
                seed=rng,
                name=f"L{i + 1}",
            )
            for i in range(len(nouts))
        ]

    def __call__(self, x: Sequence[Operand]) -> Value | list[Value]:
        x = _inputs("MLP", x, self.nin)
        # Named inputs make drawings readable: x1, x2, ...
        x = [v if isinstance(v, Value) else Value(v, label=f"x{i + 1}") for i, v in enumerate(x)]
        for layer in self.layers:
            x = layer(x)
            x = x if isinstance(x, list) else [x]
        return x[0] if len(x) == 1 else x

    def parameters(self) -> list[Parameter]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def _sizes(nin: int, nouts: object) -> list[int]:
    """MLP's layer sizes as a list of positive ints (a numpy array of them will do)."""
    usage = "MLP sizes must be a list of positive ints like [4, 1] (the last is the outputs)"
    if isinstance(nouts, (str, bytes)):
        raise TypeError(f"{usage}; got the string {nouts!r}: write the numbers, e.g. "
                        f"MLP({nin}, [4, 1])")  # fmt: skip
    if not isinstance(nouts, Iterable):
        one = nouts if isinstance(nouts, (int, float)) else 4
        raise TypeError(f"MLP needs a list of layer sizes (the last is the number of outputs), "
                        f"got {nouts!r}; e.g. MLP({nin}, [{one!r}]) for one layer, or "
                        "MLP(2, [4, 4, 1])")  # fmt: skip
    sizes = list(nouts)
    if not sizes:
        raise ValueError("MLP needs at least one layer size, e.g. MLP(2, [4, 4, 1])")
    counts = []
    for n in sizes:
        try:  # numpy's integers (np.int64(4)) are whole numbers too; bools and floats are not
            k = None if isinstance(n, (bool, float, str)) else operator.index(n)
        except TypeError:
            k = None
        if k is None:
            raise TypeError(f"{usage}; got {n!r} in {nouts!r}")
        if k < 1:
            raise ValueError(f"{usage}; got {n!r} in {nouts!r}")
        counts.append(k)
    return counts
