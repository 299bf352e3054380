"""Chapter 05c's memory explorer as readers use it, in the built page (no kernel) and in
JupyterLab (a real kernel): after each change -- a block ticked with the mouse or the
space bar, a batch typed, a width moved with the arrow keys or the mouse, the dtype --
the chart's timeline (every step's bytes) and the numbers beside it are those
autograd_lab's count_saved gives in this process for the same message.

The page works the timeline out from the layer sizes (memory.js; tests/
test_memory_explorer.py compares it with the kernel's for many settings); here the view
itself is checked: what it sends, what it draws, what it refuses (odd input in the
boxes changes nothing and says why), axe-core in light and dark, and a 390 px phone.
"""
import json
import re

import pytest

from autograd_lab import widgets
from autograd_lab.teaching.widgets._base import PAGE_MIME

from explorer_driver import (ROOT, WINDOW, Control, View, axe_violations, lab_views, open_page, page_view,
                             record_messages, run_all_in_lab)
from test_browser import PHONE_CHECK, PHONES

pytestmark = pytest.mark.browser
CHAPTER = "05c_what_the_graph_keeps_alive"
PAGE = f"book/{CHAPTER}.html"
AXE_ME = '.al-x[data-kind="memory"]'           # axe-core checks this explorer only


def stored_explorer():
    """The chapter's explorer, made again from its stored page bundle (nbval checks that
    bundle against a fresh run of the chapter): the same blocks, batch, width, dtype."""
    cells = json.loads((ROOT / "book" / f"{CHAPTER}.ipynb").read_text(encoding="utf-8"))["cells"]
    bundle = next(o["data"][PAGE_MIME] for c in cells for o in c.get("outputs", [])
                  if o.get("data", {}).get(PAGE_MIME, {}).get("module") == "memory")
    state = bundle["state"]
    ex = widgets.MemoryExplorer(checkpointed=state["checkpointed"], batch=state["batch"],
                                width=state["width"], dtype=state["dtype"])
    assert {k: ex.state[k] for k in ("steps", "kept", "peak", "plain")} == \
        {k: state[k] for k in ("steps", "kept", "peak", "plain")}
    return ex


READ_VIEW = """el => {
    const bytes = (role) => { const c = el.querySelector(`[data-role="${role}"]`); return c ? Number(c.dataset.bytes) : null; };
    const line = (role) => { const p = el.querySelector(`[data-role="${role}"]`); return p ? p.dataset.values.split(",").map(Number) : null; };
    return {kept: bytes("kept"), peak: bytes("peak"), plainKept: bytes("plain-kept"), plainPeak: bytes("plain-peak"),
            saved: line("saved-line"), total: line("total-line"), plain: line("plain-line"),
            peakStep: Number(el.querySelector('[data-role="peak-dot"]').dataset.step),
            blocks: [0, 1, 2].map((k) => el.querySelector(`[data-role="block-${k}"]`).checked),
            batch: el.querySelector('[data-role="batch"] input[type=text]').value,
            width: el.querySelector('[data-role="width"] input[type=text]').value,
            dtype: Array.from(el.querySelectorAll('[data-role="dtype"] button[aria-pressed="true"]'), (b) => b.dataset.key),
            alt: el.querySelector('[data-role="chart-svg"]').getAttribute("aria-label"),
            status: el.querySelector('[data-role="status"]').innerText,
            local: el.querySelector('[data-role="local"]').innerText};
}"""


def check_view(view, ex, where):
    """Everything the view draws, read in one go, against ``ex``'s numbers."""
    drawn = view.root.evaluate(READ_VIEW)
    steps, plain = ex.steps, ex.plain
    assert drawn["saved"] == [s[1] for s in steps], f"{where}: the saved values, step by step"
    assert drawn["total"] == [s[1] + s[2] for s in steps], f"{where}: saved + gradients, step by step"
    assert (drawn["kept"], drawn["peak"]) == (ex.kept, ex.peak), where
    if ex.checkpointed:
        assert drawn["plain"] == [s[1] + s[2] for s in plain["steps"]], f"{where}: the plain step"
        assert (drawn["plainKept"], drawn["plainPeak"]) == (plain["kept"], plain["peak"]), where
    else:
        assert drawn["plain"] is None and drawn["plainPeak"] is None, f"{where}: no second step to show"
    at = drawn["peakStep"]
    assert steps[at][1] + steps[at][2] == ex.peak, f"{where}: the dot marks the peak"
    assert drawn["blocks"] == [k in ex.checkpointed for k in range(3)], where
    assert (drawn["batch"], drawn["width"], drawn["dtype"]) == (str(ex.batch), str(ex.width), [ex.dtype]), where
    for number in (ex.kept, ex.peak) + ((plain["peak"],) if ex.checkpointed else ()):
        assert f"{number:,} bytes" in drawn["alt"], f"{where}: {number:,} not in the chart's text"
    assert (ex.error or "") in drawn["status"], f"{where}: {drawn['status']!r}, not {ex.error!r}"
    return drawn


CONTROLS = [Control("click", "block-0"), Control("type", "batch", "64"), Control("arrow", "width", "ArrowRight"),
            Control("click", 'css:[data-role="dtype"] button[data-key="float64"]'), Control("click", "block-1"),
            Control("drag", "batch", 0.1), Control("type", "width", "512"), Control("click", "block-2"),
            Control("click", 'css:[data-role="dtype"] button[data-key="float32"]'), Control("type", "batch", "1")]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_control_draws_count_saveds_timeline(chromium, book_server, theme):
    ex = stored_explorer()
    context, page, problems, outside = open_page(chromium, book_server + PAGE, theme)
    try:
        view = page_view(page, 0, kind="memory")
        assert view.root.get_attribute("data-host") == "page"
        sent = record_messages(page, view)
        check_view(view, ex, "on arrival")
        for k, control in enumerate(CONTROLS):
            assert view.use(control) == 1, f"{control}: more than one redraw"
            page.wait_for_timeout(20)
            assert len(sent) == k + 1, f"{control} sent {len(sent) - k} messages"
            ex._on_view(None, sent[-1], None)                     # the same message, run here
            assert ex.error is None, ex.error
            check_view(view, ex, f"after {control}")
        assert (ex.checkpointed, ex.batch, ex.width, ex.dtype) == ((0, 2), 1, 512, "float32")
        assert axe_violations(page, AXE_ME) == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert problems == [] and outside == []
    finally:
        context.close()


ODD = [("", "the box is empty; type a whole number from 1 to 512"),
       ("abc", "could not read 'abc' as a number"), ("nan", "nan is not a whole number from 1 to 512"),
       ("inf", "inf is not a whole number"), ("-inf", "-inf is not a whole number"),
       ("-5", "-5 is not a whole number"), ("0", "0 is not a whole number"), ("2.5", "2.5 is not a whole number"),
       ("1e9", "1e9 is not a whole number"), ("513", "513 is not a whole number"), ("--2", "could not read '--2'")]


def test_keys_odd_input_and_a_phone(chromium, book_server):
    """The space bar ticks a block (the focus shows); odd input in either box -- empty,
    text, nan, inf, negative, zero, a fraction, huge -- is refused by the box with a
    message in the kernel's words, nothing is sent and no number moves; axe-core finds
    nothing with the message on show; at 390 and 360 px nothing scrolls sideways and the
    chart's text stays at 11 px or more."""
    ex = stored_explorer()
    context, page, problems, outside = open_page(chromium, book_server + PAGE, None)
    try:
        view = page_view(page, 0, kind="memory")
        box = view.root.bounding_box()
        assert box["width"] <= 780 and box["height"] <= 720, box
        sent = record_messages(page, view)
        view.locate("block-2").focus()
        before = view.frames()
        page.keyboard.press("Space")
        page.wait_for_function("([el, n]) => Number(el.dataset.frames) > n", arg=[view.root.element_handle(), before])
        ex._on_view(None, sent[-1], None)
        assert ex.checkpointed == (1, 2)
        drawn = check_view(view, ex, "after the space bar")
        focused = page.evaluate("""() => { const el = document.activeElement;
            return [el.dataset.role, el.matches(':focus-visible'), getComputedStyle(el).outlineStyle]; }""")
        assert focused == ["block-2", True, "solid"], focused
        count = len(sent)
        for name in ("batch", "width"):
            field = view.locate(name).locator("input[type=text]")
            for text, words in ODD:
                field.fill(text)
                field.press("Enter")
                assert f"{name}: {words}" in view.locate("local").inner_text(), (name, text)
                assert field.input_value() == str(getattr(ex, name)), f"{text}: the box shows the {name} again"
                ex._on_view(None, {"set": name, "value": text}, None)      # the kernel's words are the same
                assert ex.error == view.locate("local").inner_text().removeprefix("Problem: ").strip(), text
            ex._on_view(None, {"set": "checkpointed", "value": [1, 2]}, None)  # (clears the error)
        assert len(sent) == count, "odd input was sent"
        now = check_view(view, ex, "after odd input")
        assert {k: now[k] for k in ("saved", "total", "plain", "kept", "peak")} == \
            {k: drawn[k] for k in ("saved", "total", "plain", "kept", "peak")}
        assert axe_violations(page, AXE_ME) == {}, "axe-core with the problem on show"
        for size in PHONES:
            page.set_viewport_size(size)
            page.wait_for_timeout(150)
            found = [p for p in page.evaluate(PHONE_CHECK, size["width"]) if "memory" in p or "window" in p]
            assert found == [], f"{size}: {found}"
        assert problems == [] and outside == []
    finally:
        context.close()


def test_the_explorer_adds_under_100_kB_to_its_page(built_html):
    html = (built_html / PAGE).read_text(encoding="utf-8")
    added = sum(len(m.encode()) for m in re.findall(
        r'<script type="(?:text/plain|application/json)" class="al-(?:module|explorer-data)"[^>]*>.*?</script>',
        html, re.S))
    host = (built_html / "_static" / "autograd_lab" / "page.js").stat().st_size
    assert added + host < 100_000, f"{added + host:,} bytes"


# -- JupyterLab --------------------------------------------------------------------------------


def test_the_memory_explorer_runs_live_in_jupyterlab(chromium, lab):
    ex, problems = stored_explorer(), []
    context = chromium.new_context(viewport=WINDOW)
    page = context.new_page()
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    try:
        run_all_in_lab(page, lab, CHAPTER)
        view = View(page, lab_views(page, 1, kind="memory").nth(0))
        view.root.scroll_into_view_if_needed()
        assert view.root.get_attribute("data-host") == "kernel"
        assert view.root.bounding_box()["height"] <= WINDOW["height"]
        check_view(view, ex, "JupyterLab after Run All")
        for control, msg in [(Control("click", "block-0"), {"set": "checkpointed", "value": [0, 1]}),
                             (Control("type", "width", "100"), {"set": "width", "value": 100}),
                             (Control("click", 'css:[data-role="dtype"] button[data-key="float64"]'),
                              {"set": "dtype", "value": "float64"}),
                             (Control("arrow", "batch", "ArrowLeft"), {"set": "batch", "value": ex.batch - 1})]:
            assert view.use(control) == 1, control
            ex._on_view(None, msg, None)
            check_view(view, ex, f"JupyterLab after {control}")
        field = view.locate("batch").locator("input[type=text]")
        field.fill("nan")
        field.press("Enter")
        assert "batch: nan is not a whole number from 1 to 512" in view.locate("local").inner_text()
        check_view(view, ex, "JupyterLab after nan")
        assert problems == []
    finally:
        page.evaluate("window.jupyterapp && jupyterapp.serviceManager.sessions.shutdownAll()")
        context.close()
