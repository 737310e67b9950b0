"""Build the JupyterLite edition of the course into `_site/` (run by `bash scripts/lite.sh`).

Everything the site needs comes from pinned packages and nothing at run time leaves it, except
Pyodide's compiled packages (numpy, matplotlib) that no registry here serves:

- Pyodide 314.0.6 and Graphviz-WASM come from npm (`lite/package.json`, installed by `npm ci`).
- The Pyodide lock file is rewritten so the pure-Python packages the kernel and the course
  import (micropip, IPython, jedi, sympy, ...) load from wheels in the site, downloaded from
  PyPI at exactly the versions the lock names; autograd_viz, ipywidgets and comm get entries
  of their own, so `import autograd_viz` in a notebook installs it like any Pyodide package.
  Every other entry points at Pyodide's CDN by absolute URL: the one place the deployed site
  talks to the network (only when a notebook imports numpy or matplotlib).
- autograd_viz is built as a wheel with Graphviz-WASM inside it as package data, so drawing in
  the browser needs no request of its own.
- The kernel's own wheels (piplite, pyodide-kernel, its ipykernel shim) get lock entries too, so
  the kernel loads them, IPython, jedi and the kit all at once as Pyodide starts (the
  `loadPyodideOptions` of lite/jupyter-lite.json, the kernel's own setting), instead of
  installing them one after another with micropip; and the site's wheels carry Pyodide's
  bytecode for every module the kernel imports at start and for the kit (compile_start.mjs,
  playground/compile_pyc.mjs), so the browser does not compile them. In a browser with
  WebAssembly stack switching the kernel does not even start Python: it restores a snapshot
  of it made here (kernel_snapshot.py, kernel.mjs), those modules and the kit imported.
- Why by hand and not with the kernel's lock add-on (`jupyter lite build --pyodide-lock`): it
  solves with uv against PyPI with every entry of Pyodide's lock pinned to its URL on Pyodide's
  CDN, and leaves the lock's own packages there; the site serves them from PyPI's wheels, and
  a build here cannot reach that CDN.
- `jupyter lite build` (jupyterlite-core 0.8.6 with the Pyodide kernel 0.8.6) then assembles
  JupyterLab, the widgets front end, jupyterlab-slideshow (live slides), the site's own
  extension (lite/start_kernel/: the kernel of the notebook in the URL starts as JupyterLab
  starts, beside the rest of its start-up) and the notebooks with their saved outputs. It
  leaves out JupyterLab's log console (`disabledExtensions` in lite/jupyter-lite.json): the
  Pyodide kernel's plugin waits for it, and it for the notebook's plugins, so with it the
  kernel could start only once most of JupyterLab had (benchmarks/lite_cold_start.py). It
  leaves out, too, the plugins the course never uses (help, LSP, terminals, the settings
  editor, the workspaces sidebar, the plugin manager, viewers of PDF, CSV, audio, video,
  Vega and Mermaid): each is activated, its settings read and checked, as JupyterLab starts.
- The playground (`lite/playground/` -> `_site/playground/`): one page, no JupyterLab, that
  loads the same Pyodide and the same wheel from `static/pyodide/` (`--playground-only`
  rebuilds just that page and the runtime, in seconds, for its tests and benchmark).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import kernel_snapshot  # lite/kernel_snapshot.py
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

LITE = Path(__file__).resolve().parent
ROOT = LITE.parent
NODE_MODULES = LITE / "node_modules"
PYODIDE_NPM = NODE_MODULES / "pyodide"
GRAPHVIZ_JS = NODE_MODULES / "@hpcc-js" / "wasm-graphviz" / "dist" / "index.js"
GRAPHVIZ_LICENSE = NODE_MODULES / "@hpcc-js" / "wasm-graphviz" / "LICENSE"
# What one build makes that the next can reuse, kept per user as pip and npm keep theirs, so a
# new clone (CI's, a contributor's second) does not download the wheels or compile the kernel's
# bytecode again; every entry is named by what it was made from. AUTOGRAD_VIZ_LITE_CACHE moves it.


def _cache_root() -> Path:
    """AUTOGRAD_VIZ_LITE_CACHE, else XDG's cache folder; where that cannot be written (no home
    folder, a read-only one), the clone's own lite/.cache, as before."""
    chosen = os.environ.get("AUTOGRAD_VIZ_LITE_CACHE") or os.environ.get("XDG_CACHE_HOME")
    try:
        root = Path(chosen or Path.home() / ".cache")
        if not os.environ.get("AUTOGRAD_VIZ_LITE_CACHE"):
            root = root / "autograd_viz" / "lite"
        root.mkdir(parents=True, exist_ok=True)
        return root
    except (OSError, RuntimeError) as err:  # RuntimeError: Path.home() with no home
        print(f"[lite] note: the build's cache stays in lite/.cache ({err})")
        return LITE / ".cache"


CACHE_ROOT = _cache_root()
CACHE = CACHE_ROOT / "wheels"
BYTECODE_CACHE = CACHE_ROOT / "bytecode"  # compile_start.mjs's zips, by what they compiled
STAGE = LITE / ".build"

PYODIDE_VERSION = "314.0.6"
PYODIDE_CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
# The files of the npm package that a browser loads (no sourcemaps, typings or Node helpers).
PYODIDE_RUNTIME = [
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
]
# Where autograd_viz finds Graphviz-WASM inside its own package (see autograd_viz/view/layout.py).
WASM_IN_PACKAGE = Path("autograd_viz") / "view" / "graphviz_wasm.js"

# Pure-Python packages served from the site, with everything they depend on in the lock:
# what the Pyodide kernel installs at start (micropip, IPython, jedi), what the course imports.
OFFLINE_ROOTS = ["micropip", "ipython", "jedi", "sympy"]
# Not in Pyodide's lock; pinned here. ipywidgets matches the site's front end (jupyterlab_widgets
# 3.0.17 in lite/requirements.txt); comm is what the Pyodide kernel installs for widgets.
# anywidget (explore(), the player) with psygnal, its one dependency Pyodide lacks (psygnal's
# py3-none-any wheel: pure Python); typing-extensions, its other one, is in Pyodide's lock.
EXTRA_WHEELS = {"comm": "0.2.3", "ipywidgets": "8.1.9", "anywidget": "0.11.0", "psygnal": "0.16.1"}
EXTRA_DEPENDS = {
    "comm": ["traitlets"],
    "ipywidgets": ["comm", "ipython", "traitlets"],
    "anywidget": ["ipywidgets", "psygnal", "typing-extensions"],
    "psygnal": [],
}
# What the widgets of the package import: served from the site, with the course's packages.
ANYWIDGET_ROOTS = ["typing-extensions"]
# The Pyodide kernel's own wheels (piplite, its ipykernel shim, pyodide-kernel), as its lab
# extension ships them; they get lock entries, so the kernel can load them with the rest.
KERNEL_PYPI = (Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyterlite"
               / "pyodide-kernel-extension" / "static" / "pypi")  # fmt: skip
KERNEL_WHEELS = ["piplite", "ipykernel", "pyodide-kernel"]
# Front-end (lab) extensions the site ships beside the widgets front end, from their PyPI wheels:
# jupyterlab-slideshow's deck mode (live slides over the notebook, widgets still live) and the
# font extension it needs. Passed to `jupyter lite build` as federated extensions, so the build
# tools' venv does not have to install JupyterLab, which jupyterlab-fonts requires.
# anywidget's front end (its labextension, inside its wheel) renders every anywidget in the site.
LAB_EXTENSIONS = ["jupyterlab-slideshow==0.3.4", "jupyterlab-fonts==3.0.0", "anywidget==0.11.0"]
# The site's own extension (no build step: one hand-written script): it starts the kernel of the
# notebook in the URL as JupyterLab starts, not once that notebook is open (see its comments).
START_KERNEL = LITE / "start_kernel"

NOTEBOOK_START = "00_start_here.ipynb"

PLAYGROUND = LITE / "playground"
# The page's own files; index.html and sw.js get the wheel's name, the sizes and a version.
PLAYGROUND_FILES = ["index.html", "playground.js", "playground.css", "sw.js", "snapshot.js"]
GRAPHVIZ_FILE = "graphviz_wasm.js"  # Graphviz-WASM, loaded by the page beside Python
PYC_ZIP = "autograd_viz-pyc.zip"  # the kit's modules as Pyodide's bytecode (compile_pyc.mjs)
FILES_BUNDLE = "autograd_viz.files"  # the kit's files, written into site-packages by the page
SNAPSHOT_FILE = "python.snapshot"  # Python just started (make_snapshot.mjs)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(*command: str | Path, cwd: Path = ROOT, env: dict | None = None) -> None:
    subprocess.run([str(c) for c in command], cwd=cwd, check=True, stdin=subprocess.DEVNULL,
                   env=env and {**os.environ, **env})  # fmt: skip


def _closure(packages: dict, roots: list[str]) -> list[str]:
    """The roots and everything they depend on in the lock, in a stable order."""
    seen: list[str] = []
    todo = list(roots)
    while todo:
        name = canonicalize_name(todo.pop(0))
        if name in seen:
            continue
        if name not in packages:
            raise SystemExit(f"lite/build.py: '{name}' is not in Pyodide's lock file")
        seen.append(name)
        todo += packages[name]["depends"]
    return seen


def _download(specs: list[str]) -> dict[str, Path]:
    """Download pure-Python wheels from PyPI (cached in CACHE_ROOT/wheels); {name: wheel}."""
    CACHE.mkdir(parents=True, exist_ok=True)
    wanted = {canonicalize_name(s.split("==")[0]): s.split("==")[1] for s in specs}

    def cached() -> dict[str, Path]:
        found = {}
        for wheel in CACHE.glob("*.whl"):
            name, version = wheel.name.split("-")[:2]
            if wanted.get(canonicalize_name(name)) == version:
                found[canonicalize_name(name)] = wheel
        return found

    missing = [f"{n}=={v}" for n, v in wanted.items() if n not in cached()]
    if missing:
        print(f"[lite] downloading {len(missing)} pure-Python wheels from PyPI")
        _run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--only-binary=:all:", "--platform", "any", "--python-version", "3.14",
             "--dest", CACHE,
             *missing)  # fmt: skip
    found = cached()
    if missing := sorted(set(wanted) - set(found)):
        raise SystemExit(f"lite/build.py: no pure-Python wheel for {missing} on PyPI")
    return found


def _build_package_wheel(out: Path) -> Path:
    """autograd_viz as a wheel, with Graphviz-WASM inside it as package data; the same bytes
    from the same sources (SOURCE_DATE_EPOCH), so the kernel's snapshot is made once."""
    src = STAGE / "package"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "autograd_viz", src / "autograd_viz",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))  # fmt: skip
    # pyproject's data-files (JupyterLab settings defaults) must exist for the wheel to build
    shutil.copytree(ROOT / "jupyter-config", src / "jupyter-config")
    (src / WASM_IN_PACKAGE).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(GRAPHVIZ_JS, src / WASM_IN_PACKAGE)
    shutil.copy2(GRAPHVIZ_LICENSE, (src / WASM_IN_PACKAGE).with_suffix(".LICENSE"))
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", out, src, env={"SOURCE_DATE_EPOCH": "315532800"})  # fmt: skip
    (wheel,) = out.glob("autograd_viz-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        if WASM_IN_PACKAGE.as_posix() not in archive.namelist():
            raise SystemExit(
                f"lite/build.py: the wheel lacks {WASM_IN_PACKAGE}: add it to "
                "[tool.setuptools.package-data] in pyproject.toml"
            )
    return wheel


def _wheel_requirements(wheel: Path) -> list[str]:
    """The wheel's unconditional requirements, as lock names."""
    with zipfile.ZipFile(wheel) as archive:
        (meta,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(archive.read(meta).decode())
    reqs = [Requirement(line) for line in metadata.get_all("Requires-Dist") or []]
    return [canonicalize_name(r.name) for r in reqs if r.marker is None]


def _top_level(wheel: Path) -> list[str]:
    """The importable names a wheel installs (its top-level packages and modules)."""
    with zipfile.ZipFile(wheel) as archive:
        tops = {n.split("/")[0].removesuffix(".py") for n in archive.namelist()}
    return sorted(t for t in tops if not t.endswith((".dist-info", ".data")))


def _start_packages() -> list[str]:
    """What the kernel loads as Pyodide starts (lite/jupyter-lite.json's loadPyodideOptions)."""
    config = json.loads((LITE / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = config["litePluginSettings"][kernel_snapshot.KERNEL_PLUGIN]
    return kernel["loadPyodideOptions"]["packages"]


def _entry(name: str, version: str, wheel: Path, imports: list[str], depends: list[str]) -> dict:
    return {
        "name": name,
        "version": version,
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": _sha256(wheel),
        "package_type": "package",
        "imports": imports,
        "depends": depends,
        "unvendored_tests": False,
    }


def stage_pyodide() -> list[str]:
    """Pyodide with a lock file whose course packages load from the site itself; returns what
    the kernel imports as it starts (for its snapshot: kernel_snapshot.py)."""
    target = STAGE / "lite" / "static" / "pyodide"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name in PYODIDE_RUNTIME:
        shutil.copy2(PYODIDE_NPM / name, target / name)
    npm_version = json.loads((PYODIDE_NPM / "package.json").read_text())["version"]
    if npm_version != PYODIDE_VERSION:
        raise SystemExit(
            f"lite/build.py: lite/node_modules has Pyodide {npm_version}, not {PYODIDE_VERSION}: "
            "run `npm ci --prefix lite`"
        )
    lock = json.loads((PYODIDE_NPM / "pyodide-lock.json").read_text())
    packages = lock["packages"]

    offline = _closure(packages, OFFLINE_ROOTS + ["traitlets"] + ANYWIDGET_ROOTS)
    specs = [f"{n}=={packages[n]['version']}" for n in offline]
    specs += [f"{n}=={v}" for n, v in EXTRA_WHEELS.items()]
    wheels = _download(specs)

    for name, entry in packages.items():
        if name in offline:
            shutil.copy2(wheels[name], target / wheels[name].name)
            entry["file_name"] = wheels[name].name
            entry["sha256"] = _sha256(wheels[name])
        else:
            entry["file_name"] = PYODIDE_CDN + entry["file_name"]
    for name, version in EXTRA_WHEELS.items():
        shutil.copy2(wheels[name], target / wheels[name].name)
        packages[name] = _entry(name, version, wheels[name], [name], EXTRA_DEPENDS[name])

    ours = _build_package_wheel(target)
    depends = _wheel_requirements(ours)
    if unknown := [d for d in depends if d not in packages]:
        raise SystemExit(
            f"lite/build.py: autograd_viz needs {unknown}, which the site cannot install: "
            "keep the package's core dependencies to what Pyodide's lock and EXTRA_WHEELS have"
        )
    version = ours.name.split("-")[1]
    packages["autograd-viz"] = _entry("autograd-viz", version, ours, ["autograd_viz"], depends)
    for name in KERNEL_WHEELS:
        (wheel,) = KERNEL_PYPI.glob(f"{name.replace('-', '_')}-*-py3-none-any.whl")
        shutil.copy2(wheel, target / wheel.name)
        packages[name] = _entry(name, wheel.name.split("-")[1], wheel, _top_level(wheel),
                                _wheel_requirements(wheel))  # fmt: skip
    start = _start_packages()
    if missing := [n for n in _closure(packages, start) if "://" in packages[n]["file_name"]]:
        raise SystemExit(f"lite/build.py: the kernel would start with {missing} from a CDN")
    (target / "pyodide-lock.json").write_text(json.dumps(lock, sort_keys=True))
    modules = _add_bytecode(target, packages, start)
    (target / "pyodide-lock.json").write_text(json.dumps(lock, sort_keys=True))
    local = [n for n, entry in packages.items() if "://" not in entry["file_name"]]
    print(f"[lite] Pyodide lock: {len(local)} packages served locally")
    return modules


def _add_bytecode(target: Path, packages: dict, start: list[str]) -> list[str]:
    """Pyodide's bytecode beside the sources in the site's wheels: every module the kernel
    imports as it starts (compile_start.mjs; the wheels it went into are cached, by what they
    were made from, in CACHE_ROOT/bytecode) and the kit's modules (compile_pyc.mjs). The
    kernel then imports them without compiling them (benchmarks/lite_cold_start.py). Where
    Node cannot run Pyodide: a warning, and wheels without bytecode."""
    theirs = [name for name in start if name != "autograd-viz"]
    closure = sorted(_closure(packages, theirs))
    key = "".join(f"{n}={packages[n]['sha256']}\n" for n in closure)
    key += (LITE / "compile_start.mjs").read_text()
    cached = BYTECODE_CACHE / hashlib.sha256(key.encode()).hexdigest()[:16]
    if not cached.is_dir():
        partial = cached.with_suffix(f".part{os.getpid()}")  # another build may make it too
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        compiled = partial / "bytecode.zip"
        if _node(LITE / "compile_start.mjs", target, compiled, *theirs, what="kernel's bytecode"):
            for name in closure:
                shutil.copy2(target / packages[name]["file_name"], partial)
                _add_pyc(partial / packages[name]["file_name"], compiled)
            compiled.unlink()
            _into_place(partial, cached)
        shutil.rmtree(partial, ignore_errors=True)
    for wheel in cached.glob("*.whl") if cached.is_dir() else []:
        shutil.copy2(wheel, target / wheel.name)
    if _compile_pyc(STAGE / PYC_ZIP):
        _add_pyc(target / packages["autograd-viz"]["file_name"], STAGE / PYC_ZIP)
    for name in [*closure, "autograd-viz"]:
        packages[name]["sha256"] = _sha256(target / packages[name]["file_name"])
    listed = cached / "modules.json"  # what the kernel imports at start (compile_start.mjs)
    return json.loads(listed.read_text()) if listed.is_file() else []


def _into_place(made: Path, cached: Path) -> None:
    """Move a finished cache entry into place, in one step; another build that made the same
    entry first keeps its own (the same bytes, by their name)."""
    try:
        made.rename(cached)
    except OSError:
        if not cached.is_dir():
            raise


def _add_pyc(wheel: Path, compiled: Path) -> None:
    """Add to `wheel` the .pyc files of `compiled` whose sources it holds."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    with zipfile.ZipFile(compiled) as archive:
        ours = {
            i.filename: archive.read(i)
            for i in archive.infolist()
            if _source_of(i.filename) in names
        }
    if ours:
        _add_to_wheel(wheel, ours)


def _source_of(pyc: str) -> str:
    """`pkg/__pycache__/mod.cpython-314.pyc` -> `pkg/mod.py`."""
    folder, _, name = pyc.rpartition("/__pycache__/")
    return f"{folder}/{name.split('.')[0]}.py" if folder else f"{name.split('.')[0]}.py"


def _add_to_wheel(wheel: Path, files: dict[str, bytes]) -> None:
    """Rewrite `wheel` with `files` added, and listed in its RECORD (no hash, as for .pyc)."""
    new = wheel.with_suffix(".new")
    with zipfile.ZipFile(wheel) as old, zipfile.ZipFile(new, "w", zipfile.ZIP_DEFLATED) as out:
        for info in old.infolist():
            data = old.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                data += "".join(f"{path},,\n" for path in sorted(files)).encode()
            out.writestr(info, data)
        for path, data in sorted(files.items()):
            out.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data,
                         compress_type=zipfile.ZIP_DEFLATED)  # fmt: skip
    new.replace(wheel)


def _trusted_copies(notebooks: list[Path], folder: Path) -> list[Path]:
    """Copies of the course's notebooks whose code cells say they are trusted.

    A Jupyter server vouches for a notebook it signed by marking its cells trusted; a static
    site has no server, so the build marks them (they are ours, as `scripts/lab.sh` trusts
    them). Otherwise JupyterLab hides every saved drawing and player until the cell is run.
    A server also joins the multi-line strings that .ipynb files store as lists of lines;
    JupyterLite serves the file as it is, and a drawing stored as lines would not display.
    """
    folder.mkdir(parents=True, exist_ok=True)
    copies = []
    for nb in notebooks:
        notebook = json.loads(nb.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            cell["source"] = _joined(cell["source"])
            if cell["cell_type"] == "code":
                cell.setdefault("metadata", {})["trusted"] = True
                for output in cell.get("outputs", []):
                    if "text" in output:
                        output["text"] = _joined(output["text"])
                    for mime, value in output.get("data", {}).items():
                        if not mime.endswith("json"):
                            output["data"][mime] = _joined(value)
        copy = folder / nb.name
        copy.write_text(json.dumps(notebook, ensure_ascii=False, indent=1), encoding="utf-8")
        copies.append(copy)
    return copies


def _joined(text: str | list[str]) -> str:
    return "".join(text) if isinstance(text, list) else text


def build(output: Path, modules: list[str]) -> None:
    lite_dir = STAGE / "lite"
    shutil.copy2(LITE / "jupyter-lite.json", lite_dir / "jupyter-lite.json")
    # the kit's JupyterLab settings defaults (PageDown/PageUp in the live deck), as in JupyterLab
    shutil.copy2(ROOT / "jupyter-config" / "lab" / "overrides.d" / "autograd-viz.json",
                 lite_dir / "overrides.json")  # fmt: skip
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if not any(nb.name == NOTEBOOK_START for nb in notebooks):
        raise SystemExit(f"lite/build.py: notebooks/{NOTEBOOK_START} is missing")
    contents: list[str] = []
    for nb in _trusted_copies(notebooks, STAGE / "notebooks"):
        contents += ["--contents", str(nb)]
    for page in sorted((ROOT / "notebooks").glob("*.md")):  # the glossary the lessons link to
        contents += ["--contents", str(page)]
    extensions = [
        f"--LiteBuildConfig.federated_extensions={wheel}"
        for wheel in [*_download(LAB_EXTENSIONS).values(), START_KERNEL]
    ]
    shutil.rmtree(output, ignore_errors=True)
    _run(Path(sys.executable).parent / "jupyter", "lite", "build",
         "--lite-dir", lite_dir, "--output-dir", output, "--apps", "lab",
         "--no-sourcemaps", "--no-unused-shared-packages",
         *extensions, *contents, cwd=lite_dir)  # fmt: skip
    # The site's front door opens JupyterLab on the start notebook. JupyterLite's pages read the
    # (empty) configuration block of every index.html above them, so this one keeps it.
    start = f"lab/index.html?path={NOTEBOOK_START}"
    (output / "index.html").write_text(
        "<!doctype html>\n<html>\n<head>\n<meta charset=utf-8>\n"
        "<title>autograd_viz: the course in your browser</title>\n"
        '<script id="jupyter-config-data" type="application/json" '
        'data-jupyter-lite-root=".">{}</script>\n'
        f'<meta http-equiv="refresh" content="0; url={start}">\n'
        f'</head>\n<body><p>Opening <a href="{start}">the course in JupyterLab</a>…</p></body>\n'
        "</html>\n",
        encoding="utf-8",
    )
    (output / ".nojekyll").write_text("")
    kernel_snapshot.make(output, modules, CACHE_ROOT / "kernel-snapshot")


def _megabytes(paths: list[Path]) -> str:
    return f"{sum(p.stat().st_size for p in paths) / 1e6:.1f} MB"


def build_playground(output: Path) -> None:
    """The playground page into `output/playground/`, beside the site's `static/pyodide/`.

    It needs only the staged Pyodide runtime and the kit: the page preloads what the first
    drawing needs, all at once, and, once it has drawn, registers a service worker that keeps
    those files, so it loads from there next time and works offline; anywidget and ipywidgets
    (and what they need) load from the site's lock when the quiz or explore first opens. Why
    each file
    (benchmarks/playground.py, cold first drawing before: 5.5 s at load 4, 9.8 s at load 10):

    - `python.snapshot`: Python's memory just after start-up, made here (make_snapshot.mjs).
      The page restores it (0.2 s) instead of starting the interpreter (3.9 s at load 4, 7.7 s
      at load 10). If Node cannot make it the page starts Python itself, as before.
    - `autograd_viz.files`: the kit's files (the wheel's, without Graphviz-WASM, and their
      bytecode from compile_pyc.mjs) as one uncompressed bundle that the page writes into
      site-packages before Python starts: no archive to unpack in Python (0.1 s at load 4,
      1.5-2.2 s at load 10 right after a restored snapshot).
    - `graphviz_wasm.js`: Graphviz-WASM, compiled by the page while Python starts and handed
      to the kit (`autograd_viz._pyodide`), instead of read from the wheel after it.
    """
    pyodide = output / "static" / "pyodide"
    (site_wheel,) = pyodide.glob("autograd_viz-*.whl")
    target = output / "playground"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    graphviz = target / GRAPHVIZ_FILE
    shutil.copy2(GRAPHVIZ_JS, graphviz)
    files = _files_bundle(site_wheel, target / FILES_BUNDLE)
    snapshot = target / SNAPSHOT_FILE
    if not _node(
        PLAYGROUND / "make_snapshot.mjs",
        PYODIDE_NPM,
        snapshot,
        what="playground's snapshot of Python",
    ):
        snapshot = None
    runtime = [pyodide / name for name in PYODIDE_RUNTIME]  # preloaded and precached by the page
    first = [*runtime, files, graphviz, *(PLAYGROUND / f for f in PLAYGROUND_FILES)]
    first += [snapshot] if snapshot else []
    version = hashlib.sha256(b"".join(_sha256(p).encode() for p in first)).hexdigest()[:12]
    precache = ["./", "index.html", "playground.js", "playground.css", "snapshot.js",
                FILES_BUNDLE, GRAPHVIZ_FILE, *([SNAPSHOT_FILE] if snapshot else []),
                *(f"../static/pyodide/{p.name}" for p in runtime)]  # fmt: skip
    fill = {
        "{{FILES}}": FILES_BUNDLE,
        "{{GRAPHVIZ}}": GRAPHVIZ_FILE,
        "{{SNAPSHOT}}": SNAPSHOT_FILE if snapshot else "",
        "{{SNAPSHOT_PRELOAD}}": (
            f'<link rel="preload" href="{SNAPSHOT_FILE}" as="fetch" crossorigin>\n'
            if snapshot
            else ""
        ),
        "{{VERSION}}": version,
        "{{PYODIDE_VERSION}}": PYODIDE_VERSION,
        "{{PYODIDE_SIZE}}": _megabytes(runtime),
        "{{WHEEL_SIZE}}": _megabytes([files, graphviz]),
        "{{SNAPSHOT_SIZE}}": _megabytes([snapshot]) if snapshot else "not built: none",
        "{{PRECACHE}}": json.dumps(precache),
    }
    for name in PLAYGROUND_FILES:
        text = (PLAYGROUND / name).read_text(encoding="utf-8")
        for key, value in fill.items():
            text = text.replace(key, value)
        if "{{" in text and name != "playground.js":
            raise SystemExit(f"lite/build.py: lite/playground/{name} has an unknown {{{{...}}}}")
        (target / name).write_text(text, encoding="utf-8")
    print(f"[lite] playground: {target} (first drawing loads {_megabytes(first)})")


def _files_bundle(wheel: Path, out: Path) -> Path:
    """The kit's files for the page, as one bundle it writes straight into site-packages:
    a 4-byte little-endian length, a JSON list of [path, size], then the files' bytes.

    The wheel's files (its .dist-info and bytecode too) but Graphviz-WASM, which the page
    loads itself. Uncompressed: the server may compress it
    on the wire, and the browser inflates that natively, not in Python.
    """
    entries: list[tuple[str, bytes]] = []
    skip = WASM_IN_PACKAGE.as_posix()
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            outside = info.filename.split("/")[0].endswith(".data")  # pip puts these elsewhere
            if info.is_dir() or info.filename == skip or outside:
                continue
            data = archive.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                lines = data.decode().splitlines(keepends=True)
                data = "".join(x for x in lines if not x.startswith(skip + ",")).encode()
            entries.append((info.filename, data))
    index = json.dumps([[name, len(data)] for name, data in entries]).encode()
    out.write_bytes(len(index).to_bytes(4, "little") + index + b"".join(d for _, d in entries))
    return out


def _node(script: Path, *args: Path | str, what: str) -> bool:
    """Run a build step with Node; False, with a warning, where it fails."""
    try:
        _run("node", script, *args)
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"[lite] warning: the {what} was not made ({err})")
        return False
    return True


def _compile_pyc(out: Path) -> bool:
    """The kit's modules compiled by Pyodide's own Python (in Node), as one zip for its wheel:
    importing them then skips compiling ~13,000 lines (~70 % of import time natively). False,
    with a warning, where Node cannot run Pyodide: Python then compiles them as it imports."""
    source = STAGE / "package" / "autograd_viz"  # what the wheel was built from
    return _node(PLAYGROUND / "compile_pyc.mjs", PYODIDE_NPM, source, out, what="kit's bytecode")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "_site", help="default: _site/")
    parser.add_argument(
        "--playground-only", action="store_true",
        help="build only the playground and the Pyodide it loads (seconds)",
    )  # fmt: skip
    args = parser.parse_args()
    for needed in [PYODIDE_NPM / "pyodide.mjs", GRAPHVIZ_JS]:
        if not needed.exists():
            raise SystemExit(f"lite/build.py: {needed} is missing: run `npm ci --prefix lite`")
    shutil.rmtree(STAGE, ignore_errors=True)
    modules = stage_pyodide()
    output = args.output.resolve()
    if args.playground_only:
        shutil.rmtree(output, ignore_errors=True)
        shutil.copytree(STAGE / "lite" / "static" / "pyodide", output / "static" / "pyodide")
    else:
        build(output, modules)
    build_playground(output)
    print(f"[lite] built {args.output}")


if __name__ == "__main__":
    main()
