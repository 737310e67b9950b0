"""render: DOT structure for the blog's examples, the SVG id contract through the real `dot`,
determinism across processes, escaping, roles and states, collapse, the size guard, and
the missing-`dot` error."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import warnings
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_cases import programs

from autograd_viz import MLP, Value
from autograd_viz.api import draw, roles, to_dot
from autograd_viz.core._numbers import format_number
from autograd_viz.nn import Parameter
from autograd_viz.trace import node_names
from autograd_viz.view.render import (
    ACTIVE_COLOR,
    BACKWARD_COLOR,
    FORWARD_COLOR,
    PENDING_COLOR,
    Drawing,
    GraphTooLargeError,
    svg_from_dot,
)

SVG = "{http://www.w3.org/2000/svg}"
NODE_LINE = re.compile(
    r"^((?:v|op|layer)\d+) \[id=\"([^\"]+)\" class=\"([^\"]+)\" label=(<.*>)", re.M
)
EDGE_LINE = re.compile(r"^(\S+) -> (\S+) \[id=\"([^\"]+)\"", re.M)


def nodes(dot: str) -> dict[str, tuple[str, str]]:
    """DOT node name -> (class, label) for every node statement."""
    out = {}
    for name, ident, cls, label in NODE_LINE.findall(dot):
        assert name == ident  # the DOT name is the SVG id
        out[name] = (cls, label)
    return out


def edges(dot: str) -> list[tuple[str, str, str]]:
    return EDGE_LINE.findall(dot)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def by_id(root: ET.Element) -> dict[str, ET.Element]:
    return {el.get("id"): el for el in root.iter() if el.get("id")}


def text_of(el: ET.Element) -> list[str]:
    return [t.text or "" for t in el.iter(f"{SVG}text")] if el.tag != f"{SVG}text" else [el.text]


def blog_l():
    """The blog's a=2, b=-3, c=10 example: d = a*b, e = d + c, L = e**2."""
    a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    d = a * b
    d.label = "d"
    e = d + c
    e.label = "e"
    L = e**2
    L.label = "L"
    return a, b, c, d, e, L


# ---- DOT structure of the blog's worked examples ----------------------------------


def test_sum_times_y_has_four_values_two_ops_and_an_edge_per_operand():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.backward()
    dot = to_dot(z)
    ns = nodes(dot)
    assert sorted(ns) == ["op2", "op3", "v0", "v1", "v2", "v3"]
    assert edges(dot) == [
        ("v0", "op2", "v0-op2-0"),
        ("v1", "op2", "v1-op2-1"),
        ("op2", "v2", "op2-v2"),
        ("v2", "op3", "v2-op3-0"),
        ("v1", "op3", "v1-op3-1"),
        ("op3", "v3", "op3-v3"),
    ]
    assert ns["op2"][1] == "<+>" and ns["op3"][1] == "<×>"
    labels = {k: v[1] for k, v in ns.items()}
    assert ">x<" in labels["v0"] and "data 2<" in labels["v0"] and "grad 3<" in labels["v0"]
    assert ">y<" in labels["v1"] and "data 3<" in labels["v1"] and "grad 8<" in labels["v1"]
    assert "data 5<" in labels["v2"] and "grad 3<" in labels["v2"]
    assert "data 15<" in labels["v3"] and "grad 1<" in labels["v3"]


def test_square_of_ab_plus_c_shows_49_and_grads_42_28_14():
    a, b, c = Value(2.0, label="a"), Value(3.0, label="b"), Value(1.0, label="c")
    L = (a * b + c) ** 2
    L.backward()
    ns = nodes(to_dot(L))
    assert len(ns) == 9  # a, b, a·b, c, a·b + c, L and three operations
    assert ns["op5"][1] == "<**2>"
    assert "data 49<" in ns["v5"][1]
    assert [ns[f"v{i}"][1].count(f"grad {g}<") for i, g in [(0, 42), (1, 28), (3, 14)]] == [1, 1, 1]


def test_blog_minus_three_example_labels_values_and_grads():
    *_, L = blog_l()
    L.backward()
    ns = nodes(to_dot(L))
    want = {"a": (2, -24), "b": (-3, 16), "d": (-6, 8), "c": (10, 8), "e": (4, 8), "L": (16, 1)}
    for i, (name, (data, grad)) in enumerate(want.items()):
        label = ns[f"v{i}"][1]
        assert f">{name}<" in label
        assert f"data {data}<".replace("-", "−") in label
        assert f"grad {grad}<".replace("-", "−") in label


def test_constant_two_in_2d_is_a_small_number_node():
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    c = a * b
    d = c + b
    L = 2 * d
    L.backward()
    dot = to_dot(L)
    ns = nodes(dot)
    assert roles(L) == ["input", "input", "value", "value", "const", "output"]
    assert ns["v4"] == ("const", "<2>")
    assert "data 18<" in ns["v5"][1]
    assert "grad 6<" in ns["v0"][1] and "grad 6<" in ns["v1"][1]


@pytest.mark.parametrize("op", ["+", "*"])
def test_reused_operand_draws_one_edge_per_occurrence(op):
    a = Value(3.0, label="a")
    out = a + a if op == "+" else a * a
    out.backward()
    assert edges(to_dot(out)) == [
        ("v0", "op1", "v0-op1-0"),
        ("v0", "op1", "v0-op1-1"),
        ("op1", "v1", "op1-v1"),
    ]
    svg = parse(draw(out).svg())
    ids = by_id(svg)
    assert "v0-op1-0" in ids and "v0-op1-1" in ids
    assert ids["v0-grad"].text == ("grad 2" if op == "+" else "grad 6")


def test_unlabelled_interior_values_are_named_by_their_short_expression():
    x = Value(1.0, label="x")
    y = (x * 3).relu().tanh()
    assert ">x · 3<" in nodes(to_dot(y))["v2"][1]
    assert ">ReLU(x · 3)<" in nodes(to_dot(y))["v3"][1]
    long = (x * 3 + x * 4 + x * 5).tanh()  # x · 3 + x · 4 + x · 5 is too long to be a name
    assert ">sum2<" in nodes(to_dot(long))["v8"][1]  # the second sum, named after its kind
    assert nodes(to_dot(y))["op3"][1] == "<ReLU>"


# ---- through the real dot: the SVG id contract ---------------------------------------


def test_svg_carries_node_op_edge_and_cell_ids():
    *_, L = blog_l()
    L.backward()
    svg = draw(L).svg()
    assert svg.startswith("<svg")
    ids = by_id(parse(svg))
    for i in range(6):
        assert f"v{i}" in ids
    for i in (2, 4, 5):
        assert f"op{i}" in ids and f"op{i}-v{i}" in ids
    assert {"v0-op2-0", "v1-op2-1", "v2-op4-0", "v3-op4-1", "v4-op5-0"} <= set(ids)
    assert ids["v5-data"].text == "data 16"
    assert ids["v5-grad"].text == "grad 1"
    assert ids["v0-grad"].text == "grad −24"
    assert text_of(ids["v3-label"]) == ["c"]
    assert ids["v0"].get("class") == "node input"
    assert ids["v5"].get("class") == "node output"
    assert ids["op2"].get("class") == "node op"


def test_roles_are_classes_param_input_const_output_value_op():
    w = Parameter(0.5, label="w")
    x = Value(2.0, label="x")
    y = w * x + 1
    classes = {k: v[0] for k, v in nodes(to_dot(y)).items()}
    assert classes == {
        "v0": "param",
        "v1": "input",
        "v2": "value",
        "op2": "op",
        "v3": "const",
        "v4": "output",
        "op4": "op",
    }


def test_constant_node_has_only_a_data_cell():
    x = Value(2.0, label="x")
    ids = by_id(parse(draw(x * 7).svg()))
    assert ids["v1-data"].text == "7"
    assert "v1-grad" not in ids and "v1-label" not in ids


# ---- grads not yet computed --------------------------------------------------------


def test_grads_show_as_unknown_before_backward_not_as_zero():
    *_, L = blog_l()
    dot = to_dot(L)
    assert dot.count("grad ?<") == 6 and "grad 0<" not in dot
    L.backward()
    dot = to_dot(L)
    assert "grad ?" not in dot and "grad −24<" in dot


def test_show_grad_overrides_the_guess():
    *_, L = blog_l()
    assert to_dot(L, show_grad=True).count("grad 0<") == 6
    L.backward()
    assert ">grad " not in to_dot(L, show_grad=False)


def test_show_grad_false_leaves_every_gradient_out_of_the_svg_before_and_after_backward():
    *_, L = blog_l()
    for _ in ("before", "after"):
        svg = draw(L, show_grad=False, legend=True).svg()
        texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
        assert texts and not any("grad" in t for t in texts), texts
        assert svg.count('id="v5-data"') == 1 and 'id="v5-grad"' not in svg
        assert '<g id="v5-label" class="label"><text' in svg  # the name is still the name
        L.backward()


def test_show_grad_false_leaves_the_gradient_out_of_collapsed_boxes_too():
    out = MLP(2, [2, 1], seed=0)([1.0, -1.0])
    out.backward()
    for collapse in ("neuron", "layer"):
        dot = to_dot(out, collapse=collapse, show_grad=False)
        assert ">grad" not in dot and ">data" in dot, collapse


# ---- escaping ------------------------------------------------------------------------

NASTY = [
    "a<b>&c",
    "\"quoted\" 'single'",
    "pipes | braces { } back\\slash",
    "<script>alert(1)</script>",
    '"><svg onload="alert(1)">',
    "]]><!-- x --><g id='evil'/>",
    "<BR/><TABLE>",
    "&amp; stays &amp;",
    "line one\nline two",
    "tab\there",
    "]",  # graphviz's HTML lexer fails on a text that starts with "]" unless it is escaped
    "] and [",
]


@pytest.mark.parametrize("label", NASTY)
def test_labels_render_literally_and_inject_nothing(label):
    x = Value(1.5, label=label)
    y = x * 2
    y.label = label
    svg = draw(y).svg()
    root = parse(svg)  # well-formed XML
    allowed = {"svg", "g", "title", "polygon", "path", "ellipse", "text", "polyline"}
    tags = {el.tag.removeprefix(SVG) for el in root.iter()}
    assert tags <= allowed, tags - allowed
    for el in root.iter():
        assert not any(k.lower().startswith("on") for k in el.attrib)
        assert el.get("id") != "evil"
    ids = by_id(root)
    want = label.replace("\t", " ").split("\n")
    assert text_of(ids["v0-label"]) == want
    assert text_of(ids["v2-label"]) == want
    assert "<script" not in svg and "<svg onload" not in svg


def test_characters_xml_cannot_carry_become_replacement_marks():
    x = Value(1.0, label="a\x00b\x1bc\ud800d\uffffe\ufffe")  # controls, a lone surrogate
    root = parse(draw(x * 2).svg())
    assert text_of(by_id(root)["v0-label"]) == ["a\ufffdb\ufffdc\ufffdd\ufffde\ufffd"]


def test_user_number_format_function_output_is_escaped_too():
    x = Value(1.0, label="x")
    root = parse(draw(x * 2, fmt=lambda v: f"<b>{v}</b>").svg())
    assert by_id(root)["v0-data"].text == "data <b>1.0</b>"


# ---- determinism -----------------------------------------------------------------------

_PROGRAM = textwrap.dedent(
    """
    import sys
    from autograd_viz import MLP, Value
    from autograd_viz.render import to_dot
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y + (x * x).tanh() - 1 / y
    z.backward()
    m = MLP(2, [3, 2, 1], seed=7)
    out = m([0.5, -1.0])
    loss = (out - 1) ** 2
    loss.backward()
    sys.stdout.write(to_dot(z) + to_dot(loss) + to_dot(loss, collapse="neuron")
                     + to_dot(loss, collapse="layer"))
    """
)


def test_dot_is_byte_identical_across_processes_and_hash_seeds():
    outs = []
    for seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-c", _PROGRAM], capture_output=True, env=env, check=True
        )
        outs.append(proc.stdout)
    assert outs[0] == outs[1]
    assert outs[0].count(b"digraph autograd") == 4


def test_svg_is_identical_for_the_same_expression_drawn_twice():
    def build():
        *_, L = blog_l()
        L.backward()
        return draw(L).svg()

    assert build() == build()


# ---- states -------------------------------------------------------------------------


def test_states_colour_nodes_and_classes_for_the_animation():
    *_, L = blog_l()
    states = {0: "forward", 1: "backward", 2: "pending", 3: "forward active"}
    dot = to_dot(L, states=states)
    ns = nodes(dot)
    assert ns["v0"][0] == "input forward" and ns["op2"][0] == "op pending"
    assert ns["v3"][0] == "input forward active"
    lines = {line.split(" ", 1)[0]: line for line in dot.splitlines() if " -> " not in line}
    assert f'fillcolor="{FORWARD_COLOR}"' in lines["v0"]
    assert f'fillcolor="{BACKWARD_COLOR}"' in lines["v1"]
    assert f'fillcolor="{PENDING_COLOR}"' in lines["v2"]
    assert f'color="{ACTIVE_COLOR}" penwidth=3' in lines["v3"]
    ids = by_id(parse(svg_from_dot(dot)))
    poly = next(ids["v0"].iter(f"{SVG}polygon"))
    assert poly.get("fill").lower() == FORWARD_COLOR.lower()


@pytest.mark.parametrize(
    ("states", "message"),
    [({9: "forward"}, "value indices 0..5"), ({0: "done"}, "pending"), ({0: ""}, "pending")],
)
def test_bad_states_are_refused_with_what_is_allowed(states, message):
    *_, L = blog_l()
    with pytest.raises(ValueError, match=re.escape(message)):
        to_dot(L, states=states)


# ---- options ------------------------------------------------------------------------


def test_layout_direction_font_size_and_number_format_options():
    *_, L = blog_l()
    L.backward()
    dot = to_dot(L, rankdir="TB", font_size=20, fmt=".2f")
    assert "rankdir=TB" in dot and "fontsize=20" in dot
    assert "data 16.00<" in dot and "grad -24.00<" in dot


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"rankdir": "sideways"}, "rankdir must be one of"),
        ({"fmt": ".4q"}, "not a number format spec"),
        ({"font_size": 0}, "font_size must be"),
        ({"collapse": "neurons"}, "collapse must be None"),
        ({"max_nodes": 0}, "max_nodes must be"),
    ],
)
def test_bad_options_say_what_is_allowed(option, message):
    with pytest.raises(ValueError, match=message):
        to_dot(Value(1.0, label="x") * 2, **option)


def test_drawing_something_that_is_not_a_value_says_so():
    with pytest.raises(TypeError, match=r"not a computation graph.*A plain number has no graph"):
        draw(3.0)


# ---- collapse -------------------------------------------------------------------------


def mlp_loss(sizes=(3, 2, 1), seed=7, samples=((0.5, -1.0),)):
    m = MLP(2, list(sizes), seed=seed)
    loss = sum(((m(list(s)) - 1) ** 2 for s in samples), Value(0.0, label="zero"))
    loss.backward()
    return m, loss


def test_collapse_neuron_draws_one_box_per_neuron_and_keeps_inputs_and_loss():
    _, loss = mlp_loss()
    order = loss.topological_order()
    dot = to_dot(loss, collapse="neuron")
    ns = nodes(dot)
    boxes = {k: v for k, v in ns.items() if v[0].startswith("neuron")}
    assert len(boxes) == 6
    assert not any(v[0].startswith("param") for v in ns.values())
    inputs = [k for k, v in ns.items() if v[0] == "input"]
    assert sorted(order[int(k[1:])].label for k in inputs) == ["x1", "x2", "zero"]
    for key, (_, label) in boxes.items():
        v = order[int(key[1:])]
        assert f">{v.tag.name}</FONT>" in label and "ReLU" in label
        assert f"data {format_number(v.data)}<" in label
        assert f"grad {format_number(v.grad)}<" in label
    # every L1 neuron is fed by both inputs, every L2 neuron by all three L1 neurons
    es = edges(dot)
    by_name = {order[int(k[1:])].tag.name: k for k in boxes}
    l1 = [by_name[f"L1.n{j}"] for j in (1, 2, 3)]
    for j in (1, 2):
        fed = {src for src, dst, _ in es if dst == by_name[f"L2.n{j}"]}
        assert fed == set(l1)
    # the loss after the network stays ordinary: operation nodes and operand edges
    assert ns[f"op{len(order) - 1}"][0] == "op"


def test_collapsed_neuron_box_has_data_and_grad_cells_in_the_svg():
    _, loss = mlp_loss()
    order = loss.topological_order()
    ids = by_id(parse(draw(loss, collapse="neuron").svg()))
    out_index = next(i for i, v in enumerate(order) if getattr(v.tag, "name", "") == "L3.n1")
    data = ids[f"v{out_index}-data"].text
    assert data.startswith("data ")
    assert text_of(ids[f"v{out_index}-label"])[0] == "L3.n1"


def test_collapse_keeps_a_weight_visible_when_the_loss_reads_it():
    m = MLP(2, [2, 1], seed=3)
    w = m.layers[0].neurons[0].w[0]
    out = m([1.0, 2.0])
    loss = out + w * w  # a regulariser reads the weight directly
    order = loss.topological_order()
    ns = nodes(to_dot(loss, collapse="neuron"))
    visible_params = [order[int(k[1:])].label for k, v in ns.items() if v[0] == "param"]
    assert visible_params == ["L1.n1.w1"]
    es = edges(to_dot(loss, collapse="neuron"))
    w_key = f"v{order.index(w)}"
    l1n1 = next(f"v{i}" for i, v in enumerate(order) if getattr(v.tag, "name", "") == "L1.n1")
    assert (w_key, l1n1, f"{w_key}-{l1n1}") in es


def test_collapse_layer_draws_one_box_per_layer_call():
    _, loss = mlp_loss(samples=((0.5, -1.0), (1.0, 2.0)))
    ns = nodes(to_dot(loss, collapse="layer"))
    layers = [v for v in ns.values() if v[0] == "layer"]
    assert len(layers) == 6  # three layers, two samples
    assert sum("L1  ReLU × 3" in label for _, label in layers) == 2
    assert all(">n1<" in label for _, label in layers)


def test_collapse_on_a_graph_without_neurons_says_so():
    with pytest.raises(ValueError, match="has none"):
        to_dot(Value(1.0, label="x") * 2, collapse="neuron")


# ---- the size guard ------------------------------------------------------------------


def chain(n: int) -> Value:
    v = Value(0.5, label="x")
    for _ in range(n // 2):
        v = v * 1.0001
    return v


def test_large_plain_graph_is_refused_with_how_to_draw_less():
    with pytest.raises(GraphTooLargeError) as err:
        draw(chain(700))
    msg = str(err.value)
    assert "max_nodes=500" in msg and "sub-expression" in msg and "collapse=" in msg


def test_raising_max_nodes_draws_it():
    d = draw(chain(700), max_nodes=800)
    assert "v699" in d.source


def test_one_sample_mlp_16_16_1_collapses_to_neurons_by_itself():
    m = MLP(2, [16, 16, 1], seed=1)
    out = m([1.0, -2.0])
    out.backward()
    assert len(out.topological_order()) > 900
    with pytest.warns(UserWarning, match="collapsed to one box per neuron"):
        d = draw(out)
    assert d.caption and "max_nodes=" in d.caption
    assert "collapsed to one box per neuron" in d.source
    svg = d.svg()
    assert len(svg) < 400_000
    assert sum(1 for line in d.source.splitlines() if 'class="neuron' in line) == 33


@pytest.mark.slow
def test_collapsed_graph_still_too_large_is_refused():
    m = MLP(2, [16, 16, 1], seed=1)
    samples = [m([float(i), 1.0]) for i in range(20)]  # 20 x 33 neuron boxes
    total = sum(samples, Value(0.0, label="zero"))
    with pytest.raises(GraphTooLargeError, match="even collapsed to one box per neuron"):
        draw(total, collapse="neuron")
    with pytest.warns(UserWarning, match="collapsed to one box per layer"):
        d = draw(total)  # too many neurons: layers fit
    assert d.source.count('class="layer"') == 60
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before any warning
        with pytest.raises(GraphTooLargeError, match="even collapsed to one box per layer"):
            draw(total, max_nodes=50)


# ---- files, display and the missing dot --------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "magic"), [(".svg", b"<svg"), (".png", b"\x89PNG"), (".pdf", b"%PDF")]
)
def test_save_writes_the_format_its_suffix_names(tmp_path, suffix, magic):
    *_, L = blog_l()
    path = draw(L).save(tmp_path / f"graph{suffix}")
    assert path.read_bytes().startswith(magic)


def test_save_with_an_unknown_suffix_says_which_work(tmp_path):
    with pytest.raises(ValueError, match=r"\.svg, \.png or \.pdf"):
        draw(Value(1.0, label="x")).save(tmp_path / "graph.gif")


def test_drawing_displays_as_svg_in_ipython():
    from IPython.core.formatters import DisplayFormatter

    *_, L = blog_l()
    data, _ = DisplayFormatter().format(draw(L))
    assert data["image/svg+xml"].startswith("<svg")
    assert data["text/plain"].startswith("<Drawing of 6 values, 3 operations")


def test_value_draw_is_the_module_function():
    *_, L = blog_l()
    assert isinstance(L.draw(), Drawing)
    assert L.draw(font_size=18).source == to_dot(L, font_size=18)


_NO_DOT = textwrap.dedent(
    """
    import traceback
    from autograd_viz import Value
    from autograd_viz.render import GraphvizNotFoundError, draw
    x = Value(2.0, label="x")
    d = draw(x * x)
    assert d.source.startswith("digraph")
    print("TEXT:", d._repr_mimebundle_()["text/plain"].splitlines()[0][:40])
    try:
        d.svg()
    except GraphvizNotFoundError as err:
        frames = traceback.extract_tb(err.__traceback__)
        print("CONTEXT:", err.__suppress_context__, err.__cause__)
        print("LAST:", frames[-1].filename.rsplit("/", 1)[-1])
        print("MSG:", err)
    """
)


def test_missing_dot_names_the_program_and_how_to_install_it():
    env = {**os.environ, "PATH": "/nonexistent"}
    proc = subprocess.run(
        [sys.executable, "-c", _NO_DOT], capture_output=True, text=True, env=env, check=True
    )
    out = proc.stdout
    assert "TEXT: Graphviz's `dot` program was not found" in out
    assert "CONTEXT: True None" in out  # raised `from None`: no chained traceback
    assert "LAST: layout.py" in out  # raised by the renderer seam, not deep in subprocess
    for hint in (
        "conda install -c conda-forge python-graphviz",
        "apt-get install graphviz",
        "brew install graphviz",
        ".source",
    ):
        assert hint in out


def test_collapsed_drawing_says_what_it_shows():
    _, loss = mlp_loss()
    assert repr(draw(loss, collapse="neuron")).startswith("<Drawing of 61 values shown as 6 neuron")
    assert "3 layer boxes" in repr(draw(loss, collapse="layer"))


def test_examples_in_the_docstrings_hold():
    import doctest

    from autograd_viz import api
    from autograd_viz.view import collapse, dot, drawing, layout, svg

    for module in (api, drawing, dot, collapse, svg, layout):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


# ---- legend -------------------------------------------------------------------------


def test_legend_explains_only_the_styles_the_drawing_uses():
    *_, L = blog_l()
    assert "label=<" not in to_dot(L).split("node [")[0]  # no legend unless asked
    dot = to_dot(L, legend=True)
    for text in ("input", "intermediate value", "output", "grad ? = not computed yet"):
        assert f">{text}<" in dot
    for text in ("weight or bias", "constant", "value computed", "this step", "neuron"):
        assert f">{text}<" not in dot
    L.backward()
    dot = to_dot(L, legend=True, states={0: "forward", 1: "backward active"})
    assert ">value computed<" in dot and ">gradient final<" in dot and ">this step<" in dot
    assert "not computed yet" not in dot
    ids = by_id(parse(svg_from_dot(dot)))  # the legend leaves the node ids alone
    assert ids["v5-data"].text == "data 16" and ids["v0-grad"].text == "grad −24"


def test_animation_legend_explains_every_state_before_any_is_shown():
    *_, L = blog_l()
    dot = to_dot(L, legend="animation")
    for text in ("not reached yet", "value computed", "gradient final", "this step"):
        assert f">{text}<" in dot
    with pytest.raises(ValueError, match="legend must be"):
        to_dot(L, legend="yes")


def test_legend_of_a_collapsed_network_names_neurons_and_keeps_the_note():
    _, loss = mlp_loss()
    assert ">neuron<" in to_dot(loss, collapse="neuron", legend=True)
    assert ">layer<" in to_dot(loss, collapse="layer", legend=True)
    m = MLP(2, [16, 16, 1], seed=1)
    out = m([1.0, -2.0])
    with pytest.warns(UserWarning):
        dot = to_dot(out, legend=True)
    assert "collapsed to one box per neuron" in dot and ">neuron<" in dot
    assert ">weight or bias<" not in dot  # every weight is inside a neuron box


def test_layer_box_holding_the_output_is_drawn_as_the_output():
    m = MLP(2, [3, 1], seed=2)
    out = m([1.0, -1.0])
    ns = nodes(to_dot(out, collapse="layer"))
    assert [v[0] for v in ns.values() if v[0].startswith("layer")] == ["layer", "layer output"]


def test_automatic_collapse_warning_points_at_the_callers_line():
    out = MLP(2, [16, 16, 1], seed=1)([1.0, -2.0])
    with pytest.warns(UserWarning) as record:
        out.draw()  # through Value.draw and api.draw
    assert record[0].filename == __file__


# ---- property: any graph, any labels -----------------------------------------------

_LABELS = st.text(alphabet=st.characters(exclude_categories=()), max_size=10).filter(
    lambda t: t.replace("\r\n", "\n").replace("\r", "\n").count("\n") < 8  # not clipped
)


@st.composite
def _graphs(draw_from) -> Value:
    """A random graph from the shared strategy (tests/op_cases.py), every value given a label
    from `_LABELS` (markup, quotes, control characters, long text)."""
    _, root = draw_from(programs()).build()
    for v in root.topological_order():
        if v.label or v.parents:
            v.label = draw_from(_LABELS)
    if draw_from(st.booleans()):
        root.backward()
    return root


def _shown(label: str) -> list[str]:
    """The text lines a label should render as (graphviz keeps runs of spaces as NBSPs)."""
    text = label.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    bad = {*map(chr, range(32)), "\x7f", "\ufffe", "\uffff"} - {"\n"}
    text = "".join("\ufffd" if c in bad or "\ud800" <= c <= "\udfff" else c for c in text)
    return [line.replace("\xa0", " ") for line in text.split("\n") if line]


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(_graphs())
def test_any_graph_renders_every_value_literally_with_its_ids(root):
    order = root.topological_order()
    kinds = roles(root)
    dot = to_dot(root)
    ops = [i for i, v in enumerate(order) if v.parents]
    assert len(nodes(dot)) == len(order) + len(ops)
    es = edges(dot)
    assert len(es) == sum(len(order[i].parents) for i in ops) + len(ops)
    assert len({e[2] for e in es}) == len(es)  # edge ids are unique
    svg = parse(svg_from_dot(dot))
    assert {el.tag.removeprefix(SVG) for el in svg.iter()} <= {
        "svg", "g", "title", "polygon", "path", "ellipse", "text", "polyline",
    }  # fmt: skip
    ids = by_id(svg)
    show_grad = any(v.grad != 0 for v in order)
    names = node_names(root)
    for i, v in enumerate(order):
        data = ids[f"v{i}-data"].text
        if kinds[i] == "const":
            assert data == format_number(v.data)
            continue
        assert data == f"data {format_number(v.data)}"
        grad = format_number(v.grad) if show_grad else "?"
        assert ids[f"v{i}-grad"].text == f"grad {grad}"
        want = _shown(names[i])  # the label, or a short expression (`x · 3`), or `v{i}`
        if not want:  # only line breaks: nothing to show
            assert f"v{i}-label" not in ids
            continue
        assert [t.replace("\xa0", " ") for t in text_of(ids[f"v{i}-label"])] == want


@pytest.mark.parametrize(("rankdir", "axis", "sign"), [("LR", 0, 1), ("RL", 0, -1), ("TB", 1, 1)])
def test_layout_runs_from_inputs_to_output_in_the_asked_direction(rankdir, axis, sign):
    *_, L = blog_l()
    ids = by_id(parse(draw(L, rankdir=rankdir).svg()))

    def centre(key: str) -> float:
        poly = next(ids[key].iter(f"{SVG}polygon"))
        points = [tuple(map(float, p.split(","))) for p in poly.get("points").split()]
        return sum(p[axis] for p in points) / len(points)

    # a -> (×) -> d -> (+) -> e -> (**2) -> L, so L is three ranks past a
    assert sign * (centre("v5") - centre("v0")) > 0
    assert sign * (centre("v4") - centre("v2")) > 0


# ---- limits: graphviz refuses HTML labels over 16384 characters ------------------------


def test_very_long_labels_are_clipped_with_an_ellipsis_and_still_draw():
    x = Value(1.0, label="&" * 20_000)  # 100,000 characters once escaped
    y = Value(2.0, label="line\n" * 500)
    ids = by_id(parse(draw(x * y).svg()))
    (first,) = text_of(ids["v0-label"])
    assert first == "&" * 59 + "…"
    lines = text_of(ids["v1-label"])
    assert lines == ["line"] * 7 + ["line…"]


def test_long_number_formats_are_clipped_to_one_short_line():
    x = Value(1.0, label="x")
    ids = by_id(parse(draw(x * 2, fmt=".300f").svg()))
    assert ids["v0-data"].text == "data 1." + "0" * 21 + "…"
    ids = by_id(parse(draw(x * 2, fmt=lambda v: "long\nnumber" * 50).svg()))
    assert ids["v0-data"].text == "data long\u2026"  # first line only


def test_a_wide_layer_lists_its_first_neurons_and_how_many_more():
    m = MLP(2, [60, 1], seed=0)
    out = m([1.0, 2.0])
    out.backward()
    dot = to_dot(out, collapse="layer")
    assert ">n23<" in dot and ">n24<" not in dot and ">37 more<" in dot
    assert "L1  ReLU × 60" in dot
    assert parse(draw(out, collapse="layer").svg()) is not None


def test_backward_twice_draws_what_grad_holds_and_says_what_one_pass_gives():
    # issue 18 item 7: the "forgot zero_grad" pitfall gets a caption, not silence
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.backward()
    assert draw(z).caption is None  # one pass: nothing to say
    z.backward()
    d = draw(z)
    assert "grad 6<" in d.source and "grad 16<" in d.source  # .grad as it is
    assert d.caption.splitlines() == [
        "x.grad = 6 and y.grad = 16, but one backward pass gives 3 and 8:",
        "backward() ran again without zero_grad(), so the gradients of inputs add up.",
        "Call zero_grad() before backward() (notebook 09, pitfall 1).",
    ]
    assert "one backward pass gives 3 and 8:" in d.svg()
    z.zero_grad()
    z.backward()
    assert draw(z).caption is None


def test_no_zero_grad_note_when_backward_started_at_a_later_output():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = x * y
    (z * 5).backward()  # x.grad = 15: one pass from z * 5, not a second pass from z
    assert draw(z).caption is None


@pytest.mark.parametrize("label", ["\\N", "a\\Gb", "\\L\\E", "C:\\temp\\n"])
def test_a_backslash_in_a_label_is_drawn_as_typed(label):
    # graphviz expands \N (the node's name), \G, \L, \E inside a table cell: drawn as typed
    svg = parse(draw(Value(2.0, label=label) * 2).svg())
    assert [t.replace("\xa0", " ") for t in text_of(by_id(svg)["v0-label"])] == [label]
