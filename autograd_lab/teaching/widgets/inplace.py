"""InplaceExplorer: an operation, an in-place write, and what backward does then.

The reader predicts whether ``y.sum().backward()`` raises an error, runs fine, or runs with
a silently stale gradient; then sees the graph with the version of every value a node
saved, and the gradient beside the gradient of an honest recomputation."""
import json
import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Callable

import numpy as np

from .. import viz
from ...creation import tensor as _tensor
from ...core.modes import no_grad
from ...core.tensor import Tensor
from . import _base as b

# The operations a reader picks from: the code shown, and the operation on a leaf x.
OPERATIONS = {
    "y = x * 2": lambda x: x * 2,
    "y = x.exp()": lambda x: x.exp(),
    "y = x.sigmoid()": lambda x: x.sigmoid(),
    "y = x ** 2": lambda x: x ** 2,
    "y = x.sin()": lambda x: x.sin(),
}

# What a reader predicts, and the words the view shows for it.
OUTCOMES = {"error": "error", "fine": "fine", "stale": "silently stale"}


@dataclass(frozen=True)
class Write:
    """One write after ``y = f(x)``.  ``run(x, y)`` writes and returns the tensor it wrote
    through (y, ``y.detach()``, ``y.data``, x or ``x.data``), whose version counter the
    view shows.  ``target``: the tensor whose numbers change ("x", "y", or "" for none).
    ``how``: "recorded" (an in-place op on y: a new node in the graph), "counted"
    (through ``detach()``, or on a leaf under ``no_grad``: the version moves, nothing is
    recorded), "data" (through ``.data``: neither), "leaf" (refused) or "none".
    ``honest(x2, y2)`` is the same step written out of place, on a fresh leaf x2 holding
    x's numbers at the forward (``y2 = f(x2)``); ``honest_code`` says it, ``{y}`` standing
    for f(x2).  ``effect``: why leaving an unrecorded write out of the gradient is right
    (when no node keeps what it changed)."""
    code: str
    target: str
    how: str
    run: Callable
    honest: Callable
    honest_code: str
    effect: str = ""


def _set_first(x, y):
    y[0] = 0.0
    return y


def _detached_add(x, y):
    d = y.detach()
    d.add_(1)
    return d


def _data_add(x, y):
    d = y.data
    d.add_(1)
    return d


def _no_grad_mul(x, y):
    with no_grad():
        x.mul_(2)
    return x


def _data_mul(x, y):
    d = x.data
    d.mul_(2)
    return d


def _all_but_first(y):
    mask = np.ones(tuple(y.shape), np.float32)
    mask.reshape(-1)[0] = 0.0
    return mask


OLD_X = "the loss was computed from x's old numbers"
WRITES = [
    Write("none", "", "none", lambda x, y: None, lambda x, y: y, "{y}"),
    Write("y.add_(1)", "y", "recorded", lambda x, y: y.add_(1), lambda x, y: y + 1, "{y} + 1"),
    Write("y.mul_(2)", "y", "recorded", lambda x, y: y.mul_(2), lambda x, y: y * 2, "{y} * 2"),
    Write("y[0] = 0", "y", "recorded", _set_first, lambda x, y: y * _tensor(_all_but_first(y)),
          "{y} * al.tensor({mask})"),
    Write("y.detach().add_(1)", "y", "counted", _detached_add, lambda x, y: y + 1, "{y} + 1",
          "adding 1 changes no derivative"),
    Write("y.data.add_(1)", "y", "data", _data_add, lambda x, y: y + 1, "{y} + 1",
          "adding 1 changes no derivative"),
    Write("x.mul_(2)", "x", "leaf", lambda x, y: x.mul_(2), lambda x, y: y, "{y}"),
    Write("with al.no_grad(): x.mul_(2)", "x", "counted", _no_grad_mul, lambda x, y: y, "{y}", OLD_X),
    Write("x.data.mul_(2)", "x", "data", _data_mul, lambda x, y: y, "{y}", OLD_X),
]
_WRITES = {w.code: w for w in WRITES}


# -- one state: a real forward, write and backward ---------------------------------------------
def _node_name(node):
    return node.name().split("::")[-1]


def _kept(node, x, y):
    """What ``node`` keeps for its backward, as (what, saved at version, version now),
    the versions the engine compares (inplace.check_versions); None for a number or an
    index, which no write can change."""
    items = []
    if node.op.reads_output:                  # its output's memory, which is y's here
        now = node.out_box[0] if node.out_box is not None else node.out_version
        items.append(("y", node.out_version, now))
    if node.op.saves == "index":
        items.append(("the index", None, None))
    for i, a in enumerate(node.args):
        if not node.reads(i):
            continue
        if isinstance(a, Tensor):
            name = "x" if a is x else "y" if a is y else "a copy of y's old numbers"
            items.append((name, node.versions[i] if node.versions else 0, a._version))
        else:                                 # a number, such as the 2 of x * 2
            items.append((f"the {viz.num(a).rstrip('.')}", None, None))
    return items


def _graph(loss, x, y, forward, op, write):
    """The graph behind ``loss``, from the leaf up: one dict per node with its name, the
    line of code that recorded it and what it keeps.  Read before the backward, which
    lets go of what the nodes saved."""
    nodes, node = [], loss.grad_fn
    while node is not None:
        nodes.append(node)
        node = next((n for n, _ in node.next_functions if n is not None), None)
    out = []
    for node in reversed(nodes):
        if node.op is None:                   # AccumulateGrad: where x.grad is written
            out.append({"name": "AccumulateGrad", "line": "x, a leaf", "keeps": []})
            continue
        line = "y.sum()" if node is loss.grad_fn else op if node is forward else write
        out.append({"name": _node_name(node), "line": line,
                    "keeps": [{"what": w, "at": at, "now": now} for w, at, now in _kept(node, x, y)]})
    return out


def run(x_values, op, write):
    """``y = op(x)`` on a leaf x, the write, ``y.sum().backward()``; and the honest
    recomputation: the write out of place, on a fresh leaf with x's numbers at the
    forward.  Returns everything the explorer shows.  Used on each change, and when the
    book is built, once per state the page can reach."""
    w, f = _WRITES[write], OPERATIONS[op]
    r = SimpleNamespace(op=op, write=write, outcome=None, at=None, error=None, grad=None, honest=None)
    x = _tensor(np.array(x_values, dtype=np.float32), requires_grad=True)
    y = f(x)
    forward = y.grad_fn
    r.x_forward, r.y_forward = x.detach().numpy().copy(), y.detach().numpy().copy()
    through = None
    try:
        through = w.run(x, y)
    except RuntimeError as exc:               # a leaf written in place: refused at once
        r.outcome, r.at, r.error = "error", "write", f"RuntimeError: {exc}"
    r.x_now, r.y_now = x.detach().numpy().copy(), y.detach().numpy().copy()
    r.versions = {"x": x._version, "y": y._version}
    r.data_version = through._version if w.how == "data" else None     # .data's own counter
    loss = y.sum()
    r.nodes = _graph(loss, x, y, forward, op, write)
    r.readers = [n["name"] for n in r.nodes if any(k["what"] == w.target for k in n["keeps"])]
    r.keeps = next(n["keeps"] for n in r.nodes if n["line"] == op)
    r.write_node = next((n["name"] for n in r.nodes if n["line"] == write), None)
    if r.outcome is None:
        try:
            loss.backward()
            r.grad = x.grad.numpy().copy()
        except RuntimeError as exc:
            r.outcome, r.at, r.error = "error", "backward", f"RuntimeError: {exc}"
    x2 = _tensor(r.x_forward, requires_grad=True)
    w.honest(x2, f(x2)).sum().backward()
    r.honest = x2.grad.numpy().copy()
    if r.outcome is None:
        r.outcome = "fine" if np.allclose(r.grad, r.honest, rtol=1e-5, atol=1e-7) else "stale"
    r.why = _why(r, w)
    return r


def _kept_words(keeps):
    return " and ".join(k["what"] for k in keeps) or "nothing"


def _why(r, w):
    """One or two sentences: why this outcome, from what the nodes kept and the versions."""
    op_node = next(n["name"] for n in r.nodes if n["line"] == r.op)
    reader = r.readers[0] if r.readers else None
    t = w.target
    if w.how == "none":
        return f"No write: {op_node} keeps {_kept_words(r.keeps)}, all as the forward left it."
    if w.how == "leaf":
        return ("x is a leaf that requires grad: an in-place write to it is refused on the spot, "
                "unless under al.no_grad() (as in an optimizer step).")
    if r.outcome == "error":
        via = {"recorded": f"{w.code} is recorded ({r.write_node}) and moves",
               "counted": ("y.detach() shares y's version counter, so the write moves" if t == "y" else
                           "Under al.no_grad() a leaf may be written in place (an optimizer step "
                           "does it), and the write moves")}[w.how]
        return (f"{via} {t} to version {r.versions[t]}; {reader} saved {t} at version 0 and its rule "
                f"reads it: the backward refuses.")
    if r.outcome == "stale":
        return (f"{t}.data has a version counter of its own: {t} stays at version {r.versions[t]}, so "
                f"{reader}'s check passes and its rule reads {t}'s new numbers. The gradient is wrong, "
                f"and nothing says so.")
    if w.how == "recorded":
        return (f"{w.code} is recorded as {r.write_node}, and no node keeps y's old numbers "
                f"({op_node} keeps {_kept_words(r.keeps)}): the gradient goes through {r.write_node}.")
    how = (f"is counted ({t} is at version {r.versions[t]}) but not recorded" if w.how == "counted" else
           f"is neither recorded nor counted ({t} stays at version {r.versions[t]})")
    return (f"{w.code} {how}; no node keeps {t} ({op_node} keeps {_kept_words(r.keeps)}), "
            f"and {w.effect}.")


def _result_state(r):
    """The numbers of one state, for the view (and, per state, for the page)."""
    return {"outcome": r.outcome, "at": r.at, "backward_error": r.error,
            "grad": b.js(r.grad), "honest": b.js(r.honest), "nodes": r.nodes, "why": r.why,
            "tensors": [{"name": n, "forward": b.js(fw), "now": b.js(now), "version": r.versions[n],
                         "data_version": r.data_version if _WRITES[r.write].target == n else None}
                        for n, fw, now in (("x", r.x_forward, r.x_now), ("y", r.y_forward, r.y_now))]}


# -- the explorer ----------------------------------------------------------------------------------
class InplaceExplorer(b.Explorer):
    """Pick an operation ``y = f(x)`` and an in-place write, predict what
    ``y.sum().backward()`` does, and see: the error with torch's words, or x.grad beside
    the gradient of an honest recomputation (the same steps written out of place), and
    the graph with what each node saved, at which version.

    The view has a button per operation (``OPERATIONS``) and per write (``WRITES``:
    none, ``y.add_(1)``, ``y.mul_(2)``, ``y[0] = 0``, ``y.detach().add_(1)``,
    ``y.data.add_(1)``, ``x.mul_(2)``, the same under ``no_grad``, ``x.data.mul_(2)``) and
    three prediction buttons; the result shows once a prediction is made.  In Jupyter
    the kernel runs each choice (a real forward, write and backward); in the book's pages
    every pair was run when the book was built.

    Set: ``.op``, ``.write``, ``.prediction`` ("error", "fine" or "stale"; a new op or
    write clears it).  Read: ``.outcome``, ``.right``, ``.grad`` (x.grad, None after an
    error), ``.honest_grad``, ``.backward_error`` (the error's text), ``.nodes``,
    ``.versions``, ``.why``, ``.error`` (a problem with what was asked).
    """

    kind = "inplace"
    _esm = b.module_source("inplace")

    def __init__(self, x=(0.5, 1.0, 2.0), op="y = x.exp()", write="y.mul_(2)", *, title=None):
        super().__init__()
        with b.quiet():                               # creating prints nothing
            self._x = self._values(x)
            self._op = self._choice("op", op)
            self._write = self._choice("write", write)
            self.prediction = None
            self.title = title
            self.spec = {"title": title or "In place: predict what y.sum().backward() does",
                         "x": b.js(self._x), "ops": list(OPERATIONS), "writes": [w.code for w in WRITES],
                         "outcomes": OUTCOMES}
        self._guard(self._compute)()

    # -- the programmatic API ------------------------------------------------------------------
    op = property(lambda self: self._op, lambda self, v: self._guard(self._set)("op", v))
    write = property(lambda self: self._write, lambda self, v: self._guard(self._set)("write", v))
    outcome = property(lambda self: self._r.outcome)
    backward_error = property(lambda self: self._r.error)
    nodes = property(lambda self: self._r.nodes)
    versions = property(lambda self: dict(self._r.versions))
    why = property(lambda self: self._r.why)
    grad = property(lambda self: None if self._r.grad is None else _tensor(self._r.grad))
    honest_grad = property(lambda self: _tensor(self._r.honest))

    @property
    def right(self):
        """Whether the prediction was right (None before one is made)."""
        return None if self.prediction is None else self.prediction == self._r.outcome

    def predict(self, outcome):
        """Predict "error", "fine" or "stale" ("silently stale")."""
        self._guard(self._set)("prediction", outcome)

    @staticmethod
    def _values(x):
        a = b.as_numbers(x).astype(np.float32)
        if a.ndim != 1 or a.size < 2 or not np.isfinite(a).all():
            raise ValueError(f"x must be a list of at least two finite numbers, got {b.text(a)}")
        return a

    @staticmethod
    def _choice(name, value):
        known = list(OPERATIONS) if name == "op" else list(_WRITES)
        if value not in known:
            raise ValueError(f"no {name} {json.dumps(value)}; press one of the buttons")
        return value

    def _set(self, name, value):
        """Take one choice (checked first: a bad one changes nothing), then compute."""
        self.error = None
        if name == "prediction":
            words = {v: k for k, v in OUTCOMES.items()}
            if value is not None and value not in OUTCOMES and value not in words:
                raise ValueError(f"predict 'error', 'fine' or 'silently stale', not {json.dumps(value)}")
            self.prediction = words.get(value, value)
            return
        if name not in ("op", "write"):
            raise ValueError(f"InplaceExplorer has no setting {name!r}")
        setattr(self, f"_{name}", self._choice(name, value))
        self.prediction = None                        # a new question: predict again
        self._compute()

    def _compute(self):
        self._r = run(self._x, self._op, self._write)

    # -- what the view draws --------------------------------------------------------------------
    def _state(self):
        state = {"op": self._op, "write": self._write, "prediction": self.prediction,
                 "code": self._code(self._op, self._write),
                 "honest_code": self._honest_code(self._op, self._write)}
        state.update(_result_state(self._r))
        return state

    def _code(self, op, write):
        lines = [f"x = al.tensor({b.text(self._x)}, requires_grad=True)", op]
        if write != "none":
            lines.append(write)
        return lines + ["y.sum().backward()"]

    def _honest_code(self, op, write):
        w = _WRITES[write]
        f = re.sub(r"\bx\b", "x2", op.split("= ", 1)[1])
        expr = w.honest_code.format(y=f, mask=b.text(_all_but_first(self._x)))
        if not re.fullmatch(r"x2(\.\w+\(\))+", expr):       # x2 * 2 + 1 needs parentheses
            expr = f"({expr})"
        return f"{expr}.sum().backward()"

    def _page(self):
        """Every pair of operation and write, each a real forward, write and backward run
        here (when the book is built); the page looks them up."""
        states = {}
        with b.quiet():
            for op in OPERATIONS:
                for w in WRITES:
                    r = run(self._x, op, w.code)
                    states[f"{op}|{w.code}"] = dict(_result_state(r), code=self._code(op, w.code),
                                                    honest_code=self._honest_code(op, w.code))
        return {"states": states}

    # -- pictures and text ------------------------------------------------------------------------
    def _verdict(self, short=False):
        r = self._r
        if r.outcome == "error":
            if short:
                return f"error at the {r.at}"
            return f"error, raised by {'the write' if r.at == 'write' else 'y.sum().backward()'}"
        return OUTCOMES[r.outcome]

    def figure(self):
        r = self._r
        rows = []
        for t in _result_state(r)["tensors"]:
            was, now = np.array(t["forward"]), np.array(t["now"])
            changed = was != now
            if changed.any():
                rows.append(viz.Row(f"{t['name']} at the forward", viz.value_cells(was)))
            rows.append(viz.Row(f"{t['name']}{' now' if changed.any() else ''}, version {t['version']}",
                                 [viz.Cell(viz.num(v), viz.NAN_FILL if c else viz.PAPER, viz.INK, bold=bool(c))
                                  for v, c in zip(now, changed)]))
        for k, n in enumerate(r.nodes):
            kept = ", ".join(i["what"] + ("" if i["at"] is None else f" (saved v{i['at']}, now v{i['now']})")
                             for i in n["keeps"])
            rows.append(viz.Row(n["name"], merged=f"{n['line']}:  keeps {kept or 'nothing'}", gap=k == 0))
        if r.grad is None:
            rows.append(viz.Row("x.grad", merged="None: the " + ("write" if r.at == "write" else "backward")
                                 + " raised (below)", gap=True, color=viz.VERMILLION))
        else:
            rows.append(viz.Row("x.grad", viz.value_cells(r.grad), gap=True))
        rows.append(viz.Row("honest x2.grad", viz.value_cells(r.honest)))
        error = "" if r.error is None else r.error.split(" Hint:")[0] + "  "
        pic = viz.TablePicture(rows, col_labels=[str(k) for k in range(self._x.size)],
                                title=f"{self._op};  {self._write}:  {self._verdict(short=True)}",
                                legend=f"{error}{r.why}  Honest: {self._honest_code(self._op, self._write)}")
        pic.fig._al_alt = self._alt()
        return pic.fig

    def _alt(self):
        r = self._r
        nodes = "; ".join(
            f"{n['name']} ({n['line']}) keeps " + (", ".join(
                i["what"] + ("" if i["at"] is None else f" saved at version {i['at']}, now at version {i['now']}")
                for i in n["keeps"]) or "nothing") for n in r.nodes)
        data = "" if r.data_version is None else f" ({_WRITES[self._write].target}.data's own counter: {r.data_version})"
        s = (f"In-place explorer: x = {b.short(_tensor(r.x_forward))}, {self._op}, then {self._write}, then "
             f"y.sum().backward(): {self._verdict()}. x is now {b.short(_tensor(r.x_now))} at version "
             f"{r.versions['x']}; y is now {b.short(_tensor(r.y_now))} at version {r.versions['y']}{data}. "
             f"The graph, from the leaf: {nodes}. ")
        s += f"x.grad is None: {r.error} " if r.grad is None else f"x.grad = {b.short(self.grad)}; "
        s += (f"{'T' if r.grad is None else 't'}he honest recomputation "
              f"{self._honest_code(self._op, self._write)} gives {b.short(self.honest_grad)}. ")
        return s + r.why

    def summary(self):
        r = self._r
        s = f"InplaceExplorer: {self._op}; {self._write}; y.sum().backward() -> {self._verdict()}"
        s += f": {r.error}" if r.grad is None else f"; x.grad = {b.short(self.grad)}"
        s += f"; honest x.grad = {b.short(self.honest_grad)}"
        if self.prediction is not None:
            s += f"; predicted {OUTCOMES[self.prediction]} ({'right' if self.right else 'wrong'})"
        return s + self._problem_suffix()
