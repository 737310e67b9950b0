// The one backprop player (autograd_viz.view.steptable builds its data). Every place a learner
// meets a player runs this module: the widget (anywidget calls `render`), the standalone page,
// the widget-free inline player and the slide deck (they call `mount`). It draws the one SVG
// layout once and, per step, changes only the class attributes and cell texts of the slots the
// step table lists; stepping, play/pause, speed, phase, keys, projector sizing and wide-graph
// scrolling need no kernel. The same module renders `explore()`'s widget in explore mode (the
// model says `mode: "explore"`): a number box and a slider per input, whose changes the kernel
// answers with the new cell texts; and `quiz()`'s in quiz mode: an answer box on each blank's
// cell, whose answers the kernel judges.
//
// Keys (once the player has focus, or anywhere on a page of its own): → / PageDown next,
// ← / PageUp previous, Home / End first / last, Space play/pause. A key the player cannot use
// (PageDown on the last step) is let through, so a slide deck moves on; Tab is never caught.
// Where a control, a host or a key is added: docs/architecture.md ("One player").

const KEYS = {ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1, Home: "first", End: "last"};
const SPEEDS = [["slow", 2], ["normal", 1], ["fast", 0.5]];
const CHECKPOINT = 32;  // a full row kept every 32 steps: a jump rebuilds at most 31 rows
const MIN_TEXT = 10;  // px: a wide graph fits to the width only where its text stays this big

function h(tag, props, kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids || []) el.append(kid);
  return el;
}

// A step writes an attribute or a text only where it differs from what is on show: an equal
// write still invalidates style and layout (and is a DOM mutation a screen reader may hear).
function set(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
function setDisabled(button, off) {
  if (button.disabled !== off) button.disabled = off;
}

// The step's class for a node or edge, keeping the classes "ask the graph" (ask.js) put on it
// (avz-ask-node: its pointer and focus ring; avz-ask-on / -path / -picked: a term lit up).
function withAsk(el, cls) {
  const now = el.getAttribute("class") || "";
  if (now.indexOf("avz-ask") < 0) return cls;
  return [cls, ...now.split(" ").filter((c) => c.startsWith("avz-ask"))].join(" ");
}

function katexOf(win) {
  // this page's KaTeX, else the one of the page around this frame (a deck, a notebook page),
  // whose stylesheet is then copied in once
  try {
    if (win.katex) return win.katex;
    const outer = win.parent !== win && win.parent.katex ? win.parent : null;
    if (!outer) return null;
    if (!document.querySelector("style[data-avz-katex]")) {
      for (const sheet of outer.document.querySelectorAll("style")) {
        if (!sheet.textContent.includes(".katex{")) continue;
        const copy = document.createElement("style");
        copy.setAttribute("data-avz-katex", "");
        copy.textContent = sheet.textContent;
        document.head.append(copy);
        break;
      }
    }
    return outer.katex;
  } catch (e) {  // a parent page of another origin
    return null;
  }
}

// ---- the player, in small pieces: each builds its part of the page and shows a step ----------
// A piece returns {el, show(...)} (and `destroy` where it holds a listener); `mount` puts them
// together and keeps the one state: the phase and the step on show.

// Each step's row of slot strings, rebuilt from the table's changes: a full row is kept every
// CHECKPOINT steps, so a jump rebuilds at most CHECKPOINT - 1 rows.
function stepRows(data) {
  const checkpoints = [];
  const row = Int32Array.from(data.base);
  for (let i = 0; i < data.text.length; i++) {
    const c = data.changes[i];
    for (let j = 0; j < c.length; j += 2) row[c[j]] = c[j + 1];
    if (i % CHECKPOINT === 0) checkpoints.push(Int32Array.from(row));
  }
  return (i) => {
    const r = Int32Array.from(checkpoints[Math.floor(i / CHECKPOINT)]);
    for (let s = i - (i % CHECKPOINT) + 1; s <= i; s++) {
      const c = data.changes[s];
      for (let j = 0; j < c.length; j += 2) r[c[j]] = c[j + 1];
    }
    return r;
  };
}

// The graph stage: the one SVG layout, drawn once; a step restyles only the slots (a node's or
// edge's class, a cell's text) whose string differs from the one on show (`shown`).
function graphStage(data) {
  const el = h("div", {class: "avz-graph tex2jax_ignore"});
  el.innerHTML = data.svg;
  const svg = el.querySelector("svg");
  const els = data.slots.map((s) => svg.querySelector('[id="' + CSS.escape(s[1]) + '"]'));
  const shown = new Int32Array(data.slots.length).fill(-1);  // the string index each slot shows
  const rowOf = stepRows(data);
  let shownI = -1;  // the step whose row `shown` holds
  function paint(i) {
    // one step on: just that step's changes; else the whole row, compared
    if (i === shownI) return;
    const c = shownI >= 0 && i === shownI + 1 ? data.changes[i] : null;
    const r = c ? null : rowOf(i);
    const m = c ? c.length / 2 : data.slots.length;
    for (let x = 0; x < m; x++) {
      const j = c ? c[2 * x] : x;
      const v = c ? c[2 * x + 1] : r[j];
      if (v === shown[j]) continue;
      shown[j] = v;
      const e = els[j];
      if (!e) continue;
      if (data.slots[j][0] === "cell") e.textContent = data.strings[v];
      else e.setAttribute("class", withAsk(e, data.strings[v]));
    }
    shownI = i;
  }
  function show(i, k, lead) {
    paint(i);
    set(svg, "data-step", String(k));
    set(svg, "data-phase", data.pass[i]);
    set(svg, "data-active", "v" + data.active[i]);
    set(svg, "aria-label", lead + data.text[i]);  // the picture's name: the step and its equation
  }
  return {el, svg, shown, show};
}

// A graph wider than the player keeps its size and scrolls ("fit to width" where its text stays
// readable), and each step's node is brought into view.
function wideGraph(data, root, stage) {
  const fit = h("input", {type: "checkbox", class: "avz-fit",
                          onchange: () => root.classList.toggle("avz-fitted", fit.checked)});
  const el = h("div", {class: "avz-wide-note", hidden: true}, [
    h("span", {class: "avz-scroll-hint",
               text: "\u21C6 This graph is wider than the player: scroll it sideways " +
                     "(Shift + mouse wheel); each step\u2019s node comes into view."}),
    h("label", {}, [fit, " Fit to width"])]);
  const graph = stage.el;
  let wideNow = false;  // the graph is wider than its box (the ResizeObserver keeps this)
  let revealing = false;
  function reveal() {  // bring the step's node into view, in the next frame
    if (!wideNow || revealing) return;  // no layout is read after the step's writes
    revealing = true;
    requestAnimationFrame(() => {
      revealing = false;
      const node = stage.svg.querySelector("g.node.active");
      if (!node) return;
      const a = node.getBoundingClientRect(), v = graph.getBoundingClientRect();
      if (a.left < v.left || a.right > v.right) {
        graph.scrollLeft += a.left + a.width / 2 - (v.left + v.width / 2);
      }
    });
  }
  const observer = new ResizeObserver(() => {
    const room = graph.clientWidth;
    if (!room) return;  // hidden (a slide not on show): measure once shown
    const over = data.width > room + 1;  // a projector too: squeezed, its text would shrink
    wideNow = graph.scrollWidth > room;
    root.classList.toggle("avz-wide", over);
    el.hidden = !over;
    fit.parentNode.hidden = !(over && data.text_px * room / data.width >= MIN_TEXT);
    if (!over && fit.checked) { fit.checked = false; root.classList.remove("avz-fitted"); }
    reveal();
  });
  observer.observe(graph);
  return {el, show: reveal, destroy: () => observer.disconnect()};
}

// The caption: every word as the step table carries it (Frames.caption wrote it once, in
// Python); the player builds its pieces, the title coloured by the step's phase, and changes
// only the texts and the class that differ.
function captionView(data) {
  const lead = document.createTextNode("");
  const title = h("span");
  const tail = document.createTextNode("");
  const el = h("p", {class: "avz-caption"}, [lead, title, tail]);
  function show(i, leadText) {
    setText(lead, leadText);
    set(title, "class", "avz-phase-" + data.pass[i]);
    setText(title, data.heading[i]);
    setText(tail, data.tail[i]);
  }
  return {el, show};
}

// The step's equation, typeset with KaTeX where there is one (this page's or the page around
// it), else as text. Each equation is typeset once, into an element kept for its step: showing
// it again (or the next one, typeset while the learner reads this one) moves that element in,
// with no HTML to parse on the click.
function equationView(data) {
  const el = h("div", {class: "avz-eq"});
  const typeset = new Map();  // step -> its typeset element
  let onShow = null;  // [step, typeset?] on show
  function maths(katex, i) {
    if (!typeset.has(i)) {
      const box = document.createElement("div");
      box.className = "avz-eq-maths";
      box.innerHTML = katex.renderToString(data.tex[i], {displayMode: true, throwOnError: false,
                                                         output: "htmlAndMathml"});
      typeset.set(i, box);
    }
    return typeset.get(i);
  }
  function show(i, after) {  // `after`: the next step, if any
    const katex = katexOf(window);
    if (onShow && onShow[0] === i && onShow[1] === !!katex) return;  // already on show
    set(el, "data-text", data.text[i]);
    if (katex) {
      try {
        el.replaceChildren(maths(katex, i));
        if (!el.classList.contains("avz-typeset")) el.classList.add("avz-typeset");
        onShow = [i, true];
        if (after !== undefined) setTimeout(() => { try { maths(katex, after); } catch (e) {} }, 0);
        return;
      } catch (e) { /* fall back to the text */ }
    }
    if (el.classList.contains("avz-typeset")) el.classList.remove("avz-typeset");
    el.textContent = data.text[i];
    onShow = [i, false];
  }
  return {el, show};
}

// The earlier lines of the derivation, small, above the equation: steps [from, to) of a phase;
// a step on keeps the lines still in reach and adds or drops only the others.
function historyView(data) {
  const lines = data.history || 0;
  const el = h("ol", {class: "avz-history tex2jax_ignore", "aria-label": "earlier steps"});
  let from = 0, to = 0, phase = null;  // the lines on show
  function show(p, order, k) {
    const first = Math.max(0, k - lines);
    if (phase !== p || first >= to || k <= from) {
      el.replaceChildren();  // nothing to keep
      from = to = first;
      phase = p;
    }
    while (from < first) { el.firstChild.remove(); from++; }
    while (to > k) { el.lastChild.remove(); to--; }
    while (from > first) { from--; el.prepend(h("li", {text: data.text[order[from]]})); }
    while (to < k) { el.append(h("li", {text: data.text[order[to]]})); to++; }
    set(el, "start", String(first + 1));
    if (lines <= 3) {
      const tall = lines * 1.4 + "em";
      if (el.style.minHeight !== tall) el.style.minHeight = tall;
    }
    if (el.hidden !== !lines) el.hidden = !lines;
  }
  return {el, show};
}

// The controls: first, previous, play, next, last, the slider, the speed and the phase switch.
// `on` says what each does; `show` follows the step on show, `playing` the Play button.
function controlsView(data, on) {
  const button = (name, text, label, click) =>
    h("button", {type: "button", class: "avz-button avz-" + name, title: label,
                 "aria-label": label, onclick: click, text: text});
  const first = button("first", "First", "First step (Home)", on.first);
  const prev = button("prev", "\u25C0 Prev", "Previous step (\u2190 or PageUp)", on.prev);
  const play = button("play", "\u25B6 Play", "Play (Space)", on.play);
  const next = button("next", "Next \u25B6", "Next step (\u2192 or PageDown)", on.next);
  const last = button("last", "Last", "Last step (End)", on.last);
  const slider = h("input", {type: "range", class: "avz-slider", min: "1", value: "1",
                             "aria-label": "Step", oninput: () => on.slide(slider.value - 1)});
  const ms = data.interval || 1000;
  const speed = h("select", {class: "avz-speed", "aria-label": "Speed", onchange: on.speed},
    SPEEDS.map(([name, f]) => h("option", {value: String(Math.round(ms * f)),
                                           selected: f === 1, text: name})));
  const phases = {};
  for (const p of ["forward", "backward", "both"]) {
    const why = data.refused && data.refused[p];
    phases[p] = h("button", {type: "button", class: "avz-button avz-phase", "data-phase": p,
                             "aria-pressed": "false", disabled: !!why || !data.phases[p],
                             title: why || (p === "both" ? "Forward, then backward" :
                                            p[0].toUpperCase() + p.slice(1) + " pass only"),
                             onclick: () => on.phase(p), text: p});
  }
  const phaseBox = h("div", {class: "avz-phases", role: "group", "aria-label": "Phase"},
                     Object.values(phases));
  const el = h("div", {class: "avz-controls"},
    [first, prev, play, next, last, slider, h("label", {}, ["speed ", speed]), phaseBox]);
  function show(phase, k, n, said) {  // `said`: the caption, as the slider's value text
    set(slider, "max", String(n));
    if (slider.value !== String(k + 1)) slider.value = String(k + 1);
    set(slider, "aria-valuetext", said);
    setDisabled(first, k === 0);
    setDisabled(prev, k === 0);
    setDisabled(next, k === n - 1);
    setDisabled(last, k === n - 1);
    for (const [p, b] of Object.entries(phases)) set(b, "aria-pressed", String(p === phase));
  }
  function playing(yes) {
    setText(play, yes ? "\u275A\u275A Pause" : "\u25B6 Play");
    set(play, "aria-label", yes ? "Pause (Space)" : "Play (Space)");
  }
  return {el, show, playing, interval: () => Number(speed.value)};
}

// The graph as text: label, operation, value, gradient and state of each value, as of the step
// on show (read from the slots the stage shows); filled while it is open.
function tableView(data, shown) {
  const tbody = h("tbody");
  const cells = {}, nodeIndex = {};
  data.slots.forEach((s, j) => {
    if (s[0] === "cell") cells[s[1]] = j;
    if (s[0] === "node") nodeIndex[s[1]] = j;
  });
  const rows = (data.nodes || []).map(([id, label, op]) => {
    const tds = [label, op, "", "", ""].map((t) => h("td", {text: t}));
    tbody.append(h("tr", {"data-node": id}, tds));
    return [id, tds];
  });
  const el = h("details", {class: "avz-table"}, [
    h("summary", {text: "The graph as a table"}),
    h("table", {}, [
      h("caption", {text: "Every value of the graph, as of the step on show"}),
      h("thead", {}, [h("tr", {}, ["label", "operation", "value", "gradient", "state"]
        .map((t) => h("th", {scope: "col", text: t})))]),
      tbody])]);
  const strip = (text) => text.replace(/^(data|grad) /, "");
  function fill() {
    for (const [id, tds] of rows) {
      const d = cells[id + "-data"], g = cells[id + "-grad"];
      setText(tds[2], d === undefined ? "" : strip(data.strings[shown[d]]));
      setText(tds[3], g === undefined ? "" : strip(data.strings[shown[g]]));
      const cls = nodeIndex[id] === undefined ? "" : data.strings[shown[nodeIndex[id]]];
      const state = /\bbackward\b/.test(cls) ? "gradient final" :
        /\bforward\b/.test(cls) ? "value computed" : "not computed yet";
      setText(tds[4], state + (/\bactive\b/.test(cls) ? " \u2014 this step" : ""));
    }
  }
  el.addEventListener("toggle", () => { if (el.open) fill(); });
  return {el, show: () => { if (el.open) fill(); }, fill};
}

// What a key asks of a player on step k of n: "toggle" (Space), a step to go to, or null: the
// key is not the player's (a modifier, a text field's, Space on a button, PageDown on the last
// step) and is let through.
function keyAction(e, k, n) {
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || !(e.key in KEYS || e.key === " ")) {
    return null;
  }
  const t = e.target || {};
  const tag = t.tagName;
  const typing = tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && t.type !== "range");
  if (typing) return null;
  if (e.key === " ") {
    return tag === "BUTTON" || tag === "SUMMARY" || tag === "INPUT" ? null : "toggle";  // theirs
  }
  const move = KEYS[e.key];
  const target = move === "first" ? 0 : move === "last" ? n - 1 : k + move;
  return target < 0 || target > n - 1 || target === k ? null : target;
}

// The keys on the player, and on the page too where the player is the page's own (`pageKeys`:
// a key pressed with nothing focused); `use(e)` says whether the player used the key.
function keyboard(root, pageKeys, use) {
  const onPage = (e) => {
    const t = e.target;
    if (t === document.body || t === document.documentElement) use(e);
  };
  root.addEventListener("keydown", use);
  if (pageKeys) document.addEventListener("keydown", onPage);
  return {destroy: () => { if (pageKeys) document.removeEventListener("keydown", onPage); }};
}

// Play: one step on per tick of the speed menu's interval, stopping on the last step; `at()`
// is the step on show and `go` shows another.
function playClock(controls, at, count, go) {
  let timer = null;
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    controls.playing(false);
  }
  function start() {
    if (at() >= count() - 1) go(0);
    controls.playing(true);
    timer = setInterval(() => { if (at() >= count() - 1) stop(); else go(at() + 1); },
                        controls.interval());
  }
  return {stop, start, toggle: () => (timer ? stop() : start()), running: () => timer !== null};
}

// The host hears of a step once the frame showing it is painted: the widget's sync to the
// kernel (serialising, sending) is then not part of the click's frame. Steps in between
// (Play, a held key) are told once, as the latest; a hidden page runs no frames, so a timer
// tells it there.
function teller(tellNow) {
  let telling = false;
  function told() {
    if (!telling) return;
    telling = false;
    tellNow();
  }
  return {
    tell() {
      if (telling) return;
      telling = true;
      requestAnimationFrame(() => setTimeout(told, 0));
      setTimeout(told, 100);
    },
    cancel() { telling = false; },
  };
}

export function mount(el, data, options) {
  const opts = options || {};
  let phase = data.phases[opts.phase] ? opts.phase : data.phase;
  if (!data.phases[phase]) phase = Object.keys(data.phases)[0];
  let k = 0;  // the step on show, in the phase's order
  const count = () => data.phases[phase].length;

  const title = data.title || "Backpropagation, step by step";
  const root = h("div", {class: "avz-player" + (data.projector ? " avz-projector" : ""),
                         role: "group", "aria-label": "Backpropagation player: " + title,
                         tabindex: "0"});
  const stage = graphStage(data);
  const wide = wideGraph(data, root, stage);
  const history = historyView(data);
  const caption = captionView(data);
  const equation = equationView(data);
  const controls = controlsView(data, {
    first: () => { stop(); go(0); },
    prev: () => { stop(); go(k - 1); },
    play: () => toggle(),
    next: () => { stop(); go(k + 1); },
    last: () => { stop(); go(count() - 1); },
    slide: (i) => { stop(); go(i); },
    speed: () => { if (clock.running()) { stop(); clock.start(); } },
    phase: (p) => setPhase(p),
  });
  const table = tableView(data, stage.shown);
  const now = h("div", {class: "avz-now", "aria-live": "polite", "aria-atomic": "true"},
                [caption.el, equation.el]);
  root.append(stage.el, wide.el, history.el, now, controls.el, table.el);
  el.append(root);
  const host = teller(() => opts.onChange(k + 1, phase));

  function go(target, quiet) {
    const order = data.phases[phase];
    k = Math.max(0, Math.min(order.length - 1, Number(target) || 0));
    const i = order[k];
    const lead = data.leads[phase][k];  // "step 3 of 9 — ", as Python's caption wrote it
    stage.show(i, k, lead);
    caption.show(i, lead);
    set(root, "data-step", String(k + 1));
    set(root, "data-phase", phase);
    equation.show(i, order[k + 1]);
    history.show(phase, order, k);
    controls.show(phase, k, order.length, caption.el.textContent);
    table.show();
    wide.show();
    if (!quiet && opts.onChange) host.tell();
  }
  function typeset() { equation.show(data.phases[phase][k], data.phases[phase][k + 1]); }

  const clock = playClock(controls, () => k, count, go);
  const stop = clock.stop, toggle = clock.toggle;
  function setPhase(p, quiet) {
    if (!data.phases[p] || (p === phase && !quiet)) return;
    stop();
    phase = p;
    go(0, quiet);
  }

  function key(e) {  // true if the player used the key (then nothing else should)
    const action = keyAction(e, k, count());
    if (action === null) return false;
    if (action === "toggle") toggle();
    else { stop(); go(action); }
    e.preventDefault();
    e.stopPropagation();
    return true;
  }
  const keys = keyboard(root, opts.pageKeys, key);

  go((Number(opts.step) || Number(data.start) || 1) - 1, true);
  table.fill();  // filled before it is first opened (its toggle event comes a task later)
  if (data.ask) attachAsk(root, stage.svg, data.ask);  // eslint-disable-line no-undef

  const api = {
    root: root,
    step: () => k,
    count: count,
    go: (i) => { stop(); go(i); },
    phase: () => phase,
    setPhase: (p) => setPhase(p),
    show: (step1, p) => {  // from the kernel: no echo back
      if (p && p !== phase && data.phases[p]) { stop(); phase = p; }
      go(step1 - 1, true);
    },
    key: key,
    typeset: typeset,
    destroy: () => {
      stop();
      host.cancel();
      wide.destroy();
      keys.destroy();
      root.remove();
    },
  };
  root.avzPlayer = api;
  return api;
}

// ---- live slides (jupyterlab-slideshow's deck mode, presenting): the remote steps players ----
// No click is needed there: PageDown and → step the player on screen to its last step, then
// the deck moves on (its remote's buttons: the deck itself binds only the arrows and Space);
// PageUp and ← the reverse. One listener per page, before the deck's own.

function deckStep(dir) {
  // step the first (going on) or last (going back) player on screen with a step left
  const cells = [...document.querySelectorAll(".jp-Deck .jp-Cell.jp-deck-mod-onscreen")];
  for (const cell of dir > 0 ? cells : cells.reverse()) {
    if (!cell.classList.contains("jp-deck-mod-visible")) {
      if (dir > 0) return false;  // a fragment still to show comes first
      continue;
    }
    const root = cell.querySelector(".avz-player");
    const api = root && root.avzPlayer;
    if (!api) continue;
    const k = api.step();
    if (dir > 0 ? k >= api.count() - 1 : k <= 0) continue;
    api.go(k + dir);
    return true;
  }
  return false;
}

function deckOnScreen() {  // what the room sees: the cells on screen, and which are shown
  const cells = document.querySelectorAll(".jp-Deck .jp-Cell.jp-deck-mod-onscreen");
  return [...cells].map((c) => [...c.parentNode.children].indexOf(c) +
    (c.classList.contains("jp-deck-mod-visible") ? "v" : "h")).join(",");
}

function deckMove(ways, tries) {
  // no step left: the deck moves through its remote's buttons. PageDown/PageUp go as Space
  // does ("down": fragment, subslide, next cell; else "forward"); a move that shows nothing
  // new is followed by the next one, so every press shows something
  let button = null;
  for (const way of ways) {
    button = button || document.querySelector(
      ".jp-Deck-Remote .jp-deck-mod-direction-" + way + ":not(.jp-mod-disabled)");
  }
  if (!button) return false;
  const before = deckOnScreen();
  let waited = 0;
  button.click();
  if (ways.length < 2 || (tries || 0) > 20) return true;
  const check = () => {
    if (deckOnScreen() !== before) return;
    if (waited < 300) { waited += 50; setTimeout(check, 50); return; }
    deckMove(ways, (tries || 0) + 1);
  };
  setTimeout(check, 50);
  return true;
}

function liveSlideKeys() {
  if (typeof window === "undefined" || window.avzLiveSlideKeys) return;
  window.avzLiveSlideKeys = true;
  window.addEventListener("keydown", (e) => {
    if (!document.body || document.body.dataset.jpDeckMode !== "presenting") return;
    const dir = {PageDown: 1, ArrowRight: 1, PageUp: -1, ArrowLeft: -1}[e.key];
    if (!dir || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const t = e.target;
    if (t.closest && t.closest("input:not(.avz-slider), textarea, select, .cm-editor")) return;
    if (!deckStep(dir)) {
      const ways = e.key === "PageDown" ? ["down", "forward"] :
        e.key === "PageUp" ? ["up", "back"] : [dir > 0 ? "forward" : "back"];
      if (!deckMove(ways)) return;
    }
    e.preventDefault();
    e.stopPropagation();
  }, true);
}

// ---- explore mode: the drawing and a number box and a slider per input -----------------------
// The widget of `explore()` (autograd_viz.front.explore): changing an input sends {req, inputs}
// to the kernel (`request`); the kernel answers with `result`: the texts of every data and grad
// cell by id, the ask table, and a new `svg` only when the graph's shape changed. No answer
// within `timeout_ms`: the kernel is gone (stopped, or this is an export), and the view says so
// instead of freezing.

const EXPLORE_CSS = [
  ".avz-explore-controls { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 4px 0; }",
  ".avz-explore-input { display: flex; align-items: center; gap: 6px; }",
  ".avz-explore-input input[type=number] { width: 6.5em; }",
  ".avz-explore-input input:focus-visible { outline: 3px solid var(--avz-focus);" +
    " outline-offset: 1px; }",
  ".avz-explore-status { min-height: 1.3em; font-size: 0.95em; }",
  // no kernel: the numbers shown are the last it sent, not those of the inputs now
  ".avz-explore[data-kernel=gone] .avz-explore-drawing { opacity: 0.5; }",
  ".avz-explore-status.avz-gone, .avz-explore-status.avz-error { font-weight: bold; }",
  ".avz-explore-status.avz-gone::before, .avz-explore-status.avz-error::before" +
    " { content: '\u26A0 '; }",
].join("\n");

// A number box and a slider per input (`spec`: name, value, min, max, step), each following the
// other; `changed()` hears of a whole number, `halfTyped(name)` of a box not (yet) a number.
function inputsView(spec, on) {
  const el = h("div", {class: "avz-explore-controls"});
  const boxes = {};
  for (const s of spec) {
    const number = h("input", {type: "number", step: "any", value: String(s.value), name: s.name,
                               "aria-label": s.name + ", a number"});
    const slider = h("input", {type: "range", min: String(s.min), max: String(s.max),
                               step: String(s.step), value: String(s.value),
                               "aria-label": s.name + ", a slider"});
    number.addEventListener("input", () => {
      // half-typed ("-", "1e"): wait for a number rather than ask the kernel about it
      if (!Number.isFinite(number.valueAsNumber)) { on.halfTyped(s.name); return; }
      slider.value = number.value;
      on.changed();
    });
    slider.addEventListener("input", () => { number.value = slider.value; on.changed(); });
    const name = h("span", {text: s.name});
    el.append(h("label", {class: "avz-explore-input"}, [name, number, slider]));
    boxes[s.name] = {number, slider};
  }
  function values() {
    const out = {};
    for (const [name, box] of Object.entries(boxes)) {
      const x = box.number.valueAsNumber;
      out[name] = Number.isFinite(x) ? x : box.number.value;
    }
    return out;
  }
  function show(inputs) {  // inputs set from Python (ex.inputs = ...): the boxes follow
    for (const [name, box] of Object.entries(boxes)) {
      if (name in inputs && box.number.valueAsNumber !== inputs[name]) {
        box.number.value = String(inputs[name]);
        box.slider.value = String(inputs[name]);
      }
    }
  }
  return {el, values, show};
}

// The line under the inputs: the output's value, a note (laid out again) or what went wrong.
function statusLine() {
  const el = h("div", {class: "avz-explore-status", role: "status", "aria-live": "polite"});
  function say(text, kind) {
    el.textContent = text;
    el.className = "avz-explore-status" + (kind ? " avz-" + kind : "");
  }
  return {el, say};
}

// The drawing: the kernel's SVG, its value nodes buttons that ask the graph (ask.js); drawn
// again only when the graph's shape changed, else only its cell texts change (`cells`).
function exploreDrawing(root) {
  const el = h("div", {class: "avz-explore-drawing"});
  el.style.overflowX = "auto";
  let svg = null, ask = null;
  function draw(text, table) {
    if (ask) ask.detach();
    el.innerHTML = text;
    svg = el.querySelector("svg");
    if (svg) {
      // a group, not an image: its value nodes are buttons a screen reader must reach
      svg.setAttribute("role", "group");
      svg.setAttribute("aria-label", "the computation graph; Tab to a value to ask about it");
    }
    ask = svg ? attachAsk(root, svg, table) : null;  // eslint-disable-line no-undef
  }
  function cells(texts, table) {
    if (svg) {
      for (const [id, text] of Object.entries(texts || {})) {
        const cell = svg.querySelector('[id="' + id + '"]');
        if (cell) setText(cell, text);
      }
    }
    if (ask) ask.update(table);
  }
  return {el, draw, cells, destroy: () => { if (ask) ask.detach(); }};
}

// The kernel's side of a change: one request on its way at a time (a change meanwhile waits
// and goes with the answer, the latest only); no answer within `timeout_ms` says "no kernel".
function kernelLink(model, root, gone) {
  let req = 0, answered = 0, inFlight = false, pending = null, timer = null;
  function lost() {
    clearTimeout(timer);
    inFlight = false;
    root.dataset.kernel = "gone";
    gone();
  }
  function send(values) {
    const mine = (req += 1);
    inFlight = true;
    root.dataset.sent = String(mine);
    clearTimeout(timer);
    timer = setTimeout(() => { if (answered < mine) lost(); }, model.get("timeout_ms"));
    try {
      model.set("request", {req: mine, inputs: values});
      model.save_changes();
    } catch (err) {
      lost();
    }
  }
  function answer(n) {  // the kernel answered request n (or, n < 1, Python set the inputs)
    if (n > 0) answered = Math.max(answered, n);
    if (n >= req) { clearTimeout(timer); inFlight = false; }
    if (root.dataset.kernel === "gone") delete root.dataset.kernel;  // it answered after all
  }
  function next() {  // a change made while the last request was on its way goes now
    if (!inFlight && pending) { const values = pending; pending = null; send(values); }
  }
  return {
    change(values) { if (inFlight) pending = values; else send(values); },
    answer,
    next,
    destroy: () => clearTimeout(timer),
  };
}

function perfMark(name) {
  // for benchmarks/explore_update.py: when an answer arrived and when it was applied
  if (typeof performance === "undefined" || !performance.mark) return;
  performance.clearMarks(name);
  performance.mark(name);
}

// Explore mode: the pieces put together on an anywidget model (svg, spec, inputs, request,
// result, kernel_gone, timeout_ms); returns the cleanup.
function exploreView(model, el) {
  const root = h("div", {class: "avz-explore"});
  const status = statusLine();
  const drawing = exploreDrawing(root);
  const inputs = inputsView(model.get("spec"), {
    changed: () => link.change(inputs.values()),
    halfTyped: (name) => status.say(name + ": type a number", "error"),
  });
  const link = kernelLink(model, root, () => status.say(model.get("kernel_gone"), "gone"));
  root.append(h("style", {text: EXPLORE_CSS}), inputs.el, status.el, drawing.el);
  el.appendChild(root);

  function apply() {
    perfMark("avz-explore-answer");
    const result = model.get("result") || {};
    if (!result.req || result.req < 0) inputs.show(model.get("inputs") || {});  // from Python
    link.answer(result.req);
    drawing.cells(result.cells, result.ask);
    if (result.error) status.say(result.error, "error");
    else if (result.note) status.say(result.note, "note");
    else status.say(result.summary || "", "");
    root.dataset.answered = String(result.req);
    perfMark("avz-explore-applied");
    link.next();
  }
  const redraw = () => drawing.draw(model.get("svg"), (model.get("result") || {}).ask);
  redraw();
  apply();
  model.on("change:svg", redraw);
  model.on("change:result", apply);
  return () => {
    link.destroy();
    model.off("change:svg", redraw);
    model.off("change:result", apply);
    drawing.destroy();
  };
}

// ---- quiz mode: the drawing with an answer box on each blank's cell --------------------------
// The widget of `quiz()` (autograd_viz.front.quiz): `svg` is the layout with every blank a "?",
// `asked` each blank's cell and label (never its answer), `slots` what a state restyles and
// `state` the board now. An answer typed into a box goes to the kernel as {answer, text, req};
// the kernel judges it and answers with the next `state` (the verdict as text, the cells of
// the blanks filled in). No answer within `timeout_ms`: the view says there is no kernel.

const CELL_PAD = 3;  // the value label's CELLPADDING (autograd_viz.view.dot.value_label)
const MIN_BOX = 30;  // a box narrower than its cell's "grad ?" still takes a typed "5+3"

// A shape's extent in the drawing's own units, read from its points: no layout is needed, so
// the boxes are placed before the quiz is on the page (a weight's rounded box is a path, whose
// corners' control points stay inside it).
function shapeBox(shape) {
  const xs = [], ys = [];
  if (shape.tagName === "polygon") {
    for (const p of shape.points) { xs.push(p.x); ys.push(p.y); }
  } else {
    const n = (shape.getAttribute("d") || "").match(/-?\d+(?:\.\d+)?/g) || [];
    n.forEach((v, j) => (j % 2 ? ys : xs).push(Number(v)));
  }
  if (!xs.length) return null;
  return {left: Math.min(...xs), right: Math.max(...xs),
          top: Math.min(...ys), bottom: Math.max(...ys)};
}

// Where the data or grad cell `id` ("v1-grad") is drawn: from the rule before its text (or its
// padding) to the next rule (or the node's right edge), the node's full height.
function cellBox(svg, id) {
  const text = svg.querySelector('[id="' + CSS.escape(id) + '"]');
  const node = text && text.closest("g.node");
  if (!node) return null;
  const rules = [], shapes = [];
  for (const p of node.querySelectorAll("polygon")) {
    const b = shapeBox(p);
    if (b && b.right - b.left < 1) rules.push(b.left);
    else if (b) shapes.push(b);
  }
  if (!shapes.length) node.querySelectorAll("path").forEach((p) => shapes.push(shapeBox(p)));
  const area = (b) => (b ? (b.right - b.left) * (b.bottom - b.top) : Infinity);
  const box = shapes.reduce((a, b) => (area(b) < area(a) ? b : a), null);
  if (!box) return null;
  const x = text.x.baseVal.length ? text.x.baseVal[0].value : Number(text.getAttribute("x"));
  const before = rules.filter((r) => r <= x), after = rules.filter((r) => r > x);
  const left = before.length ? Math.max(...before) : x - CELL_PAD;
  const right = after.length ? Math.min(...after) : box.right;
  return {x: left, y: box.top, width: Math.max(right - left, MIN_BOX), height: box.bottom - box.top};
}

// One answer box, laid over its blank's cell inside the drawing (so it scales and scrolls with
// it); Enter sends what is typed, and so does leaving a box whose text changed. An emptied box
// is no answer.
function blankBox(svg, blank, k, help, answer) {
  const box = cellBox(svg, blank.cell) || {x: 0, y: 0, width: 40, height: 20};
  const fo = document.createElementNS("http://www.w3.org/2000/svg", "foreignObject");
  for (const [name, v] of Object.entries(box)) fo.setAttribute(name, String(v));
  fo.setAttribute("class", "avz-quiz-blank");
  fo.dataset.node = blank.cell.split("-")[0];
  let sent = null;
  const send = () => {
    if (!input.value.trim()) return;
    sent = input.value;
    answer(k, input.value);
  };
  const enter = (e) => { if (e.key === "Enter") { e.preventDefault(); send(); } };
  const input = h("input", {type: "text", class: "avz-quiz-input", "aria-label": blank.label,
                            title: blank.label + ": " + help, autocomplete: "off",
                            spellcheck: "false", placeholder: blank.what + " ?", onkeydown: enter,
                            onchange: () => { if (input.value !== sent) send(); }});
  fo.append(input);
  return {fo, input};
}

// The texts under the drawing: progress, the verdict (a status a screen reader hears), and the
// step's equation, offered after two misses on a blank and shown when asked for.
function quizTexts(ask) {
  const progress = h("p", {class: "avz-quiz-progress"});
  const feedback = h("div", {class: "avz-quiz-feedback", role: "status", "aria-live": "polite"});
  const offer = h("button", {type: "button", class: "avz-button avz-quiz-offer", hidden: true,
                             text: "\uD83D\uDCA1 Show the step's equation",
                             onclick: () => ask(Number(offer.dataset.blank))});
  const equation = h("div", {class: "avz-quiz-equation", "aria-live": "polite"});
  function show(state) {
    setText(progress, state.progress || "");
    setText(feedback, state.feedback || "");
    set(feedback, "class", "avz-quiz-feedback" + (state.right === true ? " avz-quiz-right" :
                                                  state.right === false ? " avz-quiz-wrong" : ""));
    const offered = state.offered === undefined ? -1 : state.offered;
    offer.hidden = offered < 0;
    offer.dataset.blank = String(offered);
    setText(equation, state.equation || "");
  }
  return {els: [progress, feedback, offer, equation], show};
}

// The kernel's side of the quiz: every message goes (an answer is never dropped for a later
// one); no answer within `timeout_ms` says "no kernel" (a saved notebook, an export).
function quizLink(model, root, gone) {
  let req = 0, answered = 0, timer = null;
  function lost() {
    root.dataset.kernel = "gone";
    gone();
  }
  function send(msg) {
    const mine = (req += 1);
    root.dataset.sent = String(mine);
    clearTimeout(timer);
    timer = setTimeout(() => { if (answered < mine) lost(); }, model.get("timeout_ms"));
    try { model.send(Object.assign({req: mine}, msg)); } catch (err) { clearTimeout(timer); lost(); }
  }
  function answer(n) {
    if (!(n > 0)) return;
    answered = Math.max(answered, n);
    if (n >= req) clearTimeout(timer);
    if (root.dataset.kernel === "gone") delete root.dataset.kernel;
  }
  return {send, answer, destroy: () => clearTimeout(timer)};
}

// Quiz mode: the pieces put together on an anywidget model; returns the cleanup.
function quizView(model, el) {
  const root = h("div", {class: "avz-quiz"});
  const drawing = h("div", {class: "avz-quiz-drawing tex2jax_ignore"});
  drawing.innerHTML = model.get("svg");
  const svg = drawing.querySelector("svg");
  // a group, not an image: the answer boxes inside it are fields a screen reader must reach
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", "the graph to fill in: Tab to the next blank");
  const link = quizLink(model, root, () => texts.show(Object.assign({}, model.get("state"),
    {feedback: "\u26A0 " + model.get("kernel_gone"), right: null})));
  const texts = quizTexts((k) => link.send({equation: k}));
  const layer = svg.querySelector("g.graph") || svg;
  const blanks = model.get("asked").map((b, k) =>
    blankBox(svg, b, k, model.get("answer_help"), (j, text) => link.send({answer: j, text})));
  for (const b of blanks) layer.append(b.fo);  // in Tab order: the order the passes fill them
  const els = model.get("slots").map((s) => svg.querySelector('[id="' + CSS.escape(s[1]) + '"]'));
  root.append(h("p", {class: "avz-quiz-intro", text: model.get("intro")}), drawing, ...texts.els);
  el.appendChild(root);

  function apply() {
    const state = model.get("state") || {};
    (state.shown || []).forEach((v, j) => {
      const e = els[j];
      if (!e) return;
      if (model.get("slots")[j][0] === "cell") setText(e, v);
      else set(e, "class", v);
    });
    const active = (root.getRootNode() || document).activeElement;  // marimo: a shadow root
    const focused = blanks.findIndex((b) => b.input === active);
    blanks.forEach((b, k) => {
      const solved = !!(state.solved || [])[k], missed = !!(state.missed || [])[k];
      if (b.fo.style.display !== (solved ? "none" : "")) b.fo.style.display = solved ? "none" : "";
      set(b.input, "aria-invalid", String(missed));
      set(b.fo, "class", "avz-quiz-blank" + (missed ? " avz-quiz-missed" : ""));
    });
    const solved = state.solved || [];
    for (let j = 1; focused >= 0 && solved[focused] && j < blanks.length; j++) {
      const m = (focused + j) % blanks.length;  // filled in: on to the next blank left
      if (!solved[m]) { blanks[m].input.focus(); break; }
    }
    texts.show(state);
    link.answer(state.req);
    root.dataset.answered = String(state.req || 0);
  }
  apply();
  model.on("change:state", apply);
  return () => { link.destroy(); model.off("change:state", apply); };
}

// ---- the widget: anywidget renders the same player, with `step` and `phase` synced ----------

export function installKatex(js, css) {
  // KaTeX's script run as a module of its own (no global `define` can take it), once a page
  if (katexOf(window)) return katexOf(window);
  const style = document.createElement("style");
  style.textContent = css;
  document.head.append(style);
  const m = {exports: {}};
  new Function("module", "exports", "define", js)(m, m.exports, undefined);
  window.katex = m.exports.default || m.exports;
  return window.katex;
}

export async function unpackKatex(base64) {
  // a page's packed KaTeX: gzip'd JSON {js, css}, so an exported notebook stays small
  if (katexOf(window) || typeof DecompressionStream === "undefined") return katexOf(window);
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const packed = JSON.parse(await new Response(stream).text());
  return installKatex(packed.js, packed.css);
}

// KaTeX comes from the kernel (a custom message of ~300 KB, never saved in the notebook), once
// a page: one player asks, the first answer typesets every player waiting. A player restored
// from a saved notebook has no kernel side (the widget manager drops its message unsent), so
// it must not keep the others waiting: a request the kernel's connection never serialised
// (our toJSON, on the prototype so a structured clone leaves it out) is given up after a
// moment, a sent one after a long while or when its player goes; then the newest player asks.
const KATEX_GIVE_UP_MS = {unsent: 1500, sent: 30000};

function askKatex(page) {
  if (page.asking || katexOf(window)) return;
  const next = page.waiting.slice().reverse().find((w) => !w.asked);
  if (!next) return;
  next.asked = true;
  page.asking = next;
  const giveUpIn = (ms) => {
    clearTimeout(page.timer);
    page.timer = setTimeout(() => {
      if (page.asking !== next) return;
      page.asking = null;
      askKatex(page);
    }, ms);
  };
  const request = Object.create({
    toJSON() {
      if (page.asking === next) giveUpIn(KATEX_GIVE_UP_MS.sent);
      return {want: "katex"};
    },
  });
  request.want = "katex";
  giveUpIn(KATEX_GIVE_UP_MS.unsent);
  next.model.send(request);
}

function loadKatex(model, api) {
  if (katexOf(window)) return () => {};
  const page = (window.avzKatex = window.avzKatex || {waiting: [], asking: null});
  const me = {model, api, asked: false};
  page.waiting.push(me);
  model.on("msg:custom", (msg) => {
    if (!msg || !msg.katex || katexOf(window)) return;
    installKatex(msg.katex, msg.css);
    clearTimeout(page.timer);
    for (const waiting of page.waiting) waiting.api.typeset();
    page.waiting = [];
    page.asking = null;
  });
  askKatex(page);
  return () => {  // the player goes: it no longer waits, nor asks for the others
    page.waiting = page.waiting.filter((w) => w !== me);
    if (page.asking !== me) return;
    page.asking = null;
    clearTimeout(page.timer);
    askKatex(page);
  };
}

// ---- the kernel's messages, past anywidget's wait -------------------------------------------
// anywidget (0.11) gives a model 2 s to load this module, and past that (a busy machine: the
// browser edition's kernel starting beside it, a loaded classroom laptop) it drops every
// message the kernel sends that model, for good ("[anywidget] Failed to initialize model."):
// explore and the quiz would wait for answers that never come and say the kernel had gone.
// Once a view renders, the module is here and that wait is over, so the model's messages go
// straight to ipywidgets' own handler, the one anywidget calls after its wait. `key` names a
// trait whose value is an object, which finds this view's model among the manager's. A host
// without ipywidgets' comm or without anywidget's wait (marimo) is left as it is.
function hearTheKernel(model, key) {
  const models = model.widget_manager && model.widget_manager._models;
  const mine = model.get(key);
  if (!models || typeof models !== "object" || !mine || typeof mine !== "object") return;
  for (const pending of Object.values(models)) {
    Promise.resolve(pending).then((raw) => {
      if (!raw || typeof raw.get !== "function" || raw.get(key) !== mine) return;
      const own = Object.getPrototypeOf(raw), base = own && Object.getPrototypeOf(own);
      const handle = base && base._handle_comm_msg;
      const comm = raw.comm;
      if (raw.avzHearsKernel || !comm || typeof comm.on_msg !== "function" ||
          typeof handle !== "function" || handle === own._handle_comm_msg) return;
      comm.on_msg((msg) => handle.call(raw, msg));
      raw.avzHearsKernel = true;
    }, () => {});
  }
}

function render({model, el}) {
  const mode = model.get("mode");
  hearTheKernel(model, {explore: "spec", quiz: "asked"}[mode] || "data");
  if (mode === "explore") return exploreView(model, el);
  if (mode === "quiz") return quizView(model, el);
  liveSlideKeys();
  const api = mount(el, model.get("data"), {
    step: model.get("step"),
    phase: model.get("phase"),
    onChange: (step, phase) => {
      model.set("step", step);
      model.set("phase", phase);
      model.save_changes();
    },
  });
  const follow = () => api.show(model.get("step"), model.get("phase"));
  model.on("change:step", follow);
  model.on("change:phase", follow);
  const leaveKatex = loadKatex(model, api);
  return () => {
    model.off("change:step", follow);
    model.off("change:phase", follow);
    leaveKatex();
    api.destroy();
  };
}

export default {render};
