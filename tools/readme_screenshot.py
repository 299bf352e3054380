"""Take the README's pictures of the rendered book, in headless Chromium:

- docs/rendered_intro.png: the built intro page (1280x800 window, light theme);
- docs/explorer_in_page.png: chapter 03's first explorer, live in the page (no kernel),
  after a reader pressed its "mean" preset.

    python3 tools/dev.py screenshot     # after `python3 tools/dev.py book`

Needs Debian's chromium at /usr/bin/chromium; the pages are served from _build/html on
127.0.0.1.
"""
import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
DOCS = ROOT / "docs"
INTRO, EXPLORER = "book/intro.html", "book/03_backward_gradient_seed.html"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    for page in (INTRO, EXPLORER):
        if not (HTML / page).exists():
            sys.exit(f"no {HTML / page}: build the book first (python3 tools/dev.py book)")
    handler = functools.partial(_Quiet, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_init_script("localStorage.setItem('mode','light');"
                                "localStorage.setItem('theme','light');")
        page = context.new_page()
        page.goto(base + INTRO, wait_until="networkidle")
        page.evaluate("async () => { if (window.MathJax && MathJax.startup) "
                      "await MathJax.startup.promise; }")
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / "rendered_intro.png"))
        page.goto(base + EXPLORER, wait_until="networkidle")
        view = page.locator(".al-explorer .al-x").first
        view.scroll_into_view_if_needed()
        view.locator('[data-role="presets"] button[data-key="mean"]').click()
        page.wait_for_timeout(300)
        view.screenshot(path=str(DOCS / "explorer_in_page.png"))
        browser.close()
    server.shutdown()
    print(DOCS / "rendered_intro.png", DOCS / "explorer_in_page.png")


if __name__ == "__main__":
    main()
