"""How live do the explorers feel?  Time from a reader's input to the painted update, for
every explorer of the book, in the two places a reader meets it:

- **the page** (the built book, no kernel): the view's local model answers from numbers
  computed when the book was built.  Goal: within one frame, 16 ms.
- **JupyterLab** with a kernel: the message goes to the kernel, autograd_lab computes, the
  new state comes back and is drawn.  Goal: median under 50 ms.

One change is timed from the moment the input event is dispatched in the page until the
view has redrawn (its data-frames count goes up: the numbers are in the page) and until
the first frame painted after that (one animation frame, then a task).  Each
explorer gets 30 changes of one control (tests/support/explorer_driver.py's BENCH: an arrow key on
a slider, alternating directions so the values stay put, else a button or a typed
number), after 5 untimed ones.  Prints the median and 90th percentile per explorer.

Baseline, measured in the same run: in JupyterLab, the floor a widget meets before any
work of ours -- a bare anywidget that answers a button's message by setting one small
trait (ECHO), appended to the same chapter's notebook, since the notebook's size moves the
floor.  Its ratio says how much of the time is autograd_lab's and the view's.

    python3 tools/dev.py book && python3 bench/bench_explorers.py

Needs Debian's chromium and the built book (_build/html); the JupyterLab part starts its
own JupyterLab on 127.0.0.1 over a copy of book/, with JupyterLab's default settings (as
``python3 tools/dev.py lab`` gives them to a reader, tools/jupyter_nodelay.py included).
"""
import functools
import http.server
import json
import statistics
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from explorer_driver import (BENCH, CHROMIUM, CHROMIUM_ARGS, ROOT, WINDOW,  # noqa: E402
                             Control, current_notebook, jupyterlab, lab_views, run_all_in_lab)

WARMUP, CHANGES = 5, 30

# In the page: dispatch one input, resolve after the first frame painted after the redraw.
TIME_CHANGES = """async ([root, how, selector, value, warmup, n]) => {
    const target = selector ? root.querySelector(selector) : root;
    const act = (i) => {
        if (how === 'arrow') {
            const range = target.querySelector('input[type=range]');
            range.dispatchEvent(new KeyboardEvent('keydown',
                {key: i % 2 ? 'ArrowLeft' : 'ArrowRight', bubbles: true}));
        } else if (how === 'type') {
            const box = target.matches('input, textarea') ? target
                : target.querySelector('input[type=text], textarea');
            box.value = String(i % 2 ? 1 : value);          // always a new value
            box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
        } else {
            target.click();
        }
    };
    // resolves with [time to the redraw, time to the first frame painted after it]
    const painted = (before, t0) => new Promise((resolve, reject) => {
        const check = () => Number(root.dataset.frames) > before;
        const done = () => {
            const drawn = performance.now() - t0;
            requestAnimationFrame(() => setTimeout(() => resolve([drawn, performance.now() - t0]), 0));
        };
        setTimeout(() => reject(new Error('no redraw within 5 s')), 5000);
        if (check()) return done();
        const watch = new MutationObserver(() => { if (check()) { watch.disconnect(); done(); } });
        watch.observe(root, {attributes: true, attributeFilter: ['data-frames']});
    });
    const times = [];
    for (let i = 0; i < warmup + n; i++) {
        const before = Number(root.dataset.frames);
        const t0 = performance.now();
        act(i);
        const t = await painted(before, t0);
        if (i >= warmup) times.push(t);
    }
    return times;
}"""


# the baseline: a message to the kernel and a trait set in answer, nothing computed or drawn
ECHO = '''import anywidget, traitlets


class Echo(anywidget.AnyWidget):
    _esm = """export default { render({model, el}) {
      const root = document.createElement("div");
      root.className = "al-echo"; root.dataset.frames = "0";
      const button = document.createElement("button"); button.textContent = "echo";
      let n = 0; button.onclick = () => model.send({n: ++n});
      model.on("change:state", () => { root.dataset.frames = String(Number(root.dataset.frames) + 1); });
      root.append(button); el.append(root);
    } }"""
    state = traitlets.Dict().tag(sync=True)

    def __init__(self):
        super().__init__()
        self.on_msg(lambda _w, content, _b: setattr(self, "state", {"n": content["n"]}))


Echo()'''


def add_echo(notebook):
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    nb["cells"].append({"cell_type": "code", "execution_count": None, "id": "bench-echo",
                        "metadata": {}, "outputs": [], "source": ECHO})
    notebook.write_text(json.dumps(nb), encoding="utf-8")


def time_view(page, root, control):
    selector = control.role[4:] if control.role.startswith("css:") else f'[data-role="{control.role}"]'
    return page.evaluate(TIME_CHANGES, [root.element_handle(), control.how, selector, control.value,
                                        WARMUP, CHANGES])


def report(title, goal, rows, floors=None, limit=None):
    print(f"\n{title} (goal: {goal})")
    print(f"  {'explorer':46s} {'redrawn':>9s} {'painted':>9s} {'p90 painted':>12s}"
          + (f" {'echo painted':>13s} {'ratio':>6s} {'over echo':>10s}" if floors else ""))
    medians = []
    for name, times in rows:
        drawn = statistics.median(t[0] for t in times)
        shown = sorted(t[1] for t in times)
        p90 = shown[int(0.9 * (len(shown) - 1))]
        medians.append(statistics.median(shown))
        line = f"  {name:46s} {drawn:6.1f} ms {medians[-1]:6.1f} ms {p90:9.1f} ms"
        if floors:
            floor = statistics.median(t[1] for t in floors[name.split(":")[0]])
            line += f" {floor:10.1f} ms {medians[-1] / floor:5.2f}x {medians[-1] - floor:+7.1f} ms"
        print(line)
    if limit is not None:
        met = sum(m < limit for m in medians)
        print(f"  {met} of {len(medians)} explorers meet the goal" + (
            "; the bare widget's floor itself: " + ", ".join(
                f"{statistics.median(t[1] for t in times):.1f}" for times in floors.values()) + " ms"
            if floors else ""))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    from playwright.sync_api import sync_playwright
    html = ROOT / "_build" / "html"
    if not (html / "index.html").exists():
        sys.exit("no built book: run `python3 tools/dev.py book` first")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(html)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        rows = []
        for book, control in BENCH:
            page = browser.new_page(viewport=WINDOW)
            page.goto(base + book.page, wait_until="load")
            page.wait_for_selector(".al-explorer.al-mounted .al-x")
            root = page.locator(".al-explorer .al-x").nth(book.index)
            root.scroll_into_view_if_needed()
            rows.append((f"{book.chapter}: {book.variable}", time_view(page, root, control)))
            page.close()
        report("In the page (no kernel)", "redrawn within one frame, 16 ms: the next frame shows it", rows)

        rows, floors = [], {}
        with tempfile.TemporaryDirectory() as tmp, jupyterlab(tmp, windowing=None) as lab:
            page = browser.new_page(viewport=WINDOW)
            for chapter in sorted({b.chapter for b, _ in BENCH}):
                add_echo(Path(tmp) / "book" / f"{chapter}.ipynb")
                run_all_in_lab(page, lab, chapter)
                roots = lab_views(page, 1 + max(b.index for b, _ in BENCH if b.chapter == chapter))
                for book, control in ((b, c) for b, c in BENCH if b.chapter == chapter):
                    root = roots.nth(book.index)
                    root.scroll_into_view_if_needed()
                    rows.append((f"{chapter}: {book.variable}", time_view(page, root, control)))
                echo = current_notebook(page).locator(".al-echo").first
                echo.scroll_into_view_if_needed()
                floors[chapter] = time_view(page, echo, Control("click", "css:button"))
                page.evaluate("jupyterapp.serviceManager.sessions.shutdownAll()")
        report("In JupyterLab (a kernel computes every change)", "median under 50 ms to the painted frame",
               rows, floors, limit=50)
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
