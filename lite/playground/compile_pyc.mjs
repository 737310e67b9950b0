// Build step (lite/build.py), run with Node: compile the kit's modules to bytecode with the very
// Python the page runs (Pyodide's), so the page imports them without compiling them first.
//   node lite/playground/compile_pyc.mjs PYODIDE_DIR PACKAGE_DIR OUT_ZIP
// The .pyc files are "unchecked-hash" ones: Python uses them without comparing them with the
// sources' dates (which unpacking a wheel does not keep); they are built from the same sources
// as the wheel, in the same build.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, packageDir, out] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: pyodideDir + path.sep });
const root = "/tmp/package";

function copy(dir, rel) {
  py.FS.mkdirTree(path.posix.join(root, rel));
  for (const name of fs.readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    const inner = path.posix.join(rel, name);
    if (fs.statSync(full).isDirectory()) {
      if (name !== "__pycache__") copy(full, inner);
    } else if (name.endsWith(".py")) {
      py.FS.writeFile(path.posix.join(root, inner), fs.readFileSync(full));
    }
  }
}
copy(packageDir, path.basename(packageDir));

const encoded = py.runPython(`
import base64, compileall, io, os, py_compile, zipfile
root = ${JSON.stringify(root)}
if not compileall.compile_dir(root, quiet=1, ddir="", workers=1,
                              invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH):
    raise SystemExit("compileall failed")
data = io.BytesIO()
with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
    for folder, _, files in sorted(os.walk(root)):
        for name in sorted(f for f in files if f.endswith(".pyc")):
            full = os.path.join(folder, name)
            info = zipfile.ZipInfo(os.path.relpath(full, root), date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(full, "rb") as f:
                archive.writestr(info, f.read())
base64.b64encode(data.getvalue()).decode()
`);
fs.writeFileSync(out, Buffer.from(encoded, "base64"));
