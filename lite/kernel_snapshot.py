"""Build step (lite/build.py): the kernel's Python as a snapshot, made in headless Chromium.

static/pyodide/kernel.mjs (lite/kernel.mjs) becomes the kernel's `pyodideUrl`: it restores
kernel.snapshot.gz and writes kernel.files.gz into site-packages instead of starting Python,
unpacking the start packages' wheels and importing IPython, jedi, ... and the kit (see there).
The snapshot is made here, from the built site served on 127.0.0.1, by the same Pyodide in a
module worker of Chromium (make_kernel_snapshot.html), as the kernel's worker will restore it:
a snapshot holds Python as it started in that engine, with WebAssembly stack switching (JSPI).
The last one made is kept in the build's cache (build.py's CACHE_ROOT), by what it was made
from (the site's Pyodide folder, its wheels, kernel.mjs, what runs before it), so a rebuild of
the same site does not start Chromium.
No Chromium (AUTOGRAD_VIZ_CHROMIUM or `chromium` on PATH), no module list from
compile_start.mjs (no Node), or anything failing: a warning, and the kernel starts Python as
before (its `pyodideUrl` stays Pyodide's own pyodide.mjs).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote

LITE = Path(__file__).resolve().parent
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"  # its settings in jupyter-lite.json
FILES = ["kernel.mjs", "kernel.snapshot.gz", "kernel.files.gz"]  # into static/pyodide/
# Run before the snapshot: every module the kernel's start imports (compile_start.mjs's list,
# but the kernel's own) and the kit with all of its modules that import here (an engine that
# needs PyTorch does not), so a notebook's `import autograd_viz` finds them in memory. The
# kit's browser set-up (autograd_viz._pyodide.setup(): Graphviz-WASM starts loading, a JS
# promise, which no snapshot can hold) is left for RESUME, which a restored kernel runs.
# Last, no file may stay open in the snapshot: a restored Python would hold a descriptor of
# this one's, and closing it would close whatever file the kernel then has under that number.
# importlib.metadata keeps the standard library's zip open once a package has looked up its
# metadata (a cached FastPath), and Pyodide clears that cache as it installs a package: in a
# build that left the kit out of the snapshot, sympy's wheel, unpacked then, failed to load.
# Any other file left open: no snapshot.
PREPARE = """
import gc, importlib, io, json, pkgutil, sys, types
failed = []
for name in json.loads(%r):
    try:
        importlib.import_module(name)
    except Exception as err:
        failed.append(f"{name}: {err!r}")
sys.modules["autograd_viz._pyodide"] = types.SimpleNamespace(setup=lambda: None)
import autograd_viz
del sys.modules["autograd_viz._pyodide"], autograd_viz._pyodide
for kit in pkgutil.walk_packages(autograd_viz.__path__, "autograd_viz."):
    try:
        if kit.name != "autograd_viz._pyodide":
            importlib.import_module(kit.name)
    except ImportError:
        pass
importlib.invalidate_caches()
gc.collect()
failed += [f"a file left open: {f!r}" for f in gc.get_objects() if isinstance(f, io.IOBase)
           and not f.closed and getattr(f, "name", "") not in ("<stdin>", "<stdout>", "<stderr>")]
json.dumps(failed)
"""
# RESUME also imports the kernel's own modules (what its worker imports next, once it has
# mounted the notebooks' folder as the current directory): here, before that, each import looks
# in memory; after it, each would first ask the notebooks' folder, a request answered by the
# page's main thread, which is busy opening JupyterLab as an early-started kernel starts.
RESUME = """\
import piplite.piplite, pyodide_kernel
from autograd_viz import _pyodide
_pyodide.setup()
"""


def make(output: Path, modules: list[str], cache: Path) -> None:
    """The snapshot into output/static/pyodide/, and the kernel's pyodideUrl set to it; `cache`
    keeps the last one made, by what it was made from."""
    chromium = shutil.which(os.environ.get("AUTOGRAD_VIZ_CHROMIUM", "chromium"))
    if not (chromium and modules):
        print("[lite] warning: no kernel snapshot (it needs Chromium, and Node for the modules)")
        return
    config = json.loads((output / "jupyter-lite.json").read_text())
    settings = config["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    pyodide = output / "static" / "pyodide"
    shutil.copy2(LITE / "kernel.mjs", pyodide / "kernel.mjs")
    options = {"packages": settings["loadPyodideOptions"]["packages"]}
    job = {"options": options, "prepare": PREPARE % json.dumps(modules), "resume": RESUME}
    key = hashlib.sha256(json.dumps(job).encode())
    for path in sorted([*pyodide.iterdir(), LITE / "make_kernel_snapshot.html"]):
        key.update(path.name.encode() + path.read_bytes())
    cached = cache / key.hexdigest()[:16]
    try:  # another build may be replacing it: then it is made here
        for name in FILES[1:]:
            shutil.copy2(cached / name, pyodide / name)
        answer, made = {"done": True}, False
    except OSError:
        answer, made = _in_chromium(chromium, output, job), True
    if not answer or answer.get("error") or answer.get("failed"):
        print(f"[lite] warning: no kernel snapshot: {answer or 'Chromium gave no answer'}")
        for name in FILES:
            (pyodide / name).unlink(missing_ok=True)
        return
    if made:  # kept as the last one made, written beside it first and then moved into place
        partial = cache / f"{cached.name}.part{os.getpid()}"
        partial.mkdir(parents=True, exist_ok=True)
        for name in FILES[1:]:
            shutil.copy2(pyodide / name, partial / name)
        for old in cache.iterdir():
            if old != partial:
                shutil.rmtree(old, ignore_errors=True)
        try:
            partial.rename(cached)
        except OSError:  # another build put the same one there first
            shutil.rmtree(partial, ignore_errors=True)
    settings["pyodideUrl"] = "./static/pyodide/kernel.mjs"
    (output / "jupyter-lite.json").write_text(json.dumps(config, indent=2))
    size = sum((pyodide / name).stat().st_size for name in FILES) / 1e6
    print(f"[lite] kernel snapshot: {len(modules)} modules and the kit imported, {size:.1f} MB")


def _in_chromium(chromium: str, site: Path, job: dict, timeout: float = 300) -> dict:
    """Open make_kernel_snapshot.html on `site` (served on 127.0.0.1) in headless Chromium;
    the files it PUTs go into static/pyodide/, and its last PUT ("done") is the answer."""
    answer: dict = {}
    page = (LITE / "make_kernel_snapshot.html").read_bytes()

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map: ClassVar = {
            **http.server.SimpleHTTPRequestHandler.extensions_map,
            ".mjs": "text/javascript",
            ".wasm": "application/wasm",
        }

        def do_GET(self) -> None:
            if not self.path.startswith("/__snapshot__.html"):
                return super().do_GET()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def do_PUT(self) -> None:
            name = self.path.rsplit("/", 1)[-1]
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if name == "done":
                answer.update(json.loads(body), done=True)
            elif name in FILES:
                (site / "static" / "pyodide" / name).write_bytes(body)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/__snapshot__.html?job={quote(json.dumps(job))}"
    try:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
            browser = subprocess.Popen(
                [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 f"--user-data-dir={profile}", url],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
            deadline = time.monotonic() + timeout
            while not answer and browser.poll() is None and time.monotonic() < deadline:
                time.sleep(0.5)
            with contextlib.suppress(ProcessLookupError):  # Chromium and its helpers, all
                os.killpg(browser.pid, signal.SIGKILL)
            browser.wait()
    finally:
        server.shutdown()
        server.server_close()
    return answer
