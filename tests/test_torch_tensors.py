"""PyTorch graphs that hold small tensors (autograd_viz/open/engines/torch_tensors.py), and the
learner's own hooks during the kit's one backward run (open/engines/torch_run.py).

Every number drawn is checked against PyTorch itself, over several shapes and seeds: each
tensor of the expression is named, kept with `retain_grad()` and given a separate real
backward(), and the drawing's data and grad of it must be its numbers. The refusals pin
their messages; a hook that counts its calls pins that the kit's run fires none of them.
"""

from __future__ import annotations

import math
import pathlib

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

import autograd_viz  # noqa: E402
from autograd_viz.core._equations import vector  # noqa: E402
from autograd_viz.core.errors import TorchGraphError, TraceError  # noqa: E402
from autograd_viz.open.door import open_graph  # noqa: E402
from autograd_viz.open.engines.torch_tensors import shown  # noqa: E402
from autograd_viz.trace import trace  # noqa: E402
from autograd_viz.view.dot import number_formatter  # noqa: E402


def _leaf(gen, *shape, low=-2.0, high=2.0, dtype=torch.float64):
    """A leaf of random numbers in [low, high], kept 0.1 away from 0 (relu's kink, 1/x)."""
    t = torch.rand(shape, generator=gen, dtype=dtype) * (high - low) + low
    t = torch.where(t.abs() < 0.1, torch.full_like(t, 0.5), t)
    return t.requires_grad_()


# Each builds an expression from leaves made with `gen` and returns (root, {name: tensor})
# naming every tensor of it, the leaves and each value on the way.
def _mse(gen, dtype):
    x, y = _leaf(gen, 4, dtype=dtype), _leaf(gen, 4, dtype=dtype)
    d = x - y
    q = d**2
    return q.mean(), {"x": x, "y": y, "d": d, "q": q}


def _neuron(gen, dtype):
    w, x, b = _leaf(gen, 3, dtype=dtype), _leaf(gen, 3, dtype=dtype), _leaf(gen, dtype=dtype)
    p = w * x
    s = p.sum()
    n = s + b
    return n.tanh(), {"w": w, "x": x, "b": b, "p": p, "s": s, "n": n}


def _scalar_times_vector(gen, dtype):
    x, c = _leaf(gen, 5, dtype=dtype), _leaf(gen, low=0.2, high=1.0, dtype=dtype)
    m = x * c
    e = m.exp()
    return e.sum(), {"x": x, "c": c, "m": m, "e": e}


def _matrix_relu(gen, dtype):
    a = _leaf(gen, 2, 3, dtype=dtype)
    r = a.relu()
    s = r * 2.0
    return s.sum(), {"a": a, "r": r, "s": s}


def _quotient_log_sigmoid(gen, dtype):
    x, y = _leaf(gen, 3, low=0.5, high=3, dtype=dtype), _leaf(gen, 3, low=0.5, high=3, dtype=dtype)
    q = x / y
    lg = q.log()
    sg = lg.sigmoid()
    return sg.mean(), {"x": x, "y": y, "q": q, "lg": lg, "sg": sg}


def _sixteen(gen, dtype):
    a = _leaf(gen, 4, 4, dtype=dtype)
    t = a.tanh()
    p = t * a
    return p.mean(), {"a": a, "t": t, "p": p}


def _outer_broadcast(gen, dtype):
    col, row = _leaf(gen, 4, 1, dtype=dtype), _leaf(gen, 1, 4, dtype=dtype)
    m = col * row
    d = m - col
    return d.sum(), {"col": col, "row": row, "m": m, "d": d}


def _vector_and_one_element(gen, dtype):
    x, y = _leaf(gen, 3, dtype=dtype), _leaf(gen, 1, dtype=dtype)
    s = x + y
    q = s * s
    total = q.sum()
    return total / 3.0, {"x": x, "y": y, "s": s, "q": q, "total": total}


BUILDS = [_mse, _neuron, _scalar_times_vector, _matrix_relu, _quotient_log_sigmoid, _sixteen,
          _outer_broadcast, _vector_and_one_element]  # fmt: skip


def _pytorchs(root, named):
    """Every named tensor's numbers and gradient, from a separate real backward()."""
    for t in named.values():
        if t.grad_fn is not None:
            t.retain_grad()
    graph = open_graph(root, caller="draw()", names=named)  # before the learner's backward()
    root.backward()
    return graph, {k: (t.detach().reshape(-1).tolist(), t.grad.reshape(-1).tolist(),
                       tuple(t.shape)) for k, t in named.items()}  # fmt: skip


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.__name__.strip("_"))
def test_every_tensors_numbers_and_gradient_are_pytorchs(build, seed, dtype):
    gen = torch.Generator().manual_seed(seed)
    root, named = build(gen, dtype)
    graph, theirs = _pytorchs(root, named)
    labels = [n.label for n in graph.nodes]
    assert set(named) <= set(labels)
    # every tensor is checked below: a named one, the root, or a number written in
    assert all(n.label or n.role == "output" for n in graph.nodes if n.role != "const")
    assert {n.data for n in graph.nodes if n.role == "const"} <= {2.0, 3.0}
    for name, (data, grad, shape) in theirs.items():
        i = labels.index(name)
        ours_data, ours_grad = graph.tensors[i]
        assert graph.shapes[i] == shape
        assert ours_grad == tuple(grad)  # PyTorch's own gradient, as its hooks saw it
        rel = 1e-12 if dtype == torch.float64 else 1e-6
        assert ours_data == pytest.approx(data, rel=rel, abs=rel)
        if dtype == torch.float64:  # written as PyTorch's own numbers would be
            assert graph.drawn_numbers(i, number_formatter(None)) == (
                shown(shape, tuple(data), number_formatter(None)),
                shown(shape, tuple(grad), number_formatter(None)),
            )
    assert graph.root.data == root.item() and graph.root.grad == 1.0


_SHAPES = st.lists(st.sampled_from([1, 2, 3, 4]), min_size=0, max_size=2).map(tuple)
_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "/": lambda a, b: a / b, "**": lambda a, b: a.abs() ** b}  # fmt: skip


@settings(max_examples=25)
@given(
    left=_SHAPES,
    right=_SHAPES,
    op=st.sampled_from(sorted(_OPS)),
    seed=st.integers(0, 2**16),
)
def test_broadcasting_any_two_shapes_gives_pytorchs_numbers(left, right, op, seed):
    """Two tensors of any shapes that broadcast (a scalar, a row against a column, ...) into
    at most 16 numbers, combined by a row of the op table, then an activation and a product
    that save what they read: every tensor's numbers and gradient are PyTorch's."""
    try:
        shape = torch.broadcast_shapes(left, right)
    except RuntimeError:
        assume(False)
    assume(math.prod(shape) <= 16 and math.prod(shape) > 1)
    gen = torch.Generator().manual_seed(seed)
    a, b = _leaf(gen, *left), _leaf(gen, *right)
    s = _OPS[op](a, b)
    t = s.tanh()
    p = t * b
    graph, theirs = _pytorchs(p.sum(), {"a": a, "b": b, "s": s, "t": t, "p": p})
    labels = [n.label for n in graph.nodes]
    for name, (data, grad, shape_) in theirs.items():
        i = labels.index(name)
        assert graph.shapes[i] == shape_ and graph.tensors[i][1] == tuple(grad)
        assert graph.tensors[i][0] == pytest.approx(data, rel=1e-12, abs=1e-12)


def test_a_tensor_is_drawn_with_its_numbers_as_a_short_vector():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = torch.tensor(2.0, requires_grad=True)
    drawing = autograd_viz.draw((x * c).sum(), names={"x": x, "c": c})
    svg = drawing.svg()
    assert ">data [1, 2, 3]<" in svg and ">grad [2, 2, 2]<" in svg  # one text each: ids hold
    assert 'id="v0-data"' in svg and ">data 2<" in svg and ">grad 6<" in svg
    assert ">data [2, 4, 6]<" in svg and "SumBackward0" in svg
    matrix = torch.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    svg = autograd_viz.draw(matrix.relu().sum()).svg()
    assert ">data [[1, −2], [3, 4]]<" in svg and ">grad [[1, 0], [1, 1]]<" in svg


def _fn_graph(root_fn):
    """(name, operand indices) per node, by a recursive walk over next_functions."""
    topo, index = [], {}

    def build(f, key):
        if key in index:
            return
        kids = []
        if f is not None and not hasattr(f, "variable"):
            for k, (child, _) in enumerate(f.next_functions):
                child_key = (id(f), k) if child is None else id(child)
                build(child, child_key)
                kids.append(index[child_key])
        index[key] = len(topo)
        topo.append(("" if f is None else f.name().removeprefix("torch::autograd::"), kids))

    build(root_fn, id(root_fn))
    return topo


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.__name__.strip("_"))
def test_the_nodes_edges_and_order_are_pytorchs(build):
    root, _ = build(torch.Generator().manual_seed(3), torch.float64)
    fired = []
    seen = set()

    def hook_all(f):
        if f is None or id(f) in seen:
            return
        seen.add(id(f))
        f.register_hook(lambda gi, go, f=f: fired.append(id(f)))
        for child, _ in f.next_functions:
            hook_all(child)

    graph = open_graph(root, caller="draw()")
    assert [(f, list(n.operands)) for f, n in zip(graph.functions, graph.nodes)] == [
        (name.replace("AccumulateGrad", "AccumulateGrad"), kids)
        for name, kids in _fn_graph(root.grad_fn)
    ]
    hook_all(root.grad_fn)
    root.backward()
    order = {id(f): k for k, f in enumerate(_functions(root))}
    ran = [order[f] for f in fired if graph.nodes[order[f]].operands]
    assert list(graph.backward_order) == ran


def _functions(root):
    """The Functions in the order `_fn_graph` numbers them (None for a constant)."""
    out, seen = [], set()

    def build(f, key):
        if key in seen:
            return
        seen.add(key)
        if f is not None and not hasattr(f, "variable"):
            for k, (child, _) in enumerate(f.next_functions):
                build(child, (id(f), k) if child is None else id(child))
        out.append(f)

    build(root.grad_fn, id(root.grad_fn))
    return out


# ---- refused, saying what to do ---------------------------------------------------------


def _refused(call) -> str:
    with pytest.raises(TorchGraphError) as err:
        call()
    return str(err.value)


def test_a_root_of_several_numbers_is_refused_saying_to_sum_it():
    v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    text = _refused(lambda: autograd_viz.draw(v * 2))
    assert "3 elements (shape (3,))" in text and "z.sum() or z.mean()" in text
    assert "up to 16 elements each" in text


def test_a_tensor_of_more_than_16_elements_is_refused_saying_how_to_draw_less():
    big = torch.ones(17, requires_grad=True)
    text = _refused(lambda: autograd_viz.draw(big.sum()))
    assert "a leaf of this graph has 17 elements (shape (17,))" in text
    assert "up to 16 per tensor" in text and "x[:4].detach().requires_grad_()" in text
    col, row = torch.ones(5, 1, requires_grad=True), torch.ones(1, 5, requires_grad=True)
    text = _refused(lambda: autograd_viz.draw((col * row).sum()))
    assert "the output of MulBackward0 has 25 elements (shape (5, 5))" in text
    assert autograd_viz.draw(torch.ones(4, 4, requires_grad=True).sum())  # 16: drawn


def test_a_matrix_product_or_a_sum_over_a_dimension_is_refused_as_such():
    a = torch.ones(2, 3, requires_grad=True)
    x = torch.ones(3, requires_grad=True)
    for root, name in (((a @ x).sum(), "MvBackward0"), (a.sum(0).sum(), "SumBackward1")):
        text = _refused(lambda root=root: autograd_viz.draw(root))
        assert f"keeps no copy of the output of {name}" in text
        assert "not matrix products" in text and "x.sum(0)" in text


def test_a_target_that_does_not_require_grad_is_refused_saying_how_to_draw_it():
    """PyTorch keeps neither the numbers nor the shape of the y of (x − y)²: the message
    says to make it require grad, and then it is a leaf, drawn with its gradient."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch.tensor([1.5, 2.0, 2.0])
    text = _refused(lambda: autograd_viz.draw(((x - y) ** 2).mean()))
    assert "an operand of SubBackward0 that does not require grad" in text
    assert "y.requires_grad_()" in text and "x - 1" in text
    graph = open_graph(((x - y.requires_grad_()) ** 2).mean(), caller="draw()")
    assert graph.tensors[1][0] == (1.5, 2.0, 2.0)
    assert graph.tensors[1][1] == pytest.approx((1 / 3, 0.0, -2 / 3))  # float32's 1/3


def test_a_worksheet_or_a_side_by_side_of_tensors_is_refused_pointing_to_animate(tmp_path):
    """A printed worksheet's blanks and our Value hold one number each: both refuse a graph
    of tensors, before PyTorch's backward runs, and say what steps through it."""
    from autograd_viz.export import save_worksheet

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = (x * x).sum()
    text = _refused(lambda: save_worksheet(z, tmp_path / "w.html"))
    assert text.startswith("save_worksheet asks for one number per value")
    assert "animate(t) and quiz(t) step through it element by element" in text
    assert x.grad is None  # refused before PyTorch's backward ran
    ours = autograd_viz.Value(1.0, label="x")
    with pytest.raises(TorchGraphError, match="side_by_side"):
        autograd_viz.side_by_side((ours * ours), z)


# ---- the quiz on a graph of tensors: a tensor's numbers typed in one box -------------------


def _tensor_quiz(**options):
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    L = (x * w + b).tanh().sum()
    return autograd_viz.quiz(L, names={"x": x, "w": w, "b": b, "L": L}, **options), (x, w, b, L)


def test_a_quiz_on_tensors_asks_pytorchs_gradients_as_vectors():
    q, (x, w, b, _) = _tensor_quiz()
    x2, w2, b2 = (t.detach().clone().requires_grad_() for t in (x, w, b))
    (x2 * w2 + b2).tanh().sum().backward()  # a separate real backward(): the right answers
    answers = {bl.label: bl.answer for bl in q.blanks}
    assert answers["∂L/∂x"] == tuple(x2.grad.tolist()) and answers["∂L/∂x"].shape == (3,)
    assert answers["∂L/∂w"] == tuple(w2.grad.tolist())
    assert answers["∂L/∂b"] == b2.grad.item() and isinstance(answers["∂L/∂b"], float)
    assert x.grad is None and w.grad is None  # the learner's tensors as they were
    assert "tensor's numbers in order" in q.intro and "row by row" in q.answer_help


@pytest.mark.parametrize("typed, right", [
    ("[0.2100, -0.1807, 1.808e-5]", True),
    ("0.21; −0.1807; 0.00001808", True),
    ("0.21 -0.1807 1.808e-5", True),
    ("0.21", False),  # one element alone, never "one of the acceptable answers"
    ("-0.1807", False),
    ("[-0.1807, 0.21, 1.808e-5]", False),  # the right numbers in the wrong order
    ("[0.42, 0.1807, 9.041e-6]", False),  # what arrived at x · w, not times w
    ("[0.21, -0.1807, 1.808e-5, 0]", False),
    ("[0,21, -0,1807, 1,808e-5]", False),  # decimal commas: the count is said, not guessed
])  # fmt: skip
def test_a_tensor_blank_is_right_only_for_all_its_numbers_in_order(typed, right):
    q, _ = _tensor_quiz()
    assert q.submit("∂L/∂x", typed) is right
    if not right:
        assert q.feedback.startswith("✘ Not quite.")


def test_a_wrong_tensor_answer_names_its_elements_and_the_rule_to_apply():
    q, _ = _tensor_quiz()
    q.submit("∂L/∂x", "[0.21, 0.1807, 1.808e-5]")
    assert q.feedback == (
        "✘ Not quite. Element 2 of 3 is not right. Via the product x · w: ∂L/∂(x · w) = "
        "[0.42, 0.1807, 9.041e−6], times its local derivative ∂(x · w)/∂x = [0.5, −1, 2], "
        "element by element."
    )
    q.submit("∂L/∂x", "[0.21, -0.1807]")
    assert "This tensor has 3 numbers (shape (3,)), and I read 2" in q.feedback
    q.submit("∂L/∂b", "0.42")  # b is one number, stretched over three elements
    assert "then each element's shares added up (it was stretched to fit)" in q.feedback
    assert q.submit("∂L/∂b", "0.6007") and q.feedback == "✔ Right: ∂L/∂b = 0.6007."


def test_one_path_of_a_reused_tensor_is_recognised_as_one_path():
    y = torch.tensor([1.0, -2.0], requires_grad=True)
    q = autograd_viz.quiz((y * y + y).mean(), names={"y": y})
    assert q.submit("∂out/∂y", "[0.5, 0.5]") is False  # the sum's path alone
    assert "That is one path only (via the sum y · y + y)" in q.feedback
    assert "y is used three times" in q.feedback and "operand 2" in q.feedback
    assert q.submit("∂out/∂y", "[1.5, -1.5]") is True


def test_a_tensors_value_is_a_blank_too():
    q, _ = _tensor_quiz(values=True, grads=False)
    assert [bl.label for bl in q.blanks][:2] == ["x · w", "x · w + b"]
    assert q.submit("x · w", "[0.5, -2, 6]") and not q.submit("x · w + b", "[1, -1.5, 6]")
    assert q.feedback.endswith("work + (add) out element by element.")


# ---- stepping through a graph of tensors, element by element -------------------------------


def _stepped(build, seed, dtype):
    """(graph, steps, PyTorch's {name: (shape, grad)} from a separate real backward())."""
    root, named = build(torch.Generator().manual_seed(seed), dtype)
    for t in named.values():
        if t.grad_fn is not None:
            t.retain_grad()
    graph = open_graph(root, caller="trace()", names=named)
    steps = trace(graph)
    root.backward()
    theirs = {k: (tuple(t.shape), tuple(t.grad.reshape(-1).tolist())) for k, t in named.items()}
    return graph, steps, theirs


def _result(step) -> str:
    """The last side of a step's equation (the number or tensor it gives)."""
    return step.text.split("   (")[0].rsplit(" = ", 1)[1]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.__name__.strip("_"))
def test_each_tensors_gradient_is_revealed_by_a_step_ending_on_pytorchs_gradient(
    build, seed, dtype
):
    """Every named tensor's gradient appears once, at the step that completes it, whose
    equation ends on the gradient a separate backward() gave it, element by element."""
    graph, steps, theirs = _stepped(build, seed, dtype)
    labels = [n.label for n in graph.nodes]
    revealed_at = {}
    before: set[int] = set()
    for step in steps:
        for i in set(step.grads) - before:
            revealed_at[i] = step
        before = set(step.grads)
    for name, (shape, grad) in theirs.items():
        i = labels.index(name)
        assert _result(revealed_at[i]) == vector(shape, grad, 4).text, name
    backward = [s for s in steps if s.phase == "backward"]
    assert backward[0].text.endswith(" = 1") and backward[0].kind == "seed"


_ELEMENT = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "tanh": math.tanh, "exp": math.exp, "log": math.log,
    "sigmoid": lambda a: 1 / (1 + math.exp(-a)), "ReLU": lambda a: max(a, 0.0),
}  # fmt: skip


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.__name__.strip("_"))
def test_every_local_derivative_is_a_finite_difference_of_its_operation(build):
    """The local derivative each step multiplies by, element by element, against central
    differences of the operation on that element (operands broadcast as PyTorch does)."""
    graph, _, _ = _stepped(build, 4, torch.float64)
    for node in graph.nodes:
        if not node.operands:
            continue
        shapes = [graph.shapes[p] for p in node.operands]
        values = [graph.tensors[p][0] for p in node.operands]
        for k, (local, _) in enumerate(graph.tensor_edges[node.index]):
            if node.op in ("sum", "mean"):
                n = len(values[0])
                assert local == tuple(1.0 if node.op == "sum" else 1 / n for _ in range(n))
                continue
            out = torch.broadcast_shapes(*shapes)
            columns = [torch.tensor(v).reshape(s).expand(out).reshape(-1).tolist()
                       for v, s in zip(values, shapes)]  # fmt: skip
            if node.op.startswith("**"):
                f = lambda a, n=node.exponent: a**n  # noqa: E731
            else:
                f = _ELEMENT[node.op]
            for e, args in enumerate(zip(*columns)):
                h = 1e-6 * max(1.0, abs(args[k]))
                up, down = list(args), list(args)
                up[k] += h
                down[k] -= h
                numeric = (f(*up) - f(*down)) / (2 * h)
                assert local[e] == pytest.approx(numeric, rel=1e-5, abs=1e-7), (node.op, k, e)


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.__name__.strip("_"))
def test_the_backward_steps_follow_the_order_pytorchs_hooks_fired(build):
    graph, steps, _ = _stepped(build, 0, torch.float64)
    stepped = [int(s.edges[0].split("-")[0][2:]) for s in steps
               if s.phase == "backward" and s.kind in ("local", "contribution")]  # fmt: skip
    ran = [i for i in graph.backward_order
           if any(graph.nodes[p].role != "const" for p in graph.nodes[i].operands)]  # fmt: skip
    assert list(dict.fromkeys(stepped)) == ran


def test_the_neurons_derivation_on_tensors_is_written_element_by_element():
    """tanh(x·w + b) summed, at x = [1, 2, 3], w = [0.5, −1, 2], b = 0.5, worked by hand:
    x·w + b = [1, −1.5, 6.5]; 1 − tanh² = [0.42, 0.1807, 9.041e−6] (4/(e^6.5 + e^−6.5)²;
    in float32 PyTorch's 1 − tanh² gives 9.06e−6, and the kit shows PyTorch's numbers); b,
    stretched over three elements, gets their sum 0.6007; x gets [0.42·0.5, 0.1807·(−1),
    9.041e−6·2]."""
    f64 = torch.float64
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=f64)
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True, dtype=f64)
    b = torch.tensor(0.5, requires_grad=True, dtype=f64)
    L = (x * w + b).tanh().sum()
    named = {"x": x, "w": w, "b": b, "L": L}
    texts = [s.text for s in trace(open_graph(L, caller="trace()", names=named))]
    assert texts[0] == "inputs: x = [1, 2, 3], w = [0.5, −1, 2], b = 0.5"
    assert texts[1].startswith("x · w = [1, 2, 3] · [0.5, −1, 2] = [0.5, −2, 6]   (in PyTorch: ")
    assert "element by element" in texts[1]
    assert texts[4] == "L = sum(tanh(x · w + b)) = sum([0.7616, −0.9051, 1]) = 0.8564"
    assert texts[6] == "∂L/∂tanh(x · w + b) = 1 per element = [1, 1, 1]"
    assert texts[7].endswith("= [1, 1, 1] ⊙ (1 − [0.7616, −0.9051, 1]²) = [0.42, 0.1807, 9.041e−6]")
    assert texts[9] == (
        "∂L/∂b = ∂L/∂(x · w + b) ⊙ ∂(x · w + b)/∂b = [0.42, 0.1807, 9.041e−6] ⊙ 1 = "
        "Σ[0.42, 0.1807, 9.041e−6] = 0.6007   (b was stretched from shape () to (3,): Σ adds "
        "up the shares of each of its elements)"
    )
    assert texts[10] == (
        "∂L/∂x = ∂L/∂(x · w) ⊙ ∂(x · w)/∂x = [0.42, 0.1807, 9.041e−6] ⊙ w = "
        "[0.42, 0.1807, 9.041e−6] ⊙ [0.5, −1, 2] = [0.21, −0.1807, 1.808e−5]"
    )
    assert texts[11].endswith("⊙ [1, 2, 3] = [0.42, 0.3614, 2.712e−5]")
    assert len(texts) == 12


def test_a_reused_tensor_gets_the_sum_of_its_shares_as_pytorch_adds_them():
    y = torch.tensor([1.0, -2.0], requires_grad=True)
    texts = [s.text for s in trace(open_graph((y * y + y).mean(), caller="trace()",
                                              names={"y": y}))]  # fmt: skip
    assert "ȳ via the product, operand 1 = " in texts[-3] and texts[-3].endswith("= [0.5, −1]")
    assert texts[-1] == (
        "∂out/∂y = [0.5, 0.5] + [0.5, −1] + [0.5, −1] = [1.5, −1.5]   (PyTorch "
        "adds the 3 shares in its engine, then calls y's AccumulateGrad once)"
    )


def test_animate_steps_a_graph_of_tensors_with_every_number_in_its_cells():
    """The player's frames: a tensor's cells read `grad ?` until the step that completes it,
    then its gradient; the last frame shows every tensor's numbers."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = torch.tensor(2.0, requires_grad=True)
    player = autograd_viz.animate((x * c).sum(), names={"x": x, "c": c}, widgets=True)
    frames = player.frames
    assert len(frames) == 7 and x.grad is None and c.grad is None
    last = frames.frame_svg(len(frames) - 1)
    assert ">grad [2, 2, 2]<" in last and ">grad 6<" in last and ">data [2, 4, 6]<" in last
    before = frames.frame_svg(len(frames) - 2)
    assert ">grad ?<" in before
    assert frames.caption(len(frames) - 1).text == "step 7 of 7 — backward pass · the chain rule"


def test_the_adjoint_notation_on_tensors_is_refused_saying_what_works():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TraceError, match="blog's notation only"):
        trace(open_graph((x * x).sum(), caller="trace()"), notation="adjoint")


# ---- the learner's own hooks ------------------------------------------------------------


def _hooked():
    """A graph with a hook of every kind a learner registers, each counting its calls."""
    calls: list[str] = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a = torch.tensor(3.0, requires_grad=True)
    hx = x.register_hook(lambda g: calls.append("x"))
    x.register_hook(lambda g: calls.append("x again"))
    x.register_post_accumulate_grad_hook(lambda t: calls.append("x accumulated"))
    s = x * a
    s.register_hook(lambda g: calls.append("s"))
    z = s.sum()
    z.grad_fn.register_hook(lambda gi, go: calls.append("sum's hook"))
    z.grad_fn.register_prehook(lambda go: calls.append("sum's prehook"))
    s.grad_fn.register_hook(lambda gi, go: calls.append("mul's hook"))
    return calls, s, z, hx


def test_the_learners_hooks_do_not_fire_in_the_kits_run_and_work_after():
    calls, _s, z, hx = _hooked()  # the value on the way held: its hook is reached
    autograd_viz.draw(z)
    assert calls == []
    z.backward(retain_graph=True)
    assert calls == ["sum's prehook", "sum's hook", "s", "mul's hook", "x", "x again",
                     "x accumulated"]  # fmt: skip
    hx.remove()  # their handles still remove their hooks
    calls.clear()
    z.backward()
    assert "x" not in calls and "x again" in calls


def test_a_hook_on_a_value_nobody_holds_is_out_of_reach_and_the_docs_say_so():
    """A hook on an intermediate tensor the learner did not keep lives only inside its
    Function, where Python cannot reach it: the kit's run fires it once, as
    docs/errors.md tells the learner."""
    calls: list[str] = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    s = x * 3
    s.register_hook(lambda g: calls.append("not kept"))
    z = s.sum()
    del s
    autograd_viz.draw(z)
    assert calls == ["not kept"]
    doc = (pathlib.Path(__file__).parents[1] / "docs" / "errors.md").read_text()
    assert "a hook on a value on the way that you no longer hold" in doc


def test_a_scalar_graphs_hooks_do_not_fire_when_it_is_drawn_animated_or_quizzed():
    calls: list[str] = []
    x = torch.tensor(2.0, requires_grad=True)
    x.register_hook(lambda g: calls.append("x"))
    t = x * x
    t.register_hook(lambda g: calls.append("t"))
    w = t.tanh()
    w.grad_fn.register_hook(lambda gi, go: calls.append("tanh"))
    autograd_viz.draw(w)
    autograd_viz.animate(w, widgets=False)
    autograd_viz.quiz(w, names={"x": x})
    assert calls == []
    w.backward()
    assert calls == ["tanh", "t", "x"]


def test_a_hook_that_changes_the_gradient_is_paused_so_the_gradients_are_the_expressions():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    z = (x * x).sum()
    graph = open_graph(z, caller="draw()")
    assert graph.tensors[0][1] == (2.0, 4.0)
    z.backward()
    assert x.grad.tolist() == [20.0, 40.0]  # the learner's own run: their hook, as before


def test_a_retained_gradient_and_a_leafs_gradient_are_put_back_for_tensors_too():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.grad = torch.tensor([5.0, 5.0])
    s = x * 3
    s.retain_grad()
    z = s.sum()
    autograd_viz.draw(z)
    assert x.grad.tolist() == [5.0, 5.0] and s.grad is None
    z.backward()
    assert x.grad.tolist() == [8.0, 8.0] and s.grad.tolist() == [1.0, 1.0]


def test_a_scalar_graph_is_read_as_before():
    """A graph of scalars keeps its numbers as `data` and its own derivation."""
    x = torch.tensor(2.0, requires_grad=True)
    graph = open_graph((x * x).tanh(), caller="draw()")
    assert graph.shapes == () and graph.tensors == () and not math.isnan(graph.root.data)
