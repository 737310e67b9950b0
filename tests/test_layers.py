"""The layers import only downwards: engine <- nn; engine <- graph <- trace <- viz (never nn).

Each load check runs in a fresh interpreter, so what one import pulls in is seen exactly;
the import graph checks read every module's source, imports inside functions included.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import autograd_viz

# every module of the viewers (the View, the front ends, the exports), found on disk so a new one
# is checked too
VIEWERS = ("view", "front", "exports")
VIZ = sorted(
    f"autograd_viz.{folder}.{path.stem}"
    for folder in VIEWERS
    for path in (Path(autograd_viz.__file__).parent / folder).glob("*.py")
    if path.stem != "__init__"
)


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize(
    "module",
    [*VIZ, "autograd_viz.render", "autograd_viz.trace", "autograd_viz.core.derive",
     "autograd_viz.core.graph"],
)
def test_viewers_and_the_snapshot_never_import_nn(module):
    loaded = _loaded_after(f"import {module}")
    assert module in loaded and "autograd_viz.nn" not in loaded


@pytest.mark.parametrize(
    "module", ["autograd_viz.trace", "autograd_viz.core.graph", "autograd_viz.core.ops"]
)
def test_below_the_viewers_nothing_imports_a_viewer(module):
    loaded = _loaded_after(f"import {module}")
    assert not {m for m in loaded if m.split(".")[1:2] in (["view"], ["front"], ["export"])}
    assert "ipywidgets" not in loaded


@pytest.mark.parametrize(
    "statement",
    [
        "import autograd_viz.trace",
        "from autograd_viz import Value; from autograd_viz.trace import trace; "
        "x = Value(2.0); trace((x + 1) * x)",
    ],
)
def test_a_derivation_of_our_value_loads_none_of_the_other_engines_openers(statement):
    loaded = _loaded_after(statement)
    assert "autograd_viz.trace" in loaded
    assert not {m for m in loaded if m.startswith("autograd_viz.open.engines")}


@pytest.mark.parametrize(
    "module", ["autograd_viz.api", "autograd_viz.view.render", "autograd_viz.core.time_limits"]
)
def test_drawing_our_value_loads_none_of_the_other_engines_readers(module):
    """`draw`, `animate` and `quiz` of our Value need no other engine's code: the readers load
    when such a graph arrives. (viz.api loaded open/engines/run.py for its default timeout, and with
    it the node reader and the op spellings, before the time limit had its own module.)"""
    loaded = _loaded_after(f"import {module}")
    assert module in loaded
    assert not {m for m in loaded if m.startswith("autograd_viz.open.engines")}


def test_the_top_level_names_still_import_and_nn_loads_on_first_use():
    loaded = _loaded_after("from autograd_viz import MLP, Neuron, Parameter, Value, gradcheck")
    assert "autograd_viz.nn" in loaded and "ipywidgets" not in loaded
    assert "autograd_viz.nn" not in _loaded_after("from autograd_viz import Value")


@pytest.mark.parametrize(
    "module",
    [
        "autograd_viz.course.answers",
        "autograd_viz.classroom",
        "autograd_viz.course.class_table",
        "autograd_viz.course.teacher_key",
    ],
)
def test_the_class_answers_need_only_the_standard_library(module):
    """Recording runs inside exercises (which build on the engine only) and the teacher's
    command on a machine without widgets: beyond the package itself, nothing but Python."""
    base = _loaded_after("import autograd_viz")
    extra = _loaded_after(f"import {module}") - base
    ours = {m for m in extra if m.startswith("autograd_viz")}
    # _files: the all-or-nothing writer of the teacher's CSV, itself only the standard library;
    # class_table: the teacher's table written as text or CSV
    allowed = {"course", "course.answers", "classroom", "course.class_table", "course.teacher_key",
               "core", "core._files"}  # fmt: skip
    assert ours <= {f"autograd_viz.{name}" for name in allowed}
    assert "ipywidgets" not in extra and "numpy" not in extra


# ---- every import, inside functions too -------------------------------------------------------

PACKAGE = Path(autograd_viz.__file__).parent
# The one documented import up the layers: `Value.draw()` / `Value.animate()` load the viewers
# lazily, from one module, so `from autograd_viz import Value` stays light (DESIGN.md).
CONVENIENCE = {("autograd_viz.engine", "autograd_viz.api")}


def _module_names() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "vendor" in path.parts:
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(path: Path, modules: dict[str, Path], *, typing: bool = False) -> set[str]:
    """The package modules `path` imports anywhere — at the top, inside functions, on error
    paths — except under `if TYPE_CHECKING:` (never run), unless `typing`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for statement in block.body
        for node in ast.walk(statement)
    }
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only and not typing:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:  # `from autograd_viz.view import api` imports a module
                full = f"{node.module}.{a.name}"
                out.add(full if full in modules else node.module)
    return {m for m in out if m in modules}


def _graph(*, typing: bool = False) -> dict[str, set[str]]:
    modules = _module_names()
    return {name: _imports(path, modules, typing=typing) - {name} for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on, stack, out = set(), [], []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_the_function_level_import_graph_has_no_cycle_but_the_documented_convenience():
    graph = _graph()
    assert len(graph) > 40
    for module, target in CONVENIENCE:
        graph[module].discard(target)
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    source = "def f():\n    from autograd_viz.view import render\n"
    path = Path(__file__).parent / "_layers_probe.py"
    try:
        path.write_text(source, encoding="utf-8")
        assert _imports(path, _module_names()) == {"autograd_viz.view.render"}
    finally:
        path.unlink()


BELOW_THE_VIEWERS = ("autograd_viz.engine", "autograd_viz.trace", "autograd_viz.open",
                     "autograd_viz.core")  # fmt: skip
THE_VIEWERS = ("autograd_viz.api", *(f"autograd_viz.{folder}" for folder in VIEWERS))


def test_function_level_imports_keep_the_layer_rules():
    """What `test_below_the_viewers_nothing_imports_a_viewer` checks at import time, for
    every import anywhere in the module: below the viewers nothing reaches up into
    `autograd_viz.view` (but the engine's documented convenience), and no viewer imports nn."""
    graph = _graph()
    engine = graph["autograd_viz.engine"] - {"autograd_viz._value_protocols",
                                             "autograd_viz.core.errors"}  # fmt: skip
    assert {("autograd_viz.engine", m) for m in engine} == CONVENIENCE  # one module, no other
    for module, targets in graph.items():
        up = {t for t in targets if t.startswith(THE_VIEWERS)}
        if module.startswith(BELOW_THE_VIEWERS):
            allowed = {t for m, t in CONVENIENCE if m == module}
            assert up <= allowed, f"{module} imports {sorted(up - allowed)}"
        if module.startswith((*THE_VIEWERS, "autograd_viz.core.graph", "autograd_viz.trace")):
            assert "autograd_viz.nn" not in targets, module


def test_every_subpackage_ships_in_the_wheel():
    """A subpackage left out of the wheel breaks the browser edition, which installs that
    wheel: pyproject finds the packages by pattern, and every folder must match it."""
    import tomllib
    from setuptools import find_packages

    find = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"
    ]["find"]
    shipped = set(find_packages(str(PACKAGE.parent), include=find["include"]))
    found = {
        ".".join(path.parent.relative_to(PACKAGE.parent).parts)
        for path in PACKAGE.rglob("__init__.py")
    }
    assert len(found) >= 8 and found <= shipped, sorted(found - shipped)


def test_every_module_says_what_it_is_for_in_one_paragraph():
    """The style guide's module docstring: one paragraph (a doctest may follow it)."""
    import ast

    long = []
    for path in sorted(Path(autograd_viz.__file__).parent.rglob("*.py")):
        if "vendor" in path.parts:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        blocks = [b for b in doc.split("\n\n") if b.strip() and not b.lstrip().startswith(">>>")]
        if len(blocks) != 1:
            long.append(f"{path.name}: {len(blocks)} paragraphs")
    assert not long


def _top_level_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules `path` imports when it is imported: the statements at its top
    level (in `try` and `if` blocks too, but not under `if TYPE_CHECKING:`), not inside
    functions."""
    statements = list(ast.parse(path.read_text(encoding="utf-8")).body)
    out = set()
    while statements:
        node = statements.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            statements += node.orelse
        elif isinstance(node, (ast.If, ast.Try)):
            statements += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                out.add(full if full in modules else node.module)
    return {m for m in out if m in modules}


def _longest_chain(graph: dict[str, set[str]]) -> list[str]:
    """The longest path of imports in an acyclic graph (the modules, importer first)."""
    best: dict[str, list[str]] = {}
    for start in sorted(graph):
        stack = [(start, False)]
        while stack:
            v, done = stack.pop()
            if v in best:
                continue
            if done:
                under = [best[w] for w in sorted(graph[v])]
                best[v] = [v, *max(under, key=len, default=[])]
            else:
                stack.append((v, True))
                stack += [(w, False) for w in graph[v] if w not in best]
    return max(best.values(), key=len)


def test_the_longest_module_level_import_chain_is_at_most_eight_imports():
    """A newcomer follows a layer down in a few steps: importing any module sets off at most
    8 nested imports of the package's modules (it was 12: export → viz.export → page →
    compose → frames → network → trace → chain_rule → steps → graph → ops → _equations →
    _numbers, before the derivation's core left its entry and the readers left graph.py)."""
    modules = _module_names()
    graph = {name: _top_level_imports(path, modules) - {name} for name, path in modules.items()}
    assert _cycles(graph) == []
    chain = _longest_chain(graph)
    assert len(chain) - 1 <= 8, " → ".join(chain)
    assert _longest_chain({"a": {"b"}, "b": {"c"}, "c": set(), "d": {"c"}}) == ["a", "b", "c"]


# ---- who opens a user's graph -----------------------------------------------------------------

OPENERS = {"open_graph", "snapshot", "snapshot_for"}  # the door, and what it calls for our Value
# A user's root is opened by the public call it is handed to, at the top of the package (the
# entries: `api`, `trace`, `export`, and the public classes `autograd_viz.player.Player` and
# `autograd_viz.frames.Frames`), through the door (`open/`); every module in a folder below
# takes the `Graph` its entry opened. (`front.training` snapshots the forward passes it runs
# itself, one per sample and step, from the model it is given.)
OPEN_ALSO = {"autograd_viz.open.door", "autograd_viz.open.snapshot", "autograd_viz.front.training"}


def _calls(path: Path, names: set[str]) -> set[str]:
    """The functions of `names` that the module at `path` calls, by name or as an attribute."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
            if name in names:
                found.add(name)
    return found


def test_only_the_entry_modules_open_a_graph():
    """A layer below the entries never reads a user's graph again (the one door): the
    drawing (`view.render`) had its own public draw that opened it with other defaults than
    `autograd_viz.draw`, the neuron-by-neuron steps (`viz.network`) read a root with
    `snapshot` themselves, with no size check, and `Frames`, the player, the quiz, explore,
    side by side and the worksheet each opened the root they were handed, below the entry."""
    opening = {name for name, path in _module_names().items() if _calls(path, OPENERS)}
    below = {name for name in opening if _folder(name) and name not in OPEN_ALSO}
    assert below == set(), sorted(below)
    assert opening - OPEN_ALSO == {
        "autograd_viz.api", "autograd_viz.export", "autograd_viz.frames", "autograd_viz.player",
        "autograd_viz.trace",
    }  # fmt: skip


# ---- the folders follow the pipeline ---------------------------------------------------------

# What each folder may never import, anywhere in its code (type-only imports too: a type is a
# dependency on its module): the graph is opened (open/) into the Graph of plain numbers the core
# reads (core/); the View (view/) is shown by a front end (front/) or saved by an export
# (exports/); the course's graders and the playground sit on top of what they use.
NEVER = {
    "core": {"open", "view", "front", "exports", "course", "playground"},
    "open": {"view", "front", "exports", "course", "playground"},
    "view": {"open", "front", "exports", "playground"},
    "front": {"exports", "playground"},
    "exports": {"playground"},
    "course": {"exports", "playground"},
}


ALLOWED: set[tuple[str, str]] = set()  # none (`Frames`, in view/, opened a Value; it takes a Graph)


def _folder(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else ""  # "" for the modules at the top


def test_the_folders_import_only_down_the_pipeline():
    """The folders are the design note's pipeline, so a newcomer can read the data's way from
    the tree: nothing imports against it. (The core read the Graph type from the module that
    opened our Value, the View opened graphs for ask-the-graph and the quiz, and the quiz ran
    a learner's methods for its right answers, before each moved.)"""
    against = sorted(
        f"{module} imports {target}"
        for module, targets in _graph(typing=True).items()
        for target in targets
        if _folder(target) in NEVER.get(_folder(module), set())
        and (module, target) not in ALLOWED
    )
    assert against == []
    assert {"core", "open", "view", "front", "exports", "course", "playground"} <= {
        _folder(m) for m in _module_names()
    }


def test_no_module_below_the_entries_imports_one():
    """The entries sit at the edge: a module in a folder that imported one (the quiz's sheet
    took `trace.node_names`, which opens a graph, for the names) reached the door through it.
    The playground sits on top, as a learner's code does, and calls the public ones."""
    entries = {"autograd_viz." + m for m in ("api", "trace", "export", "frames", "player")}
    below = sorted(
        f"{module} imports {target}"
        for module, targets in _graph().items()
        for target in targets & entries
        if _folder(module) not in ("", "playground")
    )
    assert below == []


def test_below_the_entries_a_value_is_refused_with_the_public_call_to_use():
    """What lies below an entry takes the Graph its entry opened: handed a Value, it opens
    nothing (no second door) and says which public call opens one."""
    from autograd_viz import Value
    from autograd_viz.exports.animation import svg_animation
    from autograd_viz.exports.worksheet import worksheet
    from autograd_viz.front.inline import InlinePlayer
    from autograd_viz.front.player import Player
    from autograd_viz.front.quiz import Quiz
    from autograd_viz.view.frames import Frames

    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    below = {
        Frames: "autograd_viz.frames.Frames(root)",
        Player: "autograd_viz.player.Player(root)",
        Quiz: "autograd_viz.quiz(z)",
        InlinePlayer: "autograd_viz.animate(z, widgets=False)",
        worksheet: "autograd_viz.export.worksheet(root)",
        svg_animation: "autograd_viz.export",
    }
    for view, public in below.items():
        with pytest.raises(TypeError, match="opened already") as err:
            view(z)
        assert public in str(err.value), (view, str(err.value))
    assert z.grad == 0 and x.grad == 0  # nothing ran backward on the learner's graph


@pytest.mark.parametrize(
    "words, home",
    [
        ("opened already, got", "core/graph.py"),  # `opened`: the refusal below an entry
        ("must be a positive int", "core/_checks.py"),  # `check_count`; nn.py words its own
    ],
)
def test_a_refusal_said_in_many_places_is_written_once(words, home):
    """The refusal of a Value below an entry and the check of a count (`max_nodes`,
    `max_frames`) are each written once and called where needed, so their wording cannot drift
    apart (`nn.py`, the lesson's engine, keeps its own, which names the layer's argument)."""
    writers = sorted(
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if words in p.read_text(encoding="utf-8") and p.name != "nn.py"
    )
    assert writers == [home], writers
