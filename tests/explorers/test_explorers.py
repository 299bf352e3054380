"""The explorers as readers use them: live in the built book's pages (no kernel) and live
in JupyterLab (a real kernel), with every number checked against autograd_lab.

How a number is checked: the test process runs the chapter's own code up to the cell
that makes the explorer (``chapter_explorer``), so it holds the same explorer the page
was built from.  In the page, each control a reader can use is used (drag, arrow keys,
typing, every preset); the page announces each message its view sends ("al-message"),
the test sends the same message to its own explorer, where autograd_lab computes (a real
backward, ``autograd.grad``, a batched ``grad``), and the numbers drawn in the page must
be those numbers.  In JupyterLab the kernel computes and the same comparison is made
after one control per explorer.  The drivers live in explorer_driver.py (the benchmark
uses them too).

Needs Debian's chromium (see test_browser.py); the JupyterLab part also needs
JupyterLab in this environment (requirements.txt has it).
"""
import re

import pytest

from explorer_driver import (axe_violations, EXPLORERS, WINDOW, Book, Control, View, assert_numbers, chapter_explorer,
                             drawn_numbers, lab_message, lab_views, open_page, page_view,
                             record_messages, run_all_in_lab)

pytestmark = pytest.mark.browser
PAGE_BUDGET = 100_000          # bytes an explorer chapter may add: view modules, data, page.js


# -- the built book ------------------------------------------------------------------------------


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("book", EXPLORERS, ids=[f"{b.chapter}:{b.variable}" for b in EXPLORERS])
def test_every_control_of_the_page_explorer_draws_autograd_labs_numbers(chromium, book_server, book, theme):
    ex = chapter_explorer(book)
    context, page, problems, outside = open_page(chromium, book_server + book.page, theme)
    try:
        view = page_view(page, book.index)
        root = view.root
        assert root.get_attribute("data-host") == "page"
        sent = record_messages(page, view)
        kind = root.get_attribute("data-kind")
        for role, want in drawn_numbers(kind, ex).items():
            assert_numbers(view.numbers(role), want, f"{book.page} on arrival, {role}")
        for control in book.controls:
            redraws = view.use(control)
            assert redraws == 1, f"{control}: {redraws} redraws for one change"
            page.wait_for_timeout(20)
            assert sent, f"{control} sent nothing"
            ex._on_view(None, sent[-1], None)            # the same message, computed here
            assert ex.error is None, ex.error
            for role, want in drawn_numbers(kind, ex).items():
                assert_numbers(view.numbers(role), want, f"{book.page} after {control}, {role}")
        assert axe_violations(page, ".al-x") == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert problems == [] and outside == []
    finally:
        context.close()


def test_presets_and_code_set_seeds_exactly(chromium, book_server):
    """A preset's value is shown as it is (1/3 stays 1/3: the sliders have no step to round
    it to), and a typed number outside the slider's range widens the range."""
    book = EXPLORERS[2]                                   # a seed of three entries
    context, page, problems, _ = open_page(chromium, book_server + book.page, None)
    try:
        view = page_view(page, book.index)
        view.use(Control("click", 'css:[data-role="presets"] button[data-key="mean"]'))
        page.wait_for_timeout(300)                        # nothing may round it afterwards
        boxes = view.root.locator('[data-role^="seed-"] input[type=text]')
        assert [boxes.nth(i).input_value() for i in range(3)] == ["0.3333"] * 3
        ranges = view.root.locator('[data-role^="seed-"] input[type=range]')
        assert float(ranges.nth(0).input_value()) == pytest.approx(1 / 3, abs=1e-12)
        view.use(Control("type", "seed-0", "7"))
        assert float(ranges.nth(0).get_attribute("max")) >= 7
        assert float(ranges.nth(0).input_value()) == 7.0
        assert problems == []
    finally:
        context.close()


def test_a_number_that_cannot_be_a_seed_is_refused_with_a_message(chromium, book_server):
    book = EXPLORERS[0]
    context, page, problems, _ = open_page(chromium, book_server + book.page, None)
    try:
        view = page_view(page, book.index)
        before = view.numbers("grad")
        box = view.locate("seed-0").locator("input[type=text]")
        for text in ("abc", "1e9"):
            box.fill(text)
            box.press("Enter")
            message = view.root.locator('[data-role="local"]').inner_text()
            assert "seed" not in message or "v[0,0]" in message
            assert ("could not read" in message) if text == "abc" else ("beyond" in message)
            assert view.numbers("grad") == before              # nothing changed
            assert box.input_value() == "1"                    # the box shows the seed again
        assert axe_violations(page, ".al-x") == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert problems == []
    finally:
        context.close()


def test_explorer_chapters_add_under_100_kB(built_html):
    """What the explorers add to a page: the view modules, their data, the page host."""
    host = (built_html / "_static" / "autograd_lab" / "page.js").stat().st_size
    for page in sorted({b.page for b in EXPLORERS}):
        html = (built_html / page).read_text(encoding="utf-8")
        added = sum(len(m.encode()) for m in re.findall(
            r'<script type="(?:text/plain|application/json)" class="al-(?:module|explorer-data)"[^>]*>.*?</script>',
            html, re.S))
        assert added + host < PAGE_BUDGET, f"{page}: explorers add {(added + host) / 1e3:.0f} kB"


# -- JupyterLab ----------------------------------------------------------------------------------


@pytest.mark.parametrize("chapter", sorted({b.chapter for b in EXPLORERS}))
def test_explorers_run_live_in_jupyterlab(chromium, lab, chapter):
    books = [b for b in EXPLORERS if b.chapter == chapter]
    context = chromium.new_context(viewport=WINDOW)
    page = context.new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    try:
        run_all_in_lab(page, lab, chapter)
        roots = lab_views(page, len(books))
        assert roots.count() == len(books), f"{roots.count()} live explorers in {chapter}, {len(books)} expected"
        for book in books:
            ex = chapter_explorer(book)
            root = roots.nth(book.index)
            assert root.get_attribute("data-host") == "kernel"
            root.scroll_into_view_if_needed()
            height = root.bounding_box()["height"]
            assert height <= WINDOW["height"], f"{book.variable} is {height:.0f} px tall"
            view = View(page, root)
            kind = root.get_attribute("data-kind")
            for role, want in drawn_numbers(kind, ex).items():      # the state the text describes
                assert_numbers(view.numbers(role), want, f"{chapter} after Run All, {role}")
            for control in [book.lab, Control("type", "seed-0", "inf"), Control("type", "seed-0", "nan")]:
                assert view.use(control) == 1      # inf and nan travel as text (JSON has neither)
                ex._on_view(None, lab_message(view, control, ex), None)
                for role, want in drawn_numbers(kind, ex).items():
                    assert_numbers(view.numbers(role), want, f"{chapter} after {control}, {role}")
        assert problems == []
    finally:
        page.evaluate("window.jupyterapp && jupyterapp.serviceManager.sessions.shutdownAll()")
        context.close()


# -- special seeds: inf, nan, -0, the largest numbers --------------------------------------------
SPECIAL = ["inf", "-inf", "nan", "-0"]
BIG = ["1e6", "-1e6", "1e30", "-3e38", "1e39"]     # beyond 1e6: the grid only (sliders refuse it)
REFUSED = "open the notebook to run it there"


def sweep(page, view, ex, sent, boxes, values, where):
    """Type each value into each box (the earlier boxes keep their last value); each time the page must draw the
    gradient autograd_lab's backward gives for the same message, or refuse the value
    and say the notebook computes it.  Returns how many values the page refused."""
    refused = 0
    for box_selector in boxes:
        for text in values:
            box = view.root.locator(box_selector).first
            before, count = view.frames(), len(sent)
            box.fill(text)
            box.press("Enter")
            status, drawn = view.root.evaluate("""async (el, n) => {
                while (Number(el.dataset.frames) <= n) await new Promise(r => setTimeout(r, 2));
                return [el.querySelector('[data-role="status"]').innerText,
                        Array.from(el.querySelectorAll('[data-role="grad"] td:not(.al-lead)'), td => td.innerText.trim())];
            }""", before)
            if REFUSED in status:
                refused += 1
                continue
            for _ in range(200):                       # the message reaches this process
                if len(sent) > count:
                    break
                page.wait_for_timeout(5)
            assert len(sent) == count + 1, f"{where}, {box_selector} = {text}: nothing sent"
            ex._on_view(None, sent[-1], None)
            assert ex.grad is not None, f"{where}, {box_selector} = {text}: {ex.error}"
            assert_numbers(drawn, ex.grad.numpy(), f"{where}, {box_selector} = {text}")
            assert (ex.error or "") in status, f"{where}, {box_selector} = {text}: {status!r}, not {ex.error!r}"
    return refused


@pytest.mark.slow
@pytest.mark.parametrize("chapter", ["03_backward_gradient_seed", "04_grad_outputs", "06_inside_autograd_lab"])
def test_special_seeds_in_every_box_give_the_kernels_numbers(chromium, book_server, chapter):
    """inf, -inf, nan, -0 and the largest numbers, typed into every seed box: the page's
    vᵀJ skips the entries a seed entry never reaches (0 * inf would be nan there), so it
    draws what autograd_lab's backward computes, or refuses the value."""
    books = [b for b in EXPLORERS if b.chapter == chapter] or [Book(chapter, "explorer")]
    context, page, problems, outside = open_page(chromium, book_server + books[0].page, None)
    try:
        sent = []
        page.expose_function("alRecord", lambda msg: sent.append(msg))
        for book in books:
            ex = chapter_explorer(book)
            view = page_view(page, book.index)
            view.root.evaluate("el => el.closest('.al-explorer').addEventListener("
                               "'al-message', e => alRecord(e.detail))")
            if view.root.get_attribute("data-kind") == "grad_outputs":
                boxes = [f'[data-role="cell-{k}"]' for k in range(ex.y.numel())]
                refused = sweep(page, view, ex, sent, boxes, SPECIAL, book.page)
                refused += sweep(page, view, ex, sent, boxes[:1], BIG, book.page)
            else:
                boxes = [f'[data-role="seed-{i}"] input[type=text]' for i in range(ex.y.numel())]
                refused = sweep(page, view, ex, sent, boxes, SPECIAL, f"{book.page} {book.variable}")
                refused += sweep(page, view, ex, sent, boxes[:1], BIG[:2], f"{book.page} {book.variable}")
            assert refused <= len(boxes) * 3, f"{book.variable}: {refused} values refused"
        assert problems == [] and outside == []
    finally:
        context.close()
