"""Neural networks from Values: Neuron, Layer and MLP, as in micrograd.

A neuron computes act(w·x + b). Stacking neurons into layers and layers into
an MLP gives a network whose every weight is a `Parameter` (a Value that
drawings style as a weight) and whose every output remembers which neuron made
it (`Value.tag`), so a drawing can collapse a network into one box per neuron.

Initialisation draws from a private `random.Random(seed)` when a seed is given,
and from the global `random` module otherwise — so the blog's
`random.seed(42); model = MLP(2, [4, 4, 1])` works as written, and a seeded
model never disturbs anyone else's random numbers.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from autograd_viz.engine import Operand, Value


class Parameter(Value):
    """A trainable Value (a weight or a bias). Behaves exactly like a Value."""

    __slots__ = ()


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
    return random.Random(seed)


class Neuron(Module):
    """One neuron: relu(w·x + b), or w·x + b when `nonlin=False`.

    >>> n = Neuron(2, seed=0)
    >>> out = n([1.0, -2.0])
    """

    def __init__(
        self,
        nin: int,
        nonlin: bool = True,
        *,
        seed: int | random.Random | None = None,
        name: str = "n",
    ) -> None:
        if not isinstance(nin, int) or nin < 1:
            raise ValueError(f"Neuron needs nin >= 1 inputs, got {nin!r}")
        rng = _rng(seed)
        self.name = name
        self.w = [Parameter(rng.uniform(-1, 1), label=f"{name}.w{i + 1}") for i in range(nin)]
        self.b = Parameter(0.0, label=f"{name}.b")
        self.nonlin = nonlin

    def __call__(self, x: Sequence[Operand]) -> Value:
        if len(x) != len(self.w):
            raise ValueError(f"{self.name} expects {len(self.w)} inputs, got {len(x)}")
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        out = act.relu() if self.nonlin else act
        out.tag = self
        return out

    def parameters(self) -> list[Parameter]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        return f"{'ReLU' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):
    """A row of neurons that all see the same inputs."""

    def __init__(
        self,
        nin: int,
        nout: int,
        nonlin: bool = True,
        *,
        seed: int | random.Random | None = None,
        name: str = "L",
    ) -> None:
        if not isinstance(nout, int) or nout < 1:
            raise ValueError(f"Layer needs nout >= 1 neurons, got {nout!r}")
        rng = _rng(seed)
        self.name = name
        self.neurons = [Neuron(nin, nonlin, seed=rng, name=f"{name}.n{j + 1}") for j in range(nout)]

    def __call__(self, x: Sequence[Operand]) -> Value | list[Value]:
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Parameter]:
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """A multi-layer perceptron: `MLP(2, [4, 4, 1])` maps 2 inputs to 1 output.

    Every layer uses ReLU, as in the blog; pass `linear_output=True` for a
    linear last layer (micrograd's choice, better for regression and SVM losses).

    >>> model = MLP(2, [4, 4, 1], seed=0)
    >>> len(model.parameters())
    37
    """

    def __init__(
        self,
        nin: int,
        nouts: Sequence[int],
        *,
        linear_output: bool = False,
        seed: int | random.Random | None = None,
    ) -> None:
        if not nouts:
            raise ValueError("MLP needs at least one layer size, e.g. MLP(2, [4, 4, 1])")
        rng = _rng(seed)
        sizes = [nin, *nouts]
        last = len(nouts) - 1
        self.nin = nin
        self.layers = [
            Layer(
                sizes[i],
                sizes[i + 1],
                nonlin=not (linear_output and i == last),
                seed=rng,
                name=f"L{i + 1}",
            )
            for i in range(len(nouts))
        ]

    def __call__(self, x: Sequence[Operand]) -> Value | list[Value]:
        if len(x) != self.nin:
            raise ValueError(f"MLP expects {self.nin} inputs, got {len(x)}")
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
