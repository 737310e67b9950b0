"""Typeset LaTeX with the real MathJax (from tests/browser/node_modules) in Chromium, and
say which pieces failed — the check every test of equations shares."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

MATHJAX = Path(__file__).parent / "browser" / "node_modules" / "mathjax" / "MathJax.js"


def mathjax_errors(chromium: object, folder: Path, corpus: list[str]) -> list[str]:
    """The pieces of `corpus` that MathJax typesets with an error (none, when all is well)."""
    if not MATHJAX.exists():
        pytest.fail(f"{MATHJAX} is missing: run `npm ci --prefix tests/browser`")
    body = "".join(f"<p>\\({html.escape(latex)}\\)</p>" for latex in corpus)
    page_file = folder / "latex.html"
    page_file.write_text(
        "<!doctype html><html><head><script type='text/x-mathjax-config'>"
        "MathJax.Hub.Config({TeX: {noErrors: {disabled: true}, noUndefined: {disabled: true}}});"
        "MathJax.Hub.Register.StartupHook('End', function () { window.avzTypeset = true; });"
        f"</script><script src='{MATHJAX.as_uri()}?config=TeX-AMS_SVG'></script></head>"
        f"<body>{body}</body></html>",
        encoding="utf-8",
    )
    page = chromium.new_page()
    try:
        page.goto(page_file.as_uri())
        page.wait_for_function("() => window.avzTypeset === true", timeout=60_000)
        mathml = page.evaluate("() => MathJax.Hub.getAllJax().map(j => j.root.toMathML(''))")
    finally:
        page.close()
    assert len(mathml) == len(corpus)
    return [latex for latex, m in zip(corpus, mathml) if "merror" in m]
