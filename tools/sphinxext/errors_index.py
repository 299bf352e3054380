"""The index of the page of errors, and the page's error finder.

The index lists each entry of book/errors.ipynb (read as data by tests/support/errors_page.py:
the page is parsed in one place) with what it takes to find it and explain it: its
phrasings (its heading, its message as the page shows it, and how PyTorch's other kernels,
autograd_lab where it refuses, JAX and TensorFlow say it, from book/errors_elsewhere.toml),
its cause as plain text, the first fix, and the section that teaches it; plus the matcher's RULES
(autograd_lab/teaching/error_finder.py).

* As a Sphinx extension, it builds the index from the page at each build and puts it,
  with the finder's script (error_finder.js, copied to _static/autograd_lab/), into the
  page of errors: the box the page's first markdown cell holds (``al-error-finder``).
* As a script, ``python3 tools/sphinxext/errors_index.py`` writes the same index to
  autograd_lab/teaching/errors_index.json, the package data ``al.explain()`` reads (the package
  works without the book).  tests/book/test_error_finder.py checks that the committed file
  equals what the page generates now: run this after changing the page.
"""
import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PAGE = "book/errors"
ELSEWHERE = ROOT / "book" / "errors_elsewhere.toml"
PACKAGE_INDEX = ROOT / "autograd_lab" / "teaching" / "errors_index.json"
SCRIPT = "autograd_lab/error_finder.js"

# the TeX of the page's prose, as Unicode (a command and the space after it)
TEX = [(r"\\partial ?", "∂"), (r"\^\\top ?", "ᵀ"), (r"\\cdot", "·"), (r"\\infty", "∞"),
       (r"\\,", ""), (r"_i\b", "ᵢ"), (r"\^x\b", "ˣ")]


def _errors_page():
    if str(ROOT / "tests" / "support") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests" / "support"))
    import errors_page
    return errors_page


def plain(markdown):
    """Markdown of the page as plain text: links as their words, math as Unicode."""
    def math(m):
        text = m.group(1)
        text = re.sub(r"\\sqrt\{([^}]*)\}", r"√\1", text)
        text = re.sub(r"\\text\{([^}]*)\}", r"\1", text)
        for tex, char in TEX:
            text = re.sub(tex, char, text)
        return text
    text = re.sub(r"\$([^$]+)\$", math, markdown)
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    return " ".join(text.split())


def entry_of(entry, elsewhere):
    cause, _, teaches = entry.prose.partition("[Teaches it: ")
    link = re.match(r"(.+?)\]\(([^)]+)\)", teaches)
    assert link, f"{entry.label}: no 'Teaches it' link"
    kind, message = entry.said
    phrasings = [entry.message_start, message]
    # (pytorch: its other kernels' words; autograd_lab: its refusal where torch runs on)
    for framework in ("pytorch", "autograd_lab", "jax", "tensorflow"):
        phrasings += elsewhere.get(framework, [])
    return {"label": entry.label, "heading": entry.heading.strip("`"),
            "group": plain(entry.group.replace("`", "")), "kind": kind, "message": message,
            "phrasings": phrasings, "cause": plain(cause),
            "fix": _errors_page().source(entry.fixes[0]).rstrip(),
            "teaches": {"title": plain(link.group(1)).replace("`", ""), "href": link.group(2)}}


def build_index():
    """The index, from the page as it is now."""
    from autograd_lab.teaching.error_finder import RULES
    entries = _errors_page().entries()
    elsewhere = tomllib.loads(ELSEWHERE.read_text(encoding="utf-8"))
    unknown = set(elsewhere) - {e.label for e in entries}
    assert not unknown, f"{ELSEWHERE.name} names entries the page does not have: {sorted(unknown)}"
    return {"about": "Generated from book/errors.ipynb and book/errors_elsewhere.toml by "
                     "tools/sphinxext/errors_index.py: do not edit.",
            "page": PAGE, "rules": RULES,
            "entries": [entry_of(e, elsewhere.get(e.label, {})) for e in entries]}


def dumps(index):
    return json.dumps(index, ensure_ascii=False, indent=1) + "\n"


# -- in the book's page ------------------------------------------------------------------------
def add_finder(app, pagename, templatename, context, doctree):
    """The page of errors gets the index (a JSON script) and the finder's module."""
    if pagename != PAGE:
        return
    text = json.dumps(build_index(), ensure_ascii=False, separators=(",", ":"))
    if "</script" in text.lower():
        raise ValueError("the index of the page of errors contains '</script'")
    context["body"] = context.get("body", "") + (
        f'<script type="application/json" id="al-error-index">{text}</script>')
    app.add_js_file(SCRIPT, type="module")


def copy_finder(app, exception):
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "_static" / SCRIPT
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((HERE / "error_finder.js").read_text(encoding="utf-8"), encoding="utf-8")


def setup(app):
    app.connect("html-page-context", add_finder)
    app.connect("build-finished", copy_finder)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    PACKAGE_INDEX.write_text(dumps(build_index()), encoding="utf-8")
    print(f"wrote {PACKAGE_INDEX.relative_to(ROOT)}")
