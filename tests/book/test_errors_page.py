"""The page of errors and warnings keeps its promises (book/errors.ipynb, read through
tests/support/errors_page.py): enough entries, each headed by its message's first words, raised
by a cell that shows it, explained with a link to the chapter section that teaches it,
and followed by a fix that runs; a list at the top naming every entry; a checklist for a
`.grad` that is None with a two-line check per cause. (nbval checks that each stored
output is what a fresh run prints; tests/torch_parity/test_errors_vs_torch.py compares with PyTorch.)"""
import re

import pytest

from errors_page import checklist, cells, entries, source

ENTRIES = entries()
ONE_SCREEN = 40             # source lines of an entry (code and prose): about one screen


def test_the_page_has_at_least_twenty_entries_with_distinct_labels():
    labels = [e.label for e in ENTRIES]
    assert len(labels) >= 20 and len(set(labels)) == len(labels)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.label for e in ENTRIES])
def test_each_entry_is_headed_by_the_message_it_shows(entry):
    kind, message = entry.said
    assert entry.heading.startswith("`") and entry.heading.endswith("`")
    assert message.startswith(entry.message_start), (entry.heading, message)
    whole = message == entry.message_start
    cut = entry.heading.strip("`").endswith("…")
    assert not (whole and cut), "an ellipsis on a whole message"
    assert whole or cut or message_start_ends_a_sentence(entry), "cut without an ellipsis"
    assert entry.raises or kind.endswith("Warning")


def message_start_ends_a_sentence(entry):
    return entry.message_start.endswith(".")


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.label for e in ENTRIES])
def test_each_entry_explains_links_its_chapter_and_fixes_in_a_cell_that_runs(entry):
    assert re.search(r"\]\(\d\d\w*_\w+\.ipynb#[\w-]+\)", entry.prose), "no link to a chapter's section"
    assert entry.fixes, "no fix"
    for fix in entry.fixes:
        assert "raises-exception" not in fix["metadata"].get("tags", [])
        assert not any(o["output_type"] == "error" for o in fix["outputs"])
    lines = sum(len(source(c).splitlines()) for c in (entry.problem, *entry.fixes))
    lines += len(entry.prose.splitlines()) + 2
    assert lines <= ONE_SCREEN, f"{entry.label}: {lines} lines"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.label for e in ENTRIES])
def test_an_entry_that_shows_a_wrong_fix_says_so(entry):
    """A second fix cell is the first "fix" people reach for, shown to be wrong."""
    if len(entry.fixes) > 1:
        assert re.search(r"\bwrong\b", entry.prose), entry.label


def test_the_list_at_the_top_names_every_entry_once_in_page_order():
    top = source(cells()[0])
    assert re.findall(r"\{ref\}`([\w-]+)`", top) == [e.label for e in ENTRIES]
    assert "(#why-is-my-grad-none)" in top


def test_the_checklist_gives_a_two_line_check_for_each_cause():
    found = checklist()
    assert len(found) >= 8
    for cell in found:
        lines = source(cell).splitlines()
        marks = [k for k, line in enumerate(lines) if line.startswith("# check:")]
        assert len(marks) == 1 and len(lines) - marks[0] - 1 == 2, source(cell)
        assert not any(o["output_type"] == "error" for o in cell["outputs"])
