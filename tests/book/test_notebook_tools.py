"""The notebook tooling: the refresh script and the nbval sanitizer."""
import re
import sys

import pytest

from book_site import ROOT, SANITIZE

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
sys.path.insert(0, str(ROOT / "tools"))
import refresh_notebooks  # noqa: E402


def sanitized(text):
    from nbval.plugin import get_sanitize_patterns

    for regex, replace in get_sanitize_patterns(SANITIZE.read_text()):
        text = re.sub(regex, replace, text)
    return text


def test_sanitizer_hides_memory_addresses_and_figure_sizes_but_keeps_the_numbers():
    pytest.importorskip("nbval")
    a = "<function f at 0x7f3a2b1c9d90> <Figure size 640x480 with 2 Axes> tensor([5., 8.])"
    b = "<function f at 0x7fe01c2d0e50> <Figure size 420x300 with 2 Axes> tensor([5., 8.])"
    assert sanitized(a) == sanitized(b)
    assert "with 2 Axes" in sanitized(a) and "tensor([5., 8.])" in sanitized(a)
    assert sanitized("tensor([5., 8.])") != sanitized("tensor([5., 9.])")
    assert sanitized("<Figure size 640x480 with 1 Axes>") != sanitized(
        "<Figure size 640x480 with 2 Axes>")


def test_sanitizer_hides_widget_model_ids_and_inline_pictures():
    pytest.importorskip("nbval")
    one = "IntSlider(value=3) model_id='0123456789abcdef0123456789abcdef'"
    two = "IntSlider(value=3) model_id='fedcba9876543210fedcba9876543210'"
    assert sanitized(one) == sanitized(two)
    assert sanitized('<img src="data:image/png;base64,iVBORw0K" alt="J">') == sanitized(
        '<img src="data:image/png;base64,AAAAAAAA" alt="J">')
    assert sanitized('<img alt="J">') != sanitized('<img alt="K">')


def _notebook(tmp_path, cells):
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {"x": {}}}}
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    return path


def test_refresh_executes_in_place_keeps_tags_and_drops_widget_state(tmp_path):
    path = _notebook(tmp_path, [
        nbformat.v4.new_code_cell("import ipywidgets\nw = ipywidgets.IntSlider(value=4)\nw",
                                  metadata={"tags": ["hide-input"], "collapsed": True}),
        nbformat.v4.new_code_cell("raise ValueError('on purpose')",
                                  metadata={"tags": ["raises-exception"]}),
        nbformat.v4.new_code_cell("print(w.value * 2)"),
    ])
    refresh_notebooks.refresh(path, timeout=60)
    nb = nbformat.read(path, as_version=4)
    assert "widgets" not in nb.metadata
    assert [c.metadata.get("tags") for c in nb.cells] == [["hide-input"], ["raises-exception"], None]
    assert "collapsed" not in nb.cells[0].metadata
    assert [c.execution_count for c in nb.cells] == [1, 2, 3]
    assert nb.cells[1].outputs[0].ename == "ValueError"
    assert nb.cells[2].outputs[0].text == "8\n"


def test_a_second_refresh_keeps_the_widgets_model_ids_and_so_the_file(tmp_path):
    path = _notebook(tmp_path, [nbformat.v4.new_code_cell("import ipywidgets\nipywidgets.IntSlider(value=4)")])
    refresh_notebooks.refresh(path, timeout=60)
    first = path.read_text()
    assert list(refresh_notebooks.widget_ids(nbformat.reads(first, as_version=4)).values())[0]   # a widget
    refresh_notebooks.refresh(path, timeout=60)
    assert path.read_text() == first          # a new run draws a new random id: kept as it was


def test_refresh_stops_at_an_untagged_error_and_leaves_the_file_alone(tmp_path):
    path = _notebook(tmp_path, [nbformat.v4.new_code_cell("1 / 0")])
    before = path.read_text()
    from nbclient.exceptions import CellExecutionError

    with pytest.raises(CellExecutionError, match="ZeroDivisionError"):
        refresh_notebooks.refresh(path, timeout=60)
    assert path.read_text() == before
