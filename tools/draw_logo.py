"""Draw the book's logo and favicon with matplotlib (nothing is fetched).

The picture is the book's subject in one glance: two leaves feed an operation node,
and a gradient arrow runs back against the forward edges.

    python tools/draw_logo.py    # writes book/_static/logo.png, logo-dark.png, favicon.png
"""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Circle, FancyArrowPatch  # noqa: E402

STATIC = Path(__file__).resolve().parent.parent / "book" / "_static"
INK = "#1f3b57"        # forward graph
GRAD = "#d9572b"       # the gradient flowing back
PAPER = "#ffffff"      # solid background: readable on light and dark pages
# the dark-theme logo: same drawing, light ink on the dark page's colour
DARK = {"INK": "#cfe0f1", "GRAD": "#f08a5d", "PAPER": "#121212"}


def _graph(ax, *, with_labels, scale=1.0):
    """Two leaves (x, W) feed one op node; the output y; a gradient arrow runs back."""
    leaves = [(0.16, 0.66), (0.16, 0.2)]
    op, out = (0.5, 0.43), (0.84, 0.43)
    r, lw = 0.11, 2.4 * scale
    for xy in leaves:
        ax.add_patch(FancyArrowPatch(xy, op, arrowstyle="-|>", mutation_scale=12 * scale,
                                     lw=lw, color=INK, shrinkA=14 * scale, shrinkB=16 * scale))
    ax.add_patch(FancyArrowPatch(op, out, arrowstyle="-|>", mutation_scale=12 * scale,
                                 lw=lw, color=INK, shrinkA=16 * scale, shrinkB=14 * scale))
    for xy in leaves + [out]:
        ax.add_patch(Circle(xy, r, fc=PAPER, ec=INK, lw=lw))
    ax.add_patch(Circle(op, r * 1.1, fc=INK, ec=INK))
    # the backward pass: a curved arrow from the output back over the graph to a leaf
    ax.add_patch(FancyArrowPatch((out[0], out[1] + r + 0.02), (leaves[0][0] + 0.06, leaves[0][1] + r + 0.02),
                                 connectionstyle="arc3,rad=0.45", arrowstyle="-|>",
                                 mutation_scale=14 * scale, lw=lw * 1.1, color=GRAD))
    if with_labels:
        for (x, y), name in zip(leaves + [out], ["x", "W", "y"]):
            ax.text(x, y, name, ha="center", va="center", fontsize=13,
                    fontweight="bold", color=INK, fontstyle="italic")
        ax.text(*op, "@", ha="center", va="center", fontsize=14, color=PAPER,
                fontweight="bold")


def draw_logo(path, *, dark=False):
    global INK, GRAD, PAPER
    saved = INK, GRAD, PAPER
    if dark:
        INK, GRAD, PAPER = DARK["INK"], DARK["GRAD"], DARK["PAPER"]
    try:
        _draw_logo(path)
    finally:
        INK, GRAD, PAPER = saved


def _draw_logo(path):
    fig = plt.figure(figsize=(4.0, 1.6), dpi=100, facecolor=PAPER)
    ax = fig.add_axes([0, 0, 0.4, 1])
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    ax.axis("off")
    _graph(ax, with_labels=True)
    fig.text(0.44, 0.58, "autograd_lab", fontsize=21, fontweight="bold", color=INK,
             va="center", family="DejaVu Sans")
    fig.text(0.44, 0.33, "gradients you can see", fontsize=12, color=GRAD, va="center")
    fig.savefig(path, facecolor=PAPER, transparent=False)
    plt.close(fig)


def draw_favicon(path):
    fig = plt.figure(figsize=(0.64, 0.64), dpi=100, facecolor=PAPER)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0.02, 0.98)
    ax.set_ylim(0.04, 1.0)
    ax.axis("off")
    _graph(ax, with_labels=False, scale=0.45)
    fig.savefig(path, facecolor=PAPER, transparent=False)
    plt.close(fig)


if __name__ == "__main__":
    STATIC.mkdir(parents=True, exist_ok=True)
    draw_logo(STATIC / "logo.png")
    draw_logo(STATIC / "logo-dark.png", dark=True)
    draw_favicon(STATIC / "favicon.png")
    print(f"wrote logo.png, logo-dark.png and favicon.png in {STATIC}")
