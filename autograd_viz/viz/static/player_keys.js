// Keys and scrolling for the player widget (autograd_viz.viz.player). Core ipywidgets run no
// code of their own in the page, so this runs as the error handler of a tiny <img> in the
// player's hidden style widget (`this` is that image): once per player, in JupyterLab,
// Notebook 7 and an HTML export alike. Where a viewer strips it, the player works as before.
//
// Once the player has focus (click it), → and PageDown step forward, ← and PageUp back,
// Home and End jump to the first and last step (a presenter's remote sends PageDown and
// PageUp). Steps go through the step box, as its ▲ ▼ do: no kernel needed. The active node
// of the frame on show is scrolled into view when the graph is wider than the player.
//
// In live slides (jupyterlab-slideshow's deck mode) no click is needed: PageDown and → step
// the player on screen to its last step, then move to the next slide; PageUp and ← the
// reverse (the deck itself binds only the arrows and Space; PageDown/PageUp press its
// remote's buttons here, as Space would). One listener per page, before the deck's own.
var player = this.closest(".agv-player");
if (player && !player.dataset.agvKeys) {
  player.dataset.agvKeys = "1";
  player.tabIndex = 0;
  var moves = {PageDown: 1, ArrowRight: 1, PageUp: -1, ArrowLeft: -1, Home: -1e9, End: 1e9};
  var go = function (delta) {
    var box = player.querySelector(".agv-step input");
    if (!box) return;
    var value = Math.min(Number(box.max), Math.max(Number(box.min), Number(box.value) + delta));
    if (value === Number(box.value)) return;
    box.value = String(value);
    box.dispatchEvent(new Event("input", {bubbles: true}));
    box.dispatchEvent(new Event("change", {bubbles: true}));
  };
  player.addEventListener("keydown", function (e) {
    if (!(e.key in moves) || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    var deckKey = e.key !== "Home" && e.key !== "End";
    if (deckKey && document.body.dataset.jpDeckMode === "presenting") return;  // see below
    // a focused control keeps its own arrow keys; PageUp/PageDown always mean one step
    var control = e.target.closest("input, textarea, select, .noUi-handle");
    if (control && e.key !== "PageDown" && e.key !== "PageUp") return;
    go(moves[e.key]);
    e.preventDefault();
    e.stopPropagation();
  }, true);
  var reveal = function () {
    var graphs = player.querySelectorAll(".agv-frame-body .agv-graph");
    for (var i = 0; i < graphs.length; i++) {
      var graph = graphs[i];
      var node = graph.offsetParent && graph.querySelector("g.node.active");
      if (!node || graph.scrollWidth <= graph.clientWidth) continue;
      var view = graph.getBoundingClientRect(), box = node.getBoundingClientRect();
      if (box.left < view.left || box.right > view.right) {
        graph.scrollLeft += box.left + box.width / 2 - (view.left + view.width / 2);
      }
    }
  };
  new MutationObserver(reveal).observe(player, {
    childList: true, subtree: true, attributes: true, attributeFilter: ["class", "style"],
  });
  reveal();
}
if (!window.agvDeckKeys) {
  window.agvDeckKeys = true;
  var deckStep = function (dir) {
    // step the first (going on) or last (going back) player on screen with a step left
    var cells = [].slice.call(document.querySelectorAll(".jp-Deck .jp-Cell.jp-deck-mod-onscreen"));
    var order = dir > 0 ? cells : cells.slice().reverse();
    for (var i = 0; i < order.length; i++) {
      var cell = order[i];
      if (!cell.classList.contains("jp-deck-mod-visible")) {
        if (dir > 0) return false;  // a fragment still to show comes first
        continue;
      }
      var box = cell.querySelector(".agv-player .agv-step input");
      if (!box) continue;
      var k = Number(box.value);
      if (dir > 0 ? k >= Number(box.max) : k <= Number(box.min)) continue;
      box.value = String(k + dir);
      box.dispatchEvent(new Event("input", {bubbles: true}));
      box.dispatchEvent(new Event("change", {bubbles: true}));
      return true;
    }
    return false;
  };
  var onScreen = function () {  // what the room sees: the cells on screen, which are shown
    var cells = document.querySelectorAll(".jp-Deck .jp-Cell.jp-deck-mod-onscreen");
    return [].map.call(cells, function (c) {
      return [].indexOf.call(c.parentNode.children, c) +
        (c.classList.contains("jp-deck-mod-visible") ? "v" : "h");
    }).join(",");
  };
  var deckMove = function (ways, tries) {
    // no step left: the deck moves, through its remote's buttons (whatever has the focus).
    // PageDown/PageUp go as Space does: the deck's "down" (fragment, subslide, next cell),
    // else "forward"; a move that only changes the deck's active cell, with nothing new on
    // screen, is followed by the next one, so every press shows something.
    var button = null;
    for (var w = 0; w < ways.length && !button; w++) {
      button = document.querySelector(".jp-Deck-Remote .jp-deck-mod-direction-" + ways[w] +
                                      ":not(.jp-mod-disabled)");
    }
    if (!button) return false;
    var before = onScreen(), waited = 0;
    button.click();
    if (ways.length < 2 || (tries || 0) > 20) return true;
    var check = function () {
      if (onScreen() !== before) return;
      if (waited < 300) { waited += 50; setTimeout(check, 50); return; }
      deckMove(ways, (tries || 0) + 1);
    };
    setTimeout(check, 50);
    return true;
  };
  window.addEventListener("keydown", function (e) {
    if (document.body.dataset.jpDeckMode !== "presenting") return;
    var dir = {PageDown: 1, ArrowRight: 1, PageUp: -1, ArrowLeft: -1}[e.key];
    if (!dir || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    var t = e.target;
    if (t.closest && t.closest("input:not(.agv-step input), textarea, select, .cm-editor")) return;
    if (!deckStep(dir)) {
      if (!deckMove(e.key === "PageDown" ? ["down", "forward"]
                    : e.key === "PageUp" ? ["up", "back"] : [dir > 0 ? "forward" : "back"])) {
        return;
      }
    }
    e.preventDefault();
    e.stopPropagation();
  }, true);
}
