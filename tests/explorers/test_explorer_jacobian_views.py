"""Chapter 05's Jacobian explorer as readers use it, in the built page (no kernel) and in
JupyterLab (a real kernel): after each press, the rows, the pass counts and the costs
drawn equal what autograd_lab computes in this process for the same presses (the
chapter's own explorer, sent the same messages).

The page answers from states autograd_lab computed when the book was built (k rows done
for every k, and the batched J, with their pass counts).
"""
import pytest

from explorer_driver import (axe_violations, WINDOW, Book, Control, assert_numbers, chapter_explorer,
                             lab_view, open_page, page_view, record_messages, run_all_in_lab)

pytestmark = pytest.mark.browser
CHAPTER = "05_reconstructing_the_jacobian"


def press(key):
    return Control("click", f'css:[data-role="buttons"] button[data-key="{key}"]', key)


# next row twice, all rows at once, then next row (a new row-by-row fill: row 0 only),
# reset, every row (and once more: 'All rows are done'), all rows at once twice
PRESSES = ["step", "step", "all", "step", "reset", "step", "step", "step", "step", "step", "all", "all"]
JACOBIAN = Book(CHAPTER, "explorer", [press(k) for k in PRESSES], lab=press("step"))


def check_view(view, ex, where):
    J = ex.J.numpy().reshape(ex.m, -1)
    for i in range(ex.m):
        drawn = view.numbers(f"row-{i}")
        if i < ex.rows_done:
            assert_numbers(drawn, J[i], f"{where}, row {i}")
        else:
            assert set(drawn) == {"?"}, f"{where}: row {i} is not computed yet, drawn {drawn}"
        chip = view.locate(f"pass-{i}").inner_text()
        want = "not yet" if i >= ex.rows_done else f"pass {1 if ex.way == 'all at once' else i + 1}"
        assert chip == want, f"{where}: row {i} chip {chip!r}"
    assert view.locate("rows-done").inner_text() == f"{ex.rows_done} of {ex.m}"
    assert int(view.locate("forward").inner_text()) == ex.passes["forward"], where
    assert int(view.locate("backward").inner_text()) == ex.passes["backward"], where
    for way, cost in ex.costs.items():
        row = view.locate(f"cost-{way.replace(' ', '-')}").locator("td").all_inner_texts()
        assert [int(row[1]), int(row[2])] == [cost["forward"], cost["backward"]], f"{where}: {way}"
    assert view.root.locator('[data-role^="cost-"]').count() == len(ex.costs)
    status = view.locate("status").inner_text()
    assert (ex.error or "") in status and (ex.note or "") in status, f"{where}: {status!r}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_press_draws_autograd_labs_rows_and_pass_counts(chromium, book_server, theme):
    ex = chapter_explorer(JACOBIAN)
    context, page, problems, outside = open_page(chromium, book_server + JACOBIAN.page, theme)
    try:
        view = page_view(page, JACOBIAN.index)
        assert view.root.get_attribute("data-host") == "page"
        box = view.root.bounding_box()
        assert box["width"] <= 780 and box["height"] <= 700, box
        sent = record_messages(page, view)
        check_view(view, ex, "on arrival")
        for k, control in enumerate(JACOBIAN.controls):
            assert view.use(control) == 1, f"{control.value}: more than one redraw"
            page.wait_for_timeout(20)
            assert sent and sent[-1] == {"do": control.value}
            ex._on_view(None, sent[-1], None)                      # the same press, computed here
            check_view(view, ex, f"after {PRESSES[:k + 1]}")
        assert axe_violations(page, ".al-x") == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert problems == [] and outside == []
    finally:
        context.close()


def test_the_displayed_explorer_has_no_row_yet_as_the_text_says(chromium, book_server):
    context, page, _, _ = open_page(chromium, book_server + JACOBIAN.page, None)
    try:
        view = page_view(page, JACOBIAN.index)
        assert view.locate("rows-done").inner_text() == f"0 of {chapter_explorer(JACOBIAN).m}"
        assert view.locate("seed").inner_text().startswith("no row yet")
        assert view.locate("forward").inner_text() == "1" and view.locate("backward").inner_text() == "0"
    finally:
        context.close()


def test_next_row_after_all_rows_at_once_starts_over_and_says_so(chromium, book_server):
    context, page, _, _ = open_page(chromium, book_server + JACOBIAN.page, None)
    try:
        view = page_view(page, JACOBIAN.index)
        view.use(press("all"))
        view.use(press("step"))
        assert view.locate("rows-done").inner_text().startswith("1 of")
        assert view.locate("backward").inner_text() == "1"
        note = view.locate("status").inner_text()
        assert "'next row' starts a new row-by-row fill" in note and "()" not in note
    finally:
        context.close()


# -- JupyterLab --------------------------------------------------------------------------------


def test_the_jacobian_explorer_runs_live_in_jupyterlab(chromium, lab):
    context = chromium.new_context(viewport=WINDOW)
    page = context.new_page()
    try:
        run_all_in_lab(page, lab, CHAPTER)
        ex = chapter_explorer(JACOBIAN)
        view = lab_view(page, JACOBIAN.index)
        assert view.root.get_attribute("data-host") == "kernel"
        assert view.root.bounding_box()["height"] <= WINDOW["height"]
        check_view(view, ex, "JupyterLab after Run All")
        for key in ("step", "step", "all", "step"):
            assert view.use(press(key)) == 1
            ex._on_view(None, {"do": key}, None)
            check_view(view, ex, f"JupyterLab after {key}")
    finally:
        context.close()
