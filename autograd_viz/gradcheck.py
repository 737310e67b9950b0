"""Numerical gradient checking, so that backprop is trusted only after it is compared with finite
differences: `gradcheck(f, inputs)` checks what it is given before `f` runs (plain numbers, by name
or by position, that fit f's parameters; a learner's own Value class as `engine=`), runs `f` on
Values, back-propagates, and compares each input's gradient with the central difference of
`gradcheck_probe` (which also says why where no fair verdict is possible: a kink, the edge of f's
domain, an `h` that leaves it), in the `GradReport` of `gradcheck_report` that tests and
notebooks share.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence

from autograd_viz.core._checks import is_number
from autograd_viz.engine import Value
from autograd_viz.gradcheck_probe import _call, _domain_error, _output, _Probe, numeric_gradient
from autograd_viz.gradcheck_report import GradcheckError, GradReport, GradRow

__all__ = ["GradReport", "GradRow", "GradcheckError", "gradcheck", "numeric_gradient"]


def _check_engine(engine: object) -> None:
    """`engine` must make nodes of a graph from numbers (the learner's Value class), nodes
    with a `backward()` to check; anything else is refused before f runs."""
    from autograd_viz.open.engines.node import is_graph

    name = getattr(engine, "__name__", repr(engine))
    usage = "e.g. from micrograd.engine import Value; gradcheck(f, [2.0], engine=Value)"
    library = (getattr(engine, "__module__", "") or "").split(".")[0]
    if library in ("numpy", "torch"):  # array libraries: not a scalar engine's Value class
        extra = (
            " (for PyTorch, torch.autograd.gradcheck checks tensors)" if library == "torch" else ""
        )
        raise TypeError(
            f"gradcheck: engine={library}.{name} is an array type, not a scalar engine; "
            f"engine= takes your own micrograd-style Value class{extra}; {usage}"
        )
    try:
        made = engine(1.0) if callable(engine) else None
    except Exception as err:  # the class cannot be built from one number
        raise TypeError(
            f"gradcheck: engine must be your Value class, called with a number to make an "
            f"input, but {name}(1.0) raised {type(err).__name__}: {err}; {usage}"
        ) from None
    if not is_graph(made):
        raise TypeError(
            f"gradcheck: engine must be your Value class, called with a number to make an "
            f"input (a node with data, grad and _prev), got {engine!r}; {usage}"
        )
    if not callable(getattr(made, "backward", None)):
        raise TypeError(
            f"gradcheck: your {name} nodes have no backward() method, and gradcheck compares "
            f"the gradients backward() gives with central differences; add backward() to "
            f"{name} first (a topological sort of the graph, then each node's _backward in "
            f"reverse order)"
        )


def _leaf(engine: Callable[[float], object] | None, x: float, name: str) -> object:
    """An input of the check: our Value, or one of the learner's own class, labelled."""
    if engine is None:
        return Value(x, label=name)
    leaf = engine(x)
    with contextlib.suppress(AttributeError):  # __slots__ without a label: unlabelled is fine
        leaf.label = name
    return leaf


def _number(name: str, v: object) -> float:
    if isinstance(v, Value):
        raise TypeError(
            f"gradcheck: input {name!r} is a Value; gradcheck makes the Values itself from plain "
            f"numbers: pass its number, {v.data!r} (a Value's number is its .data)"
        )
    if isinstance(v, str):
        raise TypeError(
            f"gradcheck: input {name!r} is the string {v!r}; pass a number, e.g. float({v!r})"
        )
    if not is_number(v):
        raise TypeError(f"gradcheck: input {name!r} must be a number, got {type(v).__name__}")
    x = float(v)
    if not math.isfinite(x):
        raise ValueError(f"gradcheck: input {name!r} is {x}; slopes need finite inputs")
    return x


def _read_inputs(inputs: object) -> tuple[list[str], list[float], bool]:
    """Names, numbers, and whether `f` takes them by name (a mapping) or by position."""
    if isinstance(inputs, (str, bytes)):
        raise TypeError(
            f"gradcheck: inputs must be numbers, got the string {inputs!r}; pass a dict such as "
            '{"a": 1.0, "b": 2.0} (bound by name) or a list such as [1.0, 2.0] (by position)'
        )
    if isinstance(inputs, (Value, numbers.Real)):
        one = inputs.data if isinstance(inputs, Value) else inputs
        raise TypeError(
            f"gradcheck: inputs must be a dict or a list of plain numbers, got one "
            f"{type(inputs).__name__}; wrap it, e.g. gradcheck(f, [{one!r}])"
        )
    if isinstance(inputs, Mapping):
        names = list(inputs)
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"gradcheck: input names must be strings, got {name!r}")
        return names, [_number(n, v) for n, v in inputs.items()], True
    if not isinstance(inputs, Iterable):
        raise TypeError(
            f"gradcheck: inputs must be a dict or a list of numbers, got {type(inputs).__name__}"
        )
    values = list(inputs)
    names = [f"x{i + 1}" for i in range(len(values))]
    return names, [_number(n, v) for n, v in zip(names, values)], False


def _check_binding(f: Callable[..., Value], names: list[str], by_name: bool = True) -> None:
    """Refuse inputs that do not fit f's parameters (names of a mapping, or how many in a
    list), before f runs."""
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):  # a builtin without a signature: let the call say
        return
    params = ", ".join(signature.parameters)
    if not by_name:
        try:
            signature.bind(*names)
        except TypeError as err:
            raise TypeError(
                f"gradcheck: {len(names)} input(s) given but f takes ({params}): {err}. A list "
                "binds by position: give one number per parameter"
            ) from None
        return
    try:
        signature.bind(**dict.fromkeys(names, 0.0))
    except TypeError as err:
        raise TypeError(
            f"gradcheck: the inputs are named {names} but f takes ({params}): {err}. A dict binds "
            "by name, so name each input after one of f's parameters (or pass a list to bind "
            "by position)"
        ) from None


def gradcheck(
    f: Callable[..., Value],
    inputs: Mapping[str, float] | Sequence[float],
    *,
    h: float = 1e-6,
    tol: float = 1e-5,
    engine: Callable[[float], object] | None = None,
) -> GradReport:
    """Compare backprop's gradients of `f` with central differences.

    `engine` checks your own engine instead of ours: the micrograd-style class the inputs
    are made with (`engine(number)`), whose `backward()` gives the analytic side.

    `inputs` is a mapping from names to numbers, passed to `f` by name (so the order of
    the mapping does not matter), or a plain sequence passed by position (names are then
    x1, x2, ...). An input passes when |analytic − numeric| ≤ tol·max(1, |numeric|).

    >>> report = gradcheck(lambda a, b: (a * b).tanh(), {"b": -1.5, "a": 0.5})
    >>> report.ok
    True
    """
    if not callable(f):
        raise TypeError(
            f"gradcheck: f must be a function of the inputs, got {type(f).__name__}: {f!r}; "
            "e.g. gradcheck(lambda a, b: a * b, [2.0, 3.0])"
        )
    names, values, by_name = _read_inputs(inputs)
    if not values:
        raise ValueError("gradcheck needs at least one input")
    if not is_number(h) or not (0 < h < math.inf):
        raise ValueError(f"gradcheck: step h must be a positive number, got {h!r}")
    if not is_number(tol) or not (0 < tol < math.inf):
        raise ValueError(
            f"gradcheck: tol must be a positive number (e.g. 1e-5), got {tol!r}; "
            "with tol <= 0 no numerical slope could ever match"
        )
    for name, x in zip(names, values):
        if x + h == x or x - h == x:  # the probes would not move: a slope of 0, a false FAIL
            raise ValueError(
                f"gradcheck: h = {h:g} is too small to move input {name!r} = {x:g} (x + h == x "
                f"in floating point); pass a larger h, e.g. h={max(1e-6, abs(x) * 1e-6):g}"
            )
    keyword_names = names if by_name else None
    _check_binding(f, names, by_name)
    if engine is not None:
        _check_engine(engine)

    leaves = [_leaf(engine, v, n) for n, v in zip(names, values)]
    out = _output(_call(f, keyword_names, leaves), engine)
    if not math.isfinite(out.data):
        raise GradcheckError(
            f"gradcheck: f = {out.data} at these inputs; there is no slope to measure. "
            "Choose inputs where f is finite"
        )
    try:
        out.backward()
    except (ArithmeticError, ValueError) as err:  # a learner's rule with no value here
        raise GradcheckError(
            f"gradcheck: backward() raised {type(err).__name__}: {err}, at these inputs "
            f"({', '.join(f'{n} = {v:g}' for n, v in zip(names, values))}): a local "
            "derivative has no finite value here (x**0.5 at 0). Choose inputs inside f's domain"
        ) from err
    probe = _Probe(f, keyword_names, values, tol, engine)
    rows = []
    for i, (name, leaf) in enumerate(zip(names, leaves)):
        analytic = float(leaf.grad)
        up, down = probe.at(i, h), probe.at(i, -h)
        edge = None
        if isinstance(up, str) or isinstance(down, str):
            edge = probe.edge_row(name, i, h, out.data, analytic)
        if edge is not None:  # a smaller h cannot help: say so in the report, as for a kink
            rows.append(edge)
            continue
        for step, y in ((h, up), (-h, down)):
            if isinstance(y, str):
                raise _domain_error(probe, names, i, h, step, y, analytic)
        numeric = (up - down) / (2 * h)
        abs_error = abs(analytic - numeric)
        rel_error = abs_error / max(abs(analytic), abs(numeric), 1e-12)
        ok = probe.agrees(analytic, numeric)
        kink, note = (False, "") if ok else probe.kink_note(name, i, h, out.data, analytic)
        rows.append(GradRow(name, analytic, numeric, abs_error, rel_error, ok, note, kink))
    return GradReport(tuple(rows), tol)
