"""Where the book lives and what is in it: paths and the table of contents, shared by
the tests (imported by name, as conftest.py modules are not meant to be imported)."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
SANITIZE = Path(__file__).resolve().parents[1] / "sanitize.cfg"
BUILD_HINT = "build the book first: python3 tools/dev.py book"


def require_or_skip(problem, flag):
    """Skip a test whose prerequisite is missing, or fail it when the environment variable
    ``flag`` is "1" (``tools/dev.py test`` and ``.ci/run`` set the flags they require)."""
    import pytest
    if os.environ.get(flag) == "1":
        pytest.fail(problem, pytrace=False)
    pytest.skip(problem)


def toc_path():
    return Path(os.environ.get("AUTOGRAD_LAB_TOC") or ROOT / "_toc.yml")


def toc_docnames(path=None):
    """Docnames ('book/intro', ...) of the table of contents, in reading order.

    Reads the `root:` and `- file:` lines of the toc (the form _toc.yml uses), so that
    collecting the tests needs no YAML library."""
    names = []
    for line in Path(path or toc_path()).read_text().splitlines():
        key, _, value = line.strip().removeprefix("- ").partition(":")
        value = value.split("#")[0].strip().strip("'\"")
        if key in ("root", "file") and value:
            names.append(value.removesuffix(".ipynb").removesuffix(".md"))
    return names


def source_of(docname):
    for ext in (".ipynb", ".md"):
        if (ROOT / f"{docname}{ext}").exists():
            return ROOT / f"{docname}{ext}"
    return None
