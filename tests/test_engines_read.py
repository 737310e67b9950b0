"""Reading another engine's graph (`autograd_viz.open.engines.read`): any micrograd-style object,
walked once, its operands in expression order — against micrograd from PyPI, the blog's
class in tests/own_engines.py, and every usual spelling of the attributes."""

from __future__ import annotations

import os

import own_engines as oe
import pytest

from autograd_viz.open.engines.read import NotAGraphError, read_graph

if os.environ.get("CI"):  # CI installs the test extra: a missing peer is a broken setup
    import micrograd.engine as mg
else:
    mg = pytest.importorskip("micrograd.engine", reason="pip install micrograd==0.1.0")

ENGINES = {"micrograd": lambda: mg.Value, "blog": lambda: oe.BlogValue}


# ---- reading: any micrograd-style object is a graph ------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_set_operands_come_out_in_expression_order(engine):
    g = read_graph(oe.sum_times_y(ENGINES[engine]()))
    assert g.labels == ("x", "y", "s", "z")
    assert g.operands == ((), (), (0, 1), (2, 1))  # s = x + y, z = s · y
    assert g.ops == ("", "", "+", "*")
    assert g.data == (2, 3, 5, 15)
    assert g.note == ""


def test_a_times_a_kept_once_in_micrographs_set_is_read_as_two_operands():
    a = mg.Value(3.0)
    g = read_graph(a * a)
    assert g.operands == ((), (0, 0))


def test_reflected_multiplication_reads_as_the_engine_builds_it():
    g = read_graph(oe.b_used_twice(mg.Value))  # L = 2 * d runs d.__rmul__(2), i.e. d * 2
    assert g.labels[-1] == "L"
    assert g.data[g.operands[-1][0]] == 9 and g.data[g.operands[-1][1]] == 2
    assert g.operands[-1][0] == g.labels.index("d")


def test_power_exponent_is_read_from_the_op_text():
    g = read_graph(oe.square_of_ab_plus_c(mg.Value))
    assert g.ops[-1] == "**2" and g.exponents[-1] == 2.0


def test_tuple_operands_keep_their_order():
    x, y = oe.TinyValue(2.0), oe.TinyValue(3.0)
    g = read_graph(y - x)
    assert [g.data[i] for i in g.operands[-1]] == [3.0, 2.0]
    assert g.ops[-1] == "-"


def test_order_lost_in_a_set_is_recovered_from_the_forward_value():
    big, small = oe.NoClosures(7.0, label="big"), oe.NoClosures(2.0, label="small")
    g = read_graph(small - big)  # -5: only small, big reproduces it
    assert [g.labels[i] for i in g.operands[-1]] == ["small", "big"]
    assert g.note == ""


def test_order_that_cannot_be_recovered_is_sorted_and_said_in_the_caption():
    orders = set()
    for _ in range(50):  # fresh objects, fresh ids: a set would iterate in varying orders
        q, p = oe.NoClosures(1.0, label="q"), oe.NoClosures(2.0, label="p")
        g = read_graph(q + p)
        orders.add(tuple(g.labels))
    assert orders == {("p", "q", "")}
    assert g.unordered == (2,)
    assert g.note == "operand order of 1 operation unknown (operands kept in a set): shown sorted"


def test_a_cycle_is_refused_with_a_message():
    a = oe.BlogValue(1.0, label="a")
    b = a + 1
    a._prev = {b}
    with pytest.raises(NotAGraphError, match="one of its own operands"):
        read_graph(b)


def _torch_tensor():
    torch = pytest.importorskip("torch")
    return torch.tensor(2.0, requires_grad=True)


@pytest.mark.parametrize(
    ("make", "kind", "extra"),
    [
        (lambda: 2.5, "a float", "A plain number has no graph"),
        (lambda: {"data": 1.0, "grad": 0.0, "_prev": set()}, "a dict", "attributes, not keys"),
        (_torch_tensor, "a torch.Tensor", "has `data`, `grad` but not the rest"),
    ],
)
def test_non_graphs_get_an_error_naming_the_attributes_looked_for(make, kind, extra):
    with pytest.raises(NotAGraphError) as err:
        read_graph(make())
    text = str(err.value)
    assert text.startswith(kind)
    assert "`data` and `grad`" in text
    assert "`_prev`, `_children`, `children`, `parents`, `_parents`, `prev`" in text
    assert extra in text


def test_a_non_number_in_data_is_refused():
    with pytest.raises(NotAGraphError, match="its `data` is a str"):
        read_graph(oe.BlogValue("2"))


# ---- every usual spelling, and the same picture as ours ---------------------------------------


def _engine_spelt(operands_name, op_name, label_name, container):
    """A micrograd-style class keeping its operands, op and label under the given names."""

    class Spelt:
        def __init__(self, data, children=(), op="", label=""):
            self.data, self.grad = data, 0.0
            setattr(self, operands_name, container(children))
            setattr(self, op_name, op)
            setattr(self, label_name, label)
            self._backward = lambda: None

        def __add__(self, other):
            out = Spelt(self.data + other.data, (self, other), "+")

            def _backward():
                self.grad += out.grad
                other.grad += out.grad

            out._backward = _backward
            return out

        def __mul__(self, other):
            out = Spelt(self.data * other.data, (self, other), "*")

            def _backward():
                self.grad += other.data * out.grad
                other.grad += self.data * out.grad

            out._backward = _backward
            return out

    return Spelt


@pytest.mark.parametrize("operands", ["_prev", "_children", "parents", "_parents", "prev"])
@pytest.mark.parametrize(("op", "label"), [("_op", "label"), ("op", "name")])
@pytest.mark.parametrize("container", [set, tuple, list])
def test_every_usual_spelling_reads_as_the_same_graph(operands, op, label, container):
    from autograd_viz.open.engines.replay import foreign_snapshot
    from autograd_viz.trace import derivation

    cls = _engine_spelt(operands, op, label, container)
    x, y = cls(2.0, label="x"), cls(3.0, label="y")
    s = x + y
    setattr(s, label, "s")
    z = s * y
    setattr(z, label, "z")
    g = read_graph(z)
    assert (g.labels, g.operands, g.ops) == (
        ("x", "y", "s", "z"),
        ((), (), (0, 1), (2, 1)),
        ("", "", "+", "*"),
    )
    assert derivation(foreign_snapshot(z)).splitlines()[-1] == "∂z/∂y = 5 + 3 = 8"
