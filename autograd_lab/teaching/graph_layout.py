"""The graph behind a tensor as a picture shows it, and where each part of the picture goes.

Two painters draw graphs: ``viz.draw_graph`` (a matplotlib picture, in inches) and the
graph explorer's view (``widgets/graph_explorer.py`` and ``.js``: SVG, in pixels).  Both
read the graph with :class:`GraphModel` and place it with :func:`layout`; each measures
its own boxes and labels (matplotlib measures text, the view counts characters) and
passes the sizes in, with a :class:`Metrics` of spacings in the same unit.

    model = GraphModel(loss, {"W": W, "x": x}, trace=trace)
    sizes = [(width, height) of each box]            # one per model.vertices
    labels = [(width, height) or None per edge]      # the gradient written beside it
    placed = layout(model, sizes, labels, metrics, max_width)

The layout: operations in columns by their longest distance from the leaves, each input
(leaf or constant) just left of its first user, the output last; the columns are packed
into the fewest bands no wider than ``max_width`` (a circled letter carries an edge on to
the next band); long edges pass through invisible waypoints, one per column; rows are
ordered to cut crossings, then each box moves towards its neighbours without overlapping
another.  y grows downwards.
"""
import math

import numpy as np

from ..core.recording import AccumulateGrad, edge as _edge_of
from ..core.saved import is_stand_in
from ..core.tensor import Tensor


# -- the model: what the picture shows ---------------------------------------------------
class Vertex:
    """One box: a leaf, an operation, a constant input or the output.

    ``name``: the display name (for an operation, only when ``names`` gave it one);
    ``op``: the operation's ``grad_fn`` name; ``value``: the tensor (or number) the box
    shows, None when there is none to show (then ``note`` says why); ``grad``: what a
    traced backward delivered (a leaf's gradient, the output's seed); ``shape``: an
    operation's output shape; ``text``: a constant that is not a number, as text."""
    __slots__ = ("id", "kind", "name", "op", "value", "grad", "note", "freed", "nports", "shape",
                 "text")

    def __init__(self, ident, kind, name, value=None):
        self.id, self.kind, self.name, self.value = ident, kind, name, value
        self.op = self.grad = self.note = self.shape = self.text = None
        self.freed = False
        self.nports = 1


class Edge:
    """Data flowing from vertex ``src`` into input ``port`` of vertex ``dst`` (indices);
    ``kind``: "grad" (a gradient can flow back), "const" or "out" (into the output box);
    ``grad``: what the traced backward sent back along it, or None."""
    __slots__ = ("src", "dst", "port", "kind", "grad")

    def __init__(self, src, dst, port, kind, grad=None):
        self.src, self.dst, self.port, self.kind, self.grad = src, dst, port, kind, grad


class GraphModel:
    """The vertices and edges of a picture, read off ``tensor.grad_fn``, each node's
    ``next`` (its inputs) and ``args`` (its constant inputs).

    ``names`` maps display names to tensors (leaves, intermediate results, constants,
    the output); with ``trace`` (an ``al.autograd.trace_backward()`` that watched a
    backward) edges and boxes carry the gradients it recorded.  Vertices come in the
    order a reader meets them in the formula (leaf 0 first), the output last."""

    def __init__(self, tensor, names=None, trace=None):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"draw_graph() takes a Tensor, not {type(tensor).__name__}")
        self.vertices, self.edges = [], []
        self.trace = trace
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
        self.leaf_names, self.op_names = [], []
        self.n_consts = 0
        self.freed_any = False
        self.root = self.output = None
        self._const_by_id = {}
        self._walk(tensor)

    @property
    def n_leaves(self):
        return len(self.leaf_names)

    @property
    def n_ops(self):
        return len(self.op_names)

    def _add(self, kind, name, value=None):
        v = Vertex(len(self.vertices), kind, name, value)
        self.vertices.append(v)
        return v

    def _walk(self, tensor):
        out_name = self.tensor_names.get(id(tensor))
        if tensor.grad_fn is None:
            if tensor.requires_grad:            # a leaf on its own
                self._leaf(_edge_of(tensor))
            else:
                v = self._add("const", out_name or "tensor", tensor)
                v.note = "requires_grad=False: nothing recorded"
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
        index = {}
        for node in order:
            v = self._leaf(node) if isinstance(node, AccumulateGrad) else self._op(node, out_name)
            index[id(node)] = v.id
        for node in order:
            if isinstance(node, AccumulateGrad):
                continue
            for i, child in enumerate(node.next):
                if child is not None:
                    self.edges.append(Edge(index[id(child)], index[id(node)], i, "grad",
                                           self.edge_grads.get((id(node), i))))
                elif node.args is not None and i < len(node.args):
                    self.edges.append(Edge(self._const(node.args[i]), index[id(node)], i, "const"))
        out = self.output = self._add("output", out_name or "output", tensor)
        out.grad = self.received.get(id(root))
        self.edges.append(Edge(index[id(root)], out.id, 0, "out"))

    def _leaf(self, node):
        var = node.variable
        name = self.tensor_names.get(id(var))
        if name is None:
            name = f"leaf {sum(1 for n in self.leaf_names if n.startswith('leaf '))}"
        self.leaf_names.append(name)
        v = self._add("leaf", name, var)
        v.grad = self.received.get(id(node))
        return v

    def _op(self, node, out_name):
        name = self.node_names.get(id(node))
        v = self._add("op", name if name != out_name else None, node.out)
        v.op = node.name().split("::")[-1]
        if is_stand_in(node.out):               # a big output no rule reads: not kept
            v.value, v.note = None, "value not kept"
        elif node.overwritten:                  # its numbers were written over in place since
            v.value, v.note = None, "overwritten in place"
        v.shape = tuple(node.out.shape)
        v.nports = max(1, len(node.next))
        if node.freed:
            v.freed = self.freed_any = True
        self.op_names.append(v.op)
        return v

    def _const(self, arg):
        if isinstance(arg, Tensor) and id(arg) in self._const_by_id:
            return self._const_by_id[id(arg)]
        self.n_consts += 1
        if isinstance(arg, Tensor):
            name = self.tensor_names.get(id(arg))
            if name is None:
                name = "mask (bool)" if arg._data.dtype == np.bool_ else "constant"
            v = self._add("const", name, arg)
            self._const_by_id[id(arg)] = v.id
        elif isinstance(arg, (bool, int, float, np.number, np.bool_)):
            v = self._add("const", "number", arg)
        else:
            v = self._add("const", "constant")
            v.text = repr(arg)
        return v.id


# -- the layout: where each part goes ---------------------------------------------------
class Metrics:
    """The spacings of one painter, in its unit (inches, pixels).

    ``margin`` left and right of a band; ``gap`` the least room between two columns
    (``label_pad`` more than the widest gradient label written in it); ``row_gap``
    between two boxes of a column (``dummy_gap`` between two edges passing through one,
    each ``dummy_h`` tall); ``conn`` the circled letter's diameter, ``exit`` the room
    before a band's letters; ``band_gap`` between bands; ``port_step`` the most room
    between two inputs entering one box (``port_inset`` kept free at its top and
    bottom); ``label_gap`` between two labels in one gap; ``label_lift`` how far a
    label's bottom sits above its edge (None: the label sits on its edge)."""

    def __init__(self, *, margin, gap, label_pad, row_gap, dummy_gap, dummy_h, conn, exit,
                 band_gap, port_step, port_inset, label_gap, label_lift=None):
        self.margin, self.gap, self.label_pad = margin, gap, label_pad
        self.row_gap, self.dummy_gap, self.dummy_h = row_gap, dummy_gap, dummy_h
        self.conn, self.exit, self.band_gap = conn, exit, band_gap
        self.port_step, self.port_inset = port_step, port_inset
        self.label_gap, self.label_lift = label_gap, label_lift


class Box:
    """A placed box (x, y: its centre): one per vertex, plus the waypoints of long edges
    ("dummy") and the circled letters at the ends of bands ("exit", "entry")."""
    __slots__ = ("kind", "order", "col", "pos", "x", "y", "w", "h", "nports", "band", "letter")

    def __init__(self, kind, order, w=0.0, h=0.0, nports=1):
        self.kind, self.order, self.w, self.h, self.nports = kind, order, w, h, nports
        self.col = self.band = 0
        self.pos = self.x = self.y = 0.0
        self.letter = None


class Label:
    """Where an edge's gradient is written (centre and size)."""
    __slots__ = ("x", "y", "w", "h", "band", "col")

    def __init__(self, x, y, w, h, band, col):
        self.x, self.y, self.w, self.h, self.band, self.col = x, y, w, h, band, col


class Layout:
    """Where everything goes: ``boxes`` (one per model vertex, in order), ``connectors``
    (the circled letters), ``pieces`` (per edge: [(points, arrow)], a smooth curve
    through the points, leaving and arriving horizontally; an edge that continues in the
    next band has two pieces, the first ending in a circled letter), ``labels`` (per
    edge, a :class:`Label` or None), ``rules`` (y of a faint rule between bands),
    ``width`` and ``height`` (from 0 to the bottom of the last band) and ``nbands``."""

    def __init__(self, boxes, connectors, pieces, labels, rules, width, height, nbands):
        self.boxes, self.connectors, self.pieces, self.labels = boxes, connectors, pieces, labels
        self.rules, self.width, self.height, self.nbands = rules, width, height, nbands


def port_offset(box, port, m):
    """Where input ``port`` enters a box: spread down its left side, input 0 on top."""
    k = box.nports
    if k <= 1:
        return 0.0
    step = min(m.port_step, (box.h - m.port_inset) / (k - 1))
    return (port - (k - 1) / 2) * step


def layout(model, sizes, labels, m, max_width, top=0.0):
    """Place ``model``: ``sizes`` (w, h) per vertex, ``labels`` (w, h) or None per edge,
    ``m`` the painter's :class:`Metrics`; bands no wider than ``max_width``; the first
    band starts at y = ``top``.  Returns a :class:`Layout`."""
    verts = [Box(v.kind, v.id, w, h, v.nports) for v, (w, h) in zip(model.vertices, sizes)]
    edges = [(verts[e.src], verts[e.dst], e) for e in model.edges]
    if not edges:
        v = verts[0]
        v.x, v.y = m.margin + v.w / 2, top + v.h / 2
        return Layout(verts, [], [], [], [], v.w + 2 * m.margin, top + v.h, 1)
    layers, kinds, chains = _columns(verts, edges, labels, m, max_width)
    segs = _segments(edges, chains)
    _order_layers(layers, segs)
    _place_rows(layers, [s for s in segs if not (s[0].kind == "exit" and s[1].kind == "entry")], m)
    _name_connectors(layers, segs)
    left, right = _place_columns(layers, kinds, m)
    pieces = [_pieces(chain, e, m) for (_, _, e), chain in zip(edges, chains)]
    placed = _place_labels(edges, pieces, labels, left, right, m)
    nbands = kinds[-1][1] + 1
    rules, height = _stack_bands(layers, edges, pieces, placed, nbands, top, m)
    boxes = [v for layer in layers for v in layer]
    connectors = [v for v in boxes if v.kind in ("exit", "entry")]
    width = max(v.x + v.w / 2 for v in boxes) + m.margin
    return Layout(verts, connectors, pieces, placed, rules, width, height, nbands)


def _segments(edges, chains):
    """The steps of the edges from one column to the next, each once: (from, to, where
    it enters (rows), port or None, the edge's kind)."""
    segs, seen = [], set()
    for (a, b, e), chain in zip(edges, chains):
        for p, q in zip(chain, chain[1:]):
            port = e.port if q is b else None   # an edge's last step enters a port
            key = (id(p), id(q), -1 if port is None else port)
            if key not in seen:
                seen.add(key)
                segs.append((p, q, 0.0 if port is None else _port_frac(q, port), port, e.kind))
    return segs


def _name_connectors(layers, segs):
    """Letters for the circled connectors, in reading order; an entry takes its exit's."""
    letters = _connector_names()
    for layer in layers:
        for v in layer:
            if v.kind == "exit":
                v.letter = next(letters)
    for a, b, *_ in segs:
        if a.kind == "exit" and b.kind == "entry":
            b.letter = a.letter


def _place_labels(edges, pieces, labels, left, right, m):
    """Each edge's label in the middle of the gap left of its target, on its edge (or
    ``m.label_lift`` above it); the labels in one gap pushed apart so none overlap."""
    placed = [None] * len(edges)
    for k, (_, b, _) in enumerate(edges):
        if labels[k] is None:
            continue
        w, h = labels[k]
        x = (right[b.col - 1] + left[b.col]) / 2
        points = pieces[k][-1][0]
        y = _curve_y(points[-2], points[-1], x)
        if m.label_lift is not None:
            y -= h / 2 + m.label_lift
        placed[k] = Label(x, y, w, h, b.band, b.col)
    groups = {}
    for lab in placed:
        if lab is not None:
            groups.setdefault((lab.band, lab.col), []).append(lab)
    for group in groups.values():
        group.sort(key=lambda lab: lab.y)
        offs = [0.0]
        for p, q in zip(group, group[1:]):
            offs.append(offs[-1] + (p.h + q.h) / 2 + m.label_gap)
        for lab, z, o in zip(group, _pav([lab.y - o for lab, o in zip(group, offs)]), offs):
            lab.y = z + o
    return placed


def _stack_bands(layers, edges, pieces, placed, nbands, top, m):
    """Stack the bands from y = ``top`` down, each as tall as its boxes and labels, with
    ``m.band_gap`` between them; returns the rules' heights and the bottom."""
    boxes = [v for layer in layers for v in layer]
    labels = [lab for lab in placed if lab is not None]
    lo, hi = [math.inf] * nbands, [-math.inf] * nbands
    for v in boxes + labels:
        lo[v.band] = min(lo[v.band], v.y - v.h / 2)
        hi[v.band] = max(hi[v.band], v.y + v.h / 2)
    shift, rules, cursor = [], [], top
    for band in range(nbands):
        if band:
            rules.append(cursor - m.band_gap / 2)
        shift.append(cursor - lo[band])
        cursor += hi[band] - lo[band] + (m.band_gap if band < nbands - 1 else 0.0)
    for v in boxes + labels:
        v.y += shift[v.band]
    for (a, b, _), edge_pieces in zip(edges, pieces):   # a second piece is in the target's band
        for k, (points, _) in enumerate(edge_pieces):
            for p in points:
                p[1] += shift[a.band if k == 0 else b.band]
    return rules, cursor


def _columns(verts, edges, labels, m, max_width):
    """Columns, bands and the chains of boxes each edge passes through.

    Columns: an operation's longest distance from the leaves; an input (leaf or
    constant) just left of its first user; the output last.  Columns are packed into
    bands no wider than ``max_width``; a band break becomes a pair of connector columns
    (an exit at the end of one band, an entry at the start of the next), and inputs
    whose users all lie in a later band move to that band's entry column.  Long edges
    get waypoints (shared by all edges from one source)."""
    preds, users = {id(v): [] for v in verts}, {id(v): [] for v in verts}
    for a, b, e in edges:
        preds[id(b)].append(a)
        users[id(a)].append(b)
    col = {}
    for v in _topological([v for v in verts if v.kind != "const"], preds):
        ins = [col[id(a)] for a in preds[id(v)] if a.kind != "const"]
        col[id(v)] = 0 if v.kind == "leaf" else (max(ins) + 1 if ins else 1)
    for v in verts:                              # an input stands just left of its first user
        if v.kind in ("const", "leaf") and users[id(v)]:
            col[id(v)] = max(0, min(col[id(u)] for u in users[id(v)]) - 1)
    out = next(v for v in reversed(verts) if v.kind == "output")
    col[id(out)] = max(col[id(v)] for v in verts if v is not out) + 1
    ncols = col[id(out)] + 1

    col_w = [0.0] * ncols
    for v in verts:
        col_w[col[id(v)]] = max(col_w[col[id(v)]], v.w)
    gap = [0.0] + [m.gap] * (ncols - 1)
    for (a, b, e), lab in zip(edges, labels):
        if lab is not None:
            gap[col[id(b)]] = max(gap[col[id(b)]], lab[0] + m.label_pad)
    movers = [(col[id(v)], min(col[id(u)] for u in users[id(v)]), v.w) for v in verts
              if v.kind in ("const", "leaf") and users[id(v)]]
    starts = _band_starts(col_w, gap, max_width, movers, m)
    kinds = []                                   # per column drawn: (kind, band, column)
    real = {}
    for b, s in enumerate(starts):
        end = starts[b + 1] - 1 if b + 1 < len(starts) else ncols - 1
        if b > 0:
            kinds.append(("entry", b, None))
        for c in range(s, end + 1):
            real[c] = len(kinds)
            kinds.append(("real", b, c))
        if b + 1 < len(starts):
            kinds.append(("exit", b, None))
    entry_col = {b: k for k, (kind, b, _) in enumerate(kinds) if kind == "entry"}
    for v in verts:
        v.col = real[col[id(v)]]
    for v in verts:                              # inputs next to their users, band-wise
        if v.kind in ("const", "leaf") and users[id(v)]:
            b_user = kinds[min(u.col for u in users[id(v)])][1]
            if b_user > kinds[v.col][1]:
                v.col = entry_col[b_user]

    shared, extra, chains = {}, [], []
    for a, b, e in edges:
        chain, c = [a], a.col
        while True:
            c += 1
            if kinds[c - 1][0] == "exit" and kinds[b.col][1] > kinds[c][1]:
                c = entry_col[kinds[b.col][1]]   # jump straight to the target's band
            if c >= b.col:
                break
            d = shared.get((id(a), c))
            if d is None:
                kind = kinds[c][0]
                d = (Box("dummy", a.order + 0.5, 0.0, m.dummy_h) if kind == "real" else
                     Box(kind, a.order + 0.5, m.conn, m.conn))
                d.col = c
                shared[(id(a), c)] = d
                extra.append(d)
            chain.append(d)
        chain.append(b)
        chains.append(chain)
    layers = [[] for _ in kinds]
    for v in sorted(verts + extra, key=lambda v: v.order):
        layers[v.col].append(v)
        v.band = kinds[v.col][1]
    for k, (kind, b, c) in enumerate(kinds):     # the room left of each drawn column
        kinds[k] = (kind, b, c, gap[c] if kind == "real" else m.exit if kind == "exit" else 0.0)
    return layers, kinds, chains


def _band_starts(col_w, gap, max_width, movers, m):
    """Where each band starts: the fewest bands that fit ``max_width``, with the columns
    spread so the widest band is as narrow as possible (no lonely last column).
    ``movers``: (column, first user's column, width) of inputs, which move to the entry
    column of their first user's band when that band starts after their column."""
    n = len(col_w)

    def width(s, e):
        entry = max([m.conn] + [w for c, u, w in movers if c < s <= u <= e])
        w = 2 * m.margin + (entry + gap[s] if s > 0 else 0.0) + col_w[s]
        w += sum(gap[c] + col_w[c] for c in range(s + 1, e + 1))
        return w + (m.exit + m.conn if e < n - 1 else 0.0)

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


def _place_columns(layers, kinds, m):
    """x of every box, band by band from the left margin; the left and right edge of
    every drawn column."""
    left, right = [0.0] * len(layers), [0.0] * len(layers)
    x = 0.0
    for k, (kind, b, c, room) in enumerate(kinds):
        w = max([v.w for v in layers[k]] + [0.0])
        x = m.margin if k == 0 or kinds[k - 1][1] != b else x + room
        for v in layers[k]:
            v.x = x + w / 2
        left[k], right[k] = x, x + w
        x += w
    return left, right


def _pieces(chain, e, m):
    """The points an edge's curve passes through; a new piece after a band break."""
    target = chain[-1]
    pieces, cur = [], [_leave(chain[0])]
    for a, b in zip(chain, chain[1:]):
        if a.kind == "exit" and b.kind == "entry":      # continue in the next band
            pieces.append((cur, False))
            cur = [_leave(b)]
            continue
        if b is target:
            cur.append([b.x - b.w / 2, b.y + port_offset(b, e.port, m)])
        elif b.kind == "dummy":
            cur.append([b.x, b.y])
        else:                                            # into an exit connector
            cur.append([b.x - b.w / 2, b.y])
    pieces.append((cur, True))
    return pieces


def _leave(v):
    return [v.x, v.y] if v.kind == "dummy" else [v.x + v.w / 2, v.y]


def _curve_y(p0, p1, x):
    """The height at ``x`` of the curve drawn from p0 to p1 (a cubic with horizontal
    ends, control points halfway across)."""
    (x0, y0), (x1, y1) = p0, p1
    lo, hi = 0.0, 1.0
    for _ in range(30):                          # x(t) grows with t: bisect
        t = (lo + hi) / 2
        xt = (1 - t) ** 3 * x0 + 3 * (1 - t) * t * (x0 + x1) / 2 + t ** 3 * x1
        lo, hi = (t, hi) if xt < x else (lo, t)
    t = (lo + hi) / 2
    return (1 - t) ** 3 * y0 + 3 * (1 - t) ** 2 * t * y0 + 3 * (1 - t) * t ** 2 * y1 + t ** 3 * y1


def _port_frac(v, port):
    k = v.nports
    return (port - (k - 1) / 2) * 0.1 if k > 1 else 0.0


def _topological(verts, preds):
    """``verts`` ordered so that every vertex comes after the vertices feeding it."""
    index = {id(v) for v in verts}
    state, out = set(), []
    for root in verts:
        if id(root) in state:
            continue
        state.add(id(root))
        stack = [(root, iter([u for u in preds[id(root)] if id(u) in index]))]
        while stack:
            v, it = stack[-1]
            for u in it:
                if id(u) not in state:
                    state.add(id(u))
                    stack.append((u, iter([w for w in preds[id(u)] if id(w) in index])))
                    break
            else:
                stack.pop()
                out.append(v)
    return out


def _crossings(segs):
    by_col = {}
    for a, b, frac, *_ in segs:
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
    for a, b, frac, *_ in segs:
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


def _place_rows(layers, segs, m):
    """y (downwards) for every box: rows keep their order and a minimum gap, and each
    box moves towards the weighted mean height of its neighbours (constants pull less,
    so a chain of operations stays straight)."""
    def offsets(layer):
        offs = [0.0]
        for a, b in zip(layer, layer[1:]):
            g = m.dummy_gap if a.kind == "dummy" and b.kind == "dummy" else m.row_gap
            offs.append(offs[-1] + (a.h + b.h) / 2 + g)
        return offs

    for layer in layers:
        offs = offsets(layer)
        mid = offs[-1] / 2 if offs else 0.0
        for v, o in zip(layer, offs):
            v.y = o - mid
    nbrs = {}
    for a, b, _, port, kind in segs:
        off_b = 0.0 if port is None else port_offset(b, port, m)
        w = 0.15 if kind == "const" else 1.0
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
