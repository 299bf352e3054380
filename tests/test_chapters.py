"""The chapters as a reader meets them: each read in one sitting, errors shown the way
torch users see them, nothing shown before the chapter that explains it."""
import json
import re

import pytest

from book_site import source_of, toc_docnames

WORD_LIMIT = 2500                     # CHAPTER_STANDARD.md: one sitting
CODE_WIDTH = 80                       # the text column shows about 84 characters of code
PAGES = [p for p in map(source_of, toc_docnames()) if p is not None]
NOTEBOOKS = [p for p in PAGES if p.suffix == ".ipynb"]
# pages looked up, not read through (like the glossary): no word limit, no exercises
LOOKUP_PAGES = {"errors"}
CHAPTERS = [p for p in NOTEBOOKS if p.stem not in LOOKUP_PAGES]


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def prose_words(path):
    return sum(len(re.findall(r"\S+", "".join(c["source"]))) for c in cells(path)
               if c["cell_type"] == "markdown")


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_chapter_reads_in_one_sitting(path):
    assert prose_words(path) <= WORD_LIMIT, f"{path.name}: {prose_words(path)} words of prose"


def code_lines(path):
    """(where, line) for every line of code a page shows: code cells of a notebook, fenced
    blocks of a Markdown page."""
    if path.suffix == ".ipynb":
        return [(f"cell {k}", line) for k, c in enumerate(cells(path)) if c["cell_type"] == "code"
                for line in "".join(c["source"]).splitlines()]
    found, fence = [], None
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        mark = re.match(r"\s*(```+|~~~+)", line)
        if mark and (fence is None or mark.group(1).startswith(fence)):
            fence = None if fence else mark.group(1)
        elif fence:
            found.append((f"line {n}", line))
    return found


@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_code_fits_the_text_column_without_scrolling(path):
    """A longer line is cut off at the column's edge in the page (it scrolls sideways): the
    end of a comment, an argument, a closing bracket go unseen."""
    long = [f"{where}: {line}" for where, line in code_lines(path) if len(line) > CODE_WIDTH]
    assert long == [], f"{path.name}: lines over {CODE_WIDTH} characters:\n" + "\n".join(long)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_an_error_shows_its_exception_line_not_the_engines_frames(path):
    """Every chapter shows an error as torch users see it last: the exception line (the
    chapter's first cell sets IPython's minimal tracebacks), never frames from inside the
    package."""
    for k, cell in enumerate(cells(path)):
        for out in cell.get("outputs", []):
            if out.get("output_type") != "error":
                continue
            text = "\n".join(out.get("traceback", []))
            plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
            assert "autograd_lab/" not in plain and "File " not in plain and "Traceback" not in plain, \
                f"{path.name}, cell {k}: {plain[:300]}"


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.stem < "06"], ids=lambda p: p.stem)
def test_no_rule_is_printed_before_the_chapter_that_explains_ops(path):
    for k, cell in enumerate(cells(path)):
        shown = "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                        for o in cell.get("outputs", []))
        assert not re.search(r"\bOp\(|<Op |vjp=\(|lambda g, y", shown), f"{path.name}, cell {k}"


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_exercise_keeps_its_solution_behind_one_toggle(path):
    """One folded cell per exercise (in the book: labelled "Show the solution"; in
    JupyterLab: its source hidden), holding the reasoning and the code the check below it
    asserts; no second copy in a dropdown."""
    exercise, solutions = None, {}
    for k, cell in enumerate(cells(path)):
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            assert not re.search(r"\{dropdown\}.*Solution", text), f"{path.name}, cell {k}"
            heading = re.search(r"^#+ .*\bExercise\b.*$|^\*\*Exercise\b.*?\*\*", text, re.M)
            if heading:
                exercise = heading.group(0)
                solutions[exercise] = 0
            elif re.match(r"#+ ", text):
                exercise = None
            continue
        if "hide-cell" in cell.get("metadata", {}).get("tags", []):
            prompt = cell["metadata"].get("mystnb", {}).get("code_prompt_show")
            assert prompt == "Show the solution", f"{path.name}, cell {k}: a hide-cell that is not a solution"
            folded = cell["metadata"].get("jupyter", {}).get("source_hidden")
            assert folded, f"{path.name}, cell {k}: the solution is open in JupyterLab"
            assert exercise is not None, f"{path.name}, cell {k}: a solution outside an exercise"
            solutions[exercise] += 1
    assert solutions and all(n == 1 for n in solutions.values()), f"{path.name}: {solutions}"

