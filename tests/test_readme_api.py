"""README's API table names only what exists: every dotted name resolves, every Value
method it lists is one, and every keyword it gives a callable is a parameter of it."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import autograd_viz
from autograd_viz import Value

README = Path(__file__).parents[1] / "README.md"


def _api_rows() -> list[str]:
    text = README.read_text(encoding="utf-8")
    table = text.split("| | what it gives you |", 1)[1].split("\n\n", 1)[0]
    return [line for line in table.splitlines() if line.startswith("| `")]


def _resolve(dotted: str) -> object:
    """`autograd_viz.front.training.TrainingView` -> the object: the longest importable
    module prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)


def test_the_api_table_is_there():
    assert len(_api_rows()) >= 10


@pytest.mark.parametrize("row", _api_rows(), ids=lambda row: row.split("`")[1])
def test_every_dotted_name_in_the_api_table_exists(row):
    names = set(re.findall(r"autograd_viz(?:\.\w+)+", row))
    for name in names:
        _resolve(name)


def test_every_value_method_in_the_api_table_exists():
    row = next(r for r in _api_rows() if r.startswith("| `autograd_viz.Value`"))
    methods = re.findall(r"`(\w+)\(\)`", row)
    assert "sin" in methods and "backward" in methods
    assert [m for m in methods if not callable(getattr(Value, m, None))] == []


def test_the_nn_row_names_real_parameters():
    row = next(r for r in _api_rows() if r.startswith("| `autograd_viz.nn`"))
    for call in re.findall(r"`(\w+)\(([^`]*)\)`", row):
        name, args = call
        cls = getattr(autograd_viz.nn, name)
        keywords = re.findall(r"(\w+)=", args)
        params = inspect.signature(cls).parameters
        assert [k for k in keywords if k not in params] == [], name
    assert "act" in inspect.signature(autograd_viz.nn.MLP).parameters


def test_gradcheck_error_is_public_at_the_top_level():
    from autograd_viz import GradcheckError, gradcheck

    assert "GradcheckError" in autograd_viz.__all__
    with pytest.raises(GradcheckError, match="leaves f's domain"):
        gradcheck(lambda a: a.log(), [1e-7])  # the probe 1e-7 - h is below 0
