"""Chapter 01b's GraphExplorer as readers use it: in the built page (no kernel: each slider
snaps to the values whose states were computed when the book was built) and in
JupyterLab (a real kernel), every number drawn checked against autograd_lab.

The chapter's own explorer is rebuilt in this process by running the chapter's code;
each message the page's view sends is replayed on it, so autograd_lab runs the layer and
a traced backward here, and the page must draw those numbers: in the readout beside the
sliders, and in the graph (the value in each box, the gradient on each edge).
"""
import re

import numpy as np
import pytest

from explorer_driver import (axe_violations, WINDOW, Book, Control, View, assert_numbers, chapter_explorer,
                             lab_views, open_page, page_view, record_messages, run_all_in_lab)

pytestmark = pytest.mark.browser
BOOK = Book("01b_the_chain_rule_in_numbers", "explorer")
NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?|nan|-?inf")


_CHAPTER = {}


def fresh_explorer():
    """The chapter's explorer, as the chapter makes it (a new one each time)."""
    return chapter_explorer(BOOK)


def numbers_in(text):
    return [float(t) for t in NUMBER.findall(text.replace("[", " ").replace("]", " "))]


def assert_graph_shows(view, ex, where):
    """Readout, boxes and edge labels of the view hold the numbers of ``ex``'s last run."""
    spec = ex.spec
    for row in spec["readout"]:
        shown = ex._slots[row["slot"]].reshape(-1)[spec["slots"][row["slot"]]["shown"]]
        assert_numbers(view.numbers(f"value-{row['label']}"), shown, f"{where}, {row['label']}")
    for i, e in enumerate(spec["edges"]):
        if e["slot"] is not None:
            text = view.root.locator(f'[data-role="grad-{i}"]').text_content()
            assert_numbers(numbers_in(text.replace("←", "")), ex._slots[e["slot"]].reshape(-1),
                           f"{where}, the gradient on edge {i}")
    for i, v in enumerate(spec["vertices"]):
        slots = [line["slot"] for line in v["lines"] if "slot" in line]
        if slots and v["kind"] != "const":
            text = view.root.locator(f'[data-role="node-{i}"]').text_content()
            name = "".join(line.get("text", "") for line in v["lines"])
            want = np.concatenate([ex._slots[k].reshape(-1)[spec["slots"][k]["shown"]] for k in dict.fromkeys(slots)])
            assert_numbers(numbers_in(text[len(name):] if text.startswith(name) else text), want,
                           f"{where}, box {i}")


def snapped(ex, msg):
    """The message as the page answers it: a value between the stored ones snaps to the
    nearest (the page says so in a note)."""
    if msg.get("set") != "param":
        return msg
    k = [(s["name"], s["index"]) for s in ex.spec["sliders"]].index((msg["name"], msg["index"]))
    axis = ex._page()["axes"][k]
    return {**msg, "value": min(axis, key=lambda v: abs(v - float(msg["value"])))}


CONTROLS = [Control("arrow", "param-0", "ArrowRight"), Control("arrow", "param-0", "ArrowRight"),
            Control("arrow", "param-1", "ArrowLeft"), Control("drag", "param-2", 0.97),
            Control("click", 'css:[data-role="presets"] button[data-key="all 3"]'),
            Control("type", "param-1", "-10"), Control("type", "param-2", "2.4"),
            Control("click", 'css:[data-role="presets"] button[data-key="all 10"]'),
            Control("click", 'css:[data-role="presets"] button[data-key="reset"]')]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_control_of_the_page_graph_explorer_draws_autograd_labs_numbers(chromium, book_server, theme):
    ex = fresh_explorer()
    context, page, problems, outside = open_page(chromium, book_server + BOOK.page, theme)
    try:
        view = page_view(page, kind="graph_explorer")
        root = view.root
        assert root.get_attribute("data-host") == "page"
        sent = record_messages(page, view)
        assert_graph_shows(view, ex, "on arrival")
        for control in CONTROLS:
            assert view.use(control) == 1, f"{control}: not one redraw"
            ex._on_view(None, snapped(ex, sent[-1]), None)
            assert ex.error is None, ex.error
            assert_graph_shows(view, ex, f"after {control}")
        for k in range(root.locator('[data-role^="param-"]').count()):   # a slider says its weight
            param = root.locator('[data-role^="param-"]').nth(k)
            text = param.locator("input[type=text]").input_value()
            assert param.locator("input[type=range]").get_attribute("aria-valuetext") in (text, text + ".")
            assert param.locator("label").evaluate("(l) => l.control && l.control.type") == "range"
        note = root.locator('[data-role="status"]').inner_text()
        assert axe_violations(page, ".al-x") == {}, "axe-core (WCAG 2.1 A/AA) in the state reached"
        assert note == "" and problems == [] and outside == []
    finally:
        context.close()


def test_the_page_snaps_a_typed_value_and_says_so_and_refuses_one_it_has_no_state_for(chromium, book_server):
    context, page, problems, _ = open_page(chromium, book_server + BOOK.page, None)
    try:
        view = page_view(page, kind="graph_explorer")
        box = view.locate("param-1").locator("input[type=text]")
        view.use(Control("type", "param-1", "2.4"))
        assert box.input_value() == "3"
        assert "2.4 snapped to 3" in view.root.locator('[data-role="status"]').inner_text()
        before = view.numbers("value-W.grad")
        view.use(Control("type", "param-1", "50"))             # beyond the stored values
        message = view.root.locator('[data-role="status"]').inner_text()
        assert "open the notebook to try 50" in message
        assert box.input_value() == "3" and view.numbers("value-W.grad") == before   # not clamped
        host = view.root.locator('[data-role="host"]').inner_text()
        assert "snaps to -10, 1, 3, 10 or its starting value" in host and "any value" in host
        assert problems == []
    finally:
        context.close()


def test_the_graph_explorer_fits_the_window_at_its_natural_size(chromium, book_server):
    ex = fresh_explorer()
    for theme in ("light", "dark"):
        context, page, problems, _ = open_page(chromium, book_server + BOOK.page, theme)
        try:
            root = page_view(page, kind="graph_explorer").root
            box = root.bounding_box()
            assert box["height"] <= 700 and box["width"] <= 780
            svg = root.locator('[data-role="graph"]').bounding_box()
            assert svg["width"] == pytest.approx(ex.spec["width"], abs=0.5)     # not scaled
            fill = root.locator("rect.b-op").first.evaluate("r => getComputedStyle(r).fill")
            assert fill == ("rgb(249, 234, 199)" if theme == "light" else "rgb(59, 46, 18)")
        finally:
            context.close()


# -- JupyterLab ----------------------------------------------------------------------------------


def test_the_graph_explorer_runs_live_in_jupyterlab(chromium, lab):
    ex = fresh_explorer()
    context = chromium.new_context(viewport=WINDOW)
    page = context.new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    try:
        run_all_in_lab(page, lab, BOOK.chapter)
        root = lab_views(page, 1, "graph_explorer").first
        root.scroll_into_view_if_needed()
        assert root.get_attribute("data-host") == "kernel"
        assert root.bounding_box()["height"] <= WINDOW["height"]
        view = View(page, root)
        assert_graph_shows(view, ex, "after Run All")             # the starting W, as the text says
        assert view.use(Control("type", "param-1", "2.4")) == 1   # the kernel takes any value
        ex.set(W=[[float(v) for v in (ex.params["W"].numpy()[0, 0], 2.4, ex.params["W"].numpy()[0, 2])]])
        assert_graph_shows(view, ex, "after typing 2.4")
        assert view.locate("param-1").locator("input[type=text]").input_value() == "2.4"
        assert problems == []
    finally:
        page.evaluate("window.jupyterapp && jupyterapp.serviceManager.sessions.shutdownAll()")
        context.close()
