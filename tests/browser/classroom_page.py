"""Measuring what a classroom sees, in the page itself (shared by the classroom browser tests).

`contrast(page, selector)` reads every visible text inside the matching elements — HTML text,
form fields, typeset maths (the player's KaTeX, an exercise's MathJax) and the SVG drawing's
labels — and computes its WCAG 2 contrast ratio from the colours the browser paints: the
text's computed colour (or SVG fill) against the backgrounds composited under it (every
ancestor's background colour, or, for an SVG label, the filled shapes painted before it under
its centre, on top of what lies behind the SVG).
"""

from __future__ import annotations

from dataclasses import dataclass

_CONTRAST = """
(selector) => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c || '');
    if (!m) return null;
    const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, under) =>
    [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  const behind = (el) => {
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.push(e);
    let bg = [255, 255, 255, 1];
    for (const e of chain.reverse()) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) bg = over(c, bg);
    }
    return bg;
  };
  const behindSvgText = (t) => {
    const svg = t.ownerSVGElement || t.closest('svg');
    const r = t.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    let bg = behind(svg);
    for (const s of svg.querySelectorAll('polygon, ellipse, path, rect, circle')) {
      if (s.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_PRECEDING) break;
      const style = getComputedStyle(s);
      const f = parse(style.fill);
      if (!f || f[3] === 0 || style.visibility === 'hidden') continue;
      const b = s.getBoundingClientRect();
      if (x < b.left || x > b.right || y < b.top || y > b.bottom) continue;
      f[3] *= Number(style.fillOpacity || 1);
      bg = over(f, bg);
    }
    return bg;
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (hi + 0.05) / (lo + 0.05);
  };
  const visible = (el) => {
    if (!el.getClientRects().length) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && Number(s.opacity) > 0;
  };
  const out = [];
  const measure = (el, text, fg, bg) => {
    if (!fg || el.closest('button:disabled, input:disabled, [aria-disabled="true"]')) return;
    const shown = fg[3] < 1 ? over(fg, bg) : fg;
    const cls = (el.getAttribute('class') || '').split(' ')[0];
    out.push({text: text.trim().slice(0, 40), ratio: ratio(shown, bg),
              fg: shown.slice(0, 3).map(Math.round), bg: bg.slice(0, 3).map(Math.round),
              where: el.tagName.toLowerCase() + (cls ? '.' + cls : '')});
  };
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.textContent.trim() || !el || !visible(el) || el.closest('style, script')) continue;
      if (el.closest('svg')) {
        measure(el, n.textContent, parse(getComputedStyle(el).fill), behindSvgText(el));
      } else {
        measure(el, n.textContent, parse(getComputedStyle(el).color), behind(el));
      }
    }
    const fields = 'input:not([type=range]):not([type=checkbox]):not([type=radio])';
    const maths = '.katex, mjx-container, .MathJax, .MathJax_CHTML';
    for (const el of root.querySelectorAll(`${fields}, ${maths}`)) {
      if (visible(el)) {
        measure(el, el.value || el.textContent || el.tagName,
                parse(getComputedStyle(el).color), behind(el));
      }
    }
  }
  return out;
}
"""


@dataclass(frozen=True)
class Text:
    """One visible text, its painted colours (RGB) and their WCAG contrast ratio."""

    text: str
    ratio: float
    fg: list[int]
    bg: list[int]
    where: str


def contrast(page: object, selector: str) -> list[Text]:
    """Every visible text inside the elements matching `selector`, with its contrast ratio."""
    return [Text(**t) for t in page.evaluate(_CONTRAST, selector)]


def worst(texts: list[Text], limit: float = 4.5) -> list[Text]:
    """The texts below `limit`, lowest first."""
    return sorted((t for t in texts if t.ratio < limit), key=lambda t: t.ratio)
