// A module worker the playground starts after its first drawing, when it has no snapshot yet:
// it starts a Python of its own with Pyodide's _makeSnapshot option, copies its memory right
// after start-up and keeps it in Cache Storage, where the page's next visit restores it
// instead of starting the interpreter again. (A Python started with _makeSnapshot cannot
// import from `js` afterwards, so the page never uses one for itself.)
self.onmessage = async (event) => {
  const { pyodide, cacheName } = event.data;
  try {
    const { loadPyodide } = await import(pyodide + "pyodide.mjs");
    const py = await loadPyodide({ indexURL: pyodide, _makeSnapshot: true });
    const data = py.makeMemorySnapshot();
    for (const name of await caches.keys()) {
      if (name.startsWith("avz-python-snapshot-") && name !== cacheName) await caches.delete(name);
    }
    await (await caches.open(cacheName)).put("python.snapshot", new Response(data));
    self.postMessage({ ok: true, bytes: data.length });
  } catch (err) {
    self.postMessage({ ok: false, error: String(err) });
  }
};
