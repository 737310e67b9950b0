"""The public viewers of any engine's graph — `autograd_viz.draw`, `to_dot`, `roles`, `animate`,
`quiz` and `ask_table`, and the conveniences `Value.draw()` / `Value.animate()` that import this
module lazily (the one documented import from the engine up into the viewers): each checks its
options once, opens the graph once (`autograd_viz.open.door.open_graph`: the size, the one read, a
learner's engine check) and hands the snapshot down, so no layer below reads the user's graph again
and a learner's engine is drawn with its first wrong node marked and played with the numbers of one
run of their backward()."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from autograd_viz.core._checks import as_count, check_count
from autograd_viz.core.derive import MAX_NODES
from autograd_viz.core.errors import TraceError
from autograd_viz.core.graph import Graph
from autograd_viz.core.steps import Step
from autograd_viz.core.time_limits import DEFAULT_TIMEOUT
from autograd_viz.engine import Value
from autograd_viz.open.door import open_graph
from autograd_viz.view.ask import ask_of, too_large_to_ask
from autograd_viz.view.options import DrawOptions, check_speed
from autograd_viz.view.render import Drawing, dot_source, drawing

__all__ = [
    "animate", "ask_table", "draw", "explore", "player_for", "quiz", "roles", "side_by_side",
    "to_dot",
]


def _backward_timeout(options: DrawOptions, changes: dict[str, Any]) -> float:
    """`timeout=` bounds `dot` and, for a learner's engine, their backward() too; left out,
    their backward() gets DEFAULT_TIMEOUT (a few seconds, not dot's two minutes)."""
    if "timeout" in changes or options.timeout != DrawOptions.timeout:
        return options.timeout
    return DEFAULT_TIMEOUT


def draw(root: object, options: DrawOptions | None = None, /, *, check: bool | None = None,
         names: Mapping[str, object] | None = None, **changes: Any) -> Drawing:  # fmt: skip
    """Draw the graph ending at `root`, built with any micrograd-style engine (ours too).

    Options are `to_dot`'s, plus `timeout`. For a learner's own engine, `check`
    runs the engine check and marks the first node whose gradient goes wrong; by default
    it does once the graph holds gradients (its backward pass has run), True or False
    decides. `timeout=` (seconds) bounds the layout and their backward() alike; left out,
    their backward() may take 5 s (`BackwardTimeoutError` says where it was still running).
    A PyTorch scalar tensor is drawn from its `grad_fn` graph, with PyTorch's own gradients;
    `names` labels its tensors (`names={"x": x, "y": y}`), else its inputs are a, b, c.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> z = (x + y) * y
    >>> z.backward()
    >>> d = draw(z, font_size=16)   # shows inline as the last expression of a cell
    >>> "grad 8" in d.source
    True
    >>> from micrograd.engine import Value  # doctest: +SKIP
    >>> x, y = Value(2.0), Value(3.0)  # doctest: +SKIP
    >>> draw((x + y) * y)  # doctest: +SKIP
    <Drawing of 4 values, 2 operations: .source is the DOT, .svg() the picture>
    """
    options = DrawOptions.of(options, **changes)  # the one option check, before any reading
    graph = open_graph(root, caller="draw()", max_nodes=options.max_nodes, check=check,
                       timeout=_backward_timeout(options, changes), error=None,
                       names=names, collapse=options.collapse)  # fmt: skip
    return drawing(graph, options)


def to_dot(root: object, options: DrawOptions | None = None, /, **kwargs: Any) -> str:
    """The DOT source of the graph that ends at `root`.

    Options: keywords or a `DrawOptions` (rankdir, fmt, font_size, collapse, max_nodes,
    show_grad, states, legend; see `autograd_viz.view.options`).

    The ids the SVG carries are listed on `autograd_viz.view.render.dot_source`.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> print(to_dot(x + y).count("->"))
    3
    """
    options = DrawOptions.of(options, **kwargs)
    graph = open_graph(root, caller="to_dot()", max_nodes=options.max_nodes)  # the one door
    return dot_source(graph, options)


def roles(root: object) -> list[str]:
    """The role of every value, in topological order: parameters -> "param", numbers the
    engine wrapped (the 3 of `x * 3`) -> "const", other leaves (every Value you made,
    labelled or not) -> "input", the root -> "output", everything else -> "value" (the
    snapshot's `Node.role`).

    >>> from autograd_viz import Value
    >>> x = Value(2.0, label="x")
    >>> roles(x * 3)
    ['input', 'const', 'output']
    """
    return [n.role for n in open_graph(root, caller="roles()").nodes]


def ask_table(
    root: object,
    *,
    digits: int = 4,
    max_nodes: int = MAX_NODES,
    steps: list[Step] | None = None,
    latex: bool = True,
) -> dict[str, Any]:
    """The chain-rule sum of every value and the local derivative of every edge, as data
    (`autograd_viz.view.ask.ask_of`, which says what the table holds), of the graph ending at
    `root`, opened once; `steps`, if given, is its trace, so a caller that has one does not
    trace twice.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> s = x + y; s.label = "s"
    >>> z = s * y; z.label = "z"
    >>> table = ask_table(z)
    >>> table["nodes"]["v1"]["sum"]
    '∂z/∂y = ȳ via the product + ȳ via the sum = 5 + 3 = 8'
    >>> [t["edges"] for t in table["nodes"]["v1"]["terms"]]
    [['op3-v3', 'v1-op3-1'], ['op2-v2', 'v1-op2-1']]
    >>> table["edges"]["v0-op2-0"]["text"]
    '∂s/∂x = 1'
    """
    max_nodes = check_count(max_nodes, "max_nodes", TraceError)
    graph = open_graph(root, caller="ask_table()", max_nodes=max_nodes, every_value=True,
                       too_large=too_large_to_ask, check=True)  # fmt: skip
    return ask_of(graph, digits=digits, steps=steps, latex=latex)


def animate(
    root: object, *, check: bool = True, names: Mapping[str, object] | None = None, **options: Any
) -> Any:
    """Step through the forward and backward pass of any engine's graph; for a learner's
    own engine, the numbers are the ones *their* `_backward` closures produced, and (with
    `check`) the step where a rule goes wrong says so. Options are
    `autograd_viz.front.player.Player`'s; `timeout=` (seconds) bounds the layout and their
    backward() alike (5 s for their backward() when left out). Returns the player: the
    widget (`Player`) where widgets render, else the widget-free `InlinePlayer`. A PyTorch
    tensor steps through PyTorch's own backward run; `names` labels its tensors."""
    from autograd_viz.front.player import DEFAULT_MAX_FRAMES  # lazily: ipywidgets

    if names is not None:  # a tensor's graph, labelled: opened here (the door refuses others)
        most = options.get("max_nodes", DrawOptions.max_nodes)
        root = open_graph(root, caller="animate()", max_nodes=most, names=names)
    if isinstance(root, (Value, Graph)):
        return player_for(root, **options)  # ours: opened there, once
    most = check_count(options.get("max_nodes", DrawOptions.max_nodes), "max_nodes")  # first
    limit = as_count(options.get("max_frames")) or DEFAULT_MAX_FRAMES  # Player says what is wrong
    timeout = options.get("timeout", DEFAULT_TIMEOUT)
    graph = open_graph(root, caller="animate()", max_nodes=most, check=check, check_up_to=limit,
                       timeout=timeout, error=None)  # fmt: skip
    return player_for(graph, **options)  # a graph with more values than frames: unchecked


def quiz(root: object, *, names: Mapping[str, object] | None = None, **options: Any) -> Any:
    """A fill-in quiz on `root`'s graph (of any engine; a PyTorch tensor's with `names`),
    opened here once — a graph of more values than `max_nodes` is refused before it is read —
    with blanks on its nodes (see `autograd_viz.front.quiz.Quiz` for the options).

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> z = (x + y) * y; z.label = "z"
    >>> quiz(z).submit("∂z/∂y", "5+3")
    True
    """
    from autograd_viz.front.quiz import DEFAULT_MAX_NODES, Quiz, too_many  # lazily: ipywidgets

    most = options.get("max_nodes", DEFAULT_MAX_NODES)  # not a count: the Quiz says what is wrong
    graph = open_graph(
        root, caller="quiz()", max_nodes=most, every_value=True, names=names,
        too_large=lambda n: too_many(f"more than {n}", n,
                                     " (counting stopped there, before any work)"),
        needs="a Value (an expression's output)",
    )  # fmt: skip
    return Quiz(graph, **options)


def explore(
    f: Callable[..., Value],
    /,
    *,
    max_nodes: int | None = None,
    digits: int = 4,
    timeout: float = DEFAULT_TIMEOUT,
    **inputs: float,
) -> Any:
    """Draw `f(**inputs)` with a number box and a slider per input; changing one reruns the
    forward and backward pass and updates every value and gradient on the same layout.
    Click a value to ask why its gradient is what it is. `f` may run `timeout` seconds
    (5 by default) each time; past that, `CodeTimeoutError` says where it was (on a slider
    move, in the view's error line). So that a longer number later still fits, `dot` sizes
    every data and grad cell for one of `digits` significant digits and a sign. Each graph f
    builds (200 values at most by default, `max_nodes`) is opened here, its size counted first.

    >>> ex = explore(lambda x, y: (x + y) * y, x=2, y=3)
    >>> ex.result["cells"]["v1-grad"]
    'grad 8'
    >>> ex.recompute({"x": 1, "y": 3})["cells"]["v1-grad"]
    'grad 7'
    """
    from autograd_viz.core._checks import is_number
    from autograd_viz.core.errors import ExploreError, GraphTooLargeError
    from autograd_viz.front.explore import MAX_EXPLORE_NODES, Explorer  # lazily: anywidget
    from autograd_viz.view.explore_inputs import check_f, number_input, short

    check_f(f, inputs)
    start = {name: number_input(name, value) for name, value in inputs.items()}
    most = MAX_EXPLORE_NODES if max_nodes is None else max_nodes
    most = check_count(most, "explore(): max_nodes", ExploreError)
    if not is_number(timeout) or not 0 < timeout <= 3600:
        raise ExploreError(
            f"explore(): timeout is the seconds f may run on each change, a number > 0 and at "
            f"most 3600, got {short(timeout)}; e.g. timeout=5"
        )

    def too_large(n: int) -> GraphTooLargeError:
        return GraphTooLargeError(
            f"explore(): f builds a graph of more than {n} values (max_nodes={n}); every "
            "change re-runs it, so explore a smaller function, or raise max_nodes (each "
            "change gets slower)"
        )

    def opened(out: Value) -> Graph:  # on every change: a graph too big is refused unread
        return open_graph(out, caller="explore()", max_nodes=most, every_value=True,
                          too_large=too_large)  # fmt: skip

    return Explorer(f, start, opened=opened, digits=digits, timeout=float(timeout))


def side_by_side(value_root: object, tensor_root: object = None, **options: Any) -> Any:
    """Our graph of `value_root` and PyTorch's of `tensor_root` (None: the same expression,
    built in PyTorch from `value_root`'s graph), each opened here once, drawn side by side
    and paired node for node (`autograd_viz.front.side_by_side`). Drawing options
    (`rankdir`, `font_size`, ...) apply to both pictures.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> side_by_side((x + y) * y).ok  # doctest: +SKIP
    True
    """
    from autograd_viz.front import side_by_side as sbs
    from autograd_viz.open.engines.torch_graph import is_tensor

    if is_tensor(value_root):
        raise TypeError(
            "side_by_side(value_root, tensor_root): pass the kit's Value first, then the "
            "PyTorch tensor (or nothing: PyTorch then builds the same expression)"
        )
    draw_options = DrawOptions.of(**options)
    ours = open_graph(value_root, caller="side_by_side()", max_nodes=draw_options.max_nodes)
    tensor_root, names = sbs.tensor_for(ours, tensor_root)
    theirs = open_graph(tensor_root, caller="side_by_side()", names=names,
                        max_nodes=draw_options.max_nodes)  # fmt: skip
    return sbs.side_by_side(ours, theirs, draw_options)


def player_for(root: object, *, widgets: bool | None = None, **options: Any) -> Any:
    """The player for `root` (a Value of ours or a graph opened already), opened here once:
    the widget where widgets render, else the inline page.

    `widgets=None` decides with `widgets_render()`; True or False asks for one.
    """
    from autograd_viz.front.inline import FrontendError, InlinePlayer, widgets_render

    if widgets is not None and not isinstance(widgets, bool):
        raise FrontendError(f"widgets must be True, False or None (choose), got {widgets!r}")
    graph = open_graph(root, caller="animate()",
                       max_nodes=options.get("max_nodes", DrawOptions.max_nodes),
                       collapse=options.get("collapse"))  # the one door: neurons counted too
    if widgets if widgets is not None else widgets_render():
        from autograd_viz.player import Player  # only here: anywidget and ipywidgets

        return Player(graph, **options)
    options.pop("history", None)  # the page lists the whole derivation already
    speed = options.pop("speed", None)
    if speed is not None:
        speed = check_speed(speed)
        options["interval"] = min(60.0, max(0.05, 1 / speed))
    return InlinePlayer(graph, **options)
