"""WhereExplorer: how where(x > t, x, y) routes values forward and gradients back.

Each entry comes from x or y, its gradient goes back the same way; the condition gets none."""
import math
from types import SimpleNamespace

import numpy as np

from .. import viz
from ...creation import tensor as _tensor
from ...functions import sqrt as _sqrt, where as _where
from . import _base as b


def expression(sqrt_branch=False, double_where=False):
    """The function a where explorer draws, as code."""
    if not sqrt_branch:
        return "where(x > t, x, y)"
    return ("where(x > t, sqrt(where(x > t, x, 1)), y)" if double_where
            else "where(x > t, sqrt(x), y)")


def route(x, y, t, sqrt_branch=False, double_where=False):
    """``out = where(x > t, branch, y)`` and ONE backward pass of ``L = out.sum()``.

    The branch is x, ``sqrt(x)`` (``sqrt_branch``) or ``sqrt(where(x > t, x, 1))``
    (``double_where`` too).  Returns every tensor the explorer shows (mask, out, the
    gradients of x, y and the branch) with ``error`` and ``note`` texts.  Used by the
    explorer on each change and, when the book is built, once per state the page can
    reach."""
    r = SimpleNamespace(mask=None, inner=None, branch=None, out=None, grad_x=None, grad_y=None,
                        branch_grad=None, error=None, note=None)
    xt = _tensor(x, requires_grad=True)
    yt = _tensor(y, requires_grad=True)
    r.mask = xt > t
    branch = xt
    if sqrt_branch:
        inner = _where(r.mask, xt, 1.0) if double_where else xt
        branch = _sqrt(inner)
        branch.retain_grad()
        r.inner = inner.detach() if double_where else None
    try:
        out = _where(r.mask, branch, yt)
    except RuntimeError as exc:                       # e.g. x and y that do not broadcast
        r.error = str(exc)
        return r
    out.backward(_tensor(np.ones(out.shape, np.float32)))
    r.out, r.grad_x, r.grad_y = out.detach(), xt.grad, yt.grad
    if sqrt_branch:
        r.branch, r.branch_grad = branch.detach(), branch.grad
    found = []
    bad_out = b.problems("out", r.out)
    if bad_out:
        found.append(bad_out + (" (sqrt of a negative x was selected: move t to 0 or above)"
                                if sqrt_branch else ""))
    bad_x = b.problems("x.grad", r.grad_x)
    if bad_x:
        if sqrt_branch and not double_where:
            bad_x += (" although out is finite there: the discarded branch sqrt(x) is nan or has an "
                      "infinite slope, and sqrt's rule multiplies where's 0 by it (0 × inf = nan). "
                      "Tick 'double-where fix'.")
        found.append(bad_x)
    r.error = "; ".join(found) or None
    if double_where and not sqrt_branch:
        r.note = "The double-where fix only matters with 'sqrt branch' ticked."
    elif double_where and not bad_x and (~r.mask._data & (xt._data <= 0)).any():
        r.note = ("The fix at work: where y is taken, the inner where hands sqrt a 1 instead of x, "
                  "so sqrt's rule sends 0 / (2·√1) = 0 back, not 0 × inf = nan.")
    return r


def cuts(x):
    """The thresholds at which the mask ``x > t`` changes: x's distinct finite entries,
    sorted.  With k of them, t falls in one of k + 1 intervals: interval i holds the t
    with exactly i cuts <= t (the comparison is float32's, as the engine's)."""
    a = np.asarray(x, dtype=np.float32).reshape(-1)
    return sorted({float(v) for v in a if math.isfinite(v)})


class WhereExplorer(b.Explorer):
    """``out = where(x > threshold, x, y)``: which entries come from x, which from y, and
    where the gradient of ``L = out.sum()`` goes.

    ``sqrt_branch=True`` computes ``where(x > t, sqrt(x), y)``: at entries with x <= 0 the
    discarded branch is NaN (or has an infinite slope) and x.grad becomes NaN there
    although the forward result is fine (where sends 0, sqrt's rule turns 0 x inf into
    NaN).  ``double_where=True`` applies the fix ``where(x > t, sqrt(where(x > t, x, 1)), y)``.
    Everything is computed by ``al.where`` and ONE real backward per change.

    The view has a slider for t, text boxes for x and y, and two checkboxes.  In Jupyter
    the kernel computes each change; in the book's pages every state the threshold and
    the checkboxes can reach was computed when the book was built (the mask changes only
    when t crosses an entry of x), and x and y cannot be edited.

    Settable: ``.threshold``, ``.x``, ``.y``, ``.sqrt_branch``, ``.double_where``.  Read:
    ``.mask``, ``.out``, ``.grad_x``, ``.grad_y``, ``.condition_grad`` (always None: a
    bool mask never gets a gradient), ``.branch`` and ``.branch_grad`` (the sqrt branch),
    ``.error``, ``.note``.
    """

    kind = "where"
    _esm = b.module_source("where")

    def __init__(self, x, y, threshold=2.0, *, sqrt_branch=False, double_where=False, title=None):
        super().__init__()
        with b.quiet():                              # creating prints nothing
            self.title = title
            self._x = b.as_numbers(x).astype(np.float32)
            self._y = b.as_numbers(y).astype(np.float32)
            self._t = self._threshold(threshold)
            self._sqrt, self._double = bool(sqrt_branch), bool(double_where)
            self.spec = {"title": self._title(self._sqrt, self._double)}
        self._guard(self._compute)()

    # -- the programmatic API -----------------------------------------------------------------
    threshold = property(lambda self: self._t, lambda self, v: self._guard(self._set)("threshold", v))
    x = property(lambda self: _tensor(self._x), lambda self, v: self._guard(self._set)("x", v))
    y = property(lambda self: _tensor(self._y), lambda self, v: self._guard(self._set)("y", v))
    sqrt_branch = property(lambda self: self._sqrt,
                           lambda self, v: self._guard(self._set)("sqrt_branch", v))
    double_where = property(lambda self: self._double,
                            lambda self, v: self._guard(self._set)("double_where", v))
    condition_grad = property(lambda self: None if self.mask is None else self.mask.grad,
                              doc="Always None: the mask is a bool tensor, a constant.")

    @staticmethod
    def _threshold(value):
        t = b.as_numbers(value)
        if t.size != 1:
            raise ValueError(f"the threshold t is one number, got {b.text(t)}")
        return float(t.reshape(-1)[0])

    def _set(self, name, value):
        """Take one new value (checked first: a bad one changes nothing), then compute."""
        if name == "threshold":
            self._t = self._threshold(value)
        elif name in ("x", "y"):
            setattr(self, f"_{name}", b.as_numbers(value).astype(np.float32))
        elif name in ("sqrt_branch", "double_where"):
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} is True or False, got {value!r}")
            setattr(self, "_sqrt" if name == "sqrt_branch" else "_double", bool(value))
        else:
            raise ValueError(f"WhereExplorer has no setting {name!r}")
        self._compute()

    def _compute(self):
        self.error = self.note = None
        r = route(self._x, self._y, self._t, self._sqrt, self._double)
        self.mask, self.out, self.grad_x, self.grad_y = r.mask, r.out, r.grad_x, r.grad_y
        self.branch, self.branch_grad, self._inner = r.branch, r.branch_grad, r.inner
        self.error, self.note = r.error, r.note

    # -- what the view draws ------------------------------------------------------------------
    @staticmethod
    def _routing_state(r):
        """The numbers of one computation, flat, for the view (the part that depends on
        t and the checkboxes; x and y are added by _state)."""
        def flat(t):
            return None if t is None else b.js(t._data.reshape(-1))
        shape = r.out.shape if r.out is not None else r.mask.shape
        return {"mask": np.broadcast_to(r.mask._data, shape).reshape(-1).tolist(),
                "inner": flat(r.inner), "branch": flat(r.branch), "out": flat(r.out),
                "grad_x": flat(r.grad_x), "grad_y": flat(r.grad_y), "branch_grad": flat(r.branch_grad),
                "grad_x_shape": None if r.grad_x is None else list(r.grad_x.shape),
                "grad_y_shape": None if r.grad_y is None else list(r.grad_y.shape),
                "error": r.error, "note": r.note}

    def _state(self):
        r = SimpleNamespace(mask=self.mask, inner=self._inner, branch=self.branch, out=self.out,
                            grad_x=self.grad_x, grad_y=self.grad_y, branch_grad=self.branch_grad,
                            error=self.error, note=self.note)
        state = self._routing_state(r)
        shape = tuple(self.out.shape) if self.out is not None else self._x.shape
        try:
            y_shown = np.broadcast_to(self._y, shape)
        except ValueError:
            y_shown = self._y
        state["title"] = self._title(self._sqrt, self._double)
        state.update(t=b.js(np.float64(self._t)), sqrt_branch=self._sqrt, double_where=self._double,
                     x=b.js(np.broadcast_to(self._x, shape).reshape(-1)), y=b.js(y_shown.reshape(-1)),
                     x_text=b.text(self._x), y_text=b.text(self._y),
                     cols=[s.replace("x", "", 1) for s in b.index_labels("x", shape)],
                     range=self._range())
        return state

    def _range(self):
        """The slider's own range: one beyond x's entries on either side (the view widens
        it for a t outside, for as long as t stays outside)."""
        vals = [float(v) for v in self._x.reshape(-1) if math.isfinite(v)]
        vals = [v for v in vals if math.isfinite(v)] or [0.0]
        return [math.floor(min(vals)) - 1.0, math.ceil(max(vals)) + 1.0]

    def _page(self):
        """Every state the page can reach with this x and y: one per threshold interval,
        sqrt branch off/on and fix off/on, each computed by ``route`` here."""
        c = cuts(self._x)
        states = {}
        with b.quiet():
            for i in range(len(c) + 1):
                t = -math.inf if i == 0 else c[i - 1]          # exactly i cuts <= t
                for s in (0, 1):
                    for d in (0, 1):
                        r = route(self._x, self._y, t, bool(s), bool(d))
                        states[f"{i}{s}{d}"] = {**self._routing_state(r),
                                                "title": self._title(bool(s), bool(d))}
        return {"cuts": c, "states": states}

    # -- pictures and text --------------------------------------------------------------------
    def _expression(self):
        return expression(self._sqrt, self._double)

    def _title(self, sqrt_branch, double_where):
        """The view's title: the function drawn, unless the explorer was given a title."""
        return self.title or (expression(sqrt_branch, double_where)
                              + ": the mask routes values forward and gradients back")

    def figure(self):
        t = viz.num(self._t)
        title = self.title or f"out = {self._expression()} with t = {t}"
        if self.out is None:
            rows = [viz.Row("x", viz.value_cells(self._x.reshape(-1))),
                    viz.Row("y", viz.value_cells(self._y.reshape(-1))),
                    viz.Row("problem", merged=(self.error or "")[:90], color=viz.VERMILLION)]
            pic = viz.TablePicture(rows, col_labels=[str(k) for k in range(self._x.size)], title=title)
            pic.fig._al_alt = f"where explorer with threshold {t}: {self.error}"
            return pic.fig
        g = np.ones(self.out.shape, np.float32)
        if not self._sqrt:
            rows = viz.where_rows(self.mask, self._x, self._y, self.out, g=g, grad_a=self.grad_x,
                                  grad_b=self.grad_y, names=("x", "y"))
            rows[1].label = f"x > {t}"
        else:
            a_label = "sqrt(where(x > t, x, 1))" if self._double else "sqrt(x)"
            x_row = viz.Row("x", viz.value_cells(self._x.reshape(-1)))
            grad_x_row = viz.Row("x.grad", viz.value_cells(self.grad_x._data.reshape(-1), viz.TRUE_FILL,
                                                              viz.INK, self.mask._data.reshape(-1)))
            rows = viz.where_rows(self.mask, self.branch, self._y, self.out, g=g, grad_a=self.branch_grad,
                                  grad_b=self.grad_y, names=(a_label, "y"), after_a_grad=[grad_x_row])
            rows[1].label = f"x > {t}"
            rows[5].label = f"∂L/∂{a_label}"
            rows = [x_row] + rows
        legend = viz.WHERE_LEGEND
        if self.error:
            legend = "Problem: " + self.error + " " + legend
        pic = viz.TablePicture(rows, col_labels=[str(k) for k in range(self.out.numel())],
                                title=title, legend=legend)
        pic.fig._al_alt = self._alt()
        return pic.fig

    def _alt(self):
        t = viz.num(self._t)
        s = (f"Table of out = {self._expression()} with t = {t} over {self.out.numel()} entries: "
             f"x = {b.short(self.x)}, y = {b.short(self.y)}, mask x > t = {b.short(self.mask)}, ")
        if self._sqrt:
            s += f"branch = {b.short(self.branch)}, "
        s += (f"out = {b.short(self.out)}; backward of L = out.sum() gives x.grad = {b.short(self.grad_x)} "
              f"and y.grad = {b.short(self.grad_y)}; the condition receives no gradient (None).")
        if self.error:
            s += f" Problem: {self.error}"
        return s

    def summary(self):
        return (f"WhereExplorer: t = {viz.num(self._t)}, sqrt_branch={self._sqrt}, "
                f"double_where={self._double}; mask = {b.short(self.mask)}; out = {b.short(self.out)}; "
                f"x.grad = {b.short(self.grad_x)}; y.grad = {b.short(self.grad_y)}; mask.grad = None"
                + self._problem_suffix())
