"""Every docstring example in the package runs and shows what it says: a module, class or
function whose example went stale (a renamed call, a changed number) fails here by name."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import autograd_viz

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(autograd_viz.__path__, "autograd_viz.")
    if ".vendor" not in m.name and m.name != "autograd_viz._pyodide"
)


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_hold(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes files (or moves) leaves no trace
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
