"""Labels and numbers shown the same by every viewer: hostile labels (control characters,
lone surrogates), a huge label clipped, a number as a label, and show_grad=False; and x ** n
at 0 agreeing between the engine, the trace and gradcheck.
"""

from __future__ import annotations

import re

import pytest

from autograd_viz import Value, gradcheck
from autograd_viz import export as export_mod
from autograd_viz.frames import Frames
from autograd_viz.render import draw
from autograd_viz.trace import trace


def _blog() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


HOSTILE = "a\ud800b\x00c\x07d\x1be"


def _hostile() -> Value:
    return Value(2.0, label=HOSTILE) * Value(3.0, label="y")


@pytest.mark.parametrize("suffix", ["html", "svg"])
def test_exports_write_hostile_labels_as_draw_does(suffix, tmp_path):
    z = _hostile()
    save = export_mod.save_html if suffix == "html" else export_mod.save_svg_animation
    path = save(z, tmp_path / f"a.{suffix}")
    text = path.read_bytes().decode("utf-8")  # valid UTF-8
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]", text)
    drawn = draw(z).svg()
    shown = re.search(r">(a[^<]*e)<", drawn).group(1)  # the label as draw() shows it
    assert shown in text


def test_show_grad_false_leaves_the_grad_out():
    z = _blog()
    z.backward()
    svg = z.draw(show_grad=False).svg()
    nodes = re.findall(r'<g id="v\d+" class="node.*?</g>', svg, re.S)
    assert nodes and not any("grad" in n for n in nodes)


def test_a_huge_label_is_clipped_in_equations_as_in_drawings(tmp_path):
    x = Value(2.0, label="x" * 100_000)
    z = x * x + 1
    longest = max(len(s.text) for s in trace(z))
    assert longest < 1_000
    assert len(Frames(z).frame_svg(0)) < 100_000
    assert export_mod.save_html(z, tmp_path / "a.html", katex=False).stat().st_size < 300_000


def test_power_zero_at_zero_has_slope_zero_in_trace_and_gradcheck():
    x = Value(0.0, label="x")
    p = x**0 + 2 * x + 3 * x**2
    p.backward()
    steps = trace(p, "backward")
    assert steps[-1].grads[0] == x.grad == 2
    assert not any("⁻¹" in s.text or "∞" in s.text for s in steps)
    report = gradcheck(lambda a: a**0 + 2 * a + 3 * a**2, [0.0])
    assert report.ok


def test_a_number_label_is_shown_as_text_by_trace_frames_and_draw():
    z = Value(2.0, label=5) * 3
    z.backward()
    assert trace(z)[-1].text.startswith("∂")
    assert any("5" in s.text for s in trace(z, "forward"))
    assert ">5<" in draw(z).svg()
    assert ">5<" in Frames(z).frame_svg(0)
