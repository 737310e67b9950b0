"""Shared test fixtures: one way to start Debian's Chromium for every browser check.

Playwright cannot download its own browser here, so every test drives
`/usr/bin/chromium` with flags that keep it off the network (the machine has none)
and quiet in a container run as root.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# No test here is timed (benchmarks/ measures speed): a loaded 2-core CI machine must not fail
# a property test because one example stalled past hypothesis's 200 ms default deadline.
settings.register_profile("autograd_viz", deadline=None)
settings.load_profile("autograd_viz")

CHROMIUM = Path(os.environ.get("AUTOGRAD_VIZ_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


# Markers by where a test lives (registered in pyproject.toml): the quick run's -m leaves them out.
_MARKS_BY_FOLDER = {"browser": ("browser",), "smoke": ("browser", "slow"), "lite": ("lite", "slow")}
# whole files that start kernels or tools (a notebook run each): the quick run leaves them out
_SLOW_FILES = {
    "test_notebook_rerun.py",
    "test_binder.py",
    "test_notebooks.py",
    "test_notebook_html.py",
    "test_slides.py",
    "test_notebook_pytorch_optional.py",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests = Path(__file__).resolve().parent
    for item in items:
        path = Path(str(item.path)).resolve()
        marks: set[str] = set()
        if path.suffix == ".ipynb":
            marks |= {"notebooks"}
        elif path.parent.parent == tests:
            marks |= set(_MARKS_BY_FOLDER.get(path.parent.name, ()))
        elif path.parent == tests and path.name in _SLOW_FILES:
            marks |= {"slow"} | ({"notebooks"} if "notebook" in path.name else set())
        if "chromium" in getattr(item, "fixturenames", ()):
            marks.add("browser")
        for mark in sorted(marks):
            item.add_marker(mark)


# ---------------------------------------------------------------- two workers, a file to each
# scripts/test.sh runs pytest-xdist (`-n auto`). A file's tests go to one worker, so a module's
# server, browser and notebook kernel start once, and nbval's cells of one notebook run in order in
# one kernel. The longest parametrized tests (a notebook or a deck each, minutes in all) are dealt
# out to two units instead, so both workers share them; each unit starts its own server and browser
# once. (tests/lite/conftest.py builds the JupyterLite site once for all workers.)
_SPREAD = {
    "test_every_cell_gives_the_same_text_when_run_again",  # tests/test_notebook_rerun.py
    "test_every_deck_fits_the_projector_presented_as_it_opens",  # tests/smoke/test_slideshow.py
    "test_notebook_runs_in_the_browser_offline",  # tests/lite/test_lite_site.py
}


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):
        """xdist's scope scheduling, with a file (or a half of a _SPREAD test) as the scope."""

        def __init__(self, config: pytest.Config, log: object) -> None:
            super().__init__(config, log)
            self._units: dict[str, str] = {}
            self._dealt: dict[str, int] = {}

        def _split_scope(self, nodeid: str) -> str:
            if nodeid not in self._units:
                path, _, rest = nodeid.partition("::")
                function = rest.split("[", 1)[0]
                unit = path
                if function in _SPREAD:
                    self._dealt[function] = self._dealt.get(function, -1) + 1
                    unit = f"{path}::{function}[{self._dealt[function] % 2}]"
                self._units[nodeid] = unit
            return self._units[nodeid]

    return ByFile(config, log)


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    """A headless Chromium (a Playwright Browser), shared by the tests of one module."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `bash scripts/setup.sh test` (installs chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


# ---------------------------------------------------------------- where the time goes
# Each file's time (setup, call and teardown of its tests, fixtures included) is printed at the
# end of every run beside pytest's --durations, so CI's log shows which module a slowdown is in.
_FILE_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = report.nodeid.split("::", 1)[0]
    _FILE_SECONDS[path] = _FILE_SECONDS.get(path, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not _FILE_SECONDS:
        return
    terminalreporter.section("time per file (setup + call + teardown)")
    ranked = sorted(_FILE_SECONDS.items(), key=lambda item: -item[1])
    for path, seconds in ranked[:30]:
        terminalreporter.write_line(f"{seconds:8.1f} s  {path}")
    rest = ranked[30:]
    if rest:
        terminalreporter.write_line(f"{sum(s for _, s in rest):8.1f} s  {len(rest)} other files")
    terminalreporter.write_line(f"{sum(_FILE_SECONDS.values()):8.1f} s  in all")
