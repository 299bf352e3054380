"""The chapters as a reader meets them: each read in one sitting, errors shown the way
torch users see them, nothing shown before the chapter that explains it."""
import json
import re

import pytest

from book_site import source_of, toc_docnames

WORD_LIMIT = 2500                     # CHAPTER_STANDARD.md: one sitting
NOTEBOOKS = [p for p in map(source_of, toc_docnames()) if p is not None and p.suffix == ".ipynb"]


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def prose_words(path):
    return sum(len(re.findall(r"\S+", "".join(c["source"]))) for c in cells(path)
               if c["cell_type"] == "markdown")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_chapter_reads_in_one_sitting(path):
    assert prose_words(path) <= WORD_LIMIT, f"{path.name}: {prose_words(path)} words of prose"


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
