"""Each public call opens its graph once: counted on real calls, followed with `sys.setprofile`.

Before the one door (autograd_viz/open/door.py), one `z.animate()` ran the size check 3 times
and the graph snapshot 4 times; one `autograd_viz.draw(micrograd_value)` read the graph 5
times and built its DOT twice; a learner's `_backward` closures ran 3-4 times per picture.
Here every public call is followed function by function: the size check, the drawing-option
check (`DrawOptions.of`) and the read of the graph each run once, each node's operands are
read once (our `Value.parents`, another engine's `_prev`), the DOT is built once, a
learner's `_backward` runs once per node, and no call goes back up into a module that is
already below it on the call stack, except from the engine's documented entry.
"""

from __future__ import annotations

import collections
import os
import sys
from collections.abc import Callable

import micrograd.engine as micrograd
import own_engines as oe
import pytest

import autograd_viz
from autograd_viz import Value

PACKAGE = os.path.dirname(os.path.abspath(autograd_viz.__file__)) + os.sep
ENGINE = os.path.join(PACKAGE, "engine.py")

# what is counted: (file inside the package, function name) -> the name of the work
WORK = {
    ("open/size.py", "check_size"): "size check",
    ("open/size.py", "read_within"): "size check",
    ("view/options.py", "of"): "option check",
    ("open/snapshot.py", "snapshot"): "graph read",  # only with a root that is not a snapshot yet
    ("open/engines/read.py", "read_graph"): "graph read",
    ("view/render.py", "_build"): "DOT built",
    ("core/derive.py", "derive"): "trace",  # every derivation (trace() opens, then derives)
}


def _module(code) -> str | None:
    """The package module (path inside the package) a code object belongs to, else None."""
    path = code.co_filename
    return path[len(PACKAGE) :] if path.startswith(PACKAGE) else None


class Follow:
    """Counts the work in `WORK` while a call runs, and every call that goes back up into
    a package module already on the call stack below a different one (A → B → A)."""

    def __init__(self, root: object) -> None:
        self.root = root  # reads of other graphs (the check's probes build their own) differ
        self.work: collections.Counter[str] = collections.Counter()
        self.parents_read: collections.Counter[int] = collections.Counter()
        self.back_up: set[tuple[str, str, str]] = set()

    def __call__(self, frame, event, arg) -> None:
        if event != "call":
            return
        try:  # noqa: SIM105 -- not contextlib.suppress: its __enter__ is a call, too deep here
            self._count(frame)
        except RecursionError:  # the check's probes let a method that calls itself for ever
            pass  # run out of stack (`shallow_stack`): the profiler must not be unset by it

    def _count(self, frame) -> None:
        module = _module(frame.f_code)
        if module is None:
            return
        name = frame.f_code.co_name
        what = WORK.get((module, name))
        if what == "graph read" and frame.f_locals.get("root") is not self.root:
            what = None  # a snapshot passes through as it is; a probe's graph is another
        if what is not None:
            self.work[what] += 1
        if module == "engine.py" and name == "parents":
            caller = frame.f_back
            if caller is not None and _module(caller.f_code) not in (None, "engine.py"):
                self.parents_read[id(frame.f_locals["self"])] += 1
        self._check_up(frame, module)

    def _check_up(self, frame, module: str) -> None:
        """Record a call into `module` from another module while `module` is further down
        the stack: a lower layer reaching back up into its caller's caller."""
        caller = frame.f_back
        while caller is not None and _module(caller.f_code) is None:
            caller = caller.f_back  # the learner's own code in between: look past it
        if caller is None or _module(caller.f_code) == module:
            return
        if module == "__init__.py" and frame.f_code.co_name == "__getattr__":
            return  # the package's lazy names (`autograd_viz.MLP`): not a layer
        for value in caller.f_locals.values():  # a callback the caller was handed, run
            value = getattr(value, "func", value)  # a functools.partial: a snapshot's rule
            if getattr(getattr(value, "__func__", value), "__code__", None) is frame.f_code:
                return
        below = caller.f_back
        while below is not None:
            if _module(below.f_code) == module and below.f_code.co_filename != ENGINE:
                self.back_up.add((module, _module(caller.f_code), frame.f_code.co_name))
                return
            below = below.f_back

    def run(self, call: Callable[[], object]) -> object:
        previous = sys.getprofile()
        sys.setprofile(self)
        try:
            result = call()
            assert sys.getprofile() is self, "the profiler was unset: the counts are short"
            return result
        finally:
            sys.setprofile(previous)


# the modules that every layer may use: values, numbers, text, the op table, the errors
_LEAVES = {"engine.py", "_value_protocols.py", "core/_numbers.py", "core/_text.py",
           "core/_equations.py", "core/ops.py", "core/errors.py", "core/naming.py"}  # fmt: skip


def _calls_back_up(follow: Follow) -> list[tuple[str, str, str]]:
    return sorted(c for c in follow.back_up if c[0] not in _LEAVES)


# ---- a learner's class that counts what the kit reads and what runs ---------------------------

READS: collections.Counter[int] = collections.Counter()  # id(node) -> reads of its `_prev`
RUNS: collections.Counter[int] = collections.Counter()  # id(node) -> calls of its `_backward`


class CountedValue(oe.BlogValue):
    """The blog's micrograd-style class (`tests/own_engines.py`), counting each read of
    `_prev` by the kit (a property) and each call of a `+` or `*` node's `_backward`."""

    def __init__(self, data, _children=(), _op="", label=""):
        super().__init__(data, (), _op, label)
        self._kept = set(_children)

    @property
    def _prev(self):
        if _module(sys._getframe(1).f_code) is not None:  # the kit, not their backward()
            READS[id(self)] += 1
        return self._kept

    @_prev.setter
    def _prev(self, value):
        self._kept = value

    def __add__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data + other.data, (self, other), "+")

        def _backward():
            RUNS[id(out)] += 1
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            RUNS[id(out)] += 1
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out


def _nodes(root) -> list:
    out, stack, seen = [], [root], set()
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
            stack.extend(v._kept if isinstance(v, CountedValue) else v.parents)
    return out


def _blog(cls, *, backward: bool = True):
    x, y = cls(2.0, label="x"), cls(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    if backward:
        z.backward()
    return z


@pytest.fixture(autouse=True)
def _widget_free(monkeypatch):
    monkeypatch.setenv("AUTOGRAD_VIZ_WIDGETS", "1")  # the widget: the player itself


# ---- the three calls of the issue, followed -------------------------------------------------


def test_z_animate_opens_the_graph_once_and_builds_its_dot_once():
    z = _blog(Value)
    follow = Follow(z)
    follow.run(z.animate)
    assert follow.work == {"size check": 1, "option check": 1, "graph read": 1, "DOT built": 1,
                           "trace": 1}  # fmt: skip
    assert sorted(follow.parents_read.values()) == [1, 1, 1, 1]  # each node's operands once
    assert set(follow.parents_read) == {id(v) for v in _nodes(z)}
    assert _calls_back_up(follow) == []


def test_drawing_a_micrograd_value_reads_it_once_and_builds_its_dot_once():
    a, b = micrograd.Value(2.0), micrograd.Value(3.0)
    z = (a + b) * b
    z.backward()
    follow = Follow(z)
    drawing = follow.run(lambda: autograd_viz.draw(z))
    assert follow.work == {"size check": 1, "option check": 1, "graph read": 1, "DOT built": 1}
    assert drawing.source.count("->") == 6
    assert _calls_back_up(follow) == []


def test_a_quiz_opens_the_graph_once_and_builds_its_dot_once():
    z = _blog(Value)
    follow = Follow(z)
    follow.run(lambda: autograd_viz.quiz(z))
    assert follow.work == {"size check": 1, "option check": 1, "graph read": 1, "DOT built": 1,
                           "trace": 1}  # fmt: skip
    assert sorted(follow.parents_read.values()) == [1, 1, 1, 1]
    assert _calls_back_up(follow) == []


# ---- a learner's own engine: operands read once, their `_backward` run once --------------------

CALLS = {
    "draw": lambda z: autograd_viz.draw(z),
    "draw, checked": lambda z: autograd_viz.draw(z, check=True),
    "animate": lambda z: autograd_viz.animate(z),
    "animate, unchecked": lambda z: autograd_viz.animate(z, check=False),
    "check_engine": lambda z: autograd_viz.check_engine(z),
    "quiz": lambda z: autograd_viz.quiz(z),
    "derivation": lambda z: autograd_viz.trace.derivation(z),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_a_learners_graph_is_read_once_and_each_backward_runs_once(call):
    z = _blog(CountedValue)
    nodes = _nodes(z)
    READS.clear()
    RUNS.clear()
    follow = Follow(z)
    follow.run(lambda: CALLS[call](z))
    assert follow.work["graph read"] == 1
    assert [READS[id(v)] for v in nodes] == [1] * len(nodes)  # each node's `_prev`, once
    operations = [v for v in nodes if v._kept]
    assert [RUNS[id(v)] for v in operations] == [1] * len(operations)  # their rules, once
    assert _calls_back_up(follow) == []


@pytest.mark.parametrize("call", ["draw", "animate", "quiz", "check_engine"])
def test_a_rule_that_ran_where_nothing_flowed_is_not_run_again(call):
    # (x * y) * 0: their backward() calls x * y's rule with out.grad = 0, which sends 0
    # whatever the rule; its local derivatives were found by calling that rule a second
    # time, at gradient 1. They come from the op table now, as check_engine's verdict
    # ("sends 0 whatever the rule") already did; what the rule sent stays theirs.
    x, y = CountedValue(2.0, label="x"), CountedValue(3.0, label="y")
    z = (x * y) * CountedValue(0.0, label="c")
    z.backward()
    nodes = _nodes(z)
    RUNS.clear()
    CALLS[call](z)
    assert [RUNS[id(v)] for v in nodes if v._kept] == [1, 1]
    graph = autograd_viz.open.door.open_graph(z, caller="test")
    product = graph.nodes[2]
    assert (product.op, product.local, product.sent) == ("*", (3.0, 2.0), (0.0, 0.0))


@pytest.mark.parametrize("call", ["draw", "animate", "quiz"])
def test_a_learners_graph_opened_once_is_checked_once(call):
    z = _blog(CountedValue)
    follow = Follow(z)
    follow.run(lambda: CALLS[call](z))
    assert follow.work["size check"] == 1 and follow.work["option check"] <= 1
    assert follow.work["DOT built"] == 1


@pytest.mark.parametrize("phase", ["both", "forward", "backward"])
def test_a_player_traces_its_graph_once_in_every_phase(phase):
    """Both passes are traced once; each phase's steps, the final gradients the layout is
    sized for and the ask panel all read that one trace."""
    z = _blog(Value)
    follow = Follow(z)
    follow.run(lambda: autograd_viz.animate(z, phase=phase))
    assert follow.work["trace"] == 1


def test_a_quiz_traces_its_graph_once_even_when_it_offers_a_values_equation():
    """The step equation offered after two misses on a value comes from the quiz's one trace
    of both passes, not a second trace of the forward pass."""
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y

    def miss_twice() -> str:
        q = autograd_viz.quiz(z, values=True, grads=False)
        label = q.blanks[0].label
        q.submit(label, "4")
        q.submit(label, "6")
        return q.step_equation(label)

    follow = Follow(z)
    said = follow.run(miss_twice)
    assert follow.work["trace"] == 1
    assert said == "x + y = 2 + 3 = ?"  # its result left for the learner


def test_what_a_learners_picture_shows_is_their_recorded_run():
    """The numbers of every frame come from the one run: the trace's local derivatives
    (asked at gradient 1) are that run's, scaled, not their closure called again."""
    z = _blog(CountedValue)
    operations = [v for v in _nodes(z) if v._kept]
    RUNS.clear()
    player = autograd_viz.animate(z)
    texts = [s.text for s in player.steps]
    assert "∂z/∂y = 5 + 3 = 8" in texts  # the blog's numbers, as their backward() gave them
    assert [RUNS[id(v)] for v in operations] == [1, 1]


# ---- the mark is passed in; the errors live in one module ------------------------------------


def test_the_dot_builder_marks_a_learners_first_wrong_node_only_when_the_caller_asks():
    """render's DOT builder no longer reaches back up for the mark: the caller passes it."""
    from autograd_viz.frames import Frames
    from autograd_viz.view import render
    from autograd_viz.view.options import DrawOptions

    z = oe.square_of_ab_plus_c(oe.SwappedMul)
    z.backward()  # so the graph is checked: its first wrong node is known
    graph = Frames(z).graph
    assert graph.first_wrong is not None
    plain = render._build(graph, DrawOptions())[0]
    assert "first wrong gradient" not in plain and 'class="op wrong"' not in plain

    from autograd_viz.view.mark import marker

    marked = render._build(graph, DrawOptions(), marker(graph))[0]
    assert "first wrong gradient" in marked and 'class="op wrong"' in marked
    assert marked == autograd_viz.draw(z).source


def test_the_errors_of_opening_and_drawing_live_in_one_module_under_their_old_names():
    from autograd_viz.core import errors
    from autograd_viz.core.errors import (
        BackwardTimeoutError,
        CycleError,
        GraphError,
        StaleGraphError,
    )
    from autograd_viz.frames import FramesError
    from autograd_viz.open.engines.read import NotAGraphError, NumberOutOfRangeError
    from autograd_viz.view.layout import GraphvizError, GraphvizNotFoundError
    from autograd_viz.view.render import GraphTooLargeError

    old_names = [NotAGraphError, NumberOutOfRangeError, BackwardTimeoutError, CycleError,
                 GraphError, StaleGraphError, FramesError, GraphvizError,
                 GraphvizNotFoundError, GraphTooLargeError]  # fmt: skip
    for cls in old_names:
        assert cls.__module__ == "autograd_viz.core.errors" and getattr(errors, cls.__name__) is cls
    with pytest.raises(errors.GraphTooLargeError):  # one class, whichever viewer refuses
        autograd_viz.trace.trace(_chain(600))
    with pytest.raises(errors.GraphTooLargeError):
        autograd_viz.draw(_chain(600))


def _chain(n: int) -> Value:
    y = Value(0.5, label="x")
    for _ in range(n):
        y = y.tanh()
    return y


# ---- every public entry: the same once each ---------------------------------------------------


def _entries(folder):
    from autograd_viz import export
    from autograd_viz.frames import Frames
    from autograd_viz.player import Player
    from autograd_viz.trace import trace

    return {
        "Value.draw": lambda z: z.draw(),
        "Player": Player,
        "Frames": Frames,
        "animate, widget-free": lambda z: autograd_viz.animate(z, widgets=False),
        "save_html": lambda z: export.save_html(z, folder / "z.html"),
        "standalone_html": export.standalone_html,
        "save_svg_animation": lambda z: export.save_svg_animation(z, folder / "z.svg"),
        "save_gif": lambda z: export.save_gif(z, folder / "z.gif"),
        "filmstrip": export.filmstrip,
        "worksheet": export.worksheet,
        "save_worksheet": lambda z: export.save_worksheet(z, folder / "sheet.html"),
        "trace": trace,
        "autograd_viz.draw": autograd_viz.draw,
        "autograd_viz.animate": autograd_viz.animate,
        "autograd_viz.quiz": autograd_viz.quiz,
    }


@pytest.mark.parametrize("entry", list(_entries(None)))
def test_every_public_entry_opens_the_graph_once(entry, tmp_path):
    z = _blog(Value)
    follow = Follow(z)
    follow.run(lambda: _entries(tmp_path)[entry](z))
    drawn = {"option check": 1, "DOT built": 1} if entry != "trace" else {}
    drawing = entry in ("Value.draw", "autograd_viz.draw")
    traced = {} if drawing else {"trace": 1}  # every derivation, traced once
    assert follow.work == {"size check": 1, "graph read": 1, **drawn, **traced}
    assert sorted(follow.parents_read.values()) == [1, 1, 1, 1]
    assert _calls_back_up(follow) == []


def _learner_entries(folder):
    from autograd_viz import api

    ours = {name: call for name, call in _entries(folder).items() if name != "Value.draw"}
    return {
        **ours,  # a learner's class has no draw() of the kit's
        "ask_table": api.ask_table,
        "to_dot": api.to_dot,
        "roles": api.roles,
        "node_names": autograd_viz.trace.node_names,
    }


@pytest.mark.parametrize("entry", list(_learner_entries(None)))
def test_every_public_entry_reads_a_learners_graph_once_and_runs_each_rule_once(entry, tmp_path):
    # the same once-each for a learner's own engine, through every entry, exports included
    z = _blog(CountedValue)
    nodes = _nodes(z)
    READS.clear()
    RUNS.clear()
    follow = Follow(z)
    follow.run(lambda: _learner_entries(tmp_path)[entry](z))
    assert follow.work["graph read"] == 1
    assert [READS[id(v)] for v in nodes] == [1] * len(nodes)
    operations = [v for v in nodes if v._kept]
    assert [RUNS[id(v)] for v in operations] == [1] * len(operations)
    assert _calls_back_up(follow) == []


def test_every_error_a_viewer_raises_is_defined_in_the_errors_module():
    # issue 17 item 1: "errors a viewer raises live in one module"; the old names stay
    import importlib
    import inspect

    import autograd_viz.core.errors as errors

    for name in ["trace", "front.inline", "front.quiz", "exports.slides", "exports.notebook_html",
                 "exports.animation", "front.explore", "view.network", "front.player",
                 "exports.worksheet", "view.render", "view.frames"]:  # fmt: skip
        module = importlib.import_module(f"autograd_viz.{name}")
        for attr in module.__all__:  # what the viewer offers (and raises)
            value = getattr(module, attr)
            ours = inspect.isclass(value) and value.__module__.startswith("autograd_viz")
            if ours and issubclass(value, Exception):
                assert value.__module__ == "autograd_viz.core.errors", f"{name}.{attr}"
                assert getattr(errors, attr) is value
