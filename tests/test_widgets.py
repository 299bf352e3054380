"""The explorers, driven from code: their numbers equal direct autograd_lab computations,
bad input is shown (never raised), and each has a static picture for the page."""
import base64
import itertools
import re

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
pytest.importorskip("ipywidgets")

import autograd_lab as al  # noqa: E402
from autograd_lab import viz, widgets  # noqa: E402
from post003 import layer_inputs  # noqa: E402

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
    assert set(b) == {"application/vnd.jupyter.widget-view+json", "image/png", "text/plain"}
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
    assert "Mismatch in shape" in ex._status.value
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


def test_seed_explorer_notes_a_zero_seed_and_nan_outputs():
    ex = widgets.SeedExplorer(mm, x_mm())
    ex.seed = [[0., 0.]]
    assert ex.error is None and "all zeros" in ex.note
    assert ex.grad.numpy().tolist() == [[0., 0.]]
    ex2 = widgets.SeedExplorer(lambda x: al.log(x - 1.5), x_mm())   # log of a negative number
    assert "y has nan at (0, 1)" in ex2.error
    ex2.seed = "[[1, nan]]"
    assert "x.grad has nan" in ex2.error


def test_seed_explorer_sliders_drive_the_backward():
    ex = widgets.SeedExplorer(mm, x_mm())
    assert len(ex._sliders) == 2 and ex._text is None
    ex._sliders[0].value = 0.0
    assert ex.seed.numpy().tolist() == [[0., 1.]] and ex.grad.numpy().tolist() == [[2., 4.]]
    ex.seed = [[5., -3.]]                                   # sliders follow, their range widens
    assert [s.value for s in ex._sliders] == [5., -3.] and ex._sliders[0].max >= 5.


def test_seed_explorer_uses_a_text_field_for_big_outputs():
    x = al.tensor([1., 2., 3.], requires_grad=True)
    ex = widgets.SeedExplorer(lambda x: al.outer(x, x), x)
    assert ex._sliders == [] and ex._text is not None
    ex._text.value = "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]"
    assert np.allclose(ex.grad.numpy(), 2 * x.detach().numpy())       # the trace of x xᵀ is |x|²
    ex._text.value = "not a list"
    assert "could not read" in ex.error


# -- WhereExplorer --------------------------------------------------------------------------------
X, Y = [1., 2., 3., 4.], [-1., -2., 3., 4.]


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


def test_where_sends_no_gradient_to_the_condition():
    ex = widgets.WhereExplorer(X, Y)
    assert ex.condition_grad is None
    assert ex.mask.requires_grad is False and ex.mask.dtype == al.bool
    assert ex.out.numpy().tolist() == [-1., -2., 3., 4.]
    assert "cond.grad = None" in ex.summary()
    assert "None: a bool mask never receives a gradient" in texts(ex.figure())


def test_where_explorer_sqrt_branch_poisons_the_gradient_and_double_where_fixes_it():
    ex = widgets.WhereExplorer([-1., 0., 1., 4.], [5., 5., 5., 5.], threshold=0.5, sqrt_branch=True)
    assert ex.out.numpy().tolist() == [5., 5., 1., 2.]                  # the forward is fine
    g = ex.grad_x.numpy()
    assert np.isnan(g[0]) and np.isnan(g[1]) and g[2] == 0.5 and g[3] == 0.25
    assert "x.grad has nan at 0, 1" in ex.error and "double-where" in ex.error
    # the same numbers straight from autograd_lab
    x = al.tensor([-1., 0., 1., 4.], requires_grad=True)
    with np.errstate(invalid="ignore"):                     # sqrt(-1) in the discarded branch
        al.where(x > 0.5, al.sqrt(x), al.tensor([5., 5., 5., 5.])).sum().backward()
    assert np.array_equal(np.isnan(x.grad.numpy()), np.isnan(g))
    ex.double_where = True
    assert ex.error is None
    assert ex.grad_x.numpy().tolist() == [0., 0., 0.5, 0.25]
    assert ex.out.numpy().tolist() == [5., 5., 1., 2.]
    fig_text = texts(ex.figure())
    assert "sqrt(where(cond, x, 1))" in fig_text and "x.grad" in fig_text


@pytest.mark.parametrize("attr, bad, fragment", [
    ("threshold", "high", "could not read 'high'"),
    ("y", "[1, 2", "could not read"),
    ("x", "[[1, 2], [3]]", "ragged"),
])
def test_where_explorer_shows_bad_input_instead_of_raising(attr, bad, fragment):
    ex = widgets.WhereExplorer(X, Y)
    setattr(ex, attr, bad)
    assert fragment in ex.error
    ex.figure()                                            # still draws something
    assert ex._repr_mimebundle_()[0]["image/png"]


def test_where_explorer_shows_the_engines_error_for_branches_that_do_not_broadcast():
    ex = widgets.WhereExplorer(X, Y)
    ex.x = [1., 2., 3.]
    x = al.tensor([1., 2., 3.], requires_grad=True)
    with pytest.raises(RuntimeError) as direct:
        al.where(x > 2, x, al.tensor(Y, requires_grad=True))
    assert ex.error == str(direct.value) and ex.out is None
    assert ex._repr_mimebundle_()[0]["text/plain"].endswith(str(direct.value))


def test_where_explorer_widgets_drive_it():
    ex = widgets.WhereExplorer(X, Y)
    ex._slider.value = 3.5
    assert ex.mask.numpy().tolist() == [False, False, False, True]
    ex._xbox.value = "[0, 5, 0, 5]"
    assert ex.out.numpy().tolist() == [-1., 5., 3., 5.]
    ex._sqrt_box.value = True
    ex._double_box.value = True
    assert ex.sqrt_branch and ex.double_where and ex.error is None


# -- JacobianExplorer ----------------------------------------------------------------------------
def test_jacobian_explorer_fills_rows_with_one_backward_each():
    fn, W, b = sigmoid_losses()
    ex = widgets.JacobianExplorer(fn, W)
    assert ex.rows_done == 0 and np.isnan(ex.J.numpy()).all()
    for i in range(2):
        ex.step()
        seed = np.zeros((1, 2), np.float32)
        seed[0, i] = 1.
        assert np.allclose(ex.J.numpy()[i], direct_backward(fn, W, seed).reshape(-1))
        assert ex.passes["backward"] == i + 1 and ex.passes["forward"] == 1
    assert not np.isnan(ex.J.numpy()).any()
    assert ex.costs["row by row"]["backward"] == 2
    ex.step()
    assert "All 2 rows are done" in ex.note


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


def test_jacobian_explorer_reports_non_finite_rows():
    ex = widgets.JacobianExplorer(lambda x: al.sqrt(x), al.tensor([0., 4.], requires_grad=True))
    ex.all_at_once()
    assert "J has nan at (1, 0) and inf at (0, 0)" in ex.error   # 0/0 and 1/(2*0)


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
    assert ex.grad is None
    assert "Mismatch in shape" in texts(ex.figure())
    ex.set_seed_text("[[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]")
    assert ex.error is None and ex.grad.numpy().tolist() == [2., 0., 0., 0.]


@pytest.mark.parametrize("text, fragment", [("[[1, 2], ", "could not read"), ("hello", "could not read"),
                                            ("[[1e39] * 4] * 4", "could not read")])
def test_grad_outputs_explorer_never_raises_on_bad_text(text, fragment):
    ex = widgets.GradOutputsExplorer(outer, x4())
    ex.set_seed_text(text)
    assert fragment in ex.error


def test_grad_outputs_explorer_cells_and_index_boxes_edit_the_seed():
    ex = widgets.GradOutputsExplorer(outer, x4())
    ex.use_preset("one-hot", index=(0, 0))
    ex._cells[5].value = 2.0                                 # seed[1, 1] = 2
    assert ex.seed.numpy()[1, 1] == 2. and ex.preset is None
    assert ex.grad.numpy().tolist() == [2., 8., 0., 0.]
    ex.use_preset("one-hot")
    ex._index_boxes[0].value = 2
    assert ex.seed.numpy()[2, 0] == 1. and ex.grad.numpy().tolist() == [3., 0., 1., 0.]
    ex.use_preset("one-hot", index=(9, 9))
    assert "outside y's shape" in ex.error
    ex.use_preset("nonsense")
    assert "no preset 'nonsense'" in ex.error


# -- every explorer ------------------------------------------------------------------------------
def all_explorers():
    fn, W, b = sigmoid_losses()
    return [widgets.SeedExplorer(mm, x_mm()), widgets.SeedExplorer(fn, W),
            widgets.WhereExplorer(X, Y), widgets.WhereExplorer([-1., 0., 1., 4.], Y, 0.5, sqrt_branch=True),
            widgets.JacobianExplorer(mm, x_mm()), widgets.GradOutputsExplorer(outer, x4())]


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


def test_the_live_view_redraws_in_place_and_matches_a_fresh_figure():
    ex = widgets.SeedExplorer(mm, x_mm())
    ex._repr_mimebundle_()
    painter = ex._painter
    ex.seed = [[0.5, 0.25]]
    assert ex._painter is painter                            # same figure, new numbers
    assert "0.25" in texts(painter.fig) and texts(painter.fig) == texts(ex.figure())
    assert bytes(ex._image.value).startswith(PNG_MAGIC)


def test_parse_numbers_reads_lists_and_rejects_code():
    assert widgets.parse_numbers("[[1, -2.5], [nan, inf]]").shape == (2, 2)
    for bad in ["os.system('x')", "[1, 2] + [3]", "{'a': 1}", "True"]:
        with pytest.raises(ValueError, match="could not read"):
            widgets.parse_numbers(bad)


def _pixels(png):
    import io
    import matplotlib.image as mpimg
    return mpimg.imread(io.BytesIO(bytes(png)), format="png")[..., :3]


def _full_redraw(picture):
    """The picture drawn from scratch (every artist, none cached)."""
    flags = [(a, a.get_animated()) for arts in picture.parts().values() for a in arts]
    for a, _ in flags:
        a.set_animated(False)
    png = viz.to_png(picture.fig)
    for a, f in flags:
        a.set_animated(f)
    return png


def test_stepping_through_new_rows_draws_only_what_changed(monkeypatch):
    """Every part a picture may change is drawn over the background from the first frame,
    so a row that changes for the first time does not redraw the whole canvas; and an
    area measured once per look is not measured again."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    ex = widgets.JacobianExplorer(lambda x: al.outer(x, x).reshape(16), x4())
    ex._repr_mimebundle_()
    ex.step()                                  # the first seed brings the seed column: a new layout
    full_draws, measured = [], []
    draw = FigureCanvasAgg.draw
    monkeypatch.setattr(FigureCanvasAgg, "draw", lambda self, *a: full_draws.append(1) or draw(self, *a))
    extent = viz.Rectangle.get_window_extent
    monkeypatch.setattr(viz.Rectangle, "get_window_extent",
                        lambda self, *a, **k: measured.append(self) or extent(self, *a, **k))
    for _ in range(4):
        ex.step()
    assert ex.rows_done == 5 and not full_draws
    before = len(measured)
    ex.reset()
    for _ in range(5):
        ex.step()                              # the same looks again: nothing new to measure
    assert not full_draws and len(measured) == before


@pytest.mark.parametrize("which", ["seed", "seed_drag", "where", "jacobian", "jacobian_colorbar",
                                   "grad_outputs"])
def test_live_frames_equal_a_full_redraw(which):
    """The live view redraws only what changed; every frame must be, pixel for pixel, a
    full draw."""
    x4v = x4()
    if which == "seed":
        ex = widgets.SeedExplorer(mm, x_mm())
        changes = [lambda s=s: setattr(ex, "seed", s) for s in
                   ([[1, 0]], [[0, 1]], [[0.5, -2]], [[0, 0]], [1, 0], [[1, 1]])]
    elif which == "seed_drag":                # one slider dragged: one row redrawn again and again,
        ex = widgets.SeedExplorer(mm, x_mm())  # so anything it paints on its neighbour builds up
        changes = [lambda v=v: setattr(ex, "seed", [[1.0, v]]) for v in
                   (0.5, 0.25, 0.75, 0.1, 0.6, 0.3, 0.9, 0.4)]
    elif which == "where":
        ex = widgets.WhereExplorer(X, Y)
        changes = ([lambda t=t: setattr(ex, "threshold", t) for t in (0.5, 1.5, 3.5, 9.)]
                   + [lambda: setattr(ex, "sqrt_branch", True), lambda: setattr(ex, "x", [-1, 0, 1, 4]),
                      lambda: setattr(ex, "double_where", True), lambda: setattr(ex, "sqrt_branch", False)])
    elif which == "jacobian":
        ex = widgets.JacobianExplorer(lambda x: al.outer(x, x).reshape(16), x4v)
        changes = [ex.step] * 17 + [ex.reset, ex.step, ex.all_at_once, ex.reset]
    elif which == "jacobian_colorbar":        # cells too small for numbers: a colorbar shows the
        big = al.tensor(np.random.default_rng(3).normal(size=(12, 12)) * np.arange(1, 13)[:, None])
        ex = widgets.JacobianExplorer(lambda x: big @ x, al.tensor(np.linspace(-1, 2, 12), requires_grad=True))
        changes = [ex.step] * 5 + [ex.all_at_once, ex.reset]           # scale, which grows
    else:
        ex = widgets.GradOutputsExplorer(outer, x4v)
        changes = ([lambda i=i: ex.use_preset("one-hot", index=(i % 4, i // 4)) for i in range(16)]
                   + [lambda: ex.use_preset("diagonal"), lambda: ex.set_seed_text("[1, 1, 1, 1]"),
                      lambda: ex.use_preset("ones")])
    ex._repr_mimebundle_()
    for change in changes:
        change()
        live, full = _pixels(ex._image.value), _pixels(_full_redraw(ex._painter))
        assert live.shape == full.shape
        assert np.array_equal(live, full), np.abs(live - full).max()
