"""Driving the book's explorers as a reader does, shared by tests/explorers/test_explorers.py and
bench/bench_explorers.py: the explorers of the book and their controls, the chapter's own
explorer rebuilt in this process, a view in a browser page, and JupyterLab started on
127.0.0.1 with a notebook run from top to bottom.
"""
import contextlib
import json
import math
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]
WINDOW = {"width": 1280, "height": 800}


# -- the explorers of the book, and what each control must change ------------------------------
@dataclass
class Control:
    """One thing a reader does: ``how`` is "click", "type", "arrow" or "drag"; ``role``
    the data-role (or a CSS selector starting with "css:") of the control."""
    how: str
    role: str
    value: object = None


@dataclass
class Book:
    chapter: str                    # book/<chapter>.ipynb, page book/<chapter>.html
    variable: str                   # the name the chapter gives the displayed explorer
    controls: list = field(default_factory=list)
    lab: Control = None             # the control used in JupyterLab
    index: int = 0                  # which explorer of the page, in page order

    @property
    def page(self):
        return f"book/{self.chapter}.html"


def seed_controls(n_entries, presets):
    out = [Control("click", f'css:[data-role="presets"] button[data-key="{p}"]') for p in presets]
    for i in range(n_entries):
        out += [Control("type", f"seed-{i}", "0.25"), Control("arrow", f"seed-{i}", "ArrowRight"),
                Control("arrow", f"seed-{i}", "ArrowLeft"), Control("drag", f"seed-{i}", 0.8),
                Control("type", f"seed-{i}", "7")]          # outside the range: the range grows
    return out


EXPLORERS = [
    Book("03_backward_gradient_seed", "mm_explorer",
         seed_controls(2, ["one-hot (0, 1)", "ones", "mean", "one-hot (0, 0)"]),
         lab=Control("click", 'css:[data-role="presets"] button[data-key="ones"]')),
    Book("03_backward_gradient_seed", "losses_explorer", seed_controls(2, ["one-hot (0, 0)", "ones", "mean"]),
         lab=Control("type", "seed-1", "-1"), index=1),
    Book("06_inside_autograd_lab", "explorer", seed_controls(3, ["one-hot 1", "mean", "ones"]),
         lab=Control("click", 'css:[data-role="presets"] button[data-key="one-hot 2"]')),
    Book("05d_your_own_backward", "explorer", seed_controls(3, ["one-hot 0", "mean", "ones"]),
         lab=Control("type", "seed-2", "-1")),
]


# Every explorer of the book, with the change the benchmark times on it (bench_explorers.py):
# an arrow key on a slider where there is one, else a button or a typed number.
BENCH = [
    (Book("01b_the_chain_rule_in_numbers", "explorer"), Control("arrow", "param-0", "ArrowRight")),
    (Book("02_masks_where_select_cond", "explorer"), Control("arrow", "threshold", "ArrowRight")),
    (Book("02_masks_where_select_cond", "pitfall", index=1), Control("arrow", "threshold", "ArrowRight")),
    (EXPLORERS[0], Control("arrow", "seed-0", "ArrowRight")),
    (EXPLORERS[1], Control("arrow", "seed-0", "ArrowRight")),
    (Book("04_grad_outputs", "explorer"), Control("type", "cell-0", "2")),
    (Book("05_reconstructing_the_jacobian", "explorer"),
     Control("click", 'css:[data-role="buttons"] button[data-key="all"]')),
    (Book("05_reconstructing_the_jacobian", "picker", index=1), Control("arrow", "w-0", "ArrowRight")),
    (Book("05b_what_backward_keeps", "explorer"),
     Control("click", 'css:[data-role="predict"] button[data-key="error"]')),
    (Book("05c_what_the_graph_keeps_alive", "explorer"), Control("arrow", "width", "ArrowRight")),
    (EXPLORERS[2], Control("arrow", "seed-0", "ArrowRight")),
]


def drawn_numbers(kind, ex):
    """What the view of ``ex`` must show, computed by autograd_lab in this process:
    {data-role of a row of numbers: the numbers}."""
    if kind == "seed":
        return {"grad": ex.grad.numpy().reshape(-1)}
    raise AssertionError(f"no reading for explorers of kind {kind!r}")


# -- the chapter's code, run here --------------------------------------------------------------
_NAMESPACES = {}


class _NoShell:
    """What a chapter's ``get_ipython()`` gets here: its %xmode setting only changes how
    tracebacks are shown."""

    def run_line_magic(self, *args):
        pass


def chapter_explorer(book):
    """A fresh explorer ``book.variable`` made as the chapter makes it: the chapter's code
    cells run in this process up to the cell that assigns the name (once per chapter; that
    cell runs again for each new explorer).  A cell that must raise runs too (its first
    lines may make what later cells use) and its error is the one the chapter shows;
    IPython's % lines are left out."""
    key = (book.chapter, book.variable)
    if key not in _NAMESPACES:
        import matplotlib
        matplotlib.use("Agg")
        cells = json.loads((ROOT / "book" / f"{book.chapter}.ipynb").read_text())["cells"]
        ns = {"__name__": "__chapter__", "get_ipython": _NoShell}
        assign = re.compile(rf"^{re.escape(book.variable)}\s*=", re.M)
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%"))
            _run(code, ns, book.chapter, "raises-exception" in cell["metadata"].get("tags", []))
            if assign.search(source):
                _NAMESPACES[key] = (ns, code)
                break
        else:
            raise LookupError(f"{book.chapter} never assigns {book.variable}")
    ns, code = _NAMESPACES[key]
    _run(code, ns, book.chapter, False)
    return ns[book.variable]


def _run(code, ns, chapter, may_raise):
    with open(os.devnull, "w") as quiet, _redirect(quiet):
        try:
            exec(compile(code, f"{chapter}.ipynb", "exec"), ns)
        except Exception:
            if not may_raise:
                raise


class _redirect:
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        self.saved = sys.stdout
        sys.stdout = self.stream

    def __exit__(self, *exc):
        sys.stdout = self.saved


def assert_numbers(text_numbers, expected, where):
    """Numbers drawn (as the book prints them, four significant digits) against numbers
    computed by autograd_lab."""
    got = [float(t) for t in text_numbers]
    want = np.asarray(expected, dtype=float).reshape(-1)
    assert len(got) == len(want), f"{where}: {got} drawn, {want.tolist()} computed"
    for g, w in zip(got, want):
        same = (g == w) if not math.isfinite(w) or math.isnan(w) else abs(g - w) <= 6e-4 * max(1.0, abs(w))
        same = same or (math.isnan(w) and math.isnan(g))
        assert same, f"{where}: {got} drawn, {want.tolist()} computed"


class View:
    """One explorer's view in a browser page (the book's or JupyterLab's)."""

    def __init__(self, page, root):
        self.page, self.root = page, root

    def frames(self):
        return int(self.root.get_attribute("data-frames"))

    def locate(self, role):
        if role.startswith("css:"):
            return self.root.locator(role[4:]).first
        return self.root.locator(f'[data-role="{role}"]').first

    def numbers(self, role):
        return [t.strip() for t in self.root.locator(f'[data-role="{role}"] td:not(.al-lead)').all_inner_texts()]

    def use(self, control):
        """Use a control and wait for the one redraw it causes; returns the redraws seen."""
        before = self.frames()
        target = self.locate(control.role)
        if control.how == "click":
            target.click()
        elif control.how == "type":
            box = target.locator("input[type=text], textarea").first
            box.fill(str(control.value))
            box.press("Enter")
        elif control.how == "arrow":
            target.locator("input[type=range]").focus()
            self.page.keyboard.press(control.value)
        elif control.how == "drag":
            bar = target.locator("input[type=range]").bounding_box()
            x = bar["x"] + bar["width"] * control.value
            self.page.mouse.click(x, bar["y"] + bar["height"] / 2)
        else:
            raise ValueError(control.how)
        self.page.wait_for_function("([el, n]) => Number(el.dataset.frames) > n",
                                    arg=[self.root.element_handle(), before], timeout=15_000)
        self.page.wait_for_timeout(50)             # a second frame would come now
        return self.frames() - before


# -- accessibility: axe-core, vendored (tests/support/vendor/axe-core, from npm; MPL-2.0) ----------------
AXE = ROOT / "tests" / "support" / "vendor" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_violations(page, selector=None):
    """WCAG 2.1 A and AA violations axe-core finds in the page (or in the elements matching
    ``selector``), as {rule: [targets]}.  axe is added to the page by the test, never by
    the page itself."""
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    found = page.evaluate("""async ([selector, tags]) => {
        const where = selector ? {include: Array.from(document.querySelectorAll(selector))} : document;
        const r = await axe.run(where, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
        return r.violations.map(v => [v.id, v.nodes.map(n => n.target.join(' ') + ': ' +
                                                        (n.failureSummary || '').split('\\n').slice(1, 2).join(''))]);
    }""", [selector, AXE_TAGS])
    return {rule: targets for rule, targets in found}


def open_page(browser, url, theme):
    context = browser.new_context(viewport=WINDOW, service_workers="block")
    if theme:
        context.add_init_script(f"localStorage.setItem('mode', '{theme}'); localStorage.setItem('theme', '{theme}');")
    page = context.new_page()
    problems, outside = [], []
    page.on("console", lambda m: m.type in ("error", "warning") and problems.append(m.text))
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    base = url.split("/book/")[0]
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base)
                  else (outside.append(r.request.url), r.abort()))
    page.goto(url, wait_until="load")
    return context, page, problems, outside


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(workdir, windowing="none"):
    """JupyterLab on 127.0.0.1 over a copy of book/ in ``workdir`` (nothing it saves touches
    the repository), with a settings folder that asks it not to fetch news and a workspaces
    folder of its own (JupyterLab otherwise reopens every notebook the last JupyterLab of this
    user had open, from ~/.jupyter/lab/workspaces, each with a kernel); yields its URL.
    ``windowing``: the notebook's windowing mode ("none", the tests' choice: every cell laid
    out, so a test can measure any explorer; None keeps JupyterLab's default, which skips
    laying out cells out of view, as a reader gets it)."""
    jupyter = Path(sys.executable).parent / "jupyter"
    workdir = Path(workdir)
    shutil.copytree(ROOT / "book", workdir / "book",
                    ignore=shutil.ignore_patterns("_build", ".ipynb_checkpoints"))
    settings = workdir / "settings" / "@jupyterlab"
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}')
    if windowing is not None:
        (settings / "notebook-extension").mkdir()
        (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
            json.dumps({"windowingMode": windowing}))
    port = _free_port()
    # as `python3 tools/dev.py lab` starts it: with tools/jupyter_nodelay.py
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(workdir / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(workdir / "workspaces"),
               JUPYTER_RUNTIME_DIR=str(workdir / "runtime"),
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT / "tools"), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", "--allow-root", f"--port={port}", "--ip=127.0.0.1",
         "--IdentityProvider.token=explorers", f"--ServerApp.root_dir={workdir / 'book'}",
         "--LabApp.expose_app_in_browser=True",
         "--ServerApp.jpserver_extensions={'jupyter_nodelay': True}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=workdir)
    try:
        deadline = time.time() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise RuntimeError("JupyterLab did not start within 60 s")
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def has_jupyterlab():
    return shutil.which("jupyter-lab", path=str(Path(sys.executable).parent)) is not None


def run_all_in_lab(page, base, chapter):
    """Open a chapter in JupyterLab, run all its cells, and wait until every code cell ran
    and the kernel is idle.  The chapter is the only notebook open (``reset``: the notebooks
    opened before in this JupyterLab are not reopened), as when a reader opens one."""
    page.goto(f"{base}/lab/tree/{chapter}.ipynb?token=explorers&reset", wait_until="load")
    opened = f"{chapter}.ipynb"
    page.wait_for_function("""(name) => {
        const nb = window.jupyterapp && jupyterapp.shell.currentWidget;
        return nb?.context?.path?.endsWith(name)
            && nb.sessionContext?.session?.kernel?.status === 'idle';
    }""", arg=opened, timeout=90_000)
    page.evaluate("jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function("""() => {
        const nb = jupyterapp.shell.currentWidget;
        const cells = nb.content.widgets.filter(c => c.model.type === 'code');
        return cells.every(c => c.model.executionCount !== null
                                && c.model.sharedModel.execution_state !== 'running')
            && nb.sessionContext?.session?.kernel?.status === 'idle';
    }""", timeout=240_000, polling=500)


def current_notebook(page):
    """The notebook JupyterLab shows now (a reopened workspace may hold others)."""
    return page.locator("#" + page.evaluate("jupyterapp.shell.currentWidget.id"))


def page_view(page, index=0, kind=None):
    """The view of the page's explorer number ``index`` (of one ``kind`` if given), once the
    page has mounted its views, scrolled into sight."""
    selector = ".al-x" + (f'[data-kind="{kind}"]' if kind else ":not(.al-exercise)")  # not answer boxes
    page.wait_for_selector(f".al-explorer.al-mounted {selector}")
    root = page.locator(f".al-explorer {selector}").nth(index)
    root.scroll_into_view_if_needed()
    return View(page, root)


def lab_view(page, index=0):
    """The view of the open notebook's explorer number ``index``, once drawn, scrolled
    into sight (page_view's twin in JupyterLab)."""
    view = View(page, lab_views(page, index + 1).nth(index))
    view.root.scroll_into_view_if_needed()
    return view


def record_messages(page, view):
    """A list that fills with every message ``view`` sends to its host in the page."""
    sent = []
    page.expose_function("alRecord", lambda msg: sent.append(msg))
    view.root.evaluate("el => el.closest('.al-explorer').addEventListener('al-message', e => alRecord(e.detail))")
    return sent


def lab_views(page, count, kind=None, timeout=120_000):
    """The explorers' views in the open notebook (of one ``kind`` if given), once ``count``
    of them have drawn: under load a view mounts well after its cell ran."""
    notebook = current_notebook(page)
    selector = ".al-x" + (f'[data-kind="{kind}"]' if kind else ":not(.al-exercise)")  # not answer boxes
    page.wait_for_function("""([id, selector, count]) => Array.from(
            document.querySelectorAll(`#${id} ${selector}`)).filter(
            (el) => el.dataset.frames !== "0").length >= count""",
                           arg=[page.evaluate("jupyterapp.shell.currentWidget.id"), selector, count],
                           timeout=timeout, polling=250)
    assert "Error displaying widget" not in notebook.inner_text()
    return notebook.locator(selector)


def lab_message(view, control, ex):
    """The message a control sent (the kernel's side is not visible to the test): read it
    back from the view's own controls."""
    if control.how == "click":
        key = view.locate(control.role).get_attribute("data-key")
        return {"do": "preset", "name": key}
    if control.role.startswith("seed-"):
        boxes = view.root.locator('[data-role^="seed-"] input[type=text]')
        seed = [float(boxes.nth(i).input_value()) for i in range(boxes.count())]
        return {"set": "seed", "value": np.reshape(seed, ex.y.shape).tolist()}
    raise AssertionError(f"no message known for {control}")
