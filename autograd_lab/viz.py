"""Pictures: graphs, Jacobian heatmaps and where's routing, drawn with matplotlib.

``draw_graph`` draws the graph behind a tensor (with the gradient on each edge after a
traced backward), ``plot_jacobian`` a Jacobian as a heatmap (rows weighted by a seed),
``plot_where`` how ``where`` routes values forward and gradients back.

matplotlib is an optional extra (``pip install 'autograd_lab[viz]'``); this module is
the only place (with ``widgets.py``) that imports it.  Every function returns a
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
    raise ImportError("autograd_lab.viz draws with matplotlib, an optional extra of "
                      "autograd_lab: pip install 'autograd_lab[viz]'") from exc

from .recording import AccumulateGrad, edge as _edge_of, is_stand_in
from .tensor import Tensor

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


def _new_figure(width, height):
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
def _num(v, digits=4):
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


def _nested(a, fmt):
    if a.ndim == 0:
        return fmt(a.item())
    if a.ndim == 1:
        return "[" + ", ".join(fmt(v) for v in a.tolist()) + "]"
    return "[" + ", ".join(_nested(r, fmt) for r in a) + "]"


def _shape_str(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def summary(value, width=20, digits=4):
    """A value in at most ``width`` characters: all of it (``[[2., 1.]]``) if it fits, its
    first entries (``[0.1, 0.2, …]``) if not, its shape (``shape (40, 40)``) if not even
    one entry fits."""
    a = _array(value)
    fmt = (lambda v: _num(v, digits))
    if a.ndim == 0 or a.size == 0:
        return _nested(a, fmt)
    full = _nested(a, fmt) if a.size <= 64 else None
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
    return "shape " + _shape_str(a.shape)


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
    fmt = _num
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


class _Vertex:
    __slots__ = ("kind", "lines", "order", "col", "pos", "y", "w", "h", "x", "nports", "band",
                 "freed", "letter")

    def __init__(self, kind, lines, order):
        self.kind = kind          # "leaf" | "op" | "const" | "output" | "dummy" | "exit" | "entry"
        self.lines = lines        # [(text, style)]
        self.order = order        # discovery order: the first guess for the row order
        self.col = 0
        self.pos = 0.0
        self.y = 0.0
        self.x = 0.0
        self.w = 0.0
        self.h = 0.16
        self.nports = 1
        self.band = 0
        self.freed = False
        self.letter = None


class _Edge:
    __slots__ = ("src", "dst", "port", "kind", "label", "chain")

    def __init__(self, src, dst, port, kind, label=None):
        self.src, self.dst, self.port, self.kind, self.label = src, dst, port, kind, label
        self.chain = [src, dst]


class _GraphModel:
    """The vertices and edges of the picture, read off ``grad_fn`` / ``next`` / ``args``."""

    def __init__(self, tensor, names, trace, value_width):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"draw_graph() takes a Tensor, not {type(tensor).__name__}")
        self.vertices = []
        self.edges = []
        self.trace = trace
        self.width = value_width
        self.tensor_names, self.node_names = {}, {}
        for name, t in (names or {}).items():
            if not isinstance(t, Tensor):
                raise TypeError(f"names[{name!r}] is a {type(t).__name__}; names maps display "
                                "names to tensors, e.g. {'W': W, 'x': x}")
            self.tensor_names.setdefault(id(t), str(name))
            if t.grad_fn is not None:
                self.node_names.setdefault(id(t.grad_fn), str(name))
        self.edge_grads = trace.edge_grads() if trace is not None else {}
        self.received = trace.received() if trace is not None else {}
        self.n_leaves = self.n_ops = self.n_consts = 0
        self.freed_any = False
        self.leaf_names, self.op_names = [], []
        self.root = None
        self.output = None
        self._walk(tensor)

    def _add(self, kind, lines):
        v = _Vertex(kind, lines, len(self.vertices))
        self.vertices.append(v)
        return v

    def _value_lines(self, value, style="value", prefix=""):
        block = _value_block(value, self.width - len(prefix))
        lines = [((prefix if k == 0 else " " * len(prefix)) + s, style) for k, s in enumerate(block)]
        if _array(value).size > 1 and ("…" in block[0] or block[0].startswith("shape")) \
                and not block[0].startswith("shape"):
            lines.append(("shape " + _shape_str(_array(value).shape), "muted"))
        return lines

    def _walk(self, tensor):
        out_name = self.tensor_names.get(id(tensor))
        if tensor.grad_fn is None:
            if tensor.requires_grad:            # a leaf on its own
                self._leaf(_edge_of(tensor))
            else:
                self._add("const", [(out_name or "tensor", "name")] + self._value_lines(tensor)
                          + [("requires_grad=False: nothing recorded", "note")])
                self.n_consts += 1
            return
        root = self.root = tensor.grad_fn
        seen, stack, order = set(), [root], []
        while stack:                             # preorder, inputs in order: leaf 0 is the
            node = stack.pop()                   # first leaf met reading the formula
            if id(node) in seen:
                continue
            seen.add(id(node))
            order.append(node)
            stack.extend(reversed([c for c in node.next if c is not None]))
        by_id, self._const_by_id = {}, {}
        for node in order:
            if isinstance(node, AccumulateGrad):
                by_id[id(node)] = self._leaf(node)
            else:
                by_id[id(node)] = self._op(node, skip_name=out_name)
        for node in order:
            if isinstance(node, AccumulateGrad):
                continue
            v = by_id[id(node)]
            for i, child in enumerate(node.next):
                if child is not None:
                    g = self.edge_grads.get((id(node), i))
                    label = None if g is None else _value_block(g, 16, 3)
                    if label:
                        label = ["← " + label[0]] + ["  " + s for s in label[1:]]
                    self.edges.append(_Edge(by_id[id(child)], v, i, "grad", label))
                elif node.args is not None and i < len(node.args):
                    c = self._const(node.args[i])
                    self.edges.append(_Edge(c, v, i, "const", ["none"] if self.trace is not None else None))
        lines = [(out_name or "output", "name")] + self._value_lines(tensor)
        seed = self.received.get(id(root))
        if seed is not None:
            lines += self._value_lines(seed, "grad", prefix="seed ")
        self.output = self._add("output", lines)
        self.edges.append(_Edge(by_id[id(root)], self.output, 0, "out"))

    def _leaf(self, node):
        var = node.variable
        name = self.tensor_names.get(id(var))
        if name is None:
            name = f"leaf {sum(1 for n in self.leaf_names if n.startswith('leaf '))}"
        self.leaf_names.append(name)
        self.n_leaves += 1
        lines = [(name, "name")] + self._value_lines(var)
        g = self.received.get(id(node))
        if g is not None:
            lines += self._value_lines(g, "grad", prefix="grad ")
        return self._add("leaf", lines)

    def _op(self, node, skip_name=None):
        lines = []
        name = self.node_names.get(id(node))
        if name is not None and name != skip_name:
            lines.append((name, "muted"))
        lines.append((node.name().split("::")[-1], "op"))
        if is_stand_in(node.out):               # a big output no rule reads: not kept
            lines += [("shape " + _shape_str(node.out.shape), "muted"), ("value not kept", "note")]
        elif node.overwritten:                  # its numbers were written over in place since
            lines += [("shape " + _shape_str(node.out.shape), "muted"), ("overwritten in place", "note")]
        else:
            lines += self._value_lines(node.out)
        v = self._add("op", lines)
        v.nports = max(1, len(node.next))
        if node.freed:
            v.freed = True
            self.freed_any = True
            v.lines.append(("saved values freed", "note"))
        self.n_ops += 1
        self.op_names.append(node.name().split("::")[-1])
        return v

    def _const(self, arg):
        if isinstance(arg, Tensor) and id(arg) in self._const_by_id:
            return self._const_by_id[id(arg)]
        self.n_consts += 1
        if isinstance(arg, Tensor):
            name = self.tensor_names.get(id(arg))
            if name is None:
                name = "mask (bool)" if arg._data.dtype == np.bool_ else "constant"
            lines = [(name, "muted")] + self._value_lines(arg)
        elif isinstance(arg, (bool, int, float, np.number, np.bool_)):
            lines = [("number", "muted"), (_num(arg), "value")]
        else:
            lines = [("constant", "muted"), (repr(arg)[:self.width], "value")]
        v = self._add("const", lines)
        if isinstance(arg, Tensor):
            self._const_by_id[id(arg)] = v
        return v


_CONN = 0.26       # diameter of the circled letter joining an edge across bands (inches)


def _layout(model, max_width):
    """Place every vertex (inches; y grows downwards).

    Columns: longest distance from the leaves (constants just left of their first user,
    the output last).  Columns are packed into bands no wider than ``max_width``; a band
    break becomes a pair of connector columns (an exit at the end of one band, an entry
    at the start of the next), and leaves or constants whose users all lie in a later
    band move to that band's entry column.  Long edges get dummy vertices (shared by all
    edges from one source).  Rows: barycentre sweeps cut crossings; heights: isotonic
    smoothing pulls each vertex towards its neighbours without overlaps."""
    ruler = _measure()
    verts, edges = model.vertices, model.edges
    for v in verts:                              # box sizes from the measured labels
        sizes = [ruler.size(t, s) for t, s in v.lines]
        v.w = max(0.85, max(w for w, _ in sizes) + 0.22)
        v.h = sum(h for _, h in sizes) + 0.14
    if not edges:
        v = verts[0]
        v.x, v.y = 0.3 + v.w / 2, 0.0
        return [[v]], 1
    preds, users = {id(v): [] for v in verts}, {id(v): [] for v in verts}
    for e in edges:
        preds[id(e.dst)].append(e)
        users[id(e.src)].append(e)
    col = {}
    for v in _topological([v for v in verts if v.kind != "const"], preds):
        ins = [col[id(e.src)] for e in preds[id(v)] if e.src.kind != "const"]
        col[id(v)] = 0 if v.kind == "leaf" else (max(ins) + 1 if ins else 1)
    for v in verts:
        if v.kind == "const":
            col[id(v)] = max(0, min(col[id(e.dst)] for e in users[id(v)]) - 1)
    out = model.output
    col[id(out)] = max(col[id(v)] for v in verts if v is not out) + 1
    ncols = col[id(out)] + 1

    col_w = [0.0] * ncols
    for v in verts:
        col_w[col[id(v)]] = max(col_w[col[id(v)]], v.w)
    label_w = [0.0] * ncols
    for e in edges:
        if e.label:
            style = "edge" if e.kind != "const" else "note"
            w = max(ruler.width(s, style) for s in e.label)
            label_w[col[id(e.dst)]] = max(label_w[col[id(e.dst)]], w)
    gap = [0.0] + [max(0.5, label_w[c] + 0.28) for c in range(1, ncols)]

    # an input whose users all lie in a later band moves to that band's entry column
    movers = [(col[id(v)], min(col[id(e.dst)] for e in users[id(v)]), v.w) for v in verts
              if v.kind in ("const", "leaf") and users[id(v)]]
    starts = _band_starts(col_w, gap, max_width, movers)
    kinds = []                                   # per new column: (kind, band, old column)
    real = {}
    for b, s in enumerate(starts):
        e_ = starts[b + 1] - 1 if b + 1 < len(starts) else ncols - 1
        if b > 0:
            kinds.append(("entry", b, None))
        for c in range(s, e_ + 1):
            real[c] = len(kinds)
            kinds.append(("real", b, c))
        if b + 1 < len(starts):
            kinds.append(("exit", b, None))
    entry_col = {b: k for k, (kind, b, _) in enumerate(kinds) if kind == "entry"}
    for v in verts:
        v.col = real[col[id(v)]]
    for v in verts:                              # inputs next to their users, band-wise
        if v.kind in ("const", "leaf") and users[id(v)]:
            first = min(e.dst.col for e in users[id(v)])
            b_user = kinds[first][1]
            if b_user > kinds[v.col][1]:
                v.col = entry_col[b_user]

    shared = {}
    extra = []
    for e in edges:
        chain = [e.src]
        c = e.src.col
        while True:
            c += 1
            if kinds[c - 1][0] == "exit" and kinds[e.dst.col][1] > kinds[c][1]:
                c = entry_col[kinds[e.dst.col][1]]   # jump straight to the target's band
            if c >= e.dst.col:
                break
            d = shared.get((id(e.src), c))
            if d is None:
                kind = kinds[c][0]
                d = _Vertex("dummy" if kind == "real" else kind, [], e.src.order + 0.5)
                d.col = c
                if kind == "real":
                    d.w, d.h = 0.0, 0.16
                else:
                    d.w = d.h = _CONN
                shared[(id(e.src), c)] = d
                extra.append(d)
            chain.append(d)
        chain.append(e.dst)
        e.chain = chain
    layers = [[] for _ in kinds]
    for v in sorted(verts + extra, key=lambda v: v.order):
        layers[v.col].append(v)
        v.band = kinds[v.col][1]
    segs, seen = [], set()
    for e in edges:
        for a, b in zip(e.chain, e.chain[1:]):
            key = (id(a), id(b), e.port if b is e.dst else -1)
            if key not in seen:
                seen.add(key)
                segs.append((a, b, _port_frac(b, e.port) if b is e.dst else 0.0, e))
    _order_layers(layers, segs)
    _place_rows(layers, [s for s in segs if not (s[0].kind == "exit" and s[1].kind == "entry")])
    letters = _connector_names()                  # name the connectors in reading order
    for layer in layers:
        for v in layer:
            if v.kind == "exit":
                v.letter = next(letters)
    for a, b, _, _ in segs:
        if a.kind == "exit" and b.kind == "entry":
            b.letter = a.letter

    x = 0.0
    for k, (kind, b, c) in enumerate(kinds):
        w = max([v.w for v in layers[k]] + [0.0])
        if k == 0 or kinds[k - 1][1] != b:       # a band starts: back to the left margin
            x = 0.3
        elif kind == "exit":
            x += 0.25
        elif kind == "real":
            x += gap[c]
        for v in layers[k]:
            v.x = x + w / 2
        x += w
    return layers, len(starts)


def _band_starts(col_w, gap, max_width, movers=()):
    """Where each band starts: the fewest bands that fit ``max_width``, with the columns
    spread so the widest band is as narrow as possible (no lonely last column).
    ``movers``: (column, first user's column, width) of inputs, which move to the entry
    column of their first user's band when that band starts after their column."""
    n = len(col_w)

    def width(s, e):
        entry = max([_CONN] + [w for c, u, w in movers if c < s <= u <= e])
        w = 0.6 + (entry + gap[s] if s > 0 else 0.0) + col_w[s]
        w += sum(gap[c] + col_w[c] for c in range(s + 1, e + 1))
        return w + (0.25 + _CONN if e < n - 1 else 0.0)

    for k in range(1, n + 1):
        # best[j][e]: the smallest possible widest band, covering columns 0..e with j bands
        best = [[math.inf] * n for _ in range(k + 1)]
        cut = [[0] * n for _ in range(k + 1)]
        for e in range(n):
            best[1][e] = width(0, e)
        for j in range(2, k + 1):
            for e in range(n):
                for s in range(1, e + 1):
                    w = max(best[j - 1][s - 1], width(s, e))
                    if w < best[j][e]:
                        best[j][e], cut[j][e] = w, s
        if best[k][n - 1] <= max_width or k == n:
            starts, e = [], n - 1
            for j in range(k, 1, -1):
                s = cut[j][e]
                starts.append(s)
                e = s - 1
            return [0] + starts[::-1]
    return [0]


def _port_frac(v, port):
    k = v.nports
    return (port - (k - 1) / 2) * 0.1 if k > 1 else 0.0


def _port_offset(v, port):
    """Where input ``port`` enters an op's box: spread down its left side, input 0 on top."""
    k = v.nports
    if k <= 1:
        return 0.0
    step = min(0.15, (v.h - 0.08) / (k - 1))
    return (port - (k - 1) / 2) * step


def _topological(verts, preds):
    """``verts`` ordered so that every vertex comes after the vertices feeding it."""
    index = {id(v) for v in verts}
    state, out = set(), []
    for root in verts:
        if id(root) in state:
            continue
        state.add(id(root))
        stack = [(root, iter([e.src for e in preds[id(root)] if id(e.src) in index]))]
        while stack:
            v, it = stack[-1]
            for u in it:
                if id(u) not in state:
                    state.add(id(u))
                    stack.append((u, iter([e.src for e in preds[id(u)] if id(e.src) in index])))
                    break
            else:
                stack.pop()
                out.append(v)
    return out


def _crossings(segs):
    by_col = {}
    for a, b, frac, _ in segs:
        by_col.setdefault(a.col, []).append((a.pos, b.pos + frac))
    total = 0
    for pairs in by_col.values():
        for i in range(len(pairs)):
            a1, b1 = pairs[i]
            for j in range(i + 1, len(pairs)):
                a2, b2 = pairs[j]
                if (a1 - a2) * (b1 - b2) < 0:
                    total += 1
    return total


def _order_layers(layers, segs):
    """Barycentre heuristic: sort each column by the mean row of its neighbours, sweeping
    right then left, and keep the order with the fewest crossings."""
    def number():
        for layer in layers:
            for k, v in enumerate(layer):
                v.pos = float(k)

    number()
    left, right = {}, {}
    for a, b, frac, _ in segs:
        right.setdefault(id(a), []).append((b, frac))
        left.setdefault(id(b), []).append((a, frac))
    best, best_cross = [list(layer) for layer in layers], _crossings(segs)
    for sweep in range(8):
        forward = sweep % 2 == 0
        for c in (range(1, len(layers)) if forward else range(len(layers) - 2, -1, -1)):
            keys = {}
            for v in layers[c]:
                nb = ([a.pos - frac for a, frac in left.get(id(v), [])] if forward else
                      [b.pos + frac for b, frac in right.get(id(v), [])])
                keys[id(v)] = sum(nb) / len(nb) if nb else v.pos
            layers[c].sort(key=lambda v: (keys[id(v)], v.order))
            for k, v in enumerate(layers[c]):
                v.pos = float(k)
        cross = _crossings(segs)
        if cross < best_cross:
            best_cross, best = cross, [list(layer) for layer in layers]
    for c, layer in enumerate(best):
        layers[c] = layer
    number()


def _pav(values, weights=None):
    """The non-decreasing sequence closest (weighted least squares) to ``values``."""
    weights = weights or [1.0] * len(values)
    blocks = []                                  # [weighted sum, total weight, count]
    for v, w in zip(values, weights):
        blocks.append([v * w, w, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, w2, n = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += w2
            blocks[-1][2] += n
    out = []
    for s, w, n in blocks:
        out += [s / w] * n
    return out


def _place_rows(layers, segs, gap=0.2):
    """y (downwards, inches) for every vertex: rows keep their order and a minimum gap,
    and each vertex moves towards the weighted mean height of its neighbours (constants
    pull less, so a chain of operations stays straight)."""
    def offsets(layer):
        offs = [0.0]
        for a, b in zip(layer, layer[1:]):
            g = gap if a.kind not in ("dummy",) or b.kind not in ("dummy",) else 0.08
            offs.append(offs[-1] + (a.h + b.h) / 2 + g)
        return offs

    for layer in layers:
        offs = offsets(layer)
        mid = offs[-1] / 2 if offs else 0.0
        for v, o in zip(layer, offs):
            v.y = o - mid
    nbrs = {}
    for a, b, frac, e in segs:
        off_b = _port_offset(b, e.port) if b is e.dst else 0.0
        w = 0.15 if e.kind == "const" else 1.0
        nbrs.setdefault(id(a), []).append((b, -off_b, w))
        nbrs.setdefault(id(b), []).append((a, off_b, w))
    for sweep in range(30):
        for c in (range(len(layers)) if sweep % 2 == 0 else range(len(layers) - 1, -1, -1)):
            layer = layers[c]
            if not layer:
                continue
            offs = offsets(layer)
            want, weight = [], []
            for v in layer:
                nb = nbrs.get(id(v), [])
                tw = sum(w for _, _, w in nb)
                want.append(sum((u.y + d) * w for u, d, w in nb) / tw if nb else v.y)
                weight.append(tw if nb else 0.05)
            z = _pav([w - o for w, o in zip(want, offs)], weight)
            for v, zz, o in zip(layer, z, offs):
                v.y = zz + o


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
    """
    if figsize is not None:
        max_width = float(figsize[0])
    model = _GraphModel(tensor, names, trace, value_width)
    layers, nbands = _layout(model, max_width)
    verts = [v for layer in layers for v in layer]
    edges = model.edges
    ruler = _measure()

    labels = []                                  # [edge, x, y, w, h, style]
    for e in edges:
        if not e.label:
            continue
        a, b = e.chain[-2], e.dst
        style = "edge" if e.kind != "const" else "note"
        w = max(ruler.width(s, style) for s in e.label)
        h = ruler.size(e.label[0], style)[1] * len(e.label)
        ax_ = a.x + a.w / 2 if a.kind != "dummy" else a.x
        x = (ax_ + b.x - b.w / 2) / 2
        y = (a.y + b.y + _port_offset(b, e.port)) / 2 - h / 2 - 0.03
        labels.append([e, x, y, w, h, style])
    by_gap = {}
    for lab in labels:
        by_gap.setdefault(lab[0].dst.col, []).append(lab)
    for group in by_gap.values():                # labels in one gap must not overlap
        group.sort(key=lambda lab: lab[2])
        offs = [0.0]
        for p, q in zip(group, group[1:]):
            offs.append(offs[-1] + (p[4] + q[4]) / 2 + 0.04)
        z = _pav([lab[2] - o for lab, o in zip(group, offs)])
        for lab, zz, o in zip(group, z, offs):
            lab[2] = zz + o

    top = [math.inf] * nbands                    # stack the bands, each with its own extent
    bottom = [-math.inf] * nbands
    for v in verts:
        top[v.band] = min(top[v.band], v.y - v.h / 2)
        bottom[v.band] = max(bottom[v.band], v.y + v.h / 2)
    for e, x, y, w, h, style in labels:
        top[e.dst.band] = min(top[e.dst.band], y - h / 2)
        bottom[e.dst.band] = max(bottom[e.dst.band], y + h / 2)
    title_h = 0.5 if title else 0.2
    shift, cursor = [], title_h
    for b in range(nbands):
        shift.append(cursor - top[b])
        cursor += bottom[b] - top[b] + (0.5 if b < nbands - 1 else 0.0)
    for v in verts:
        v.y += shift[v.band]
    for lab in labels:
        lab[2] += shift[lab[0].dst.band]

    width = max(max(v.x + v.w / 2 for v in verts) + 0.3, 3.2)
    legend = _graph_legend(model, nbands > 1)
    legend_lines = textwrap.wrap(legend, max(40, int((width - 0.5) / (7.5 * 0.56 / 72))))
    height = cursor + 0.25 + 0.16 * len(legend_lines) + 0.12
    fig = _new_figure(*(figsize if figsize is not None else (width, height)))
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
    for b in range(1, nbands):                    # a faint rule between bands
        yb = -(shift[b] + top[b] - 0.25)
        ax.plot([0.2, width - 0.2], [yb, yb], color=RULE, lw=0.6, ls=(0, (1, 3)))
    _draw_edges(ax, edges)
    for v in verts:
        if v.kind in ("exit", "entry"):
            _text(ax, v.x, -v.y, v.letter, "legend", ha="center", va="center", color=INK, zorder=6,
                  bbox=dict(boxstyle="circle,pad=0.2", fc=PAPER, ec=INK, lw=0.8))
        elif v.kind != "dummy":
            _draw_box(ax, v)
    for e, x, y, w, h, style in labels:
        _text(ax, x, -y, "\n".join(e.label), style, ha="center", va="center", zorder=6,
              linespacing=1.1, bbox=dict(boxstyle="round,pad=0.1", fc=PAPER, ec="none", alpha=0.9))
    for k, line in enumerate(legend_lines):
        _text(ax, 0.3, -(cursor + 0.28 + 0.16 * k), line, "legend", ha="left", va="center")
    fig._al_alt = _graph_alt(model, tensor, trace)
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


def _graph_alt(model, tensor, trace):
    """The graph in words, with the numbers the picture shows: each box's value (and a
    leaf's gradient, the output's seed), and each edge's gradient after a traced backward.
    Constants a backward freed are not drawn, and the text says so rather than counting
    fewer of them."""
    if model.root is None:
        return "A single tensor with no recorded operations behind it."
    out = model.tensor_names.get(id(tensor), "the output")
    leaves = ", ".join(model.leaf_names[:6]) + (", …" if len(model.leaf_names) > 6 else "")
    s = (f"Computational graph of {out}: {model.n_leaves} leaf tensor"
         f"{'s' if model.n_leaves != 1 else ''} ({leaves}) on the left feed {model.n_ops} "
         f"operation{'s' if model.n_ops != 1 else ''}, ending in the output on the right")
    if model.freed_any:
        s += ("; a backward freed the values the operations saved, so their constant inputs "
              "are no longer drawn")
    elif model.n_consts:
        one = model.n_consts == 1
        s += (f", with {model.n_consts} constant input{'' if one else 's'} that "
              f"receive{'s' if one else ''} no gradient")

    def words(v):
        return " ".join(" ".join(text.split()) for text, style in v.lines if style != "note")
    boxes = [words(v) for v in model.vertices if v.kind in ("leaf", "op", "output")]
    s += ". Boxes: " + "; ".join(boxes).rstrip(".")
    if trace is not None:
        edges = [f"{words(e.src).split(' ')[0]} gets {' '.join(' '.join(e.label).replace('←', '').split())} "
                 f"from {words(e.dst).split(' ')[0]}" for e in model.edges if e.kind == "grad" and e.label]
        if edges:
            s += ". Gradients sent back along the edges: " + "; ".join(edges)
    return s if s.endswith(".") else s + "."


_BOX = {"leaf": (LEAF_FILL, BLUE, "-"), "op": (OP_FILL, DARK_ORANGE, "-"),
        "output": (OUT_FILL, GREEN, "-"), "const": (CONST_FILL, MUTED, "--")}


def _draw_box(ax, v):
    fill, edge, ls = _BOX[v.kind]
    if v.freed:
        ls = (0, (4, 2))
    x0, y0 = v.x - v.w / 2, -(v.y + v.h / 2)
    ax.add_patch(FancyBboxPatch((x0, y0), v.w, v.h, boxstyle="round,pad=0,rounding_size=0.07",
                                fc=fill, ec=edge, lw=1.3 if v.kind != "const" else 1.0, ls=ls,
                                zorder=4))
    ruler = _measure()
    y = v.y - v.h / 2 + 0.07
    for text, style in v.lines:
        h = ruler.size(text, style)[1]
        _text(ax, v.x, -(y + h / 2), text, style, ha="center", va="center", zorder=5)
        y += h


def _curve(points):
    """A smooth path through ``points`` with horizontal tangents (a cubic per segment)."""
    verts, codes = [points[0]], [Path.MOVETO]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        dx = (x1 - x0) / 2
        verts += [(x0 + dx, y0), (x1 - dx, y1), (x1, y1)]
        codes += [Path.CURVE4] * 3
    return Path(verts, codes)


def _draw_edges(ax, edges):
    for e in edges:
        const = e.kind == "const"
        color, ls, lw = (MUTED, "--", 1.0) if const else (INK, "-", 1.25)
        pieces, cur = [], [_leave(e.chain[0])]
        for a, b in zip(e.chain, e.chain[1:]):
            if a.kind == "exit" and b.kind == "entry":      # continue in the next band
                pieces.append((cur, False))
                cur = [_leave(b)]
                continue
            if b is e.dst:
                cur.append((b.x - b.w / 2, -(b.y + _port_offset(b, e.port))))
            elif b.kind == "dummy":
                cur.append((b.x, -b.y))
            else:                                            # into an exit connector
                cur.append((b.x - b.w / 2, -b.y))
        pieces.append((cur, True))
        for pts, arrow in pieces:
            if len(pts) < 2:
                continue
            path = _curve(pts)
            if arrow:
                ax.add_patch(FancyArrowPatch(path=path, arrowstyle="-|>,head_length=5,head_width=2.6",
                                             mutation_scale=1, color=color, lw=lw, ls=ls, zorder=3))
            else:
                ax.add_patch(PathPatch(path, fill=False, ec=color, lw=lw, ls=ls, zorder=3))


def _leave(v):
    return (v.x, -v.y) if v.kind == "dummy" else (v.x + v.w / 2, -v.y)


def _connector_names():
    k = 0
    while True:
        n, s = k, ""
        while True:
            s = chr(ord("A") + n % 26) + s
            n = n // 26 - 1
            if n < 0:
                break
        yield s
        k += 1
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
                    t.set_text(_num(v))
                    t.set_color(VERMILLION)
                    t.set_fontweight("bold")
                else:
                    t.set_text(_num(v))
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
        raise ValueError(f"{what} has shape {_shape_str(A.shape)}; draw a Jacobian as a matrix "
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
        longest = max([len(_num(v)) for v in A.ravel()[:400]] + [4])
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
        self.fig = fig = _new_figure(W, H)
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
class _Cell:
    __slots__ = ("text", "fill", "color", "bold", "hatch")

    def __init__(self, text, fill=PAPER, color=INK, bold=False, hatch=None):
        self.text, self.fill, self.color, self.bold, self.hatch = text, fill, color, bold, hatch


class _Row:
    """A labelled row of cells, or (``merged`` text) one cell spanning the whole row."""
    __slots__ = ("label", "cells", "merged", "gap", "fill", "color")

    def __init__(self, label, cells=None, merged=None, gap=False, fill=PAPER, color=INK):
        self.label, self.cells, self.merged, self.gap = label, cells, merged, gap
        self.fill, self.color = fill, color


class _TablePicture:
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
        self.fig = fig = _new_figure(W, H)
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


def _value_cells(values, fill=PAPER, color=INK, where_mask=None, off_fill=PAPER, off_color=MUTED):
    """Cells for a flat array; entries outside ``where_mask`` drawn muted."""
    cells = []
    for k, v in enumerate(values):
        on = True if where_mask is None else bool(where_mask[k])
        if isinstance(v, (bool, np.bool_)):
            text = "True" if v else "False"
        else:
            text = _num(v)
        bad = text in ("nan", "inf", "-inf")
        cells.append(_Cell(text, NAN_FILL if bad else (fill if on else off_fill),
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
        _Row(a_label or (f"{na} (constant)" if a_const else na),
             _value_cells(_flat(a, shape), TRUE_FILL, INK, m)),
        _Row("cond", [_Cell("True" if v else "False", "#e4e3de" if v else PAPER, INK if v else MUTED)
                      for v in m]),
        _Row(b_label or (f"{nb} (constant)" if b_const else nb),
             _value_cells(_flat(b, shape), FALSE_FILL, INK, ~m)),
    ]
    oflat = _flat(out, shape)
    out_cells = []
    for k, v in enumerate(oflat):
        text = _num(v)
        bad = text in ("nan", "inf", "-inf")
        out_cells.append(_Cell(text, NAN_FILL if bad else (TRUE_FILL if m[k] else FALSE_FILL),
                               VERMILLION if bad else INK, bold=True, hatch="////" if bad else None))
    rows.append(_Row("out", out_cells))
    if g is not None:
        rows.append(_Row("g = ∂L/∂out", _value_cells(_flat(g, shape)), gap=True))
        for label, grad, fill, want, const in ((f"{na}.grad", grad_a, TRUE_FILL, m, a_const),
                                               (f"{nb}.grad", grad_b, FALSE_FILL, ~m, b_const)):
            if const or grad is None:
                rows.append(_Row(label, merged="None: a constant gets no gradient", color=MUTED))
            elif tuple(np.shape(_array(grad))) != tuple(shape):
                rows.append(_Row(label, merged=f"{summary(grad, 30)}  (summed back to its shape "
                                               f"{_shape_str(np.shape(_array(grad)))})"))
            else:
                rows.append(_Row(label, _value_cells(_flat(grad, shape), fill, INK, want)))
            if label == f"{na}.grad":
                rows.extend(after_a_grad)
        rows.append(_Row("cond.grad", merged="None: a bool mask never receives a gradient",
                         fill="#ececea", color=INK))
    return rows


_WHERE_LEGEND = ("Blue cells: entries taken from the first branch (cond True); orange: from the "
                 "second (cond False); muted cells are computed but discarded. Backward sends g "
                 "to the branch each entry came from and 0 to the other; the condition gets none.")


def plot_where(cond, a, b, *, grad=None, names=("x", "y"), title=None):
    """Which entries of ``where(cond, a, b)`` come from which branch, and where each
    entry's gradient goes.

    Branches given as numbers are constants; arrays, lists and tensors are treated as
    differentiable inputs.  The gradients are not derived by formula: the picture
    runs ``al.where`` and a backward with seed ``grad`` (ones when None, i.e.
    ``L = out.sum()``) on copies of the branches, and draws what arrived at each one.
    The condition is drawn receiving none.  1-D or small 2-D inputs (flattened).
    """
    from . import tensor_functions as functions, creation
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
        rows.append(_Row("gradients", merged="none at all: neither branch requires grad", color=MUTED,
                         gap=True))
        rows.append(_Row("cond.grad", merged="None: a bool mask never receives a gradient",
                         fill="#ececea"))
    col_labels = [str(k) if len(shape) <= 1 else str(tuple(int(i) for i in np.unravel_index(k, shape)))
                  for k in range(int(np.prod(shape)))]
    pic = _TablePicture(rows, col_labels=col_labels, title=title, legend=_WHERE_LEGEND)
    fig = pic.fig
    m = np.asarray(_array(cond_t), dtype=bool)
    fig._al_alt = _where_alt(names, m, out, ga, gb, a_const, b_const)
    return fig


def _where_alt(names, mask, out, ga, gb, a_const, b_const):
    na, nb = names
    t = [i for i, v in enumerate(np.broadcast_to(mask, out.shape).reshape(-1)) if v]
    s = (f"Table of where(cond, {na}, {nb}) over {out.numel()} entries: entries {t} come from {na} "
         f"(cond True), the others from {nb}; out = {summary(out, 40)}")
    if ga is not None or gb is not None:
        s += (f"; backward sends {na} the gradient {summary(ga, 30) if ga is not None else 'None'} and "
              f"{nb} {summary(gb, 30) if gb is not None else 'None'}")
    elif a_const and b_const:
        s += "; both branches are constants, so no gradient flows at all"
    return s + "; the condition receives no gradient."


__all__ = ["draw_graph", "plot_jacobian", "plot_where", "show", "picture", "alt_text", "to_png", "summary",
           "BookFigure", "Picture"]
