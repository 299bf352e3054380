"""The in-place explorer of "What backward keeps" as readers use it, in the built page (no
kernel) and in JupyterLab (a real kernel): after each press, what the view draws -- the
outcome, the graph with its versions, x and y, x.grad or the error, the honest gradient
-- equals what autograd_lab computes in this process for the same presses (the chapter's
own explorer, sent the same messages).

The page answers from states autograd_lab computed when the book was built (every
operation with every write); a prediction only reveals the state.
"""
import pytest

from explorer_driver import (axe_violations, WINDOW, Book, Control, assert_numbers, chapter_explorer,
                             lab_view, open_page, page_view, record_messages, run_all_in_lab)

pytestmark = pytest.mark.browser
CHAPTER = "05b_what_backward_keeps"
SETTING = {"ops": "op", "writes": "write", "predict": "prediction"}


def press(role, key):
    return Control("click", f'css:[data-role="{role}"] button[data-key="{key}"]', (role, key))


def presses():
    """Every button: each prediction on the chapter's starting pair (exp, then mul_); each
    operation; each write (on y = x.sin(), then the leaf writes on y = x ** 2 and exp), each
    followed by a prediction; a prediction changed after it was judged."""
    from autograd_lab.teaching.widgets.inplace import OPERATIONS, WRITES
    out = [press("predict", p) for p in ("error", "fine", "stale")]
    for k, op in enumerate(OPERATIONS):
        out += [press("ops", op), press("predict", ("error", "fine", "stale")[k % 3])]
    for k, w in enumerate(WRITES):
        out += [press("writes", w.code), press("predict", ("fine", "stale", "error")[k % 3])]
    out += [press("ops", "y = x ** 2"), press("predict", "stale"), press("writes", "with al.no_grad(): x.mul_(2)"),
            press("predict", "fine"), press("predict", "error"), press("ops", "y = x.exp()"),
            press("writes", "y.data.add_(1)"), press("predict", "stale")]
    return out


INPLACE = Book(CHAPTER, "explorer", presses(), lab=press("predict", "error"))


def message(control):
    role, key = control.value
    return {"set": SETTING[role], "value": key}


def row_numbers(view, role):
    return [t.strip() for t in view.root.locator(f'[data-role="{role}"] td[data-index]').all_inner_texts()]


def check_view(view, ex, where):
    """Everything the view draws, against the explorer computed in this process."""
    from autograd_lab.teaching.widgets.inplace import OUTCOMES
    state = ex.state
    for role, chosen in (("ops", ex.op), ("writes", ex.write), ("predict", ex.prediction)):
        pressed = view.root.locator(f'[data-role="{role}"] button[aria-pressed="true"]').all()
        assert [b.get_attribute("data-key") for b in pressed] == ([] if chosen is None else [chosen]), \
            f"{where}: {role} pressed"
    assert view.locate("code").inner_text().splitlines() == state["code"], where
    status = view.locate("status").inner_text()
    assert (ex.error or "") in status, f"{where}: {status!r}"
    if ex.prediction is None:
        assert view.locate("waiting").is_visible() and view.root.locator('[data-role="verdict"]').count() == 0, \
            f"{where}: the result shows before a prediction"
        return
    verdict = view.locate("verdict")
    assert verdict.get_attribute("data-outcome") == ex.outcome, where
    assert view.locate("outcome").inner_text() == OUTCOMES[ex.outcome], where
    judged = view.locate("judged").inner_text()
    assert f"you predicted {OUTCOMES[ex.prediction]}: " in judged and judged.endswith(
        "right." if ex.right else "not this time."), f"{where}: {judged!r}"
    assert view.locate("why").inner_text() == ex.why, where
    names = view.root.locator('[data-role^="node-"] [data-role="node-name"]').all_inner_texts()
    assert names == [n["name"] for n in ex.nodes], f"{where}: {names}"
    drawn = view.root.locator('[data-role="versions"]').all_inner_texts()
    kept = [f"saved v{i['at']} · now v{i['now']} {'✓' if i['at'] == i['now'] else '✗'}"
            for n in ex.nodes for i in n["keeps"] if i["at"] is not None]
    assert drawn == kept, f"{where}: {drawn} drawn, {kept} computed"
    for t in state["tensors"]:
        assert_numbers(row_numbers(view, f"{t['name']}-now"), t["now"], f"{where}, {t['name']} now")
        version = view.locate(f"{t['name']}-version").inner_text()
        assert version.startswith(f"version {t['version']}"), f"{where}: {version!r}"
        assert (t["data_version"] is not None) == (".data:" in version), f"{where}: {version!r}"
    if ex.grad is None:
        assert view.locate("error-text").inner_text() == f"None: {ex.backward_error}", where
    else:
        assert_numbers(row_numbers(view, "grad"), ex.grad.numpy(), f"{where}, x.grad")
        differs = view.root.locator('[data-role="grad"] td.al-differs').count()
        assert (differs > 0) == (ex.outcome == "stale"), f"{where}: {differs} entries marked as differing"
    assert_numbers(row_numbers(view, "honest"), ex.honest_grad.numpy(), f"{where}, honest")
    assert view.locate("honest-code").inner_text() == state["honest_code"], where


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_press_draws_autograd_labs_outcome_graph_and_gradients(chromium, book_server, theme):
    ex = chapter_explorer(INPLACE)
    context, page, problems, outside = open_page(chromium, book_server + INPLACE.page, theme)
    try:
        view = page_view(page, INPLACE.index)
        assert view.root.get_attribute("data-host") == "page"
        sent = record_messages(page, view)
        check_view(view, ex, "on arrival")
        tallest = 0
        for k, control in enumerate(INPLACE.controls):
            assert view.use(control) == 1, f"{control.value}: more than one redraw"
            page.wait_for_timeout(20)
            assert sent and sent[-1] == message(control)
            ex._on_view(None, sent[-1], None)                      # the same press, computed here
            check_view(view, ex, f"after press {k}: {control.value}")
            box = view.root.bounding_box()
            assert box["width"] <= 780, box
            tallest = max(tallest, box["height"])
        assert tallest <= 700, f"the view grew to {tallest} px"
        assert axe_violations(page, ".al-x") == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert problems == [] and outside == []
    finally:
        context.close()


def test_the_displayed_explorer_waits_for_a_prediction_as_the_text_says(chromium, book_server):
    context, page, _, _ = open_page(chromium, book_server + INPLACE.page, None)
    try:
        view = page_view(page, INPLACE.index)
        assert view.locate("code").inner_text().splitlines()[1:3] == ["y = x.exp()", "y.mul_(2)"]
        assert "Predict first" in view.locate("waiting").inner_text()
        view.use(press("predict", "error"))
        assert view.locate("outcome").inner_text() == "error"
        assert "ExpBackward0 saved y at version 0" in view.locate("why").inner_text()
        assert "which is output 0 of Exp, is at version 1; expected version 0" in view.locate("error-text").inner_text()
        view.use(press("writes", "y.data.add_(1)"))                 # a new question: the result hides again
        assert view.root.locator('[data-role="verdict"]').count() == 0
    finally:
        context.close()


# -- JupyterLab --------------------------------------------------------------------------------


def test_the_inplace_explorer_runs_live_in_jupyterlab(chromium, lab):
    context = chromium.new_context(viewport=WINDOW)
    page = context.new_page()
    try:
        run_all_in_lab(page, lab, CHAPTER)
        ex = chapter_explorer(INPLACE)
        view = lab_view(page, INPLACE.index)
        assert view.root.get_attribute("data-host") == "kernel"
        check_view(view, ex, "JupyterLab after Run All")
        for control in (INPLACE.lab, press("ops", "y = x.sigmoid()"), press("predict", "fine")):
            assert view.use(control) == 1
            ex._on_view(None, message(control), None)
            check_view(view, ex, f"JupyterLab after {control.value}")
        assert view.root.bounding_box()["height"] <= WINDOW["height"]
    finally:
        context.close()
