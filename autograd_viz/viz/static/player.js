// The one backprop player (autograd_viz.viz.steptable builds its data). Every place a learner
// meets a player runs this module: the widget (anywidget calls `render`), the standalone page,
// the widget-free inline player and the slide deck (they call `mount`). It draws the one SVG
// layout once and, per step, changes only the class attributes and cell texts of the slots the
// step table lists; stepping, play/pause, speed, phase, keys, projector sizing and wide-graph
// scrolling need no kernel.
//
// Keys (once the player has focus, or anywhere on a page of its own): → / PageDown next,
// ← / PageUp previous, Home / End first / last, Space play/pause. A key the player cannot use
// (PageDown on the last step) is let through, so a slide deck moves on; Tab is never caught.
// Where a control, a host or a key is added: docs/architecture.md ("One player").

const KEYS = {ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1, Home: "first", End: "last"};
const SPEEDS = [["slow", 2], ["normal", 1], ["fast", 0.5]];
const CHECKPOINT = 32;  // a full row kept every 32 steps: a jump rebuilds at most 31 rows

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

export function mount(el, data, options) {
  const opts = options || {};
  const n = data.text.length;
  const nSlots = data.slots.length;
  // rows: checkpoints of full rows (string indices per slot), rebuilt from the changes
  const checkpoints = [];
  let row = Int32Array.from(data.base);
  for (let i = 0; i < n; i++) {
    const c = data.changes[i];
    for (let j = 0; j < c.length; j += 2) row[c[j]] = c[j + 1];
    if (i % CHECKPOINT === 0) checkpoints.push(Int32Array.from(row));
  }
  function rowOf(i) {
    const r = Int32Array.from(checkpoints[Math.floor(i / CHECKPOINT)]);
    for (let s = i - (i % CHECKPOINT) + 1; s <= i; s++) {
      const c = data.changes[s];
      for (let j = 0; j < c.length; j += 2) r[c[j]] = c[j + 1];
    }
    return r;
  }

  const title = data.title || "Backpropagation, step by step";
  const root = h("div", {class: "avz-player" + (data.projector ? " avz-projector" : ""),
                         role: "group", "aria-label": "Backpropagation player: " + title,
                         tabindex: "0"});
  const graph = h("div", {class: "avz-graph tex2jax_ignore"});
  graph.innerHTML = data.svg;
  const svg = graph.querySelector("svg");
  const els = data.slots.map((s) => svg.querySelector('[id="' + CSS.escape(s[1]) + '"]'));
  const shown = new Int32Array(nSlots).fill(-1);  // the string index each slot shows now
  const history = h("ol", {class: "avz-history tex2jax_ignore", "aria-label": "earlier steps"});
  const caption = h("p", {class: "avz-caption"});
  const eq = h("div", {class: "avz-eq"});
  const now = h("div", {class: "avz-now", "aria-live": "polite", "aria-atomic": "true"},
                [caption, eq]);

  const button = (name, text, label, click) =>
    h("button", {type: "button", class: "avz-button avz-" + name, title: label,
                 "aria-label": label, onclick: click, text: text});
  const first = button("first", "First", "First step (Home)", () => { stop(); go(0); });
  const prev = button("prev", "\u25C0 Prev", "Previous step (\u2190 or PageUp)",
                      () => { stop(); go(k - 1); });
  const play = button("play", "\u25B6 Play", "Play (Space)", () => toggle());
  const next = button("next", "Next \u25B6", "Next step (\u2192 or PageDown)",
                      () => { stop(); go(k + 1); });
  const last = button("last", "Last", "Last step (End)", () => { stop(); go(count() - 1); });
  const slider = h("input", {type: "range", class: "avz-slider", min: "1", value: "1",
                             "aria-label": "Step", oninput: () => { stop(); go(slider.value - 1); }});
  const ms = data.interval || 1000;
  const speed = h("select", {class: "avz-speed", "aria-label": "Speed",
                             onchange: () => { if (timer) { stop(); start(); } }},
    SPEEDS.map(([name, f]) => h("option", {value: String(Math.round(ms * f)),
                                           selected: f === 1, text: name})));
  const phaseButtons = {};
  const phaseBox = h("div", {class: "avz-phases", role: "group", "aria-label": "Phase"},
    ["forward", "backward", "both"].map((p) => {
      const why = data.refused && data.refused[p];
      const b = h("button", {type: "button", class: "avz-button avz-phase", "data-phase": p,
                             "aria-pressed": "false", disabled: !!why || !data.phases[p],
                             title: why || (p === "both" ? "Forward, then backward" :
                                            p[0].toUpperCase() + p.slice(1) + " pass only"),
                             onclick: () => setPhase(p), text: p});
      phaseButtons[p] = b;
      return b;
    }));
  const controls = h("div", {class: "avz-controls"},
    [first, prev, play, next, last, slider, h("label", {}, ["speed ", speed]), phaseBox]);

  // a graph wider than the player keeps its size and scrolls; "fit to width" where readable
  const wide = h("div", {class: "avz-wide-note", hidden: true}, [
    h("span", {class: "avz-scroll-hint",
               text: "\u21C6 This graph is wider than the player: scroll it sideways " +
                     "(Shift + mouse wheel); each step\u2019s node comes into view."})]);
  const fit = h("input", {type: "checkbox", class: "avz-fit",
                          onchange: () => root.classList.toggle("avz-fitted", fit.checked)});
  wide.append(h("label", {}, [fit, " Fit to width"]));

  // the graph as text: label, operation, value, gradient and state, as of the step on show
  const tbody = h("tbody");
  const cells = {};
  data.slots.forEach((s, j) => { if (s[0] === "cell") cells[s[1]] = j; });
  const nodeIndex = {};
  data.slots.forEach((s, j) => { if (s[0] === "node") nodeIndex[s[1]] = j; });
  const rows = (data.nodes || []).map(([id, label, op]) => {
    const tds = [label, op, "", "", ""].map((t) => h("td", {text: t}));
    const tr = h("tr", {"data-node": id}, tds);
    tbody.append(tr);
    return [id, tds];
  });
  const table = h("details", {class: "avz-table"}, [
    h("summary", {text: "The graph as a table"}),
    h("table", {}, [
      h("caption", {text: "Every value of the graph, as of the step on show"}),
      h("thead", {}, [h("tr", {}, ["label", "operation", "value", "gradient", "state"]
        .map((t) => h("th", {scope: "col", text: t})))]),
      tbody])]);
  table.addEventListener("toggle", () => { if (table.open) fillTable(); });

  root.append(graph, wide, history, now, controls, table);
  el.append(root);

  let phase = data.phases[opts.phase] ? opts.phase : data.phase;
  if (!data.phases[phase]) phase = Object.keys(data.phases)[0];
  let k = 0;
  let timer = null;
  const count = () => data.phases[phase].length;

  function strip(text) { return text.replace(/^(data|grad) /, ""); }
  function fillTable() {
    const r = shown;
    for (const [id, tds] of rows) {
      const d = cells[id + "-data"], g = cells[id + "-grad"];
      setText(tds[2], d === undefined ? "" : strip(data.strings[r[d]]));
      setText(tds[3], g === undefined ? "" : strip(data.strings[r[g]]));
      const cls = nodeIndex[id] === undefined ? "" : data.strings[r[nodeIndex[id]]];
      const state = /\bbackward\b/.test(cls) ? "gradient final" :
        /\bforward\b/.test(cls) ? "value computed" : "not computed yet";
      setText(tds[4], state + (/\bactive\b/.test(cls) ? " \u2014 this step" : ""));
    }
  }

  // Each equation is typeset once, into an element kept for its step: showing it again (or
  // the next one, typeset while the learner reads this one) moves that element in, with no
  // HTML to parse on the click.
  const typeset_ = new Map();  // step -> its typeset element
  let eqShown = null;  // [step, typeset?] on show
  function maths(katex, i) {
    if (!typeset_.has(i)) {
      const box = document.createElement("div");
      box.className = "avz-eq-maths";
      box.innerHTML = katex.renderToString(data.tex[i], {displayMode: true, throwOnError: false,
                                                         output: "htmlAndMathml"});
      typeset_.set(i, box);
    }
    return typeset_.get(i);
  }
  function typeset() {
    const order = data.phases[phase];
    const i = order[k];
    const katex = katexOf(window);
    if (eqShown && eqShown[0] === i && eqShown[1] === !!katex) return;  // already on show
    set(eq, "data-text", data.text[i]);
    if (katex) {
      try {
        eq.replaceChildren(maths(katex, i));
        if (!eq.classList.contains("avz-typeset")) eq.classList.add("avz-typeset");
        eqShown = [i, true];
        const after = order[k + 1];  // the next one, while the learner reads this one
        if (after !== undefined) setTimeout(() => { try { maths(katex, after); } catch (e) {} }, 0);
        return;
      } catch (e) { /* fall back to the text */ }
    }
    if (eq.classList.contains("avz-typeset")) eq.classList.remove("avz-typeset");
    eq.textContent = data.text[i];
    eqShown = [i, false];
  }

  let wideNow = false;  // the graph is wider than its box (the ResizeObserver keeps this)
  let revealing = false;
  function reveal() {  // a wide graph: bring the step's node into view, in the next frame
    if (!wideNow || revealing) return;  // no layout is read after the step's writes
    revealing = true;
    requestAnimationFrame(() => {
      revealing = false;
      const node = svg.querySelector("g.node.active");
      if (!node) return;
      const a = node.getBoundingClientRect(), v = graph.getBoundingClientRect();
      if (a.left < v.left || a.right > v.right) {
        graph.scrollLeft += a.left + a.width / 2 - (v.left + v.width / 2);
      }
    });
  }

  // the caption's parts, kept: a step changes only the texts and the class that differ
  const captionStep = document.createTextNode("");
  const captionTitle = h("span");
  const captionKind = document.createTextNode("");
  caption.append(captionStep, captionTitle, captionKind);
  // the history on show: the lines of steps [histFrom, histTo) of phase histPhase
  let histFrom = 0, histTo = 0, histPhase = null;
  function showHistory(order, from, to) {
    if (histPhase !== phase || from >= histTo || to <= histFrom) {
      history.replaceChildren();  // nothing to keep
      histFrom = histTo = from;
      histPhase = phase;
    }
    while (histFrom < from) { history.firstChild.remove(); histFrom++; }
    while (histTo > to) { history.lastChild.remove(); histTo--; }
    while (histFrom > from) { histFrom--; history.prepend(h("li", {text: data.text[order[histFrom]]})); }
    while (histTo < to) { history.append(h("li", {text: data.text[order[histTo]]})); histTo++; }
  }

  let shownI = -1;  // the step whose row `shown` holds
  function paintRow(i) {
    // the slots whose string differs from the one on show: one step on, just that step's
    // changes; else the whole row, compared
    if (i === shownI) return;
    const c = shownI >= 0 && i === shownI + 1 ? data.changes[i] : null;
    const r = c ? null : rowOf(i);
    const m = c ? c.length / 2 : nSlots;
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

  function go(target, quiet) {
    const order = data.phases[phase];
    k = Math.max(0, Math.min(order.length - 1, Number(target) || 0));
    const i = order[k];
    paintRow(i);
    const lead = data.leads[phase][k];  // "step 3 of 9 — ", as Python's caption wrote it
    set(svg, "data-step", String(k));
    set(svg, "data-phase", data.pass[i]);
    set(svg, "data-active", "v" + data.active[i]);
    set(svg, "aria-label", lead + data.text[i]);
    setText(captionStep, lead);
    set(captionTitle, "class", "avz-phase-" + data.pass[i]);
    setText(captionTitle, data.heading[i]);
    setText(captionKind, data.tail[i]);
    set(root, "data-step", String(k + 1));
    set(root, "data-phase", phase);
    typeset();
    const from = Math.max(0, k - (data.history || 0));
    showHistory(order, from, k);
    set(history, "start", String(from + 1));
    if ((data.history || 0) <= 3) {
      const tall = (data.history || 0) * 1.4 + "em";
      if (history.style.minHeight !== tall) history.style.minHeight = tall;
    }
    if (history.hidden !== !data.history) history.hidden = !data.history;
    set(slider, "max", String(order.length));
    if (slider.value !== String(k + 1)) slider.value = String(k + 1);
    set(slider, "aria-valuetext", caption.textContent);  // what the caption says
    setDisabled(first, k === 0);
    setDisabled(prev, k === 0);
    setDisabled(next, k === order.length - 1);
    setDisabled(last, k === order.length - 1);
    for (const [p, b] of Object.entries(phaseButtons)) set(b, "aria-pressed", String(p === phase));
    if (table.open) fillTable();
    reveal();
    if (!quiet && opts.onChange) tell();
  }

  // The host hears of a step once the frame showing it is painted: the widget's sync to the
  // kernel (serialising, sending) is then not part of the click's frame. Steps in between
  // (Play, a held key) are told once, as the latest; a hidden page runs no frames, so a
  // timer tells it there.
  let telling = false;
  function told() {
    if (!telling) return;
    telling = false;
    opts.onChange(k + 1, phase);
  }
  function tell() {
    if (telling) return;
    telling = true;
    requestAnimationFrame(() => setTimeout(told, 0));
    setTimeout(told, 100);
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    setText(play, "\u25B6 Play");
    set(play, "aria-label", "Play (Space)");
  }
  function start() {
    if (k >= count() - 1) go(0);
    play.textContent = "\u275A\u275A Pause";
    play.setAttribute("aria-label", "Pause (Space)");
    timer = setInterval(() => { if (k >= count() - 1) stop(); else go(k + 1); },
                        Number(speed.value));
  }
  function toggle() { if (timer) stop(); else start(); }

  function setPhase(p, quiet) {
    if (!data.phases[p] || (p === phase && !quiet)) return;
    stop();
    phase = p;
    go(0, quiet);
  }

  function key(e) {
    // true if the player used the key (then nothing else should); false lets it through
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || !(e.key in KEYS || e.key === " ")) {
      return false;
    }
    const t = e.target || {};
    const tag = t.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && t.type !== "range")) return false;
    if (e.key === " ") {
      if (tag === "BUTTON" || tag === "SUMMARY" || tag === "INPUT") return false;  // theirs
      toggle();
    } else {
      const move = KEYS[e.key];
      const target = move === "first" ? 0 : move === "last" ? count() - 1 : k + move;
      if (target < 0 || target > count() - 1 || target === k) return false;
      stop();
      go(target);
    }
    e.preventDefault();
    e.stopPropagation();
    return true;
  }
  root.addEventListener("keydown", key);
  const onPage = (e) => {
    const t = e.target;
    if (t === document.body || t === document.documentElement) key(e);
  };
  if (opts.pageKeys) document.addEventListener("keydown", onPage);

  const MIN_TEXT = 10;  // px: fitted to the width only where the node text stays this large
  const observer = new ResizeObserver(() => {
    const room = graph.clientWidth;
    if (!room) return;  // hidden (a slide not on show): measure once shown
    const over = data.width > room + 1;  // a projector too: squeezed, its text would shrink
    wideNow = graph.scrollWidth > room;
    root.classList.toggle("avz-wide", over);
    wide.hidden = !over;
    fit.parentNode.hidden = !(over && data.text_px * room / data.width >= MIN_TEXT);
    if (!over && fit.checked) { fit.checked = false; root.classList.remove("avz-fitted"); }
    reveal();
  });
  observer.observe(graph);

  const start1 = Number(opts.step) || Number(data.start) || 1;
  go(start1 - 1, true);
  fillTable();  // filled before it is first opened (its toggle event comes a task later)
  if (data.ask) attachAsk(root, svg, data.ask);  // eslint-disable-line no-undef

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
      telling = false;
      observer.disconnect();
      if (opts.pageKeys) document.removeEventListener("keydown", onPage);
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

function render({model, el}) {
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
