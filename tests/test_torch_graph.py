"""PyTorch's graph, opened at the one door: drawn, traced, animated and quizzed with PyTorch's
own numbers and order (autograd_viz/open/engines/torch_graph.py, torch_run.py).

Every claim is checked against PyTorch itself, walked and hooked independently here: the
nodes and edges against `grad_fn.next_functions`, the step order against hooks of our own,
every number against a separate real backward(), and the worked examples against the kit's
own `Value`. The refusals pin their messages. A test without torch is in
tests/test_torch_optional.py.
"""

from __future__ import annotations

import math
import re
import warnings

import pytest

torch = pytest.importorskip("torch")

import autograd_viz  # noqa: E402
from autograd_viz import Value  # noqa: E402
from autograd_viz.core.errors import TorchGraphError  # noqa: E402
from autograd_viz.open.door import open_graph  # noqa: E402
from autograd_viz.trace import trace  # noqa: E402


def _t(*values: float, dtype=torch.float64):
    return [torch.tensor(v, dtype=dtype, requires_grad=True) for v in values]


def _open(root, names=None):
    return open_graph(root, caller="test", names=names)


def _z():
    x, y = _t(2.0, 3.0, dtype=torch.float32)
    return x, y, (x + y) * y


# ---- PyTorch's graph, walked independently --------------------------------------------------


def _blog_topo(root_fn) -> list[tuple[str, list[int]]]:
    """(name, operand indices) per node, by the blog's recursive build_topo over
    next_functions: an AccumulateGrad is a leaf, a None entry a constant."""
    topo, seen, index = [], set(), {}

    def build(f, const_key=None):
        key = const_key if f is None else id(f)
        if key in seen:
            return
        seen.add(key)
        kids = []
        if f is not None and not hasattr(f, "variable"):
            for k, (child, _) in enumerate(f.next_functions):
                child_key = (id(f), k) if child is None else id(child)
                build(child, child_key)
                kids.append(index[child_key])
        index[key] = len(topo)
        name = "" if f is None else f.name().removeprefix("torch::autograd::")
        topo.append((name, kids))

    build(root_fn)
    return topo


@pytest.mark.parametrize(
    "build",
    [
        lambda x, y: (x + y) * y,
        lambda x, y: (x * y + 2.0) ** 2,
        lambda x, y: (x * x).tanh() - y / 3.0,
        lambda x, y: (x.exp() + y.sigmoid()).log() * (-y).relu(),
    ],
)
def test_the_drawn_nodes_and_edges_are_grad_fns_graph(build):
    x, y = _t(0.5, -1.5)
    z = build(x, y)
    graph = _open(z)
    want = _blog_topo(z.grad_fn)
    assert [(n, k) for n, k in want] == [
        (graph.functions[i], list(node.operands)) for i, node in enumerate(graph.nodes)
    ]
    source = autograd_viz.draw(z).source
    for i, node in enumerate(graph.nodes):
        if node.operands:  # the operation node shows the Function's name
            assert re.search(rf'op{i} \[id="op{i}" class="op" label=<[^>]*<BR/>{want[i][0]}'
                             r'(<BR/>saved [^<>]*)?>', source), want[i][0]  # fmt: skip
        else:  # a leaf: PyTorch's graph holds its AccumulateGrad, said under its name
            leaf = re.search(rf'v{i} \[id="v{i}" class="[^"]*" label=(.*)', source)[1]
            assert ("AccumulateGrad</FONT>" in leaf) == (want[i][0] == "AccumulateGrad")
    edges = re.findall(r'v(\d+) -> op(\d+) \[id="v\d+-op\d+-(\d+)"', source)
    assert sorted((int(p), int(i), int(k)) for p, i, k in edges) == sorted(
        (p, i, k) for i, (_, kids) in enumerate(want) for k, p in enumerate(kids)
    )


def test_each_operation_node_shows_what_its_function_saved_for_its_backward():
    """PyTorch keeps tensors, not values: MulBackward0 keeps both operands, TanhBackward0 its
    result, PowBackward0 its base and exponent, a sum nothing. The drawing says so, with the
    numbers read from the Function itself."""
    (x, y) = _t(0.5, 3.0)
    s = x + y
    m = s * y
    t = m.tanh()
    z = t ** 2
    source = autograd_viz.draw(z).source
    labels = dict(re.findall(r'(op\d+) \[id="op\d+" class="op" label=<(.*?)> shape=', source))
    mul, tanh, pow_ = m.grad_fn, t.grad_fn, z.grad_fn
    assert labels["op2"] == "+<BR/>AddBackward0"  # alpha 1: nothing worth saying
    assert labels["op3"] == (f"×<BR/>MulBackward0<BR/>saved self {mul._saved_self.item():g}, "
                             f"other {mul._saved_other.item():g}")  # fmt: skip
    assert labels["op3"].endswith("saved self 3.5, other 3")
    result = tanh._saved_result.item()
    assert labels["op4"] == f"tanh<BR/>TanhBackward0<BR/>saved result {result:.4g}"
    assert labels["op5"].endswith(f"saved self {pow_._saved_self.item():.4g}, exponent 2")


def test_the_dot_is_byte_stable_across_runs():
    assert autograd_viz.draw(_z()[2]).source == autograd_viz.draw(_z()[2]).source


# ---- order and numbers: PyTorch's own ------------------------------------------------------


def _hooked_run(z) -> list[tuple[str, float, tuple[float, ...]]]:
    """Our own hooks on every Function; one backward; (name, grad_output, grad_inputs)."""
    fns, stack = [], [z.grad_fn]
    while stack:
        f = stack.pop()
        if f is not None and all(f is not g for g in fns):
            fns.append(f)
            stack += [c for c, _ in f.next_functions]
    seen, handles = [], []
    for f in fns:

        def hook(gi, go, f=f):
            seen.append((f.name().removeprefix("torch::autograd::"), go[0].item(),
                         tuple(0.0 if g is None else g.item() for g in gi)))  # fmt: skip

        handles.append(f.register_hook(hook))
    z.backward(retain_graph=True)
    for h in handles:
        h.remove()
    return seen


def test_the_step_order_is_the_order_pytorchs_hooks_fire():
    z = _z()[2]
    graph = _open(z)
    ours = _hooked_run(_z()[2])  # the same expression, hooked by this test
    assert ours == [("MulBackward0", 1.0, (3.0, 5.0)), ("AddBackward0", 3.0, (3.0, 3.0)),
                    ("AccumulateGrad", 3.0, ()), ("AccumulateGrad", 8.0, ())]  # fmt: skip
    assert [(f.name, f.grad_output, f.grad_inputs) for f in graph.fired] == ours
    assert [graph.functions[i] for i in graph.backward_order] == ["MulBackward0", "AddBackward0"]
    backward = [s for s in trace(z) if s.phase == "backward" and s.kind != "seed"]
    consumers = [s.nodes[1] for s in backward if s.kind != "accumulate"]
    assert list(dict.fromkeys(consumers)) == list(graph.backward_order)


def _pytorch_grads(build, values):
    leaves = _t(*values)
    build(*leaves).backward()
    return [t.grad.item() for t in leaves]


WORKED = {  # name: (builder, values, labels, PyTorch's gradients as the issue states them)
    "z=(x+y)*y": (lambda x, y: (x + y) * y, (2.0, 3.0), "x y", [3.0, 8.0]),
    "L=(a*b+c)**2": (lambda a, b, c: (a * b + c) ** 2, (2.0, -3.0, 10.0), "a b c",
                     [-24.0, 16.0, 8.0]),
    "tanh neuron": (lambda x1, x2, w1, w2, b: (x1 * w1 + x2 * w2 + b).tanh(),
                    (2.0, 0.0, -3.0, 1.0, 6.8813735870195432), "x1 x2 w1 w2 b",
                    [-1.5, 0.5, 1.0, 0.0, 0.5]),
}  # fmt: skip


@pytest.mark.parametrize("name", WORKED)
def test_worked_examples_show_pytorchs_numbers_and_the_kits_values_equations(name):
    build, values, labels, expected = WORKED[name]
    theirs = _pytorch_grads(build, values)  # a separate real backward
    assert theirs == pytest.approx(expected, abs=1e-12)
    leaves = _t(*values)
    out = build(*leaves)
    names = dict(zip(labels.split(), leaves))
    graph = _open(out, names)
    by_label = {n.label: n.grad for n in graph.nodes if n.label}
    assert [by_label[label] for label in labels.split()] == theirs  # exactly PyTorch's
    assert [t.grad for t in leaves] == [None] * len(leaves)  # the learner's tensors untouched
    steps = trace(graph)
    final = steps[-1].grads
    for node in graph.nodes:
        assert final[node.index] == pytest.approx(node.grad, rel=1e-15, abs=0), node
    # the kit's Value on the same expression: the same equations, word for word, but the notes
    ours = build(*[Value(v, label=label) for v, label in zip(values, labels.split())])
    if name == "tanh neuron":
        assert ours.data == pytest.approx(math.sqrt(0.5), abs=1e-12)
    plain = [re.sub(r"   \((in PyTorch|PyTorch adds)[^)]*\)$", "", s.text) for s in steps]
    assert plain == [s.text for s in trace(ours)]


def test_every_number_of_the_trace_is_pytorchs_for_a_float32_graph():
    x, y, z = _z()
    graph = _open(z, {"x": x, "y": y})
    grad_in = {f.node: f.grad_inputs for f in graph.fired}
    texts = [s.text for s in trace(graph)]
    assert "∂out/∂(x + y) = y = 3" in texts
    assert "ȳ via the product = x + y = 5" in texts
    assert any(t.startswith("∂out/∂y = 5 + 3 = 8   (PyTorch adds 5 + 3 = 8 in its engine, "
                            "then calls y's AccumulateGrad once)") for t in texts)  # fmt: skip
    assert grad_in[3] == (3.0, 5.0) and grad_in[2] == (3.0, 3.0)
    z.backward()
    assert (x.grad.item(), y.grad.item()) == (graph.nodes[0].grad, graph.nodes[1].grad) == (3, 8)


def test_a_note_says_once_that_pytorchs_graph_holds_functions_not_values():
    texts = [s.text for s in trace(_z()[2])]
    said = [t for t in texts if "holds Functions and the tensors they saved" in t]
    assert said == ["a + b = 2 + 3 = 5   (in PyTorch: AddBackward0, a Function; its graph "
                    "holds Functions and the tensors they saved, not values)"]  # fmt: skip
    assert sum("AccumulateGrad once" in t for t in texts) == 1


def test_drawing_leaves_the_learners_tensors_as_they_were():
    x, y = _t(2.0, 3.0)
    x.grad = torch.tensor(7.0, dtype=torch.float64)
    z = (x + y) * y
    graph = _open(z)
    autograd_viz.draw(z)
    assert x.grad.item() == 7.0 and y.grad is None
    z.backward()  # the graph was retained, the hooks removed: the learner's run is theirs
    assert (x.grad.item(), y.grad.item()) == (10.0, 8.0)
    assert len(graph.fired) == 4


def test_drawing_leaves_a_retained_gradient_of_a_value_on_the_way_as_it_was():
    """retain_grad() makes PyTorch write an intermediate tensor's .grad in any backward run,
    the kit's too: it is put back, so the learner's own backward() gives ∂z/∂s = 3, not 6."""
    x, y = _t(2.0, 3.0)
    s = x + y
    s.retain_grad()
    z = s * y
    z.retain_grad()
    autograd_viz.draw(z)
    assert s.grad is None and z.grad is None
    z.backward()
    assert (s.grad.item(), z.grad.item(), x.grad.item(), y.grad.item()) == (3.0, 1.0, 3.0, 8.0)


def test_no_pytorch_warning_reaches_the_learner():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the non-leaf `.grad` UserWarning would fail here
        x, y, _ = _z()
        s = x * y
        w = s.tanh() + s
        autograd_viz.draw(w, names={"s": s})
        trace(w)


def test_constants_parameters_and_rows_pytorch_spells_its_own_way():
    x = torch.tensor(2.0, requires_grad=True)
    p = torch.nn.Parameter(torch.tensor(0.5))
    g = _open((x * 2 - 1) / p, {"x": x, "p": p})
    assert [(n.role, n.op, n.data) for n in g.nodes] == [
        ("input", "", 2.0), ("const", "", 2.0), ("value", "*", 4.0), ("const", "", 1.0),
        ("value", "-", 3.0), ("param", "", 0.5), ("output", "/", 6.0),
    ]  # fmt: skip
    assert g.nodes[5].trainable and g.functions[6] == "DivBackward0"
    texts = [s.text for s in trace(g)]
    assert "out = (x · 2 − 1) / p = 3 / 0.5 = 6" in texts
    assert "∂out/∂(x · 2 − 1) = 1/p = 1/0.5 = 2" in texts
    assert "∂out/∂p = −(x · 2 − 1) / p² = −3 / 0.5² = −12" in texts
    assert g.nodes[5].grad == -12.0 and g.nodes[0].grad == 4.0


def test_a_function_without_a_row_is_drawn_by_name_with_numbers_only():
    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    z = torch.atan(x) * x
    g = _open(z, {"x": x})
    assert g.functions[1] == "AtanBackward0" and g.nodes[1].data == pytest.approx(math.atan(2))
    texts = [s.text for s in trace(g)]
    assert any("∂AtanBackward0(x)/∂x = 2 · 0.2 = 0.4" in t for t in texts)
    z.backward()
    assert g.nodes[0].grad == x.grad.item()


def test_a_custom_autograd_function_is_drawn_by_name_with_its_own_numbers():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, grad):
            (t,) = ctx.saved_tensors
            return 2 * t * grad

    x = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    g = _open(Square.apply(x) * 2.0, {"x": x})
    assert g.functions[1] == "SquareBackward" and g.nodes[1].data == 9.0
    assert g.nodes[0].grad == 12.0 and "∂out/∂x = " in trace(g)[-1].text


# ---- the viewers build on it ---------------------------------------------------------------


def test_animate_steps_through_pytorchs_run():
    x, y, z = _z()
    player = autograd_viz.animate(z, names={"x": x, "y": y}, widgets=False)
    steps = player.frames.steps
    assert steps[-1].text.endswith("(PyTorch adds 5 + 3 = 8 in its engine, then calls y's "
                                   "AccumulateGrad once)")  # fmt: skip
    assert "AccumulateGrad once" in str(player.table)  # the step table the page shows
    assert steps[-1].grads[0] == 3.0 and steps[-1].grads[1] == 8.0


def test_quiz_asks_for_pytorchs_gradients():
    x, y, z = _z()
    q = autograd_viz.quiz(z, names={"x": x, "y": y})
    answers = {b.label: b.answer for b in q.blanks}
    assert answers == {"∂out/∂out": 1.0, "∂out/∂(x + y)": 3.0, "∂out/∂x": 3.0, "∂out/∂y": 8.0}
    assert q.submit("∂out/∂y", "5 + 3") and not q.submit("∂out/∂x", "8")


# ---- honest limits, clear messages ---------------------------------------------------------


def _refused(root, **kwargs) -> str:
    with pytest.raises(TorchGraphError) as err:
        autograd_viz.draw(root, **kwargs)
    return str(err.value)


def test_a_tensor_with_no_graph_is_refused():
    x = torch.tensor(2.0, requires_grad=True)
    assert "leaf tensor (its grad_fn is None)" in _refused(x)
    with torch.no_grad():
        y = x * 2
    text = _refused(y)
    assert "requires_grad=True" in text and "torch.no_grad()" in text


def test_a_graph_backward_already_freed_is_refused_saying_what_to_do():
    z = _z()[2]
    z.backward()
    text = _refused(z)
    assert "backward() already ran" in text and "retain_graph=True" in text
    assert "Build the expression again" in text


def test_a_tensor_changed_in_place_is_refused():
    x = torch.tensor(2.0, requires_grad=True)
    a = x * 1
    b = a * a
    a.add_(1)
    assert "changed in place" in _refused(b)


def test_a_number_pytorch_keeps_no_copy_of_is_refused_saying_how_to_keep_it():
    x = torch.tensor(2.0, requires_grad=True)
    text = _refused((x + 2).tanh())
    assert "keeps no copy" in text and "AddBackward0" in text and "requires_grad=True" in text


def test_a_matrix_operation_whose_output_pytorch_keeps_no_copy_of_is_refused_as_such():
    """nn.Linear on one number is addmm then a view: no row computes them again and nothing
    saved their outputs; the message says which operations are drawn, not to make a number
    a tensor (which would not help)."""
    linear = torch.nn.Linear(1, 1).double()
    text = _refused(linear(torch.tensor([2.0], dtype=torch.float64))[0] * 2)
    assert "output of AddmmBackward0" in text and "addmm" in text and "scalar operations" in text
    assert "requires_grad=True)" not in text


def test_a_value_that_is_nan_is_drawn_with_pytorchs_gradient():
    """log(−1) is nan in PyTorch and in the kit alike: not a contradiction; the slope of
    2·log(x) at x = −1 is still −2."""
    (x,) = _t(-1.0)
    graph = _open(x.log() * 2, names={"x": x})
    assert math.isnan(graph.root.data) and graph.nodes[0].grad == -2.0


def test_names_are_checked():
    x, _, z = _z()
    with pytest.raises(TypeError, match="a Value carries its own"):
        autograd_viz.draw(Value(2.0) * 3, names={"x": x})
    with pytest.raises(TorchGraphError, match="not part of this graph"):
        autograd_viz.draw(z, names={"w": torch.tensor(1.0, requires_grad=True)})
    with pytest.raises(TypeError, match="must be a tensor of this graph"):
        autograd_viz.draw(z, names={"x": 2.0})


# ---- side by side: the blog's table, live --------------------------------------------------


def test_side_by_side_pairs_every_value_with_pytorchs_and_every_number_agrees():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    s = autograd_viz.side_by_side((x + y) * y)
    assert s.ok and s.problems == []
    rows = [(p.name, p.op, p.function, p.data, p.grad) for p in s.pairs]
    assert rows == [
        ("x", "", "AccumulateGrad", (2.0, 2.0), (3.0, 3.0)),
        ("y", "", "AccumulateGrad", (3.0, 3.0), (8.0, 8.0)),
        ("x + y", "+", "AddBackward0", (5.0, 5.0), (3.0, 3.0)),
        ("out", "*", "MulBackward0", (15.0, 15.0), (1.0, 1.0)),
    ]
    assert x.grad == 0 and y.grad == 0  # our Value's gradients come from a fresh pass too
    page = s.html()
    assert page.count("<svg") == 2 and "MulBackward0" in page and "Value._prev" in page
    assert "grad_fn.next_functions" in page and "Every value and gradient agrees" in page
    assert 'id="torch-v0"' in page and 'id="v0"' in page  # one page, unique ids


@pytest.mark.parametrize("name", WORKED)
def test_side_by_side_of_the_worked_examples_agrees(name):
    build, values, labels, expected = WORKED[name]
    ours = build(*[Value(v, label=label) for v, label in zip(values, labels.split())])
    s = autograd_viz.side_by_side(ours)
    assert s.ok, s.problems
    grads = {p.name: p.grad for p in s.pairs}
    assert [grads[label][1] for label in labels.split()] == pytest.approx(expected, abs=1e-12)


def test_side_by_side_reports_where_the_shapes_and_numbers_part():
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    ta, tb = _t(2.0, 3.0)
    s = autograd_viz.side_by_side(a - b, ta - tb)
    assert not s.ok
    assert s.problems[0] == (
        "the shapes part at a + (−b): ours is the sum of 2 operands, PyTorch's is SubBackward0 "
        "(the difference of 2 operands); below it only the inputs are paired, by name"
    )
    assert [(p.name, p.theirs, p.problem) for p in s.pairs if p.problem] == [
        ("−1", None, "only in our graph"), ("−b", None, "only in our graph"),
    ]  # fmt: skip
    assert [p.grad for p in s.pairs if p.name in "ab"] == [(1.0, 1.0), (-1.0, -1.0)]
    wrong = autograd_viz.side_by_side(a * b, ta * tb * 1.5)
    assert any("data 6 ≠ 9" in p for p in wrong.problems)


def test_side_by_side_wants_a_value_first_and_a_tensor_second():
    x = torch.tensor(2.0, requires_grad=True)
    with pytest.raises(TypeError, match="pass the kit's Value first"):
        autograd_viz.side_by_side(x * 2)
    with pytest.raises(TypeError, match="needs a PyTorch tensor second"):
        autograd_viz.side_by_side(Value(2.0) * 2, 4.0)


def test_a_pytorch_graph_too_large_is_refused_before_any_backward_runs():
    from autograd_viz.core.errors import GraphTooLargeError

    x = torch.tensor(0.5, requires_grad=True)
    z = x
    for _ in range(30):
        z = z * 1.01
    with pytest.raises(GraphTooLargeError, match="max_nodes=10"):
        autograd_viz.draw(z, max_nodes=10)
    with pytest.raises(GraphTooLargeError, match=r"trace\(\): this graph has more than 10"):
        trace(z, max_nodes=10)
    assert x.grad is None


def test_the_player_widget_opens_a_tensor_at_the_door():
    from autograd_viz.player import Player

    player = Player(_z()[2])
    assert [n.grad for n in player.graph.nodes] == [3.0, 8.0, 3.0, 1.0]
    assert player.graph.backward_order == (3, 2)


# ---- create_graph=True: a gradient that is itself a graph ------------------------------------


def test_a_gradient_made_with_create_graph_is_drawn_and_stepped_as_pytorch_ran_it():
    """The first derivative of x³, made with create_graph=True, is PyTorch's graph of
    `grad · (3 · x²)` (PowBackward0's own formula; MulBackward1 multiplies by the number 3, which
    PyTorch saves as a plain number, not in next_functions); stepping it gives the second
    derivative, 6x = 12 at x = 2, as PyTorch's own grad of it does."""
    (x,) = _t(2.0)
    (g,) = torch.autograd.grad(x**3, x, create_graph=True)
    graph = _open(g, names={"x": x})
    assert [(f, list(n.operands)) for f, n in zip(graph.functions, graph.nodes)] == [
        ("", []), ("AccumulateGrad", []), ("PowBackward0", [1]), ("", []),
        ("MulBackward1", [2, 3]), ("MulBackward0", [0, 4]),
    ]  # fmt: skip  (the 1 first: the gradient flowing in, grad_output, times 3x²)
    assert [n.data for n in graph.nodes] == [1.0, 2.0, 4.0, 3.0, 12.0, 12.0]
    assert [n.role for n in graph.nodes] == ["const", "input", "value", "const", "value", "output"]
    (second,) = torch.autograd.grad(g, x, retain_graph=True)
    steps = trace(graph)
    assert steps[-1].text == "∂out/∂x = ∂out/∂(x²) · ∂(x²)/∂x = 3 · 2x = 3 · 2 · 2 = 12"
    assert graph.nodes[1].grad == second.item() == 12.0 and x.grad is None
    third_graph = _open(torch.autograd.grad(g, x, create_graph=True)[0], names={"x": x})
    assert [n.grad for n in third_graph.nodes if n.label == "x"] == [6.0]  # d³(x³)/dx³


def test_side_by_side_shows_its_pictures_and_its_table_apart_or_together():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    s = autograd_viz.side_by_side((x + y) * y)
    pictures, table = s.pictures(), s.table()
    assert pictures._repr_html_().count("<svg") == 2 and "<table" not in pictures
    assert "<svg" not in table and table.count(">AccumulateGrad</td>") == 2  # x and y
    assert "MulBackward0" in table
    assert s._repr_html_() == f'<div class="avz-side-by-side">{pictures}{table}</div>'


def test_side_by_side_agrees_where_our_engine_records_a_number_pytorch_computes_at_once():
    """Our y / 2 is y · 2⁻¹ with the power recorded on the constant 2; PyTorch multiplies by
    the number 0.5 it computed at once. That is the same expression, not a difference."""
    x, y = Value(0.5, label="x"), Value(-1.5, label="y")
    s = autograd_viz.side_by_side(x**3 - y / 2)
    assert s.ok, s.problems
    assert [(p.name, p.function) for p in s.pairs if p.name in ("2⁻¹", "y / 2")] == [
        ("2⁻¹", ""), ("y / 2", "MulBackward0")]  # fmt: skip
