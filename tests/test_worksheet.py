"""The printable worksheet and its answer key (autograd_viz/exports/worksheet.py).

The PDF is drawn by the real cairosvg and its text read back with pypdf; the HTML is checked
as the page a browser prints. Numbers come from the trace, so the key agrees with the player.
"""

from __future__ import annotations

import importlib.util
import re
import tracemalloc
from pathlib import Path

import pytest
from pypdf import PdfReader

from autograd_viz import Value
from autograd_viz.export import save_worksheet, worksheet
from autograd_viz.exports.worksheet import BLANK, PAPERS, WorksheetError
from autograd_viz.trace import trace
from autograd_viz.view.render import GraphTooLargeError

ROOT = Path(__file__).resolve().parents[1]


def _z() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


def _pdf_text(path: Path) -> tuple[str, PdfReader]:
    reader = PdfReader(str(path))
    text = "\n".join(page.extract_text() for page in reader.pages)
    return re.sub(r"[ \t]+", " ", text), reader


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_the_key_is_the_derivation_the_player_shows():
    z = _z()
    lines = worksheet(z, key=True).lines
    assert list(lines) == [s.text for s in trace(z) if not s.text.startswith("inputs:")]
    assert lines[-1].endswith("= 8") and lines[0].endswith("= 5")


def test_the_worksheet_keeps_the_symbols_and_blanks_every_result():
    z = _z()
    sheet, key = worksheet(z), worksheet(z, key=True)
    assert len(sheet.lines) == len(key.lines) == 8
    for blank, answer in zip(sheet.lines, key.lines, strict=True):
        assert blank.endswith(f"= {BLANK}") and blank.count(BLANK) == 1, blank
        left = answer.split(" = ")[0]
        assert blank.startswith(left), (blank, answer)
        result = answer.rsplit(" = ", 1)[1]
        assert not re.search(rf"(?<![\w.]){re.escape(result)}(?![\w.])", blank), (blank, result)
    assert sheet.lines[0] == f"x + y = {BLANK}"  # the substituted numbers go too
    assert sheet.inputs == "Inputs: x = 2, y = 3"
    assert sheet.title == "Worksheet: z = (x + y) · y"
    assert key.title == "Answer key: z = (x + y) · y"


def test_the_worksheet_graph_has_a_blank_for_every_value_and_gradient():
    sheet, key = worksheet(_z()), worksheet(_z(), key=True)
    cells = re.findall(r">((?:data|grad) [^<]*)<", sheet.graph_svg)
    assert len(cells) == 8 and all(c.endswith(BLANK) for c in cells), cells
    key_cells = set(re.findall(r">((?:data|grad) [^<]*)<", key.graph_svg))
    assert {"data 15", "grad 1", "data 5", "grad 3", "data 3", "grad 8", "data 2"} <= key_cells


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_pdf_worksheet_and_key_read_back_with_every_line(tmp_path, paper):
    z = _z()
    sheet_pdf = save_worksheet(z, tmp_path / "w.pdf", paper=paper)
    key_pdf = save_worksheet(z, tmp_path / "k.pdf", key=True, paper=paper)
    text, reader = _pdf_text(sheet_pdf)
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == tuple(map(round, PAPERS[paper]))
    assert "Worksheet" in text and "Name:" in text
    for line in worksheet(z).lines:
        assert _squash(line.replace(BLANK, "")) in _squash(text), line
    assert "grad 8" not in text and "= 8" not in text  # no answer on the learner's sheet
    key_text, _ = _pdf_text(key_pdf)
    for line in worksheet(z, key=True).lines:
        assert _squash(line) in _squash(key_text), line
    assert "grad 8" in key_text and "Name:" not in key_text


def test_html_worksheet_is_print_ready_and_black_and_white(tmp_path):
    page = save_worksheet(_z(), tmp_path / "w.html", paper="letter").read_text(encoding="utf-8")
    assert "@page { size: letter;" in page
    assert page.count("<li>") == 8 and page.count("<span class=blank></span>") == 9  # + Name
    colours = set(re.findall(r"#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})\b", page))
    greys = {c for c in colours if _is_grey(c)}
    assert colours == greys, f"colours that print as something other than grey: {colours - greys}"
    assert "var(--" not in page  # a standalone page has no palette to resolve them
    a4 = save_worksheet(_z(), tmp_path / "a4.html").read_text(encoding="utf-8")
    assert "@page { size: A4;" in a4


def _is_grey(hex_colour: str) -> bool:
    full = hex_colour if len(hex_colour) == 6 else "".join(ch * 2 for ch in hex_colour)
    r, g, b = (int(full[i : i + 2], 16) for i in (0, 2, 4))
    return r == g == b


def test_a_graph_too_big_for_paper_is_refused_before_it_is_read():
    x = Value(0.5, label="x")
    for _ in range(5_000):
        x = x.tanh()
    tracemalloc.start()
    with pytest.raises(GraphTooLargeError):
        worksheet(x)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 2_000_000, f"refusing took {peak} bytes: the graph was read, not counted"


def test_a_derivation_longer_than_a_page_is_refused_with_what_to_do():
    x = Value(0.5, label="x")
    v = x
    for _ in range(25):  # 26 values: within max_nodes, but 51 lines (25 + seed + 25)
        v = v.tanh()
    with pytest.raises(
        WorksheetError,
        match=r"51 lines; one worksheet holds at most 32.*phase='forward' or phase='backward'",
    ):
        worksheet(v)
    backward = worksheet(v, phase="backward")
    assert len(backward.lines) == 26
    assert backward.inputs == "Inputs: x = 0.5"  # one pass's sheet still says what is given


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"paper": "A5"}, WorksheetError, "paper must be one of"),
        ({"key": "yes"}, TypeError, "key must be True"),
        ({"title": 5}, TypeError, "title must be a str"),
        ({"fmt": ".2f"}, TypeError, "sets 'fmt' itself"),
        ({"phase": "sideways"}, ValueError, "phase"),
    ],
)
def test_bad_options_are_explained(kwargs, error, match):
    with pytest.raises(error, match=match):
        worksheet(_z(), **kwargs)


def test_a_single_value_has_nothing_to_work_out():
    with pytest.raises(WorksheetError, match="single value"):
        worksheet(Value(2.0, label="x"))


def test_a_wrong_path_is_refused_before_the_work(tmp_path):
    with pytest.raises(ValueError, match=r"\.pdf or \.html"):
        save_worksheet(_z(), tmp_path / "w.png")
    with pytest.raises(FileNotFoundError):
        save_worksheet(_z(), tmp_path / "missing" / "w.pdf")


def _make_worksheets():
    spec = importlib.util.spec_from_file_location(
        "make_worksheets", ROOT / "scripts" / "make_worksheets.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("stem", sorted(_make_worksheets().examples()))
def test_committed_worksheets_are_what_the_script_makes_today(stem):
    """docs/worksheets/ (linked from the teacher's guide) is current: re-run
    scripts/make_worksheets.py when the derivation's wording changes."""
    root = _make_worksheets().examples()[stem]
    folder = ROOT / "docs" / "worksheets"
    for key, tail in ((False, "worksheet"), (True, "key")):
        fresh = worksheet(root, key=key)
        html_file = folder / f"{stem}_{tail}.html"
        assert html_file.read_text(encoding="utf-8") == fresh.html(), (
            f"{html_file.name} is stale: run scripts/make_worksheets.py"
        )
        text, reader = _pdf_text(folder / f"{stem}_{tail}.pdf")
        assert len(reader.pages) == 1
        for line in fresh.lines:
            assert _squash(line.replace(BLANK, "")) in _squash(text), (stem, tail, line)
    guide = (ROOT / "docs" / "teachers_guide.md").read_text(encoding="utf-8")
    assert f"worksheets/{stem}_worksheet.pdf" in guide and f"worksheets/{stem}_key.pdf" in guide


def _numbers(text: str) -> set[str]:
    """The numbers written in a piece of a line (4, 0.5, 4² counts as 4)."""
    return set(re.findall(r"(?<![\w.])\d[\d.]*", text))


@pytest.mark.parametrize("stem", sorted(_make_worksheets().examples()))
def test_a_worksheet_gives_no_worked_out_number_away(stem):
    """A learner's sheet keeps a line's name and its formula and blanks everything worked out:
    after the formula no part may hold a number (02's '∂L/∂a = ∂L/∂c · ∂c/∂a = 2 · b' gave
    ∂L/∂c away, 10's '8 · b' gave ∂L/∂d, its title 'L = e² = 4²' gave e), and a formula's
    numbers are the expression's own constants and exponents (the 2 of d · 2, of 2e)."""
    root = _make_worksheets().examples()[stem]
    sheet = worksheet(root)
    order = root.topological_order()
    own = {format(v.data, "g") for v in order if v.op == "" and not v.label}  # constants
    own |= {format(v.exponent, "g") for v in order if v.exponent is not None}
    for text in (sheet.title.split(": ", 1)[1], *sheet.lines):
        parts = text.replace(f" = {BLANK}", "").split(" = ")
        assert _numbers(" ".join(parts[:2])) <= own, (stem, text)
        for part in parts[2:]:
            assert not _numbers(part), (stem, text, part)


def test_worksheet_lines_name_what_they_compute_as_the_notebooks_do():
    """10's second line reads 'e = d + c' (the e was taken for a number and blanked), and 03's
    sum is s, as the notebook names it, not (x + y)."""
    sheets = {stem: worksheet(root) for stem, root in _make_worksheets().examples().items()}
    assert sheets["10_longer_backward_pass"].lines[1] == f"e = d + c = {BLANK}"
    assert sheets["10_longer_backward_pass"].title == "Worksheet: L = e²"
    backprop = sheets["03_backprop_by_hand"]
    assert backprop.lines[0] == f"s = x + y = {BLANK}"
    assert any(line.startswith("∂z/∂x = ∂z/∂s · ∂s/∂x") for line in backprop.lines)
    assert not any("(x + y)" in line for line in backprop.lines[1:])


@pytest.mark.parametrize("most", [0, -3, 2.5, "30", True])
def test_a_max_nodes_that_is_not_a_count_is_refused_before_the_graph_is_read(most):
    """It was ignored (the graph read whole, unlimited) where it was not an int."""
    from autograd_viz.export import save_worksheet, worksheet

    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    for call in (lambda: worksheet((x + y) * y, max_nodes=most),
                 lambda: save_worksheet((x + y) * y, "never.html", max_nodes=most)):
        with pytest.raises(WorksheetError, match="max_nodes must be a positive int"):
            call()


# ---- a learner's engine: the key is the maths', not their rules' ------------------------------


@pytest.mark.parametrize("cls", ["SwappedMul", "AssignInsteadOfAdd", "ForgotOutGrad", "BlogValue"])
def test_the_key_of_a_learners_engine_gives_the_right_numbers_not_their_rules(cls):
    # before: SwappedMul's key read "∂L/∂a = 14 · b = 14 · 3 = 28" (the right answer is 42)
    import own_engines as oe

    theirs = worksheet(oe.square_of_ab_plus_c(getattr(oe, cls)), key=True)
    ours = worksheet(oe.square_of_ab_plus_c(Value), key=True)
    assert theirs.lines == ours.lines
    assert "∂L/∂a = ∂L/∂d · ∂d/∂a = 14 · b = 14 · 3 = 42" in theirs.lines
    assert "∂L/∂b = ∂L/∂d · ∂d/∂b = 14 · a = 14 · 2 = 28" in theirs.lines


def test_a_learners_operation_with_no_derivative_to_be_found_gets_no_key():
    import own_engines as oe

    class OnlyAtTwo(oe.BlogValue):
        def twist(self):  # runs at x = 2 only: no central difference can be taken
            if self.data != 2.0:
                raise ValueError("only at 2")
            out = type(self)(self.data**2 + 1, (self,), "zz")

            def _backward():
                self.grad += 2 * self.data * out.grad

            out._backward = _backward
            return out

    x = OnlyAtTwo(2.0, label="x")
    with pytest.raises(WorksheetError, match="operation 'zz' is one the kit knows no derivative"):
        worksheet(x.twist() * x, key=True)
