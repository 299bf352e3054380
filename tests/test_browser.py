"""Every page of the built book, opened in headless Chromium, works offline.

For each page of the table of contents, in the light and the dark theme: no console
error, no request to any host but the local server, math typeset by the site's MathJax
(no raw TeX left), every image loaded with alt text and drawn on an opaque background,
explorers shown as visible pictures (no dead widget), previous/next links that resolve,
and a page weight under 2 MB transferred (the local server gzips text as any static
host does; MathJax's fonts, shared by all pages, are not counted; the uncompressed size
is reported beside it).
One full-page screenshot per page (light theme) goes to _build/screenshots/ for review,
with the first screen of the dark theme beside it.

Needs Debian's chromium at /usr/bin/chromium (driven by Playwright's Python package; no
browser is downloaded). Without it the tests skip with the install command; under
.ci/run (AUTOGRAD_LAB_REQUIRE_BROWSER=1) they fail instead.
"""
import shutil
from pathlib import Path

import pytest

from book_site import ROOT, require_or_skip, toc_docnames

pytestmark = pytest.mark.browser
CHROMIUM = Path("/usr/bin/chromium")
INSTALL_HINT = ("Chromium is not installed at /usr/bin/chromium; install it with "
                "`sudo apt-get update && sudo apt-get install -y chromium`")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
BUDGET = 2 * 1024 * 1024
SHARED_FONTS = "/_static/mathjax/output/chtml/fonts/"
SHOTS = ROOT / "_build" / "screenshots"
PAGES = [f"{name}.html" for name in toc_docnames()]


def _missing(reason):
    require_or_skip(reason, "AUTOGRAD_LAB_REQUIRE_BROWSER")


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        _missing(INSTALL_HINT)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright is not installed: pip install -r requirements.txt")
    shutil.rmtree(SHOTS, ignore_errors=True)        # the folder shows this run only
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield browser
    browser.close()
    pw.stop()


class Visit:
    """One page load in a fresh browser context, with what it fetched and logged."""

    def __init__(self, browser, base, name, theme="light"):
        self.base, self.outside, self.errors, self.sizes = base, [], [], {}
        self.context = browser.new_context(viewport={"width": 1280, "height": 900},
                                           service_workers="block")
        # the pydata theme reads the reader's choice from localStorage before painting
        self.context.add_init_script(
            f"localStorage.setItem('mode', '{theme}'); localStorage.setItem('theme', '{theme}');")
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
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

    def screenshot(self, name, theme, full_page):
        """Full pages as JPEG (a 20,000-pixel-tall PNG costs twice the time), screens as PNG."""
        SHOTS.mkdir(parents=True, exist_ok=True)
        stem = f"{name.replace('/', '__').removesuffix('.html')}-{theme}"
        if full_page:
            path = SHOTS / f"{stem}.jpg"
            self.page.screenshot(path=str(path), full_page=True, type="jpeg", quality=75)
        else:
            path = SHOTS / f"{stem}.png"
            self.page.screenshot(path=str(path))
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
    };
}"""

IMAGES = """() => Array.from(document.images).map(img => {
    const r = img.getBoundingClientRect();
    const folded = img.closest('details:not([open])') !== null
        || img.closest('.toggle-hidden') !== null;
    return {src: img.currentSrc || img.src, alt: (img.getAttribute('alt') || '').trim(),
            loaded: img.complete && img.naturalWidth > 0, width: r.width,
            output: img.closest('.cell_output') !== null, folded: folded};
})"""

TRANSPARENT_PIXELS = """() => Array.from(document.images).map(img => {
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let transparent = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] < 255) transparent++;
    return {src: img.currentSrc || img.src, transparent: transparent};
})"""

LIVE_WIDGETS = """() => document.querySelectorAll(
    '.jupyter-widgets, .widget-slider, input[type=range], .jp-OutputArea-output .widget-box'
).length"""

RAW_TEX = ["\\(", "\\)", "\\[", "\\]", "$$", "\\begin{", "\\frac{", "\\top"]


SWITCH_TO_DARK = """() => {
    // what the theme's own switch button does
    localStorage.setItem('mode', 'dark'); localStorage.setItem('theme', 'dark');
    document.documentElement.dataset.mode = 'dark';
    document.documentElement.dataset.theme = 'dark';
    return getComputedStyle(document.body).backgroundColor;
}"""


@pytest.mark.parametrize("name", PAGES)
def test_page_works_offline_in_light_and_dark_theme(browser, book_server, built_html, name,
                                                    record_property):
    visit = Visit(browser, book_server, name, "light")
    try:
        assert visit.response is not None and visit.response.ok, f"{name} did not load"
        assert visit.page.evaluate("document.documentElement.dataset.theme") == "light"
        assert visit.outside == [], "requests to other hosts"
        assert visit.errors == [], "console errors"

        math = visit.page.evaluate(MATH_STATE)
        assert math["typeset"] >= math["math"], "math left for MathJax was not typeset"
        left = [tex for tex in RAW_TEX if tex in math["text"]]
        assert left == [], f"raw TeX on the page: {left}"

        images = visit.page.evaluate(IMAGES)
        assert [i["src"] for i in images if not i["loaded"]] == [], "images that did not load"
        assert [i["src"] for i in images if not i["alt"]] == [], "images without alt text"
        hidden = [i["src"] for i in images if i["output"] and not i["folded"] and i["width"] == 0]
        assert hidden == [], "output pictures (explorers, figures) not visible"
        assert visit.page.evaluate(LIVE_WIDGETS) == 0, "a live widget without a kernel"

        for selector in ("a.left-prev", "a.right-next"):
            link = visit.page.query_selector(selector)
            if link is not None:
                url = link.evaluate("a => a.href")
                assert url.startswith(book_server), url
                assert visit.page.request.get(url).ok, f"{selector} -> {url} is broken"

        weight = visit.weight()
        record_property("page_weight", (name, weight, visit.uncompressed_weight(built_html)))
        assert weight <= BUDGET, f"{name} fetches {weight / 1e6:.2f} MB"
        visit.screenshot(name, "light", full_page=True)       # the whole page, for review

        # dark theme: the page really turns dark, and no figure lets it show through
        light_bg = visit.page.evaluate("getComputedStyle(document.body).backgroundColor")
        visit.page.evaluate(SWITCH_TO_DARK)
        visit.page.wait_for_timeout(300)                      # the theme's CSS transition
        dark_bg = visit.page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert dark_bg != light_bg, "switching to the dark theme changed nothing"
        see_through = [(i["src"], i["transparent"])
                       for i in visit.page.evaluate(TRANSPARENT_PIXELS) if i["transparent"]]
        assert see_through == [], "images with transparent pixels on a dark page"
        assert visit.outside == [] and visit.errors == []
        visit.screenshot(name, "dark", full_page=False)       # the first screen, to compare
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
