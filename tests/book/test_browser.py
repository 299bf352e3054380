"""Every page of the built book, opened in headless Chromium, works offline.

For each page of the table of contents, in the light theme (the dark theme's checks, a
test of their own, run in CI's slow step): no console
error, no request to any host but the local server, math typeset by the site's MathJax,
no raw markup in the text a reader sees (TeX, pipes of a Markdown table, ``**``, ``:::``;
code blocks aside), every table printed by a cell rendered as a table, every image loaded
with alt text and drawn on an opaque background, explorers shown as visible pictures (no
dead widget), previous/next links that resolve, no WCAG 2.1 A/AA violation found by
axe-core (vendored in tests/support/vendor), layout shift under 0.1 while loading, a page weight
under 1.5 MB transferred
(the local server gzips text as any static host does; MathJax's fonts, shared by all
pages, are not counted; the uncompressed size is reported beside it).  Each page is
also opened as a first-time visitor would (empty storage, no theme chosen): nothing
logged as an error or a warning.
A full-page screenshot of every page, light and dark, goes to _build/screenshots/ for
review (``python3 tools/dev.py screenshots`` takes only those).

Needs Debian's chromium at /usr/bin/chromium (driven by Playwright's Python package; no
browser is downloaded). Without it the tests skip with the install command; under
.ci/run (AUTOGRAD_LAB_REQUIRE_BROWSER=1) they fail instead.
"""
import json
import re
import shutil
from pathlib import Path

import pytest

from book_site import ROOT, require_or_skip, source_of, toc_docnames
from explorer_driver import axe_violations

pytestmark = pytest.mark.browser
CHROMIUM = Path("/usr/bin/chromium")
INSTALL_HINT = ("Chromium is not installed at /usr/bin/chromium; install it with "
                "`sudo apt-get update && sudo apt-get install -y chromium`")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
BUDGET = 1.5e6                 # bytes transferred per page (MathJax's shared fonts aside)
# Cumulative layout shift while a page loads (web.dev: under 0.1 is good), reported beside
# the page weight.  What used to move: paragraphs re-wrapped when MathJax typeset after the
# first paint (tools/sphinxext/theme_fixes.py), the sidebar's logo (book.css).
CLS_LIMIT = 0.1
MOUNTED = ("() => Array.from(document.querySelectorAll('.al-explorer')).every("
           "b => b.classList.contains('al-mounted') || b.classList.contains('al-failed'))")
CLS_OBSERVER = """window.__alShift = 0; new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) window.__alShift += e.value;
}).observe({type: 'layout-shift', buffered: true});"""
SHARED_FONTS = "/_static/mathjax/output/chtml/fonts/"
SHOTS = ROOT / "_build" / "screenshots"
PAGES = [f"{name}.html" for name in toc_docnames()]


def _missing(reason):
    require_or_skip(reason, "AUTOGRAD_LAB_REQUIRE_BROWSER")


@pytest.fixture(scope="session")
def browser(chromium):
    """conftest's Chromium, with the screenshots folder emptied: it shows this run only."""
    shutil.rmtree(SHOTS, ignore_errors=True)
    return chromium


class Visit:
    """One page load in a fresh browser context, with what it fetched and logged."""

    def __init__(self, browser, base, name, theme="light"):
        """``theme=None``: a first visit, nothing stored, no theme chosen."""
        self.base, self.outside, self.errors, self.warnings, self.sizes = base, [], [], [], {}
        self.context = browser.new_context(viewport={"width": 1280, "height": 900},
                                           service_workers="block")
        if theme is not None:
            # the pydata theme reads the reader's choice from localStorage before painting
            self.context.add_init_script(f"localStorage.setItem('mode', '{theme}'); "
                                         f"localStorage.setItem('theme', '{theme}');")
        self.context.add_init_script(CLS_OBSERVER)
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        self.page.on("response", self._response)
        self.response = self.page.goto(base + name, wait_until="load")
        # MathJax (deferred) typesets after "load"; then its fonts arrive
        self.page.evaluate("""async () => {
            for (let i = 0; i < 50 && !(window.MathJax && MathJax.startup
                                        && MathJax.startup.promise); i++)
                if (document.querySelector('script[src*="mathjax"]'))
                    await new Promise(r => setTimeout(r, 100));
                else break;
            if (window.MathJax && MathJax.startup && MathJax.startup.promise)
                await MathJax.startup.promise;
            await document.fonts.ready;
        }""")

    def _console(self, message):
        if message.type == "error":
            self.errors.append(message.text)
        elif message.type == "warning":
            self.warnings.append(message.text)

    def _route(self, route):
        url = route.request.url
        if url.startswith(self.base):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def _response(self, response):
        self.sizes[response.url] = int(response.headers.get("content-length") or 0)

    def weight(self):
        """Bytes transferred (the test server gzips text like a static host does)."""
        return sum(size for url, size in self.sizes.items() if SHARED_FONTS not in url)

    def uncompressed_weight(self, built_html):
        total = 0
        for url in self.sizes:
            path = built_html / url[len(self.base):].split("?")[0].split("#")[0]
            if SHARED_FONTS not in url and path.is_file():
                total += path.stat().st_size
        return total

    def screenshot(self, name, theme):
        """The whole page, as JPEG (a 20,000-pixel-tall PNG costs twice the time)."""
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name.replace('/', '__').removesuffix('.html')}-{theme}.jpg"
        self.page.screenshot(path=str(path), full_page=True, type="jpeg", quality=80)
        return path

    def close(self):
        self.context.close()


MATH_STATE = """() => {
    const article = document.querySelector('article') || document.body;
    const copy = article.cloneNode(true);
    copy.querySelectorAll('pre, code, script, style, mjx-container, .highlight')
        .forEach(e => e.remove());
    return {
        math: article.querySelectorAll('.math').length,
        typeset: article.querySelectorAll('mjx-container').length,
        text: copy.innerText,
        output_tables: article.querySelectorAll('.cell_output table').length,
    };
}"""

IMAGES = """() => Array.from(document.images).map(img => {
    const r = img.getBoundingClientRect();
    const folded = img.closest('details:not([open])') !== null
        || img.closest('.toggle-hidden') !== null;
    const replaced = img.closest('.al-explorer.al-mounted') !== null;   // a live view took its place
    return {src: img.currentSrc || img.src, alt: (img.getAttribute('alt') || '').trim(),
            loaded: img.complete && img.naturalWidth > 0, width: r.width, natural: img.naturalWidth,
            output: img.closest('.cell_output') !== null, folded: folded, replaced: replaced,
            linked: img.closest('a') !== null};
})"""

TRANSPARENT_PIXELS = """() => Array.from(document.images).filter(img => img.naturalWidth > 0).map(img => {
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let transparent = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] < 255) transparent++;
    return {src: img.currentSrc || img.src, transparent: transparent};
})"""

# Jupyter widgets need a kernel: none may reach a page (the explorers' own views are
# hosted by the page and are counted apart: every explorer output must have mounted one)
LIVE_WIDGETS = """() => document.querySelectorAll(
    '.jupyter-widgets, .widget-slider, .jp-OutputArea-output .widget-box'
).length"""
EXPLORERS_MOUNTED = """() => {
    const boxes = Array.from(document.querySelectorAll('.al-explorer'));
    return {boxes: boxes.length, live: boxes.filter(b => b.querySelector('.al-x')).length,
            failed: boxes.filter(b => b.classList.contains('al-failed')).length};
}"""

# markup a reader should never see as text: TeX left for MathJax (or never given to it),
# a Markdown table read as plain text, bold that did not parse, a fence that did not close
RAW_MARKUP = ["$", "\\(", "\\)", "\\[", "\\]", "\\begin{", "\\frac{", "\\top", "\\hat",
              "**", ":::", "|---", "|—|", "| --- |"]
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$", re.M)


# What runs out of the text column: the page itself scrolling sideways, a formula reaching
# past the column's right edge (display formulas scroll inside their own box), printed
# output that does not wrap.  Code cells may scroll, as code does.
OVERFLOW = """() => {
    const found = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth + 1)
        found.push(`the page is ${doc.scrollWidth} px wide in a ${window.innerWidth} px window`);
    const article = document.querySelector('article');
    const right = article.getBoundingClientRect().right + 1;
    for (const m of article.querySelectorAll('mjx-container')) {
        const r = m.getBoundingClientRect();
        if (m.getAttribute('display') !== 'true' && r.right > right)
            found.push(`inline formula past the column: ${m.textContent.slice(0, 60)}`);
    }
    for (const pre of article.querySelectorAll('.cell_output pre'))
        if (pre.scrollWidth > pre.clientWidth + 1)
            found.push(`output wider than its box: ${pre.textContent.slice(0, 60)}`);
    // code scrolls sideways instead of wrapping: what is past the edge goes unseen
    for (const pre of article.querySelectorAll('.cell_input pre, div.highlight pre'))
        if (pre.closest('.cell_output') === null && pre.scrollWidth > pre.clientWidth + 1) {
            const cut = pre.textContent.split('\\n').sort((a, b) => b.length - a.length)[0];
            found.push(`code cut off at the column's edge: ${cut.slice(0, 90)}`);
        }
    return found;
}"""


def markdown_tables_printed(name):
    """How many Markdown outputs of the page's notebook hold a table."""
    source = source_of(name.removesuffix(".html"))
    if source is None or source.suffix != ".ipynb":
        return 0
    cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    texts = ["".join(o.get("data", {}).get("text/markdown", "")) for o in outputs]
    return sum(1 for t in texts if TABLE_RULE.search(t))


SWITCH_TO_DARK = """() => {
    // what the theme's own switch button does
    localStorage.setItem('mode', 'dark'); localStorage.setItem('theme', 'dark');
    document.documentElement.dataset.mode = 'dark';
    document.documentElement.dataset.theme = 'dark';
    return getComputedStyle(document.body).backgroundColor;
}"""


@pytest.mark.parametrize("name", PAGES)
def test_page_works_offline(browser, book_server, built_html, name, record_property):
    """Every check of a page a reader opens, in the light theme; the dark theme has a test
    of its own below, left to CI's slow step (the README's test command stays in budget)."""
    visit = Visit(browser, book_server, name, "light")
    try:
        assert visit.response is not None and visit.response.ok, f"{name} did not load"
        # the layout shift a reader sees in the window, once every view has mounted: read
        # before the full-page picture, which makes the whole page the window
        visit.page.wait_for_function(MOUNTED)
        visit.page.wait_for_timeout(300)                      # the last shifts are reported
        shift = visit.page.evaluate("window.__alShift")
        visit.screenshot(name, "light")          # first, so that a failing page is seen too
        assert visit.page.evaluate("document.documentElement.dataset.theme") == "light"
        assert visit.outside == [], "requests to other hosts"
        assert visit.errors == [], "console errors"

        state = visit.page.evaluate(MATH_STATE)
        assert state["typeset"] >= state["math"], "math left for MathJax was not typeset"
        raw = {m: _around(state["text"], m) for m in RAW_MARKUP if m in state["text"]}
        assert raw == {}, f"raw markup in the text of {name}"
        assert visit.page.evaluate(OVERFLOW) == [], "content wider than the text column"
        tables = markdown_tables_printed(name)
        assert state["output_tables"] >= tables, \
            f"{tables} Markdown tables printed by cells, {state['output_tables']} rendered as tables"

        images = visit.page.evaluate(IMAGES)
        assert [i["src"] for i in images if not i["loaded"] and not i["replaced"]] == [], \
            "images that did not load"
        fetched = [i["src"][-40:] for i in images if i["replaced"] and i["src"] in visit.sizes]
        assert fetched == [], "explorers' still pictures downloaded although the live view replaced them"
        assert [i["src"] for i in images if not i["alt"]] == [], "images without alt text"
        hidden = [i["src"] for i in images
                  if i["output"] and not i["folded"] and not i["replaced"] and i["width"] == 0]
        assert hidden == [], "output pictures (explorers, figures) not visible"
        twice = [i["src"][-40:] for i in images if i["replaced"] and i["width"] > 0]
        assert twice == [], "an explorer's still picture shown beside its live view"
        assert [i["src"][-40:] for i in images if i["output"] and i["linked"]] == [], \
            "output pictures wrapped in a link"
        blurry = [(i["src"][-40:], i["natural"], round(i["width"])) for i in images
                  if i["output"] and not i["folded"] and not i["replaced"]
                  and i["width"] > i["natural"] / 2 + 1]
        assert blurry == [], "output pictures with fewer than 2 pixels per page pixel (blurry)"
        assert visit.page.evaluate(LIVE_WIDGETS) == 0, "a Jupyter widget without a kernel"
        visit.page.wait_for_timeout(100)                      # the explorers' modules load
        explorers = visit.page.evaluate(EXPLORERS_MOUNTED)
        assert explorers["live"] == explorers["boxes"] and explorers["failed"] == 0, explorers

        for selector in ("a.left-prev", "a.right-next"):
            link = visit.page.query_selector(selector)
            if link is not None:
                url = link.evaluate("a => a.href")
                assert url.startswith(book_server), url
                assert visit.page.request.get(url).ok, f"{selector} -> {url} is broken"

        assert axe_violations(visit.page) == {}, "axe-core: WCAG 2.1 A/AA violations (light theme)"

        assert shift < CLS_LIMIT, f"{name}: cumulative layout shift {shift:.3f} while loading"
        weight = visit.weight()
        record_property("page_weight", (name, weight, visit.uncompressed_weight(built_html)))
        record_property("layout_shift", (name, shift))
        assert weight <= BUDGET, f"{name} fetches {weight / 1e6:.2f} MB"
    finally:
        visit.close()


@pytest.mark.slow
@pytest.mark.parametrize("name", PAGES)
def test_page_turns_dark_without_a_figure_showing_through(browser, book_server, built_html, name):
    """The theme's switch really turns the page dark; no figure has transparent pixels
    there, and axe-core finds no WCAG 2.1 A/AA violation in the dark theme either."""
    visit = Visit(browser, book_server, name, "light")
    try:
        visit.page.wait_for_function(MOUNTED)
        light_bg = visit.page.evaluate("getComputedStyle(document.body).backgroundColor")
        visit.page.evaluate(SWITCH_TO_DARK)
        visit.page.wait_for_timeout(300)                      # the theme's CSS transition
        visit.screenshot(name, "dark")
        dark_bg = visit.page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert dark_bg != light_bg, "switching to the dark theme changed nothing"
        see_through = [(i["src"], i["transparent"])
                       for i in visit.page.evaluate(TRANSPARENT_PIXELS) if i["transparent"]]
        assert see_through == [], "images with transparent pixels on a dark page"
        assert axe_violations(visit.page) == {}, "axe-core: WCAG 2.1 A/AA violations (dark theme)"
        assert visit.outside == [] and visit.errors == []
    finally:
        visit.close()


def _around(text, markup, width=40):
    """The first place ``markup`` occurs in ``text``, with some context."""
    i = text.index(markup)
    return " ".join(text[max(0, i - width):i + len(markup) + width].split())


@pytest.mark.parametrize("name", PAGES)
def test_first_visit_logs_nothing(browser, book_server, name):
    """A reader's first visit: empty storage, no theme chosen.  No error and no warning
    in the console (the theme used to log "Got invalid theme mode" on every page), and
    the page follows the system's light or dark setting."""
    visit = Visit(browser, book_server, name, theme=None)
    try:
        assert visit.page.evaluate("localStorage.getItem('mode')") in (None, "auto")
        assert visit.errors == [], "console errors on a first visit"
        assert visit.warnings == [], "console warnings on a first visit"
        assert visit.page.evaluate("document.documentElement.dataset.theme") in ("light", "dark")
    finally:
        visit.close()


def test_one_search_box_and_no_header_bar(browser, book_server):
    """The search box lives in the sidebar; no bar across the top holds a second one."""
    visit = Visit(browser, book_server, PAGES[1])
    try:
        boxes = visit.page.evaluate("""() => Array.from(
            document.querySelectorAll('.search-button-field, .bd-search')).filter(
            e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; }
            ).length""")
        assert boxes == 1
        header = visit.page.evaluate(
            "() => { const h = document.querySelector('#pst-header');"
            " return h ? h.getBoundingClientRect().height : 0; }")
        assert header == 0, f"a header bar {header} px high above the page"
    finally:
        visit.close()


def test_dark_theme_chosen_before_loading_is_applied(browser, book_server):
    """A reader who picked the dark theme gets it on the next page they open."""
    visit = Visit(browser, book_server, PAGES[-1], "dark")
    try:
        assert visit.page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert visit.outside == [] and visit.errors == []
    finally:
        visit.close()


def test_search_page_finds_where(browser, book_server):
    visit = Visit(browser, book_server, "search.html?q=where")
    try:
        visit.page.wait_for_selector("#search-results ul.search li", timeout=20_000)
        hits = visit.page.eval_on_selector_all(
            "#search-results ul.search li a", "links => links.map(a => a.href)")
        assert any(h.startswith(book_server + "book/") for h in hits), hits
        assert visit.outside == [] and visit.errors == []
    finally:
        visit.close()


def test_a_page_requesting_another_host_is_caught(browser, book_server):
    """The request guard itself works: an outside fetch is recorded and blocked."""
    visit = Visit(browser, book_server, PAGES[0])
    try:
        visit.page.evaluate("""() => new Promise(done => {
            const s = document.createElement('script');
            s.src = 'http://example.invalid/x.js';
            s.onerror = s.onload = () => done();
            document.head.appendChild(s);
        })""")
        assert visit.outside == ["http://example.invalid/x.js"]
    finally:
        visit.close()


SEARCH_WORDS = 6        # what a reader pastes: the first words of the message
FIRST_RESULTS = 3

WAIT_FOR_RESULTS = """targets => {
    const links = Array.from(document.querySelectorAll('#search-results ul.search li a'))
        .slice(0, FIRST_RESULTS).map(a => a.href.replace(/[?][^#]*/, ''));
    const done = document.querySelector('#search-results p.search-summary')
        && !document.querySelector('#search-progress')?.textContent.trim();
    return links.some(h => targets.includes(h)) || links.length === FIRST_RESULTS || done;
}""".replace("FIRST_RESULTS", str(FIRST_RESULTS))


@pytest.mark.slow
def test_pasting_the_first_words_of_each_message_finds_its_entry(browser, book_server):
    """The errors page is found by its text: for every message of book/errors.ipynb (read
    from the notebook's outputs), its first six words typed into the book's own search box
    (the sidebar's button, then its field; Enter) give that message's entry, as a link to
    its section, among the first three results.  (Its own browser context, watched but
    not routed: routing every request through the test costs a second per search.)"""
    from errors_page import entries
    found = entries()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    outside, errors = [], []
    page = context.new_page()
    page.on("request", lambda r: r.url.startswith(book_server) or outside.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(book_server + "book/errors.html")
        # every id a result's #anchor may name, for each entry's section
        ids = page.evaluate("""labels => Object.fromEntries(labels.map(label => {
            const section = document.getElementById(label).closest('section');
            const spans = Array.from(section.querySelectorAll(':scope > span[id]'));
            return [label, [section.id, ...spans.map(s => s.id)]];
        }))""", [e.label for e in found])
        missed = []
        for entry in found:
            query = " ".join(entry.said[1].split()[:SEARCH_WORDS])
            # the box opens a dialog; on the results page it is the field at their top
            page.click(".search-button-field")
            page.locator("input[name=q]:visible").fill(query)
            with page.expect_navigation(wait_until="commit"):
                page.keyboard.press("Enter")
            targets = [f"{book_server}book/errors.html#{i}" for i in ids[entry.label]]
            for _ in range(3):  # the results arrive a few at a time: a short list may grow
                page.wait_for_function(WAIT_FOR_RESULTS, arg=targets, timeout=20_000)
                hits = page.eval_on_selector_all(
                    "#search-results ul.search li a",
                    "links => links.map(a => a.href.replace(/[?][^#]*/, ''))")[:FIRST_RESULTS]
                if set(targets) & set(hits) or len(hits) == FIRST_RESULTS:
                    break
                page.wait_for_timeout(500)
            if not set(targets) & set(hits):
                missed.append(f"{query!r}: {hits}")
        assert missed == [], f"entries not among the first {FIRST_RESULTS} results:\n" + "\n".join(missed)
        assert outside == [] and errors == []
    finally:
        context.close()


# A phone: nothing scrolls sideways, no name in a table breaks mid-word (chapter 06's
# rules table turns into cards), no explorer is cut at the column's edge (wide tables
# and the graph scroll inside their own box), every control of an explorer is a target of
# 24 x 24 px at least, and the graph's numbers are drawn at 11 px or more.
PHONES = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]
PHONE_CHECK = """(width) => {
    const w = width || window.innerWidth;   // a phone may widen its layout to fit the page
    const found = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > w + 1)
        found.push(`the page is ${doc.scrollWidth} px wide in a ${w} px window`);
    for (const c of document.querySelectorAll('.tag_rules-table td, .tag_rules-table th')) {
        if (!['cell', 'columnheader'].includes(c.getAttribute('role'))) {   // cards keep roles
            found.push(`a rules-table ${c.tagName} without its role`);
            break;
        }
    }
    for (const c of document.querySelectorAll('table code')) {   // a name breaks only if longer
        const name = c.textContent;                                 // than a phone's line
        if (!/\\s/.test(name) && name.length <= 24 && c.getClientRects().length > 1) {
            found.push(`${name} breaks across lines in a table`);
            break;
        }
    }
    for (const x of document.querySelectorAll('.al-x')) {
        const box = x.getBoundingClientRect();
        if (box.left < -1 || box.right > w + 1)
            found.push(`explorer ${x.dataset.kind} spans ${Math.round(box.left)}..${Math.round(box.right)} px`);
        for (const el of x.querySelectorAll('*')) {
            const scroller = el.closest('.al-scroll');
            if (scroller && scroller !== el) continue;           // scrolls inside its own box
            const r = el.getBoundingClientRect();
            if (r.width && r.right > box.right + 1) {
                found.push(`explorer ${x.dataset.kind}: ${el.tagName} ${el.dataset.role || ''} cut by ` +
                           `${Math.round(r.right - box.right)} px`);
                break;
            }
        }
        for (const c of x.querySelectorAll('input, button, textarea')) {
            const r = c.getBoundingClientRect();
            if (r.width < 24 || r.height < 24)
                found.push(`explorer ${x.dataset.kind}: ${c.type || c.tagName} ${c.dataset.role || ''} ` +
                           `${Math.round(r.width)} x ${Math.round(r.height)} px`);
        }
        for (const t of x.querySelectorAll('svg text')) {
            const size = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
            if (size < 11) { found.push(`explorer ${x.dataset.kind}: text at ${size.toFixed(1)} px`); break; }
        }
    }
    return found;
}"""


@pytest.mark.slow
@pytest.mark.parametrize("name", PAGES)
def test_page_reads_on_a_phone(browser, book_server, name):
    context = browser.new_context(viewport=PHONES[0], is_mobile=True, has_touch=True,
                                  device_scale_factor=2, service_workers="block")
    try:
        page = context.new_page()
        page.goto(book_server + name, wait_until="load")
        page.wait_for_function(MOUNTED)
        for size in PHONES:
            page.set_viewport_size(size)
            page.wait_for_timeout(100)
            assert page.evaluate(PHONE_CHECK, size["width"]) == [], f"{name} at {size['width']} x {size['height']}"
    finally:
        context.close()
