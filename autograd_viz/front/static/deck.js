// A slide deck (autograd_viz.exports.slides): every slide is laid out at 1280×720 (16:9) and
// reveal.js scales it to the screen, so a slide that fits once fits every projector.
// Before reveal.js starts, each slide is measured: drawings shrink a little if that is enough,
// else what does not fit continues on a new slide below ("… (continued)"); a player gets the
// room left on its slide and fills it (graph, caption, equation, controls: see page.css).
// The remote: PageDown / → step the player on the slide to its last step, then move on;
// PageUp / ← the reverse; Esc the overview — also after a click inside the player, where the
// player (static/player.js, through its window.avzPlayer) steps itself and lets the key through
// at its ends.
(function () {
  var W = 1280, H = 720, LIMIT = H - 6;  // a few px spare: reveal.js's layout rounds
  var PLAYER_MIN = 400;  // a player below this height is moved to a slide of its own
  var PLAYER_GOOD = 560;  // below this, what follows a player goes to the next slide
  var FIGURE_MIN = 240;  // a drawing shrinks to fit, down to this height (then: new slide)
  var deck = document.querySelector(".reveal");
  var NAV = {PageDown: 1, ArrowRight: 1, ArrowDown: 1, PageUp: -1, ArrowLeft: -1, ArrowUp: -1};

  renderMathInElement(deck.querySelector(".slides"), {delimiters: [
    {left: "$$", right: "$$", display: true}, {left: "\\[", right: "\\]", display: true},
    {left: "$", right: "$", display: false}, {left: "\\(", right: "\\)", display: false}],
    throwOnError: false, ignoredClasses: ["avz-code", "avz-out"]});

  function frames(root) { return [].slice.call(root.querySelectorAll("iframe.avz-inline")); }
  function blocks(slide) {  // what a slide shows, in order (its speaker notes stay put)
    return [].filter.call(slide.children, function (c) { return c.tagName !== "ASIDE"; });
  }
  function end(c) {  // where a block ends on its slide, its bottom margin included
    return c.offsetTop + c.offsetHeight + (parseFloat(getComputedStyle(c).marginBottom) || 0);
  }
  function bottom(slide) {
    var b = 0;
    blocks(slide).forEach(function (c) { b = Math.max(b, end(c)); });
    return b;
  }

  // ---- fitting: runs once, on the 1280×720 layout, before reveal.js starts ----
  function shrinkFigures(slide) {
    var over = bottom(slide) - LIMIT;
    if (over <= 0) return;
    var figures = [].slice.call(slide.querySelectorAll(".avz-svg svg, img.avz-img"))
      .filter(function (f) { return f.offsetHeight > FIGURE_MIN; });
    var room = figures.reduce(function (s, f) { return s + f.offsetHeight - FIGURE_MIN; }, 0);
    if (!room || room < over) return;  // shrinking would not be enough: split instead
    figures.forEach(function (f) {
      var h = f.offsetHeight;
      f.style.maxHeight = Math.floor(h - over * (h - FIGURE_MIN) / room) + "px";
    });
  }

  function splitInside(block, slide) {
    // a cell taller than a slide: its overflowing paragraphs go into a copy of its wrapper
    var one = block.classList.contains("fragment") && block.children.length === 1;
    var inner = one ? block.firstElementChild : block;
    if (!inner || inner.children.length < 2) return null;
    var top = slide.getBoundingClientRect().top, kids = [].slice.call(inner.children);
    var over = function (k) { return k.getBoundingClientRect().bottom - top > LIMIT; };
    var cut = over(kids[0]) ? 1 : kids.findIndex(over);
    if (cut < 1) return null;
    var rest = block.cloneNode(false), restInner = rest;
    if (inner !== block) { restInner = inner.cloneNode(false); rest.appendChild(restInner); }
    kids.slice(cut).forEach(function (k) { restInner.appendChild(k); });
    block.after(rest);
    return rest;
  }

  function shrinkText(block) {
    // one block (a long listing) taller than a slide on its own: smaller type, down to half
    var ratio = Math.max(0.5, (LIMIT - block.offsetTop) / block.offsetHeight);
    var size = parseFloat(getComputedStyle(block).fontSize);
    block.style.fontSize = Math.floor(size * ratio * 10) / 10 + "px";
  }

  function split(slide) {
    var kids = blocks(slide), i;
    for (i = 0; i < kids.length; i++) {
      if (end(kids[i]) > LIMIT) break;
    }
    if (i === kids.length) return null;
    var first = i === 0 || (i === 1 && kids[0].classList.contains("avz-continued"));
    if (first) {
      if (!splitInside(kids[i], slide)) {
        shrinkText(kids[i]);
        return null;
      }
      kids = blocks(slide);
      i += 1;
    }
    return splitAt(slide, i);
  }

  function roomy(slide) {
    // a player with text after it gets the whole slide's height if it would be cramped:
    // what follows the player continues on the next slide
    var kids = blocks(slide), spare = LIMIT - bottom(slide), i;
    for (i = kids.length - 2; i >= 0; i--) {
      if (frames(kids[i]).length) break;
    }
    if (i < 0 || PLAYER_MIN + spare >= PLAYER_GOOD) return null;
    return splitAt(slide, i + 1);
  }

  function splitAt(slide, i) {
    // blocks i, i+1, … of `slide` move to a new slide right after it, under the same title
    var kids = blocks(slide);
    var next = document.createElement("section");
    next.className = "avz-continuation";
    var heading = slide.querySelector(".avz-md h1, .avz-md h2, .avz-md h3");
    if (heading && !kids.slice(i).some(function (k) { return k.contains(heading); })) {
      var title = document.createElement("div");
      title.className = "avz-md avz-continued";
      title.appendChild(heading.cloneNode(true));
      next.appendChild(title);
    }
    kids.slice(i).forEach(function (k) { next.appendChild(k); });
    slide.after(next);
    return next;
  }

  function fitPlayers(slide) {
    var players = frames(slide);
    if (!players.length) return;
    var spare = LIMIT - bottom(slide);
    var each = Math.floor(Math.max(0, spare) / players.length);
    players.forEach(function (f) { f.style.height = (PLAYER_MIN + each) + "px"; });
  }

  function fitAll() {
    deck.classList.add("avz-measuring");  // every slide laid out, 1280×720, unscaled
    // measured with every hint and answer open, so opening them never pushes text off
    var closed = [].filter.call(deck.querySelectorAll("details"), function (d) { return !d.open; });
    closed.forEach(function (d) { d.open = true; });
    var queue = [].filter.call(deck.querySelectorAll(".slides section"),
                               function (s) { return !s.querySelector("section"); });
    var count = 0;
    while (queue.length && count++ < 500) {
      var slide = queue.shift();
      frames(slide).forEach(function (f) { f.onload = null; f.style.height = PLAYER_MIN + "px"; });
      shrinkFigures(slide);
      var next = split(slide), more = roomy(slide);  // more: right after slide, before next
      if (next) queue.unshift(next);
      if (more) queue.unshift(more);
      fitPlayers(slide);
    }
    closed.forEach(function (d) { d.open = false; });
    deck.classList.remove("avz-measuring");
  }

  // ---- the player on a slide, and the remote ----
  function api(f) {
    try { return f.contentWindow && f.contentWindow.avzPlayer; } catch (e) { return null; }
  }
  function hiddenFragment(slide, player, before) {
    // a fragment still to show before the player (going on), or shown after it (going back)
    return [].some.call(slide.querySelectorAll(".fragment"), function (frag) {
      if (frag.contains(player)) return false;
      var after = player.compareDocumentPosition(frag) & Node.DOCUMENT_POSITION_FOLLOWING;
      return before ? !after && !frag.classList.contains("visible")
                    : after && frag.classList.contains("visible");
    });
  }
  function step(dir) {
    // step the slide's player if it has a step left that way; false: the deck moves instead
    var slide = Reveal.getCurrentSlide();
    if (!slide || Reveal.isOverview()) return false;
    var shown = frames(slide).filter(function (f) {
      return api(f) && !f.closest(".fragment:not(.visible)");
    });
    if (dir < 0) shown.reverse();
    for (var i = 0; i < shown.length; i++) {
      var p = api(shown[i]), k = p.step();
      if (dir > 0 ? k >= p.count() - 1 : k <= 0) continue;
      if (hiddenFragment(slide, shown[i], dir > 0)) return false;
      p.go(k + dir);
      return true;
    }
    return false;
  }
  function leaveFrame() {
    var active = document.activeElement;
    if (active && active.tagName === "IFRAME") active.blur();
  }
  function plain(e) { return !(e.altKey || e.ctrlKey || e.metaKey || e.shiftKey); }

  window.addEventListener("keydown", function (e) {  // before reveal.js sees the key
    var t = e.target.tagName;
    if (!plain(e) || !(e.key in NAV) || t === "INPUT" || t === "SELECT" || t === "TEXTAREA") {
      return;
    }
    if (step(NAV[e.key])) { e.preventDefault(); e.stopImmediatePropagation(); }
  }, true);

  function frameKeys(f) {
    // keys pressed inside a player (after a click on it) go to the player first (player.js);
    // one it lets through (PageDown on its last step) reaches the deck: never a trap
    var win = f.contentWindow;
    if (!win || win.avzDeckKeys) return;
    win.avzDeckKeys = true;
    win.addEventListener("keydown", function (e) {
      if (!plain(e) || e.defaultPrevented) return;
      if (e.key in NAV && e.target.tagName !== "SELECT") {  // the speed menu keeps its keys
        e.preventDefault();
        if (!step(NAV[e.key])) {
          leaveFrame();
          if (NAV[e.key] > 0) { Reveal.next(); } else { Reveal.prev(); }
        }
      } else if (e.key === "Escape") {
        e.preventDefault();
        leaveFrame(); Reveal.toggleOverview();
      }
    });
  }
  function prepare(f) {
    // the player's page, on a slide: it fills its frame, at projector size
    var doc = f.contentDocument;
    if (!doc || !doc.body) return;
    doc.documentElement.classList.add("avz-fill");
    doc.body.classList.add("avz-projector");
    frameKeys(f);
  }
  frames(deck).forEach(function (f) {
    f.onload = null;
    f.addEventListener("load", function () { prepare(f); });
    if (f.contentDocument && f.contentDocument.readyState === "complete") prepare(f);
  });

  var start = function () {
    fitAll();
    Reveal.initialize({hash: true, center: false, width: W, height: H, margin: 0.04,
      navigationMode: "linear", transition: "none", controls: false, progress: true});
    Reveal.on("slidechanged", leaveFrame);
    Reveal.on("overviewshown", leaveFrame);
  };
  // the maths' fonts change line heights: measure once they are in
  if (document.fonts && document.fonts.ready) { document.fonts.ready.then(start); } else { start(); }
})();
