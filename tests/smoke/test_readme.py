"""The README keeps its promises: the two commands first, CI runs the second, the code runs.

The repository contract: README.md starts with exactly two commands (set up and run the
lab; set up and run every test), and `.ci/run` runs exactly the test command. The README's
Python examples are executed, its links resolve, and its notebook map lists every notebook.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LAB_COMMAND, TEST_COMMAND = "bash scripts/lab.sh", "bash scripts/test.sh"


def _fenced_blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def _commands(block: str) -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in block.splitlines())
    return [line for line in lines if line]


def test_readme_starts_with_exactly_the_lab_and_test_commands():
    match = re.match(r"```bash\n(.*?)```", README, re.S)
    assert match, "README.md must start with a ```bash block holding the two commands"
    assert _commands(match.group(1)) == [LAB_COMMAND, TEST_COMMAND]


def test_ci_runs_exactly_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert _commands(ci)[-1] in (f"exec {TEST_COMMAND}", TEST_COMMAND), ci
    assert subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")]).returncode == 0


@pytest.mark.parametrize("script", ["lab.sh", "test.sh", "setup.sh"])
def test_scripts_parse_as_bash(script):
    proc = subprocess.run(["bash", "-n", str(ROOT / "scripts" / script)], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


def test_readme_python_examples_run(tmp_path):
    blocks = _fenced_blocks(README, "python")
    assert blocks, "the README's API tour has no python example"
    for block in blocks:
        proc = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, f"README example failed:\n{block}\n{proc.stderr}"


@pytest.mark.parametrize("doc", ["README.md", "docs/teachers_guide.md", "docs/classroom.md"])
def test_relative_links_resolve(doc):
    path = ROOT / doc
    links = re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8"))
    missing = [
        link for link in links
        if not re.match(r"[a-z]+://", link)
        and not (path.parent / link.split("#", 1)[0]).exists()
    ]
    assert not missing, f"{doc} links to files that do not exist: {missing}"


def test_readme_maps_every_notebook():
    notebooks = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    listed = re.findall(r"\(notebooks/([0-9]{2}_[^)]+\.ipynb)\)", README)
    assert listed == notebooks, f"README lists {listed}, notebooks/ has {notebooks}"


def test_test_command_fails_when_pytest_collects_nothing(tmp_path):
    # pytest exits 5 when it collects no test; CI must not mistake that for a pass.
    empty = tmp_path / "no_tests_here"
    empty.mkdir()
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "test.sh"), str(empty)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "collected no tests" in proc.stderr
