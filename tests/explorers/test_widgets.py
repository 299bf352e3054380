"""The explorers, driven from code: their numbers equal direct autograd_lab computations,
bad input is shown (never raised), and each has a static picture for the page."""
import base64
import itertools
import json
import re

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
pytest.importorskip("ipywidgets")

import autograd_lab as al  # noqa: E402
from autograd_lab import viz, widgets  # noqa: E402
from autograd_lab.teaching.widgets._base import PAGE_MIME  # noqa: E402
from sigmoid_layer import layer_inputs  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
M = al.tensor([[1., 2.], [3., 4.]])


def mm(x):
    return x @ M


def x_mm():
    return al.tensor([[2., 1.]], requires_grad=True)


def sigmoid_losses():
    """The 003 layer as a function of W (x, y_true and b fixed)."""
    X, y_true, W, b = layer_inputs(seed=0)
    return (lambda W: (y_true - al.sigmoid(W @ X.t() + b)) ** 2), W, b


def direct_backward(fn, x, seed):
    xc = al.tensor(x.detach().numpy().copy(), requires_grad=True)
    fn(xc).backward(al.tensor(np.asarray(seed, dtype=np.float32)))
    return xc.grad.numpy()


def texts(fig):
    out = [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        out += [t.get_text() for t in ax.texts]
    return " ".join(" ".join(out).split())


def check_bundle(ex):
    b, meta = ex._repr_mimebundle_()
    assert set(b) == {"application/vnd.jupyter.widget-view+json", "image/png", "text/plain", PAGE_MIME}
    page = b[PAGE_MIME]                                       # what the book's page hosts
    assert page["module"] == ex.kind and page["spec"] == ex.spec and page["state"] == ex.state
    json.dumps(page, allow_nan=False)                         # plain JSON: no NaN, no arrays
    assert base64.b64decode(b["image/png"]).startswith(PNG_MAGIC)
    assert len(meta["image/png"]["alt"]) > 30                 # the book puts it on the <img>
    assert not re.search(r"0x[0-9a-f]{6,}|[0-9a-f]{32}", b["text/plain"])   # no addresses, no model ids
    assert b["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert "image/png" not in ex._repr_mimebundle_(exclude=["image/png"])[0]
    return b


# -- SeedExplorer ---------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [[[1., 0.]], [[0., 1.]], [[1., 1.]], [[0.5, -2.]], [[3., 0.25]]])
def test_seed_explorer_grad_is_a_real_backward_and_equals_v_times_J(seed):
    x = x_mm()
    ex = widgets.SeedExplorer(mm, x)
    ex.seed = seed
    assert ex.error is None
    assert np.allclose(ex.grad.numpy(), direct_backward(mm, x, seed))
    J = ex.jacobian.numpy().reshape(2, 2)
    assert np.allclose(ex.grad.numpy().reshape(-1), np.asarray(seed).reshape(-1) @ J)
    assert x.grad is None                                    # the reader's x is left alone


def test_seed_explorer_reproduces_the_blog_post_numbers():
    ex = widgets.SeedExplorer(mm, x_mm())
    got = {}
    for name in ["one-hot (0, 0)", "one-hot (0, 1)", "ones"]:
        ex.use_preset(name)
        got[name] = ex.grad.numpy().tolist()
    assert got == {"one-hot (0, 0)": [[1., 3.]], "one-hot (0, 1)": [[2., 4.]], "ones": [[3., 7.]]}
    assert np.allclose(ex.jacobian.numpy(), [[[[1., 3.]], [[2., 4.]]]])     # y.shape + x.shape
    assert ex.y.numpy().tolist() == [[5., 8.]]


def test_seed_explorer_mean_preset_is_the_seed_of_the_average_loss():
    fn, W, b = sigmoid_losses()
    ex = widgets.SeedExplorer(fn, W, names=("W", "losses"))
    ex.use_preset("mean")
    assert np.allclose(ex.seed.numpy(), [[0.5, 0.5]])
    Wc = al.tensor(W.detach().numpy(), requires_grad=True)
    (fn(Wc).sum() / 2).backward()
    assert np.allclose(ex.grad.numpy(), Wc.grad.numpy(), atol=1e-7)


def test_seed_explorer_masked_seeds_give_the_jacobian_rows_scaled_by_a_half():
    fn, W, b = sigmoid_losses()
    ex = widgets.SeedExplorer(fn, W)
    rows = []
    for seed in ([[0.5, 0.]], [[0., 0.5]]):
        ex.seed = seed
        rows.append(ex.grad.numpy().reshape(-1))
    J = ex.jacobian.numpy().reshape(2, 3)
    assert np.allclose(np.stack(rows), 0.5 * J, atol=1e-7)
    ex.use_preset("mean")
    assert np.allclose(rows[0] + rows[1], ex.grad.numpy().reshape(-1), atol=1e-7)


def test_seed_explorer_shows_the_engines_error_for_a_seed_of_the_wrong_shape():
    ex = widgets.SeedExplorer(mm, x_mm())
    ex.seed = [1., 0.]                                      # 003's dated (2,) seed for a (1, 2) output
    with pytest.raises(RuntimeError) as direct:
        mm(x_mm()).backward(al.tensor([1., 0.]))
    assert ex.error == str(direct.value)
    assert ex.error.startswith("Mismatch in shape: grad_output[0] has a shape of (2,)")
    assert ex.grad is None
    assert "Mismatch in shape" in ex.state["error"]          # what the view shows
    assert "Mismatch in shape" in texts(ex.figure())
    ex.seed = [[1., 0.]]                                     # and it recovers
    assert ex.error is None and ex.grad.numpy().tolist() == [[1., 3.]]


@pytest.mark.parametrize("bad, fragment", [
    ("abc", "could not read 'abc'"),
    ([["a", 1]], "expected numbers"),
    ("[[1, 0], [1]]", "ragged"),
    ("__import__('os')", "could not read"),
    ([[1e39, 0.]], "does not fit in float32"),
])
def test_seed_explorer_never_raises_on_bad_seeds(bad, fragment):
    ex = widgets.SeedExplorer(mm, x_mm())
    ex.seed = bad
    assert fragment in ex.error
    assert fragment.split("'")[0] in ex.summary()


def test_seed_explorer_takes_a_zero_seed_and_reports_nan_outputs():
    ex = widgets.SeedExplorer(mm, x_mm())
    ex.seed = [[0., 0.]]                 # (the view itself says what a zero seed means)
    assert ex.error is None and ex.state["grad"] == [[0., 0.]]
    assert ex.grad.numpy().tolist() == [[0., 0.]]
    ex2 = widgets.SeedExplorer(lambda x: al.log(x - 1.5), x_mm())   # log of a negative number
    assert "y has nan at (0, 1)" in ex2.error
    ex2.seed = "[[1, nan]]"
    assert "x.grad has nan" in ex2.error


def test_seed_explorer_messages_from_the_view_drive_the_backward():
    ex = widgets.SeedExplorer(mm, x_mm())
    assert ex.spec["sliders"] is True and ex.spec["J"] == [[1., 3.], [2., 4.]]
    ex._on_view(None, {"set": "seed", "value": [[0., 1.]]}, None)
    assert ex.seed.numpy().tolist() == [[0., 1.]] and ex.grad.numpy().tolist() == [[2., 4.]]
    ex._on_view(None, {"do": "preset", "name": "mean"}, None)
    assert ex.state["seed"] == [[0.5, 0.5]] and ex.grad.numpy().tolist() == [[1.5, 3.5]]
    n = ex.state["n"]
    ex._on_view(None, {"do": "preset", "name": "no such preset"}, None)    # shown, not raised
    assert "no preset 'no such preset'" in ex.state["error"] and ex.state["n"] == n + 1


def test_seed_explorer_keeps_a_seed_set_from_code_exactly():
    x = al.tensor([1., 2., 3.], requires_grad=True)
    ex = widgets.SeedExplorer(al.sin, x)
    ex.use_preset("mean")
    assert ex.state["seed"] == [1 / 3] * 3                  # not a slider's 0.35
    ex.seed = [0.33, 0.12, -7.25]
    assert ex.state["seed"] == [0.33, 0.12, -7.25]


def test_seed_explorer_takes_a_whole_seed_as_text_for_big_outputs():
    x = al.tensor([1., 2., 3.], requires_grad=True)
    ex = widgets.SeedExplorer(lambda x: al.outer(x, x), x)
    assert ex.spec["sliders"] is False
    ex._on_view(None, {"set": "seed", "value": "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]"}, None)
    assert np.allclose(ex.grad.numpy(), 2 * x.detach().numpy())       # the trace of x xᵀ is |x|²
    ex._on_view(None, {"set": "seed", "value": "not a list"}, None)
    assert "could not read" in ex.error


# -- WhereExplorer --------------------------------------------------------------------------------
X, Y = [1., 2., 3., 4.], [-1., -2., 3., 4.]


def tell(ex, **msg):
    """What the view sends: {"set": name, "value": v} or {"do": action}."""
    ex._on_view(None, msg, None)


def page_answers(ex, messages, tmp_path):
    """The book page's answers to ``messages``, one state each: the view module's own
    ``offline``, run by node on the page bundle of ``ex`` (what the built page holds)."""
    import json
    import shutil
    import subprocess
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the page's answers cannot be run outside a browser")
    bundle = ex._repr_mimebundle_()[0][widgets._base.PAGE_MIME]
    driver = (f"\nconst payload = {json.dumps(bundle, allow_nan=False)};\n"
              f"const messages = {json.dumps(messages)};\n"
              "let state = payload.state; const seen = [];\n"
              "for (const msg of messages) {\n"
              "  state = offline({spec: payload.spec, state, page: payload.page}, msg);\n"
              "  seen.push(state);\n"
              "}\n"
              "console.log(JSON.stringify(seen));\n")
    script = tmp_path / f"{bundle['module']}_page.mjs"
    script.write_text(widgets._base.module_source(bundle["module"]) + driver, encoding="utf-8")
    run = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.parametrize("t", [0.5, 1.5, 2.0, 2.5, 3.5, 5.0])
def test_where_explorer_matches_where_and_backward(t):
    ex = widgets.WhereExplorer(X, Y, threshold=2.0)
    ex.threshold = t
    x = al.tensor(X, requires_grad=True)
    y = al.tensor(Y, requires_grad=True)
    out = al.where(x > t, x, y)
    out.backward(al.ones_like(out))
    assert ex.error is None
    assert ex.mask.numpy().tolist() == (np.array(X) > t).tolist()
    assert ex.out.numpy().tolist() == out.detach().numpy().tolist()
    assert ex.grad_x.numpy().tolist() == x.grad.numpy().tolist()
    assert ex.grad_y.numpy().tolist() == y.grad.numpy().tolist()
    assert ex.state["out"] == out.detach().numpy().tolist()           # what the view draws
    assert ex.state["grad_x"] == x.grad.numpy().tolist()


def test_where_sends_no_gradient_to_the_condition():
    ex = widgets.WhereExplorer(X, Y)
    assert ex.condition_grad is None
    assert ex.mask.requires_grad is False and ex.mask.dtype == al.bool
    assert ex.out.numpy().tolist() == [-1., -2., 3., 4.]
    assert "mask.grad = None" in ex.summary()
    assert "None: a bool mask never receives a gradient" in texts(ex.figure())
    assert "the condition receives no gradient" in viz.alt_text(ex.figure())


def test_where_explorer_sqrt_branch_poisons_the_gradient_and_double_where_fixes_it():
    ex = widgets.WhereExplorer([-1., 0., 1., 4.], [5., 5., 5., 5.], threshold=0.5, sqrt_branch=True)
    assert ex.out.numpy().tolist() == [5., 5., 1., 2.]                  # the forward is fine
    g = ex.grad_x.numpy()
    assert np.isnan(g[0]) and np.isnan(g[1]) and g[2] == 0.5 and g[3] == 0.25
    assert "x.grad has nan at 0, 1" in ex.error and "Tick 'double-where fix'" in ex.error
    assert ex.state["grad_x"][:2] == ["nan", "nan"]                    # drawn as nan, not null
    # the same numbers straight from autograd_lab
    x = al.tensor([-1., 0., 1., 4.], requires_grad=True)
    with np.errstate(invalid="ignore"):                     # sqrt(-1) in the discarded branch
        al.where(x > 0.5, al.sqrt(x), al.tensor([5., 5., 5., 5.])).sum().backward()
    assert np.array_equal(np.isnan(x.grad.numpy()), np.isnan(g))
    ex.double_where = True
    assert ex.error is None and "The fix at work" in ex.note
    assert ex.grad_x.numpy().tolist() == [0., 0., 0.5, 0.25]
    assert ex.out.numpy().tolist() == [5., 5., 1., 2.]
    assert ex.state["inner"] == [1., 1., 1., 4.]                      # sqrt sees 1, not x <= 0
    fig_text = texts(ex.figure())
    assert "sqrt(where(x > t, x, 1))" in fig_text and "x.grad" in fig_text


@pytest.mark.parametrize("attr, bad, fragment", [
    ("threshold", "high", "could not read 'high'"),
    ("threshold", [1, 2], "the threshold t is one number"),
    ("y", "[1, 2", "could not read"),
    ("x", "[[1, 2], [3]]", "ragged"),
    ("sqrt_branch", "yes", "sqrt_branch is True or False"),
])
def test_where_explorer_shows_bad_input_instead_of_raising(attr, bad, fragment):
    ex = widgets.WhereExplorer(X, Y)
    before = dict(ex.state)
    setattr(ex, attr, bad)
    assert fragment in ex.error and fragment in ex.state["error"]
    assert ex.x.numpy().tolist() == X and ex.threshold == 2.0 and ex.sqrt_branch is False  # nothing corrupted
    assert {k: v for k, v in ex.state.items() if k not in ("n", "error")} == \
        {k: v for k, v in before.items() if k not in ("n", "error")}
    ex.figure()                                            # still draws something
    assert ex._repr_mimebundle_()[0]["image/png"]


def test_where_explorer_shows_the_engines_error_for_branches_that_do_not_broadcast():
    ex = widgets.WhereExplorer(X, Y)
    ex.x = [1., 2., 3.]
    x = al.tensor([1., 2., 3.], requires_grad=True)
    with pytest.raises(RuntimeError) as direct:
        al.where(x > 2, x, al.tensor(Y, requires_grad=True))
    assert ex.error == str(direct.value) and ex.out is None
    assert ex.state["out"] is None and ex.state["error"] == str(direct.value)
    assert ex._repr_mimebundle_()[0]["text/plain"].endswith(str(direct.value))


def test_where_explorer_messages_from_the_view_drive_it():
    ex = widgets.WhereExplorer(X, Y)
    tell(ex, set="threshold", value=3.5)
    assert ex.mask.numpy().tolist() == [False, False, False, True]
    tell(ex, set="x", value="[0, 5, 0, 5]")                 # the text box, as typed
    assert ex.out.numpy().tolist() == [-1., 5., 3., 5.] and ex.state["x_text"] == "[0., 5., 0., 5.]"
    tell(ex, set="sqrt_branch", value=True)
    tell(ex, set="double_where", value=True)
    assert ex.sqrt_branch and ex.double_where and ex.error is None
    tell(ex, set="threshold", value="nan")                  # how the view sends a typed nan
    assert ex.mask.numpy().tolist() == [False] * 4 and ex.out.numpy().tolist() == Y
    tell(ex, set="seed", value=1)
    assert "has no setting 'seed'" in ex.error


def test_where_explorer_keeps_a_threshold_exactly_and_its_slider_range_its_own():
    ex = widgets.WhereExplorer(X, Y)
    ex.threshold = 2.37                                       # not a multiple of the slider's step
    assert ex.threshold == 2.37 and ex.state["t"] == 2.37
    own = ex.state["range"]
    tell(ex, set="threshold", value=7.25)                    # beyond the slider's range:
    assert ex.state["t"] == 7.25 and ex.state["range"] == own   # the view widens it, for t only
    assert ex.out.numpy().tolist() == Y


@pytest.mark.parametrize("msg", [
    {"set": "threshold", "value": 3.5}, {"set": "x", "value": "[0, 5, 0, 5]"},
    {"set": "y", "value": "[9, 9, 9, 9]"}, {"set": "sqrt_branch", "value": True},
    {"set": "double_where", "value": True},
])
def test_a_where_explorer_change_computes_once_and_publishes_once(msg):
    ex = widgets.WhereExplorer(X, Y, sqrt_branch=msg["set"] == "double_where")
    published = []
    ex.observe(lambda change: published.append(change["new"]["n"]), names="state")
    with al.autograd.count_passes() as c:
        ex._on_view(None, msg, None)
    assert c.backward == 1                                   # one backward pass, not three
    assert len(published) == 1                               # one new state: one redraw


def test_the_page_answers_every_threshold_and_checkbox_as_the_kernel_does(tmp_path):
    """The page looks up states computed when the book was built; for every interval of
    t (edges included, float32 edges, non-finite t) and every checkbox it must show what
    the kernel computes for the same message."""
    x = [-1., 0.1, 0.3, 2., 2., np.nextafter(np.float32(0.1), np.float32(1))]   # a repeated entry;
    #                                         0.1 and the next float32 up: t = 0.1 splits them
    ex = widgets.WhereExplorer(x, [5., 6., 7., 8., 9., 10.], threshold=0.5)
    thresholds = [-3, -1, -0.5, 0, 0.1, float(np.float32(0.1)), 0.1000001, 0.2, 0.3, 0.30000001,
                  1.99999, 2, 2.0000001, 9, "nan", "inf", "-inf"]
    messages = []
    for s, d in itertools.product([False, True], [False, True]):
        messages += [{"set": "sqrt_branch", "value": s}, {"set": "double_where", "value": d}]
        messages += [{"set": "threshold", "value": t} for t in thresholds]
    answers = page_answers(ex, messages, tmp_path)
    keys = ["mask", "inner", "branch", "out", "grad_x", "grad_y", "branch_grad", "error", "note",
            "t", "sqrt_branch", "double_where"]
    for msg, page in zip(messages, answers):
        tell(ex, **msg)
        assert {k: page[k] for k in keys} == {k: ex.state[k] for k in keys}, msg


def test_the_page_cannot_edit_x_and_says_so(tmp_path):
    ex = widgets.WhereExplorer(X, Y)
    (page,) = page_answers(ex, [{"set": "x", "value": "[0, 0, 0, 0]"}], tmp_path)
    assert "open the notebook" in page["error"] and page["out"] == ex.state["out"]


# -- JacobianExplorer ----------------------------------------------------------------------------
def test_jacobian_explorer_fills_rows_with_one_backward_each():
    fn, W, b = sigmoid_losses()
    ex = widgets.JacobianExplorer(fn, W)
    assert ex.rows_done == 0 and np.isnan(ex.J.numpy()).all()
    assert ex.state["rows"] == [None, None]                     # no row yet
    for i in range(2):
        ex.step()
        seed = np.zeros((1, 2), np.float32)
        seed[0, i] = 1.
        assert np.allclose(ex.J.numpy()[i], direct_backward(fn, W, seed).reshape(-1))
        assert ex.passes["backward"] == i + 1 and ex.passes["forward"] == 1
        assert ex.state["rows_done"] == i + 1 and ex.state["last"] == i
    assert not np.isnan(ex.J.numpy()).any()
    assert ex.costs["row by row"]["backward"] == 2
    ex.step()
    assert "All 2 rows are done. Press 'reset'" in ex.note and ex.passes["backward"] == 2


def test_jacobian_explorer_all_at_once_is_one_batched_pass_with_the_same_matrix():
    x = al.tensor([1., 2., 3.], requires_grad=True)
    fn = lambda x: al.outer(x, x).reshape(9)      # noqa: E731 - a 9 x 3 Jacobian
    ex = widgets.JacobianExplorer(fn, x)
    for _ in range(9):
        ex.step()
    by_rows = ex.J.numpy()
    ex.all_at_once()
    assert ex.passes["backward"] == 1 and ex.passes["forward"] == 1
    assert ex.costs["row by row"]["backward"] == 9 and ex.costs["all at once"]["backward"] == 1
    assert np.allclose(ex.J.numpy(), by_rows)
    expected = np.zeros((9, 3))
    for j, k in itertools.product(range(3), range(3)):
        expected[3 * j + k, j] += x.detach().numpy()[k]
        expected[3 * j + k, k] += x.detach().numpy()[j]
    assert np.allclose(by_rows, expected)
    ex.reset()
    assert ex.rows_done == 0 and np.isnan(ex.J.numpy()).all()
    ex.step()                                                # after a reset, row by row again
    assert ex.way == "row by row" and ex.rows_done == 1


def test_next_row_after_all_rows_at_once_starts_a_row_by_row_fill_and_says_so():
    fn, W, b = sigmoid_losses()
    ex = widgets.JacobianExplorer(fn, W)
    tell(ex, do="all")
    assert ex.rows_done == 2 and ex.way == "all at once"
    with al.autograd.count_passes() as c:
        tell(ex, do="step")                                  # the button "next row"
    assert ex.way == "row by row" and ex.rows_done == 1       # row 0 only, as its label says
    assert c.forward == 1 and c.backward == 1
    assert ex.passes["forward"] == 1 and ex.passes["backward"] == 1
    assert np.isnan(ex.J.numpy()[1]).all() and np.allclose(ex.J.numpy()[0], direct_backward(
        fn, W, [[1., 0.]]).reshape(-1))
    assert ex.note.startswith("'next row' starts a new row-by-row fill")


def test_jacobian_explorer_messages_name_the_buttons_and_never_raise():
    ex = widgets.JacobianExplorer(mm, x_mm())
    tell(ex, do="jump")
    assert "does not know the message" in ex.error
    for do in ["step", "step", "step", "all", "step", "reset"]:
        tell(ex, do=do)
        for text in (ex.note, ex.error):
            assert text is None or "()" not in text             # buttons, not methods
    assert ex.state["n"] == 8 and ex.state["rows_done"] == 0


def test_the_page_answers_every_press_as_the_kernel_does(tmp_path):
    fn, W, b = sigmoid_losses()
    ex = widgets.JacobianExplorer(fn, W)
    presses = ["step", "step", "step", "all", "step", "all", "reset", "step", "reset", "all", "all"]
    answers = page_answers(ex, [{"do": p} for p in presses], tmp_path)
    for press, page in zip(presses, answers):
        tell(ex, do=press)
        want = {k: v for k, v in ex.state.items() if k != "n"}
        assert {k: page[k] for k in want} == want, press
        assert page["n"] == ex.state["n"]


def test_jacobian_explorer_reports_non_finite_rows():
    ex = widgets.JacobianExplorer(lambda x: al.sqrt(x), al.tensor([0., 4.], requires_grad=True))
    ex.all_at_once()
    assert "J has nan at (1, 0) and inf at (0, 0)" in ex.error   # 0/0 and 1/(2*0)


def test_jacobian_explorer_picture_and_alt_text_carry_the_rows():
    ex = widgets.JacobianExplorer(mm, x_mm(), names=("x", "y"))
    ex.step()
    alt = viz.alt_text(ex.figure())
    assert "1 of 2 rows" in alt and "[1., 3.]" in alt and "1 backward" in alt
    assert "1 of 2" in texts(ex.figure())


# -- GradOutputsExplorer -------------------------------------------------------------------------
def outer(x):
    return al.outer(x, x)


def x4():
    return al.tensor([1., 2., 3., 4.], requires_grad=True)


@pytest.mark.parametrize("preset, index", [("ones", None), ("one-hot", (0, 0)), ("one-hot", (1, 2)),
                                           ("one-hot", (3, 3)), ("upper triangle", None),
                                           ("diagonal", None)])
def test_grad_outputs_explorer_equals_autograd_grad(preset, index):
    x = x4()
    ex = widgets.GradOutputsExplorer(outer, x)
    ex.use_preset(preset, index=index)
    assert ex.error is None and ex.preset == preset
    xc = x4()
    (g,) = al.autograd.grad(outer(xc), xc, grad_outputs=al.tensor(ex.seed.numpy()))
    assert np.allclose(ex.grad.numpy(), g.numpy())
    J = ex.jacobian.numpy().reshape(16, 4)                   # and grad is linear in the seed
    assert np.allclose(ex.grad.numpy(), ex.seed.numpy().reshape(-1) @ J)
    assert x.grad is None                                    # the reader's x is left alone


def test_grad_outputs_ones_gives_twenty_everywhere_and_means_the_sum():
    ex = widgets.GradOutputsExplorer(outer, x4())
    assert ex.grad.numpy().tolist() == [20., 20., 20., 20.]
    assert ex.loss.startswith("L = y.sum()")
    ex.use_preset("diagonal")
    assert ex.grad.numpy().tolist() == [2., 4., 6., 8.] and "trace" in ex.loss
    ex.use_preset("one-hot", index=(1, 2))
    assert ex.grad.numpy().tolist() == [0., 3., 2., 0.] and ex.loss.startswith("L = y[1, 2]")


def test_grad_outputs_of_the_wrong_shape_shows_the_engines_error():
    ex = widgets.GradOutputsExplorer(outer, x4())
    ex.set_seed_text("[1, 1, 1, 1]")                         # ones_like(x), as in the Q&A
    xc = x4()
    with pytest.raises(RuntimeError) as direct:
        al.autograd.grad(outer(xc), xc, grad_outputs=al.ones_like(xc))
    assert ex.error == str(direct.value)
    assert "(4,)" in ex.error and "(4, 4)" in ex.error
    assert ex.grad is None and ex.loss.startswith("no loss: the seed's shape (4,)")
    assert "Mismatch in shape" in texts(ex.figure())
    ex.set_seed_text("[[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]")
    assert ex.error is None and ex.grad.numpy().tolist() == [2., 0., 0., 0.]


@pytest.mark.parametrize("text, fragment", [("[[1, 2], ", "could not read"), ("hello", "could not read"),
                                            ("[[1e39] * 4] * 4", "could not read")])
def test_grad_outputs_explorer_never_raises_on_bad_text_and_keeps_its_seed(text, fragment):
    ex = widgets.GradOutputsExplorer(outer, x4())
    ex.use_preset("diagonal")
    ex.set_seed_text(text)
    assert fragment in ex.error
    assert ex.preset == "diagonal" and ex.grad.numpy().tolist() == [2., 4., 6., 8.]   # nothing corrupted


def test_a_seed_too_big_for_float32_is_reported():
    ex = widgets.GradOutputsExplorer(outer, x4())
    ex.seed = np.full((4, 4), 1e39)
    assert "does not fit in float32" in ex.error


def test_grad_outputs_messages_from_the_view_edit_cells_and_the_one_hot_index():
    ex = widgets.GradOutputsExplorer(outer, x4())
    ex.use_preset("one-hot", index=(0, 0))
    tell(ex, set="entry", index=5, value="2")                # seed[1, 1] = 2, typed in the grid
    assert ex.seed.numpy()[1, 1] == 2. and ex.preset is None
    assert ex.grad.numpy().tolist() == [2., 8., 0., 0.]
    tell(ex, set="index", value=[2, 0])                      # the one-hot index boxes
    assert ex.preset == "one-hot" and ex.index == (2, 0)
    assert ex.seed.numpy()[2, 0] == 1. and ex.grad.numpy().tolist() == [3., 0., 1., 0.]
    tell(ex, do="preset", name="ones")
    tell(ex, set="seed", value="[[0.33, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0.12]]")
    assert ex.seed.numpy()[0, 0] == np.float32(0.33) and ex.seed.numpy()[3, 3] == np.float32(0.12)
    tell(ex, set="index", value=[9, 9])
    assert "outside y's shape" in ex.error
    tell(ex, do="preset", name="nonsense")
    assert "no preset 'nonsense'" in ex.error
    tell(ex, do="explode")
    assert "does not know the message" in ex.error


def test_grad_outputs_explorer_publishes_once_per_change():
    ex = widgets.GradOutputsExplorer(outer, x4())
    for msg in [{"do": "preset", "name": "diagonal"}, {"set": "index", "value": [1, 1]},
                {"set": "entry", "index": 3, "value": "5"}, {"set": "seed", "value": "hello"}]:
        n = ex.state["n"]
        with al.autograd.count_passes() as passes:
            tell(ex, **msg)
        assert ex.state["n"] == n + 1 and passes.backward <= 1


def test_the_page_forms_grad_from_the_jacobian_as_the_kernel_runs_grad(tmp_path):
    ex = widgets.GradOutputsExplorer(outer, x4())
    messages = [{"do": "preset", "name": "one-hot"}, {"set": "index", "value": [1, 2]},
                {"do": "preset", "name": "upper triangle"}, {"set": "entry", "index": 5, "value": "2"},
                {"do": "preset", "name": "diagonal"}, {"set": "seed", "value": "[1, 1, 1, 1]"},
                {"set": "seed", "value": "[[1, 2], [3, 4]]"}, {"set": "entry", "index": 0, "value": "-0.5"},
                {"set": "seed", "value": "[[0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]"},
                {"do": "preset", "name": "ones"}]
    answers = page_answers(ex, messages, tmp_path)
    for msg, page in zip(messages, answers):
        tell(ex, **msg)
        want = ex.state
        assert page["seed"] == want["seed"] and page["preset"] == want["preset"], msg
        assert page["index"] == want["index"] and page["loss"] == want["loss"], msg
        assert page["error"] == want["error"] and page["note"] == want["note"], msg   # the engine's words
        if want["grad"] is None:
            assert page["grad"] is None
        else:
            assert np.allclose(page["grad"], want["grad"]), msg
    assert answers[5]["error"].startswith("Mismatch in shape: grad_output[0] has a shape of (4,)")
    assert "(2, 2)" in answers[6]["error"]
    assert answers[8]["grad"] == [0., 0., 0., 0.]             # an antisymmetric seed sees nothing


def test_grad_outputs_picture_says_the_seed_weights_the_rows():
    ex = widgets.GradOutputsExplorer(outer, x4())
    ex.use_preset("one-hot", index=(0, 2))
    alt = viz.alt_text(ex.figure())
    assert "each row weighted by its seed entry" in alt and "dL/dx = [3., 0., 1., 0.]" in alt
    assert "J = [[2., 0., 0., 0.], [2., 1., 0., 0.]" in alt                # the numbers in the cells
    assert ex.spec["title"].endswith("returns vec(seed)ᵀ J")


# -- GraphExplorer -------------------------------------------------------------------------------
def chapter_layer():
    """Chapter 1's layer: W moves, b stays; the picture names y_pred, losses and avg."""
    x, y_true, W, b = layer_inputs(seed=0)

    def layer(W, b):
        y_pred = al.sigmoid(W @ x.t() + b)
        losses = (y_true - y_pred) ** 2
        return {"y_pred": y_pred, "losses": losses, "avg": losses.sum() / 2}

    return layer, W, b, y_true


def graph_explorer(**kw):
    layer, W, b, y_true = chapter_layer()
    ex = widgets.GraphExplorer(layer, {"W": W, "b": b}, move="W", names={"y_true": y_true},
                               presets={"all 3": {"W": [[3., 3., 3.]]}, "all 10": {"W": [[10., 10., 10.]]}},
                               **kw)
    return ex, layer, W, b


def direct_layer(layer, W, b):
    """The layer and a traced backward, run here, outside the explorer."""
    Wc, bc = (al.tensor(t.detach().numpy().copy(), requires_grad=True) for t in (W, b))
    named = layer(Wc, bc)
    with al.autograd.trace_backward() as trace:
        named["avg"].backward()
    return named, Wc.grad, bc.grad, trace


@pytest.mark.parametrize("values", [None, [[3., 3., 3.]], [[10., 10., 10.]], [[0.33, -2., 7.5]]])
def test_graph_explorer_shows_the_numbers_of_a_real_traced_backward(values):
    ex, layer, W, b = graph_explorer()
    if values is not None:
        ex.set(W=values)
    Wnow = ex.params["W"]
    named, W_grad, b_grad, trace = direct_layer(layer, Wnow, b)
    assert ex.error is None
    assert np.allclose(ex.output.numpy(), named["avg"].detach().numpy())
    assert np.array_equal(ex.grads["W"].numpy(), W_grad.numpy())
    assert np.array_equal(ex.grads["b"].numpy(), b_grad.numpy())
    sent = sorted(np.round(np.float64(g).reshape(-1), 6).tolist() for s in trace.steps for _, _, g in s.sent)
    shown = sorted(np.round(ex._slots[e["slot"]].reshape(-1), 6).tolist()
                   for e in ex.spec["edges"] if e["slot"] is not None)
    assert shown == sent                                    # one label per edge, its gradient
    assert W.grad is None and b.grad is None                # the reader's tensors are left alone


def test_graph_explorer_tells_the_chapters_two_settings_apart():
    ex, *_ = graph_explorer()
    assert np.allclose(ex.grads["W"].numpy(), [[-0.0373, -0.0490, -0.0606]], atol=1e-4)
    ex.use_preset("all 3")
    assert round(ex.output.item(), 4) == 0.3789 and (ex.grads["W"].numpy() > 0).all()
    assert np.allclose(ex.values["y_pred"].numpy(), [[0.8704, 0.9923]], atol=1e-4)
    ex.use_preset("all 10")                                 # saturated: big loss, no gradient
    assert round(ex.output.item(), 4) == 0.4978 and ex.grads["W"].abs().max().item() < 1e-3
    ex.reset()
    assert np.allclose(ex.grads["W"].numpy(), [[-0.0373, -0.0490, -0.0606]], atol=1e-4)


def test_graph_explorer_takes_exact_values_and_runs_once_per_change():
    ex, *_ = graph_explorer()
    for k, value in enumerate([0.33, -2.0, 7.123]):
        n = ex.state["n"]
        with al.autograd.count_passes() as passes:
            tell(ex, set="param", name="W", index=k, value=value)
        assert passes.backward == 1 and ex.state["n"] == n + 1
    assert ex.params["W"].numpy().tolist() == np.float32([[0.33, -2.0, 7.123]]).tolist()   # no rounding
    assert ex.state["params"]["W"] == [[float(np.float32(v)) for v in (0.33, -2.0, 7.123)]]


@pytest.mark.parametrize("action, fragment", [
    (lambda ex: ex.set(W=[1., 2., 3.]), "W has shape (1, 3); got shape (3,)"),
    (lambda ex: ex.set(W="abc"), "could not read 'abc'"),
    (lambda ex: ex.set(V=[[1.]]), "there is no parameter 'V'"),
    (lambda ex: ex.use_preset("all 5"), "no preset 'all 5'"),
    (lambda ex: tell(ex, set="param", name="b", index=0, value=1.0), "no slider b[0]"),
    (lambda ex: tell(ex, set="param", name="W", index=1, value="x"), "could not read 'x'"),
    (lambda ex: tell(ex, do="explode"), "does not know the message"),
])
def test_graph_explorer_never_raises_and_keeps_its_state(action, fragment):
    ex, *_ = graph_explorer()
    before = ex.params["W"].numpy().tolist()
    action(ex)
    assert fragment in ex.error and fragment.split("'")[0] in ex.summary()
    assert ex.params["W"].numpy().tolist() == before


def test_graph_explorer_reports_nan_and_a_graph_that_changes():
    x = al.tensor([1., 2.])

    def branchy(w):
        return (w * x).sum() ** 2 if w.sum().item() > 0 else -(w * x).sum()

    ex = widgets.GraphExplorer(branchy, {"w": al.tensor([1., 1.], requires_grad=True)})
    ex.set(w=[-1., -1.])                                     # Python takes the other branch
    assert "different graph" in ex.error and ex.state["slots"] is None
    assert ex.summary().endswith("the explorer draws the graph it started with")
    logs = widgets.GraphExplorer(lambda w: al.log(w).sum(), {"w": al.tensor([1., 1.], requires_grad=True)})
    logs.set(w=[-1., 1.])
    assert "output has nan at 0" in logs.error and "w.grad" not in logs.error   # 1/w is finite


def test_the_page_answers_every_reachable_state_as_the_kernel_does(tmp_path):
    ex, *_ = graph_explorer()
    page = ex._page()
    W0 = chapter_layer()[1].detach().numpy().reshape(-1)
    for k, axis in enumerate(page["axes"]):                  # the grid, 3 and 10, and the start
        assert axis == sorted({*widgets.graph_explorer.GRID, 3.0, 10.0, float(W0[k])})
    messages = [{"do": "preset", "name": "all 3"}, {"set": "param", "name": "W", "index": 0, "value": -10.0},
                {"set": "param", "name": "W", "index": 2, "value": 1.0}, {"do": "reset"},
                {"do": "preset", "name": "all 10"}, {"set": "param", "name": "W", "index": 1, "value": 2.4},
                {"set": "param", "name": "W", "index": 1, "value": 50.0}]
    answers = page_answers(ex, messages, tmp_path)
    for msg, got in zip(messages[:5], answers):
        tell(ex, **msg)
        assert got["params"] == ex.state["params"], msg
        for mine, theirs in zip(ex.state["slots"], got["slots"]):   # the numbers the view prints
            assert [viz.num(float(v)) for v in mine] == [viz.num(float(v)) for v in theirs], msg
    assert answers[5]["params"]["W"][0][1] == 3.0 and "2.4 snapped to 3" in answers[5]["note"]
    assert "open the notebook to try 50" in answers[6]["error"]
    assert answers[6]["params"] == answers[5]["params"]      # refused, not clamped


def test_the_chapters_graph_explorer_adds_little_to_its_page():
    import json
    ex, *_ = graph_explorer()
    bundle = ex._repr_mimebundle_()[0][widgets._base.PAGE_MIME]
    assert len(json.dumps(bundle, separators=(",", ":"))) < 40_000
    assert len(bundle["page"]["states"]) == 5 ** 3


def test_graph_layout_fits_the_text_column_and_nothing_overlaps():
    ex, *_ = graph_explorer()
    spec = ex.spec
    assert spec["width"] <= widgets.graph_explorer.MAX_WIDTH and spec["height"] < 460
    boxes = [(v["x"] - v["w"] / 2, v["y"] - v["h"] / 2, v["x"] + v["w"] / 2, v["y"] + v["h"] / 2)
             for v in spec["vertices"]]
    boxes += [(e["label"]["x"] - e["label"]["w"] / 2, e["label"]["y"] - e["label"]["h"] / 2,
               e["label"]["x"] + e["label"]["w"] / 2, e["label"]["y"] + e["label"]["h"] / 2)
              for e in spec["edges"] if e["label"]]
    for (i, a), (j, c) in itertools.combinations(enumerate(boxes), 2):
        assert a[2] <= c[0] or c[2] <= a[0] or a[3] <= c[1] or c[3] <= a[1], (i, j)
    for a in boxes:
        assert 0 <= a[0] and a[2] <= spec["width"] and 0 <= a[1] and a[3] <= spec["height"]


def test_graph_explorer_picture_and_alt_text_carry_the_numbers():
    ex, *_ = graph_explorer()
    alt = viz.alt_text(ex.figure())
    for text in ["W = [[0.1257, -0.1321, 0.6404]]", "MmBackward0 computes [[0.1783, 0.4834]]",
                 "W.grad = [[-0.0373, -0.049, -0.0606]]", "b.grad = [[0.1398, -0.1282]]"]:
        assert text in alt
    assert ex.summary().startswith("GraphExplorer: W = [[0.1257, -0.1321, 0.6404]]; avg = 0.2943")


# -- every explorer ------------------------------------------------------------------------------
def all_explorers():
    fn, W, b = sigmoid_losses()
    return [widgets.SeedExplorer(mm, x_mm()), widgets.SeedExplorer(fn, W),
            widgets.WhereExplorer(X, Y), widgets.WhereExplorer([-1., 0., 1., 4.], Y, 0.5, sqrt_branch=True),
            widgets.JacobianExplorer(mm, x_mm()), widgets.GradOutputsExplorer(outer, x4()),
            graph_explorer()[0], post003_per_sample(),
            widgets.MemoryExplorer(checkpointed=(0, 2), batch=16, width=8)]


def post003_per_sample():
    """The per-sample explorer on post 003's two examples, the second picked."""
    x, y_true, W, b = layer_inputs(seed=0)
    return widgets.PerSampleExplorer(W, x, y_true, b, sample=1)


def test_creating_an_explorer_prints_nothing(capsys):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        all_explorers()
        widgets.SeedExplorer(lambda x: al.log(x - 1.5), x_mm())        # NaN while creating
        widgets.WhereExplorer([-1., 0., 1., 4.], Y, 0.5, sqrt_branch=True)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    assert [str(w.message) for w in caught] == []                     # no warning on stderr


def test_every_explorer_gives_widget_view_png_html_and_stable_text():
    first = [check_bundle(ex)["text/plain"] for ex in all_explorers()]
    second = [check_bundle(ex)["text/plain"] for ex in all_explorers()]
    assert first == second
    assert first[0] == "SeedExplorer: y = [[5., 8.]]; seed v = [[1., 1.]]; x.grad = [[3., 7.]] (from y.backward(v))"


def test_every_explorer_figure_has_alt_text_and_a_solid_background():
    for ex in all_explorers():
        fig = ex.figure()
        assert isinstance(fig, matplotlib.figure.Figure) and len(viz.alt_text(fig)) > 30
        assert matplotlib.colors.to_hex(fig.get_facecolor()) == viz.PAPER
        assert viz.to_png(fig).startswith(PNG_MAGIC)


def test_parse_numbers_reads_lists_and_rejects_code():
    assert widgets.parse_numbers("[[1, -2.5], [nan, inf]]").shape == (2, 2)
    for bad in ["os.system('x')", "[1, 2] + [3]", "{'a': 1}", "True"]:
        with pytest.raises(ValueError, match="could not read"):
            widgets.parse_numbers(bad)


# -- InplaceExplorer -----------------------------------------------------------------------------
# What y.sum().backward() does after y = f(x) and a write, for every pair the explorer offers:
# a write that changes what a node keeps is refused if it is counted (recorded, detach(),
# no_grad), silently stale if it is not (.data); a leaf is refused in place outside no_grad.
INPLACE_OUTCOMES = {   # op: outcomes for the writes in widgets.inplace.WRITES' order
    #               none    add_     mul_     y[0]=0   detach   y.data   x.mul_   no_grad  x.data
    "y = x * 2":       ["fine", "fine", "fine", "fine", "fine", "fine", "error", "fine", "fine"],
    "y = x.exp()":     ["fine", "error", "error", "error", "error", "stale", "error", "fine", "fine"],
    "y = x.sigmoid()": ["fine", "error", "error", "error", "error", "stale", "error", "fine", "fine"],
    "y = x ** 2":      ["fine", "fine", "fine", "fine", "fine", "fine", "error", "error", "stale"],
    "y = x.sin()":     ["fine", "fine", "fine", "fine", "fine", "fine", "error", "error", "stale"],
}
X3 = [0.5, 1.0, 2.0]


def inplace_pairs():
    from autograd_lab.teaching.widgets.inplace import WRITES
    for op, outcomes in INPLACE_OUTCOMES.items():
        for w, outcome in zip(WRITES, outcomes):
            yield op, w.code, outcome


@pytest.mark.parametrize("op, write, outcome", list(inplace_pairs()))
def test_inplace_outcome_follows_what_the_rule_keeps(op, write, outcome):
    ex = widgets.InplaceExplorer(X3, op=op, write=write)
    assert ex.outcome == outcome and ex.error is None
    if outcome == "error":
        assert ex.grad is None and ex.backward_error.startswith("RuntimeError: ")
    else:
        assert ex.backward_error is None
        assert np.allclose(ex.grad.numpy(), ex.honest_grad.numpy()) == (outcome == "fine")


def test_inplace_exp_then_mul_shows_torchs_error_and_the_versions():
    ex = widgets.InplaceExplorer(X3, op="y = x.exp()", write="y.mul_(2)")
    assert ex.backward_error == (
        "RuntimeError: one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [al.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected "
        "version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute "
        "its gradient, with al.autograd.set_detect_anomaly(True, check_nan=False).")
    assert [n["name"] for n in ex.nodes] == ["AccumulateGrad", "ExpBackward0", "MulBackward0", "SumBackward0"]
    assert ex.nodes[1]["keeps"] == [{"what": "y", "at": 0, "now": 1}]
    assert ex.nodes[2]["keeps"] == [{"what": "the 2", "at": None, "now": None}]
    assert ex.versions == {"x": 0, "y": 1}
    assert np.allclose(ex.honest_grad.numpy(), 2 * np.exp(X3))          # (x2.exp() * 2).sum()
    assert "ExpBackward0 saved y at version 0" in ex.why


def test_inplace_gradients_are_real_backwards():
    x = al.tensor(X3, requires_grad=True)
    y = x * 2
    y.add_(1)
    y.sum().backward()
    ex = widgets.InplaceExplorer(X3, op="y = x * 2", write="y.add_(1)")
    assert ex.grad.tolist() == x.grad.tolist() == [2.0, 2.0, 2.0]
    assert [n["name"] for n in ex.nodes] == ["AccumulateGrad", "MulBackward0", "AddBackward0", "SumBackward0"]
    ex.op, ex.write = "y = x ** 2", "y[0] = 0"                              # CopySlices routes around entry 0
    assert ex.grad.tolist() == [0.0, 2.0, 4.0] and ex.nodes[2]["name"] == "CopySlices"
    assert ex.nodes[2]["keeps"] == [{"what": "the index", "at": None, "now": None}]


def test_inplace_data_is_stale_where_detach_is_refused():
    detached = widgets.InplaceExplorer(X3, op="y = x.sigmoid()", write="y.detach().add_(1)")
    assert detached.outcome == "error" and detached.versions["y"] == 1       # the counter is shared
    data = widgets.InplaceExplorer(X3, op="y = x.sigmoid()", write="y.data.add_(1)")
    s = 1 / (1 + np.exp(-np.array(X3)))
    assert data.versions["y"] == 0 and data.state["tensors"][1]["data_version"] == 1
    assert np.allclose(data.grad.numpy(), (s + 1) * (1 - (s + 1)))           # the rule read y + 1
    assert np.allclose(data.honest_grad.numpy(), s * (1 - s))
    stale_x = widgets.InplaceExplorer(X3, op="y = x.sin()", write="x.data.mul_(2)")
    assert np.allclose(stale_x.grad.numpy(), np.cos(2 * np.array(X3)))      # at the new x
    assert np.allclose(stale_x.honest_grad.numpy(), np.cos(X3))              # at the x of the loss


def test_inplace_a_leaf_is_refused_at_the_write_and_allowed_under_no_grad():
    ex = widgets.InplaceExplorer(X3, op="y = x.exp()", write="x.mul_(2)")
    assert ex.state["at"] == "write" and "a leaf Variable that requires grad" in ex.backward_error
    assert ex.versions == {"x": 0, "y": 0}
    ex.write = "with al.no_grad(): x.mul_(2)"
    assert ex.outcome == "fine" and ex.versions["x"] == 1 and np.allclose(ex.grad.numpy(), np.exp(X3))


def test_inplace_result_waits_for_a_prediction_and_a_new_choice_asks_again():
    ex = widgets.InplaceExplorer(X3)
    assert ex.prediction is None and ex.right is None and ex.state["prediction"] is None
    tell(ex, set="prediction", value="fine")
    assert ex.prediction == "fine" and ex.right is False and ex.state["outcome"] == "error"
    ex.predict("silently stale")                                            # the button's words work too
    assert ex.prediction == "stale"
    tell(ex, set="write", value="y.data.add_(1)")
    assert ex.prediction is None and ex.outcome == "stale"
    tell(ex, set="prediction", value="stale")
    assert ex.right is True and "predicted silently stale (right)" in ex.summary()


@pytest.mark.parametrize("msg, fragment", [
    ({"set": "op", "value": "y = x.tan()"}, 'no op "y = x.tan()"; press one of the buttons'),
    ({"set": "write", "value": "x.zero_()"}, 'no write "x.zero_()"'),
    ({"set": "prediction", "value": "maybe"}, "predict 'error', 'fine' or 'silently stale'"),
    ({"set": "seed", "value": 1}, "no setting 'seed'"),
    ({"do": "reset"}, "does not know the message"),
])
def test_inplace_explorer_never_raises_and_keeps_its_state(msg, fragment):
    ex = widgets.InplaceExplorer(X3)
    ex.predict("error")
    before = {k: v for k, v in ex.state.items() if k not in ("n", "error")}
    tell(ex, **msg)
    assert fragment in ex.error and fragment in ex.state["error"]
    assert {k: v for k, v in ex.state.items() if k not in ("n", "error")} == before


def test_inplace_a_choice_runs_once_and_a_prediction_runs_nothing():
    ex = widgets.InplaceExplorer(X3)
    published = []
    ex.observe(lambda change: published.append(change["new"]["n"]), names="state")
    with al.autograd.count_passes() as c:
        tell(ex, set="op", value="y = x.sin()")
    assert c.backward == 2 and len(published) == 1        # the backward and the honest one
    with al.autograd.count_passes() as c:
        tell(ex, set="prediction", value="fine")
    assert c.backward == 0 and c.ops == 0 and len(published) == 2


def test_the_page_answers_every_choice_and_prediction_as_the_kernel_does(tmp_path):
    from autograd_lab.teaching.widgets.inplace import OPERATIONS, WRITES
    ex = widgets.InplaceExplorer(X3)
    messages = []
    for op in OPERATIONS:
        messages.append({"set": "op", "value": op})
        for w in WRITES:
            messages += [{"set": "write", "value": w.code}, {"set": "prediction", "value": "stale"}]
    messages += [{"set": "op", "value": "nope"}, {"set": "prediction", "value": "maybe"},
                 {"set": "prediction", "value": "error"}]
    answers = page_answers(ex, messages, tmp_path)
    for msg, page in zip(messages, answers):
        tell(ex, **msg)
        assert {k: v for k, v in page.items() if k != "n"} == {k: v for k, v in ex.state.items() if k != "n"}, msg


def test_inplace_picture_alt_text_and_summary_carry_the_numbers():
    ex = widgets.InplaceExplorer(X3, op="y = x ** 2", write="x.data.mul_(2)")
    check_bundle(ex)
    alt = viz.alt_text(ex.figure())
    assert "silently stale" in alt and "x.grad = [2., 4., 8.]" in alt and "gives [1., 2., 4.]" in alt
    assert "PowBackward0 (y = x ** 2) keeps x saved at version 0, now at version 0" in alt
    assert ex.summary() == ("InplaceExplorer: y = x ** 2; x.data.mul_(2); y.sum().backward() -> silently "
                            "stale; x.grad = [2., 4., 8.]; honest x.grad = [1., 2., 4.]")
