"""One book, one voice (issue 45): the chapters agree with their own outputs, with the
notation the introduction states once, and with the glossary, in reading order.

Each check runs per page of the table of contents and names what it found (cell and
line, the text). The checks:

- **Notation.** Indices count from 0 in math as in code. A sum from 1 (``\\sum_{i=1}``)
  or a family of two or more subscripts that never uses 0 (``z_1, z_2`` without
  ``z_0``; a lone ``y_1`` may be entry 1 counted from 0) fails,
  unless its section says why, visibly: a link to the Notation section whose text says
  the subscripts count from 1, e.g. ``[these count from 1](intro.md#notation)``
  (``ONE_BASED_MARK``). Every page links to the Notation section.
- **Numbers come from the cells.** A number in the prose that a cell of the page printed
  (and no cell typed as an input) must be inserted with myst-nb's ``{glue}``, unless the
  paragraph says where it comes from instead, visibly ("By hand: ..." or under a heading
  that says "by hand"; "The post printed ..."), and a later code cell asserts that
  number (an ``assert`` line that holds it as typed). Checked: numbers of 10 or more or
  with two significant digits (``0.5703``, ``36``, ``1.5``); not indices or powers in
  math.
- **First use links.** The first time a page uses a term the glossary defines, it links
  to the glossary's entry or to the section the entry names as teaching it (by the
  paragraph that first uses it; for a use in code, by the text before that cell). The
  page that teaches a term need not link it. A term is recognised by the glossary's
  heading and the aliases listed under it (``% terms:`` lines, see book/glossary.md).
  Not uses: headings, the Sources, and words inside a link to somewhere else (a chapter's
  title in a link is a reference, not a use).
- **The introduction's map** lists every page of _toc.yml, in order.

Pages that still fail a check are listed in ``KNOWN_FAILURES`` with what remains: each
such test is expected to fail (strict), so fixing a page makes its test fail until its
entry is removed. The list only shrinks.
"""
import re
from collections import defaultdict

import pytest

from book_text import Code, Para, read_page, toc_pages

PAGES = toc_pages()
LOOKUP_PAGES = {"errors", "glossary"}       # looked up, not read through
NOTATION = "intro.md#notation"

# page stem -> {check: what is left to do}; the owners of these pages empty it.
# `python tests/book/test_one_voice.py [page ...]` lists every finding, these included.
KNOWN_FAILURES = {}


def cases(check, pages=PAGES):
    out = []
    for name, path in pages:
        todo = KNOWN_FAILURES.get(path.stem, {}).get(check)
        marks = [pytest.mark.xfail(strict=True, reason=todo)] if todo else []
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


_READ = {}


def page(path):
    if path not in _READ:
        _READ[path] = read_page(path)
    return _READ[path]


def paras(path):
    return [p for p in page(path) if isinstance(p, Para)]


def codes(path):
    return [c for c in page(path) if isinstance(c, Code)]


# -- notation ---------------------------------------------------------------------------
ONE_BASED_MARK = re.compile(r"\b(?:count|counts|counted|counting|numbered) from 1\b")
SUM_FROM_ONE = re.compile(r"\\(?:sum|prod)\s*_\s*\{?\s*[A-Za-z]\w*\s*=\s*1\b")
NOT_INDICES = {"log", "sum", "prod", "max", "min", "lim", "arg", "left", "right", "big",
               "Big", "bigg", "Bigg", "mathbb", "mathcal"}


def subscript_base(tex, at):
    """The symbol a subscript at tex[at] (the ``_``) belongs to: ``y`` in ``\\hat{y}_1``,
    ``loss`` in ``\\text{loss}_1``, ``ell`` in ``\\ell_1``; None for a closing delimiter."""
    k = at - 1
    while k >= 0 and tex[k] == " ":
        k -= 1
    if k < 0:
        return None
    if tex[k] == "}":
        depth, j = 0, k
        while j >= 0:
            depth += {"}": 1, "{": -1}.get(tex[j], 0)
            if depth == 0:
                break
            j -= 1
        inner = tex[j + 1:k]
        words = re.findall(r"\\?[A-Za-z]+", inner)
        return words[-1].lstrip("\\") if words else None
    if tex[k].isalpha():
        j = k
        while j >= 0 and tex[j].isalpha():
            j -= 1
        if j >= 0 and tex[j] == "\\":
            return tex[j + 1:k + 1]
        return tex[k]
    return None


def numeric_subscripts(tex):
    """[(base, indices)] for every subscript made of digits: ``x_1``, ``y_{02}``."""
    out = []
    for m in re.finditer(r"_\s*(?:\{\s*([\d\s,]+)\s*\}|(\d))", tex):
        base = subscript_base(tex, m.start())
        if base is None or base in NOT_INDICES:
            continue
        digits = {int(d) for d in re.findall(r"\d", m.group(1) or m.group(2))}
        out.append((base, digits))
    return out


def one_based(path):
    """What counts from 1 in a page's math, outside the sections that say why."""
    excused = {p.section for p in paras(path)
               for piece in p.pieces
               if piece.href and piece.href.endswith(NOTATION)
               and ONE_BASED_MARK.search(piece.content)}
    found, families = [], defaultdict(list)
    for p in paras(path):
        for piece in p.pieces:
            if piece.kind != "math":
                continue
            for m in SUM_FROM_ONE.finditer(piece.content):
                if p.section not in excused:
                    found.append(f"{p.where()}: a sum from 1: ${m.group(0)}…$")
            for base, digits in numeric_subscripts(piece.content):
                families[base].append((p, digits, piece.content))
    for base, uses in families.items():
        seen = set().union(*(digits for _, digits, _ in uses))
        if 0 in seen or len(seen) < 2:      # one index alone may be a 0-based entry
            continue
        for p, digits, tex in uses:
            if p.section not in excused:
                tex = " ".join(tex.split())
                found.append(f"{p.where()}: ${base}_{min(digits)}$ counts from 1 "
                             f"(no {base}_0 on the page): ${tex[:70]}$")
                break
    return found


@pytest.mark.parametrize("path", cases("notation"))
def test_indices_count_from_0_in_math_as_in_code(path):
    assert one_based(path) == [], f"{path.name}:\n" + "\n".join(one_based(path))


@pytest.mark.parametrize("path", cases("notation link", [pc for pc in PAGES
                                                          if pc[1].stem not in
                                                          ("intro", "errors")]))
def test_every_page_links_to_the_notation_section(path):
    links = [h for p in paras(path) for h in p.links() if h.endswith(NOTATION)]
    assert links, f"{path.name}: no link to {NOTATION}"


# -- numbers in the prose come from the cells -----------------------------------------
NUMBER = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
# a paragraph that says where its numbers come from, when not from the cells: worked by
# hand ("By hand: ...") or printed by the source document ("The post printed ...")
NOT_FROM_CELLS = re.compile(r"\bby hand\b|\bprinted\b", re.I)
# in math, indices and powers are not values: y_{11}, x^2, 10^{-2}; \tfrac12 is a half
MATH_NOT_VALUES = re.compile(r"[_^]\s*(?:\{[^{}]*\}|\\?\w)|\\[dt]?frac\s*\d\d|\\[A-Za-z]+")


def number_value(text):
    """(value, decimals shown) of a number as written: '0.5703' -> (0.5703, 4)."""
    text = text.replace(",", "")
    mantissa = re.split(r"[eE]", text)[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    value = float(text)
    if "e" in text.lower():
        decimals = max(decimals - int(re.split(r"[eE]", text)[1]), 0)
    return value, decimals


def telling(text):
    """A number worth checking: 10 or more, or with two significant digits or more
    (0.5703, 1.5, 36); not 0, 1, 2, 0.5, 1e-3."""
    value, decimals = number_value(text)
    digits = re.sub(r"^0+", "", re.sub(r"[^\d]", "", re.split(r"[eE]", text)[0].replace(",", "")))
    digits = digits.rstrip("0") if decimals == 0 else digits
    return abs(value) >= 10 or len(digits) >= 2


def numbers_in(text):
    return [m.group(0) for m in NUMBER.finditer(text)]


def shown_as(prose, printed):
    """True when the printed number, rounded as the prose writes it, is the prose's."""
    value, decimals = number_value(prose)
    out = abs(number_value(printed)[0])
    if decimals == 0:
        return out == abs(value)
    return round(out, decimals) == round(abs(value), decimals)


def code_literals(source):
    """Numbers typed into code (inputs), outside assert statements, and those asserted."""
    typed, asserted, in_assert = [], [], False
    for line in source.splitlines():
        code = line.split("#")[0]
        if re.match(r"\s*assert\b", code):
            in_assert = True
        elif not line.startswith((" ", "\t")) or not code.strip():
            in_assert = in_assert and code.rstrip().endswith(("(", ",", "\\"))
        (asserted if in_assert else typed).extend(numbers_in(code))
    return typed, asserted


def says_where_numbers_come_from(p):
    return any(NOT_FROM_CELLS.search(text) for text in (p.text(), p.section, p.subsection))


def prose_numbers(p):
    for piece in p.pieces:
        if piece.kind == "role":
            continue
        text = piece.content
        if piece.kind == "math":
            text = MATH_NOT_VALUES.sub(" ", text)
        yield from numbers_in(text)


def unglued_numbers(path):
    """Numbers in the prose that a cell printed, typed by hand without glue (or, worked
    by hand, not asserted by a later cell)."""
    items = page(path)
    typed = set()
    for c in codes(path):
        typed.update(abs(number_value(n)[0]) for n in code_literals(c.source)[0])
    printed = [n for c in codes(path) for n in numbers_in(c.outputs)]
    found = []
    for k, p in enumerate(items):
        if not isinstance(p, Para):
            continue
        later_asserts = [n for c in items[k + 1:] if isinstance(c, Code)
                         for n in code_literals(c.source)[1]]
        for n in prose_numbers(p):
            if not telling(n) or abs(number_value(n)[0]) in typed:
                continue
            if not any(shown_as(n, o) for o in printed):
                continue
            if says_where_numbers_come_from(p) and any(shown_as(n, a) for a in later_asserts):
                continue
            found.append(f"{p.where()}: {n} in “{' '.join(p.text().split())[:90]}”")
    return found


@pytest.mark.parametrize("path", cases("glue", [pc for pc in PAGES if pc[1].suffix == ".ipynb"]))
def test_numbers_a_cell_printed_are_glued_into_the_prose(path):
    found = unglued_numbers(path)
    assert found == [], f"{path.name}:\n" + "\n".join(found)


# -- first use links to the glossary or to the section that teaches the term ------------
GLOSSARY = next(path for _, path in PAGES if path.stem == "glossary")


class Term:
    """A glossary entry: its anchor, how it is recognised, and where it is taught."""

    def __init__(self, heading, aliases, body):
        from myst_parser.mdit_to_docutils.base import default_slugify
        self.heading = heading
        self.anchor = default_slugify(heading.replace("`", ""))
        self.body = body
        see = body[body.rfind("See "):] if "See " in body else ""
        self.taught_at = re.findall(r"\]\(([^)#]+\.(?:ipynb|md)(?:#[^)]*)?)\)", see)
        self.patterns = []          # (kind, compiled pattern)
        for alias in aliases or [heading]:
            alias = alias.strip()
            if alias.startswith("$"):
                self.patterns.append(("math", re.compile(re.escape(alias[1:]) + r"(?![A-Za-z])")))
            elif alias.startswith("`"):
                name = alias.strip("`").removesuffix("()")
                if name.startswith("."):
                    pattern = r"(?<!autograd)" + re.escape(name) + r"(?![\w(])"
                else:
                    pattern = r"(?<![\w])" + re.escape(name) + r"(?![\w])"
                self.patterns.append(("code", re.compile(pattern)))
            else:
                words = r"\s+".join(re.escape(w) for w in alias.split())
                self.patterns.append(("text", re.compile(r"(?<![\w])" + words + r"(?![\w])",
                                                         re.I)))

    def linked_by(self, href):
        href = href.split("/")[-1]
        if href == f"glossary.md#{self.anchor}":
            return True
        for target in self.taught_at:
            if href == target or ("#" not in target and href.split("#")[0] == target):
                return True
        return False

    def taught_on(self, stem):
        return any(t.split("#")[0].rsplit(".", 1)[0] == stem for t in self.taught_at)

    def __repr__(self):
        return f"Term({self.heading!r})"


def glossary_terms():
    terms, heading, aliases, body = [], None, None, []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines() + ["## end"]:
        if line.startswith("#"):
            if heading:
                terms.append(Term(heading, aliases, " ".join(body)))
            heading, aliases, body = None, None, []
            if line.startswith("### "):
                heading = line[4:].strip()
        elif heading and line.startswith("% terms:"):
            aliases = line.split(":", 1)[1].split(",")
        elif heading:
            body.append(line)
    return terms


TERMS = glossary_terms()


def uses(text, kind):
    """[(start, end, term)] of the terms in one piece of text, longest first where two
    overlap ("one-hot seed" is not a use of "seed")."""
    found = [(m.start(), m.end(), t) for t in TERMS for k, p in t.patterns if k == kind
             for m in p.finditer(text)]
    found.sort(key=lambda f: (f[0], f[0] - f[1]))
    kept, end = [], -1
    for f in found:
        if f[0] >= end:
            kept.append(f)
            end = f[1]
    return kept


def unlinked_first_uses(path):
    """The terms whose first use on the page has no link to their entry or teaching
    section in the same paragraph or before it."""
    linked, seen, found = set(), set(), []
    for item in page(path):
        if isinstance(item, Para):
            if item.heading or item.section == "Sources":
                continue
            here = {t for h in item.links() for t in TERMS if t.linked_by(h)}
            for piece in item.pieces:
                if piece.kind == "role":
                    continue
                for _, _, term in uses(piece.content, piece.kind):
                    if term in seen or (piece.href and not term.linked_by(piece.href)):
                        continue        # a title in a link to another page is no use
                    seen.add(term)
                    if term in linked or term in here or term.taught_on(path.stem):
                        continue
                    found.append(f"{item.where()}: “{term.heading}” in "
                                 f"“{' '.join(item.text().split())[:80]}”")
            linked |= here
        else:
            for _, _, term in uses(item.source, "code"):
                if term in seen:
                    continue
                seen.add(term)
                if term not in linked and not term.taught_on(path.stem):
                    found.append(f"{item.where()} (code): “{term.heading}” before any link")
    return found


@pytest.mark.parametrize("path", cases("first use", [pc for pc in PAGES
                                                      if pc[1].stem not in LOOKUP_PAGES]))
def test_the_first_use_of_a_glossary_term_links_to_where_it_is_taught(path):
    found = unlinked_first_uses(path)
    assert found == [], f"{path.name}: {len(found)} terms used first without a link:\n" + \
        "\n".join(found)


# -- the glossary covers the words a newcomer meets -----------------------------------
NEWCOMER_WORDS = {
    # words and symbols the chapters use, as PyTorch users take them for granted
    "text": ["tensor", "autograd", "leaf", "graph", "loss", "weight row", "bias", "target",
             "sigmoid", "gradient descent", "batch", "optimizer", "forward pass", "upstream",
             "downstream", "random seed", "seed", "Jacobian", "vector-Jacobian product",
             "elementwise product", "hook", "rules table",
             # and those the readers' pass found the later chapters use unexplained
             "parameter", "layer", "model", "feature", "evaluation",
             "backpropagation", "pullback", "kernel", "reparameterization trick",
             "batch rule", "TensorFlow", "JAX"],
    "code": ["requires_grad", "x.grad", "y.backward(v)", "grad_fn", "clone()",
             "requires_grad_()", "manual_seed(0)", "no_grad()", "detach()",
             "trace_backward()", "count_passes()", "rulebook", "grad_tensors", "nn.Module"],
    "math": [r"\bar x", r"a \odot b"],
}


@pytest.mark.parametrize("kind, word", [(k, w) for k, ws in NEWCOMER_WORDS.items() for w in ws])
def test_the_glossary_defines_every_word_a_newcomer_meets(kind, word):
    assert [t.heading for _, _, t in uses(word, kind)], f"no glossary entry recognises {word!r}"


def test_the_random_seed_is_told_apart_from_backwards_seed_where_manual_seed_first_appears():
    """Where ``manual_seed`` first appears in reading order, the text before it says that
    this is the random seed and links to backward's seed, which it is not."""
    for _, path in PAGES:
        items = page(path)
        for k, item in enumerate(items):
            if isinstance(item, Code) and "manual_seed" in item.source:
                before = [p for p in items[:k] if isinstance(p, Para)][-3:]
                text = " ".join(p.text() for p in before)
                links = [h for p in before for h in p.links()]
                assert "random seed" in text.lower(), f"{path.name}, {item.where()}: {text[-300:]}"
                assert any(h.endswith(("glossary.md#seed", "glossary.md#random-seed"))
                           or "03_backward_gradient_seed" in h for h in links), links
                return
    pytest.fail("no page uses manual_seed")


# -- the introduction's map and promises -------------------------------------------------
def test_the_introductions_map_lists_every_page_of_the_toc_in_order():
    intro = next(path for _, path in PAGES if path.stem == "intro")
    listed = []
    for p in paras(intro):
        if p.section == "Map of the book" and not p.heading:
            listed += [h.split("#")[0].rsplit(".", 1)[0] for h in p.links()[:1]]
    assert listed == [path.stem for _, path in PAGES if path.stem != "intro"]


if __name__ == "__main__":          # every finding of the page checks, allowed ones too
    import sys
    wanted = sys.argv[1:]
    for _, path in PAGES:
        if wanted and not any(path.stem.startswith(w) for w in wanted):
            continue
        found = {"notation": one_based(path),
                 "glue": unglued_numbers(path) if path.suffix == ".ipynb" else [],
                 "first use": (unlinked_first_uses(path)
                               if path.stem not in LOOKUP_PAGES else [])}
        if path.stem not in ("intro", "errors") and not any(
                h.endswith(NOTATION) for p in paras(path) for h in p.links()):
            found["notation link"] = [f"no link to {NOTATION}"]
        for check, lines in found.items():
            for line in lines:
                print(f"{path.stem} [{check}] {line}")


# -- the checks themselves, on small pages that hold the examples ---------------
def notebook(tmp_path, *cells, name="99_page.ipynb"):
    """A notebook of (kind, source[, output]) cells, written to tmp_path."""
    import json
    out = []
    for kind, source, *printed in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source}
        if kind == "code":
            cell["outputs"] = [{"output_type": "stream", "name": "stdout",
                                "text": printed[0] if printed else ""}]
        out.append(cell)
    path = tmp_path / name
    path.write_text(json.dumps({"cells": out, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}), encoding="utf-8")
    return path


def test_the_notation_check_catches_sums_and_subscripts_that_count_from_1(tmp_path):
    old_01 = notebook(tmp_path, ("markdown", "## The chain rule\n\n"
                                 "$$\\frac{\\partial L}{\\partial W_k} = \\sum_{i=1}^{2} d_i$$"),
                      ("markdown", "With $z_1 = 0.1$ and $z_2 = 0.2$."))
    assert [f.split(": ", 1)[1][:12] for f in one_based(old_01)] == ["a sum from 1", "$z_1$ counts"]
    excused = notebook(tmp_path, ("markdown", "## Two layers\n\n$\\tanh(W_2 \\tanh(W_1 x))$, "
                                  "[numbered from 1](intro.md#notation) as in the paper."),
                       name="98_page.ipynb")
    lone = notebook(tmp_path, ("markdown", "Entry 1 moves towards $y_1 = -2$."),
                    name="97_page.ipynb")
    assert one_based(excused) == [] and one_based(lone) == []


def test_the_glue_check_catches_a_printed_number_typed_into_the_prose(tmp_path):
    """Chapter 06's walk, line by line: the text said [9, 36] and [18, 72] beside a cell
    that printed something else."""
    old_06 = notebook(tmp_path, ("code", "x.grad", "tensor([ 9., 36.])\n"),
                      ("markdown", "Two walks left twice [9, 36] in `x.grad`: [18, 72]."))
    assert [f.split(" in “")[0] for f in unglued_numbers(old_06)] == ["cell 1 line 1: 36"]
    glued = notebook(tmp_path, ("code", "x.grad", "tensor([ 9., 36.])\n"),
                     ("markdown", "One walk left {glue:text}`g1` in `x.grad`."),
                     name="98_page.ipynb")
    by_hand = notebook(tmp_path, ("markdown", "By hand, $9 x^2$ is $[9, 36]$ at $x = [1, 2]$."),
                       ("code", "x.grad", "tensor([ 9., 36.])\n"),
                       ("code", "assert x.grad.tolist() == [9, 36]"), name="97_page.ipynb")
    not_asserted = notebook(tmp_path, ("markdown", "By hand, $9 x^2$ is $[9, 36]$."),
                            ("code", "x.grad", "tensor([ 9., 36.])\n"), name="96_page.ipynb")
    assert unglued_numbers(glued) == [] and unglued_numbers(by_hand) == []
    assert len(unglued_numbers(not_asserted)) == 1


def test_the_first_use_check_wants_a_link_where_a_term_first_appears(tmp_path):
    old = notebook(tmp_path, ("markdown", "The loss falls."), ("code", "x.requires_grad_()"))
    assert [f.split("“")[1].split("”")[0] for f in unlinked_first_uses(old)] == \
        ["Loss", "`requires_grad_()`"]
    linked = notebook(tmp_path, ("markdown", "The [loss](glossary.md#loss) falls; copies are "
                                 "made as in [chapter 01](01_autograd_in_one_sitting.ipynb"
                                 "#cutting-the-graph-detach-no_grad-and-python-control-flow)."),
                      ("code", "x.requires_grad_()"), ("markdown", "The loss falls again."),
                      name="98_page.ipynb")
    assert unlinked_first_uses(linked) == []
