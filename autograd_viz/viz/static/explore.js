/* The explorer's view (an anywidget ES module; `attachAsk` comes from ask.js, which the
 * kernel side puts in front of this file): the drawing, and a number box and a slider per
 * input. Changing an input sends {req, inputs} to the kernel (`request`); the kernel answers
 * with `result`: the texts of every data and grad cell by id, the ask table, and a new
 * `svg` only when the graph's shape changed. No answer within `timeout_ms`: the kernel is
 * gone (stopped, or this is an export), and the view says so instead of freezing.
 */

function explorerView(model, el) {
  "use strict";
  const root = document.createElement("div");
  root.className = "avz-explore";
  const controls = document.createElement("div");
  controls.className = "avz-explore-controls";
  const status = document.createElement("div");
  status.className = "avz-explore-status";
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  const drawing = document.createElement("div");
  drawing.className = "avz-explore-drawing";
  drawing.style.overflowX = "auto";
  const style = document.createElement("style");
  style.textContent = [
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
      " { content: '⚠ '; }",
  ].join("\n");
  root.append(style, controls, status, drawing);
  el.appendChild(root);

  let req = 0; // the last request sent
  let answered = 0; // the last request answered
  let inFlight = false;
  let pending = null; // inputs changed while a request was on its way: sent on the answer
  let timer = null;
  let svg = null;
  let ask = null;
  const boxes = {};

  function setStatus(text, kind) {
    status.textContent = text;
    status.className = "avz-explore-status" + (kind ? " avz-" + kind : "");
  }

  function mount() {
    if (ask) ask.detach();
    drawing.innerHTML = model.get("svg");
    svg = drawing.querySelector("svg");
    if (svg) {
      // a group, not an image: its value nodes are buttons a screen reader must reach
      svg.setAttribute("role", "group");
      svg.setAttribute("aria-label", "the computation graph; Tab to a value to ask about it");
    }
    ask = svg ? attachAsk(root, svg, (model.get("result") || {}).ask) : null;
  }

  function current() {
    const values = {};
    for (const [name, box] of Object.entries(boxes)) {
      const x = box.number.valueAsNumber;
      values[name] = Number.isFinite(x) ? x : box.number.value;
    }
    return values;
  }

  function send(values) {
    req += 1;
    inFlight = true;
    const mine = req;
    root.dataset.sent = String(mine);
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (answered < mine) {
        root.dataset.kernel = "gone";
        setStatus(model.get("kernel_gone"), "gone");
        inFlight = false;
      }
    }, model.get("timeout_ms"));
    try {
      model.set("request", { req: mine, inputs: values });
      model.save_changes();
    } catch (err) {
      clearTimeout(timer);
      inFlight = false;
      root.dataset.kernel = "gone";
      setStatus(model.get("kernel_gone"), "gone");
    }
  }

  function changed() {
    const values = current();
    if (inFlight) pending = values;
    else send(values);
  }

  function mark(name) {
    // for benchmarks/explore_update.py: when an answer arrived and when it was applied
    if (typeof performance === "undefined" || !performance.mark) return;
    performance.clearMarks(name);
    performance.mark(name);
  }

  function apply() {
    mark("avz-explore-answer");
    const result = model.get("result") || {};
    if (!result.req || result.req < 0) {
      // set from Python (ex.inputs = ...): show the inputs it used
      const inputs = model.get("inputs") || {};
      for (const [name, box] of Object.entries(boxes)) {
        if (name in inputs && box.number.valueAsNumber !== inputs[name]) {
          box.number.value = String(inputs[name]);
          box.slider.value = String(inputs[name]);
        }
      }
    } else {
      answered = Math.max(answered, result.req);
    }
    if (result.req >= req) {
      clearTimeout(timer);
      inFlight = false;
    }
    if (root.dataset.kernel === "gone") delete root.dataset.kernel; // it answered after all
    if (svg) {
      for (const [id, text] of Object.entries(result.cells || {})) {
        const cell = svg.querySelector('[id="' + id + '"]');
        if (cell && cell.textContent !== text) cell.textContent = text;
      }
    }
    if (ask) ask.update(result.ask);
    if (result.error) setStatus(result.error, "error");
    else if (result.note) setStatus(result.note, "note");
    else setStatus(result.summary || "", "");
    root.dataset.answered = String(result.req);
    mark("avz-explore-applied");
    if (!inFlight && pending) {
      const next = pending;
      pending = null;
      send(next);
    }
  }

  for (const spec of model.get("spec")) {
    const box = document.createElement("label");
    box.className = "avz-explore-input";
    const name = document.createElement("span");
    name.textContent = spec.name;
    const number = document.createElement("input");
    number.type = "number";
    number.step = "any";
    number.value = String(spec.value);
    number.name = spec.name;
    number.setAttribute("aria-label", spec.name + ", a number");
    const slider = document.createElement("input");
    slider.type = "range";
    slider.min = String(spec.min);
    slider.max = String(spec.max);
    slider.step = String(spec.step);
    slider.value = String(spec.value);
    slider.setAttribute("aria-label", spec.name + ", a slider");
    number.addEventListener("input", () => {
      if (!Number.isFinite(number.valueAsNumber)) {
        // half-typed ("-", "1e"): wait for a number rather than ask the kernel about it
        setStatus(spec.name + ": type a number", "error");
        return;
      }
      slider.value = number.value;
      changed();
    });
    slider.addEventListener("input", () => {
      number.value = slider.value;
      changed();
    });
    box.append(name, number, slider);
    controls.appendChild(box);
    boxes[spec.name] = { number, slider };
  }

  mount();
  apply();
  const onSvg = () => mount();
  const onResult = () => apply();
  model.on("change:svg", onSvg);
  model.on("change:result", onResult);
  return () => {
    clearTimeout(timer);
    model.off("change:svg", onSvg);
    model.off("change:result", onResult);
    if (ask) ask.detach();
  };
}

export default {
  render({ model, el }) {
    return explorerView(model, el);
  },
};
