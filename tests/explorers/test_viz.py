"""The book's pictures: what draw_graph, plot_jacobian and plot_where draw for the
documents' examples, and how figures reach the page (PNG + alt text)."""
import base64
import io
import itertools
import warnings

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import autograd_lab as al  # noqa: E402
from autograd_lab import viz  # noqa: E402
from sigmoid_layer import layer_inputs  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def texts(fig):
    """Every string drawn in the figure (figure texts and all axes' texts)."""
    out = [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        out += [t.get_text() for t in ax.texts]
    return out


def joined(fig):
    """All the figure's text as one line: values wrapped over several lines read whole."""
    return " ".join(" ".join(texts(fig)).split())


# -- the documents' graphs ---------------------------------------------------------------------
def mm_example():
    x = al.tensor([[2., 1.]], requires_grad=True)
    M = al.tensor([[1., 2.], [3., 4.]])
    return x, M, x @ M


def sigmoid_layer():
    X, y_true, W, b = layer_inputs(seed=0)
    y_pred = al.nn.Sigmoid()(W @ X.t() + b)
    losses = (y_true - y_pred) ** 2
    avg = losses.sum() / 2
    return dict(W=W, b=b, x=X, y_true=y_true, y_pred=y_pred, losses=losses, avg_loss=avg)


def test_draw_graph_of_mm_labels_leaf_op_constant_and_output():
    x, M, y = mm_example()
    fig = viz.draw_graph(y, {"x": x, "M": M})
    t = texts(fig)
    assert "x" in t and "M" in t and "output" in t
    assert "MmBackward0" in t
    assert "[[2., 1.]]" in t and "[[5., 8.]]" in t
    assert "[[1., 2.]," in t and " [3., 4.]]" in t           # M drawn as a matrix, one row a line
    assert "1 constant input" in fig._al_alt and "MmBackward0" in fig._al_alt


def test_draw_graph_with_trace_labels_each_edge_with_the_gradient_that_flowed():
    x, M, y = mm_example()
    with al.autograd.trace_backward() as trace:
        y.backward(al.tensor([[1., 0.]]), retain_graph=True)
    fig = viz.draw_graph(y, {"x": x, "M": M}, trace=trace)
    t = texts(fig)
    assert "← [[1., 3.]]" in t                               # x's share of MmBackward0's output
    assert "grad [[1., 3.]]" in t                             # what the leaf received = x.grad
    assert "seed [[1., 0.]]" in t                             # the seed entering at the output
    assert "none" in t                                        # the constant M gets no gradient
    assert np.allclose(x.grad.numpy(), [[1., 3.]])
    assert "Gradients sent back along the edges: x gets [[1., 3.]]" in fig._al_alt


def test_draw_graph_of_where_shows_the_mask_as_a_constant_no_gradient_reaches():
    x = al.tensor([1., 2., 3., 4.], requires_grad=True)
    y = al.tensor([-1., -2., 3., 4.], requires_grad=True)
    out = al.where(x > 2, x, y)
    with al.autograd.trace_backward() as trace:
        out.backward(al.ones_like(out), retain_graph=True)
    fig = viz.draw_graph(out, {"x": x, "y": y}, trace=trace)
    t = texts(fig)
    assert "WhereBackward0" in t
    assert "mask (bool)" in t and "[F, F, T, T]" in t
    assert "← [0., 0., 1., 1.]" in t and "← [1., 1., 0., 0.]" in t
    assert t.count("none") == 1                               # exactly one constant edge: the mask


def test_draw_graph_reads_number_constants_from_node_args():
    x = al.tensor([1., 2., 3., 4.], requires_grad=True)
    out = al.where(x > 2, x, 0)
    t = texts(viz.draw_graph(out, {"x": x}))
    assert "number" in t and "0" in t and "mask (bool)" in t


def test_draw_graph_marks_freed_nodes_and_drops_their_constants():
    x = al.tensor([1., 2., 3., 4.], requires_grad=True)
    out = al.where(x > 2, x, 0) * 3
    out.sum().backward()                                      # frees the saved inputs
    fig = viz.draw_graph(out, {"x": x})
    t = texts(fig)
    assert t.count("saved values freed") == 2                 # MulBackward0 and WhereBackward0
    assert "mask (bool)" not in t                              # node.args is gone
    assert "freed the values the operations saved" in fig._al_alt


def test_draw_graph_says_when_an_op_did_not_keep_its_big_output():
    x = al.ones(64, 64, requires_grad=True)
    y = (x @ x).sigmoid()                     # matmul's rules never read its 4,096 outputs
    t = texts(viz.draw_graph(y, {"x": x}))
    assert t.count("value not kept") == 1
    assert t[t.index("MmBackward0") + 1:t.index("MmBackward0") + 3] == ["shape (64, 64)", "value not kept"]
    assert t[t.index("SigmoidBackward0") + 1].startswith("[[1., 1.")    # its rule reads it: kept


def test_a_node_whose_numbers_were_written_over_in_place_shows_no_stale_values():
    x = al.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 2
    y[y < 0] = 0                             # writes over what MulBackward0 made
    y.exp_()                                 # and over what IndexPutBackward0 made
    t = texts(viz.draw_graph(y.sum(), {"x": x, "y": y}))
    assert t.count("overwritten in place") == 2
    assert t[t.index("MulBackward0") + 1:t.index("MulBackward0") + 3] == ["shape (3,)", "overwritten in place"]
    assert t[t.index("ExpBackward0") + 1] == "[7.3891, 1., 403.43]"              # its own numbers: shown


def test_draw_graph_of_the_sigmoid_layer_shows_the_true_gradients():
    d = sigmoid_layer()
    with al.autograd.trace_backward() as trace:
        d["avg_loss"].backward(retain_graph=True)
    fig = viz.draw_graph(d["avg_loss"], d, trace=trace, title="one sigmoid layer")
    s = joined(fig)
    for name in ["MmBackward0", "AddBackward0", "SigmoidBackward0", "SubBackward0", "PowBackward0",
                 "SumBackward0", "DivBackward0", "avg_loss", "W", "b", "y_true", "y_pred", "losses"]:
        assert name in texts(fig) or name in s, name
    b_grad = d["b"].grad.numpy().reshape(-1)
    assert f"grad [[{viz.num(b_grad[0])}," in s              # the leaf box holds b.grad
    assert viz.num(b_grad[1]) + "]]" in s
    assert "seed 1." in texts(fig)
    assert "← 0.5" in texts(fig)                               # DivBackward0 sends 1/2 to the sum


def test_draw_graph_of_outer_delivers_twenty_to_every_entry_of_x():
    x = al.tensor([1., 2., 3., 4.], requires_grad=True)
    y = al.outer(x, x)
    with al.autograd.trace_backward() as trace:
        (g,) = al.autograd.grad(y, x, grad_outputs=al.ones_like(y), retain_graph=True)
    s = joined(viz.draw_graph(y, {"x": x}, trace=trace))
    assert np.allclose(g.numpy(), 20.)
    assert "grad [20., 20., 20., 20.]" in s
    assert y.grad_fn.name() in s and y.grad_fn.next_functions[0][0].name() in s


def test_a_deep_chain_wraps_into_bands_no_wider_than_the_limit():
    al.manual_seed(0)
    x = al.randn(3, requires_grad=True)
    y = x * 2
    while y.norm() < 1000:
        y = y * 2
    fig = viz.draw_graph(y, {"x": x}, max_width=10.5)
    t = texts(fig)
    k = sum(1 for s in t if s == "MulBackward0")
    assert k >= 9
    assert fig.get_size_inches()[0] <= 10.5 + 1e-6
    letters = [s for s in t if len(s) == 1 and s.isupper()]
    assert letters and all(letters.count(s) == 2 for s in set(letters))   # each joins two bands
    assert t.count("number") == k                              # one constant 2 per multiplication


def test_inputs_moved_to_a_later_band_keep_the_picture_within_the_limit():
    """A leaf or constant used only in a later band moves to that band's first column,
    which has to make room for its box (the chapter-01 layer was 7.8 inches wide)."""
    al.manual_seed(0)
    x = al.tensor([[0.1, 0.2, 0.3], [0.4, 0.6, 0.8]])
    y_true = al.tensor([[0.0, 1.0]])
    W = al.randn(1, 3, requires_grad=True)
    b = al.randn(1, 2, requires_grad=True)
    y_pred = al.sigmoid(al.mm(W, x.T) + b)
    avg = ((y_true - y_pred) ** 2).sum() / 2
    with al.autograd.trace_backward() as trace:
        avg.backward(retain_graph=True)
    names = {"W": W, "b": b, "y_true": y_true, "y_pred": y_pred, "avg": avg}
    for kw in ({}, {"trace": trace}):
        fig = viz.draw_graph(avg, names, value_width=24, **kw)
        assert fig.get_size_inches()[0] <= 6.8 + 1e-6
        assert sum(1 for s in texts(fig) if len(s) == 1 and s.isupper()) >= 2     # it wrapped


def _extents(fig):
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes:
        for t in ax.texts:
            if t.get_text().strip():
                out.append((t.get_text(), t.get_window_extent(r)))
    return out


def _overlaps(boxes):
    bad = []
    for (s1, a), (s2, b) in itertools.combinations(boxes, 2):
        w = min(a.x1, b.x1) - max(a.x0, b.x0)
        h = min(a.y1, b.y1) - max(a.y0, b.y0)
        if w > 1.0 and h > 1.0:
            bad.append((s1, s2))
    return bad


def _thirty_node_graph():
    al.manual_seed(1)
    x = al.randn(4, requires_grad=True)
    W1, b1 = al.randn(4, 4, requires_grad=True), al.randn(4, requires_grad=True)
    W2, b2 = al.randn(3, 4, requires_grad=True), al.randn(3, requires_grad=True)
    h = al.tanh(W1 @ x + b1)
    h2 = al.relu(W2 @ h + b2)
    z = al.where(h2 > 0.1, h2, h2 * 0.01)
    loss = ((al.sigmoid(z) - 0.5) ** 2).mean() + 0.01 * (W1 ** 2).sum() + al.exp(-x).sum() * x.norm()
    return loss, {"x": x, "W1": W1, "b1": b1, "W2": W2, "b2": b2, "h": h, "loss": loss}


@pytest.mark.parametrize("case", ["mm", "sigmoid", "thirty"])
def test_no_two_labels_overlap(case):
    if case == "mm":
        x, M, y = mm_example()
        out, names = y, {"x": x, "M": M}
    elif case == "sigmoid":
        d = sigmoid_layer()
        out, names = d["avg_loss"], d
    else:
        out, names = _thirty_node_graph()
    with al.autograd.trace_backward() as trace:
        out.backward(retain_graph=True) if out.numel() == 1 else out.backward(al.ones_like(out), retain_graph=True)
    fig = viz.draw_graph(out, names, trace=trace)
    n_nodes = len([s for s in texts(fig) if s.endswith("Backward0") or s.endswith("Backward1")])
    if case == "thirty":
        assert n_nodes >= 20
    assert _overlaps(_extents(fig)) == []


def test_draw_graph_rejects_names_that_are_not_tensors():
    x, M, y = mm_example()
    with pytest.raises(TypeError, match="names maps display names to tensors"):
        viz.draw_graph(y, {"x": [2., 1.]})
    with pytest.raises(TypeError, match="takes a Tensor"):
        viz.draw_graph([1., 2.])


def test_unnamed_leaves_are_numbered_in_reading_order():
    a = al.tensor([1.], requires_grad=True)
    b = al.tensor([2.], requires_grad=True)
    t = texts(viz.draw_graph(a * b + b))
    assert "leaf 0" in t and "leaf 1" in t and "leaf 2" not in t


def test_a_tensor_without_a_graph_is_drawn_alone():
    assert "requires_grad=False: nothing recorded" in texts(viz.draw_graph(al.tensor([1., 2.])))


# -- value summaries ------------------------------------------------------------------------------
def test_summary_shortens_big_tensors_and_falls_back_to_the_shape():
    assert viz.summary([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], width=20) == "[0.1, 0.2, 0.3, …]"
    assert viz.summary(np.arange(1600.).reshape(40, 40), width=16) == "[[0., 1., …], …]"
    assert viz.summary(np.full((40, 40), 123456.789), width=8) == "shape (40, 40)"
    assert viz.summary(al.tensor([[2., 1.]])) == "[[2., 1.]]"
    assert viz.summary(np.array([True, False])) == "[T, F]"
    assert viz.summary(np.array([np.nan, np.inf])) == "[nan, inf]"


# -- plot_jacobian ---------------------------------------------------------------------------------
def test_plot_jacobian_writes_values_and_the_weighted_sum_of_rows():
    J = np.array([[1., 3.], [2., 4.]])                        # y = x @ M at x = [[2, 1]]
    fig = viz.plot_jacobian(J, seed=[1., 1.], row_labels=["y[0,0]", "y[0,1]"],
                            col_labels=["x[0,0]", "x[0,1]"], title="J of x @ M")
    t = texts(fig)
    for s in ["1.", "2.", "3.", "4.", "7.", "y[0,0]", "x[0,1]", "vᵀJ", "J of x @ M"]:
        assert s in t, s
    assert "vᵀJ = [3., 7.]" in fig._al_alt


def test_plot_jacobian_fades_rows_with_zero_weight_and_keeps_their_numbers_in_ink():
    J = np.array([[-0.041526, -0.062289, -0.083053], [0.014808, 0.029616, 0.044424]])
    fig = viz.plot_jacobian(J, seed=[0.5, 0.])
    cells = [p for p in fig.axes[0].patches if isinstance(p, matplotlib.patches.Rectangle)]
    row0, row1 = cells[:3], cells[3:6]
    paper = np.array(matplotlib.colors.to_rgb(viz.PAPER))
    gap = lambda p: np.abs(np.array(p.get_facecolor()[:3]) - paper).max()   # noqa: E731
    assert min(gap(p) for p in row1) < 0.1 < max(gap(p) for p in row0)     # row 1 faded
    ink = [t for t in fig.axes[0].texts if t.get_text() in ("0.0148", "0.0296", "0.0444")]
    assert len(ink) == 3 and {matplotlib.colors.to_hex(t.get_color()) for t in ink} == {viz.INK}
    assert "-0.0208" in texts(fig)                             # 0.5 * -0.041526 under the matrix


def test_plot_jacobian_marks_pending_rows_and_highlights_one():
    J = np.array([[1., 3.], [np.nan, np.nan]])
    fig = viz.plot_jacobian(J, pending=[1], highlight=0, note="1 backward pass so far")
    t = texts(fig)
    assert t.count("?") == 2 and "1 backward pass so far" in t
    assert "not computed yet" in fig._al_alt


@pytest.mark.parametrize("shape", [(3, 3), (1, 300), (200, 1)])
def test_heat_cells_leave_a_gap_and_never_turn_inside_out(shape):
    """Cells are inset by 0.8 px on each side (a quarter of a cell too small for that), so
    none paints its neighbour's pixels, and even a 1 px cell keeps a positive size."""
    J = np.arange(np.prod(shape), dtype=float).reshape(shape)
    fig = viz.plot_jacobian(J)
    fig.canvas.draw()
    found = 0
    for ax in fig.axes:
        for cell in [p for p in ax.patches if type(p) is matplotlib.patches.Rectangle
                     and p.get_linewidth() == 0 and p.get_alpha() is None]:
            found += 1
            box = cell.get_window_extent()
            px = ax.transData.transform([(0, 0), (1, 1)])       # one data unit: one cell
            cw, ch = abs(px[1] - px[0])
            assert 0 < box.width < cw and 0 < box.height < ch
            assert np.isclose(cw - box.width, min(1.6, cw / 2)) and np.isclose(ch - box.height, min(1.6, ch / 2))
    assert found >= J.size                  # every entry's cell (and the vjp's, in a Jacobian)


def test_plot_jacobian_asks_for_a_matrix():
    with pytest.raises(ValueError, match="reshape it"):
        viz.plot_jacobian(np.zeros((4, 4, 4)))
    with pytest.raises(ValueError, match="one weight per output"):
        viz.plot_jacobian(np.zeros((2, 3)), seed=[1., 2., 3.])


# -- plot_where ---------------------------------------------------------------------------------
X, Y = [1., 2., 3., 4.], [-1., -2., 3., 4.]


def test_plot_where_two_branches_routes_gradient_by_the_mask():
    x = al.tensor(X)
    fig = viz.plot_where(x > 2, X, Y, title="where(x > 2, x, y)")
    t = texts(fig)
    assert "None: a bool mask never receives a gradient" in t
    assert "out = [-1., -2., 3., 4.]" in fig._al_alt
    assert "x the gradient [0., 0., 1., 1.]" in fig._al_alt and "y [1., 1., 0., 0.]" in fig._al_alt
    assert {"x.grad", "y.grad", "mask.grad", "g = ∂L/∂out"} <= set(t)


def test_plot_where_with_a_constant_branch_gives_it_no_gradient():
    fig = viz.plot_where(al.tensor(X) > 2, X, 0)
    assert "out = [0., 0., 3., 4.]" in fig._al_alt
    assert "None: a constant gets no gradient" in texts(fig)


def test_plot_where_with_two_constants_has_no_gradient_at_all():
    fig = viz.plot_where(al.tensor(X) > 2, 1, 0)
    assert "out = [0, 0, 1, 1]" in fig._al_alt
    assert "none at all: neither branch requires grad" in texts(fig)


def test_plot_where_draws_the_seed_it_was_given():
    fig = viz.plot_where(al.tensor(X) > 2, X, Y, grad=[1., 2., 3., 4.])
    assert "x the gradient [0., 0., 3., 4.]" in fig._al_alt and "y [1., 2., 0., 0.]" in fig._al_alt


# -- figures on the page ---------------------------------------------------------------------------
def _png_pixels(png):
    import matplotlib.image as mpimg
    return mpimg.imread(io.BytesIO(png), format="png")


def test_figures_have_a_solid_background_and_an_alt_text():
    x, M, y = mm_example()
    for fig in [viz.draw_graph(y, {"x": x}), viz.plot_jacobian([[1., 3.], [2., 4.]]),
                viz.plot_where(al.tensor(X) > 2, X, Y)]:
        png = viz.to_png(fig)
        assert png.startswith(PNG_MAGIC)
        px = _png_pixels(png)
        assert px.shape[2] == 3 or np.all(px[..., 3] == 1.0)  # no transparency anywhere
        assert np.allclose(px[0, 0, :3], matplotlib.colors.to_rgb(viz.PAPER), atol=1 / 255)
        assert isinstance(fig._al_alt, str) and fig._al_alt.endswith(".") and len(fig._al_alt) > 40


def test_to_png_gives_the_same_bytes_for_the_same_figure():
    x, M, y = mm_example()
    a = viz.to_png(viz.draw_graph(y, {"x": x}))
    b = viz.to_png(viz.draw_graph(y, {"x": x}))
    assert a == b


def test_a_book_figure_displays_as_a_png_with_alt_text_in_its_metadata():
    fig = viz.plot_jacobian([[1., 3.], [2., 4.]])
    data, meta = fig._repr_mimebundle_()
    assert set(data) == {"image/png", "text/plain"}           # one copy of the picture
    assert base64.b64decode(data["image/png"]).startswith(PNG_MAGIC)
    width = round(fig.bbox.width)                              # the figure's size at 100 dpi
    assert meta == {"image/png": {"alt": fig._al_alt, "width": width}}
    assert data["text/plain"] == fig._al_alt
    png, png_meta = fig._repr_png_()
    assert png.startswith(PNG_MAGIC) and png_meta == {"alt": fig._al_alt, "width": width}


def test_a_picture_holds_two_pixels_per_pixel_of_the_page():
    """Drawn at twice its size and shown at its own: sharp on a high-density screen."""
    from PIL import Image
    fig = viz.plot_jacobian([[1., 3.], [2., 4.]])
    pic = viz.picture(fig)
    w, h = Image.open(io.BytesIO(pic.png)).size
    assert pic.width == round(fig.bbox.width) and w == 2 * pic.width
    assert abs(h - 2 * fig.bbox.height) <= 1
    assert f'width="{pic.width}"' in pic.html()


def test_ipython_shows_a_figure_with_its_alt_text():
    from IPython.core.formatters import DisplayFormatter
    fig = viz.plot_jacobian([[1., 3.], [2., 4.]])
    data, meta = DisplayFormatter().format(fig)
    assert "image/png" in data and "text/html" not in data
    assert meta["image/png"]["alt"] == fig._al_alt


def test_show_displays_png_with_alt_and_closes_the_pyplot_figure(monkeypatch):
    import IPython.display
    import matplotlib.pyplot as plt
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    fig, ax = plt.subplots()
    ax.set_title("a line")
    viz.show(fig, alt='A line, with "quotes" & <brackets>.')
    assert not plt.fignum_exists(fig.number)
    (pic,) = shown
    data, meta = pic._repr_mimebundle_()
    assert base64.b64decode(data["image/png"]).startswith(PNG_MAGIC)
    assert meta["image/png"]["alt"] == 'A line, with "quotes" & <brackets>.'
    assert 'alt="A line, with &quot;quotes&quot; &amp; &lt;brackets&gt;."' in pic.html()
    assert repr(pic) == 'A line, with "quotes" & <brackets>.'
    shown.clear()
    viz.show(viz.plot_jacobian([[1.]]))
    assert shown[0].alt.startswith("Heatmap of a 1-by-1 Jacobian")


def test_no_glyph_is_missing_from_the_fonts():
    x, M, y = mm_example()
    with al.autograd.trace_backward() as trace:
        y.backward(al.tensor([[1., 1.]]), retain_graph=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for fig in [viz.draw_graph(y, {"x": x}, trace=trace), viz.plot_jacobian([[1.]], seed=[1.]),
                    viz.plot_where(al.tensor(X) > 2, X, Y)]:
            viz.to_png(fig)
    assert [str(w.message) for w in caught if "Glyph" in str(w.message)] == []


def test_after_a_backward_the_alt_text_counts_the_constants_still_drawn():
    """A subtraction saves nothing, so its constant stays in the picture after a backward
    freed the others: the text counts it (chapter 01's y_true)."""
    x = al.tensor([1., 2.], requires_grad=True)
    target = al.tensor([0., 1.])
    loss = ((target - x.sigmoid()) ** 2).sum()
    loss.backward()
    fig = viz.draw_graph(loss, {"x": x})
    assert "constant" in texts(fig)                            # the target, still drawn
    assert "the constants they held are no longer drawn (1 other constant input still drawn)" \
        in fig._al_alt
