"""ask_table: every value's chain-rule sum, one term per use, and every edge's local
derivative, all lines of the kit's own trace."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from op_cases import expressions

from autograd_viz import Value
from autograd_viz.api import ask_table
from autograd_viz.trace import trace


def _z():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    s = x + y
    s.label = "s"
    z = s * y
    z.label = "z"
    return z


def test_a_value_used_twice_gets_one_term_per_use_and_their_sum():
    y = ask_table(_z())["nodes"]["v1"]
    assert y["name"] == "y" and y["grad"] == "8"
    assert y["sum"] == "∂z/∂y = ȳ via the product + ȳ via the sum = 5 + 3 = 8"
    assert [t["text"] for t in y["terms"]] == [
        "ȳ via the product = s = 5",
        "ȳ via the sum = ∂z/∂s · ∂s/∂y = 3 · 1 = 3",
    ]
    assert [t["value"] for t in y["terms"]] == ["5", "3"]
    assert [t["edges"] for t in y["terms"]] == [["op3-v3", "v1-op3-1"], ["op2-v2", "v1-op2-1"]]
    # the way on to the output: none from the product (it is z's own), s -> z from the sum
    assert [t["path"] for t in y["terms"]] == [[], ["op3-v3", "v2-op3-0"]]
    assert y["latex"].startswith(r"\frac{\partial z}{\partial y} = \bar{y}")


def test_a_value_used_once_shows_its_one_chain_rule_line_and_the_output_its_seed():
    nodes = ask_table(_z())["nodes"]
    assert nodes["v0"]["sum"] == "∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = 3"
    assert nodes["v0"]["terms"][0]["edges"] == ["op2-v2", "v0-op2-0"]
    assert nodes["v2"]["sum"] == "∂z/∂s = y = 3"
    assert nodes["v3"]["sum"] == "∂z/∂z = 1" and nodes["v3"]["terms"] == []
    assert "seed" in nodes["v3"]["why"]


def test_every_operand_edge_has_its_local_derivative_from_the_adjoint_trace():
    edges = ask_table(_z())["edges"]
    assert edges == {
        "v2-op3-0": {"text": "∂(s · y)/∂s = y = 3", "latex": edges["v2-op3-0"]["latex"]},
        "v1-op3-1": {"text": "∂(s · y)/∂y = s = 5", "latex": edges["v1-op3-1"]["latex"]},
        "v0-op2-0": {"text": "∂s/∂x = 1", "latex": edges["v0-op2-0"]["latex"]},
        "v1-op2-1": {"text": "∂s/∂y = 1", "latex": edges["v1-op2-1"]["latex"]},
    }
    adjoint = {s.edges[1]: s.text for s in trace(_z(), "backward", notation="adjoint")
               if s.kind == "local"}  # fmt: skip
    assert {k: v["text"] for k, v in edges.items()} == adjoint


def test_the_sums_numbers_are_the_traces_own_lines():
    z = _z()
    texts = {s.text for s in trace(z, "backward")}
    for entry in ask_table(z)["nodes"].values():
        for term in entry["terms"]:
            assert term["text"] in texts
        head, _, rest = entry["sum"].partition(" = ")
        numbers = rest.rsplit(" = ", 2)[-2:] if len(entry["terms"]) > 1 else [rest]
        assert f"{head} = {' = '.join(numbers)}" in texts  # ∂z/∂y = 5 + 3 = 8, as traced


def test_a_terms_path_covers_every_way_on_to_the_output():
    x = Value(2.0, label="x")
    a = x * 2
    b = a + a  # two ways from a to b
    c = b.tanh()
    t = ask_table(c)["nodes"]["v0"]["terms"][0]  # x's one use: in a = x · 2
    assert t["edges"] == ["op2-v2", "v0-op2-0"]
    assert t["path"] == sorted(["v2-op3-0", "v2-op3-1", "op3-v3", "v3-op4-0", "op4-v4"])


def test_constants_get_no_entry_and_a_times_a_gets_two_terms():
    a = Value(2.0, label="a")
    table = ask_table(a * a * 3)
    assert "v2" not in table["nodes"]  # the 3
    assert table["nodes"]["v0"]["sum"] == (
        "∂out/∂a = ā via the product, operand 1 + ā via the product, operand 2 = 6 + 6 = 12"
    )
    assert len(table["nodes"]["v0"]["terms"]) == 2
    assert table["nodes"]["v0"]["grad"] == "12"
    assert "v2-op3-1" not in table["edges"]


def test_the_table_is_json_and_a_given_trace_is_reused():
    z = _z()
    steps = trace(z, "both")
    assert ask_table(z, steps=steps) == ask_table(z)
    # a player of the forward pass only has no backward lines: the table traces them itself
    assert ask_table(z, steps=trace(z, "forward")) == ask_table(z)
    json.dumps(ask_table(z), allow_nan=False)


def test_not_a_graph_is_refused_by_name():
    with pytest.raises(TypeError, match="ask_table"):
        ask_table(2.5)


def test_the_modules_examples_run():
    import doctest

    from autograd_viz import api

    result = doctest.testmod(api)  # ask_table's examples, with the other entries'
    assert result.attempted >= 3 and result.failed == 0


def test_without_latex_the_table_keeps_every_text_and_drops_only_the_latex():
    full, plain = ask_table(_z()), ask_table(_z(), latex=False)
    assert "latex" not in json.dumps(plain)
    assert len(json.dumps(plain)) < 0.7 * len(json.dumps(full))
    for key, entry in full["nodes"].items():
        assert plain["nodes"][key]["sum"] == entry["sum"]
        assert [t["text"] for t in plain["nodes"][key]["terms"]] == [
            t["text"] for t in entry["terms"]
        ]
    assert {k: v["text"] for k, v in plain["edges"].items()} == {
        k: v["text"] for k, v in full["edges"].items()
    }


@settings(max_examples=60, deadline=None)
@given(expressions())
def test_each_edges_local_derivative_is_the_adjoint_traces_local_line(root):
    """The edges' lines come from `local_equations`, without a second trace: each is the
    `local` line the adjoint notation writes for that edge, word for word."""
    from autograd_viz.open.snapshot import snapshot
    from autograd_viz.trace import local_equations

    graph = snapshot(root)
    adjoint = trace(graph, "backward", notation="adjoint")
    lines = {
        s.edges[1]: (s.text, s.latex) for s in adjoint if s.kind == "local" and len(s.edges) == 2
    }
    found = {e: (eq.text, eq.latex) for e, eq in local_equations(graph).items()}
    assert found == lines


def test_ask_table_refuses_a_graph_over_max_nodes_before_reading_it():
    """`max_nodes` guards a Value's graph at the door, as for trace(): counting stops at the
    limit, so a long chain is refused without being read (it used to be read whole and
    the limit ignored)."""
    from autograd_viz.core.errors import GraphTooLargeError

    z = Value(1.0, label="x")
    for _ in range(2_000):
        z = z * 1.0
    with pytest.raises(GraphTooLargeError, match=r"ask_table\(\).*max_nodes=50"):
        ask_table(z, max_nodes=50)
    assert "v0" in ask_table(Value(2.0, label="a") * 3.0)["nodes"]


def test_ask_table_answers_for_a_micrograd_graph_as_for_ours():
    """ask_table() opens any engine's graph at the door, like draw(): micrograd's z = (x + y)·y
    gets the blog's sums (it used to be refused with "needs a Value, got Value")."""
    import own_engines as oe

    mg = pytest.importorskip("micrograd.engine", reason="pip install micrograd==0.1.0")
    table = ask_table(oe.sum_times_y(mg.Value))
    assert table["nodes"]["v1"]["sum"] == "∂z/∂y = ȳ via the product + ȳ via the sum = 5 + 3 = 8"
    assert table["nodes"]["v0"]["sum"] == "∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = 3"


def test_a_learners_wrong_rule_is_said_in_the_panel_not_only_in_one_caption():
    # before: the panel stripped the trace's "✗" sentence, so clicking a showed
    # "∂L/∂a = 14 · b = 14 · 3 = 28" (3 · 14 is 42) with nothing to say their rule did it
    import own_engines as oe


    table = ask_table(oe.square_of_ab_plus_c(oe.SwappedMul))  # no backward() run before
    a, b = table["nodes"]["v0"], table["nodes"]["v1"]
    assert (a["name"], a["grad"], b["name"], b["grad"]) == ("a", "28", "b", "42")
    assert a["sum"] == (
        "∂L/∂a = ∂L/∂d · ∂d/∂a = 14 · b = 14 · 3 = 28   ✗ your `__mul__` sent 28 to a; the "
        "product rule gives 42 — it sent what the other operand should get: operands swapped "
        "in the rule?"
    )
    assert "✗ your `__mul__` sent 42 to b; the product rule gives 28" in b["terms"][0]["text"]
    assert b["terms"][0]["value"] == "42"
    assert not any("✗" in n["latex"] for n in table["nodes"].values())
    assert not any("✗" in n["sum"] for k, n in table["nodes"].items() if k not in ("v0", "v1"))
