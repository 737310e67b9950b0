// Build step (lite/build.py), run with Node: start the page's Python once, here, and save its
// memory right after start-up as the playground's python.snapshot. The page restores it
// instead of starting the interpreter (Pyodide's own, private and experimental, _makeSnapshot
// and _loadSnapshot options, as snapshot.js uses them): on this 2-core machine starting
// Python was 3.9 s of a 5.5 s cold first drawing at load 4 (7.7 s of 9.8 s at load 10);
// restoring this snapshot takes 0.2 s (benchmarks/playground.py).
//   node lite/playground/make_snapshot.mjs PYODIDE_DIR OUT
// The snapshot is only Python's memory (no files, nothing of a page), its pages of zeros left
// out (31.5 MB -> 16.5 MB for Pyodide 314.0.6); it is tied to this
// Pyodide build (Pyodide refuses another build's, and the page then starts Python afresh).
// The standard-library modules the kit imports for a first drawing are imported first, so
// they come restored too (measured: the kit's import list in benchmarks/playground.py).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, out] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: pyodideDir + path.sep, _makeSnapshot: true });
py.runPython(`
import dataclasses, difflib, email, hashlib, html, html.entities, importlib.metadata
import importlib.resources, inspect, json, numbers, typing
`);
fs.writeFileSync(out, withoutZeroPages(py.makeMemorySnapshot()));

// Half of Python's memory just after start-up is pages of zeros: the file leaves them out.
// Format (read by playground.js: snapshotBytes): uint32 LE full length, page size, page
// count N, N page numbers, then those N pages; every other page is zeros.
function withoutZeroPages(memory, page = 4096) {
  const kept = [];
  for (let at = 0; at < memory.length; at += page) {
    const chunk = memory.subarray(at, Math.min(at + page, memory.length));
    if (chunk.some((byte) => byte !== 0)) kept.push(at / page);
  }
  const head = new Uint32Array([memory.length, page, kept.length, ...kept]);
  const file = new Uint8Array(head.byteLength + kept.length * page);
  file.set(new Uint8Array(head.buffer));
  kept.forEach((n, i) => {
    file.set(memory.subarray(n * page, Math.min((n + 1) * page, memory.length)),
      head.byteLength + i * page);
  });
  return file;
}
