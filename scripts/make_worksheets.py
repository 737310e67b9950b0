"""Write the walkthrough notebooks' worksheets and answer keys into docs/worksheets/.

One worksheet per walkthrough, on the notebook's own example, as PDF (A4) and print-ready HTML,
each with its answer key: what the teacher's guide links to. tests/test_worksheet.py checks
that the committed files are what this script makes today (the HTML byte for byte, the PDF by
its text), so re-run it when the derivation's wording changes:

    .venv/bin/python scripts/make_worksheets.py
"""

from __future__ import annotations

from pathlib import Path

from autograd_viz import Value
from autograd_viz.export import save_worksheet

OUT = Path(__file__).resolve().parent.parent / "docs" / "worksheets"


def examples() -> dict[str, Value]:
    """{file stem: the notebook's example}, built as each notebook builds it."""
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    c = a * b
    c.label = "c"
    d = c + b
    d.label = "d"
    chain = 2 * d
    chain.label = "L"

    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    s = x + y
    s.label = "s"  # notebook 03 names the sum s
    z = s * y
    z.label = "z"

    a2, b2, c2 = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    d2 = a2 * b2
    d2.label = "d"
    e2 = d2 + c2
    e2.label = "e"
    longer = e2**2
    longer.label = "L"
    return {
        "02_chain_rule": chain,
        "03_backprop_by_hand": z,
        "10_longer_backward_pass": longer,
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for stem, root in examples().items():
        for key, tail in ((False, "worksheet"), (True, "key")):
            for suffix in (".pdf", ".html"):
                path = save_worksheet(root, OUT / f"{stem}_{tail}{suffix}", key=key)
                print(f"wrote {path.relative_to(OUT.parent.parent)}")


if __name__ == "__main__":
    main()
