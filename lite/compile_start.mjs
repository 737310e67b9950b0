// Build step (lite/build.py), run with Node: the bytecode of every module the Pyodide kernel
// imports as it starts, compiled by the very Python the site runs (Pyodide's), so the kernel's
// worker imports IPython, jedi, prompt_toolkit, ... without compiling them first.
//   node lite/compile_start.mjs PYODIDE_DIR OUT_ZIP PACKAGE...
// PYODIDE_DIR holds the site's Pyodide and lock; PACKAGE... are the packages the kernel loads as
// Pyodide starts (lite/jupyter-lite.json). The zip holds "unchecked-hash" .pyc files, named by
// their path in site-packages: Python uses them without comparing them with the sources' dates
// (which unpacking a wheel does not keep). Only modules imported at start: pygments' hundreds of
// lexers, say, stay sources and are compiled if a learner ever needs them.
// Beside OUT_ZIP it writes modules.json: the modules that start imports, but the kernel's own
// (micropip, piplite, pyodide_kernel: they hold the page's Pyodide) and its stand-ins for
// modules a browser lacks; the kernel's snapshot (kernel.mjs) is made with them imported.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, out, ...packages] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: pyodideDir + path.sep, packages });

const encoded = py.runPython(`
import base64, io, json, py_compile, site, sys, zipfile
before = set(sys.modules)
# what the kernel's worker imports as it starts (jupyterlite-pyodide-kernel 0.8.6, worker.ts)
import micropip, piplite.piplite, pyodide_kernel
prefix = site.getsitepackages()[0] + "/"
KERNEL = {"micropip", "piplite", "pyodide_kernel", "js", "pyodide_js"}
modules = sorted(name for name, module in sys.modules.items()
                 if name not in before and name.split(".")[0] not in KERNEL
                 and getattr(module, "__spec__", None) is not None)
sources = sorted({m.__file__ for m in list(sys.modules.values())
                  if (getattr(m, "__file__", None) or "").startswith(prefix)
                  and m.__file__.endswith(".py")})
data = io.BytesIO()
with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
    for source in sources:
        pyc = py_compile.compile(source, doraise=True,
                                 invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        info = zipfile.ZipInfo(pyc.removeprefix(prefix), date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(pyc, "rb") as f:
            archive.writestr(info, f.read())
json.dumps([base64.b64encode(data.getvalue()).decode(), modules])
`);
const [zip, modules] = JSON.parse(encoded);
fs.writeFileSync(out, Buffer.from(zip, "base64"));
fs.writeFileSync(path.join(path.dirname(out), "modules.json"), JSON.stringify(modules));
