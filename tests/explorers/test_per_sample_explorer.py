"""PerSampleExplorer, driven from code: its rows are the per-sample gradients that
``al.func.vmap(al.func.grad(...))`` gives, its picked row is one backward pass with a
one-hot seed, the sum of its rows is ``losses.sum().backward()``; bad input changes
nothing and says why; and the page's own arithmetic (per_sample.js, run by node) gives
the kernel's numbers, digit for digit as shown, or refuses."""
import json

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("ipywidgets")

import autograd_lab as al  # noqa: E402
from autograd_lab import viz, widgets  # noqa: E402
from autograd_lab.teaching.widgets.per_sample import gradients  # noqa: E402
from sigmoid_layer import layer_inputs  # noqa: E402
from test_widgets import check_bundle, page_answers  # noqa: E402

SHOWN = ["z", "y_hat", "losses", "J", "row", "delta", "total"]    # what the view draws


def chapter_batch():
    """Chapter 05's four examples: post 003's two, and two more with their own bias."""
    x, y_true, W, b = layer_inputs(seed=0)
    x4 = al.cat([x, al.tensor([[0.9, 0.1, 0.5], [0.3, 0.7, 0.2]])])
    y4 = al.tensor([[0.0, 1.0, 1.0, 0.0]])
    b4 = al.cat([b.detach(), al.tensor([[0.2, -0.1]])], dim=1)
    return W, x4, y4, b4


def one_loss(W, x_i, y_i, b_i):              # the chapter's function of ONE example
    return ((y_i - al.sigmoid(W @ x_i + b_i)) ** 2).sum()


def explorer(sample=0):
    W, x4, y4, b4 = chapter_batch()
    return widgets.PerSampleExplorer(W, x4, y4, b4, sample=sample)


def vmap_rows(W, x4, y4, b4):
    G = al.func.vmap(al.func.grad(one_loss), in_dims=(None, 0, 0, 0))(W.detach(), x4, y4[0], b4[0])
    return G.reshape(x4.shape[0], -1).numpy()


@pytest.mark.parametrize("sample", range(4))
def test_each_row_is_a_per_sample_gradient_as_vmap_grad_gives_it(sample):
    W, x4, y4, b4 = chapter_batch()
    ex = widgets.PerSampleExplorer(W, x4, y4, b4, sample=sample)
    assert ex.error is None and ex.sample == sample
    J = ex.J.numpy()
    assert J.shape == (4, 3)
    assert np.allclose(J, vmap_rows(W, x4, y4, b4), rtol=1e-5, atol=1e-7)
    assert np.array_equal(ex.row.numpy(), J[sample])                 # the one-hot seed's walk
    assert ex.seed.numpy().tolist() == [float(i == sample) for i in range(4)]
    Wc = W.detach().clone().requires_grad_(True)                     # losses.sum().backward()
    (y4 - al.sigmoid(Wc @ x4.t() + b4)).pow(2).sum().backward()
    assert np.array_equal(ex.total.numpy(), Wc.grad.numpy().reshape(3))
    assert np.allclose(ex.total.numpy(), J.sum(0), rtol=1e-5, atol=1e-7)
    assert W.grad is None                                            # the reader's W untouched


def test_the_first_two_rows_are_the_chapters_jacobian_and_row_i_is_delta_i_times_x_i():
    ex = explorer(sample=2)
    assert viz.nested(ex.J.numpy()[:2], viz.num) == "[[0.028, 0.0559, 0.0839], [-0.1025, -0.1538, -0.2051]]"
    W, x4, y4, b4 = (t.detach().numpy().astype(np.float64) for t in chapter_batch())
    y_hat = 1 / (1 + np.exp(-(W @ x4.T + b4)))                       # (1, 4), in float64
    delta = (2 * (y_hat - y4) * y_hat * (1 - y_hat)).reshape(4)
    assert np.allclose(ex.J.numpy(), delta[:, None] * x4, rtol=1e-5)
    assert ex.delta == pytest.approx(delta[2], rel=1e-5)
    assert np.allclose(ex.losses.numpy(), ((y4 - y_hat) ** 2).reshape(4), rtol=1e-5)


def test_moving_an_examples_inputs_moves_its_row_only_and_the_weights_move_every_row():
    ex = explorer(sample=1)
    before = ex.J.numpy()
    ex.set_x(1, [1.0, -0.5, 2.0])
    ex.set_y(1, 0.25)
    after = ex.J.numpy()
    assert ex.error is None
    assert np.array_equal(after[[0, 2, 3]], before[[0, 2, 3]]) and not np.allclose(after[1], before[1])
    W, x4, y4, b4 = chapter_batch()
    x4 = al.tensor(np.vstack([x4.numpy()[:1], [[1.0, -0.5, 2.0]], x4.numpy()[2:]]).astype(np.float32))
    y4 = al.tensor([[0.0, 0.25, 1.0, 0.0]])
    assert np.allclose(after, vmap_rows(W, x4, y4, b4), rtol=1e-5, atol=1e-7)
    ex.W = [[1.0, -2.0, 0.5]]
    assert ex.W.numpy().tolist() == [[1.0, -2.0, 0.5]]
    assert not np.isclose(ex.J.numpy(), after).any(axis=1).all()
    assert np.allclose(ex.J.numpy(), vmap_rows(al.tensor([[1.0, -2.0, 0.5]]), x4, y4, b4), rtol=1e-5, atol=1e-7)
    ex.reset()
    assert np.array_equal(ex.J.numpy(), before) and ex.sample == 1


@pytest.mark.parametrize("msg, words", [
    ({"set": "x2", "value": ["nan", 0, 0]}, "x₂[0] = nan: only finite numbers are taken"),
    ({"set": "x2", "value": [0, "-inf", 0]}, "x₂[1] = -inf: only finite numbers are taken"),
    ({"set": "y2", "value": "inf"}, "y₂ = inf: only finite numbers are taken"),
    ({"set": "W", "value": [1, 2, 1e7]}, "w₂ = 1e7 is beyond ±1,000,000"),
    ({"set": "W", "value": [1, 2]}, "expected 3 numbers, got 2"),
    ({"set": "x2", "value": ""}, "could not read ''"),
    ({"set": "y2", "value": "abc"}, "could not read 'abc'"),
    ({"set": "sample", "value": 7}, "there is no example 7: pick 0 to 3"),
    ({"set": "sample", "value": 1.5}, "there is no example 1.5"),
    ({"set": "x9", "value": [0, 0, 0]}, "does not know the message"),
])
def test_bad_input_changes_nothing_and_says_why(msg, words):
    ex = explorer(sample=2)
    state = dict(ex.state)
    ex._on_view(None, msg, None)                       # as the view sends it: never raises
    assert words in ex.error and words in ex.state["error"]
    assert ex.state["n"] == state["n"] + 1             # one redraw, which shows the problem
    assert {k: ex.state[k] for k in SHOWN + ["x", "y", "W", "sample"]} == \
        {k: state[k] for k in SHOWN + ["x", "y", "W", "sample"]}
    assert "nan" not in json.dumps({k: ex.state[k] for k in SHOWN})
    ex.sample = 0                                      # and the next change is taken
    assert ex.error is None and ex.sample == 0


def test_its_page_bundle_and_picture_carry_the_numbers():
    ex = explorer(sample=2)
    bundle = check_bundle(ex)
    alt = viz.alt_text(ex.figure())
    for numbers in ("[-0.1432, -0.0159, -0.0795]", "[0.074, 0.1726, 0.0493]", "[-0.1438, 0.0588, -0.1514]"):
        assert numbers in alt
    assert "losses.sum().backward()" in alt and "one-hot seed [0., 0., 1., 0.]" in alt
    assert "row 2 = [-0.1432, -0.0159, -0.0795]" in bundle["text/plain"]


def close(page, kernel, where, digits=True, reorder=0.0):
    """The page's numbers are the kernel's: within a few float32 ulps of the largest entry
    of each quantity, and (``digits``) the same digits where the view shows them.
    ``reorder``: how far z may move when BLAS adds the dot products of W @ x.t() in another
    order (the page's note says so); z may differ by that, what follows from z by as much
    relative to its size (sigmoid and its slope change by at most |dz| relatively)."""
    for name in SHOWN:
        got = np.asarray(page[name], dtype=np.float32).reshape(-1)
        want = np.asarray(kernel[name], dtype=np.float32).reshape(-1)
        scale = max(float(np.abs(want).max()), 1e-30)
        slack = reorder if name == "z" else 4 * reorder * scale
        assert np.abs(got - want).max() <= 1e-5 * scale + slack, f"{where}, {name}: {got} != {want}"
        if digits:
            assert [viz.num(float(v)) for v in got] == [viz.num(float(v)) for v in want], f"{where}, {name}"


MESSAGES = [{"set": "sample", "value": 0}, {"set": "x0", "value": [0.5, -1.25, 2.0]},
            {"set": "y0", "value": 0.75}, {"set": "W", "value": [2.0, -1.0, 0.3]},
            {"set": "x0", "value": ["nan", 0, 0]}, {"set": "W", "value": [1, 1, 1e7]},
            {"set": "sample", "value": 3}, {"set": "x3", "value": [1e6, 0, 0]},
            {"set": "x3", "value": [-1e6, 3, 0]}, {"set": "y3", "value": "-inf"},
            {"set": "sample", "value": 9}, {"set": "W", "value": [1, 2]}, {"set": "y1", "value": [1, 2]},
            {"set": "x1", "value": [1, 2, 3, 4]}, {"do": "reset"}, {"set": "sample", "value": 1}]


def test_the_page_answers_every_message_as_the_kernel_does(tmp_path):
    ex = explorer(sample=2)
    for k, (msg, page) in enumerate(zip(MESSAGES, page_answers(ex, MESSAGES, tmp_path))):
        ex._on_view(None, msg, None)
        where = f"after {MESSAGES[:k + 1]}"
        assert page["sample"] == ex.state["sample"] and page["n"] == ex.state["n"], where
        assert page["error"] == ex.error, where          # the same words, or both None
        for name in ("W", "x", "y"):
            assert page[name] == ex.state[name], f"{where}, {name}"
        close(page, ex.state, where)


def test_the_pages_float32_formula_is_autograd_labs_on_random_inputs(tmp_path):
    """Seeded random weights, inputs and targets, small to ±1e6: the page draws the
    kernel's numbers, digit for digit, or (where the last bit of float32's exp, or the order
    of a dot product whose terms cancel, decides a
    shown digit) the same numbers to a few ulps, with a note saying a last digit may differ."""
    ex = explorer()
    rng = np.random.default_rng(7)
    cases, messages = [], []
    for t in range(150):
        scale = [0.3, 1, 3, 10, 100, 1e4][t % 6]
        W = np.clip(rng.standard_normal(3) * scale, -1e6, 1e6).astype(np.float32)
        x = np.clip(rng.standard_normal((4, 3)) * scale, -1e6, 1e6).astype(np.float32)
        y = rng.standard_normal(4).astype(np.float32)
        cases.append((W, x, y, t % 4))
        messages += [{"set": "W", "value": W.tolist()}, {"set": "sample", "value": t % 4}]
        messages += [{"set": f"x{i}", "value": x[i].tolist()} for i in range(4)]
        messages += [{"set": f"y{i}", "value": float(y[i])} for i in range(4)]
    answers = page_answers(ex, messages, tmp_path)
    bias = np.asarray(ex.spec["b"], dtype=np.float32)
    exact = 0
    for t, (W, x, y, sample) in enumerate(cases):
        group = answers[10 * t:10 * (t + 1)]
        assert all(a["error"] is None for a in group), [a["error"] for a in group]
        last = group[-1]
        assert last["W"] == W.tolist() and last["x"] == x.tolist() and last["y"] == y.tolist()
        assert last["note"] in (None, LAST_BIT), last["note"]
        with np.errstate(all="ignore"):
            r = gradients(W, x, y, bias, sample)
        noted = last["note"] is not None         # the most another order of each z's sum can move it
        reorder = 2 * 2.0 ** -24 * float(np.abs(x * W).sum(axis=1).max()) if noted else 0.0
        close(last, {k: getattr(r, k) for k in SHOWN}, f"case {t}", digits=not noted, reorder=reorder)
        exact += last["note"] is None
    assert exact >= 120, f"only {exact} of {len(cases)} cases drawn without the note"
    print(f"{exact} of {len(cases)} drawn without the note")


LAST_BIT = ("Some last digits here depend on how float32 rounds exp or a sum whose terms cancel, "
            "which libraries and CPUs do differently: the notebook's may differ in the last digit.")


def test_ordinary_inputs_are_drawn_not_refused(tmp_path):
    """Inputs a reader types or drags to (a zero, a tiny or a large number, a slider's
    stop) are drawn; nan and inf are refused naming what they would spoil."""
    ex = explorer(sample=2)
    messages = [{"set": "x2", "value": [v, 0.2, 0.3]} for v in (0, 1e-6, 1e-10, 123456)]
    messages += [{"set": "W", "value": [w, 0.5, 0.5]} for w in (-0.1, 1.3, 1.7)]
    messages += [{"set": "x2", "value": ["inf", 0, 0]}, {"set": "W", "value": [0, "nan", 0]}]
    answers = page_answers(ex, messages, tmp_path)
    assert [a["error"] for a in answers[:7]] == [None] * 7
    assert answers[7]["error"] == ("x₂[0] = inf: only finite numbers are taken (with nan or inf row 2 "
                                   "and Σ rows would be nan)")
    assert answers[8]["error"] == "w₁ = nan: only finite numbers are taken (with nan or inf every row would be nan)"
    for msg, page in zip(messages, answers):
        ex._on_view(None, msg, None)
        assert ex.error == page["error"]
