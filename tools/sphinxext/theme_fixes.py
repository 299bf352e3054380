"""Sphinx extension: three fixes to what the upstream themes write into every page (the
themes themselves are left as they are).

1. Controls named by the words they show (WCAG 2.5.3, "label in name"), so a reader who
   says what they see ("click Show code cell source") reaches them with speech input, and
   axe-core finds no mismatch.  Two controls carry an aria-label that differs from their
   visible text, and the text alone is the better name: MyST-NB's folded cells
   (``<summary aria-label="Toggle hidden content">`` around "Show code cell source" /
   "Show the solution") and pydata-sphinx-theme's search field (``aria-label="Search"``
   on a button that shows "Search Ctrl+K"; it keeps its title "Search" as a tooltip).
2. No jump when MathJax typesets: raw TeX (``\(x = [2, 1]\)``) is wider than the formula
   it becomes, so a page painted before MathJax ran re-wrapped its paragraphs and moved
   everything under them (layout shift up to 0.37 per page).  MathJax's deferred script
   is marked ``blocking="render"``: the first paint waits for it (a few tens of ms, from
   the local copy), and the text never moves.
3. Quiet where the browser lets the page keep nothing (storage blocked, as some private
   windows and cookie settings do, or full): the theme reads and writes localStorage on
   every page and its errors went uncaught.  A few lines before its first read try the
   storage and, where it throws, put a stand-in in its place that keeps things while the
   page is open; autograd_lab's progress.js sees the stand-in and says that answers are
   not kept.
"""
from pathlib import Path

FIXES = [
    ('<script defer="defer" src="../_static/mathjax/tex-chtml.js">',
     '<script defer="defer" blocking="render" src="../_static/mathjax/tex-chtml.js">'),
    ('<script defer="defer" src="_static/mathjax/tex-chtml.js">',
     '<script defer="defer" blocking="render" src="_static/mathjax/tex-chtml.js">'),
    ('<summary aria-label="Toggle hidden content">', "<summary>"),
    ('<button class="btn search-button-field search-button__button pst-js-only" title="Search" '
     'aria-label="Search"',
     '<button class="btn search-button-field search-button__button pst-js-only" title="Search"'),
]


STAND_IN = """<script data-cfasync="false">
    // (theme_fixes.py) where localStorage throws, a stand-in that keeps things while the page is open
    (() => {
      try {
        const s = window.localStorage;
        s.setItem("autograd_lab.probe", "1");
        s.removeItem("autograd_lab.probe");
      } catch (err) {
        const kept = new Map();
        const standIn = {alStandIn: true, get length() { return kept.size; },
          key: (i) => Array.from(kept.keys())[i] ?? null,
          getItem: (k) => (kept.has(String(k)) ? kept.get(String(k)) : null),
          setItem: (k, v) => { kept.set(String(k), String(v)); },
          removeItem: (k) => { kept.delete(String(k)); }, clear: () => kept.clear()};
        try { Object.defineProperty(window, "localStorage", {value: standIn, configurable: true}); }
        catch (err2) { /* the theme's own errors remain */ }
      }
    })();
    document.documentElement.dataset.mode = localStorage.getItem("mode")"""
FIXES.append(('<script data-cfasync="false">\n    document.documentElement.dataset.mode = '
              'localStorage.getItem("mode")', STAND_IN))


def fix_page(text):
    for old, new in FIXES:
        text = text.replace(old, new)
    return text


def fix_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for path in Path(app.outdir).rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        fixed = fix_page(text)
        if fixed != text:
            path.write_text(fixed, encoding="utf-8")


def setup(app):
    app.connect("build-finished", fix_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
