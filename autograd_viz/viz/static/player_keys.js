// Keys and scrolling for the player widget (autograd_viz.viz.player). Core ipywidgets run no
// code of their own in the page, so this runs as the error handler of a tiny <img> in the
// player's hidden style widget (`this` is that image): once per player, in JupyterLab,
// Notebook 7 and an HTML export alike. Where a viewer strips it, the player works as before.
//
// Once the player has focus (click it), → and PageDown step forward, ← and PageUp back,
// Home and End jump to the first and last step (a presenter's remote sends PageDown and
// PageUp). Steps go through the step box, as its ▲ ▼ do: no kernel needed. The active node
// of the frame on show is scrolled into view when the graph is wider than the player.
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
