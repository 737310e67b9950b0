"""The JupyterLite tests: Chromium is the shared `chromium` fixture of tests/conftest.py.

The site is built once a session (`built`, by scripts/lite.sh as the README says; under
pytest-xdist the first worker to need it builds it and the others wait for it) and served once
per worker (`site`), for every module that opens it; the playground's tests reuse that build when
the session makes it anyway, else build the playground alone (seconds).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from static_server import serve

ROOT = Path(__file__).resolve().parents[2]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real Chromium; runs by default")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Keep the call phase's report on the item, so a fixture can screenshot a failing page."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.report_call = report


def _build(out: Path, *flags: str, timeout: int) -> Path:
    subprocess.run(["bash", "scripts/lite.sh", *flags, "--output", str(out)], cwd=ROOT,
                   check=True, stdin=subprocess.DEVNULL, timeout=timeout)  # fmt: skip
    return out


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built by scripts/lite.sh as the README says (into a temporary folder), once a
    run: pytest-xdist's workers share their run's temporary folder, and a lock on it makes the
    first worker build while the others wait, then read the same site."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out, done = shared / "lite-site", shared / "lite-site.built"
    with (shared / "lite-site.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            _build(out, timeout=1500)
            done.touch()
    return out


@pytest.fixture(scope="session")
def site(built: Path) -> Iterator[str]:
    """The built site, served on 127.0.0.1 (no trailing slash)."""
    with serve(built, name="lite-site") as url:
        yield url


@pytest.fixture(scope="session")
def playground_built(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A site with the playground: the whole site's build when this session makes it for other
    tests (it writes the same playground), else `lite.sh --playground-only` (seconds)."""
    if any("built" in item.fixturenames for item in request.session.items):
        return request.getfixturevalue("built")
    return _build(tmp_path_factory.mktemp("lite") / "site", "--playground-only", timeout=900)
