"""A learner's own engine in the viewers: the snapshot that replays their run, gradcheck,
drawn and animated (the Done-when examples with micrograd from PyPI), refused when large,
in a real browser, and every viewer taking their graph directly.

Reading, running and checking their engine have their own files: tests/test_engines_read.py,
tests/test_engines_run.py, tests/test_engines_check.py."""

from __future__ import annotations

import os

import own_engines as oe
import pytest

from autograd_viz import check_engine
from autograd_viz.open.engines.read import NotAGraphError, read_graph
from autograd_viz.open.engines.run import run_backward

if os.environ.get("CI"):  # CI installs the test extra: a missing peer is a broken setup
    import micrograd.engine as mg
else:
    mg = pytest.importorskip("micrograd.engine", reason="pip install micrograd==0.1.0")

ENGINES = {"micrograd": lambda: mg.Value, "blog": lambda: oe.BlogValue}


# ---- the snapshot: their graph through the same door as ours -----------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_the_derivation_of_their_graph_is_the_blogs(engine):
    from autograd_viz.open.engines.replay import foreign_snapshot
    from autograd_viz.trace import derivation

    root = oe.b_used_twice(ENGINES[engine]())
    before = oe.grads(root)
    text = derivation(foreign_snapshot(root), "backward").splitlines()
    assert text[0] == "∂L/∂L = 1"
    assert text[-3:] == [
        "∂L/∂a = ∂L/∂c · ∂c/∂a = 2 · b = 2 · 3 = 6",
        "b\u0304 via the product = ∂L/∂c · ∂c/∂b = 2 · a = 2 · 2 = 4",
        "∂L/∂b = 2 + 4 = 6",
    ]
    assert oe.grads(root) == before


def test_the_derivation_shows_the_numbers_their_rule_produced():
    from autograd_viz.open.engines.replay import foreign_snapshot
    from autograd_viz.trace import derivation

    text = derivation(foreign_snapshot(oe.square_of_ab_plus_c(oe.ForgotOutGrad)), "backward")
    assert (
        "∂L/∂a = ∂L/∂d · ∂d/∂a = 14 · b = 14 · 3 = 3   ✗ your `__mul__` sent 3 to a; the "
        "product rule gives 42 — it left out the chain rule's factor out.grad (here 14)"
    ) in text.splitlines()
    # b's line too: before, only the first wrong operand of a call was said, and b's line
    # stated "14 · 2 = 2" with nothing after it
    assert (
        "∂L/∂b = ∂L/∂d · ∂d/∂b = 14 · a = 14 · 2 = 2   ✗ your `__mul__` sent 2 to b; the "
        "product rule gives 28 — it left out the chain rule's factor out.grad (here 14)"
    ) in text.splitlines()


def test_a_correct_engine_has_no_flags_in_its_derivation():
    from autograd_viz.open.engines.replay import foreign_snapshot
    from autograd_viz.trace import derivation

    assert "✗" not in derivation(foreign_snapshot(oe.square_of_ab_plus_c(mg.Value)))


def test_a_times_a_shares_what_their_rule_sent_between_both_operands():
    from autograd_viz.open.engines.replay import foreign_snapshot

    a = mg.Value(3.0)
    g = foreign_snapshot(a * a)
    assert g.nodes[-1].operands == (0, 0)
    assert g.nodes[1].local == g.nodes[1].sent == (3.0, 3.0)
    assert a.grad == 0


# ---- gradcheck on their engine ---------------------------------------------------------------


def test_gradcheck_checks_micrograds_engine_with_the_blogs_numbers():
    from autograd_viz import gradcheck

    report = gradcheck(
        lambda a, b, c: (a * b + c) ** 2, {"a": 2.0, "b": 3.0, "c": 1.0}, engine=mg.Value
    )
    assert report.ok
    assert [r.analytic for r in report.rows] == [42, 28, 14]


def test_gradcheck_catches_a_planted_bug_in_their_engine():
    from autograd_viz import gradcheck

    report = gradcheck(lambda a, b: (a * b + 1) ** 2, {"a": 2.0, "b": 3.0}, engine=oe.SwappedMul)
    assert not report.ok
    assert report["a"].analytic == 28 and report["a"].numeric == pytest.approx(42)


def test_gradcheck_with_an_engine_refuses_a_result_that_is_no_graph():
    from autograd_viz import gradcheck

    with pytest.raises(TypeError, match="f must return a value of Value, got float"):
        gradcheck(lambda a: 3.0, [1.0], engine=mg.Value)


# ---- drawn and animated: the Done-when examples with micrograd from PyPI -----------------------

BLOG_EXAMPLES = {
    "z=(x+y)y": (oe.sum_times_y, ("z", 15), {"x": 3, "y": 8}),
    "L=(ab+c)^2 at 2,3,1": (oe.square_of_ab_plus_c, ("L", 49), {"a": 42, "b": 28, "c": 14}),
    "L=(ab+c)^2 at 2,-3,10": (
        lambda cls: oe.square_of_ab_plus_c(cls, 2.0, -3.0, 10.0),
        ("L", 16),
        {"a": -24, "b": 16, "c": 8},
    ),
    "L=2(ab+b)": (oe.b_used_twice, ("L", 18), {"a": 6, "b": 6}),
}


@pytest.mark.parametrize("example", BLOG_EXAMPLES)
def test_micrographs_graph_draws_with_label_data_and_grad(example):
    import autograd_viz

    make, (out, value), grads = BLOG_EXAMPLES[example]
    root = make(mg.Value)
    root.backward()
    before = oe.grads(root)
    drawing = autograd_viz.draw(root)
    for name, grad in [(out, 1), *grads.items()]:
        node = next(line for line in drawing.source.splitlines() if f">{name}</FONT>" in line)
        assert f"grad {grad}".replace("-", "−") in node, node
    assert f"data {value}" in drawing.source
    assert "wrong" not in drawing.source
    svg = drawing.svg()  # laid out by the real `dot`
    assert svg.count('class="node') >= len(grads) + 1
    assert oe.grads(root) == before


@pytest.mark.parametrize("example", BLOG_EXAMPLES)
def test_micrographs_graph_animates_forward_and_backward_with_the_blogs_numbers(example):
    import autograd_viz

    make, (_, value), grads = BLOG_EXAMPLES[example]
    root = make(mg.Value)
    root.backward()
    before = oe.grads(root)
    player = autograd_viz.animate(root)
    try:
        names = [n.name for n in player.graph.nodes]
        forward = [s for s in player.steps if s.phase == "forward"]
        assert forward[-1].text.endswith(f"= {value}")
        final = player.steps[-1].grads
        assert {names[i]: g for i, g in final.items() if names[i] in grads} == grads
        player.step = player.n_frames  # the last frame is drawn from the same numbers
        assert oe.grads(root) == before
    finally:
        player.close()
    assert oe.grads(root) == before


def test_a_fresh_micrograd_graph_animates_without_backward_having_run():
    import autograd_viz

    root = oe.sum_times_y(mg.Value)
    player = autograd_viz.animate(root, phase="backward")
    try:
        final = player.steps[-1].grads
        assert (final[0], final[1]) == (3, 8)
        assert (root.grad, by := oe.by_label(root)["y"].grad) == (0, 0), by
    finally:
        player.close()


def test_the_drawing_marks_the_first_wrong_node_and_says_why():
    import autograd_viz

    root = oe.square_of_ab_plus_c(oe.SwappedMul)
    assert "wrong" not in autograd_viz.draw(root).source  # no gradients yet: nothing to check
    assert "wrong" in autograd_viz.draw(root, check=True).source
    root.backward()  # the learner's numbers: now the drawing checks them by itself
    drawing = autograd_viz.draw(root)
    marked = [line for line in drawing.source.splitlines() if 'class="op wrong"' in line]
    assert len(marked) == 1 and marked[0].startswith("op2 ")  # d = a * b
    assert 'style="filled,dashed"' in marked[0] and "label=<! ×>" in marked[0]  # not colour only
    assert "first wrong gradient: your `__mul__` sent 28 to a; the product rule gives 42" in (
        drawing.source
    )
    assert '<g id="op2" class="node op wrong">' in drawing.svg()


def test_the_player_says_where_their_rule_goes_wrong():
    import autograd_viz

    player = autograd_viz.animate(oe.neuron(oe.TanhOfInput), phase="backward")
    try:
        flagged = [s for s in player.steps if "✗" in s.text]
        assert len(flagged) == 1
        assert flagged[0].text.startswith("∂o/∂n = 1 − o² = 1 − 0.7071² = 0.2232   ✗ your `tanh`")
    finally:
        player.close()


def test_a_guessed_operand_order_is_said_in_the_caption():
    import autograd_viz

    drawing = autograd_viz.draw(oe.NoClosures(1.0, label="q") + oe.NoClosures(2.0, label="p"))
    assert "operand order of 1 operation unknown (operands kept in a set): shown sorted" in (
        drawing.source
    )


def test_drawing_needs_no_widgets_and_import_stays_light():
    import subprocess
    import sys

    code = (
        "import sys; import autograd_viz; assert 'ipywidgets' not in sys.modules "
        "and 'autograd_viz.open.engines.replay' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_drawing_a_non_graph_names_the_attributes_looked_for():
    import autograd_viz

    with pytest.raises(NotAGraphError, match="`_prev`, `_children`, `children`, `parents`"):
        autograd_viz.draw({"data": 1.0})


# ---- large and deep graphs: refused before the work, no recursion limit -------------------------


class _CountsBackward(oe.BlogValue):
    calls = 0

    def backward(self):
        type(self).calls += 1
        super().backward()


def _sum_of(cls, n):
    total = cls(0.0)
    for i in range(1, n):
        term = cls(float(i))
        term.label = f"x{i}"
        total = total + term
    return total


def test_a_graph_too_large_to_draw_is_refused_before_their_backward_runs():
    import autograd_viz
    from autograd_viz.view.render import GraphTooLargeError

    root = _sum_of(_CountsBackward, 400)  # 799 values, over draw()'s default 500
    root.backward()
    _CountsBackward.calls = 0
    with pytest.raises(GraphTooLargeError):
        autograd_viz.draw(root)
    assert _CountsBackward.calls == 0


def test_a_graph_too_large_to_animate_is_refused_unchecked_and_left_as_it_was():
    import autograd_viz
    from autograd_viz.front.player import PlayerError
    from autograd_viz.view.render import GraphTooLargeError

    root = _sum_of(_CountsBackward, 400)
    before = oe.grads(root)
    with pytest.raises((PlayerError, GraphTooLargeError)):
        autograd_viz.animate(root)
    assert oe.grads(root) == before


def test_a_chain_too_deep_for_their_recursive_sort_is_stepped_in_the_kits_order():
    root = _sum_of(mg.Value, 2000)  # micrograd's recursive topological sort overflows
    with pytest.raises(RecursionError):
        root.backward()
    for v in oe.nodes(root):
        v.grad = 0
    run = run_backward(read_graph(root))
    assert run.order == "the kit's order"
    assert run.note == "your backward() hit Python's recursion limit"
    assert set(run.grads) == {1.0}  # every term of a sum gets gradient 1
    assert {v.grad for v in oe.nodes(root)} == {0}


class _RightToLeft(oe.BlogValue):
    """A valid topological sort that visits operands last-first: another order than ours."""

    def backward(self):
        topo, visited = [], set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for child in sorted(v._prev, key=lambda c: c.label, reverse=True):
                    build(child)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


def test_the_player_follows_the_order_their_backward_ran():
    from autograd_viz.open.engines.replay import foreign_snapshot
    from autograd_viz.trace import trace

    a, b, c, d = (_RightToLeft(float(k), label=n) for k, n in zip(range(1, 5), "abcd"))
    p, q = a * b, c * d
    p.label, q.label = "p", "q"
    L = p + q
    L.label = "L"
    g = foreign_snapshot(L)
    names = [n.name for n in g.nodes]
    assert names.index("p") < names.index("q")  # ours would visit q first, backwards
    order = [names[s.active] for s in trace(g, "backward") if s.kind != "seed"]
    assert [names[i] for i in g.backward_order] == ["L", "p", "q"]  # ours: L, q, p
    assert order == ["p", "q", "a", "b", "c", "d"]  # p's operands first, as theirs ran p first


def test_an_invalid_order_falls_back_to_ours():
    from autograd_viz.open.engines.replay import foreign_snapshot

    V = oe.VisitsTwice
    a, b, c = V(2.0, label="a"), V(3.0, label="b"), V(1.0, label="c")
    d = a * b
    e = d + c
    f = e * d
    assert foreign_snapshot(f).backward_order is None


# ---- in a real browser: the standalone page of a learner's buggy graph -----------------------


def test_the_standalone_page_shows_their_numbers_and_where_they_go_wrong_in_chromium(
    chromium, tmp_path
):
    from autograd_viz.export import save_html
    from autograd_viz.open.engines.replay import foreign_snapshot
    from autograd_viz.trace import trace

    graph = foreign_snapshot(oe.square_of_ab_plus_c(oe.SwappedMul))
    steps = trace(graph)
    flagged = next(k for k, s in enumerate(steps) if "✗" in s.text)
    path = save_html(graph, tmp_path / "mine.html")
    page = chromium.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(path.as_uri())
        page.locator(".avz-slider").fill(str(flagged + 1))  # the slider counts from 1
        equation = page.locator(".avz-eq").get_attribute("data-text")
        assert equation.startswith(
            "∂L/∂a = ∂L/∂d · ∂d/∂a = 14 · b = 14 · 3 = 28   ✗ your `__mul__`"
        )
        assert "the product rule gives 42" in equation
        caption = page.text_content(".avz-caption")
        assert caption.endswith("· ✗ your `__mul__` sent 28 to a; the product rule gives 42")
        marked = page.evaluate("() => document.querySelector('.avz-graph g.node.wrong').id")
        assert marked == "op2"  # the first wrong node, marked in the page's picture too
        page.keyboard.press("End")  # the learner's final numbers, not the right ones
        assert page.text_content("#v0-grad") == "grad 28"  # a
        assert page.text_content("#v1-grad") == "grad 42"  # b
        assert not errors, errors
    finally:
        page.close()


@pytest.mark.parametrize("example", BLOG_EXAMPLES)
def test_micrographs_drawing_is_byte_identical_to_ours_on_every_build(example):
    import autograd_viz
    from autograd_viz import Value

    make = BLOG_EXAMPLES[example][0]
    ours = make(Value)
    ours.backward()
    want = autograd_viz.draw(ours).source
    for _ in range(20):  # new objects, new ids: a set iterates in another order each time
        theirs = make(mg.Value)
        theirs.backward()
        assert autograd_viz.draw(theirs).source == want


def test_a_rule_that_raises_is_named_at_its_node():
    class Typo(oe.BlogValue):
        def __mul__(self, other):
            out = super().__mul__(other)

            def _backward():
                self.grad += otherr.data * out.grad  # noqa: F821 — the learner's typo

            out._backward = _backward
            return out

    root = oe.square_of_ab_plus_c(Typo)
    before = oe.grads(root)
    report = check_engine(root)
    assert report.run.note.startswith("your backward() raised NameError")
    first = report.first_wrong
    assert (first.name, first.message) == (
        "d",
        "your `__mul__`'s `_backward` raised NameError: name 'otherr' is not defined",
    )
    assert oe.grads(root) == before


def test_the_top_level_draw_of_our_value_is_value_draw():
    from examples import sum_times_y as ours

    import autograd_viz

    z = ours()
    z.backward()
    assert autograd_viz.draw(z, font_size=16).source == z.draw(font_size=16).source


# ---- every viewer takes their graph directly: the snapshot is the one door --------------------


def test_trace_frames_and_every_export_take_a_micrograd_graph(tmp_path):
    from autograd_viz.export import filmstrip, save_gif, save_html, save_svg_animation
    from autograd_viz.frames import Frames
    from autograd_viz.trace import derivation

    root = oe.sum_times_y(mg.Value)
    root.backward()
    before = oe.grads(root)
    assert derivation(root, "backward").splitlines()[-1] == "∂z/∂y = 5 + 3 = 8"
    frames = Frames(root)
    assert len(frames) == 9 and frames.steps[-1].grads[1] == 8
    assert save_html(root, tmp_path / "z.html").stat().st_size > 0
    assert save_svg_animation(root, tmp_path / "z.svg").stat().st_size > 0
    assert save_gif(root, tmp_path / "z.gif").read_bytes()[:6] == b"GIF89a"
    assert filmstrip(root) is not None
    assert oe.grads(root) == before


def test_a_player_made_directly_from_their_graph_shows_their_numbers():
    from autograd_viz.player import Player

    root = oe.b_used_twice(mg.Value)
    player = Player(root, phase="backward")
    try:
        names = [n.name for n in player.graph.nodes]
        final = player.steps[-1].grads
        assert (final[names.index("a")], final[names.index("b")]) == (6, 6)
    finally:
        player.close()


def test_every_frame_of_a_checked_graph_marks_the_first_wrong_node():
    from autograd_viz.frames import Frames

    root = oe.square_of_ab_plus_c(oe.SwappedMul)
    root.backward()
    frames = Frames(root)
    assert '<g id="op2" class="node op wrong">' in frames.base_svg
    assert all('id="op2" class="node op wrong' in frames.frame_svg(k) for k in range(len(frames)))
    flagged = [s.text for s in frames.steps if "✗" in s.text]
    assert flagged and "your `__mul__` sent 28 to a" in flagged[0]


def _viewers():
    from autograd_viz import quiz
    from autograd_viz.api import to_dot
    from autograd_viz.export import save_html
    from autograd_viz.frames import Frames
    from autograd_viz.player import Player
    from autograd_viz.trace import trace

    return {
        "trace": trace,
        "to_dot": to_dot,
        "Frames": Frames,
        "Player": Player,
        "quiz": quiz,
        "save_html": lambda root: save_html(root, "never-written.html"),
    }


@pytest.mark.parametrize("viewer", ["trace", "to_dot", "Frames", "Player", "quiz", "save_html"])
@pytest.mark.parametrize("thing", [2.5, {"data": 1.0, "grad": 0.0}], ids=["float", "dict"])
def test_every_viewer_says_what_it_looks_for_in_a_non_graph(viewer, thing):
    with pytest.raises((TypeError, ValueError)) as err:
        _viewers()[viewer](thing)
    assert "`data` and `grad` and its operands under one of `_prev`, `_children`" in str(err.value)


def test_the_steps_caption_says_where_their_rule_goes_wrong():
    from autograd_viz.frames import Frames

    root = oe.square_of_ab_plus_c(oe.SwappedMul)
    root.backward()
    frames = Frames(root)
    flagged = [k for k, s in enumerate(frames.steps) if s.flag]
    assert [frames.caption(k).text.split(" — ", 1)[1] for k in flagged] == [
        "backward pass · ✗ your `__mul__` sent 28 to a; the product rule gives 42",
        "backward pass · ✗ your `__mul__` sent 42 to b; the product rule gives 28",
    ]  # each wrong operand of the product on its own step (before: a's alone)
    assert all("✗" not in frames.steps[k].latex for k in flagged)  # the maths stays maths
    assert all("✗" not in frames.caption(k).text for k in range(len(frames)) if k not in flagged)


def test_a_learners_label_cannot_inject_markup_into_the_players_caption():
    from autograd_viz.player import Player

    root = oe.square_of_ab_plus_c(oe.SwappedMul)
    oe.by_label(root)["a"].label = "<b>a</b>"
    root.backward()
    player = Player(root, phase="backward")
    try:
        k = next(i for i, s in enumerate(player.steps) if s.flag)
        page = player.frame_html(k + 1)
        assert "sent 28 to &lt;b&gt;a&lt;/b&gt;" in page and "<b>a</b>" not in page
    finally:
        player.close()


def test_a_graph_with_no_labels_at_all_shows_every_leaf_with_its_gradient():
    import autograd_viz
    from autograd_viz.trace import derivation

    x, y = mg.Value(2.0), mg.Value(3.0)  # micrograd's Value has no labels
    z = (x + y) * y
    z.backward()
    text = derivation(z, "backward").splitlines()
    z_ = "out"  # the output: its expression, (a + b) · b, is too long to start every line
    assert text[-1] == f"∂{z_}/∂b = 5 + 3 = 8"  # y, used twice; unlabelled inputs are a, b, …
    assert f"∂{z_}/∂a = ∂{z_}/∂(a + b) · ∂(a + b)/∂a = 3 · 1 = 3" in text
    drawing = autograd_viz.draw(z).source
    assert "grad 3" in drawing and "grad 8" in drawing


def test_the_order_their_backward_ran_in_is_checked_in_one_pass_over_the_uses():
    """Each operation's uses are listed once per graph, not once per operation (that was
    quadratic: 1.5 s of a 1,000-value drawing)."""
    import sys

    from autograd_viz.open.door import open_graph
    from autograd_viz.open.engines.replay import _Replay

    root = _sum_of(mg.Value, 200)
    listed = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is _Replay._uses.__code__:
            listed.append(1)

    sys.setprofile(profile)
    try:
        graph = open_graph(root, caller="draw()", max_nodes=1000)
    finally:
        sys.setprofile(None)
    assert graph.backward_order is not None and len(listed) == 1


def _player_text(root) -> str:
    from autograd_viz.player import Player

    player = Player(root)
    try:
        return "\n".join(s.text for s in player.steps)
    finally:
        player.close()


def _derivations():
    from autograd_viz import export
    from autograd_viz.frames import Frames
    from autograd_viz.trace import derivation, trace

    return {
        "trace": lambda root: "\n".join(s.text for s in trace(root)),
        "derivation": derivation,
        "Frames": lambda root: "\n".join(s.text for s in Frames(root).steps),
        "Player": _player_text,
        "standalone_html": export.standalone_html,
        "filmstrip": lambda root: export.filmstrip(root).html(),
    }


@pytest.mark.parametrize("entry", list(_derivations()))
def test_a_derivation_of_a_learners_wrong_rule_says_so_before_their_backward_has_run(entry):
    # before, only animate() checked a fresh graph: trace, Player, Frames and the exports
    # wrote "∂L/∂a = 14 · b = 14 · 3 = 28" with nothing to say it is not so
    root = oe.square_of_ab_plus_c(oe.SwappedMul)  # no backward() yet: every grad is 0
    shown = _derivations()[entry](root)
    assert "your `__mul__` sent 28 to a; the product rule gives 42" in shown
