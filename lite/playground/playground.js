// The playground page (built into _site/playground/ by lite/build.py).
//
// Python does the work: autograd_viz.playground (run in Pyodide) reads the expression with the
// kit's allow-list reader, draws it, builds the kit's kernel-free player and derivation, and
// the notebooks' quiz and explore widgets, which the kit's one player module renders here as in
// a notebook. This module only loads Pyodide and the kit (in parallel), places what Python
// returns (SVG, the player and the player module made by the kit; every other text as text,
// never as markup), and keeps the
// state in the URL: #e=(x%20%2B%20y)%20*%20y&x=2&y=3&mode=steps&step=7 (step counted from 1,
// as the player's caption counts: "step 7 of 9").

const tag = document.querySelector("script[data-files]");
const PYODIDE = new URL("../static/pyodide/", import.meta.url).href;
const DEFAULT_HASH = "#e=tanh(w*x%20%2B%20b)&w=-3&x=2&b=6.8814&mode=steps";
const PUSH_AFTER_MS = 700; // changes closer together than this replace one history entry

const $ = (id) => document.getElementById(id);
const times = { start: performance.now() };
// pushAfter: from this moment (performance.now()) a change makes a new history entry
window.avzPlayground = { times, renders: 0, last: null, state: null, pushAfter: 0 };
// where the cold start goes (benchmarks/playground.py reports these): ms since navigation
const mark = (name) => {
  times[name] ??= performance.now();
  performance.mark(`avz:${name}`);
};

// ---------------------------------------------------------------- the link <-> a state

function readHash() {
  // URLSearchParams would read "+" as a space: (x+y) typed into a link must stay x+y
  const pairs = [];
  const seen = new Set();
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    if (!part) continue;
    const at = part.indexOf("=");
    const key = decode(at < 0 ? part : part.slice(0, at));
    const value = at < 0 ? "" : decode(part.slice(at + 1));
    if (key === null || value === null || seen.has(key) || pairs.length >= 64) continue;
    seen.add(key);
    pairs.push([key, value]);
  }
  return Object.fromEntries(pairs); // own properties only, even for a key "__proto__"
}

function decode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return null; // a broken %-escape: the pair is left out
  }
}

function hashOf(params) {
  return "#" + Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
}

let lastPush = 0;
function remember(params, how) {
  const hash = hashOf(params);
  if (how === "none" || hash === location.hash) return;
  const now = performance.now();
  if (how === "push" && now - lastPush > PUSH_AFTER_MS) {
    history.pushState(null, "", hash);
  } else {
    history.replaceState(null, "", hash);
  }
  if (how === "push") {
    lastPush = now;
    window.avzPlayground.pushAfter = now + PUSH_AFTER_MS;
  }
  $("link").value = location.href;
}

// ---------------------------------------------------------------- Python

let py = null;
let callPython = null;

async function startPython() {
  // Every download the first drawing needs starts now, together (index.html preloads them
  // too): the kit's files, Graphviz-WASM, the snapshot of Python; Pyodide fetches its runtime
  // and lock file as loadPyodide starts (their requests match the preloads).
  const files = fetchBytes(tag.dataset.files);
  // Graphviz-WASM compiles while Python starts, not after it: the kit takes it from here
  // (autograd_viz._pyodide.setup) instead of reading a copy of its own.
  window.avzGraphviz = import(new URL(tag.dataset.graphviz, import.meta.url).href)
    .then((m) => m.Graphviz.load())
    .then((graphviz) => {
      mark("graphvizCompiled");
      return graphviz;
    });
  window.avzGraphviz.catch(() => {}); // a failure is reported where Python awaits it
  const cached = readSnapshot();
  // Python just started, made by the build (make_snapshot.mjs): restoring it skips starting
  // the interpreter, most of a cold start
  const shipped = tag.dataset.snapshot
    ? fetchBytes(tag.dataset.snapshot).then(snapshotBytes).catch(() => null)
    : Promise.resolve(null);
  const { loadPyodide } = await import(PYODIDE + "pyodide.mjs");
  mark("pyodideModule");
  const options = {
    indexURL: PYODIDE,
    // before Python starts: the runtime is compiled; the kit's files go into site-packages
    fsInit: async (FS, { sitePackages }) => {
      mark("wasmInstantiated");
      writeFiles(FS, sitePackages, await files);
      mark("unpacked");
    },
  };
  const saved = (await cached) ?? (await shipped);
  if (saved) {
    try {
      py = await loadPyodide({ ...options, _loadSnapshot: saved });
      times.fromSnapshot = true;
    } catch {
      py = null; // a snapshot of another Pyodide build: start afresh and make a new one
      delete times.unpacked;
      caches.delete(SNAPSHOT_CACHE).catch(() => {});
    }
  }
  py ??= await loadPyodide(options);
  mark("pyodide");
  $("loading").textContent = "Python is ready; loading autograd_viz and Graphviz…";
  await py.runPythonAsync(`
import sys
_avz_before = set(sys.modules)
import asyncio, importlib, json
from js import performance, avzPlayground
importlib.invalidate_caches()
import autograd_viz  # starts loading Graphviz-WASM (autograd_viz._pyodide)
await asyncio.sleep(0)  # let it start: the browser compiles it while Python imports the rest
avzPlayground.times.imported = performance.now()
from autograd_viz import playground
from autograd_viz.view import wasm, render
avzPlayground.times.modules = performance.now()
avzPlayground.imports = json.dumps(sorted(set(sys.modules) - _avz_before))
await wasm._loading
avzPlayground.times.graphviz = performance.now()

def _avz_call(name, args):
    return json.dumps(getattr(playground, name)(*json.loads(args)), ensure_ascii=False)
`);
  const call = py.globals.get("_avz_call");
  callPython = (name, ...args) => JSON.parse(call(name, JSON.stringify(args)));
  mark("python");
}

async function fetchBytes(name) {
  const response = await fetch(new URL(name, import.meta.url));
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

// python.snapshot as Pyodide takes it: the file leaves out the pages of zeros
// (lite/playground/make_snapshot.mjs); each kept page goes back in its place.
function snapshotBytes(file) {
  const [length, page, count] = new Uint32Array(file, 0, 3);
  const pages = new Uint32Array(file, 12, count);
  const memory = new Uint8Array(length);
  const data = new Uint8Array(file, 12 + 4 * count);
  for (let i = 0; i < count; i++) {
    const at = pages[i] * page;
    memory.set(data.subarray(i * page, i * page + Math.min(page, length - at)), at);
  }
  mark("snapshotExpanded");
  return memory;
}

// The kit's files (lite/build.py, _files_bundle): a 4-byte length, a JSON list of
// [path, size], then the bytes, written as they are: no archive to unpack in Python.
function writeFiles(FS, root, bundle) {
  const bytes = new Uint8Array(bundle);
  const length = new DataView(bundle).getUint32(0, true);
  const index = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length)));
  let at = 4 + length;
  for (const [name, size] of index) {
    if (name.split("/").some((part) => part === ".." || part === "")) {
      throw new Error(`autograd_viz.files: a path outside site-packages: ${name}`);
    }
    const path = `${root}/${name}`;
    FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    FS.writeFile(path, bytes.subarray(at, at + size));
    at += size;
  }
}

// Where the build could not make python.snapshot (no Node): Python's memory right after it
// started, made here and kept in the browser's Cache Storage: a later visit
// restores it instead of starting the interpreter again (0.32-0.41 s instead of 1.8-2.0 s,
// measured at load 8.5 on 2 cores). Pyodide's own (private, experimental) _makeSnapshot /
// _loadSnapshot options; snapshot.js makes it in a worker after the first drawing; a snapshot
// Pyodide refuses (another build) is dropped. Nothing of the page's state is in it.
const SNAPSHOT_CACHE = `avz-python-snapshot-${tag.dataset.version}`;

async function readSnapshot() {
  try {
    const hit = await (await caches.open(SNAPSHOT_CACHE)).match("python.snapshot");
    return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
  } catch {
    return null; // no Cache Storage here (not a secure context): start Python the usual way
  }
}

function makeSnapshot() {
  if (times.fromSnapshot || !window.caches || !window.Worker) return;
  const worker = new Worker(new URL("snapshot.js", import.meta.url), { type: "module" });
  worker.onmessage = (event) => {
    window.avzPlayground.snapshot = event.data;
    worker.terminate();
  };
  worker.postMessage({ pyodide: PYODIDE, cacheName: SNAPSHOT_CACHE });
}

let widgetsLoaded = null;
function loadWidgets() {
  // the quiz and explore are the notebooks' own widgets (anywidget): fetched from this site
  // when first opened
  widgetsLoaded ??= py.loadPackage("anywidget", { messageCallback: () => {} });
  return widgetsLoaded;
}

// ---------------------------------------------------------------- showing a state

let state = null; // the canonical params last shown
let shownKey = null; // what the view shows, but the step
let playerFrame = null;
let liveModel = null; // the quiz's or explorer's model, while its view is on the page

function keyOf(params) {
  const { step, ...rest } = params;
  return JSON.stringify(rest);
}

function uiParams() {
  const params = { e: $("expr").value };
  for (const box of $("inputs").querySelectorAll("input")) params[box.name] = box.value;
  params.mode = document.querySelector("input[name=mode]:checked")?.value ?? "draw";
  params.phase = $("phase").value;
  params.notation = $("notation").value;
  // the same player, stepped: keep the step; a new expression or setting starts at step 0
  if (params.mode === "steps" && state?.step !== undefined && keyOf(params) === shownKey) {
    params.step = state.step;
  }
  return params;
}

function fillUi(params, names) {
  const expr = $("expr");
  if (params.e !== undefined && expr.value !== params.e) expr.value = params.e;
  const box = $("inputs");
  const have = [...box.querySelectorAll("input")].map((i) => i.name);
  if (names && have.join(" ") !== names.join(" ")) {
    box.replaceChildren(...names.map((name) => {
      const label = document.createElement("label");
      const input = document.createElement("input");
      input.type = "text";
      input.name = name;
      input.inputMode = "decimal";
      input.spellcheck = false;
      input.addEventListener("input", () => changed("push"));
      label.append(`${name} = `, input);
      return label;
    }));
  }
  for (const input of box.querySelectorAll("input")) {
    if (params[input.name] !== undefined && input.value !== params[input.name]) {
      input.value = params[input.name];
    }
  }
  for (const radio of document.querySelectorAll("input[name=mode]")) {
    radio.checked = radio.value === params.mode;
  }
  if (params.phase) $("phase").value = params.phase;
  if (params.notation) $("notation").value = params.notation;
  const stepping = params.mode === "steps" || params.mode === "derivation";
  $("phase-box").hidden = !stepping;
  $("notation-box").hidden = !stepping;
}

function showError(error) {
  const box = $("error");
  for (const el of document.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  if (!error) {
    box.hidden = true;
    $("view").classList.remove("stale");
    $("summary").classList.remove("stale");
    return;
  }
  const [first, ...pointer] = error.message.split("\n");
  $("error-what").textContent = first; // as text: a link's <script> shows as <script>
  $("error-pointer").textContent = pointer.join("\n");
  box.hidden = false;
  $("view").classList.add("stale"); // the last good graph stays, dimmed, until the text is fixed
  $("summary").classList.add("stale");
  const field = error.field === "expression" ? $("expr")
    : $("inputs").querySelector(`input[name="${CSS.escape(error.field)}"]`);
  field?.setAttribute("aria-invalid", "true");
}

function graphBox(svg) {
  const box = document.createElement("div");
  box.className = "graph-box";
  box.tabIndex = 0; // scrollable by keyboard
  box.setAttribute("role", "img");
  box.setAttribute("aria-label", "the computation graph");
  box.innerHTML = svg; // the kit's own drawing (Graphviz's SVG; every label escaped by the kit)
  return box;
}

async function showView(v) {
  const view = $("view");
  playerFrame = null;
  liveModel?.close();
  liveModel = null;
  if (v.mode === "draw") {
    view.replaceChildren(graphBox(v.svg));
  } else if (v.mode === "derivation") {
    const list = document.createElement("ol");
    list.className = "derivation";
    for (const line of v.lines) {
      const item = document.createElement("li");
      item.className = line.phase;
      item.textContent = line.text;
      list.append(item);
    }
    view.replaceChildren(list);
  } else if (v.mode === "steps") {
    const holder = document.createElement("div");
    holder.className = "player";
    holder.innerHTML = v.player; // the kit's inline player (autograd_viz.front.inline)
    const frame = holder.querySelector("iframe");
    if (!frame) { // a player written into the page itself: its scripts must run
      for (const old of holder.querySelectorAll("script")) {
        const script = document.createElement("script");
        for (const { name, value } of old.attributes) script.setAttribute(name, value);
        script.textContent = old.textContent;
        old.replaceWith(script);
      }
      view.replaceChildren(holder);
      return;
    }
    const loaded = new Promise((resolve) => frame.addEventListener("load", resolve, { once: true }));
    view.replaceChildren(holder);
    await loaded;
    playerFrame = frame;
    goToStep(v.step - 1); // the link counts from 1, as the caption; the player from 0
    watchPlayer(frame);
  } else if (v.mode === "quiz" || v.mode === "explore") {
    await showWidget(v);
  }
  $("summary").textContent = v.summary ?? "";
}

async function render(params, how) {
  let v = callPython("view", params);
  mark("firstView"); // Python has drawn it (the layout and the SVG); not yet on the page
  fillUi(v.params, v.error ? null : v.names);
  showError(v.error);
  if (v.error && $("loading")) { // a refused first link: Python is ready, nothing to draw yet
    $("view").replaceChildren(note("Nothing drawn yet: fix the expression above."));
  }
  if (!v.error) {
    if (v.mode === "quiz" || v.mode === "explore") {
      const what = v.mode === "quiz" ? "the quiz" : "explore";
      if (!widgetsLoaded) $("view").replaceChildren(note(`Loading ${what} (anywidget)…`));
      await loadWidgets();
      const w = callPython("widget_view", v.params);
      if (w.error) showError(w.error);
      else v = { ...v, ...w };
    }
    if (v.error) {
      // shown above
    } else if (liveModel && v.key === liveModel.key) {
      liveModel.update(v.traits); // the same widget, new inputs: its view follows, as a kernel's
      $("summary").textContent = v.summary ?? "";
    } else {
      await showView(v);
    }
    shownKey = keyOf(v.params);
  }
  state = v.params;
  window.avzPlayground.state = state;
  remember(v.params, how);
}

function note(text) {
  const p = document.createElement("p");
  p.className = "loading";
  p.textContent = text;
  return p;
}

// One render at a time; changes that arrive meanwhile collapse into the latest.
let busy = false;
let pending = null;
async function update(params, how) {
  pending = { params, how, t0: performance.now() };
  if (busy) return;
  busy = true;
  try {
    while (pending) {
      const job = pending;
      pending = null;
      try {
        if (state && job.params.mode === "steps" && playerFrame
            && keyOf(job.params) === shownKey) { // the same player: only the step changes
          goToStep(Number(job.params.step ?? 1) - 1);
          state = { ...state, step: String(currentStep() + 1) };
          window.avzPlayground.state = state;
          remember(state, job.how);
        } else {
          await render(job.params, job.how);
        }
      } catch (err) {
        showError({ message: `The page failed: ${err}`, field: "expression" });
      }
      await new Promise((resolve) => requestAnimationFrame(() => resolve()));
      const ms = performance.now() - job.t0;
      window.avzPlayground.last = { ms, params: state };
      window.avzPlayground.renders += 1;
      document.body.dataset.renders = String(window.avzPlayground.renders);
      await new Promise((resolve) => setTimeout(resolve, 0)); // let typing in
    }
  } finally {
    busy = false;
  }
}

function changed(how) {
  update(uiParams(), how);
}

// ---------------------------------------------------------------- the player's step

function player() {
  try {
    return playerFrame?.contentWindow?.avzPlayer ?? null; // the page's step API (window.avzPlayer of front/page.py)
  } catch {
    return null;
  }
}

function currentStep() {
  const p = player();
  if (p) return p.step();
  const range = playerFrame?.contentDocument?.querySelector("input[type=range]");
  return range ? Number(range.value) : 0;
}

function goToStep(step) {
  const p = player();
  if (p) {
    p.go(step);
    return;
  }
  const doc = playerFrame?.contentDocument; // any player that answers the documented keys
  if (!doc) return;
  const key = (k) => doc.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
  key("Home");
  for (let i = 0; i < step; i++) key("ArrowRight");
}

function watchPlayer(frame) {
  const doc = frame.contentDocument;
  const moved = (how) => {
    if (frame !== playerFrame || !state) return;
    const step = String(currentStep() + 1); // as the caption counts: "step 1 of 9" first
    if (step !== state.step) {
      state = { ...state, step };
      window.avzPlayground.state = state;
      remember(state, how);
    }
  };
  for (const type of ["click", "keydown", "input", "change"]) {
    doc.addEventListener(type, () => setTimeout(() => moved("push"), 0));
  }
  const poll = setInterval(() => {
    if (frame !== playerFrame) clearInterval(poll);
    else moved("replace"); // playing: the step moves by itself
  }, 400);
}

// ---------------------------------------------------------------- the quiz and explore

// The quiz and explore are the notebooks' own widgets (autograd_viz.front.quiz,
// autograd_viz.front.explore), rendered by the one player module as in every notebook host.
// The page plays anywidget's part: the view gets a model whose kernel is this page's Python.
let playerModule = null;
async function thePlayerModule() {
  if (!playerModule) {
    const url = URL.createObjectURL(
      new Blob([callPython("front_end")], { type: "text/javascript" }));
    try {
      playerModule = (await import(url)).default;
    } finally {
      URL.revokeObjectURL(url);
    }
  }
  return playerModule;
}

async function showWidget(v) {
  const module = await thePlayerModule();
  const holder = document.createElement("div");
  holder.className = `widget ${v.mode}`;
  const style = document.createElement("style");
  style.textContent = v.css; // the widget's own stylesheet, as anywidget adds it
  $("view").replaceChildren(style, holder);
  const model = pageModel(v.key, v.traits);
  model.cleanup = module.render({ model, el: holder });
  liveModel = model;
}

// What anywidget's model gives a view (get, set, save_changes, send, on, off), answered by
// autograd_viz.playground.widget_update: what the view sends or sets goes to the widget in
// Python, after the view's own handler returns (as a kernel's answer would), and every trait
// that changed then fires its "change:" event.
function pageModel(key, traits) {
  const listeners = new Map();
  let unsaved = {};
  let open = true;
  function fire(changed) {
    changed.sort((a, b) => (b === "svg") - (a === "svg")); // a new layout before its numbers
    for (const name of changed) {
      for (const listener of [...(listeners.get(`change:${name}`) ?? [])]) listener();
    }
  }
  function update(now) {
    const changed = Object.keys(now).filter(
      (name) => JSON.stringify(now[name]) !== JSON.stringify(traits[name]));
    Object.assign(traits, now);
    fire(changed);
    return changed;
  }
  function ask(kind, payload) {
    setTimeout(() => {
      if (!open) return;
      // the view moved the inputs (explore's slider or box): the page's boxes follow; never
      // after the page's own box set them, which would rewrite what the learner is typing
      if (update(callPython("widget_update", kind, payload)).includes("inputs")) {
        followInputs(traits.inputs);
      }
    }, 0);
  }
  return {
    key,
    update,
    get: (name) => traits[name],
    set(name, value) {
      traits[name] = value;
      unsaved[name] = value;
    },
    save_changes() {
      const payload = unsaved;
      unsaved = {};
      ask("set", payload);
    },
    send: (msg) => ask("send", msg),
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(listener);
    },
    off(event, listener) {
      listeners.get(event)?.delete(listener);
    },
    close() {
      open = false;
      if (typeof this.cleanup === "function") this.cleanup();
    },
  };
}

// explore's sliders moved the inputs: the page's input boxes, the link and the summary follow
function followInputs(inputs) {
  if (!state || state.mode !== "explore") return;
  const params = { ...state };
  for (const [name, value] of Object.entries(inputs ?? {})) {
    if (name in params) params[name] = String(value);
  }
  fillUi(params, null);
  $("summary").textContent = callPython("summary", params);
  state = params;
  shownKey = keyOf(params);
  window.avzPlayground.state = state;
  remember(params, "replace");
}

// ---------------------------------------------------------------- buttons, start

async function copyLink() {
  const link = $("link");
  link.value = location.href;
  try {
    await navigator.clipboard.writeText(location.href);
    $("status").textContent = "Link copied: paste it anywhere.";
  } catch {
    link.tabIndex = 0;
    link.focus();
    link.select();
    $("status").textContent = "Link selected: press Ctrl+C (⌘C) to copy it.";
  }
}

function downloadNotebook() {
  let text;
  try {
    text = callPython("notebook_json", state);
  } catch (err) {
    $("status").textContent = `No notebook: ${err}`;
    return;
  }
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-ipynb+json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = "playground.ipynb";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  $("status").textContent = "Notebook downloaded: open it in Jupyter with autograd_viz installed.";
}

async function main() {
  $("form").addEventListener("submit", (event) => event.preventDefault());
  if (!location.hash || location.hash === "#") history.replaceState(null, "", DEFAULT_HASH);
  $("link").value = location.href;
  try {
    await startPython();
  } catch (err) {
    $("loading").textContent = `Python could not be loaded in this browser: ${err}`;
    throw err;
  }
  for (const el of [$("expr"), $("phase"), $("notation"), $("copy"), $("download")]) {
    el.disabled = false;
  }
  $("modes").disabled = false;
  $("expr").addEventListener("input", () => changed("push"));
  $("phase").addEventListener("change", () => changed("push"));
  $("notation").addEventListener("change", () => changed("push"));
  for (const radio of document.querySelectorAll("input[name=mode]")) {
    radio.addEventListener("change", () => changed("push"));
  }
  $("copy").addEventListener("click", copyLink);
  $("download").addEventListener("click", downloadNotebook);
  window.addEventListener("popstate", () => update(readHash(), "none"));
  await update(readHash(), "replace");
  mark("firstDrawing");
  document.body.dataset.ready = "1";
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("sw.js").catch(() => {}); // offline next time
  }
  setTimeout(makeSnapshot, 1000); // after the first drawing, in a worker: never in its way
}

main();
