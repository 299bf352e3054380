"""The book's build settings, proven on two small throwaway books built with our _config.yml.

- a cell tagged `raises-exception` may raise; any other raising cell fails the build;
- warnings are errors (-W);
- an explorer (an ipywidget with a static PNG beside it) reaches the page as a picture with
  its alt text, with no widget state and no widget JavaScript;
- math is left for the site's own MathJax.
"""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from book_site import ROOT

nbformat = pytest.importorskip("nbformat")
bs4 = pytest.importorskip("bs4")
JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"
pytestmark = [
    pytest.mark.slow_build,
    pytest.mark.skipif(not JUPYTER_BOOK.exists(), reason="jupyter-book is not installed here"),
]

EXPLORER_CELL = '''\
import base64, io
import ipywidgets
import matplotlib
matplotlib.use("agg")
import matplotlib.pyplot as plt

class TinyExplorer:
    """A slider (live in JupyterLab) with a static picture of its state."""
    def __init__(self, seed):
        self.slider = ipywidgets.IntSlider(value=seed, description="seed")
    def _repr_mimebundle_(self, include=None, exclude=None):
        fig, ax = plt.subplots(figsize=(2, 1), facecolor="white")
        ax.bar([0, 1], [self.slider.value, 1])
        buf = io.BytesIO(); fig.savefig(buf, format="png"); plt.close(fig)
        bundle = dict(self.slider._repr_mimebundle_() or {})
        bundle["image/png"] = base64.b64encode(buf.getvalue()).decode()
        bundle["text/plain"] = f"TinyExplorer(seed={self.slider.value})"
        return bundle, {"image/png": {"alt": f"bar chart of the explorer at seed {self.slider.value}"}}

TinyExplorer(3)'''


def make_book(tmp_path, cells):
    shutil.copy(ROOT / "_config.yml", tmp_path / "_config.yml")
    shutil.copytree(ROOT / "book" / "_static", tmp_path / "book" / "_static")
    shutil.copytree(ROOT / "tools" / "sphinxext", tmp_path / "tools" / "sphinxext",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/index\nchapters:\n  - file: book/page\n")
    (tmp_path / "book" / "index.md").write_text("# A tiny book\n\nInline math $v^\\top J$.\n")
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, tmp_path / "book" / "page.ipynb")


def build(path):
    proc = subprocess.run(
        [str(JUPYTER_BOOK), "build", str(path), "-W", "-n", "--keep-going"],
        capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr


def code(source, *tags):
    return nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)} if tags else {})


def test_a_tagged_raising_cell_builds_and_explorers_render_as_pictures(tmp_path):
    make_book(tmp_path, [
        nbformat.v4.new_markdown_cell("# Page\n\n$$\\bar x = v^\\top J$$"),
        code("raise ValueError('shown on purpose')", "raises-exception"),
        code(EXPLORER_CELL),
        code("print('after the explorer')", "hide-input"),
    ])
    rc, log = build(tmp_path)
    assert rc == 0, log[-3000:]
    html = (tmp_path / "_build" / "html" / "book" / "page.html").read_text()
    doc = bs4.BeautifulSoup(html, "html.parser")
    # the tagged cell's error is on the page, and execution went on past it
    assert "ValueError" in html and "shown on purpose" in html
    assert "after the explorer" in html
    # the explorer became its static picture with its alt text
    imgs = [img for img in doc.find_all("img") if "explorer" in img.get("alt", "")]
    assert [img["alt"] for img in imgs] == ["bar chart of the explorer at seed 3"]
    assert (tmp_path / "_build" / "html" / "book" / imgs[0]["src"]).resolve().is_file()
    # ... and nothing of the live widget came along
    assert "widget-view+json" not in html and "widget-state+json" not in html
    assert "require" not in " ".join(s.get("src", "") for s in doc.find_all("script"))
    assert "TinyExplorer(seed=3)" not in html     # the picture won over the text form
    # hide-input folded the input and kept the output
    assert doc.find("div", class_="tag_hide-input").find("details") is not None
    # math goes to the site's own MathJax
    srcs = [s["src"] for s in doc.find_all("script", src=True) if "mathjax" in s["src"]]
    assert srcs == ["../_static/mathjax/tex-chtml.js"]


def test_an_untagged_raising_cell_fails_the_build(tmp_path):
    make_book(tmp_path, [
        code("x = 1"),
        code("1 / 0"),
    ])
    rc, log = build(tmp_path)
    assert rc != 0
    assert "Executing notebook failed" in log and "ZeroDivisionError" in log
