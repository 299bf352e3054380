"""The framework tabs (tools/frameworks.py): each chapter's tab cell is what the stored
outputs generate, each stored output is what its snippet prints today.

autograd_lab's snippets run here with this Python. The PyTorch, TensorFlow and JAX ones
need the frameworks' own environment (`python3 tools/dev.py frameworks --check` runs
this file there, as CI does); elsewhere they skip with that hint, unless
AUTOGRAD_LAB_REQUIRE_FRAMEWORKS=1 makes a missing framework a failure."""
import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import frameworks as fw  # noqa: E402

HINT = ("the frameworks' outputs are checked in their own environment: "
        "python3 tools/dev.py frameworks --check")
MODULES = {name: module for name, _, module, _ in fw.FRAMEWORKS if module}
HAVE_ALL = all(importlib.util.find_spec(m) is not None for m in MODULES.values())
REQUIRED = os.environ.get("AUTOGRAD_LAB_REQUIRE_FRAMEWORKS") == "1"
RUNS = [(example, name) for example in fw.examples() for name, *_ in fw.FRAMEWORKS]


def test_every_tab_cell_is_what_the_stored_outputs_generate():
    """Fails on a hand edit of a tab cell, a changed snippet or output whose cell was not
    regenerated, an example shown in no chapter or twice; the fix is
    `python3 tools/frameworks.py cells` (or `tools/dev.py frameworks`)."""
    assert fw.sync_cells(write=False) == []


def test_every_example_has_a_snippet_and_an_output_per_framework():
    assert len(fw.examples()) >= 7
    missing = [f"{e}/{n}" for e, n in RUNS
               if not (fw.snippet(e, n).exists() and fw.stored(e, n).exists())]
    assert missing == []


def test_the_snippets_fit_the_column():
    long = [f"{e}/{fw.snippet(e, n).name}: {line}" for e, n in RUNS
            for line in fw.snippet(e, n).read_text(encoding="utf-8").splitlines()
            if len(line) > 72]
    assert long == []


@pytest.mark.parametrize("example, name", RUNS, ids=[f"{e}-{n}" for e, n in RUNS])
def test_a_snippet_prints_its_stored_output(example, name):
    if name != "autograd_lab" and not HAVE_ALL:
        if REQUIRED:
            pytest.fail(f"{MODULES[name]} is not installed in {sys.executable}")
        pytest.skip(HINT)
    got = fw.run_snippet(sys.executable, example, name)
    assert got == fw.stored(example, name).read_text(encoding="utf-8"), (
        f"{fw.snippet(example, name).name} of {example} prints something else than "
        f"{fw.stored(example, name).name}; if the change "
        "is intended: python3 tools/dev.py frameworks")
