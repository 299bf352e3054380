"""Shared test set-up: nbval defaults, and the built book served on 127.0.0.1.

- nbval's defaults live in book/conftest.py, so that `pytest book/<chapter>.ipynb`
  alone gets them too.
- `built_html`: the folder _build/html. Missing or older than the book's sources, the
  tests that need it skip with the command to run; under `tools/dev.py test` (which
  builds first and sets AUTOGRAD_LAB_REQUIRE_HTML=1) they fail instead.
- `book_pages`: the pages of the book in reading order, from the table of contents that
  was built (AUTOGRAD_LAB_TOC, else _toc.yml).
- `book_server`: a quiet HTTP server on 127.0.0.1 (random port) over _build/html.
"""
import functools
import gzip
import http.server
import os
import threading

import pytest

from book_site import (BUILD_HINT, HTML, ROOT, require_or_skip, source_of, toc_docnames,
                       toc_path)


def _html_problem():
    index = HTML / "index.html"
    if not index.exists():
        return f"no built book at {HTML}; {BUILD_HINT}"
    built = index.stat().st_mtime
    sources = [ROOT / "_config.yml", toc_path(), *sorted((ROOT / "book" / "_static").iterdir())]
    sources += [s for s in map(source_of, toc_docnames()) if s is not None]
    stale = [s.name for s in sources if s.stat().st_mtime > built]
    if stale:
        return f"the built book is older than {', '.join(stale)}; {BUILD_HINT}"
    return None


@pytest.fixture(scope="session")
def built_html():
    problem = _html_problem()
    if problem:
        require_or_skip(problem, "AUTOGRAD_LAB_REQUIRE_HTML")
    return HTML


@pytest.fixture(scope="session")
def book_pages():
    return [f"{name}.html" for name in toc_docnames()]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files like a static web host: text assets gzip-compressed when the browser
    accepts it (so Content-Length is the transfer size), nothing logged."""

    COMPRESSIBLE = (".html", ".js", ".css", ".json", ".svg", ".txt", ".map", ".ipynb")
    _cache = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.translate_path(self.path)
        if ("gzip" not in self.headers.get("Accept-Encoding", "")
                or not path.endswith(self.COMPRESSIBLE) or not os.path.isfile(path)):
            return super().do_GET()
        key = (path, os.stat(path).st_mtime_ns)
        if key not in self._cache:
            with open(path, "rb") as f:
                self._cache[key] = gzip.compress(f.read(), compresslevel=6, mtime=0)
        body = self._cache[key]
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="session")
def book_server(built_html):
    """Base URL (ending in '/') of _build/html served on 127.0.0.1."""
    handler = functools.partial(_QuietHandler, directory=str(built_html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


# page weights that tests/test_browser.py records as the property "page_weight" of its
# reports (so that they reach this process from an xdist worker too), printed at the end
PAGE_WEIGHTS = {}


def pytest_runtest_logreport(report):
    if report.when == "call":
        for key, value in report.user_properties:
            if key == "page_weight":
                name, sent, raw = value
                PAGE_WEIGHTS[name] = (sent, raw)


def pytest_terminal_summary(terminalreporter):
    if PAGE_WEIGHTS:
        terminalreporter.section("page weight (MathJax fonts not counted; budget: 2 MB transferred)")
        terminalreporter.write_line("transferred (gzip)   uncompressed   page")
        for name, (sent, raw) in sorted(PAGE_WEIGHTS.items()):
            terminalreporter.write_line(f"{sent / 1e6:9.2f} MB {raw / 1e6:14.2f} MB   {name}")
