"""Take the README's picture of a rendered page: the built intro page in headless Chromium.

    python3 tools/dev.py screenshot     # after `python3 tools/dev.py book`

Writes docs/rendered_intro.png (1280x800 viewport, light theme). Needs Debian's chromium
at /usr/bin/chromium; the page is served from _build/html on 127.0.0.1.
"""
import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
OUT = ROOT / "docs" / "rendered_intro.png"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main(page_name="book/intro.html"):
    if not (HTML / page_name).exists():
        sys.exit(f"no {HTML / page_name}: build the book first (python3 tools/dev.py book)")
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
        page.goto(base + page_name, wait_until="networkidle")
        page.evaluate("async () => { if (window.MathJax && MathJax.startup) "
                      "await MathJax.startup.promise; }")
        OUT.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(OUT))
        browser.close()
    server.shutdown()
    print(OUT)


if __name__ == "__main__":
    main(*sys.argv[1:])
