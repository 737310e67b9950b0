"""The module paths from before the package's folders followed the pipeline
(`autograd_viz.viz.player`, `autograd_viz.engines.read`, `autograd_viz.grading`, ...) still import,
as the very module each became, with a DeprecationWarning that names the new path — so a
teacher's script, a saved notebook or `python -m autograd_viz.viz.slides` from an older guide
keeps working; `autograd_viz/__init__.py` puts `Finder` first on `sys.meta_path` (it answers
only the old paths, so `autograd_viz.viz.render` is never found again on disk as a second copy).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import warnings
from types import ModuleType

_PACKAGE = "autograd_viz"
# new folder: the modules that moved into it from the top of the package, unchanged in name
_FROM_THE_TOP = {
    "open": "door size",
    "core": "ops errors _equations _numbers _text _checks _files time_limits _watch naming steps "
    "chain_rule derive tensor_chain",
    "course": "_card code_checks class_checks number_checks graph_answers number_answers _verdict "
    "grading answer_reading method_parents teacher teacher_key answers class_table",
    "playground": "expression expression_parser expression_tree",
}
# new folder: the modules that moved into it from `viz/`
_FROM_VIZ = {
    "view": "render dot collapse mark drawing layout svg wasm palette options entry frames "
    "frame_svg frame_slots network steptable advice ask quiz_sheet quiz_hints explore_inputs",
    "front": "player quiz explore inline side_by_side training page static",
    "exports": "animation filmstrip compose notebook_html slides worksheet",
    "core": "outpath",
}
_ENGINES = "check diagnose findings forward node ops probe read replay run torch_graph torch_run "
_ENGINES += "torch_scalars torch_tensors"

MOVED = {
    "viz": "view",
    "viz.api": "api",
    "viz.export": "export",  # the exports' public names, gathered at the top before the move
    "engines": "open.engines",
    "graph": "open.snapshot",  # snapshot; the Graph itself is in core.graph (imported there)
    **{m: f"{folder}.{m}" for folder, ms in _FROM_THE_TOP.items() for m in ms.split()},
    **{f"viz.{m}": f"{folder}.{m}" for folder, ms in _FROM_VIZ.items() for m in ms.split()},
    **{f"engines.{m}": f"open.engines.{m}" for m in _ENGINES.split()},
}
# old path: the names that left its module for another one (the new path, from the package)
NAMES_MOVED = {
    "graph": {"Edge": "core.graph", "CycleError": "core.errors"},
    "size": dict.fromkeys(("LayoutWork", "MAX_LAYOUT_WORK", "layout_work"), "view.layout"),
    "viz.ask": {"ask_table": "api"},
    # the public calls that open a Value, which left the modules below for the entries
    "viz.frames": {"Frames": "frames"},
    "viz.player": {"Player": "player"},
    "viz.quiz": {"quiz": "api"},
    "viz.explore": {"explore": "api"},
    "viz.side_by_side": {"side_by_side": "api"},
    "viz.animation": dict.fromkeys(("save_gif", "save_svg_animation", "svg_animation"), "export"),
    "viz.filmstrip": {"filmstrip": "export"},
    "viz.page": dict.fromkeys(("save_html", "standalone_html"), "export"),
    "viz.worksheet": dict.fromkeys(("save_worksheet", "worksheet"), "export"),
    # ... and in the restructuring before it
    "viz.render": dict.fromkeys(("draw", "roles", "to_dot"), "api"),
    "viz.network": {"frame_advice": "view.advice"},
    "viz.compose": {"frames_of": "view.frames"},
    "engines.read": dict.fromkeys(
        ("LABEL_NAMES", "LOCAL_NAMES", "LOOKS_FOR", "OPERAND_NAMES", "OP_NAMES"),
        "open.engines.node",
    ),
    "engines.run": dict.fromkeys(
        ("CodeTimeoutError", "call_with_time_limit", "code_time_limit", "shallow_stack"),
        "core.time_limits",
    ),
}


class Finder(importlib.abc.MetaPathFinder):
    """Finds an old path of `MOVED` as the module it became."""

    def find_spec(self, name, path=None, target=None):
        if not name.startswith(_PACKAGE + "."):
            return None
        new = MOVED.get(name[len(_PACKAGE) + 1 :])
        if new is None:
            return None
        found = importlib.util.find_spec(f"{_PACKAGE}.{new}")
        split = name == f"{_PACKAGE}.viz"  # its modules went to view/, front/ and exports/
        moved = NAMES_MOVED.get(name[len(_PACKAGE) + 1 :], {})
        return importlib.util.spec_from_loader(
            name,
            _Alias(found, split, moved),
            origin=found.origin,
            is_package=found.submodule_search_locations is not None,
        )


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module it became: the same object, imported once. An old path
    that no one module stands for is a module of its own, whose names are looked up in the new
    one: the old folder whose modules now sit in several folders (`split`: `autograd_viz.viz`;
    then also as old paths), or an old module some of whose names (`moved`) went elsewhere."""

    def __init__(self, spec, split: bool = False, moved: dict[str, str] | None = None) -> None:
        self.spec = spec
        self.split = split
        self.moved = moved or {}

    def create_module(self, spec) -> ModuleType:
        warnings.warn(
            f'{spec.name} is now {self.spec.name} (docs/architecture.md, "The folders"); '
            "the old path will stop working in a later release",
            DeprecationWarning,
            stacklevel=2,
        )
        new = importlib.import_module(self.spec.name)
        if not (self.split or self.moved):
            return new
        old = ModuleType(spec.name, new.__doc__)
        if self.split:
            old.__path__ = []  # its modules are found by their old paths (`Finder`)
        else:
            old.__all__ = [*getattr(new, "__all__", ()), *self.moved]

        def name_in_it(name: str) -> object:
            if name in self.moved:
                return getattr(importlib.import_module(f"{_PACKAGE}.{self.moved[name]}"), name)
            try:
                return getattr(new, name)
            except AttributeError:
                pass
            if self.split:
                try:
                    return importlib.import_module(f"{spec.name}.{name}")
                except ModuleNotFoundError:
                    pass
            raise AttributeError(f"module {spec.name!r} has no attribute {name!r}") from None

        old.__getattr__ = name_in_it
        return old

    def exec_module(self, module: ModuleType) -> None:
        if module.__name__ == self.spec.name:  # the new module itself, not one of its own
            module.__spec__ = self.spec  # the import system set the old path's spec on it

    def get_code(self, name: str):  # `python -m` an old path runs the new module's code
        return self.spec.loader.get_code(self.spec.name)
