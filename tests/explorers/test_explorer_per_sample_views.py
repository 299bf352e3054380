"""Chapter 05's per-sample explorer as readers use it, in the built page (no kernel) and in
JupyterLab (a real kernel): after each change -- an example picked with the mouse or the
arrow keys, an input typed, a slider moved, reset -- the rows, the picked row and the sum
of the rows drawn equal what autograd_lab computes in this process for the same message.

The page computes with per_sample.js's float32 formula (tests/explorers/test_per_sample_explorer.py
compares it with autograd_lab on many inputs); here the view itself is checked: what it
sends, what it draws, what it refuses, its keyboard use, axe-core, and a 390 px phone.
"""
import json

import pytest

import autograd_lab as al
from autograd_lab.teaching.widgets._base import PAGE_MIME

from explorer_driver import (ROOT, WINDOW, Control, View, assert_numbers, axe_violations, lab_views,
                             open_page, page_view, record_messages, run_all_in_lab)
from test_browser import PHONE_CHECK, PHONES

pytestmark = pytest.mark.browser
CHAPTER = "05_reconstructing_the_jacobian"
PAGE = f"book/{CHAPTER}.html"
SUB = "₀₁₂₃₄₅₆₇₈₉"
AXE_ME = ".al-x[data-kind=\"per_sample\"]"     # axe-core checks this explorer only


def stored_explorer():
    """The chapter's explorer, made again from its stored page bundle (nbval checks that
    bundle against a fresh run of the chapter): the same W, x, y, b and example.  Quicker
    than running the chapter up to it, which times Jacobians on the way."""
    cells = json.loads((ROOT / "book" / f"{CHAPTER}.ipynb").read_text(encoding="utf-8"))["cells"]
    bundle = next(o["data"][PAGE_MIME] for c in cells for o in c.get("outputs", [])
                  if o.get("data", {}).get(PAGE_MIME, {}).get("module") == "per_sample")
    spec, state = bundle["spec"], bundle["state"]
    start = spec["start"]
    ex = al.widgets.PerSampleExplorer(al.tensor([start["W"]]), al.tensor(start["x"]), al.tensor([start["y"]]),
                                      al.tensor([spec["b"]]), sample=state["sample"])
    assert {k: ex.state[k] for k in ("J", "row", "total")} == {k: state[k] for k in ("J", "row", "total")}
    return ex


READ_VIEW = """el => {
    const cells = (role) => Array.from(el.querySelectorAll(`[data-role="${role}"] td:not(.al-lead)`), (td) => td.innerText.trim());
    const text = (role) => el.querySelector(`[data-role="${role}"]`).innerText;
    const rows = Array.from(el.querySelectorAll('[data-role^="J-"]'), (tr) => cells(tr.dataset.role));
    return {J: rows, e: rows.map((_, k) => text(`e-${k}`)), row: cells("row"), total: cells("total"),
            checked: rows.map((_, k) => el.querySelector(`[data-role="sample-${k}"]`).checked),
            x: Array.from(el.querySelectorAll('[data-role^="x-"] input[type=text]'), (i) => i.value),
            labels: Array.from(el.querySelectorAll('[data-role^="x-"] label, [data-role="y"] label'), (l) => l.textContent),
            boxes: Array.from(el.querySelectorAll('[data-role^="x-"] input[type=text], [data-role="y"] input[type=text]'),
                              (b) => b.getAttribute("aria-label")),
            chain: text("chain"), status: text("status")};
}"""


def check_view(view, ex, where):
    """Everything the view draws, read in one go, against ``ex``'s numbers."""
    i, drawn = ex.sample, view.root.evaluate(READ_VIEW)
    for k, row in enumerate(ex.J.numpy()):
        assert_numbers(drawn["J"][k], row, f"{where}, row {k} of J")
    assert drawn["e"] == ["1" if k == i else "0" for k in range(ex.B)], f"{where}: the seed"
    assert drawn["checked"] == [k == i for k in range(ex.B)], f"{where}: the radio buttons"
    assert_numbers(drawn["row"], ex.row.numpy(), f"{where}, the picked row")
    assert_numbers(drawn["total"], ex.total.numpy(), f"{where}, the sum of the rows")
    assert_numbers(drawn["x"], ex.x.numpy()[i], f"{where}, x{i}")
    names = [f"x{SUB[i]}[{k}]" for k in range(ex.n)] + [f"y{SUB[i]}"]
    assert drawn["labels"] == names, f"{where}: {drawn['labels']}"
    assert drawn["boxes"] == [f"{name} (type a number)" for name in names], f"{where}: {drawn['boxes']}"
    chain = drawn["chain"]
    assert f"row {i} = δ" in chain and al.viz.num(float(ex.losses.numpy()[i])) in chain, f"{where}: {chain!r}"
    assert (ex.error or "") in drawn["status"], f"{where}: {drawn['status']!r}, not {ex.error!r}"


def reset():
    return Control("click", 'css:[data-role="buttons"] button[data-key="reset"]')


CONTROLS = [Control("click", "sample-0"), Control("type", "x-0", "0.5"), Control("arrow", "w-1", "ArrowRight"),
            Control("drag", "y", 0.2), Control("click", "sample-3"), Control("type", "x-2", "1e6"),
            Control("type", "w-0", "-3"), reset(), Control("click", "sample-1")]


def press(view, key):
    """A key pressed where the focus is; waits for the one redraw it causes."""
    before = view.frames()
    view.page.keyboard.press(key)
    view.page.wait_for_function("([el, n]) => Number(el.dataset.frames) > n",
                                arg=[view.root.element_handle(), before], timeout=15_000)
    view.page.wait_for_timeout(50)
    return view.frames() - before


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_control_draws_autograd_labs_rows(chromium, book_server, theme):
    ex = stored_explorer()
    context, page, problems, outside = open_page(chromium, book_server + PAGE, theme)
    try:
        view = page_view(page, 0, kind="per_sample")
        assert view.root.get_attribute("data-host") == "page"
        sent = record_messages(page, view)
        check_view(view, ex, "on arrival")
        for k, control in enumerate(CONTROLS):
            assert view.use(control) == 1, f"{control}: more than one redraw"
            page.wait_for_timeout(20)
            assert len(sent) == k + 1, f"{control} sent {len(sent) - k} messages"
            ex._on_view(None, sent[-1], None)                     # the same message, computed here
            assert ex.error is None, ex.error
            check_view(view, ex, f"after {control}")
        assert axe_violations(page, AXE_ME) == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert problems == [] and outside == []
    finally:
        context.close()


def test_keys_clicks_and_odd_input_in_the_page_and_on_a_phone(chromium, book_server):
    """A reader's first minute: the example picked with the mouse and with the arrow keys
    (the focus shows), an input typed; then odd input -- an empty box, text and numbers
    beyond ±1e6 are refused by the box itself (nothing is sent), inf and nan are sent and
    refused in the kernel's own words, and no number moves; axe-core finds nothing; and
    at 390 and 360 px nothing scrolls sideways, the Jacobian included."""
    ex = stored_explorer()
    context, page, problems, outside = open_page(chromium, book_server + PAGE, None)
    try:
        view = page_view(page, 0, kind="per_sample")
        box = view.root.bounding_box()
        assert box["width"] <= 780 and box["height"] <= 700, box
        sent = record_messages(page, view)
        check_view(view, ex, "on arrival")
        assert view.use(Control("click", "sample-0")) == 1
        view.locate("sample-0").focus()
        for key, want in (("ArrowRight", 1), ("ArrowRight", 2), ("ArrowRight", 3)):
            assert press(view, key) == 1
            ex._on_view(None, sent[-1], None)
            assert ex.sample == want
        check_view(view, ex, "after the arrow keys")
        focused = page.evaluate("""() => { const el = document.activeElement;
            return [el.dataset.role, el.matches(':focus-visible'), getComputedStyle(el).outlineStyle]; }""")
        assert focused == ["sample-3", True, "solid"], focused
        assert view.use(Control("type", "x-0", "2.5")) == 1
        ex._on_view(None, sent[-1], None)
        check_view(view, ex, "after x₃[0] = 2.5")
        drawn, count = view.root.evaluate(READ_VIEW), len(sent)
        field = view.locate("x-1").locator("input[type=text]")
        for text, words in (("", "the box is empty"), ("abc", 'could not read "abc"'),
                            ("1e7", "1e7 is beyond ±1,000,000"), ("--2", "could not read")):
            field.fill(text)
            field.press("Enter")
            assert f"x₃[1]: {words}" in view.locate("local").inner_text(), text
            assert field.input_value() == "0.7", f"{text}: the box shows x₃[1] again"
        assert len(sent) == count
        for text in ("inf", "nan", "-inf"):
            frames = view.frames()
            field.fill(text)
            field.press("Enter")
            page.wait_for_function("([el, n]) => Number(el.dataset.frames) > n",
                                   arg=[view.root.element_handle(), frames])
            ex._on_view(None, sent[-1], None)
            assert ex.error.startswith(f"x₃[1] = {text}: only finite numbers"), ex.error
            assert field.input_value() == "0.7"
        now = view.root.evaluate(READ_VIEW)
        assert {k: now[k] for k in ("J", "row", "total", "x")} == {k: drawn[k] for k in ("J", "row", "total", "x")}
        assert ex.error in now["status"]
        assert axe_violations(page, AXE_ME) == {}, "axe-core with the problem on show"
        field.fill("abc")                  # a new problem: the older one is beside the point now
        field.press("Enter")
        assert 'could not read "abc"' in view.locate("local").inner_text()
        assert "only finite numbers" not in view.locate("status").inner_text(), "two problems on show"
        for size in PHONES:
            page.set_viewport_size(size)
            page.wait_for_timeout(100)
            found = [p for p in page.evaluate(PHONE_CHECK, size["width"]) if "per_sample" in p or "window" in p]
            assert found == [], f"{size}: {found}"
            table = view.locate("jacobian")                     # the whole table in view
            assert table.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), size
        assert problems == [] and outside == []
    finally:
        context.close()


# -- JupyterLab --------------------------------------------------------------------------------


def test_the_per_sample_explorer_runs_live_in_jupyterlab(chromium, lab):
    ex, problems = stored_explorer(), []
    context = chromium.new_context(viewport=WINDOW)
    page = context.new_page()
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    try:
        run_all_in_lab(page, lab, CHAPTER)
        view = View(page, lab_views(page, 1, kind="per_sample").nth(0))
        view.root.scroll_into_view_if_needed()
        assert view.root.get_attribute("data-host") == "kernel"
        assert view.root.bounding_box()["height"] <= WINDOW["height"]
        check_view(view, ex, "JupyterLab after Run All")
        for control in (Control("click", "sample-0"), Control("type", "x-1", "2.5"), Control("type", "x-1", "nan"),
                        Control("arrow", "w-2", "ArrowLeft"), reset()):
            assert view.use(control) == 1, control
            i = ex.sample
            if control.role == "sample-0":
                msg = {"set": "sample", "value": 0}
            elif control.role.startswith("x-"):
                msg = {"set": f"x{i}", "value": [float(v) if v != "nan" else "nan" for v in (
                    view.locate(f"x-{k}").locator("input[type=text]").input_value()
                    if k != 1 else control.value for k in range(ex.n))]}
            elif control.role.startswith("w-"):
                msg = {"set": "W", "value": [float(view.locate(f"w-{k}").locator("input[type=text]").input_value())
                                             for k in range(ex.n)]}
            else:
                msg = {"do": "reset"}
            ex._on_view(None, msg, None)
            check_view(view, ex, f"JupyterLab after {control}")
        assert problems == []
    finally:
        page.evaluate("window.jupyterapp && jupyterapp.serviceManager.sessions.shutdownAll()")
        context.close()
