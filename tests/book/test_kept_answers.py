"""The book remembers a reader's answers (autograd_lab/teaching/widgets/progress.js, hosted by
page.js): in the built pages, what is typed into an answer box is kept in the browser's
localStorage (this site only, nothing sent anywhere), a reload shows it again with its
verdict judged anew, each chapter's Exercises say "Solved here: n of m", the intro's map
of the chapters gives each chapter's count, and "Forget my answers" clears it all.  With
storage blocked (it throws) or full, the boxes judge as before, the page says that
nothing is kept, and nothing is logged.  axe-core stays clean, light and dark, and on a
phone (390 px) nothing scrolls sideways.
"""
import json

import pytest

from book_site import ROOT
from explorer_driver import axe_violations
from test_exercises import as_typed, boxes_of

pytestmark = pytest.mark.browser
CHAPTER = "00_first_gradient"
BOXES = boxes_of(ROOT / "book" / f"{CHAPTER}.ipynb")     # [(key, page bundle)], two exercises
KEY = "autograd_lab.answers"

# storage that throws on every use (blocked), and storage whose setItem throws (full)
BLOCKED = """Object.defineProperty(window, 'localStorage', {configurable: true,
    get() { throw new DOMException('The operation is insecure.', 'SecurityError'); }});"""
FULL = """(() => {
    const real = window.localStorage;
    const full = new Proxy(real, {get(target, key) {
        if (key === 'setItem') return () => { throw new DOMException('quota', 'QuotaExceededError'); };
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
    }});
    Object.defineProperty(window, 'localStorage', {configurable: true, get: () => full});
})();"""


def answers(b):
    """(the right answer, a likely mistake) of question 0 of box b, as a reader types them."""
    spec, page = BOXES[b][1]["spec"]["parts"][0], BOXES[b][1]["page"]["parts"][0]
    return as_typed(spec, page["answer"]), as_typed(spec, page["mistakes"][0])


class Reader:
    """One browser context (one reader's browser), pages opened in it, what it logged."""

    def __init__(self, chromium, base, init=None, theme="light", viewport=None):
        self.base, self.problems = base, []
        self.context = chromium.new_context(viewport=viewport or {"width": 1280, "height": 900},
                                            service_workers="block")
        self.context.add_init_script(f"try {{ localStorage.setItem('mode', '{theme}');"
                                     f" localStorage.setItem('theme', '{theme}'); }} catch (e) {{}}")
        if init:
            self.context.add_init_script(init)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.problems.append(f"uncaught: {e}"))
        self.page.on("console", lambda m: m.type in ("error", "warning") and self.problems.append(m.text))

    def open(self, name):
        self.page.goto(f"{self.base}book/{name}.html", wait_until="load")
        if name == CHAPTER:
            self.page.wait_for_function("""n => document.querySelectorAll(
                '.al-explorer.al-mounted[data-kind="exercise"]').length === n""", arg=len(BOXES))

    def box(self, b):
        return self.page.locator('.al-explorer[data-kind="exercise"]').nth(b)

    def answer(self, b, text):
        box = self.box(b)
        box.locator('[data-role="answer-0"]').fill(text)
        box.locator('[data-role="check-0"]').click()
        self.page.wait_for_function("el => el.dataset.kind", arg=box.locator(
            '[data-role="verdict-0"]').element_handle())

    def shown(self, b):
        """(text in the field, verdict kind or None) of question 0 of box b."""
        box = self.box(b)
        return (box.locator('[data-role="answer-0"]').input_value(),
                box.locator('[data-role="verdict-0"]').get_attribute("data-kind"))

    def solved(self, selector='[data-role="progress"] [data-role="solved"]'):
        el = self.page.locator(selector).first
        return el.get_attribute("data-solved"), el.get_attribute("data-total"), el.inner_text()

    def kept(self):
        return json.loads(self.page.evaluate(f"localStorage.getItem('{KEY}')") or "null")

    def close(self):
        self.context.close()


def chip(reader, chapter):
    el = reader.page.locator(f'.al-progress-chip[data-chapter="{chapter}"]')
    return el.get_attribute("data-solved"), el.get_attribute("data-total")


def test_a_reload_keeps_the_answers_and_their_verdicts(chromium, book_server):
    right, _ = answers(0)
    _, mistake = answers(1)
    reader = Reader(chromium, book_server)
    try:
        reader.open(CHAPTER)
        assert reader.solved() == ("0", "2", "Solved here: 0 of 2.")
        reader.answer(0, right)
        reader.answer(1, mistake)
        assert reader.solved()[:2] == ("1", "2")
        reader.page.reload(wait_until="load")
        reader.page.wait_for_function("""() => document.querySelectorAll(
            '.al-explorer.al-mounted[data-kind="exercise"]').length === 2""")
        assert reader.shown(0) == (right, "right")
        assert reader.shown(1) == (mistake, "mistake")
        assert reader.solved() == ("1", "2", "Solved here: 1 of 2.")
        kept = reader.kept()[CHAPTER]
        assert [v["kinds"][0] for v in kept.values()] == ["right", "mistake"]
        # the intro's map of the chapters counts what this browser kept, chapter by chapter
        reader.open("intro")
        exercises = json.loads(reader.page.evaluate("document.getElementById('al-exercises').textContent"))
        assert len(exercises) >= 9 and exercises[CHAPTER] == [b["spec"]["title"] for _, b in BOXES]
        for name, titles in exercises.items():
            assert chip(reader, name) == ("1" if name == CHAPTER else "0", str(len(titles))), name
        total = sum(map(len, exercises.values()))
        assert reader.solved() == ("1", str(total), f"Solved: 1 of {total} exercises.")
        assert reader.problems == []
    finally:
        reader.close()


def test_forget_my_answers_clears_them_here_and_after_a_reload(chromium, book_server):
    right, _ = answers(0)
    reader = Reader(chromium, book_server)
    try:
        reader.open(CHAPTER)
        reader.answer(0, right)
        reader.page.locator('[data-role="forget"]').focus()
        reader.page.keyboard.press("Enter")                     # by keyboard
        assert reader.shown(0) == ("", None)
        assert reader.solved()[:2] == ("0", "2")
        said = reader.page.locator(".al-progress-said").first
        assert said.get_attribute("role") == "status" and said.inner_text().startswith("Forgotten")
        assert reader.page.evaluate("document.activeElement.dataset.role") == "forget"
        assert reader.kept() is None
        reader.page.reload(wait_until="load")
        reader.page.wait_for_function("""() => document.querySelectorAll(
            '.al-explorer.al-mounted[data-kind="exercise"]').length === 2""")
        assert reader.shown(0) == ("", None)
        # and from the intro
        reader.answer(0, right)
        reader.open("intro")
        assert chip(reader, CHAPTER) == ("1", "2")
        reader.page.locator('[data-role="forget"]').click()
        assert chip(reader, CHAPTER) == ("0", "2") and reader.kept() is None
        assert reader.problems == []
    finally:
        reader.close()


@pytest.mark.slow
@pytest.mark.parametrize("storage", ["blocked", "full"])
def test_with_storage_blocked_the_boxes_judge_as_before_and_nothing_is_logged(chromium, book_server,
                                                                               storage):
    right, mistake = answers(0)
    reader = Reader(chromium, book_server, init=BLOCKED if storage == "blocked" else FULL)
    try:
        reader.open(CHAPTER)
        reader.answer(0, right)
        assert reader.shown(0) == (right, "right")
        reader.answer(0, mistake)
        assert reader.shown(0) == (mistake, "mistake")
        solved, total, text = reader.solved()
        assert (solved, total) == ("0", "2")
        line = reader.page.locator('[data-role="progress"]').inner_text()
        assert "does not let the book keep your answers" in line
        assert reader.page.locator('[data-role="forget"]').count() == 0
        reader.page.reload(wait_until="load")
        reader.page.wait_for_function("""() => document.querySelectorAll(
            '.al-explorer.al-mounted[data-kind="exercise"]').length === 2""")
        assert reader.shown(0) == ("", None)                    # nothing was kept
        reader.open("intro")
        assert chip(reader, CHAPTER) == ("0", "2")
        assert reader.page.locator(f'.al-progress-chip[data-chapter="{CHAPTER}"]').inner_text() == " (2 exercises)"
        assert reader.problems == []
    finally:
        reader.close()


PHONE = {"width": 390, "height": 844}


@pytest.mark.slow
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_progress_lines_pass_axe_core_and_fit_a_phone(chromium, book_server, theme):
    """With answers kept and their counts shown (a chapter, the intro): no WCAG 2.1 A/AA
    violation found by axe-core, and nothing wider than a 390 px phone."""
    right, _ = answers(0)
    reader = Reader(chromium, book_server, theme=theme, viewport=PHONE)
    try:
        for name in (CHAPTER, "intro"):
            reader.open(name)
            if name == CHAPTER:
                reader.answer(0, right)
                reader.page.locator('[data-role="progress"]').scroll_into_view_if_needed()
            assert reader.page.evaluate("document.documentElement.dataset.theme") == theme
            assert reader.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
            box = reader.page.locator('[data-role="progress"]').first.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], name
            forget = reader.page.locator('[data-role="forget"]').first.bounding_box()
            assert forget["height"] >= 24 and forget["width"] >= 24
            assert axe_violations(reader.page) == {}, f"{name} ({theme})"
        assert reader.problems == []
    finally:
        reader.close()
