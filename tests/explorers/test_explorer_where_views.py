"""Chapter 02's where explorers as readers use them, in the built page (no kernel) and in
JupyterLab (a real kernel): every number drawn equals what autograd_lab computes in this
process for the same input (the chapter's own explorer, sent the same message).

The page answers from states autograd_lab computed when the book was built (one per
threshold interval, sqrt branch and fix); these tests check that each lookup is the
kernel's answer, that one change redraws once, and that x and y, which only the kernel
can recompute, are disabled with a hint.
"""
import numpy as np
import pytest

from autograd_lab.teaching.widgets.where import expression

from explorer_driver import (axe_violations, WINDOW, Book, Control, View, assert_numbers, chapter_explorer,
                             lab_views, open_page, page_view, record_messages, run_all_in_lab)

pytestmark = pytest.mark.browser
CHAPTER = "02_masks_where_select_cond"


def threshold_controls():
    return [Control("type", "threshold", "0.5"), Control("type", "threshold", "3.99"),
            Control("type", "threshold", "4"),                    # an entry of x: x > t is False there
            Control("arrow", "threshold", "ArrowLeft"), Control("arrow", "threshold", "ArrowRight"),
            Control("drag", "threshold", 0.3), Control("drag", "threshold", 0.85),
            Control("type", "threshold", "7"),                    # beyond the slider: its range grows
            Control("type", "threshold", "-3"), Control("type", "threshold", "nan"),
            Control("type", "threshold", "1.5")]


def checkbox_controls():
    return [Control("click", "sqrt-branch"), Control("click", "double-where"),
            Control("click", "sqrt-branch"), Control("click", "double-where")]


WHERE = [
    Book(CHAPTER, "explorer", threshold_controls() + checkbox_controls() + threshold_controls()[:3],
         lab=Control("type", "threshold", "0.5")),
    # the pitfall: sqrt branch ticked, t = 0; the fix and back, then thresholds with the NaN on show
    Book(CHAPTER, "pitfall", checkbox_controls()[1:2] + checkbox_controls()[1:2] + threshold_controls(),
         lab=Control("click", "double-where"), index=1),
]


def where_numbers(ex):
    """{data-role of a row: the numbers autograd_lab computed} for the view of ``ex``."""
    rows = {"x": ex.x, "y": ex.y, "out": ex.out, "grad-x": ex.grad_x, "grad-y": ex.grad_y}
    if ex.sqrt_branch:
        rows.update({"branch": ex.branch, "branch-grad": ex.branch_grad})
    return {role: t.numpy().reshape(-1) for role, t in rows.items()}


def assert_drawn(drawn, want, where):
    """assert_numbers, with infinities too (the sqrt branch's slope at 0 is one)."""
    finite = np.isfinite(want)
    assert [d for d, f in zip(drawn, finite) if not f] == \
        [("nan" if np.isnan(w) else "inf" if w > 0 else "-inf") for w in want[~finite]], f"{where}: {drawn}"
    assert_numbers([d for d, f in zip(drawn, finite) if f], want[finite], where)


def check_view(view, ex, where):
    for role, want in where_numbers(ex).items():
        assert_drawn(view.numbers(role), want, f"{where}, {role}")
    mask = ["True" if m else "False" for m in ex.mask.numpy().reshape(-1)]
    assert view.numbers("mask") == mask, f"{where}: mask"
    assert view.numbers("mask-grad")[0].startswith("None"), f"{where}: the condition gets none"
    assert (view.root.locator('[data-role="branch"]').count() == 1) == ex.sqrt_branch
    assert (view.root.locator('[data-role="inner"]').count() == 1) == (ex.sqrt_branch and ex.double_where)
    assert view.locate("sqrt-branch").is_checked() == ex.sqrt_branch
    assert view.locate("double-where").is_checked() == ex.double_where
    title = view.root.locator(".al-title").inner_text()          # the function drawn now
    assert title.startswith(expression(ex.sqrt_branch, ex.double_where) + ":"), title
    status = view.locate("status").inner_text()
    assert (ex.error or "") in status and (ex.note or "") in status, f"{where}: {status!r}"


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("book", WHERE, ids=[b.variable for b in WHERE])
def test_every_control_of_the_where_explorer_draws_autograd_labs_numbers(chromium, book_server, book, theme):
    ex = chapter_explorer(book)
    context, page, problems, outside = open_page(chromium, book_server + book.page, theme)
    try:
        view = page_view(page, book.index)
        assert view.root.get_attribute("data-host") == "page"
        box = view.root.bounding_box()
        assert box["width"] <= 780 and box["height"] <= 700, box     # controls and numbers in one view
        sent = record_messages(page, view)
        check_view(view, ex, "on arrival")
        for control in book.controls:
            redraws = view.use(control)
            assert redraws == 1, f"{control}: {redraws} redraws for one change"
            page.wait_for_timeout(20)
            assert sent, f"{control} sent nothing"
            ex._on_view(None, sent[-1], None)                      # the same message, computed here
            check_view(view, ex, f"after {control}")
            if control.how == "type" and control.role == "threshold":
                assert view.locate("threshold").locator("input[type=text]").input_value() == control.value
                slider = view.locate("threshold").locator("input[type=range]")
                if control.value == "7":
                    assert float(slider.get_attribute("max")) >= 7 and float(slider.input_value()) == 7
        assert axe_violations(page, ".al-x") == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert problems == [] and outside == []
    finally:
        context.close()


def test_x_and_y_are_disabled_in_the_page_with_a_hint(chromium, book_server):
    book = WHERE[0]
    context, page, problems, _ = open_page(chromium, book_server + book.page, None)
    try:
        view = page_view(page, book.index)
        for role in ("x-text", "y-text"):
            assert view.locate(role).locator("input").is_disabled()
        assert "open the notebook" in view.locate("edit-hint").inner_text()
        assert "computed when the book was built" in view.locate("host").inner_text()
        link = view.locate("notebook")                           # "open the notebook": a link to it
        href = link.evaluate("a => a.href")
        assert href.endswith(f"/{CHAPTER}.ipynb") and link.get_attribute("download") is not None
        assert page.request.get(href).ok
        assert problems == []
    finally:
        context.close()


def test_the_threshold_shown_is_the_one_the_mask_used_and_the_slider_range_comes_back(chromium, book_server):
    """x > t compares in float32: 2.99999 is shown as itself and 3 > t is True;
    2.9999999999 is float32's 3, shown as 3, and 3 > t is False.  A t typed far outside
    widens the slider only while t is out there: back at 2, a drag moves t a little."""
    book = WHERE[0]
    ex = chapter_explorer(book)
    context, page, problems, _ = open_page(chromium, book_server + book.page, None)
    try:
        view = page_view(page, book.index)
        sent = record_messages(page, view)
        box = view.locate("threshold").locator("input[type=text]")
        slider = view.locate("threshold").locator("input[type=range]")
        own = [float(slider.get_attribute("min")), float(slider.get_attribute("max"))]
        for typed, shown, three in [("2.99999", "2.99999", True), ("2.9999999999", "3", False),
                                    ("0.1", "0.1", True), ("-0", "0", True)]:
            view.use(Control("type", "threshold", typed))
            page.wait_for_timeout(20)
            ex._on_view(None, sent[-1], None)
            check_view(view, ex, f"t = {typed}")
            assert box.input_value() == shown
            assert f"where(x > {shown}," in view.locate("expr").inner_text()
            assert slider.get_attribute("aria-valuetext") == shown
            assert ex.x.numpy()[2] == 3 and view.numbers("mask")[2] == str(three)   # 3 > t
        view.use(Control("type", "threshold", "-1e6"))
        assert float(slider.get_attribute("min")) <= -1e6
        view.use(Control("type", "threshold", "2"))
        assert [float(slider.get_attribute("min")), float(slider.get_attribute("max"))] == own
        view.use(Control("drag", "threshold", 0.3))
        t = float(box.input_value())
        assert own[0] <= t <= own[1], t
        assert problems == []
    finally:
        context.close()


def test_the_chapter_shows_the_starting_state_its_text_describes(chromium, book_server):
    """'It starts at t = 2' and, for the pitfall, 'the NaN appears in x.grad'."""
    context, page, _, _ = open_page(chromium, book_server + WHERE[0].page, None)
    try:
        first, pitfall = page_view(page, 0), page_view(page, 1)
        assert first.locate("threshold").locator("input[type=text]").input_value() == "2"
        assert first.numbers("out") == ["-1.", "-2.", "3.", "4."]
        assert pitfall.numbers("grad-x")[:2] == ["nan", "nan"] and pitfall.locate("sqrt-branch").is_checked()
        assert "Tick 'double-where fix'" in pitfall.locate("status").inner_text()
    finally:
        context.close()


def test_a_typed_threshold_that_cannot_be_read_is_refused_with_a_message(chromium, book_server):
    book = WHERE[0]
    context, page, problems, _ = open_page(chromium, book_server + book.page, None)
    try:
        view = page_view(page, book.index)
        before, frames = view.numbers("out"), view.frames()
        box = view.locate("threshold").locator("input[type=text]")
        for text in ("abc", "1e9"):
            box.fill(text)
            box.press("Enter")
            message = view.locate("local").inner_text()
            assert ("could not read" in message) if text == "abc" else ("beyond" in message)
            assert view.numbers("out") == before and view.frames() == frames
            assert box.input_value() == "2"                        # the box shows t again
        assert axe_violations(page, ".al-x") == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert problems == []
    finally:
        context.close()


# -- JupyterLab --------------------------------------------------------------------------------


def test_the_where_explorers_run_live_in_jupyterlab(chromium, lab):
    context = chromium.new_context(viewport=WINDOW)
    page = context.new_page()
    try:
        run_all_in_lab(page, lab, CHAPTER)
        views = lab_views(page, max(book.index for book in WHERE) + 1)
        shown = {}
        for book in WHERE:
            ex = shown[book.variable] = chapter_explorer(book)
            view = View(page, views.nth(book.index))
            view.root.scroll_into_view_if_needed()
            assert view.root.get_attribute("data-host") == "kernel"
            assert view.root.bounding_box()["height"] <= WINDOW["height"]
            assert view.use(book.lab) == 1
            msg = ({"set": "threshold", "value": float(book.lab.value)} if book.lab.how == "type"
                   else {"set": "double_where", "value": not ex.double_where})
            ex._on_view(None, msg, None)
            check_view(view, ex, f"JupyterLab after {book.lab}")
        # only the kernel can take a new x: typed, applied on Enter, computed there
        view = View(page, views.nth(0))
        x_box = view.locate("x-text").locator("input")
        assert not x_box.is_disabled()
        before = view.frames()
        x_box.fill("[0, 5, 0, 5]")
        x_box.press("Enter")
        page.wait_for_function("([el, n]) => Number(el.dataset.frames) > n",
                               arg=[view.root.element_handle(), before], timeout=15_000)
        ex = shown[WHERE[0].variable]                    # the one sent the lab's control above
        ex.x = [0, 5, 0, 5]
        check_view(view, ex, "JupyterLab after typing x")
    finally:
        context.close()
