"""Shared test set-up: nbval defaults, and the built book served on 127.0.0.1.

- nbval's defaults live in book/conftest.py, so that `pytest book/<chapter>.ipynb`
  alone gets them too.
- `built_html`: the folder _build/html. Missing or older than the book's sources, the
  tests that need it skip with the command to run; under `tools/dev.py test` (which
  builds first and sets AUTOGRAD_LAB_REQUIRE_HTML=1) they fail instead.
- `book_pages`: the pages of the book in reading order, from the table of contents that
  was built (AUTOGRAD_LAB_TOC, else _toc.yml).
- `book_server`: a quiet HTTP server on 127.0.0.1 (random port) over _build/html.
- `chromium`, `lab`: headless Chromium and a JupyterLab on 127.0.0.1, for the explorer
  tests (tests/support/explorer_driver.py drives them).
"""
import functools
import gzip
import http.server
import os
import sys
import threading

import pytest

# tests/ is laid out by layer (core, torch_parity, book, explorers) with the helpers in
# support/; every folder is on the path, so a test imports a helper (op_cases,
# explorer_driver, book_site, ...) or another test file's names by module name alone.
_TESTS = os.path.dirname(os.path.abspath(__file__))
for _folder in ("explorers", "book", "torch_parity", "core", "support"):
    _path = os.path.join(_TESTS, _folder)
    if _path not in sys.path:
        sys.path.insert(0, _path)
_BOOK = os.path.join(os.path.dirname(_TESTS), "book")     # book content: book_answers.py
if _BOOK not in sys.path:
    sys.path.append(_BOOK)

from book_site import (BUILD_HINT, HTML, ROOT, require_or_skip, source_of, toc_docnames,
                       toc_path)


def _html_problem():
    index = HTML / "index.html"
    if not index.exists():
        return f"no built book at {HTML}; {BUILD_HINT}"
    built = index.stat().st_mtime
    sources = [ROOT / "_config.yml", toc_path(), *sorted((ROOT / "book" / "_static").iterdir()),
               ROOT / "book" / "errors_elsewhere.toml"]     # the page of errors' index reads it
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


@pytest.fixture(scope="session")
def chromium():
    """Headless Chromium (Debian's), driven by Playwright, for the explorer tests."""
    from explorer_driver import CHROMIUM, CHROMIUM_ARGS
    if not CHROMIUM.exists():
        require_or_skip("Chromium is not installed at /usr/bin/chromium; install it with "
                        "`sudo apt-get install -y chromium`", "AUTOGRAD_LAB_REQUIRE_BROWSER")
    from playwright.sync_api import sync_playwright
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield browser
    browser.close()
    pw.stop()


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """JupyterLab started on 127.0.0.1 over a copy of book/: its URL."""
    from explorer_driver import has_jupyterlab, jupyterlab
    if not has_jupyterlab():
        require_or_skip("JupyterLab is not installed in this environment", "AUTOGRAD_LAB_REQUIRE_BROWSER")
    with jupyterlab(tmp_path_factory.mktemp("lab")) as url:
        yield url


# page weights that tests/book/test_browser.py records as the property "page_weight" of its
# reports (so that they reach this process from an xdist worker too), printed at the end
PAGE_WEIGHTS = {}
LAYOUT_SHIFTS = {}


def pytest_runtest_logreport(report):
    if report.when == "call":
        for key, value in report.user_properties:
            if key == "page_weight":
                name, sent, raw = value
                PAGE_WEIGHTS[name] = (sent, raw)
            elif key == "layout_shift":
                LAYOUT_SHIFTS[value[0]] = value[1]


def pytest_terminal_summary(terminalreporter):
    if PAGE_WEIGHTS:
        terminalreporter.section("page weight (MathJax fonts not counted; budget: 1.5 MB transferred) "
                                 "and layout shift while loading")
        terminalreporter.write_line("transferred (gzip)   uncompressed   layout shift   page")
        for name, (sent, raw) in sorted(PAGE_WEIGHTS.items()):
            shift = LAYOUT_SHIFTS.get(name)
            shift = "" if shift is None else f"{shift:.3f}"
            terminalreporter.write_line(f"{sent / 1e6:9.2f} MB {raw / 1e6:14.2f} MB   {shift:>12}   {name}")


# What the README's test command leaves to CI's own step (`tools/dev.py test --slow`), to
# stay within its budget on a 2-core machine: every check in JupyterLab (it starts a
# server and kernels), the dark theme of every page and of the explorers' page tests (the
# light theme runs here), the tests that press
# every button or move every control of an explorer, the throwaway-book builds (slow_build); and the tests
# marked slow by hand (the errors page's search, the special-value sweep, phones).
@pytest.hookimpl(optionalhook=True)     # (pytest-xdist's hook: absent under -p no:xdist)
def pytest_xdist_make_scheduler(config, log):
    """Under ``--dist loadfile`` (tools/dev.py) every test file runs on one worker -- a
    notebook's cells in order in one kernel, a module's fixtures made once -- except the
    browser's page checks, the longest file, whose tests both workers share."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FilesButBrowserPages(LoadFileScheduling):
        def _split_scope(self, nodeid):
            file = nodeid.split("::", 1)[0]
            return nodeid if file.endswith("tests/book/test_browser.py") else file

    return FilesButBrowserPages(config, log)


def pytest_collection_modifyitems(config, items):
    for item in items:
        params = getattr(item, "callspec", None)
        dark_view = (params is not None and params.params.get("theme") == "dark"
                     and item.fspath.basename.startswith(("test_explorer_", "test_explorers")))
        every_press = item.name.startswith(("test_every_press_", "test_every_control_"))   # all of them
        if "lab" in getattr(item, "fixturenames", ()) or dark_view or every_press or \
                item.get_closest_marker("slow_build"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _torch_default_device_reset():
    """A test that calls torch.set_default_device leaves a torch function mode behind for
    every later test in the process (under it, torch's own l1_loss drops its ``weight``):
    each test starts without one."""
    yield
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "set_default_device"):
        torch.set_default_device(None)
