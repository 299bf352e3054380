"""Pictures: graphs, Jacobian heatmaps and where's routing, drawn with matplotlib.

``draw_graph`` draws the graph behind a tensor (with the gradient on each edge after a
traced backward), ``plot_jacobian`` a Jacobian as a heatmap (rows weighted by a seed),
``plot_where`` how ``where`` routes values forward and gradients back.

matplotlib is an optional extra (``pip install 'autograd_lab[viz]'``); this module is
the only place (with ``widgets/``) that imports it.  Every function returns a
:class:`BookFigure` -- a plain matplotlib ``Figure`` that a notebook shows as a PNG with
alt text -- and stores a one-sentence description in ``fig._al_alt``.  ``show(fig)``
displays a figure with that alt text and closes it.

    import autograd_lab as al
    x = al.tensor([[2., 1.]], requires_grad=True)
    y = x @ al.tensor([[1., 2.], [3., 4.]])
    with al.autograd.trace_backward() as trace:
        y.backward(al.tensor([[1., 0.]]), retain_graph=True)
    al.viz.show(al.viz.draw_graph(y, {"x": x}, trace=trace))

Figures are drawn in inches (one data unit = one inch) so that boxes are sized from the
measured width of their labels and the picture grows with the graph instead of
shrinking its text.  Colours are the Okabe-Ito palette and ColorBrewer's diverging
RdBu/PuOr maps (safe for the common colour-vision deficiencies) on a light, solid
card that reads the same on light and dark page themes.
"""
import base64
import html
import io
import math
import sys
import textwrap

import numpy as np

try:
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import Normalize, to_rgb
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, PathPatch, Rectangle
    from matplotlib.path import Path
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("autograd_lab.teaching.viz draws with matplotlib, an optional extra of "
                      "autograd_lab: pip install 'autograd_lab[viz]'") from exc

from ..core.tensor import Tensor
from .graph_layout import GraphModel, Metrics, layout

# -- colours -----------------------------------------------------------------------------
PAPER = "#fbfaf6"        # the card every figure is drawn on
INK = "#1e1e1e"
MUTED = "#6a6a6a"
RULE = "#b9b6ad"
BLUE = "#0072B2"         # Okabe-Ito
ORANGE = "#E69F00"
GREEN = "#009E73"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"
SKY = "#56B4E9"
DARK_ORANGE = "#9a5b00"  # orange text that stays readable on the card


def _tint(color, amount):
    """``color`` mixed with white: ``amount`` 1 is the colour, 0 is white."""
    r, g, b = to_rgb(color)
    return (1 - amount + amount * r, 1 - amount + amount * g, 1 - amount + amount * b)


LEAF_FILL, OP_FILL, OUT_FILL, CONST_FILL = (_tint(SKY, 0.28), _tint(ORANGE, 0.22),
                                            _tint(GREEN, 0.22), "#ececea")
TRUE_FILL, FALSE_FILL, NAN_FILL = _tint(BLUE, 0.25), _tint(ORANGE, 0.32), _tint(VERMILLION, 0.3)

_STYLES = {  # name -> (family, size in points, weight, slant)
    "title": ("DejaVu Sans", 11.0, "bold", "normal"),
    "name": ("DejaVu Sans", 8.5, "bold", "normal"),
    "op": ("DejaVu Sans", 8.5, "bold", "normal"),
    "muted": ("DejaVu Sans", 8.0, "normal", "normal"),
    "value": ("DejaVu Sans Mono", 7.5, "normal", "normal"),
    "grad": ("DejaVu Sans Mono", 7.5, "bold", "normal"),
    "note": ("DejaVu Sans", 7.0, "normal", "italic"),
    "edge": ("DejaVu Sans Mono", 7.2, "bold", "normal"),
    "label": ("DejaVu Sans", 8.5, "normal", "normal"),
    "legend": ("DejaVu Sans", 8.0, "normal", "normal"),
}
_COLORS = {"title": INK, "name": INK, "op": INK, "muted": MUTED, "value": INK,
           "grad": VERMILLION, "note": VERMILLION, "edge": VERMILLION, "label": INK,
           "legend": MUTED}
_PROPS = {k: FontProperties(family=f, size=s, weight=w, style=st)
          for k, (f, s, w, st) in _STYLES.items()}


class _Ruler:
    """Text sizes in inches, measured by the Agg renderer at 72 dpi (1 pixel = 1 point)."""

    def __init__(self):
        self._renderer = FigureCanvasAgg(Figure(dpi=72)).get_renderer()
        self._cache = {}

    def size(self, text, style):
        key = (text, style)
        if key not in self._cache:
            w, h, _ = self._renderer.get_text_width_height_descent(text, _PROPS[style], ismath=False)
            self._cache[key] = (w / 72.0, _STYLES[style][1] * 1.32 / 72.0)
        return self._cache[key]

    def width(self, text, style):
        return self.size(text, style)[0]


_ruler = None


def _measure():
    global _ruler
    if _ruler is None:
        _ruler = _Ruler()
    return _ruler


def _text(ax, x, y, s, style, **kw):
    """A label in one of the named styles; never parsed as math ($ stays a dollar)."""
    kw.setdefault("color", _COLORS[style])
    return ax.text(x, y, s, fontproperties=_PROPS[style], parse_math=False, **kw)


# -- figures that show themselves with alt text -------------------------------------------
class BookFigure(Figure):
    """A matplotlib Figure that a notebook displays as a PNG carrying its alt text.

    Displayed, it gives ``image/png`` with ``{"alt": ...}`` in the output's metadata
    (the book's Sphinx extension puts that on the ``<img>``) and its alt text as
    ``text/plain``."""

    _al_alt = None

    def _repr_mimebundle_(self, include=None, exclude=None):
        return picture(self)._repr_mimebundle_(include, exclude)

    def _repr_png_(self):
        return picture(self)._repr_png_()


def new_figure(width, height):
    """A blank figure of the book's paper colour, not registered with pyplot (a notebook
    shows it only where it is displayed)."""
    fig = BookFigure(figsize=(max(width, 1.0), max(height, 0.6)), dpi=100, facecolor=PAPER)
    FigureCanvasAgg(fig)
    return fig


def to_png(fig, dpi=None):
    """The figure as PNG bytes, on its solid background, with no software/date metadata
    (so the same figure always gives the same bytes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi or fig.dpi, facecolor=fig.get_facecolor(),
                edgecolor="none", metadata={"Software": None})
    return buf.getvalue()


def compact_png(png, colors=128):
    """A PNG re-encoded for storing in a notebook or a page: opaque RGB reduced to a
    palette of ``colors`` (these pictures are flat colours and text, so 128 look the
    same) -- about a quarter of the bytes."""
    from PIL import Image
    image = Image.open(io.BytesIO(bytes(png))).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=colors, dither=Image.Dither.NONE).save(out, format="png", optimize=True)
    return out.getvalue()


def alt_text(fig):
    """The one-sentence description stored by the function that drew ``fig``; for other
    figures, one built from their titles."""
    alt = getattr(fig, "_al_alt", None)
    if alt:
        return alt
    titles = [t.get_text() for t in getattr(fig, "texts", []) if t.get_text()]
    for ax in getattr(fig, "axes", []):
        if ax.get_title():
            titles.append(ax.get_title())
    return "Figure: " + "; ".join(titles) if titles else "A figure."


def _img_html(png, alt, width=None):
    data = base64.b64encode(png).decode("ascii")
    size = f'width="{width}" ' if width else ""
    return (f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt, quote=True)}" '
            f'{size}style="max-width:100%; height:auto;"/>')


def mime_subset(data, include=None, exclude=None):
    """The entries of a MIME bundle that IPython's ``include`` / ``exclude`` ask for."""
    return {k: v for k, v in data.items()
            if (not include or k in include) and not (exclude and k in exclude)}


PIXEL_RATIO = 2     # pictures hold two pixels per pixel of the page: sharp on high-density
                    # screens and when zoomed, shown at the size they were laid out for


def picture(fig, alt=None):
    """``fig`` rendered as a :class:`Picture`: PNG at ``PIXEL_RATIO`` times the figure's
    size, to be shown ``fig``'s width wide (at 100 dpi), with alt text."""
    png = compact_png(to_png(fig, dpi=fig.dpi * PIXEL_RATIO))
    return Picture(png, alt or alt_text(fig), width=round(fig.bbox.width))


class Picture:
    """A rendered figure: PNG bytes, alt text and the width (CSS pixels) to show it at.
    A notebook shows it as ``image/png`` with ``{"alt": ..., "width": ...}`` in the output
    metadata (JupyterLab sizes the image by it; the book's Sphinx extension puts both on
    the ``<img>``); as text it is its alt text.  ``html()`` gives the same picture as a
    self-contained ``<img src="data:..." alt="...">``."""

    def __init__(self, png, alt, width=None):
        self.png = png
        self.alt = alt
        self.width = width

    def _metadata(self):
        return {"alt": self.alt, **({"width": self.width} if self.width else {})}

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = {"image/png": base64.b64encode(self.png).decode("ascii"), "text/plain": self.alt}
        return mime_subset(data, include, exclude), {"image/png": self._metadata()}

    def _repr_png_(self):
        return self.png, self._metadata()

    def html(self):
        return _img_html(self.png, self.alt, self.width)

    def __repr__(self):
        return self.alt


def show(fig, alt=None):
    """Display ``fig`` in a notebook as a PNG with alt text (``image/png`` plus
    ``{"alt": ...}`` metadata, which the book's build puts on the ``<img>``), and close it
    so it is not shown a second time at the end of the cell.  ``alt`` overrides the
    figure's own description.  Works for any matplotlib figure."""
    shown = picture(fig, alt)
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close(fig)
    try:
        from IPython.display import display
    except ImportError:                       # plain Python: say what would be shown
        print(shown.alt)
        return None
    display(shown)
    return None


# -- numbers as short text ------------------------------------------------------------------
def num(v, digits=4):
    """One number in the book's style: whole floats as ``5.``, else 4 significant digits."""
    if isinstance(v, (bool, np.bool_)):
        return "T" if v else "F"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "0."
    if v.is_integer() and abs(v) < 1e6:
        return f"{int(v)}."
    if 1e-3 <= abs(v) < 1e5:                  # torch's four decimals (fewer past 10, so at
        places = digits - max(0, int(math.floor(math.log10(abs(v)))))   # most 5 digits),
        return f"{v:.{max(places, 1)}f}".rstrip("0")                    # zeros dropped
    s = f"{v:.{digits}g}"
    if "e" in s:
        mant, exp = s.split("e")
        s = f"{mant}e{int(exp)}"
    return s


def _array(value):
    if isinstance(value, Tensor):
        return value._data
    return np.asarray(value)


def nested(a, fmt):
    if a.ndim == 0:
        return fmt(a.item())
    if a.ndim == 1:
        return "[" + ", ".join(fmt(v) for v in a.tolist()) + "]"
    return "[" + ", ".join(nested(r, fmt) for r in a) + "]"


def shape_str(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def summary(value, width=20, digits=4):
    """A value in at most ``width`` characters: all of it (``[[2., 1.]]``) if it fits, its
    first entries (``[0.1, 0.2, …]``) if not, its shape (``shape (40, 40)``) if not even
    one entry fits."""
    a = _array(value)
    fmt = (lambda v: num(v, digits))
    if a.ndim == 0 or a.size == 0:
        return nested(a, fmt)
    full = nested(a, fmt) if a.size <= 64 else None
    if full is not None and len(full) <= width:
        return full
    rows = a.reshape(-1, a.shape[-1])
    first = rows[0]
    more_rows = rows.shape[0] > 1
    depth = a.ndim - 1
    for k in range(min(first.size, 8), 0, -1):
        inner = "[" + ", ".join(fmt(v) for v in first[:k].tolist()) + (", …]" if k < first.size else "]")
        s = "[" * depth + inner + (", …" if more_rows else "") + "]" * depth
        if len(s) <= width:
            return s
    return "shape " + shape_str(a.shape)


def _elided(value, text):
    return _array(value).size > 1 and ("…" in text or text.startswith("shape"))


# ==========================================================================================
# draw_graph
# ==========================================================================================
def _wrap_values(text, width):
    """Break a summary such as ``[0.1257, -0.4219, 0.6534]`` after commas into lines of at
    most ``width`` characters (a token longer than that gets a line of its own)."""
    if len(text) <= width:
        return [text]
    parts = text.split(", ")
    lines, cur = [], ""
    for k, p in enumerate(parts):
        piece = p + ("," if k < len(parts) - 1 else "")
        if cur and len(cur) + 1 + len(piece) > width:
            lines.append(cur)
            cur = piece
        else:
            cur = piece if not cur else cur + " " + piece
    lines.append(cur)
    return lines


def _value_block(value, width, max_lines=3):
    """A value as up to ``max_lines`` lines of at most ``width`` characters: a small matrix
    one row per line, like torch prints it; anything else wrapped after commas; shortened
    (``[0.1, 0.2, …]``) or reduced to its shape when it does not fit."""
    a = _array(value)
    fmt = num
    if a.ndim == 2 and 1 < a.shape[0] <= max_lines:
        rows = ["[" + ", ".join(fmt(v) for v in r.tolist()) + "]" for r in a]
        lines = ["[" + r + ("," if k < len(rows) - 1 else "]") if k == 0 else
                 " " + r + ("," if k < len(rows) - 1 else "]") for k, r in enumerate(rows)]
        if max(len(s) for s in lines) <= width:
            return lines
    lines = _wrap_values(summary(value, width * max_lines), width)
    if len(lines) <= max_lines and max(len(s) for s in lines) <= width + 4:
        return lines
    return [summary(value, width)]


# the spacings of a graph picture, in inches (1 inch is 100 pixels of the page)
_INCHES = Metrics(margin=0.3, gap=0.5, label_pad=0.28, row_gap=0.2, dummy_gap=0.08, dummy_h=0.16,
                  conn=0.26, exit=0.25, band_gap=0.5, port_step=0.15, port_inset=0.08,
                  label_gap=0.04, label_lift=0.03)


def _value_lines(value, width, style="value", prefix=""):
    """A value's lines in a box, ``prefix`` on the first (its shape below, when shortened)."""
    block = _value_block(value, width - len(prefix))
    lines = [((prefix if k == 0 else " " * len(prefix)) + s, style) for k, s in enumerate(block)]
    if _array(value).size > 1 and "…" in block[0] and not block[0].startswith("shape"):
        lines.append(("shape " + shape_str(_array(value).shape), "muted"))
    return lines


def _box_lines(v, width):
    """The lines of text (text, style) in the box of model vertex ``v``."""
    if v.kind in ("leaf", "output"):
        lines = [(v.name, "name")] + _value_lines(v.value, width)
        if v.grad is not None:
            lines += _value_lines(v.grad, width, "grad", "grad " if v.kind == "leaf" else "seed ")
        return lines
    if v.kind == "op":
        lines = ([(v.name, "muted")] if v.name else []) + [(v.op, "op")]
        if v.value is None:
            lines += [("shape " + shape_str(v.shape), "muted"), (v.note, "note")]
        else:
            lines += _value_lines(v.value, width)
        return lines + ([("saved values freed", "note")] if v.freed else [])
    if v.note is not None:                       # a tensor with no graph, drawn alone
        return [(v.name, "name")] + _value_lines(v.value, width) + [(v.note, "note")]
    if v.text is not None:                       # a constant that is not a number
        return [(v.name, "muted"), (v.text[:width], "value")]
    if isinstance(v.value, Tensor):
        return [(v.name, "muted")] + _value_lines(v.value, width)
    return [(v.name, "muted"), (num(v.value), "value")]


def _edge_label(e, traced):
    """The gradient written beside an edge ("← ..."), as lines, or None."""
    if e.kind == "const":
        return ["none"] if traced else None
    if e.grad is None:
        return None
    block = _value_block(e.grad, 16, 3)
    return ["← " + block[0]] + ["  " + s for s in block[1:]]


def draw_graph(tensor, names=None, *, trace=None, title=None, figsize=None, max_width=6.8,
               value_width=22):
    """Draw the graph behind ``tensor``: leaves on the left, the output on the right.

    - leaves are named from ``names`` (display name -> tensor, e.g. ``{"W": W, "x": x}``),
      else ``leaf 0``, ``leaf 1``, ...; every box shows its value (up to three lines of
      about ``value_width`` characters; big tensors shortened, ``[0.1, 0.2, …]``, or
      reduced to their shape);
    - op nodes show their ``grad_fn`` name and output value; a tensor in ``names`` that is
      an intermediate result names its node;
    - constants that feed an op (numbers, tensors that do not require grad, such as a
      bool mask) are grey dashed inputs that no gradient reaches.  They are read from
      the node's saved inputs, so after a backward without ``retain_graph=True`` they
      are gone and the node is marked "saved values freed";
    - with ``trace=`` (an ``al.autograd.trace_backward()`` that watched a backward), each
      edge is labelled with the gradient that flowed back along it, each leaf with the
      gradient it received and the output with its seed.

    Deep graphs wrap into bands no wider than ``max_width`` inches (a circled letter
    joins an edge that continues in the next band); the default, 6.8 inches at 100 dpi,
    fits the book's text column, so its pictures are shown at their own size.  ``figsize`` fixes the figure size
    (its width is the band width; the drawing is scaled to fit, the text is not).
    The graph and its layout are ``graph_layout``'s, shared with the graph explorer.
    """
    if figsize is not None:
        max_width = float(figsize[0])
    model = GraphModel(tensor, names, trace)
    ruler = _measure()
    lines = [_box_lines(v, value_width) for v in model.vertices]
    sizes = []
    for box in lines:                            # box sizes from the measured labels
        measured = [ruler.size(t, s) for t, s in box]
        sizes.append((max(0.85, max(w for w, _ in measured) + 0.22), sum(h for _, h in measured) + 0.14))
    labels, label_sizes = [], []
    for e in model.edges:
        text = _edge_label(e, trace is not None)
        style = "edge" if e.kind != "const" else "note"
        labels.append(None if text is None else (text, style))
        label_sizes.append(None if text is None else
                           (max(ruler.width(s, style) for s in text), ruler.size(text[0], style)[1] * len(text)))
    placed = layout(model, sizes, label_sizes, _INCHES, max_width, top=0.5 if title else 0.2)

    width = max(placed.width, 3.2)
    legend = _graph_legend(model, placed.nbands > 1)
    legend_lines = textwrap.wrap(legend, max(40, int((width - 0.5) / (7.5 * 0.56 / 72))))
    height = placed.height + 0.25 + 0.16 * len(legend_lines) + 0.12
    fig = new_figure(*(figsize if figsize is not None else (width, height)))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_axis_off()
    ax.set_xlim(0, width)
    ax.set_ylim(-height, 0)
    if figsize is not None:                      # scale the drawing into the given size,
        scale = min(figsize[0] / width, figsize[1] / height)   # same scale on both axes
        dw, dh = figsize[0] / scale, figsize[1] / scale
        ax.set_xlim((width - dw) / 2, (width + dw) / 2)
        ax.set_ylim(-(height + dh) / 2, -(height - dh) / 2)
    if title:
        _text(ax, 0.3, -0.27, title, "title", ha="left", va="center")
    for y in placed.rules:                       # a faint rule between bands
        ax.plot([0.2, width - 0.2], [-y, -y], color=RULE, lw=0.6, ls=(0, (1, 3)))
    for e, pieces in zip(model.edges, placed.pieces):
        _draw_edge(ax, e.kind, pieces)
    for c in placed.connectors:
        _text(ax, c.x, -c.y, c.letter, "legend", ha="center", va="center", color=INK, zorder=6,
              bbox=dict(boxstyle="circle,pad=0.2", fc=PAPER, ec=INK, lw=0.8))
    for v, box, text in zip(model.vertices, placed.boxes, lines):
        _draw_box(ax, v, box, text)
    for label, at in zip(labels, placed.labels):
        if at is not None:
            _text(ax, at.x, -at.y, "\n".join(label[0]), label[1], ha="center", va="center", zorder=6,
                  linespacing=1.1, bbox=dict(boxstyle="round,pad=0.1", fc=PAPER, ec="none", alpha=0.9))
    for k, line in enumerate(legend_lines):
        _text(ax, 0.3, -(placed.height + 0.28 + 0.16 * k), line, "legend", ha="left", va="center")
    fig._al_alt = _graph_alt(model, tensor, trace, lines, labels)
    return fig


def _graph_legend(model, wrapped):
    parts = ["Arrows: data flows forward, from the inputs (left) to the output (right)."]
    if model.trace is not None:
        parts.append("Orange labels (←): the gradient sent back along each edge by the traced backward.")
    if model.n_consts:
        parts.append("Grey dashed: constants; no gradient reaches them.")
    if model.freed_any:
        parts.append("'saved values freed': a backward released the node's saved inputs, so its "
                     "constants are no longer shown (use retain_graph=True to keep them).")
    if wrapped:
        parts.append("A circled letter continues an edge in the next band.")
    return " ".join(parts)


def _graph_alt(model, tensor, trace, lines, labels):
    """The graph in words, with the numbers the picture shows: each box's value (and a
    leaf's gradient, the output's seed), and each edge's gradient after a traced backward.
    Constants a backward freed are not drawn, and the text says so rather than counting
    fewer of them."""
    if model.root is None:
        return "A single tensor with no recorded operations behind it."
    out = model.tensor_names.get(id(tensor), "the output")
    leaves = ", ".join(model.leaf_names[:6]) + (", …" if len(model.leaf_names) > 6 else "")
    one = model.n_leaves == 1
    s = (f"Computational graph of {out}: {model.n_leaves} leaf tensor{'' if one else 's'} "
         f"that require{'s' if one else ''} grad ({leaves}) on the left "
         f"feed{'s' if one else ''} {model.n_ops} "
         f"operation{'s' if model.n_ops != 1 else ''}, ending in the output on the right")
    if model.freed_any:
        s += ("; a backward freed the values the operations saved, so the constants they "
              "held are no longer drawn")
        if model.n_consts:                 # (inputs of operations that saved nothing)
            one = model.n_consts == 1
            s += f" ({model.n_consts} other constant input{'' if one else 's'} still drawn)"
    elif model.n_consts:
        one = model.n_consts == 1
        s += (f", with {model.n_consts} constant input{'' if one else 's'} that "
              f"receive{'s' if one else ''} no gradient")

    def words(k):
        return " ".join(" ".join(text.split()) for text, style in lines[k] if style != "note")
    boxes = [words(v.id) for v in model.vertices if v.kind in ("leaf", "op", "output")]
    s += ". Boxes: " + "; ".join(boxes).rstrip(".")
    if trace is not None:
        edges = [f"{words(e.src).split(' ')[0]} gets {' '.join(' '.join(label[0]).replace('←', '').split())} "
                 f"from {words(e.dst).split(' ')[0]}"
                 for e, label in zip(model.edges, labels) if e.kind == "grad" and label]
        if edges:
            s += ". Gradients sent back along the edges: " + "; ".join(edges)
    return s if s.endswith(".") else s + "."


_BOX = {"leaf": (LEAF_FILL, BLUE, "-"), "op": (OP_FILL, DARK_ORANGE, "-"),
        "output": (OUT_FILL, GREEN, "-"), "const": (CONST_FILL, MUTED, "--")}


def _draw_box(ax, v, box, lines):
    fill, edge, ls = _BOX[v.kind]
    if v.freed:
        ls = (0, (4, 2))
    x0, y0 = box.x - box.w / 2, -(box.y + box.h / 2)
    ax.add_patch(FancyBboxPatch((x0, y0), box.w, box.h, boxstyle="round,pad=0,rounding_size=0.07",
                                fc=fill, ec=edge, lw=1.3 if v.kind != "const" else 1.0, ls=ls,
                                zorder=4))
    ruler = _measure()
    y = box.y - box.h / 2 + 0.07
    for text, style in lines:
        h = ruler.size(text, style)[1]
        _text(ax, box.x, -(y + h / 2), text, style, ha="center", va="center", zorder=5)
        y += h


def _curve(points):
    """A smooth path through ``points`` with horizontal tangents (a cubic per segment)."""
    verts, codes = [points[0]], [Path.MOVETO]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        dx = (x1 - x0) / 2
        verts += [(x0 + dx, y0), (x1 - dx, y1), (x1, y1)]
        codes += [Path.CURVE4] * 3
    return Path(verts, codes)


def _draw_edge(ax, kind, pieces):
    color, ls, lw = (MUTED, "--", 1.0) if kind == "const" else (INK, "-", 1.25)
    for points, arrow in pieces:
        if len(points) < 2:
            continue
        path = _curve([(x, -y) for x, y in points])
        if arrow:
            ax.add_patch(FancyArrowPatch(path=path, arrowstyle="-|>,head_length=5,head_width=2.6",
                                         mutation_scale=1, color=color, lw=lw, ls=ls, zorder=3))
        else:
            ax.add_patch(PathPatch(path, fill=False, ec=color, lw=lw, ls=ls, zorder=3))


# ==========================================================================================
# plot_jacobian
# ==========================================================================================
def _luminance(rgba):
    r, g, b = rgba[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


class _Heat:
    """One matrix drawn as coloured cells with its values written in them.  Each cell is
    its own rectangle, so a row can be redrawn alone; ``set`` changes values and colours
    without rebuilding anything (fast enough for a slider)."""

    def __init__(self, ax, shape, cmap, fontsize, text=True):
        self.ax = ax
        self.shape = shape
        self.cmap = colormaps[cmap]
        self.bad = to_rgb("#d6d4cc")              # not computed (hatched ///) or not finite (xxx)
        m, n = shape
        self.norm = Normalize(-1, 1)
        self.mappable = ScalarMappable(norm=self.norm, cmap=self.cmap)
        ax.set_xlim(-0.5, n - 0.5)
        ax.set_ylim(m - 0.5, -0.5)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_facecolor(PAPER)
        for s in ax.spines.values():
            s.set_visible(False)
        # every cell is inset by 0.8 px on each side: the card shows through a 1.6 px gap, and
        # no cell paints a pixel of its neighbour's (a 1.6 px stroke in the card's colour did,
        # which left a faint line behind when one row was redrawn alone).  No stroke; the
        # edge colour is the colour of the hatching.  The gap is measured on the axes as
        # placed now: the layouts here fix every axes before the cells are drawn.
        fig, pos = ax.figure, ax.get_position()
        gx = _inset(pos.width * fig.bbox.width / n)
        gy = _inset(pos.height * fig.bbox.height / m)
        self.cells = [[Rectangle((j - 0.5 + gx, i - 0.5 + gy), 1 - 2 * gx, 1 - 2 * gy, fc=self.bad,
                                 ec=PAPER, lw=0, zorder=1) for j in range(n)] for i in range(m)]
        for row in self.cells:
            for r in row:
                ax.add_patch(r)
        self.texts = None
        if text:
            prop = FontProperties(family="DejaVu Sans", size=fontsize)
            self.texts = [[ax.text(j, i, "", ha="center", va="center", fontproperties=prop,
                                   parse_math=False, zorder=2) for j in range(n)] for i in range(m)]

    def set(self, A, pending=(), fade=None):
        """Show the values ``A``; rows in ``pending`` as not computed yet; ``fade[i]`` (0 to 1)
        blends row i's colours toward the card, its numbers staying in dark ink."""
        A = np.array(A, dtype=float).reshape(self.shape)
        shown = A.copy()
        for i in pending:
            shown[i, :] = np.nan
        finite = shown[np.isfinite(shown)]
        vmax = float(np.abs(finite).max()) if finite.size else 1.0
        vmax = vmax if vmax > 0 else 1.0
        self.norm.vmin, self.norm.vmax = -vmax, vmax
        with np.errstate(all="ignore"):
            colors = self.cmap(self.norm(np.where(np.isfinite(shown), shown, 0.0)))
        if fade is not None:
            f = np.clip(np.asarray(fade, dtype=float), 0.0, 1.0).reshape(-1, 1, 1)
            colors[..., :3] = colors[..., :3] * (1 - f) + np.array(to_rgb(PAPER)) * f
        pend = set(pending)
        for i, row in enumerate(self.cells):
            for j, r in enumerate(row):
                ok = np.isfinite(shown[i, j])
                r.set_facecolor(colors[i, j] if ok else self.bad)
                r.set_hatch(None if ok else ("///" if i in pending else "xxx"))
                if self.texts is None:
                    continue
                t = self.texts[i][j]
                v = A[i, j]
                if i in pend:
                    t.set_text("?")
                    t.set_color(MUTED)
                    t.set_fontweight("normal")
                elif not np.isfinite(v):
                    t.set_text(num(v))
                    t.set_color(VERMILLION)
                    t.set_fontweight("bold")
                else:
                    t.set_text(num(v))
                    t.set_color("white" if _luminance(colors[i, j]) < 0.45 else INK)
                    t.set_fontweight("normal")


def _inset(cell):
    """0.8 px as a fraction of a cell ``cell`` pixels wide (a quarter of a cell too small
    for that: cells of a few pixels keep some colour)."""
    return min(0.8, cell / 4) / cell if cell > 0 else 0.0


def _snap(inches, dpi=100):
    """Round a length to whole pixels at the figures' 100 dpi."""
    return round(inches * dpi) / dpi


def _as_matrix(J, what="J"):
    A = np.array(_array(J), dtype=float)
    if A.ndim == 0:
        A = A.reshape(1, 1)
    elif A.ndim == 1:
        A = A.reshape(1, -1)
    elif A.ndim > 2:
        raise ValueError(f"{what} has shape {shape_str(A.shape)}; draw a Jacobian as a matrix "
                         "(outputs by inputs): reshape it to (number of outputs, number of inputs) "
                         "first, e.g. J.reshape(y.numel(), x.numel())")
    return A


class _JacobianPicture:
    """The figure behind ``plot_jacobian``."""

    def __init__(self, J, seed=None, row_labels=None, col_labels=None, title=None, vjp=None,
                 vjp_label=None, highlight=None, pending=(), note=None):
        A = _as_matrix(J)
        m, n = A.shape
        self.shape = (m, n)
        self.has_seed = seed is not None
        self.has_bottom = seed is not None or vjp is not None
        self.row_labels = list(row_labels) if row_labels is not None else [f"y[{i}]" for i in range(m)]
        self.col_labels = list(col_labels) if col_labels is not None else [f"x[{j}]" for j in range(n)]
        if len(self.row_labels) != m or len(self.col_labels) != n:
            raise ValueError(f"J has {m} rows and {n} columns but {len(self.row_labels)} row labels "
                             f"and {len(self.col_labels)} column labels were given")
        ruler = _measure()
        cs = min(0.78, 7.6 / (n + 2.5), 6.4 / (m + (2.4 if self.has_bottom else 0.6)))
        cs = _snap(max(cs, 0.18))                 # whole pixels: cells meet on pixel edges
        longest = max([len(num(v)) for v in A.ravel()[:400]] + [4])
        fs = min(9.0, cs * 72 * 0.86 / (0.62 * longest))
        text = fs >= 5.5
        self.cs, self.fs, self.text = cs, fs, text
        bottom_label = vjp_label or ("vᵀJ" if self.has_seed else "v")
        label_w = _snap(max([ruler.width(s, "label") for s in self.row_labels + [bottom_label]] + [0.3]) + 0.18)
        seed_w = (cs + 0.16) if self.has_seed else 0.0
        col_rot = any(ruler.width(s, "label") > cs * 0.95 for s in self.col_labels)
        col_h = (max(ruler.width(s, "label") for s in self.col_labels) * 0.72 + 0.12) if col_rot else 0.3
        title_h = 0.42 if title else 0.08
        bottom_h = (0.42 + cs + 0.1) if self.has_bottom else 0.0
        self.note_lines = []
        grid_w = n * cs
        title_w = ruler.width(title, "title") + 0.5 if title else 0.0      # a title is never cut
        W = _snap(max(0.25 + label_w + seed_w + grid_w + 0.35, 3.2, min(title_w, 6.8)))
        wrap = max(30, int((W - 0.4) / (7.5 * 0.56 / 72)))
        note_h = 0.0
        if note:
            self.note_lines = textwrap.wrap(note, wrap)[:3]
            note_h = 0.12 + 0.17 * 3
        cbar_h = 0.0 if text else 0.65
        col_h = _snap(col_h)
        H = _snap(title_h + col_h + m * cs + bottom_h + note_h + cbar_h + 0.18)
        self.fig = fig = new_figure(W, H)
        self.W, self.H = W, H
        x0 = 0.25 + label_w + seed_w
        top = H - title_h - col_h
        ax = fig.add_axes([x0 / W, (top - m * cs) / H, grid_w / W, m * cs / H])
        ax.set_facecolor(PAPER)
        self.heat = _Heat(ax, (m, n), "RdBu_r", fs, text)
        self.ax = ax
        frame = fig.add_axes([0, 0, 1, 1], zorder=-1)
        frame.set_axis_off()
        frame.set_xlim(0, W)
        frame.set_ylim(0, H)
        self.frame = frame
        self.title = _text(frame, 0.25, H - 0.26, title or "", "title", ha="left", va="center")
        for i, s in enumerate(self.row_labels):
            _text(frame, x0 - seed_w - 0.1, top - (i + 0.5) * cs, s, "label", ha="right", va="center")
        for j, s in enumerate(self.col_labels):
            if col_rot:
                _text(frame, x0 + (j + 0.5) * cs, top + 0.06, s, "label", ha="left", va="bottom",
                      rotation=45, rotation_mode="anchor")
            else:
                _text(frame, x0 + (j + 0.5) * cs, top + 0.08, s, "label", ha="center", va="bottom")
        # a frame around a highlighted row
        self.hl = Rectangle((-0.5, -0.5), n, 1, fc="none", ec=INK, lw=2.4, zorder=4, visible=False,
                            clip_on=False)
        ax.add_patch(self.hl)
        if self.has_seed:
            sax = fig.add_axes([(x0 - cs - 0.1) / W, (top - m * cs) / H, cs / W, m * cs / H])
            self.seed_heat = _Heat(sax, (m, 1), "PuOr_r", fs, text)
            _text(frame, x0 - cs / 2 - 0.1, top + 0.08, "v", "name", ha="center", va="bottom")
        if self.has_bottom:
            by = top - m * cs - 0.42 - cs
            bax = fig.add_axes([x0 / W, by / H, grid_w / W, cs / H])
            self.bottom_heat = _Heat(bax, (1, n), "RdBu_r", fs, text)
            self.bottom_label = _text(frame, x0 - seed_w - 0.1, by + cs / 2, bottom_label, "name",
                                      ha="right", va="center")
            if self.has_seed:
                _text(frame, x0 + grid_w / 2, by + cs + 0.2, "rows of J weighted by v, added up", "legend",
                      ha="center", va="center")
        self.note_texts = []
        ny = (top - m * cs - bottom_h - 0.2)
        for k in range(3 if note else 0):
            self.note_texts.append(_text(frame, 0.25, ny - 0.17 * k, "", "legend", ha="left", va="center"))
        self.colorbar = None
        if not text:
            cax = fig.add_axes([x0 / W, 0.38 / H, grid_w / W, 0.1 / H])
            self.colorbar = fig.colorbar(self.heat.mappable, cax=cax, orientation="horizontal")
            cax.tick_params(labelsize=7, colors=MUTED)
        self._draw(A, seed, vjp, title, highlight, pending, note)

    def _draw(self, A, seed, vjp, title, highlight, pending, note):
        m, n = self.shape
        self.title.set_text(title or "")
        v, fade = None, None
        if self.has_seed:
            v = np.array(_array(seed), dtype=float).reshape(-1)
            if v.size != m:
                raise ValueError(f"the seed has {v.size} entries but J has {m} rows (one weight per "
                                 "output)")
            self.seed_heat.set(v.reshape(m, 1))
            # each row fades by how little the seed weighs it (all equally when v is 0)
            finite = np.abs(v[np.isfinite(v)])
            top = finite.max() if finite.size else 0.0
            with np.errstate(all="ignore"):
                w = np.where(np.isfinite(v), np.abs(v) / top, 0.0) if top > 0 else np.zeros(m)
            fade = 0.78 * (1 - w) if top > 0 else np.full(m, 0.6)
        self.heat.set(A, pending, fade)
        if self.has_bottom:
            if vjp is None:
                with np.errstate(all="ignore"):
                    vjp = v @ A
            self.bottom_heat.set(np.array(_array(vjp), dtype=float).reshape(1, n))
        if highlight is not None and 0 <= int(highlight) < m:
            self.hl.set_y(int(highlight) - 0.5)
            self.hl.set_visible(True)
        else:
            self.hl.set_visible(False)
        lines = textwrap.wrap(note, max(30, int((self.W - 0.4) / (7.5 * 0.56 / 72)))) if note else []
        for k, t in enumerate(self.note_texts):
            t.set_text(lines[k] if k < len(lines) else "")
        self.fig._al_alt = _jacobian_alt(A, v, vjp if self.has_bottom else None, pending, highlight)
        return self.fig


def _jacobian_alt(A, v, vjp, pending, highlight):
    """The picture in words, with the numbers a sighted reader reads off it: every entry of
    J row by row (up to 64 of them; a shortened matrix beyond), the seed and vᵀJ."""
    m, n = A.shape
    shown = np.array(A, dtype=float)
    for i in pending:
        shown[i] = np.nan
    rows = "; ".join(f"row {i}: " + ("not computed yet" if i in pending else summary(shown[i], 60))
                     for i in range(min(m, 8)))
    s = (f"Heatmap of a {m}-by-{n} Jacobian (rows: the {m} output entries, columns: the {n} "
         f"input entries): " + (rows if m * n <= 64 else summary(shown, 80)) + ("; …" if m > 8 else ""))
    if highlight is not None:
        s += f"; row {int(highlight)} is framed"
    if v is not None:
        s += f"; the rows are weighted by the seed v = {summary(v, 60)} and their sum vᵀJ = {summary(vjp, 60)} is shown below"
    elif vjp is not None:
        s += f"; the row below is {summary(vjp, 60)}"
    return s + "."


def plot_jacobian(J, *, seed=None, row_labels=None, col_labels=None, title=None, vjp=None,
                  vjp_label=None, highlight=None, pending=(), note=None):
    """A Jacobian as a heatmap with its values in the cells: rows are outputs, columns are
    inputs (a 1-D ``J`` is one row).  Blue is negative, red positive (RdBu).

    With ``seed`` (one weight per row) the rows are shaded by their weight -- a row with
    weight 0 fades out -- the seed is drawn as a column ``v`` on the left, and the
    weighted sum of the rows, vᵀJ, is drawn under the matrix.  Extras: ``vjp`` shows a
    given row under the matrix instead of computing vᵀJ (e.g. ``x.grad`` from a real
    backward), labelled ``vjp_label``; ``highlight`` frames one row; ``pending`` lists
    rows not computed yet (drawn as ``?``); ``note`` adds a line of text underneath.
    """
    return _JacobianPicture(J, seed=seed, row_labels=row_labels, col_labels=col_labels, title=title,
                            vjp=vjp, vjp_label=vjp_label, highlight=highlight, pending=tuple(pending),
                            note=note).fig


# ==========================================================================================
# tables of cells: plot_where and the explorers' value rows
# ==========================================================================================
class Cell:
    __slots__ = ("text", "fill", "color", "bold", "hatch")

    def __init__(self, text, fill=PAPER, color=INK, bold=False, hatch=None):
        self.text, self.fill, self.color, self.bold, self.hatch = text, fill, color, bold, hatch


class Row:
    """A labelled row of cells, or (``merged`` text) one cell spanning the whole row."""
    __slots__ = ("label", "cells", "merged", "gap", "fill", "color")

    def __init__(self, label, cells=None, merged=None, gap=False, fill=PAPER, color=INK):
        self.label, self.cells, self.merged, self.gap = label, cells, merged, gap
        self.fill, self.color = fill, color


class TablePicture:
    """Rows of value cells (one column per entry) with labels on the left."""

    def __init__(self, rows, *, col_labels=None, title=None, legend=None):
        ruler = _measure()
        n = max([len(r.cells) for r in rows if r.cells is not None] + [1])
        self.n = n
        cw = max([0.5] + [ruler.width(c.text, "value") + 0.16 for r in rows if r.cells for c in r.cells])
        self.cw = cw = min(cw, 1.3)
        rh = 0.3
        label_w = max(ruler.width(r.label, "label") for r in rows) + 0.22
        merged_w = max([ruler.width(r.merged, "value") + 0.2 for r in rows if r.merged] + [0.0])
        W = max(0.25 + label_w + max(n * cw, merged_w) + 0.3, 3.0)
        self.label_w, self.merged_w = label_w, max(n * cw, merged_w)
        title_h = 0.45 if title else 0.12
        col_h = 0.26 if col_labels else 0.04
        gaps = sum(0.16 for r in rows if r.gap)
        self.legend_lines = textwrap.wrap(legend, max(40, int((W - 0.4) / (7.5 * 0.56 / 72)))) if legend else []
        H = title_h + col_h + len(rows) * rh + gaps + 0.16 + 0.17 * len(self.legend_lines) + 0.08
        self.fig = fig = new_figure(W, H)
        ax = fig.add_axes([0, 0, 1, 1])
        ax.set_axis_off()
        ax.set_xlim(0, W)
        ax.set_ylim(0, H)
        self.title = _text(ax, 0.25, H - 0.25, title or "", "title", ha="left", va="center")
        x0 = 0.25 + label_w
        y = H - title_h - col_h
        if col_labels:
            for j, s in enumerate(col_labels[:n]):
                _text(ax, x0 + (j + 0.5) * cw, y + 0.1, s, "muted", ha="center", va="center")
        self.labels, self.patches, self.texts = [], [], []
        for r in rows:
            if r.gap:
                y -= 0.16
            self.labels.append(_text(ax, x0 - 0.1, y - rh / 2, r.label, "label", ha="right", va="center"))
            if r.merged is not None:
                w = max(n * cw, merged_w)
                p = Rectangle((x0 + 0.02, y - rh + 0.02), w - 0.04, rh - 0.04, fc=r.fill, ec=RULE, lw=0.6)
                ax.add_patch(p)
                t = _text(ax, x0 + 0.1, y - rh / 2, r.merged, "value", ha="left", va="center", color=r.color)
                self.patches.append([p])
                self.texts.append([t])
            else:
                ps, ts = [], []
                for j, c in enumerate(r.cells):
                    p = Rectangle((x0 + j * cw + 0.02, y - rh + 0.02), cw - 0.04, rh - 0.04, fc=c.fill,
                                  ec=RULE, lw=0.6, hatch=c.hatch)
                    ax.add_patch(p)
                    ts.append(_text(ax, x0 + (j + 0.5) * cw, y - rh / 2, c.text, "value", ha="center",
                                    va="center", color=c.color, fontweight="bold" if c.bold else "normal"))
                    ps.append(p)
                self.patches.append(ps)
                self.texts.append(ts)
            y -= rh
        self.legend_texts = []
        for k, line in enumerate(self.legend_lines):
            self.legend_texts.append(_text(ax, 0.25, y - 0.2 - 0.17 * k, line, "legend", ha="left", va="center"))
        self.W = W


def value_cells(values, fill=PAPER, color=INK, where_mask=None, off_fill=PAPER, off_color=MUTED):
    """Cells for a flat array; entries outside ``where_mask`` drawn muted."""
    cells = []
    for k, v in enumerate(values):
        on = True if where_mask is None else bool(where_mask[k])
        if isinstance(v, (bool, np.bool_)):
            text = "True" if v else "False"
        else:
            text = num(v)
        bad = text in ("nan", "inf", "-inf")
        cells.append(Cell(text, NAN_FILL if bad else (fill if on else off_fill),
                           VERMILLION if bad else (color if on else off_color), bold=bad,
                           hatch="////" if bad else None))
    return cells


def _flat(value, shape):
    a = _array(value)
    return np.broadcast_to(a, shape).reshape(-1)


def where_rows(cond, a, b, out, *, g=None, grad_a=None, grad_b=None, names=("x", "y"),
               a_label=None, b_label=None, a_const=False, b_const=False, after_a_grad=()):
    """The rows of a where picture (used by plot_where and the WhereExplorer)."""
    mask = np.asarray(_array(cond), dtype=bool)
    shape = np.broadcast_shapes(mask.shape, np.shape(_array(a)), np.shape(_array(b)))
    m = _flat(mask, shape)
    na, nb = names
    rows = [
        Row(a_label or (f"{na} (constant)" if a_const else na),
             value_cells(_flat(a, shape), TRUE_FILL, INK, m)),
        Row("mask", [Cell("True" if v else "False", "#e4e3de" if v else PAPER, INK if v else MUTED)
                      for v in m]),
        Row(b_label or (f"{nb} (constant)" if b_const else nb),
             value_cells(_flat(b, shape), FALSE_FILL, INK, ~m)),
    ]
    oflat = _flat(out, shape)
    out_cells = []
    for k, v in enumerate(oflat):
        text = num(v)
        bad = text in ("nan", "inf", "-inf")
        out_cells.append(Cell(text, NAN_FILL if bad else (TRUE_FILL if m[k] else FALSE_FILL),
                               VERMILLION if bad else INK, bold=True, hatch="////" if bad else None))
    rows.append(Row("out", out_cells))
    if g is not None:
        rows.append(Row("g = ∂L/∂out", value_cells(_flat(g, shape)), gap=True))
        for label, grad, fill, want, const in ((f"{na}.grad", grad_a, TRUE_FILL, m, a_const),
                                               (f"{nb}.grad", grad_b, FALSE_FILL, ~m, b_const)):
            if const or grad is None:
                rows.append(Row(label, merged="None: a constant gets no gradient", color=MUTED))
            elif tuple(np.shape(_array(grad))) != tuple(shape):
                rows.append(Row(label, merged=f"{summary(grad, 30)}  (summed back to its shape "
                                               f"{shape_str(np.shape(_array(grad)))})"))
            else:
                rows.append(Row(label, value_cells(_flat(grad, shape), fill, INK, want)))
            if label == f"{na}.grad":
                rows.extend(after_a_grad)
        rows.append(Row("mask.grad", merged="None: a bool mask never receives a gradient",
                         fill="#ececea", color=INK))
    return rows


WHERE_LEGEND = ("Blue cells: entries taken from the first branch (mask True); orange: from the "
                 "second (mask False); muted cells are computed but discarded. Backward sends g "
                 "to the branch each entry came from and 0 to the other; the mask gets none.")


def plot_where(cond, a, b, *, grad=None, names=("x", "y"), title=None):
    """Which entries of ``where(cond, a, b)`` come from which branch, and where each
    entry's gradient goes.

    Branches given as numbers are constants; arrays, lists and tensors are treated as
    differentiable inputs.  The gradients are not derived by formula: the picture
    runs ``al.where`` and a backward with seed ``grad`` (ones when None, i.e.
    ``L = out.sum()``) on copies of the branches, and draws what arrived at each one.
    The condition is drawn receiving none.  1-D or small 2-D inputs (flattened).
    """
    from .. import functions as functions, creation
    cond_t = cond if isinstance(cond, Tensor) else creation.tensor(np.asarray(cond, dtype=bool))

    def branch(v):
        if isinstance(v, (bool, int, float, np.number)):
            return v, True
        data = np.array(_array(v), dtype=np.float32 if _array(v).dtype.kind != "f" else _array(v).dtype)
        return creation.tensor(data, requires_grad=True), False

    A, a_const = branch(a)
    B, b_const = branch(b)
    out = functions.where(cond_t, A, B)
    g = None
    ga = gb = None
    if out.requires_grad:
        g = np.ones(out.shape, out._data.dtype) if grad is None else np.asarray(_array(grad), out._data.dtype)
        out.backward(creation.tensor(g))
        ga = None if a_const else A.grad
        gb = None if b_const else B.grad
    shape = out.shape
    if int(np.prod(shape)) > 24:
        raise ValueError(f"plot_where draws one cell per entry; {int(np.prod(shape))} entries are too "
                         "many to read (use at most 24)")
    rows = where_rows(cond_t, A, B, out, g=g, grad_a=ga, grad_b=gb, names=names,
                      a_const=a_const, b_const=b_const)
    if g is None:
        rows.append(Row("gradients", merged="none at all: neither branch requires grad", color=MUTED,
                         gap=True))
        rows.append(Row("mask.grad", merged="None: a bool mask never receives a gradient",
                         fill="#ececea"))
    col_labels = [str(k) if len(shape) <= 1 else str(tuple(int(i) for i in np.unravel_index(k, shape)))
                  for k in range(int(np.prod(shape)))]
    pic = TablePicture(rows, col_labels=col_labels, title=title, legend=WHERE_LEGEND)
    fig = pic.fig
    m = np.asarray(_array(cond_t), dtype=bool)
    fig._al_alt = _where_alt(names, m, out, ga, gb, a_const, b_const)
    return fig


def _where_alt(names, mask, out, ga, gb, a_const, b_const):
    na, nb = names
    t = [i for i, v in enumerate(np.broadcast_to(mask, out.shape).reshape(-1)) if v]
    s = (f"Table of where(mask, {na}, {nb}) over {out.numel()} entries: entries {t} come from {na} "
         f"(mask True), the others from {nb}; out = {summary(out, 40)}")
    if ga is not None or gb is not None:
        s += (f"; backward sends {na} the gradient {summary(ga, 30) if ga is not None else 'None'} and "
              f"{nb} {summary(gb, 30) if gb is not None else 'None'}")
    elif a_const and b_const:
        s += "; both branches are constants, so no gradient flows at all"
    return s + "; the condition receives no gradient."


__all__ = ["draw_graph", "plot_jacobian", "plot_where", "show", "picture", "alt_text", "to_png", "summary",
           "BookFigure", "Picture"]
