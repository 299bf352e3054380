"""The README fits a screen (at most 800 words), its two commands are the ones CI runs,
its picture exists, and its map of what lives where names folders that exist."""
import re
import shlex
import sys

import pytest

from book_site import ROOT

README = ROOT / "README.md"
WORD_LIMIT = 800

sys.path.insert(0, str(ROOT / "tools"))
import dev  # noqa: E402


def text():
    return README.read_text(encoding="utf-8")


def code_blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", text(), flags=re.S)


def commands():
    """The quick start's commands: the README's first bash block, comments aside."""
    block = code_blocks("bash")[0]
    return [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]


def test_the_readme_is_at_most_800_words():
    words = len(text().split())
    assert words <= WORD_LIMIT, f"README.md has {words} words; at most {WORD_LIMIT}"


def test_the_two_commands_build_the_book_and_run_the_tests(monkeypatch):
    assert commands() == ["python3 tools/dev.py book", "python3 tools/dev.py test"]
    ran = []
    for name in ("cmd_book", "cmd_test"):      # tools/dev.py's parser picks them, nothing runs
        monkeypatch.setattr(dev, name, lambda args, name=name: ran.append(name) or 0)
    for command in commands():
        dev.main(shlex.split(command)[2:])
    assert ran == ["cmd_book", "cmd_test"]


def ci_lines():
    return [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]


def test_ci_runs_the_readmes_test_command_as_written():
    book, test = commands()
    assert test in ci_lines()
    # and the test command builds the book as the book command does, before its tests
    assert "build_book" in dev.cmd_test.__code__.co_names
    assert "build_book" in dev.cmd_book.__code__.co_names


def test_the_readmes_picture_exists():
    pictures = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", text())
    assert len(pictures) == 1
    assert (ROOT / pictures[0]).is_file(), pictures[0]


def test_the_map_names_folders_that_exist():
    section = text().split("## What lives where", 1)[1]
    block = re.search(r"```\n(.*?)```", section, flags=re.S).group(1)
    parent, named = None, []
    for line in block.splitlines():
        first = line.split()[0] if line.strip() else ""
        if not (first.endswith("/") or first == ".ci/run"):
            continue
        if line.startswith(" "):
            path = ROOT / parent / first
        else:
            parent = first
            path = ROOT / first
        named.append(path)
        assert path.exists(), f"the README's map names {path.relative_to(ROOT)}, which is not there"
    assert {"core", "teaching"} <= {p.name for p in named}


def test_the_readme_links_to_contributing():
    assert "(CONTRIBUTING.md)" in text() and (ROOT / "CONTRIBUTING.md").is_file()


@pytest.mark.parametrize("layer", ["core", "torch_parity", "book", "explorers", "support"])
def test_every_layer_of_the_tests_is_described_in_contributing(layer):
    assert f"tests/{layer}/" in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
