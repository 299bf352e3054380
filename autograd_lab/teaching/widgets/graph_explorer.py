"""GraphExplorer: move a small model's parameters and watch its graph's gradients.

Every node shows its value, every edge the gradient a traced backward sent along it."""
import itertools
import math

import numpy as np

from .. import viz
from ...creation import tensor as _tensor
from ..graph_layout import GraphModel, Metrics, layout
from ...core.watch import trace_backward
from ...core.tensor import Tensor
from . import _base as b

MAX_SLIDERS = 8            # one slider per entry of the moving parameters
GRID = (-10.0, 1.0, 3.0, 10.0)   # what the page's sliders snap to (with the start and the presets)
MAX_PAGE_STATES = 400      # more combinations than this are not stored in the page

# -- sizes of the drawing, in CSS pixels (the view draws with the same numbers) ----------------
CHAR = 6.4          # width of one character of the 10.5 px monospace font (0.6 em, rounded up)
LABEL_CHAR = 6.0    # the same for the 10 px font of the gradients beside the edges
LINE = 14.0         # height of one line of text
NUM = 7             # characters a number takes in most states ("-0.1282"): boxes are sized for it
PAD_X, PAD_Y = 8.0, 5.0
ROW_GAP = 12.0      # between boxes in one column
GAP = 34.0          # the least room between two columns
CONN = 18.0         # diameter of the circled letter that carries an edge to the next band
EXIT = 10.0         # room between a band's last column and its circled letters
BAND_GAP = 20.0     # between bands
MARGIN = 6.0
MAX_WIDTH = 640.0   # the drawing at most this wide: it fits the book's text column at 1280 px
SHOW = 6            # values with more entries show their first three and their shape
# the widths (characters) the lines of inputs' boxes and of other boxes may take: each is tried
WIDE = [(a, b) for a in (19, 27, 34) for b in (19, 27)]


class GraphExplorer(b.Explorer):
    """Move a small model's parameters; watch the value in every node of its graph and
    the gradient on every edge after a traced ``backward()``.

    ``fn`` is called with the parameters as keyword arguments (fresh leaf copies, so the
    reader's tensors and their ``.grad`` are never touched) and returns the output -- a
    scalar such as a loss -- or a dict of named tensors whose LAST entry is the output
    (the others name intermediate nodes in the picture).  ``params`` maps names to
    tensors; ``move`` names the parameters that get a slider and a number box per entry
    (default: all; at most 8 entries); ``names`` names other tensors the model uses, such
    as targets (shown as grey constants).  ``presets`` maps button labels to parameter
    values, e.g. ``{"all 3": {"W": [[3., 3., 3.]]}}``; "reset" goes back to the start.

    In Jupyter every change runs ``fn`` and ``output.backward()`` inside
    ``al.autograd.trace_backward()``.  The book's pages cannot run the model: they carry
    the states autograd_lab computed when the book was built for every combination of
    slider values from ``grid`` (plus each entry's starting value and the presets), and
    each slider snaps to those values.

    Set: ``set(W=[[...]])``, ``use_preset(name)``, ``reset()``.  Read: ``.params``
    (tensors), ``.values`` (the named tensors of the last run, output last), ``.output``,
    ``.grads`` (every parameter's gradient), ``.trace``, ``.error``.
    """

    kind = "graph_explorer"
    _esm = b.module_source("graph_explorer")

    def __init__(self, fn, params, *, move=None, names=None, presets=None, grid=GRID, title=None):
        super().__init__()
        with b.quiet():
            if not isinstance(params, dict) or not params:
                raise TypeError("GraphExplorer needs params as a dict of tensors, e.g. {'W': W}")
            for name, t in params.items():
                b.check_input(t, f"GraphExplorer (parameter {name!r})")
            self.fn, self.title = fn, title
            self._dtypes = {k: t._data.dtype for k, t in params.items()}
            self._start = {k: np.array(t._data, dtype=np.float64) for k, t in params.items()}
            self._now = {k: v.copy() for k, v in self._start.items()}
            self.move = list(params) if move is None else [move] if isinstance(move, str) else list(move)
            unknown = [m for m in self.move if m not in params]
            if unknown:
                raise ValueError(f"move names {unknown}, which are not in params ({list(params)})")
            self._sliders = [(m, i) for m in self.move for i in range(self._start[m].size)]
            if not 1 <= len(self._sliders) <= MAX_SLIDERS:
                raise ValueError(f"GraphExplorer has one slider per entry of the moving parameters: "
                                 f"{len(self._sliders)} entries, at most {MAX_SLIDERS} (name fewer in move=)")
            self.names = {}
            for name, t in (names or {}).items():
                if not isinstance(t, Tensor):
                    raise TypeError(f"names[{name!r}] is a {type(t).__name__}; names maps display "
                                    "names to tensors, e.g. {'y_true': y_true}")
                self.names[str(name)] = t
            self.presets = {}
            for label, values in (presets or {}).items():
                self.presets[str(label)] = {k: self._checked(k, v) for k, v in values.items()}
            self.grid = [float(g) for g in grid]
            # boxes as wide as fit: the fewer lines, the less tall the picture
            best = None
            for wide in WIDE:
                run = self._run(self._start, wide)
                if not isinstance(run, _Run):
                    raise run
                layout = _layout(run)
                if best is None or (layout["width"] <= MAX_WIDTH and layout["height"] < best[2]["height"]):
                    best = (wide, run, layout)
            self._wide, run, layout = best
            self._shape = run.shape                     # the graph's structure, drawn once
            self._show(run)
            self.spec = self._spec(run, layout)
        self._guard(lambda: None)()                     # publish the starting state

    # -- one forward and one traced backward ----------------------------------------------------
    def _run(self, values, wide=None):
        """Run the model on fresh leaves holding ``values``; a _Run, or the exception.
        ``wide``: how many characters a line of a box may take (see _Run)."""
        leaves = {k: _tensor(v.astype(self._dtypes[k])).requires_grad_(True) for k, v in values.items()}
        try:
            out = self.fn(**leaves)
            named = dict(out) if isinstance(out, dict) else {"output": out}
            if not named:
                raise ValueError("fn returned an empty dict; it must return the output")
            for k, t in named.items():
                if not isinstance(t, Tensor):
                    raise TypeError(f"fn's {k!r} is a {type(t).__name__}, not an autograd_lab tensor")
            output = list(named.values())[-1]
            if output.numel() != 1:
                raise ValueError(f"the output {list(named)[-1]!r} has shape {tuple(output.shape)}; "
                                 "GraphExplorer runs backward() from a scalar, such as a loss")
            if output.grad_fn is None:
                raise ValueError("the output does not depend on the parameters (it has no grad_fn)")
            with trace_backward() as trace:
                output.backward(retain_graph=True)      # keep the saved values: constants are shown
        except Exception as exc:                        # noqa: BLE001 - reported by the caller
            return exc
        return _Run(output, named, leaves, self.names, trace, wide or self._wide)

    def _show(self, run):
        self.trace = run.trace
        self.values = {k: t.detach() for k, t in run.named.items()}
        self.output = list(self.values.values())[-1]
        self.grads = {k: t.grad for k, t in run.leaves.items()}
        self._slots, self._slot_specs = run.slots, run.slot_specs
        self._graph = run

    def _compute(self):
        self.error = self.note = None
        self.values = self.output = self.grads = self.trace = self._slots = None
        run = self._run(self._now)
        if not isinstance(run, _Run):
            self.error = f"{type(run).__name__}: {run}"
            return
        if run.shape != self._shape:
            self.error = ("with these values the model recorded a different graph (another "
                          "branch of its Python code); the explorer draws the graph it started with")
            return
        self._show(run)
        found = [b.problems(k, np.atleast_1d(t._data)) for k, t in self.values.items()]   # (a scalar as
        found += [b.problems(f"{k}.grad", g) for k, g in self.grads.items()]               # one entry)
        found = [p for p in found if p]
        if found:
            self.error = "; ".join(found)

    # -- the programmatic API -----------------------------------------------------------------
    @property
    def params(self):
        """The parameters' current values, as tensors."""
        return {k: _tensor(v.astype(self._dtypes[k])) for k, v in self._now.items()}

    def set(self, **values):
        """Set one or more parameters, e.g. ``ex.set(W=[[3., 3., 3.]])``: one run, one redraw."""
        self._guard(self._set_all)(values)

    def use_preset(self, name):
        """Set the parameters to one of ``.presets``."""
        self._guard(self._preset)(name)

    def reset(self):
        """Back to the starting values."""
        self._guard(self._set_all)(self._start)

    def _checked(self, name, value):
        if name not in self._start:
            raise ValueError(f"there is no parameter {name!r}; the parameters are {', '.join(self._start)}")
        v = b.as_numbers(value)
        if v.shape != self._start[name].shape:
            raise ValueError(f"{name} has shape {viz.shape_str(self._start[name].shape)}; "
                             f"got shape {viz.shape_str(v.shape)}")
        return v

    def _set_all(self, values):
        checked = {k: self._checked(k, v) for k, v in values.items()}   # all or nothing
        for k, v in checked.items():
            self._now[k] = v.copy()
        self._compute()

    def _preset(self, name):
        if name not in self.presets:
            raise ValueError(f"no preset {name!r}; the presets are {', '.join(map(repr, self.presets))}")
        self._set_all(self.presets[name])

    def _act(self, msg):
        if msg.get("set") == "param":
            name, index = msg.get("name"), msg.get("index")
            if (name, index) not in self._sliders:
                raise ValueError(f"no slider {name}[{index}]")
            value = self._now[name].copy()
            value.reshape(-1)[index] = float(b.as_numbers(msg.get("value")))
            self._set_all({name: value})
        elif msg.get("do") == "preset":
            self._preset(msg.get("name"))
        elif msg.get("do") == "reset":
            self._set_all(self._start)
        else:
            raise ValueError(f"GraphExplorer does not know the message {msg!r}")

    def _state(self):
        slots = None if self._slots is None else \
            [b.js(v.reshape(-1)[s.shown]) for v, s in zip(self._slots, self._slot_specs)]
        return {"params": {m: b.js(self._now[m].astype(self._dtypes[m])) for m in self.move},
                "slots": slots}

    # -- what the view draws ------------------------------------------------------------------
    def _spec(self, run, layout):
        out_name = list(run.named)[-1]
        starts = [float(self._start[m].reshape(-1)[i]) for m, i in self._sliders]
        readout = [{"label": out_name, "slot": run.output_slot}]
        readout += [{"label": f"{k}.grad", "slot": run.leaf_grad_slot[k]} for k in self._start
                    if k in run.leaf_grad_slot]
        return {
            "title": self.title or f"{out_name}.backward() through the graph: move "
                                   f"{', '.join(self.move)}, watch the gradients",
            "sliders": [{"name": m, "index": i, "label": b.index_labels(m, self._start[m].shape)[i],
                         "shape": list(self._start[m].shape)} for m, i in self._sliders],
            "start": {m: b.js(self._start[m].astype(self._dtypes[m])) for m in self.move},
            "presets": {k: {m: b.js(v[m].astype(self._dtypes[m])) for m in self.move if m in v}
                        for k, v in self.presets.items()},
            "range": [min(min(self.grid), *starts) , max(max(self.grid), *starts)],
            "grid": self.grid, "output": out_name, "readout": readout,
            "slots": [{"lines": s.lines, "shown": s.shown, "shape": list(s.shape)} for s in run.slot_specs],
            **layout,
        }

    def _page(self):
        """Every state a page reader can reach: each slider snaps to the grid, its starting
        value and the presets' values; all the combinations, computed here by autograd_lab."""
        if getattr(self, "_page_cache", None) is None:
            self._page_cache = self._page_states()
        return self._page_cache

    def _page_states(self):
        axes = []
        for m, i in self._sliders:
            values = set(self.grid) | {float(self._start[m].astype(self._dtypes[m]).reshape(-1)[i])}
            values |= {float(p[m].astype(self._dtypes[m]).reshape(-1)[i]) for p in self.presets.values() if m in p}
            axes.append(sorted(values))
        count = math.prod(len(a) for a in axes)
        if count > MAX_PAGE_STATES:
            return {"axes": axes, "states": None,
                    "why": f"{count} combinations of slider values are too many to store in the page"}
        rows = []
        with b.quiet():
            for combo in itertools.product(*axes):
                values = {k: v.copy() for k, v in self._start.items()}
                for (m, i), v in zip(self._sliders, combo):
                    values[m].reshape(-1)[i] = v
                run = self._run(values)
                if not isinstance(run, _Run) or run.shape != self._shape:
                    return {"axes": axes, "states": None,
                            "why": "the model cannot be run (or changes its graph) for some of these values"}
                rows.append([_shown(v, s.shown) for v, s in zip(run.slots, run.slot_specs)])
        # a slot that never changes is stored once; one equal to an earlier slot, or to the
        # slider values themselves, not at all
        slots, width, seen = [], 0, {}
        moving = {self._graph.leaf_value_slot.get(m): m for m in self.move}
        for k in range(len(rows[0])):
            column = [r[k] for r in rows]
            key = repr(column)
            if k in moving:
                slots.append({"param": moving[k]})
            elif all(c == column[0] for c in column):
                slots.append({"fixed": column[0]})
            elif key in seen:
                slots.append({"same": seen[key]})
            else:
                seen[key] = k
                slots.append({"at": width, "n": len(column[0])})
                width += len(column[0])
        states = [[x for k, s in enumerate(slots) if "at" in s for x in r[k]] for r in rows]
        return {"axes": axes, "slots": slots, "states": states}

    # -- pictures and text ------------------------------------------------------------------
    def figure(self):
        run = self._graph
        moved = "  ".join(f"{m} = {b.short(self.params[m], 34)}" for m in self.move)
        fig = viz.draw_graph(run.output, run.names, trace=run.trace, value_width=24, max_width=7.5,
                             title=self.title or f"{moved}:  {list(run.named)[-1]} = "
                                                 f"{viz.num(run.output.item())}")
        fig._al_alt = self._alt(fig)
        return fig

    def _alt(self, fig):
        """The picture's alt text: the graph and every number on it."""
        run = self._graph
        parts = [viz.alt_text(fig).rstrip(".")]
        parts.append("; ".join(f"{m} = {b.short(self.params[m], 60)}" for m in self.move))
        for v in run.vertices:
            if v["kind"] == "op" and v.get("value") is not None:
                parts.append(f"{v['op']} computes {_text(run.slots[v['value']])}")
        for e in run.edges:
            if e["slot"] is not None:
                parts.append(f"gradient {_text(run.slots[e['slot']])} sent back from "
                             f"{run.vertices[e['to']]['label']} to {run.vertices[e['from']]['label']}")
        parts += [f"{k}.grad = {b.short(g, 60)}" for k, g in self.grads.items()]
        if self.error:
            parts.append(f"problem: {self.error}")
        return "; ".join(parts) + "."

    def summary(self):
        moved = ", ".join(f"{m} = {b.short(self.params[m], 60)}" for m in self.move)
        if self.values is None:
            return f"GraphExplorer: {moved}; no result" + self._problem_suffix()
        out = list(self.values)[-1]
        grads = "; ".join(f"{k}.grad = {b.short(g, 60)}" for k, g in self.grads.items())
        return (f"GraphExplorer: {moved}; {out} = {viz.num(self.output.item())}; {grads}"
                + self._problem_suffix())


# -- reading the graph of one run ------------------------------------------------------------------
class _Slot:
    """One value the picture shows (a node's value, a gradient): which entries, on which
    lines.  ``exact``: the value never changes (a constant), so its lines are as wide as
    its numbers; other values are given NUM characters a number."""

    def __init__(self, shape, per_line=3, exact=None):
        self.shape = tuple(shape)
        self.lines, self.shown, self.note = _lines(self.shape, per_line)
        self.texts = None if exact is None else [viz.num(float(exact.reshape(-1)[i])) for i in self.shown]

    def chars(self, k):
        """The characters line ``k`` takes."""
        line = self.lines[k]
        start = sum(self.lines[j]["n"] for j in range(k))
        numbers = (NUM * line["n"] if self.texts is None else
                   sum(len(t) for t in self.texts[start:start + line["n"]]))
        return len(line["pre"]) + numbers + 2 * max(0, line["n"] - 1) + len(line["post"])


def _lines(shape, per_line=3):
    """How a value of ``shape`` is written: [{pre, n, post}] per line (n numbers, in order,
    between the texts pre and post), the flat indices shown, and an extra line or None."""
    n, nd = math.prod(shape), len(shape)
    if nd == 0:
        return [{"pre": "", "n": 1, "post": ""}], [0], None
    if n == 0:
        return [{"pre": "[" * nd + "]" * nd, "n": 0, "post": ""}], [], None
    if n > SHOW:
        return ([{"pre": "[" * nd, "n": 3, "post": ", …"}], [0, 1, 2],
                f"shape {viz.shape_str(shape)}")
    if nd == 2 and 1 < shape[0] <= 3 and shape[1] <= per_line:          # one row per line
        rows = [{"pre": ("[[" if r == 0 else " ["), "n": shape[1], "post": ("]]" if r == shape[0] - 1 else "],")}
                for r in range(shape[0])]
        return rows, list(range(n)), None
    counts = [min(per_line, n - k) for k in range(0, n, per_line)]
    if len(counts) > 1 and counts[-1] == 1 and per_line > 2:              # 2 + 2, not 3 + 1
        return _lines(shape, per_line - 1)
    lines = [{"pre": ("[" * nd if k == 0 else " " * nd), "n": c,
              "post": ("]" * nd if k == len(counts) - 1 else ",")} for k, c in enumerate(counts)]
    return lines, list(range(n)), None


def _shown(value, shown):
    """The entries of ``value`` that the picture shows: numbers for JSON (at the precision
    the view prints, so the page stores no digit it does not show)."""
    flat = np.asarray(value, dtype=np.float64).reshape(-1)
    out = []
    for i in shown:
        v = float(flat[i])
        out.append(float(viz.num(v)) if math.isfinite(v) else ("nan" if math.isnan(v) else
                                                                  ("inf" if v > 0 else "-inf")))
    return out


def _text(value):
    return viz.summary(np.asarray(value), 60)


class _Run:
    """One forward pass and its traced backward, read as the picture sees it: the graph
    (graph_layout's model, as viz.draw_graph reads it), each box's lines, each edge, and
    the slots holding the numbers."""

    def __init__(self, output, named, leaves, names, trace, wide):
        self.output, self.named, self.leaves, self.trace = output, named, leaves, trace
        self.wide = wide
        self.vertices, self.edges, self.slots, self.slot_specs = [], [], [], []
        self.leaf_grad_slot, self.leaf_value_slot = {}, {}
        self.names = {**leaves, **names, **named}          # display name -> tensor
        self.model = model = GraphModel(output, self.names, trace)
        for mv in model.vertices:
            v = self._vertex(mv.kind, mv.name if mv.kind != "op" else mv.op, op=mv.op)
            if mv.kind == "leaf":
                v["lines"].append((mv.name, "name"))
                self.leaf_value_slot[mv.name] = self._value(v, mv.value._data)
                if mv.grad is not None:
                    self.leaf_grad_slot[mv.name] = self._new_slot(mv.grad)   # in the readout, not the box
            elif mv.kind == "op":
                v["lines"] += ([(mv.name, "muted")] if mv.name else []) + [(mv.op, "op")]
                if mv.value is None:
                    v["lines"] += [(f"shape {viz.shape_str(mv.shape)}", "muted"), (mv.note, "muted")]
                else:
                    v["value"] = self._value(v, mv.value)
            elif mv.kind == "const":
                v["lines"].append((mv.name, "muted"))
                if mv.text is not None:
                    v["lines"].append((mv.text[:20], "value"))
                else:
                    self._value(v, mv.value._data if isinstance(mv.value, Tensor) else float(mv.value), exact=True)
            else:
                v["lines"].append((mv.name, "name"))
                self.output_slot = self._value(v, mv.value._data)
                if mv.grad is not None:
                    self._value(v, mv.grad, "grad", "seed ")
        for e in model.edges:
            self.edges.append({"from": e.src, "to": e.dst, "port": e.port, "kind": e.kind,
                               "slot": None if e.grad is None else self._new_slot(e.grad)})
        # the structure: what must stay the same for the picture to stay right
        self.shape = (tuple((v["kind"], v["label"], tuple(map(tuple, v["lines_key"]))) for v in self.vertices),
                      tuple((e["from"], e["to"], e["port"], e["kind"], e["slot"]) for e in self.edges),
                      tuple(s.shape for s in self.slot_specs))

    def _vertex(self, kind, label, op=None):
        v = {"id": len(self.vertices), "kind": kind, "label": label, "op": op, "lines": [],
             "lines_key": []}
        self.vertices.append(v)
        return v

    def _new_slot(self, value, per_line=3, exact=False):
        a = np.array(value._data if isinstance(value, Tensor) else value, dtype=np.float64)
        self.slot_specs.append(_Slot(a.shape, per_line, a if exact else None))
        self.slots.append(a)
        return len(self.slots) - 1

    def _value(self, v, value, style="value", prefix="", exact=False):
        """Give vertex ``v`` lines showing ``value`` (a new slot); returns the slot.  As
        many numbers a line as fit the box's other lines, or ``self.wide`` characters."""
        room = self.wide[0] if v["kind"] in ("leaf", "const") else self.wide[1]
        wide = max([room] + [len(line[0]) for line in v["lines"] if isinstance(line, tuple)])
        for per_line in (3, 2, 1):
            k = self._new_slot(value, per_line, exact)
            spec = self.slot_specs[k]
            if per_line == 1 or max(len(prefix) + spec.chars(n) for n in range(len(spec.lines))) <= wide:
                break
            self.slot_specs.pop()
            self.slots.pop()
        for n, line in enumerate(spec.lines):
            v["lines"].append({"slot": k, "line": n, "style": style, "prefix": prefix if n == 0 else " " * len(prefix)})
        if spec.note:
            v["lines"].append((spec.note, "muted"))
        v["lines_key"].append((style, spec.shape, per_line))
        return k


# -- the layout: graph_layout's, in pixels ----------------------------------------------------------
_PIXELS = Metrics(margin=MARGIN, gap=GAP, label_pad=8.0, row_gap=ROW_GAP, dummy_gap=6.0, dummy_h=12.0,
                  conn=CONN, exit=EXIT, band_gap=BAND_GAP, port_step=14.0, port_inset=10.0,
                  label_gap=2.0)


def _line_chars(line, slot_specs):
    if isinstance(line, tuple):
        return len(line[0])
    return len(line["prefix"]) + slot_specs[line["slot"]].chars(line["line"])


def _label(slot_spec):
    """An edge's gradient, written "← value" beside the edge: one number a line, or more
    when that takes more than three lines."""
    for per_line in (1, 2, 3):
        label = _Slot(slot_spec.shape, per_line)
        if len(label.lines) <= 3:
            break
    chars = max([len("← ") + label.chars(k) for k in range(len(label.lines))] + [len(label.note or "")])
    return {"lines": label.lines, "note": label.note, "w": chars * LABEL_CHAR + 4,
            "h": (len(label.lines) + (1 if label.note else 0)) * (LINE - 1) + 4}


def _layout(run):
    """Where every box, edge, label and connector goes (pixels, y downwards): the layout
    of viz.draw_graph's pictures (graph_layout.layout), with boxes sized by counting
    characters of the view's monospace font, in bands no wider than MAX_WIDTH."""
    specs = run.slot_specs
    sizes = [(max(64.0, max(_line_chars(line, specs) for line in v["lines"]) * CHAR + 2 * PAD_X),
              len(v["lines"]) * LINE + 2 * PAD_Y) for v in run.vertices]
    labels = [_label(specs[e["slot"]]) if e["slot"] is not None else None for e in run.edges]
    placed = layout(run.model, sizes, [lab and (lab["w"], lab["h"]) for lab in labels], _PIXELS, MAX_WIDTH)
    r = lambda z: round(z, 1)                    # noqa: E731
    return {
        "width": r(placed.width), "height": r(placed.height + 1), "rules": [r(y) for y in placed.rules],
        "vertices": [{"kind": v["kind"], "x": r(box.x), "y": r(box.y), "w": r(box.w), "h": r(box.h),
                      "lines": [{"text": line[0], "style": line[1]} if isinstance(line, tuple) else
                                {k: line[k] for k in ("slot", "line", "style", "prefix")} for line in v["lines"]]}
                     for v, box in zip(run.vertices, placed.boxes)],
        "edges": [{"kind": e["kind"], "slot": e["slot"],
                   "pieces": [{"points": [[r(x), r(y)] for x, y in points], "arrow": arrow}
                              for points, arrow in pieces],
                   "label": None if at is None else
                   {"x": r(at.x), "y": r(at.y), "w": r(at.w), "h": r(at.h), "lines": lab["lines"],
                    "note": lab["note"]}}
                  for e, pieces, at, lab in zip(run.edges, placed.pieces, placed.labels, labels)],
        "connectors": [{"x": r(c.x), "y": r(c.y), "letter": c.letter} for c in placed.connectors],
    }
