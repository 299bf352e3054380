"""Chapter 4's GradOutputsExplorer as readers use it: in the built page (no kernel: dL/dx
is formed as vec(seed)ᵀ J from the Jacobian computed when the book was built) and in
JupyterLab (a real kernel runs autograd.grad), every number drawn checked against
autograd_lab.

The chapter's own explorer is rebuilt in this process; each message the page's view
sends is replayed on it, so autograd_lab runs ``autograd.grad`` here, and the page must
draw what it returned, say what the seed means as a loss, and show the engine's own
words for a seed of the wrong shape.
"""
import pytest

from explorer_driver import (axe_violations, WINDOW, Book, Control, View, assert_numbers, chapter_explorer,
                             lab_views, open_page, page_view, record_messages, run_all_in_lab)

pytestmark = pytest.mark.browser
BOOK = Book("04_grad_outputs", "explorer")


def fresh_explorer():
    """The chapter's explorer, as the chapter makes it (a new one each time)."""
    return chapter_explorer(BOOK)


def assert_view_shows(view, ex, where):
    if ex.grad is None:
        assert view.numbers("grad") == ["?"] * ex.x.numel(), where
    else:
        assert_numbers(view.numbers("grad"), ex.grad.numpy(), f"{where}, dL/dx")
    assert view.root.locator('[data-role="loss"]').inner_text() == ex.loss, where
    if tuple(ex.seed.shape) == tuple(ex.y.shape):                  # each row's weight: its seed entry
        chips = [view.root.locator(f'[data-role="v-{i}"]').inner_text().rstrip("× ")
                 for i in range(ex.y.numel())]
        assert_numbers(chips, ex.seed.numpy(), f"{where}, the seed beside the rows")
    status = view.root.locator('[data-role="status"]').inner_text()
    assert (ex.error or "") in status and (ex.note or "") in status, where


def text_box(view):
    return view.locate("seed-text").locator("textarea")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_control_of_the_page_grad_outputs_explorer_draws_autograd_labs_numbers(chromium, book_server, theme):
    ex = fresh_explorer()
    context, page, problems, outside = open_page(chromium, book_server + BOOK.page, theme)
    try:
        view = page_view(page, kind="grad_outputs")
        root = view.root
        assert root.get_attribute("data-host") == "page"
        sent = record_messages(page, view)
        assert_view_shows(view, ex, "on arrival")
        assert_numbers(view.numbers("grad"), [20, 20, 20, 20], "the question's twenties")

        def use(action, what):
            before = view.frames()
            action()
            page.wait_for_function("([el, n]) => Number(el.dataset.frames) > n",
                                   arg=[root.element_handle(), before], timeout=10_000)
            page.wait_for_timeout(50)
            assert view.frames() == before + 1, f"{what}: not one redraw"
            ex._on_view(None, sent[-1], None)
            assert_view_shows(view, ex, f"after {what}")

        for preset in ["one-hot", "upper triangle", "diagonal", "ones"]:
            use(lambda p=preset: view.locate(f'css:[data-role="presets"] button[data-key="{p}"]').click(), preset)
        index = view.locate("index-0")
        use(lambda: (index.fill("1"), index.press("Enter")), "one-hot index 1 (Enter)")
        index = view.locate("index-1")
        use(lambda: (index.fill("2"), index.press("Tab")), "one-hot index 2 (leaving the box)")
        cell = view.locate("cell-5")
        use(lambda: (cell.fill("2"), cell.press("Enter")), "seed[1, 1] = 2 in the grid")
        box = text_box(view)
        use(lambda: (box.fill("[1, 1, 1, 1]"), box.press("Enter")), "a seed of x's shape")
        assert ex.error.startswith("Mismatch in shape: grad_output[0] has a shape of (4,)")
        use(lambda: (box.fill("[[1, 0, 0, 0], [0, 0, 0, 0],"), box.press("Shift+Enter"),
                     box.type("[0, 0, 0, 0], [0, 0, 0, 3]]"), box.press("Enter")), "two lines, then Enter")
        assert ex.grad.numpy().tolist() == [2., 0., 0., 24.]
        use(lambda: (box.fill("[[0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]"),
                     view.locate("cell-0").focus()), "typed, then leaving the box")
        assert ex.grad.numpy().tolist() == [0., 0., 0., 0.]       # an antisymmetric seed sees nothing
        assert axe_violations(page, ".al-x") == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert problems == [] and outside == []
    finally:
        context.close()


def test_the_page_refuses_text_that_is_not_a_seed_and_keeps_its_numbers(chromium, book_server):
    context, page, problems, _ = open_page(chromium, book_server + BOOK.page, None)
    try:
        view = page_view(page, kind="grad_outputs")
        view.use(Control("click", 'css:[data-role="presets"] button[data-key="diagonal"]'))
        box = text_box(view)
        box.fill("hello")
        box.press("Enter")
        page.wait_for_timeout(100)
        assert "could not read" in view.root.locator('[data-role="status"]').inner_text()
        assert view.numbers("grad") == ["2.", "4.", "6.", "8."]
        local = view.root.locator('[data-role="local"]')
        index = view.locate("index-0")
        size = index.bounding_box()
        assert size["width"] >= 28 and size["height"] >= 24, size       # a box, not spin arrows
        index.click()                                                     # its middle: no step
        assert index.input_value() == "0"
        for text in ["abc", "", "1.5", "4", "-1"]:           # refused here, with what to type
            index.fill(text)
            index.press("Enter")
            assert "type a whole number from 0 to 3" in local.inner_text(), text
            assert index.input_value() == "0" and view.numbers("grad") == ["2.", "4.", "6.", "8."]
        cell = view.locate("cell-0")
        for text in ["abc", "", "[1, 0]"]:
            cell.fill(text)
            cell.press("Enter")
            message = local.inner_text()
            assert message.startswith("Problem: y[0,0]: ") and "type one number" in message, message
            assert "write e.g." not in message and cell.input_value() == "1"      # the seed is diagonal
        assert view.numbers("grad") == ["2.", "4.", "6.", "8."]
        status = view.root.locator('[data-role="status"]')
        box.fill(str([[0] * 4] * 4))             # a seed of zeros: the view notes what it means
        box.press("Enter")
        page.wait_for_timeout(100)
        assert "The seed is all zeros" in status.inner_text()
        cell.fill("abc")                          # a refused box: a problem beside the note,
        cell.press("Enter")                       # which still describes the numbers shown
        assert "type one number" in local.inner_text()
        assert "The seed is all zeros" in status.inner_text()
        host = view.root.locator('[data-role="host"]').inner_text()
        assert "vec(seed)ᵀ J" in host and "linear in grad_outputs" in host
        assert axe_violations(page, ".al-x") == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert problems == []
    finally:
        context.close()


def test_the_grad_outputs_explorer_fits_the_window(chromium, book_server):
    context, page, _, _ = open_page(chromium, book_server + BOOK.page, None)
    try:
        box = page_view(page, kind="grad_outputs").root.bounding_box()
        assert box["height"] <= 700 and box["width"] <= 780
    finally:
        context.close()


# -- JupyterLab ----------------------------------------------------------------------------------


def test_the_grad_outputs_explorer_runs_live_in_jupyterlab(chromium, lab):
    ex = fresh_explorer()
    context = chromium.new_context(viewport=WINDOW)
    page = context.new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    try:
        run_all_in_lab(page, lab, BOOK.chapter)
        root = lab_views(page, 1, "grad_outputs").first
        root.scroll_into_view_if_needed()
        assert root.get_attribute("data-host") == "kernel"
        assert root.bounding_box()["height"] <= WINDOW["height"]
        view = View(page, root)
        assert_view_shows(view, ex, "after Run All")                 # the seed of ones, as the text says
        assert view.use(Control("click", 'css:[data-role="presets"] button[data-key="diagonal"]')) == 1
        ex.use_preset("diagonal")
        assert_view_shows(view, ex, "after diagonal")
        assert view.use(Control("type", "seed-text", "[1, 1, 1, 1]")) == 1   # the engine's own error
        ex.set_seed_text("[1, 1, 1, 1]")
        assert_view_shows(view, ex, "after a seed of x's shape")
        assert problems == []
    finally:
        page.evaluate("window.jupyterapp && jupyterapp.serviceManager.sessions.shutdownAll()")
        context.close()
