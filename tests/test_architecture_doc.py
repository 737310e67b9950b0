"""docs/architecture.md describes the package as it is: every module file is named there, by its
path or in the folder tree of "The folders"."""

from __future__ import annotations

import re
from pathlib import Path

import autograd_viz

PACKAGE = Path(autograd_viz.__file__).parent
DOC = PACKAGE.parent / "docs" / "architecture.md"


def _folder_tree(doc: str) -> set[str]:
    """The module paths the folder tree names: a line `  core/  ops.py ...` and the lines
    indented under it name files of `core/`; the lines before the first folder, the top's."""
    block = doc.split("## The folders", 1)[1].split("```", 2)[1]
    named, folder = set(), ""
    for line in block.splitlines():
        start = re.match(r"  (\w+/)\s", line)
        if start:
            folder = start.group(1)
        named |= {folder + name for name in re.findall(r"(?<![\w/])(\w+\.py)\b", line)}
    return named


def test_every_module_of_the_package_is_named_in_the_architecture_doc():
    doc = DOC.read_text(encoding="utf-8")
    modules = [
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "__init__.py" and "vendor" not in path.parts
    ]
    assert "view/render.py" in modules and "open/snapshot.py" in modules
    tree = _folder_tree(doc)
    assert {"engine.py", "core/ops.py", "view/render.py"} <= tree
    # "render.py" alone must be named too, not only inside "view/render.py"
    missing = [
        m for m in modules if m not in tree and not re.search(rf"(?<![\w/]){re.escape(m)}", doc)
    ]
    assert missing == [], f"say in docs/architecture.md where these sit: {missing}"


def test_the_folder_tree_reads_a_file_under_the_folder_it_is_listed_in():
    doc = "## The folders\n```\nautograd_viz/\n  engine.py\n  core/  ops.py\n       steps.py\n```\n"
    assert _folder_tree(doc) == {"engine.py", "core/ops.py", "core/steps.py"}
