"""The exercises' answer boxes: every exercise has one, every box knows at least two likely
mistakes, and a reader's answer is judged the same way in the page (no kernel) and by the
kernel.

The numbers come from the notebooks: each box's expected answer and mistakes are in its
stored output (the page bundle), computed by the exercise's own solution and by
autograd_lab when the notebook ran; nbval checks that a fresh run gives the same.  In the
built page, one browser session goes through every box of the book: the answer typed
as the book prints it is accepted, each listed mistake shows its hint, bad input gets
its message, and every verdict equals the kernel's judge (``exercise.judge``) on the same
text.  In JupyterLab, one exercise per chapter is judged by the kernel.
"""
import json
import re
import urllib.request

import pytest

from book_site import HTML, source_of, toc_docnames
from explorer_driver import current_notebook, open_page
import book_answers  # (book/book_answers.py: the book's exercises)

from autograd_lab.teaching.widgets._base import PAGE_MIME
from autograd_lab.teaching.widgets.exercise import AnswerBox, Ask, Mistake, judge, slug

NOTEBOOKS = [p for p in map(source_of, toc_docnames()) if p is not None and p.suffix == ".ipynb"]


def boxes_of(path):
    """[(key, page bundle)] of the answer boxes of a notebook, in order, from its outputs."""
    out = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        m = re.search(r'answer_box\("([\w.]+)"', "".join(cell["source"]))
        if m and cell["cell_type"] == "code":
            data = [o["data"][PAGE_MIME] for o in cell.get("outputs", []) if PAGE_MIME in o.get("data", {})]
            out.append((m.group(1), data[0] if data else None))
    return out


BOXES = {key: bundle for path in NOTEBOOKS for key, bundle in boxes_of(path)}


def as_typed(part, value):
    """A value of a bundle as a reader types it: numbers as the book prints them."""
    kind = part["kind"]
    if kind in ("numbers", "linear"):
        import numpy as np
        from autograd_lab.teaching.widgets._base import from_js, text
        a = np.array([float(from_js(v)) for v in value["values"]]).reshape(value["shape"])
        return text(a)
    if kind == "shape":
        return "(" + ", ".join(map(str, value["values"])) + ")"
    if kind == "choice":
        return value["values"]
    return ", ".join(value["values"])


def bad_inputs(part, page):
    """Inputs that must get a message (verdict "bad"), for one question."""
    kind = part["kind"]
    if kind == "choice":
        return [""]
    if kind == "words":
        return ["", "fine, nonsense"]
    if kind == "shape":
        return ["", "(2, x)", "(" + ", ".join(["1"] * (len(page["answer"]["values"]) + 2)) + ")"]
    n = len(page["answer"]["values"])
    return ["", "[1, 2", "nan", "1e20", "[" + ", ".join(["0.123"] * (n + 1)) + "]"]


def checks_of(bundle):
    """Every (part, text, expected kind, expected hint) to try on one box."""
    spec, pages = bundle["spec"]["parts"], bundle["page"]["parts"]
    out, tricky = [], True
    for i, (part, page) in enumerate(zip(spec, pages)):
        if part["kind"] != "linear":
            out.append((i, as_typed(part, page["answer"]), "right", None))
        for m in page["mistakes"]:
            out.append((i, as_typed(part, m), "mistake", m["hint"]))
        out += [(i, text, "bad", None) for text in bad_inputs(part, page)]
        if tricky and part["kind"] in ("numbers", "linear"):   # the two judges read alike
            out += [(i, text, None, None) for text in TRICKY]
            tricky = False
    return out


# text the page and the kernel must read alike (kind None: the kernel's verdict decides)
TRICKY = ["1,,2", "[[1, 2], [3]]", "tensor([1., 2.], dtype=al.float64)", "-.5, 1.", "+1, 2",
          "inf", "[1, 2]]", "(1, 2)", "1e-3", "[[0.]]"]


# -- without a browser ---------------------------------------------------------------------------
def test_every_exercise_has_an_answer_box_with_at_least_two_mistakes():
    """Every exercise of the book (a solution folded under "Show the solution") is followed,
    after its check, by its answer box; each box knows two or more likely mistakes."""
    found = []
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        n = 0
        for k, cell in enumerate(cells):
            if cell["metadata"].get("mystnb", {}).get("code_prompt_show") != "Show the solution":
                continue
            n += 1
            chapter = re.match(r"(\d+[a-z]?)_", path.name).group(1)
            key = f"{chapter}.{n}"
            box = "".join(cells[k + 2]["source"])
            assert box == f'al.widgets.answer_box("{key}", globals())', f"{path.name}: exercise {n}"
            assert "remove-input" in cells[k + 2]["metadata"].get("tags", [])
            found.append(key)
    assert len(found) == 32 and sorted(found) == sorted(book_answers.EXERCISES)
    for key in found:
        bundle = BOXES[key]
        assert bundle is not None, f"{key}: no stored output (refresh the notebook)"
        mistakes = sum(len(p["mistakes"]) for p in bundle["page"]["parts"])
        assert mistakes >= 2, f"{key}: {mistakes} mistakes"


def test_every_hint_links_a_section_of_the_built_book(built_html):
    ids = {}
    for bundle in BOXES.values():
        for page in bundle["page"]["parts"]:
            for m in page["mistakes"]:
                chapter, anchor = m["href"].split("#")
                if chapter not in ids:
                    html = (built_html / "book" / f"{chapter}.html").read_text(encoding="utf-8")
                    ids[chapter] = set(re.findall(r'\bid="([^"]+)"', html))
                assert anchor in ids[chapter], f"{m['href']} ({m['section']}) is not in the book"


def test_a_reader_may_type_a_tensor_as_a_list_as_numbers_or_as_torch_prints_it():
    box = AnswerBox("t", [Ask("x.grad", [[1.0, 2.0]], mistakes=[
        Mistake([[2.0, 1.0]], "swapped", ("00_first_gradient", "The seed is not optional"))])])
    for text in ["[1, 2]", "1, 2", "[[1., 2.]]", "tensor([1., 2.])", "al.tensor([[1.0, 2.0]])",
                 "tensor([[1.0000, 2.0000]], requires_grad=True)", " [1.001, 1.999] "]:
        assert box.check(0, text)["kind"] == "right", text
    assert box.check(0, "[2, 1]")["text"] == "swapped"
    assert box.check(0, "[[1], [2]]")["kind"] == "right"           # axes of size 1 aside
    matrix = AnswerBox("m", [Ask("J", [[1., 2., 3.], [4., 5., 6.]])])
    assert matrix.check(0, "[[1, 2], [3, 4], [5, 6]]")["text"] == \
        "expected shape (2, 3), got (3, 2)."
    assert matrix.check(0, "1, 2, 3, 4, 5, 6")["kind"] == "right"
    assert box.check(0, "[1, 3]")["text"].startswith("Not yet: 1 of 2 entries match.")
    assert box.check(0, "[1, 2, 3]")["text"] == "expected 2 numbers, got 3."
    assert box.check(0, "")["text"].startswith("Type your answer first")
    assert "finite" in box.check(0, "[nan, 2]")["text"]
    assert "1e12" in box.check(0, "[1e300, 2]")["text"]
    assert "could not read" in box.check(0, "[1, two]")["text"]
    assert box.state["verdicts"][0]["kind"] == "bad"                # the view shows the last
    assert slug("`.grad` accumulates") == "grad-accumulates"


def test_a_mistake_that_gives_the_answer_is_refused_when_the_box_is_made():
    with pytest.raises(ValueError, match="gives the answer itself"):
        AnswerBox("t", [Ask("n", 2, mistakes=[Mistake(2.0, "no", ("00_first_gradient", "x"))])])


# -- in the built page -----------------------------------------------------------------------------
CHECK_ALL = """async (checks) => {
  // the page answers on the next microtask (page.js), and the view draws at once
  const tick = async () => { await null; await null; };
  const boxes = Array.from(document.querySelectorAll('.al-explorer[data-kind="exercise"]'));
  const out = [];
  for (const [b, part, text] of checks) {
    const root = boxes[b].querySelector('.al-x');
    const field = root.querySelector(`[data-role="answer-${part}"]`);
    if (field.tagName !== 'FIELDSET') {
      field.value = text;
    } else {
      for (const r of field.querySelectorAll('input[type=radio]')) r.checked = r.value === text;
    }
    root.querySelector(`[data-role="check-${part}"]`).click();
    await tick();
    const v = root.querySelector(`[data-role="verdict-${part}"]`);
    out.push({kind: v.dataset.kind, text: v.textContent, live: v.getAttribute('aria-live'),
              link: v.querySelector('a') ? v.querySelector('a').getAttribute('href') : null});
  }
  return out;
}"""

LABELS = """() => Array.from(document.querySelectorAll('.al-exercise input, .al-exercise textarea')).filter((el) =>
  el.type === 'radio' ? !el.closest('fieldset').querySelector('legend')
    : !document.querySelector(`label[for="${el.id}"]`)).length"""


@pytest.mark.browser
def test_every_answer_box_in_the_page_judges_as_the_kernel_does(chromium, book_server):
    """For every exercise: the answer (as the book prints it) is right, each listed mistake
    shows its hint and its section's link, bad input gets a message; every verdict is the
    kernel's judge's on the same text; every box has its label and nothing scrolls
    sideways at a phone's width (390 px).  One browser page goes through the chapters, one
    evaluation per chapter; pictures, fonts and MathJax are not loaded (test_browser.py
    checks them)."""
    context = chromium.new_context(viewport={"width": 390, "height": 800}, service_workers="block")
    skip = ("image", "font")
    context.route("**/*", lambda r: r.abort() if r.request.resource_type in skip
                  or "/mathjax/" in r.request.url else r.continue_())
    page = context.new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    page.on("console", lambda m: m.type == "error" and "Failed to load resource" not in m.text
            and problems.append(m.text))
    checked = mistakes = 0
    try:
        for path in NOTEBOOKS:
            boxes = boxes_of(path)
            if not boxes:
                continue
            page.goto(f"{book_server}book/{path.stem}.html", wait_until="domcontentloaded")
            page.wait_for_function(f"""() => document.querySelectorAll(
                '.al-explorer.al-mounted[data-kind="exercise"]').length === {len(boxes)}""")
            plan = [(b, i, text, kind, hint, bundle)
                    for b, (key, bundle) in enumerate(boxes)
                    for i, text, kind, hint in checks_of(bundle)]
            got = page.evaluate(CHECK_ALL, [[b, i, text] for b, i, text, *_ in plan])
            for (b, i, text, kind, hint, bundle), v in zip(plan, got):
                where = f"{boxes[b][0]}, question {i}, typed {text!r}"
                assert v["kind"] == kind or kind is None, f"{where}: {v}"
                assert v["live"] == "polite"
                kernel = judge(bundle["spec"]["parts"][i], bundle["page"]["parts"][i], text)
                assert kernel["kind"] == v["kind"], f"{where}: kernel {kernel}, page {v}"
                assert kernel["text"].removeprefix("Not yet: ") in v["text"] or kind == "right", \
                    f"{where}: kernel {kernel['text']!r}, page {v['text']!r}"
                if kind == "mistake":
                    assert hint in v["text"] and v["link"] == "{}.html#{}".format(*m_href(kernel))
                    mistakes += 1
                checked += 1
            assert page.evaluate(LABELS) == 0, f"{path.stem}: a box without a label"
            first = page.locator('.al-exercise [data-role="answer-0"]').first   # by keyboard
            if first.evaluate("el => el.tagName") != "FIELDSET":
                first.fill("")
                first.focus()
                page.keyboard.type("[1, 2")
                page.keyboard.press("Enter")
                verdict = page.locator('.al-exercise [data-role="verdict-0"]').first
                assert verdict.get_attribute("data-kind") == "bad"
                page.keyboard.press("Tab")                      # on to its Check button
                assert page.evaluate("document.activeElement.dataset.role") == "check-0"
            wide = page.evaluate("""() => Array.from(document.querySelectorAll('.al-exercise'))
                .filter((el) => el.scrollWidth > el.clientWidth + 1
                        || el.getBoundingClientRect().right > window.innerWidth).length""")
            assert wide == 0, f"{path.stem}: an answer box is wider than a 390 px phone"
        assert problems == []
    finally:
        context.close()
    assert len(BOXES) == 32 and mistakes >= 64 and checked > mistakes


def m_href(verdict):
    return verdict["href"].split("#")


# -- in JupyterLab -----------------------------------------------------------------------------------
@pytest.mark.browser
def test_one_exercise_per_chapter_is_judged_by_the_kernel_in_jupyterlab(chromium, lab):
    """A notebook (put into JupyterLab's folder through its contents API) shows the first box
    of every chapter, made from the chapter's stored output; the kernel judges the answer,
    a mistake and bad input typed into the view."""
    chapters = [p for p in NOTEBOOKS if boxes_of(p)]
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": f"import json\nfrom autograd_lab.teaching.widgets import AnswerBox\n"
                        f"from autograd_lab.teaching.widgets._base import PAGE_MIME\n"
                        f"def box(name):\n"
                        f"    cells = json.load(open(name))['cells']\n"
                        f"    return AnswerBox.from_bundle(next(o['data'][PAGE_MIME] for c in cells\n"
                        f"        for o in c.get('outputs', []) if PAGE_MIME in o.get('data', {{}})\n"
                        f"        and 'answer_box' in ''.join(c['source'])))"}]
    cells += [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
               "source": f"box({p.name!r})"} for p in chapters]
    notebook = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                            "language": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    body = json.dumps({"type": "notebook", "format": "json", "content": notebook}).encode()
    request = urllib.request.Request(f"{lab}/api/contents/answer_boxes.ipynb?token=explorers", data=body,
                                     method="PUT", headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).read()
    from explorer_driver import run_all_in_lab
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = context.new_page()
    try:
        run_all_in_lab(page, lab, "answer_boxes")
        notebook_el = current_notebook(page)
        page.wait_for_function("""(n) => document.querySelectorAll(
            '.jp-Notebook .al-exercise[data-host="kernel"]').length >= n""", arg=len(chapters),
                               timeout=60_000)
        roots = notebook_el.locator(".al-exercise")
        for b, path in enumerate(chapters):
            bundle = boxes_of(path)[0][1]
            root = roots.nth(b)
            root.scroll_into_view_if_needed()
            part, pagepart = bundle["spec"]["parts"][0], bundle["page"]["parts"][0]
            tries = [(as_typed(part, pagepart["answer"]), "right")] if part["kind"] != "linear" else []
            tries += [(as_typed(part, pagepart["mistakes"][0]), "mistake"),
                      (bad_inputs(part, pagepart)[0], "bad")]
            for text, kind in tries:
                before = int(root.get_attribute("data-frames"))
                field = root.locator('[data-role="answer-0"]')
                if part["kind"] == "choice":
                    field.evaluate("(f, t) => f.querySelectorAll('input').forEach("
                                   "(r) => { r.checked = r.value === t; })", text)
                else:
                    field.fill(text)
                root.locator('[data-role="check-0"]').click()
                page.wait_for_function("([el, n]) => Number(el.dataset.frames) > n",
                                       arg=[root.element_handle(), before], timeout=30_000)
                verdict = root.locator('[data-role="verdict-0"]')
                assert verdict.get_attribute("data-kind") == kind, f"{path.stem}: {text!r}"
                want = judge(part, pagepart, text)["text"]
                assert want.removeprefix("Not yet: ") in verdict.inner_text() or kind == "right"
    finally:
        page.evaluate("window.jupyterapp && jupyterapp.serviceManager.sessions.shutdownAll()")
        context.close()


def test_an_answer_box_outside_the_book_says_where_the_exercises_live(monkeypatch):
    """The exercises are book content (book/book_answers.py); the library's answer_box
    finds them beside the chapter, and elsewhere (an installed wheel) says so."""
    from autograd_lab.teaching.widgets import exercise
    monkeypatch.setattr(exercise, "BOOK_ANSWERS", "book_answers_not_here")
    with pytest.raises(ModuleNotFoundError, match=r"live in book/book_answers.py beside the "
                                                  r"chapters: run the chapter from book/"):
        exercise.answer_box("00.1", {})
