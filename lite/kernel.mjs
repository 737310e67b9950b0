// The Pyodide kernel's loadPyodide (its `pyodideUrl`, static/pyodide/kernel.mjs, set by
// lite/build.py): instead of starting Python and then importing IPython, jedi, prompt_toolkit,
// ... (~600 modules), the kernel's worker restores a copy of Python's memory made at build
// time with all of them imported (kernel.snapshot.gz), and writes the files of the packages
// the kernel starts with straight into site-packages (kernel.files.gz), instead of Pyodide
// unpacking their wheels one by one. Everything else of the kernel's start is unchanged: it
// then imports micropip, piplite and pyodide_kernel itself (their start-up talks to the
// page's Pyodide, which a snapshot cannot carry) and runs as before.
// Pyodide's own (private, experimental) _makeSnapshot / _loadSnapshot options, as the
// playground uses them. A snapshot holds the state of a Python started where the browser has
// WebAssembly stack switching (JSPI; Chromium's `WebAssembly.Suspending`), so only such a
// browser restores it; any other, or a site built without a snapshot, starts Python as before.
import { loadPyodide as start } from "./pyodide.mjs";

const SNAPSHOT = new URL("kernel.snapshot.gz", import.meta.url).href;
const FILES = new URL("kernel.files.gz", import.meta.url).href;

export async function loadPyodide(options) {
  if ("Suspending" in WebAssembly) {
    try {
      return await restore(options);
    } catch (err) {
      console.warn("kernel.mjs: starting Python afresh, the snapshot could not be used:", err);
    }
  }
  return await start(options);
}

// Where the time goes (benchmarks/lite_cold_start.py reads these marks in the worker).
const mark = (name) => (value) => (performance.mark(`kernel.mjs: ${name}`), value);

async function restore(options) {
  const snapshot = gunzip(SNAPSHOT).then(mark("snapshot unzipped"));
  const files = gunzip(FILES).then(unbundle).then(mark("files unzipped"));
  const py = await start({
    ...options,
    packages: [], // their files come from kernel.files.gz
    _loadSnapshot: snapshot,
    // Pyodide's memory starts smaller than the snapshot: grow it before the snapshot goes in
    createPyodideModule: async (settings) => {
      const size = (await snapshot).length;
      const { default: create } = await import("./pyodide.asm.mjs");
      settings.preRun = [(module) => module.growMemory(size), ...settings.preRun];
      return create(settings);
    },
    fsInit: async (FS) => {
      const made = new Set();
      for (const [path, data] of (await files).files) {
        const dir = path.slice(0, path.lastIndexOf("/"));
        if (!made.has(dir)) FS.mkdirTree(dir), made.add(dir);
        FS.writeFile(path, data, { canOwn: true });
      }
      mark("files written")();
    },
  });
  mark("Python restored")();
  const { packages } = await files;
  Object.assign(py.loadedPackages, packages); // installed, as if Pyodide had loaded them
  // what the kernel asks for and the bundle lacks (none, unless the site's settings changed)
  const missing = (options.packages || []).filter((name) => !(name in packages));
  if (missing.length) await py.loadPackage(missing);
  // Pyodide puts "" first on sys.path as it starts, and the snapshot has it already: once is
  // enough (each entry is a look-up in the notebook's folder, a request, for every import)
  py.runPython("import sys\nif sys.path[:2] == ['', '']: del sys.path[0]");
  await py.runPythonAsync((await files).resume); // what the build left for a live Python
  mark("resumed")();
  return py;
}

async function gunzip(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  const stream = response.body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// kernel.files: a 4-byte little-endian length, a JSON header {files: [[path, size]...],
// packages: {name: channel}, resume: Python code} of that length, then the files' bytes.
function unbundle(bytes) {
  const length = new DataView(bytes.buffer).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length)));
  let at = 4 + length;
  const files = header.files.map(([path, size]) => [path, bytes.subarray(at, (at += size))]);
  return { files, packages: header.packages, resume: header.resume };
}

function bundle(files, packages, resume) {
  const header = new TextEncoder().encode(
    JSON.stringify({ files: files.map(([path, data]) => [path, data.length]), packages, resume }),
  );
  const out = new Uint8Array(4 + header.length + files.reduce((n, [, d]) => n + d.length, 0));
  new DataView(out.buffer).setUint32(0, header.length, true);
  out.set(header, 4);
  let at = 4 + header.length;
  for (const [, data] of files) out.set(data, (at += data.length) - data.length);
  return out;
}

async function gzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// Build time (lite/kernel_snapshot.py, in headless Chromium, in a module worker like the
// kernel's): Python started as the kernel starts it, then `prepare` run (it imports what the
// kernel's start and the first lesson import, and returns what failed, as JSON), then its
// memory and its site-packages, both gzipped; `resume` runs when a kernel restores them.
export async function makeSnapshot(options, prepare, resume) {
  const py = await start({ ...options, _makeSnapshot: true });
  const failed = JSON.parse(py.runPython(prepare));
  // Pyodide checks that its table of JS objects is as it was at start, where
  // `pyodide.loadedPackages` was still {}; a restored Python gets a new {} there anyway.
  const loaded = { ...py.loadedPackages };
  for (const name of Object.keys(loaded)) delete py.loadedPackages[name];
  const snapshot = py.makeMemorySnapshot();
  // the bytecode of modules in memory is never read again: left out
  const inMemory = new Set(JSON.parse(py.runPython(`import json, sys
json.dumps([getattr(m, "__cached__", None) for m in list(sys.modules.values())])`)));
  const files = [];
  const walk = (dir) => {
    for (const name of py.FS.readdir(dir)) {
      const path = `${dir}/${name}`;
      if (name === "." || name === "..") continue;
      if (py.FS.isDir(py.FS.stat(path).mode)) walk(path);
      else if (!inMemory.has(path)) files.push([path, py.FS.readFile(path)]);
    }
  };
  walk(py._api.sitepackages);
  return {
    snapshot: await gzip(snapshot),
    files: await gzip(bundle(files, loaded, resume)),
    failed,
  };
}
