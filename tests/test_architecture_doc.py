"""docs/architecture.md describes the package as it is: every module file is named there."""

from __future__ import annotations

import re
from pathlib import Path

import autograd_viz

PACKAGE = Path(autograd_viz.__file__).parent
DOC = PACKAGE.parent / "docs" / "architecture.md"


def test_every_module_of_the_package_is_named_in_the_architecture_doc():
    doc = DOC.read_text(encoding="utf-8")
    modules = [
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "__init__.py" and "vendor" not in path.parts
    ]
    assert "viz/render.py" in modules and "graph.py" in modules
    # "render.py" alone must be named too, not only inside "viz/render.py"
    missing = [m for m in modules if not re.search(rf"(?<![\w/]){re.escape(m)}", doc)]
    assert missing == [], f"say in docs/architecture.md where these sit: {missing}"
