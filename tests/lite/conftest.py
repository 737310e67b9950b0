"""The JupyterLite tests: Chromium is the shared `chromium` fixture of tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real Chromium; runs by default")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Keep the call phase's report on the item, so a fixture can screenshot a failing page."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.report_call = report
