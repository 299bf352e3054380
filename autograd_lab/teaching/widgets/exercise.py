"""AnswerBox: a reader's prediction for an exercise, checked, with a hint that names the
mistake behind a wrong one.

An exercise asks one or more questions (``Ask``): a tensor, a shape, a number, one of a
few named outcomes, or a list of words.  Each has the expected answer (computed by the
exercise's own solution code), a tolerance, and the wrong answers a learner is likely
to give (``Mistake``: the value the mistaken reasoning gives, computed by autograd_lab,
and a one-line hint naming the mistake, with the section that teaches it).

The view is an explorer's (``exercise.js``): in Jupyter the kernel judges each answer
(``AnswerBox.check``); in the book's pages ``offline`` in ``exercise.js`` judges it from
the same numbers, carried in the page bundle.  The two judges follow the same steps:
read the text (``read``), then right, a listed mistake, a wrong count or shape (a
message), or "not yet".
"""
import math
import re
import unicodedata
from dataclasses import dataclass, field

import numpy as np

from ...core.tensor import Tensor
from . import _base as b

KINDS = ("numbers", "shape", "choice", "words", "linear")
RTOL = 5e-3                       # readers type four significant digits
HUGE = 1e12


def slug(heading):
    """The id a section gets in the book's pages (docutils' ``make_id``) from its heading
    as written in the notebook (Markdown, TeX between $ signs)."""
    text = re.sub(r"[`$*\\]", "", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


@dataclass
class Mistake:
    """A wrong answer a learner is likely to give: its ``value`` (computed from the
    mistaken reasoning), a one-line ``hint`` naming the mistake, and the section that
    teaches it: ``(chapter, heading)``, e.g. ``("03_backward_gradient_seed", "Backward is
    linear in the seed")``, the heading as the notebook writes it, and a third entry, the
    title to show, where the heading has TeX."""
    value: object
    hint: str
    section: tuple


@dataclass
class Ask:
    """One question of an exercise.  ``kind``: "numbers" (a tensor or a number), "shape",
    "choice" (one of ``choices``), "words" (a list of words from ``choices``) or "linear"
    (numbers judged by what the linear map ``matrix`` makes of them: right when that is
    ``target``; several answers are right).  Numbers are close within ``rtol`` of each
    entry plus ``atol`` (by default ``rtol`` times the largest entry of the answer and
    the mistakes)."""
    label: str
    answer: object
    kind: str = "numbers"
    mistakes: list = field(default_factory=list)
    choices: tuple = ()
    rtol: float = RTOL
    atol: float = None
    matrix: object = None
    target: object = None
    example: str = ""


def _numbers(value):
    if isinstance(value, Tensor):
        value = value.detach()._data
    return np.asarray(value, dtype=np.float64)


def _shape_list(value):
    return [int(n) for n in value]


def _encode(ask, value):
    """An answer (or a mistake's value) as the page carries it."""
    if ask.kind in ("numbers", "linear"):
        a = _numbers(value)
        return {"values": b.js(a.reshape(-1)), "shape": list(a.shape)}
    if ask.kind == "shape":
        return {"values": _shape_list(value)}
    if ask.kind == "choice":
        return {"values": str(value)}
    return {"values": [str(w) for w in value]}


# -- reading and judging: the same steps as read() and judge() in exercise.js --------------
def _fix_dots(s):
    """``1.`` and ``.5`` as JSON wants them (``1`` and ``0.5``)."""
    s = re.sub(r"(\d)\.(?![\d])", r"\1", s)
    return re.sub(r"(^|[^\d])\.(\d)", r"\g<1>0.\2", s)


def read(spec, text):
    """What the reader typed for one question -> {"value": ...} or {"error": message}."""
    kind = spec["kind"]
    s = str(text).strip()
    if kind == "choice":
        for c in spec["choices"]:
            if s.lower() == c.lower():
                return {"value": c}
        return {"error": "Pick one of: " + ", ".join(spec["choices"]) + "."}
    if s == "":
        return {"error": f"Type your answer first, for example {spec['example']}."}
    if kind == "words":
        words = [w for w in re.split(r"[\s,\[\]'\"()]+", s) if w]
        known = {c.lower(): c for c in spec["choices"]}
        unknown = [w for w in words if w.lower() not in known]
        if unknown:
            return {"error": f"{unknown[0]!r} is not one of the words here: "
                             + ", ".join(spec["choices"]) + "."}
        return {"value": [known[w.lower()] for w in words]}
    if kind == "shape":
        inner = re.sub(r"^(?:[A-Za-z_][\w.]*\.)?Size\s*\(([\s\S]*)\)$", r"\1", s)
        parts = [p for p in re.split(r"[\s,x×()\[\]]+", inner) if p]
        balanced = s.count("(") == s.count(")") and s.count("[") == s.count("]")
        if not balanced or not all(re.fullmatch(r"\d+", p) for p in parts) \
                or (not parts and "(" not in s):
            return {"error": f"could not read {s!r} as a shape: write whole numbers, "
                             "for example (4, 5)."}
        return {"value": [int(p) for p in parts]}
    m = re.fullmatch(r"(?:[A-Za-z_][\w.]*\.)?tensor\s*\(([\s\S]*)\)", s)
    if m:
        s = re.sub(r",\s*(?:dtype|requires_grad|device)\s*=[\s\S]*$", "", m.group(1)).strip()
    s = _fix_dots(s)
    if not s.startswith("["):
        s = f"[{s}]"
    try:
        if re.search(r"[()]", s):                  # as the page reads it: [ ] lists only
            raise ValueError(s)
        a = b.parse_numbers(s)
    except ValueError:
        return {"error": f"could not read {str(text).strip()!r} as numbers: write them like "
                         f"{spec['example']}."}
    return {"value": {"values": a.reshape(-1).tolist(), "shape": list(a.shape)}}


def _squeeze(shape):
    return [n for n in shape if n != 1]


def _close(got, want, tol):
    return len(got) == len(want) and all(
        abs(g - w) <= tol["atol"] + tol["rtol"] * abs(w) for g, w in zip(got, want))


def _same(spec, page, typed, target):
    kind = spec["kind"]
    if kind in ("numbers", "linear"):
        got = typed["values"]
        want = [float(b.from_js(v)) for v in target["values"]]
        shape_ok = len(typed["shape"]) <= 1 or _squeeze(typed["shape"]) == _squeeze(target["shape"])
        return shape_ok and _close(got, want, page["tol"])
    return typed == target["values"]


def _fmt_list(values):
    return "[" + ", ".join(b.viz.num(float(b.from_js(v))) for v in values) + "]"


def judge(spec, page, text):
    """The verdict on one answer: {"kind": "right" | "mistake" | "wrong" | "bad",
    "text": ..., and for a mistake "href"/"section" of the section that teaches it}."""
    got = read(spec, text)
    if "error" in got:
        return {"kind": "bad", "text": got["error"]}
    typed, kind = got["value"], spec["kind"]
    answer = page["answer"]
    if kind in ("numbers", "linear"):
        values = typed["values"]
        if not all(math.isfinite(v) for v in values):
            return {"kind": "bad", "text": "nan and inf are not possible here: every entry of "
                                           "this answer is a finite number."}
        if any(abs(v) > HUGE for v in values):
            return {"kind": "bad", "text": "a number beyond 1e12 cannot be an entry here: "
                                           "check the exponent."}
    if kind != "linear" and _same(spec, page, typed, answer):
        return {"kind": "right", "text": "Right."}
    for m in page["mistakes"]:
        if _same(spec, page, typed, m):
            return {"kind": "mistake", "text": m["hint"], "href": m["href"],
                    "section": m["section"]}
    if kind in ("numbers", "linear"):
        n, want = len(typed["values"]), len(answer["values"])
        if n != want:
            return {"kind": "bad", "text": f"expected {want} number{'s' * (want != 1)}, "
                                           f"got {n}."}
        if len(typed["shape"]) > 1 and _squeeze(typed["shape"]) != _squeeze(answer["shape"]):
            return {"kind": "bad", "text": f"expected shape {_shape_text(answer['shape'])}, "
                                           f"got {_shape_text(typed['shape'])}."}
    if kind == "shape" and len(typed) != len(answer["values"]):
        want = len(answer["values"])
        return {"kind": "bad", "text": f"expected {want} sizes (one per dimension), got {len(typed)}."}
    if kind == "words" and len(typed) != len(answer["values"]):
        want = len(answer["values"])
        return {"kind": "bad", "text": f"expected {want} words, got {len(typed)}."}
    if kind == "linear":
        image = [sum(row[j] * v for j, v in enumerate(typed["values"])) for row in page["matrix"]]
        if _close(image, page["target"], page["tol"]):
            return {"kind": "right", "text": "Right."}
        return {"kind": "wrong", "text": f"Not yet: {spec['image']} {_fmt_list(image)}, "
                                         f"not {_fmt_list(page['target'])}."}
    counted = ""
    if kind == "numbers" and len(answer["values"]) > 1:
        want = [float(b.from_js(v)) for v in answer["values"]]
        good = sum(_close([g], [w], page["tol"]) for g, w in zip(typed["values"], want))
        counted = f"{good} of {len(want)} entries match. "
    if kind == "words":
        good = sum(g == w for g, w in zip(typed, answer["values"]))
        counted = f"{good} of {len(typed)} in the right place. "
    return {"kind": "wrong", "text": f"Not yet: {counted}That is none of the usual slips: "
                                     "redo it step by step, or open the solution above."}


def _shape_text(shape):
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


# -- the widget ------------------------------------------------------------------------------
class AnswerBox(b.Explorer):
    """An answer box for one exercise: one text box (or a choice) per question, a Check
    button, and the verdict: right, the hint of a likely mistake with the section that
    teaches it, "not yet", or what is wrong with the text.

    Set: ``check(i, text)`` (the verdict, also shown).  Read: ``.asks``, ``.verdicts``.
    """

    kind = "exercise"
    _esm = b.module_source("exercise")

    def __init__(self, title, asks):
        super().__init__()
        self.title, self.asks = title, list(asks)
        self._pages = [self._page_of(a) for a in self.asks]
        self.verdicts = [None] * len(self.asks)
        self.spec = {"title": title, "parts": [self._spec_of(a) for a in self.asks]}
        self._publish()

    @classmethod
    def from_bundle(cls, bundle):
        """The box of a page bundle (an AnswerBox output's ``PAGE_MIME`` data, as stored in a
        notebook): the same questions, answers and mistakes, judged by this kernel."""
        self = cls.__new__(cls)
        b.Explorer.__init__(self)
        self.title, self.asks = bundle["spec"]["title"], []
        self._pages = bundle["page"]["parts"]
        self.verdicts = [None] * len(self._pages)
        self.spec = bundle["spec"]
        self._publish()
        return self

    @staticmethod
    def _spec_of(ask):
        if ask.kind not in KINDS:
            raise ValueError(f"unknown kind of question {ask.kind!r}; one of {KINDS}")
        example = ask.example or {"shape": "(4, 5)", "words": ", ".join(ask.choices[:2])}.get(
            ask.kind, "[1, 0.5]")
        size = _numbers(ask.answer).size if ask.kind in ("numbers", "linear") else 0
        out = {"label": ask.label, "kind": ask.kind, "choices": list(ask.choices),
               "example": example, "long": ask.kind == "words" or size > 6}
        if ask.kind == "linear":
            out["image"] = ask.target[0]
        return out

    @staticmethod
    def _page_of(ask):
        answer = _encode(ask, ask.answer)
        page = {"answer": answer, "mistakes": []}
        if ask.kind in ("numbers", "linear"):
            # entries near zero are judged on the scale of the answer and the mistakes
            values = [_numbers(ask.answer if ask.kind == "numbers" else ask.target[1])]
            values += [_numbers(m.value) for m in ask.mistakes]
            scale = max([float(np.max(np.abs(v))) for v in values if v.size] + [0.0]) or 1.0
            page["tol"] = {"rtol": ask.rtol,
                           "atol": ask.rtol * scale if ask.atol is None else ask.atol}
        if ask.kind == "linear":
            page["matrix"] = _numbers(ask.matrix).tolist()
            page["target"] = _numbers(ask.target[1]).reshape(-1).tolist()
        spec = AnswerBox._spec_of(ask)
        for m in ask.mistakes:
            chapter, heading, *title = m.section
            entry = {**_encode(ask, m.value), "hint": m.hint,
                     "section": title[0] if title else re.sub(r"[`*]", "", heading),
                     "href": f"{chapter}#{slug(heading)}"}
            text = _as_text(ask, m.value)
            if ask.kind != "linear" and _same(spec, page, read(spec, text)["value"], answer):
                raise ValueError(f"{ask.label}: the mistake {m.hint!r} gives the answer itself")
            if any(_same(spec, page, read(spec, text)["value"], e) for e in page["mistakes"]):
                raise ValueError(f"{ask.label}: the mistake {m.hint!r} gives the same as another")
            page["mistakes"].append(entry)
        return page

    # -- the programmatic API ---------------------------------------------------------------
    def check(self, i, text):
        """Judge the text typed for question ``i``; the verdict is shown and returned."""
        self._guard(self._check)(i, text)
        return self.verdicts[i]

    def answer_text(self, i):
        """The expected answer of question ``i`` as a reader would type it."""
        return _as_text(self.asks[i], self.asks[i].answer)

    def mistake_texts(self, i):
        return [_as_text(self.asks[i], m.value) for m in self.asks[i].mistakes]

    def _check(self, i, text):
        self.error = None
        i = int(i)
        if not 0 <= i < len(self._pages):
            raise ValueError(f"no question {i}: this exercise has {len(self._pages)}")
        self.verdicts[i] = {**judge(self.spec["parts"][i], self._pages[i], text), "typed": str(text)}

    def _set(self, name, value):
        m = re.fullmatch(r"answer-(\d+)", str(name))
        if not m:
            raise ValueError(f"AnswerBox does not know the message set {name!r}")
        self._check(int(m.group(1)), value)

    def _state(self):
        return {"verdicts": list(self.verdicts)}

    def _page(self):
        return {"parts": self._pages}

    def summary(self):
        done = sum(1 for v in self.verdicts if v and v["kind"] == "right")
        n = len(self._pages)
        return (f"AnswerBox: {self.title}: {n} question{'s' * (n != 1)}, {done} answered right"
                + self._problem_suffix())

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The widget view, a line of text, and the page bundle (no picture: an answer box
        without JavaScript has nothing to show)."""
        data, meta = b.anywidget.AnyWidget._repr_mimebundle_(self)
        data = {**data, "text/plain": self.summary(),
                b.PAGE_MIME: {"module": self.kind, "spec": self.spec, "state": self.state,
                              "page": self._page()}}
        return b.viz.mime_subset(data, include, exclude), meta or {}


def _as_text(ask, value):
    """A value as a reader would type it: numbers at the book's four significant digits."""
    if ask.kind in ("numbers", "linear"):
        return b.text(_numbers(value))
    if ask.kind == "shape":
        return _shape_text(_shape_list(value))
    if ask.kind == "choice":
        return str(value)
    return ", ".join(map(str, value))


BOOK_ANSWERS = "book_answers"     # book/book_answers.py: the book's exercises, beside the chapters


def answer_box(key, ns):
    """The answer box of the book's exercise ``key`` ("03.1": chapter 03, exercise 1),
    from the notebook's names ``ns`` (pass ``globals()``).  The exercises are book
    content: ``book/book_answers.py``, found beside the chapter (a chapter's kernel runs
    in book/, where Python looks first)."""
    import importlib
    try:
        book = importlib.import_module(BOOK_ANSWERS)
    except ModuleNotFoundError as e:
        if e.name != BOOK_ANSWERS:
            raise
        raise ModuleNotFoundError(
            "answer_box builds the boxes of the book's exercises, which live in "
            "book/book_answers.py beside the chapters: run the chapter from book/ "
            "(JupyterLab opened on book/, nbval and the book's build do)",
            name=BOOK_ANSWERS) from None
    return book.answer_box(key, ns)
