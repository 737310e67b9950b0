// The standalone page's player (autograd_viz.viz.export.standalone_html): applies frame k
// by setting each slot's class or text from the frame's row of string indices.
(function () {
  var data = JSON.parse(document.getElementById("avz-data").textContent);
  var svg = document.querySelector(".avz-graph svg");
  var els = data.slots.map(function (s) {
    return s[0] === "svg" ? null : svg.querySelector('[id="' + s[1] + '"]');
  });
  var $ = function (id) { return document.getElementById(id); };
  var slider = $("avz-slider"), play = $("avz-play"), speed = $("avz-speed");
  var n = data.frames.length, k = 0, timer = null;
  function show(i) {
    k = Math.max(0, Math.min(n - 1, i));
    var row = data.frames[k];
    for (var j = 0; j < els.length; j++) {
      var el = els[j];
      if (!el) continue;
      var v = data.strings[row[j]];
      if (data.slots[j][0] === "cell") { el.textContent = v; } else { el.setAttribute("class", v); }
    }
    svg.setAttribute("data-step", k);
    svg.setAttribute("data-active", "v" + data.active[k]);
    $("avz-equation").textContent = data.equations[k];
    var items = $("avz-derivation").children;
    for (var m = 0; m < items.length; m++) {
      items[m].classList.toggle("avz-later", m > k);
      items[m].classList.toggle("avz-now", m === k);
    }
    var box = $("avz-derivation");
    box.scrollTop = Math.max(0, items[k].offsetTop - box.clientHeight / 2);
    $("avz-caption").textContent = data.captions[k];
    slider.value = k;
    $("avz-prev").disabled = k === 0;
    $("avz-next").disabled = k === n - 1;
    var view = svg.parentNode, node = svg.querySelector(".active");
    if (node && view.scrollWidth > view.clientWidth) {  // a wide graph: the step's node in view
      var a = node.getBoundingClientRect(), v = view.getBoundingClientRect();
      if (a.left < v.left || a.right > v.right) {
        view.scrollLeft += a.left + a.width / 2 - (v.left + v.width / 2);
      }
    }
  }
  function stop() { clearInterval(timer); timer = null; play.textContent = "\u25B6 Play"; }
  function start() {
    if (k === n - 1) show(0);
    play.textContent = "\u275A\u275A Pause";
    timer = setInterval(function () { if (k >= n - 1) { stop(); } else { show(k + 1); } },
                        Number(speed.value));
  }
  function toggle() { if (timer) { stop(); } else { start(); } }
  play.onclick = toggle;
  $("avz-prev").onclick = function () { stop(); show(k - 1); };
  $("avz-next").onclick = function () { stop(); show(k + 1); };
  $("avz-first").onclick = function () { stop(); show(0); };
  slider.oninput = function () { stop(); show(Number(slider.value)); };
  speed.onchange = function () { if (timer) { stop(); start(); } };
  document.addEventListener("keydown", function (e) {
    var t = e.target.tagName;
    if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA") return;
    if (e.key === "ArrowRight" || e.key === "PageDown") { stop(); show(k + 1); }
    else if (e.key === "ArrowLeft" || e.key === "PageUp") { stop(); show(k - 1); }
    else if (e.key === "Home") { stop(); show(0); }
    else if (e.key === "End") { stop(); show(n - 1); }
    else if (e.key === " ") { toggle(); }
    else return;
    e.preventDefault();
  });
  // a slide deck (autograd_viz.viz.slides) steps this player from the remote's keys
  window.avzPlayer = {
    step: function () { return k; },
    count: function () { return n; },
    go: function (i) { stop(); show(i); },
  };
  show(0);
})();
