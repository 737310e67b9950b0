"""The Binder configuration builds what we think it builds, checked without Docker.

`jupyter-repo2docker --no-build` inspects the repository and prints the Dockerfile it
would build (no Docker daemon needed); these tests assert that plan reads
binder/environment.yml and runs binder/postBuild, run postBuild itself in a scratch
venv, and check that the README's Binder badge opens JupyterLab on the start notebook.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import nbformat
import pytest
import yaml
from nbformat.sign import NotebookNotary

ROOT = Path(__file__).resolve().parents[1]
START_NOTEBOOK = "notebooks/00_start_here.ipynb"


def _repo2docker() -> str:
    exe = Path(sys.executable).with_name("jupyter-repo2docker")
    if not exe.exists():
        pytest.fail(
            "jupyter-repo2docker is not installed in this venv; run `bash scripts/setup.sh test` "
            "(it installs pyproject's test extra)."
        )
    return str(exe)


@pytest.fixture(scope="module")
def build_plan() -> str:
    """repo2docker's log and rendered Dockerfile for this repository, without building."""
    proc = subprocess.run(
        [_repo2docker(), "--no-build", "--debug", str(ROOT)],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"repo2docker --no-build failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


def test_plan_creates_the_conda_env_from_binder_environment_yml(build_plan):
    python = next(
        d for d in yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
        if isinstance(d, str) and d.startswith("python=")
    )
    # The conda buildpack read our file through the symlink: it picked our Python.
    assert f"Building conda environment for {python}" in build_plan
    assert re.search(r"^COPY .*src/binder/environment\.yml ", build_plan, re.M), build_plan
    assert re.search(r'env update .*--file "binder/environment\.yml"', build_plan), build_plan


def test_plan_runs_postbuild_and_ignores_root_level_config(build_plan):
    assert re.search(r"^RUN \./binder/postBuild$", build_plan, re.M), build_plan
    # With binder/ present, repo2docker must not pick up root files (e.g. install pyproject).
    assert "src/environment.yml" not in build_plan
    assert "src/pyproject.toml" not in build_plan


def test_postbuild_is_strict_and_installs_the_package_without_touching_deps():
    post = ROOT / "binder" / "postBuild"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable (git mode 100755)"
    text = post.read_text()
    assert text.startswith("#!/usr/bin/env bash\n") or text.startswith("#!/bin/bash\n")
    assert "set -euo pipefail" in text
    assert re.search(r"^python -m pip install --no-deps -e \.$", text, re.M)


def test_postbuild_installs_autograd_viz_into_a_fresh_environment(tmp_path):
    # What Binder does after the conda env exists: run postBuild from the repo root with the
    # env's python first on PATH. Here the env is a scratch venv that can see our packages.
    env_dir = tmp_path / "env"
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    bin_dir = env_dir / "bin"
    # the Binder env has Jupyter on PATH: ours stands in for it, after the scratch env
    jupyter_bin = Path(sys.executable).parent
    path = os.pathsep.join([str(bin_dir), str(jupyter_bin), os.environ["PATH"]])
    data_dir = tmp_path / "jupyter-data"  # where `jupyter trust` keeps its signatures
    proc = subprocess.run(
        ["bash", "binder/postBuild"], cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "PATH": path, "PIP_NO_INPUT": "1", "JUPYTER_DATA_DIR": str(data_dir)},
        timeout=300, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"postBuild failed:\n{proc.stdout}\n{proc.stderr}"
    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import autograd_viz; print(autograd_viz.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, check=True,
    ).stdout.strip()
    assert Path(where).resolve() == (ROOT / "autograd_viz" / "__init__.py").resolve()
    shutil.rmtree(env_dir)

    # every committed notebook is trusted, so its drawings and players show before a re-run
    notary = NotebookNotary(data_dir=str(data_dir))
    untrusted = [
        p.name for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
        if not notary.check_signature(nbformat.read(p, as_version=4))
    ]
    assert not untrusted, f"postBuild left these notebooks untrusted: {untrusted}"


def _binder_links(readme: str) -> list[str]:
    return re.findall(r"https://mybinder\.org/v2/[^\s)\"'`]+", readme)


def test_readme_binder_badge_opens_jupyterlab_on_the_start_notebook():
    links = _binder_links((ROOT / "README.md").read_text())
    assert links, "README.md has no mybinder.org badge link"
    for link in links:
        url = urlparse(link)
        assert re.fullmatch(r"/v2/gh/[\w.-]+/[\w.-]+/[\w.-]+", url.path), (
            f"Binder link {link} should be /v2/gh/OWNER/REPO/REF"
        )
        query = parse_qs(url.query)
        assert "labpath" not in query, f"{link}: use urlpath=lab/tree/..., not labpath"
        assert query.get("urlpath") == [f"lab/tree/{START_NOTEBOOK}"], (
            f"{link}: the badge must open full JupyterLab on the start notebook: "
            f"?urlpath=lab/tree/{START_NOTEBOOK}"
        )
    assert (ROOT / START_NOTEBOOK).is_file(), f"the badge points at {START_NOTEBOOK}, missing"
