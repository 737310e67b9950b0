// Build step (lite/build.py), run with Node: the bytecode of every module the Pyodide kernel
// imports as it starts, compiled by the very Python the site runs (Pyodide's), so the kernel's
// worker imports IPython, jedi, prompt_toolkit, ... without compiling them first.
//   node lite/compile_start.mjs PYODIDE_DIR OUT_ZIP PACKAGE...
// PYODIDE_DIR holds the site's Pyodide and lock; PACKAGE... are the packages the kernel loads as
// Pyodide starts (lite/jupyter-lite.json). The zip holds "unchecked-hash" .pyc files, named by
// their path in site-packages: Python uses them without comparing them with the sources' dates
// (which unpacking a wheel does not keep). Only modules imported at start: pygments' hundreds of
// lexers, say, stay sources and are compiled if a learner ever needs them.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, out, ...packages] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: pyodideDir + path.sep, packages });

const encoded = py.runPython(`
import base64, io, py_compile, site, sys, zipfile
# what the kernel's worker imports as it starts (jupyterlite-pyodide-kernel 0.8.6, worker.ts)
import micropip, piplite.piplite, pyodide_kernel
prefix = site.getsitepackages()[0] + "/"
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
base64.b64encode(data.getvalue()).decode()
`);
fs.writeFileSync(out, Buffer.from(encoded, "base64"));
