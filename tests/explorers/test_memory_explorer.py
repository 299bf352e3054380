"""MemoryExplorer, driven from code: its timeline is count_saved's for a real training step
of chapter 05c's MLP (the benchmark's numbers, the chapter's formula for the forward);
odd input changes nothing and says why; and the page's own timeline (memory.js, run by
node on the page bundle) is the kernel's, step by step, for many settings."""
import itertools
import random
import sys

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("ipywidgets")

import matplotlib.pyplot as plt  # noqa: E402

from autograd_lab import viz, widgets  # noqa: E402
from autograd_lab.teaching.widgets.memory import timeline  # noqa: E402
from explorer_driver import ROOT  # noqa: E402
from test_widgets import check_bundle, page_answers  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import bench_memory  # noqa: E402

SHOWN = ["checkpointed", "batch", "width", "dtype", "steps", "kept", "peak", "plain", "error"]


def shown(state):
    return {k: state[k] for k in SHOWN}


@pytest.mark.parametrize("checkpointed", [(), (1,), (0, 1, 2)])
def test_the_timeline_is_count_saveds_for_the_benchmarks_model(checkpointed):
    """The benchmark runs the chapter's model (width 256, batch 128, float32) on its own:
    the same bytes after the forward and the same peak."""
    r = timeline(256, 128, checkpointed, "float32")
    assert (r["kept"], r["peak"]) == bench_memory.measure(True, checkpointed)


@pytest.mark.parametrize("width, batch", [(1, 1), (8, 3), (256, 128), (512, 512)])
def test_the_forward_keeps_one_activation_per_layer_and_checkpointing_keeps_block_inputs(width, batch):
    a, out = 4 * batch * width, 4 * batch * 10           # float32: 4 bytes a number
    plain = timeline(width, batch, (), "float32")
    assert plain["kept"] == 6 * a + out                  # six ReLU outputs and the loss's input
    every = timeline(width, batch, (0, 1, 2), "float32")
    assert every["kept"] == 3 * a + out                  # blocks 1 and 2's inputs, the last output
    phases = [s[3] for s in every["steps"]]
    assert phases.count("f") == 21 and phases.count("b") == 21   # 7 Linear, 6 ReLU, the loss
    assert phases.count("r") == 3 * 5                    # each block again, up to its last ReLU
    assert every["peak"] <= plain["peak"]
    if batch >= 128:          # (on small batches the weights' gradients, which no checkpoint
        assert every["peak"] < plain["peak"]          # changes, set the peak)
    double = timeline(width, batch, (0, 1, 2), "float64")
    assert [s[1:3] for s in double["steps"]] == [[2 * s[1], 2 * s[2]] for s in every["steps"]]


def test_the_explorer_shows_both_steps_and_reads_like_its_numbers():
    ex = widgets.MemoryExplorer(checkpointed=(1,), batch=128, width=256)
    assert ex.error is None
    r, plain = timeline(256, 128, (1,)), timeline(256, 128, ())
    assert (ex.kept, ex.peak, ex.steps) == (r["kept"], r["peak"], r["steps"])
    assert ex.plain == plain
    assert ex.summary() == ("MemoryExplorer: batch 128, width 256, float32, block 1 checkpointed: "
                            f"saved after the forward {r['kept']:,} bytes, peak {r['peak']:,} bytes "
                            f"(no checkpointing: {plain['kept']:,} and {plain['peak']:,})")
    alt = viz.alt_text(ex.figure())
    assert plt.get_fignums() == [], "a pyplot figure: the notebook would show it a second time"
    for number in (r["kept"], r["peak"], plain["peak"]):
        assert f"{number:,} bytes" in alt
    check_bundle(ex)
    ex.checkpointed = []
    assert ex.steps == plain["steps"] and ex.plain == plain and ex.checkpointed == ()


ODD = ["", "abc", "nan", "inf", "-inf", "-3", 0, 513, 2.5, 1e9, "1e400", "--2", None, True]


@pytest.mark.parametrize("name", ["batch", "width"])
def test_odd_input_changes_nothing_and_says_why(name):
    ex = widgets.MemoryExplorer(checkpointed=(0,), batch=4, width=8)
    before = shown(ex.state)
    for value in ODD:
        setattr(ex, name, value)
        assert ex.error is not None and ex.error.startswith(f"{name}: "), (value, ex.error)
        assert "from 1 to 512" in ex.error, ex.error
        assert {k: ex.state[k] for k in SHOWN if k != "error"} == \
            {k: before[k] for k in SHOWN if k != "error"}, value
    assert widgets.MemoryExplorer(batch=4, width=8).error is None
    for value in ([3], ["a"], [0.5], 1, None, [True], ["1"]):
        ex.checkpointed = value
        assert ex.error.startswith("checkpointed: a list of block numbers from 0 to 2"), ex.error
    ex.dtype = "float16"
    assert ex.error == "dtype: float32 or float64, not 'float16'"
    ex._on_view(None, {"set": "depth", "value": 3}, None)
    assert "does not know the message" in ex.error
    assert {k: ex.state[k] for k in SHOWN if k != "error"} == {k: before[k] for k in SHOWN if k != "error"}
    ex.batch = "12"                                      # text that is a whole number is taken
    assert ex.error is None and ex.batch == 12


def settings(count, seed=0):
    """Messages that move every control: each block ticked and not, batches and widths
    from 1 to 512 (the limits included), both dtypes; then odd values."""
    rng = random.Random(seed)
    blocks = [list(c) for r in range(4) for c in itertools.combinations(range(3), r)]
    out = [{"set": "checkpointed", "value": b} for b in blocks]
    out += [{"set": "batch", "value": 1}, {"set": "width", "value": 512}, {"set": "batch", "value": 512},
            {"set": "width", "value": 1}, {"set": "dtype", "value": "float64"}]
    for _ in range(count):
        name = rng.choice(["checkpointed", "batch", "width", "dtype", "batch", "width"])
        value = {"checkpointed": lambda: rng.choice(blocks), "dtype": lambda: rng.choice(["float32", "float64"])
                 }.get(name, lambda: rng.randint(1, 512))()
        out.append({"set": name, "value": value})
    out += [{"set": "batch", "value": v} for v in ("", "abc", "nan", "inf", "-3", "0", "2.5", "1e9", "513")]
    out += [{"set": "width", "value": -1}, {"set": "checkpointed", "value": [4]},
            {"set": "dtype", "value": "int8"}, {"set": "depth", "value": 2}]
    return out


def test_the_pages_timeline_is_the_kernels_step_by_step(tmp_path):
    """memory.js works the timeline out from the sizes alone; after every message its state
    (each step's name, bytes and phase, the peak, the step with no checkpointing, or the
    refusal's words) is the kernel's, which ran the step for real."""
    ex = widgets.MemoryExplorer(checkpointed=(1,), batch=16, width=24)
    messages = settings(40)
    answers = page_answers(ex, messages, tmp_path)
    for msg, page in zip(messages, answers):
        ex._on_view(None, msg, None)
        assert shown(page) == shown(ex.state), msg
    assert sum(a["error"] is not None for a in answers) == 13
