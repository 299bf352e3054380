"""The one graph layout (autograd_lab/teaching/graph_layout.py) that both graph painters use:
viz.draw_graph (inches) and the graph explorer's view (pixels).  Checked here on its
own, in both painters' units, without matplotlib."""
import itertools
import subprocess
import sys

import pytest

import autograd_lab as al
from autograd_lab.teaching.graph_layout import GraphModel, Metrics, layout

INCHES = Metrics(margin=0.3, gap=0.5, label_pad=0.28, row_gap=0.2, dummy_gap=0.08, dummy_h=0.16,
                 conn=0.26, exit=0.25, band_gap=0.5, port_step=0.15, port_inset=0.08,
                 label_gap=0.04, label_lift=0.03)
PIXELS = Metrics(margin=6, gap=34, label_pad=8, row_gap=12, dummy_gap=6, dummy_h=12, conn=18,
                 exit=10, band_gap=20, port_step=14, port_inset=10, label_gap=2)


def deep_graph():
    al.manual_seed(1)
    x = al.randn(4, requires_grad=True)
    W1, b1 = al.randn(4, 4, requires_grad=True), al.randn(4, requires_grad=True)
    h = al.tanh(W1 @ x + b1)
    z = al.where(h > 0.1, h, h * 0.01)
    loss = (((al.sigmoid(z) - 0.5) ** 2).mean() + 0.01 * (W1 ** 2).sum()
            + al.exp(-x).sum() * x.norm())
    with al.autograd.trace_backward() as trace:
        loss.backward(retain_graph=True)
    return GraphModel(loss, {"x": x, "W1": W1, "b1": b1, "h": h, "loss": loss}, trace)


def test_the_layout_module_does_not_need_matplotlib():
    code = ("import sys, autograd_lab.teaching.graph_layout; "
            "assert 'matplotlib' not in sys.modules, 'graph_layout imported matplotlib'")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("units, scale, max_width", [(INCHES, 1.0, 6.8), (PIXELS, 100.0, 640.0)])
def test_boxes_labels_and_edges_are_placed_without_overlap_in_either_painters_units(units, scale,
                                                                                    max_width):
    model = deep_graph()
    sizes = [((1.0 + 0.1 * (k % 4)) * scale, (0.4 + 0.15 * (k % 3)) * scale)
             for k in range(len(model.vertices))]
    labels = [None if e.grad is None else (0.8 * scale, 0.25 * scale) for e in model.edges]
    placed = layout(model, sizes, labels, units, max_width)
    assert placed.nbands > 1 and placed.width <= max_width + 1e-9
    assert len(placed.connectors) % 2 == 0 and placed.connectors
    boxes = [(b.x - b.w / 2, b.y - b.h / 2, b.x + b.w / 2, b.y + b.h / 2) for b in placed.boxes]
    boxes += [(lab.x - lab.w / 2, lab.y - lab.h / 2, lab.x + lab.w / 2, lab.y + lab.h / 2)
              for lab in placed.labels if lab is not None]
    for (i, a), (j, c) in itertools.combinations(enumerate(boxes), 2):
        assert a[2] <= c[0] or c[2] <= a[0] or a[3] <= c[1] or c[3] <= a[1], (i, j)
    eps = 1e-9
    for a in boxes:
        assert -eps <= a[0] and a[2] <= placed.width + eps
        assert -eps <= a[1] and a[3] <= placed.height + eps
    for e, pieces in zip(model.edges, placed.pieces):   # from the source's right side to the
        src, dst = placed.boxes[e.src], placed.boxes[e.dst]   # target's left, rightwards
        start, end = pieces[0][0][0], pieces[-1][0][-1]
        assert start == pytest.approx([src.x + src.w / 2, src.y])
        assert end[0] == pytest.approx(dst.x - dst.w / 2) and abs(end[1] - dst.y) < dst.h / 2
        assert [arrow for _, arrow in pieces] == [False] * (len(pieces) - 1) + [True]
        for points, _ in pieces:
            assert all(p[0] <= q[0] for p, q in zip(points, points[1:]))
