"""Shared test set-up: nbval defaults, and the built book served on 127.0.0.1.

- nbval: when the plugin is installed, `pytest` runs every notebook in book/ with
  --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg (see pyproject).
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
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
SANITIZE = Path(__file__).resolve().parent / "sanitize.cfg"
BUILD_HINT = "build the book first: python3 tools/dev.py book"


def pytest_configure(config):
    opt = config.option
    if not config.pluginmanager.hasplugin("nbval"):
        return
    if not getattr(opt, "nbval_lax", False):
        opt.nbval = True
    if not opt.nbval_kernel_name:
        opt.nbval_current_env = True
    if not opt.nbval_sanitize_with:
        opt.nbval_sanitize_with = str(SANITIZE)
    if str(opt.nbval_cell_timeout) == "2000":   # nbval's default; a stuck cell fails sooner
        opt.nbval_cell_timeout = 120


def toc_path():
    return Path(os.environ.get("AUTOGRAD_LAB_TOC") or ROOT / "_toc.yml")


def toc_docnames(path=None):
    """Docnames ('book/intro', ...) of the table of contents, in reading order.

    Reads the `root:` and `- file:` lines of the toc (the form _toc.yml uses), so that
    collecting the tests needs no YAML library."""
    names = []
    for line in Path(path or toc_path()).read_text().splitlines():
        key, _, value = line.strip().removeprefix("- ").partition(":")
        value = value.split("#")[0].strip().strip("'\"")
        if key in ("root", "file") and value:
            names.append(value.removesuffix(".ipynb").removesuffix(".md"))
    return names


def source_of(docname):
    for ext in (".ipynb", ".md"):
        if (ROOT / f"{docname}{ext}").exists():
            return ROOT / f"{docname}{ext}"
    return None


def _html_problem():
    index = HTML / "index.html"
    if not index.exists():
        return f"no built book at {HTML}; {BUILD_HINT}"
    built = index.stat().st_mtime
    sources = [ROOT / "_config.yml", toc_path()]
    sources += [s for s in map(source_of, toc_docnames()) if s is not None]
    stale = [s.name for s in sources if s.stat().st_mtime > built]
    if stale:
        return f"the built book is older than {', '.join(stale)}; {BUILD_HINT}"
    return None


def require_or_skip(problem):
    if os.environ.get("AUTOGRAD_LAB_REQUIRE_HTML") == "1":
        pytest.fail(problem, pytrace=False)
    pytest.skip(problem)


@pytest.fixture(scope="session")
def built_html():
    problem = _html_problem()
    if problem:
        require_or_skip(problem)
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


# Page weights measured by tests/test_browser.py, printed at the end of the run.
PAGE_WEIGHTS = {}


def pytest_terminal_summary(terminalreporter):
    if PAGE_WEIGHTS:
        terminalreporter.section("page weight (MathJax fonts not counted; budget: 2 MB transferred)")
        terminalreporter.write_line("transferred (gzip)   uncompressed   page")
        for name, (sent, raw) in sorted(PAGE_WEIGHTS.items()):
            terminalreporter.write_line(f"{sent / 1e6:9.2f} MB {raw / 1e6:14.2f} MB   {name}")
