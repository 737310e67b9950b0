/* Ask the graph: click a value node (or Tab to it and press Enter) to see why its gradient
 * is what it is; hover or focus an edge to see its local derivative; Escape closes.
 *
 * A PLAIN script (no import/export): it is concatenated in front of the modules that use it
 * (the player, the explorer). `attachAsk(root, svg, ask)` wires one drawing: `root` is the
 * element that holds it (the panel and the live region go in there), `svg` the drawing's
 * <svg>, `ask` the table of `autograd_viz.api.ask_table` (JSON). Returns
 * `{update(ask), close(), detach()}`: `update` swaps in a new table (new numbers, the same
 * drawing), so an open panel shows the new sum at once.
 *
 * Nothing here needs a kernel: every text comes from the table. Colours are the palette's
 * custom properties (`var(--avz-active)`), which every host declares with its stylesheet
 * (`autograd_viz.view.palette.with_palette`): this file copies no colour.
 */
/* exported attachAsk */
function attachAsk(root, svg, ask) {
  "use strict";
  const ON = "avz-ask-on"; // the edges of the term pointed at: the use itself
  const PATH = "avz-ask-path"; // and the way on to the output, which its ∂z/∂s factor sums
  const PICKED = "avz-ask-picked";
  const style = document.createElement("style");
  style.textContent = [
    ".avz-ask-node, .avz-ask-edge { cursor: pointer; }",
    ".avz-ask-node:focus, .avz-ask-edge:focus { outline: none; }",
    ".avz-ask-node:focus-visible > :is(polygon, path, ellipse):first-of-type" +
      " { stroke: var(--avz-focus); stroke-width: 3; }",
    ".avz-ask-picked > :is(polygon, path, ellipse):first-of-type" +
      " { stroke: var(--avz-active); stroke-width: 3; stroke-dasharray: 6 3; }",
    ".avz-ask-on > path { stroke: var(--avz-active); stroke-width: 3;" +
      " stroke-dasharray: 8 4; }",
    ".avz-ask-on > polygon { stroke: var(--avz-active);" +
      " fill: var(--avz-active); }",
    ".avz-ask-path > path { stroke: var(--avz-active); stroke-width: 2;" +
      " stroke-dasharray: 2 3; }",
    ".avz-ask-edge:focus-visible > path, .avz-ask-edge:hover > path" +
      " { stroke: var(--avz-focus); stroke-width: 3; }",
    ".avz-ask-edge:focus-visible > polygon { stroke: var(--avz-focus);" +
      " fill: var(--avz-focus); }",
    ".avz-ask-hit { stroke: transparent; stroke-width: 12; fill: none;" +
      " pointer-events: stroke; stroke-dasharray: none; }",
    ".avz-ask-panel { border: 1px solid var(--avz-muted); border-radius: 4px;" +
      " padding: 6px 10px; margin: 6px 0; font-size: 0.95em; max-width: 60em; }",
    ".avz-ask-panel[hidden], .avz-ask-tip[hidden] { display: none; }",
    ".avz-ask-panel ol { margin: 4px 0; padding-left: 1.6em; }",
    ".avz-ask-term { padding: 1px 4px; border-radius: 3px; cursor: default; }",
    ".avz-ask-term:hover, .avz-ask-term:focus { outline: 2px dashed var(--avz-focus);" +
      " outline-offset: 1px; }",
    ".avz-ask-sum { font-weight: bold; }",
    ".avz-ask-tip { font-size: 0.9em; margin: 2px 0; min-height: 1.2em; }",
    ".avz-ask-close { float: right; }",
    ".avz-ask-sr { position: absolute; width: 1px; height: 1px; overflow: hidden;" +
      " clip: rect(0 0 0 0); white-space: nowrap; }",
  ].join("\n");
  root.appendChild(style);

  const tip = document.createElement("div");
  tip.className = "avz-ask-tip";
  tip.hidden = true;
  const panel = document.createElement("div");
  panel.className = "avz-ask-panel";
  panel.hidden = true;
  panel.setAttribute("role", "region");
  panel.setAttribute("aria-label", "why this gradient");
  const live = document.createElement("div");
  live.className = "avz-ask-sr avz-ask-live";
  live.setAttribute("aria-live", "polite");
  root.appendChild(tip);
  root.appendChild(panel);
  root.appendChild(live);

  let table = ask || { nodes: {}, edges: {} };
  let picked = null; // the id of the value node whose sum is shown
  const wired = [];

  function byId(id) {
    return svg.querySelector('[id="' + id.replace(/"/g, '\\"') + '"]');
  }

  function light(ids, on, cls) {
    for (const id of ids || []) {
      const g = byId(id);
      if (g) g.classList.toggle(cls || ON, on);
    }
  }

  function unlight() {
    for (const g of svg.querySelectorAll("." + ON + ", ." + PATH)) g.classList.remove(ON, PATH);
  }

  function say(text) {
    live.textContent = text;
  }

  function close() {
    if (picked) {
      const g = byId(picked);
      if (g) g.classList.remove(PICKED);
    }
    unlight();
    picked = null;
    panel.hidden = true;
    panel.textContent = "";
  }

  function show(id) {
    const entry = table.nodes[id];
    if (!entry) return;
    close();
    picked = id;
    const g = byId(id);
    if (g) g.classList.add(PICKED);
    panel.textContent = "";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "avz-ask-close";
    button.textContent = "✕";
    button.setAttribute("aria-label", "close (Escape)");
    button.addEventListener("click", () => {
      const back = byId(id);
      close();
      if (back) back.focus();
    });
    const title = document.createElement("div");
    title.textContent = "Why is the gradient of " + entry.name + " " + entry.grad + "?";
    const sum = document.createElement("div");
    sum.className = "avz-ask-sum";
    sum.textContent = entry.sum;
    const why = document.createElement("div");
    why.className = "avz-ask-why";
    why.textContent = entry.why || "";
    panel.append(button, title, sum, why);
    if (entry.terms.length) {
      const list = document.createElement("ol");
      list.setAttribute("aria-label", "one term per use of " + entry.name);
      for (const term of entry.terms) {
        const item = document.createElement("li");
        item.className = "avz-ask-term";
        item.tabIndex = 0;
        item.textContent = term.text;
        item.dataset.edges = term.edges.join(" ");
        const on = () => {
          unlight(); // one term at a time: the one last pointed at or focused
          light(term.path, true, PATH);
          light(term.edges, true);
          say(term.text);
        };
        const off = () => {
          unlight();
          const focused = panel.querySelector(".avz-ask-term:focus"); // keyboard still there
          if (focused && focused !== item) focused.dispatchEvent(new Event("focus"));
        };
        item.addEventListener("mouseenter", on);
        item.addEventListener("mouseleave", off);
        item.addEventListener("focus", on);
        item.addEventListener("blur", off);
        list.appendChild(item);
      }
      panel.appendChild(list);
    }
    panel.hidden = false;
    say(entry.sum);
  }

  function showTip(id) {
    const entry = table.edges[id];
    if (!entry) return;
    tip.textContent = "local derivative: " + entry.text;
    tip.hidden = false;
    say(tip.textContent);
  }

  function hideTip() {
    tip.hidden = true;
  }

  function on(el, type, fn) {
    el.addEventListener(type, fn);
    wired.push([el, type, fn]);
  }

  function wire() {
    for (const g of svg.querySelectorAll("g.node")) {
      if (!(g.id in table.nodes)) continue;
      g.classList.add("avz-ask-node");
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", table.nodes[g.id].name + ": why is its gradient " +
        table.nodes[g.id].grad + "?");
      on(g, "click", () => show(g.id));
      on(g, "keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          show(g.id);
        }
      });
    }
    for (const g of svg.querySelectorAll("g.edge")) {
      if (!(g.id in table.edges)) continue;
      g.classList.add("avz-ask-edge");
      g.setAttribute("tabindex", "0");
      g.setAttribute("aria-label", "local derivative: " + table.edges[g.id].text);
      const path = g.querySelector("path");
      if (path && !g.querySelector(".avz-ask-hit")) {
        const hit = path.cloneNode(false);
        hit.removeAttribute("id");
        hit.classList.add("avz-ask-hit");
        g.appendChild(hit); // a wide invisible stroke: an edge is easy to point at
      }
      on(g, "mouseenter", () => showTip(g.id));
      on(g, "focus", () => showTip(g.id));
      on(g, "mouseleave", hideTip);
      on(g, "blur", hideTip);
    }
  }

  on(root, "keydown", (event) => {
    if (event.key === "Escape" && (picked || !tip.hidden)) {
      const back = picked && byId(picked);
      close();
      hideTip();
      if (back) back.focus();
      event.stopPropagation();
    }
  });
  wire();

  function labelNodes() {
    for (const g of svg.querySelectorAll(".avz-ask-node")) {
      const entry = table.nodes[g.id];
      if (entry) g.setAttribute("aria-label", entry.name + ": why is its gradient " +
        entry.grad + "?");
    }
    for (const g of svg.querySelectorAll(".avz-ask-edge")) {
      const entry = table.edges[g.id];
      if (entry) g.setAttribute("aria-label", "local derivative: " + entry.text);
    }
  }

  return {
    update(next) {
      table = next || { nodes: {}, edges: {} };
      labelNodes();
      if (picked && table.nodes[picked]) show(picked);
      else if (picked) close();
    },
    close,
    detach() {
      close();
      for (const [el, type, fn] of wired) el.removeEventListener(type, fn);
      wired.length = 0;
      style.remove();
      tip.remove();
      panel.remove();
      live.remove();
    },
  };
}
