"""environment.yml (conda-forge, used by Binder) stays in step with pyproject.toml (pip).

Learners get the package two ways: pip reads pyproject.toml, conda and Binder read
environment.yml. These tests parse both and fail with the exact line to add when a
dependency lands in one and not the other.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]

# pip name → conda-forge name, where they differ.
PIP_TO_CONDA = {
    "torch": "pytorch",
}
# Needed by CI only, not by anyone running or checking the notebooks, so not in environment.yml.
CI_ONLY = {
    "ruff": "lint, run by scripts/test.sh",
    "pytest-xdist": "scripts/test.sh runs the suite on one worker per core",
    "pytest-timeout": "a hung test fails after its ceiling instead of eating CI's limit",
    "pypdf": "reads a worksheet's PDF text back (tests/test_worksheet.py)",
    "playwright": "drives Chromium in the browser tests",
    "jupyter-repo2docker": "checks the Binder build plan",
    "micrograd": "a peer engine the tests draw and check (tests/test_own_engine.py)",
    "notebook": "Notebook 7, where a smoke test checks the player (tests/smoke/test_notebook7.py)",
    "marimo": "the marimo host: draw and explore checked there (tests/smoke/test_marimo.py)",
}
# Conda-only entries with no pip counterpart. python-graphviz is how conda-forge ships
# graphviz's `dot` binary together with its bindings (its plain `graphviz` is the binary
# alone); pip users get `dot` from the OS instead.
CONDA_ONLY = {"python", "pip", "python-graphviz"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _pip_requirements() -> dict[str, Requirement]:
    """Runtime dependencies plus the lab, pytorch and test extras, keyed by normalised name."""
    project = _pyproject()["project"]
    lines = list(project["dependencies"])
    extras = project.get("optional-dependencies", {})
    for extra in ("lab", "pytorch", "test"):
        lines += extras.get(extra, [])
    reqs = [Requirement(line) for line in lines]
    return {_norm(r.name): r for r in reqs}


def _environment() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text())


def _conda_specs() -> dict[str, str]:
    """Conda dependencies as {normalised name: version spec} (pip: sub-lists are refused)."""
    specs: dict[str, str] = {}
    for entry in _environment()["dependencies"]:
        if not isinstance(entry, str):
            pytest.fail(
                f"environment.yml has a nested entry {entry!r}: keep it conda-forge only "
                "(a `pip:` section would bypass conda-forge and Binder's solver)."
            )
        match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*(.*)", entry)
        assert match, f"cannot parse environment.yml entry {entry!r}"
        name = _norm(match.group(1))
        if name in specs:
            pytest.fail(f"environment.yml lists {match.group(1)} twice: keep one line")
        specs[name] = match.group(2).strip()
    return specs


def _conda_name(pip_name: str) -> str:
    return _norm(PIP_TO_CONDA.get(pip_name, pip_name))


def test_environment_uses_conda_forge_only():
    assert _environment()["channels"] == ["conda-forge", "nodefaults"], (
        "environment.yml must list exactly `channels: [conda-forge, nodefaults]` so Binder and "
        "learners resolve the same packages from conda-forge only."
    )


def test_every_pyproject_dependency_is_in_environment_yml():
    conda = _conda_specs()
    missing = [
        f"  - {PIP_TO_CONDA.get(name, name)}{req.specifier}   (pyproject: {req})"
        for name, req in _pip_requirements().items()
        if name not in CI_ONLY and _conda_name(name) not in conda
    ]
    assert not missing, (
        "pyproject.toml needs packages that environment.yml (conda-forge, Binder) lacks. "
        "Add these lines under `dependencies:` in environment.yml (check the conda-forge "
        "name; map it in PIP_TO_CONDA in this test if it differs):\n" + "\n".join(missing)
    )


def test_environment_yml_lists_nothing_pyproject_lacks():
    pip_as_conda = {_conda_name(name) for name in _pip_requirements()}
    extra = sorted(set(_conda_specs()) - pip_as_conda - CONDA_ONLY)
    assert not extra, (
        f"environment.yml installs {extra}, which pyproject.toml does not list: a pip user "
        "would miss them. Add them to pyproject.toml's dependencies (or its lab/test extra), "
        "or drop them from environment.yml."
    )


def test_lower_bounds_agree_between_pip_and_conda():
    conda = _conda_specs()
    disagreements = []
    for name, req in _pip_requirements().items():
        spec = conda.get(_conda_name(name))
        if not spec or name in CI_ONLY:
            continue
        pip_floor = [s.version for s in req.specifier if s.operator == ">="]
        conda_floor = [s.version for s in SpecifierSet(spec) if s.operator == ">="]
        if pip_floor != conda_floor:
            disagreements.append(f"{name}: pyproject '{req.specifier}' vs environment.yml '{spec}'")
    assert not disagreements, "minimum versions differ:\n" + "\n".join(disagreements)


def test_environment_python_satisfies_requires_python():
    spec = _conda_specs()["python"]
    match = re.fullmatch(r"=(\d+\.\d+)", spec)
    assert match, f"pin python as `python=3.X` in environment.yml, got `python{spec}`"
    requires = SpecifierSet(_pyproject()["project"]["requires-python"])
    assert Version(match.group(1)) in requires, (
        f"environment.yml's python={match.group(1)} is outside pyproject's "
        f"requires-python '{requires}'"
    )


@pytest.mark.parametrize(("name", "inside", "outside"), [
    ("jupyterlab", "4.2", "5.0"),
    ("ipywidgets", "8.1.5", "9.0"),
])
def test_lab_and_widgets_majors_are_pinned_in_both_files(name, inside, outside):
    pip_spec = _pip_requirements()[name].specifier
    conda_spec = SpecifierSet(_conda_specs()[name])
    for where, spec in (("pyproject.toml", pip_spec), ("environment.yml", conda_spec)):
        assert Version(inside) in spec and Version(outside) not in spec, (
            f"{where} must pin {name} to one major version (e.g. {name}>=X,<X+1): got '{spec}'"
        )


def test_binder_environment_is_a_symlink_to_the_root_file():
    link = ROOT / "binder" / "environment.yml"
    assert link.is_symlink(), (
        "binder/environment.yml must be a symlink to ../environment.yml (repo2docker reads "
        "only binder/ when it exists; one file means the two can never drift)"
    )
    assert link.resolve() == (ROOT / "environment.yml").resolve()
