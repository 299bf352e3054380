"""JacobianExplorer: fill a Jacobian row by row or all at once, and count the cost.

Row by row is one backward pass per one-hot seed; all at once is one batched pass."""
import numpy as np

from .. import viz
from ...autograd import count_passes
from ...creation import tensor as _tensor
from ...core.engine import grad as _grad
from ...core.modes import count as _count
from . import _base as b

ROW_BY_ROW, ALL_AT_ONCE = "row by row", "all at once"     # the two ways (keys of .costs)


class Fill:
    """The computation behind the explorer, without any view: a forward pass, then rows
    of J from one-hot seeds (``step``) or all of them from one batched pass (``all``),
    with every pass counted by ``al.autograd.count_passes``.  The explorer drives one;
    when the book is built another one walks through every state the page can reach."""

    def __init__(self, fn, x, shape, dtype):
        self.fn, self.x, self.shape, self.dtype = fn, x, shape, dtype
        self.m, self.n = int(np.prod(shape)), x.numel()
        self.costs = {}                                  # the counts of each finished way
        self.reset()

    def _forward(self):
        self.xc = b.leaf_copy(self.x)
        _count("forward")                                 # one evaluation of fn, for every counter
        self.y = self.fn(self.xc)

    def reset(self):
        """No rows, and a fresh forward pass."""
        with count_passes() as c:
            self._forward()
        self.passes = c.as_dict()
        self.J = np.full((self.m, self.n), np.nan, dtype=self.dtype)
        self.rows_done, self.way, self.last = 0, ROW_BY_ROW, None

    def step(self):
        """Row ``rows_done`` from ONE backward pass with the one-hot seed e_i."""
        i = self.rows_done
        seed = _tensor(b.one_hot(self.shape, i).astype(self.y._data.dtype))
        with count_passes() as c:
            (g,) = _grad(self.y, self.xc, grad_outputs=seed, retain_graph=True)
        for k, v in c.as_dict().items():
            self.passes[k] += v
        self.J[i] = g._data.reshape(-1)
        self.rows_done, self.last = i + 1, i
        if self.rows_done == self.m:
            self.costs[ROW_BY_ROW] = dict(self.passes)

    def all(self):
        """A fresh forward pass and ONE batched backward pass that fills every row."""
        with count_passes() as c:
            self._forward()
            J = b.batched_jacobian(self.y, self.xc)
        self.passes = c.as_dict()
        self.J = J.reshape(self.m, self.n).astype(self.dtype)
        self.rows_done, self.way, self.last = self.m, ALL_AT_ONCE, None
        self.costs[ALL_AT_ONCE] = dict(self.passes)

    def problem(self):
        bad = b.problems("J", self.J[:self.rows_done])
        return bad and bad + " (the function or its derivative is not finite at this x)"

    def state(self):
        """The numbers of the moment, for the view: computed rows (None for rows not
        computed yet), the pass counts, the way."""
        return {"rows": [b.js(r) if i < self.rows_done else None for i, r in enumerate(self.J)],
                "rows_done": self.rows_done, "way": self.way, "last": self.last,
                "passes": dict(self.passes), "error": self.problem()}


class JacobianExplorer(b.Explorer):
    """Build the Jacobian of ``fn`` at x row by row -- one backward pass per one-hot seed
    (the button "next row", ``.step()``) -- or all rows at once with one batched backward
    pass (the button "all rows at once", ``.all_at_once()``: ``autograd.grad(...,
    is_grads_batched=True)`` with every one-hot seed stacked), and compare what each way
    costs (counted by ``al.autograd.count_passes``).  "reset" (``.reset()``) forgets the
    rows.  "next row" after "all rows at once" starts a new row-by-row fill at row 0.

    In Jupyter each press runs in the kernel; in the book's pages every state (k rows
    done for k = 0..m, and the batched one, with their pass counts) was computed when the
    book was built.

    Read: ``.J`` (outputs x inputs, NaN rows not computed yet), ``.rows_done``,
    ``.passes`` (counts since the last reset), ``.costs`` (the counts of each finished
    way), ``.way``, ``.error``, ``.note``.
    """

    kind = "jacobian"
    _esm = b.module_source("jacobian")

    def __init__(self, fn, x, *, names=("x", "y"), title=None):
        super().__init__()
        with b.quiet():                              # creating prints nothing
            b.check_input(x, "JacobianExplorer")
            self.fn, self.x, self.names, self.title = fn, x, tuple(names), title
            y = b.checked_output(fn, b.leaf_copy(x), "JacobianExplorer")
            self._shape, self._dtype = tuple(y.shape), y._data.dtype
            self.m, self.n = y.numel(), x.numel()
            self._fill = Fill(fn, x, self._shape, self._dtype)
            self.spec = self._spec()
        self._publish()

    def _spec(self):
        xn, yn = self.names
        m = self.m
        return {
            "title": self.title or f"Reconstructing the Jacobian of {yn} with respect to {xn}",
            "names": [xn, yn], "m": m, "n": self.n,
            "rows": b.index_labels(yn, self._shape), "cols": b.index_labels(xn, tuple(self.x.shape)),
            # the messages the page shows for presses that compute nothing new, said once here
            "notes": {"done": self._done_note(), "restart": self._restart_note()},
        }

    def _done_note(self):
        return (f"All {self.m} rows are done. Press 'reset' to fill them again, or 'all rows at once' "
                "to compare with one batched pass.")

    def _restart_note(self):
        return ("'next row' starts a new row-by-row fill: the batched J is cleared, a fresh forward "
                "pass is run, and row 0 comes from one backward pass with the seed e₀.")

    # -- the programmatic API (the view's buttons send "step", "all", "reset") ------------------
    def step(self):
        """The button "next row": one backward pass with the next one-hot seed fills the
        next row of J (after "all rows at once", a new row-by-row fill starts at row 0)."""
        self._guard(self._step)()

    def all_at_once(self):
        """The button "all rows at once": a fresh forward pass and ONE batched backward pass."""
        self._guard(self._all)()

    def reset(self):
        """The button "reset": forget all rows and run the forward pass again."""
        self._guard(self._reset)()

    def _act(self, msg):
        actions = {"step": self._step, "all": self._all, "reset": self._reset}
        if msg.get("do") not in actions:
            raise ValueError(f"JacobianExplorer does not know the message {msg!r}")
        actions[msg["do"]]()

    def _reset(self):
        self.note = None
        self._fill.reset()
        self.error = self._fill.problem()

    def _step(self):
        self.note = None
        f = self._fill
        if f.way == ALL_AT_ONCE:
            f.reset()
            self.note = self._restart_note()
        if f.rows_done == self.m:
            self.note = self._done_note()
        else:
            f.step()
        self.error = f.problem()

    def _all(self):
        self.note = None
        self._fill.all()
        self.error = self._fill.problem()

    J = property(lambda self: _tensor(self._fill.J.copy()))
    rows_done = property(lambda self: self._fill.rows_done)
    passes = property(lambda self: dict(self._fill.passes))
    costs = property(lambda self: {k: dict(v) for k, v in self._fill.costs.items()})
    way = property(lambda self: self._fill.way)

    # -- what the view draws ------------------------------------------------------------------
    def _state(self):
        state = self._fill.state()
        state["costs"] = self.costs
        return state

    def _page(self):
        """Every state a reader can reach with the buttons, computed here: k rows done
        (k = 0..m) row by row, and the batched J.  Each carries the costs its way adds
        when it finishes; the page keeps the costs of the ways the reader finished."""
        walk = Fill(self.fn, self.x, self._shape, self._dtype)
        states = {}
        with b.quiet():
            for k in range(self.m + 1):
                if k:
                    walk.step()
                states[f"rows-{k}"] = walk.state()
                states[f"rows-{k}"]["finished"] = {ROW_BY_ROW: walk.costs[ROW_BY_ROW]} if k == self.m else {}
            walk.all()
            states["all"] = walk.state()
            states["all"]["finished"] = {ALL_AT_ONCE: walk.costs[ALL_AT_ONCE]}
        return {"states": states}

    # -- pictures and text ------------------------------------------------------------------
    def _cost_text(self):
        p = self.passes
        now = (f"{self.way}: {p['forward']} forward, {p['backward']} backward "
               f"pass{'es' if p['backward'] != 1 else ''} for {self.rows_done} of {self.m} rows")
        done = [f"{k}: {v['forward']} forward + {v['backward']} backward" for k, v in self.costs.items()]
        return now + ("  |  finished: " + "; ".join(done) if done else "")

    def figure(self):
        xn, yn = self.names
        f = self._fill
        seed = vjp = label = None
        if f.last is not None:
            seed = b.one_hot((self.m,), f.last)
            vjp = f.J[f.last]
            label = f"row {f.last}"
        title = self.title or (f"J filled row by row: {f.rows_done} of {self.m}" if f.way == ROW_BY_ROW
                               else f"J from one batched backward pass ({self.m} seeds at once)")
        if self.title:
            title += (f": {f.rows_done} of {self.m} rows, row by row" if f.way == ROW_BY_ROW
                      else ": all rows from one batched pass")
        note = self._cost_text()
        if self.error:
            note = f"Problem: {self.error}  |  " + note
        fig = viz.plot_jacobian(f.J, seed=seed, vjp=vjp, vjp_label=label, title=title, highlight=f.last,
                                pending=tuple(range(f.rows_done, self.m)), note=note,
                                row_labels=b.index_labels(yn, self._shape),
                                col_labels=b.index_labels(xn, tuple(self.x.shape)))
        fig._al_alt = self._alt()
        return fig

    def _alt(self):
        """The picture's numbers in words, for readers who cannot see it."""
        f = self._fill
        p = self.passes
        labels = b.index_labels(self.names[1], self._shape)
        rows = [f"{labels[i]}: {b.short(r, 60) if i < f.rows_done else 'not computed yet'}"
                for i, r in enumerate(f.J)]
        s = (f"The {self.m}-by-{self.n} Jacobian J = ∂{self.names[1]}/∂{self.names[0]}, {f.rows_done} of "
             f"{self.m} rows computed {f.way} ({p['forward']} forward and {p['backward']} backward "
             f"pass{'es' if p['backward'] != 1 else ''}). Rows: " + "; ".join(rows) + ".")
        if f.last is not None:
            s += f" The last one-hot seed, e{f.last}, filled row {f.last}."
        if self.costs:
            s += " Finished: " + "; ".join(f"{k}, {v['forward']} forward + {v['backward']} backward"
                                           for k, v in self.costs.items()) + "."
        if self.error:
            s += f" Problem: {self.error}"
        return s

    def summary(self):
        return (f"JacobianExplorer: {self.rows_done} of {self.m} rows ({self.way}); passes "
                f"forward={self.passes['forward']}, backward={self.passes['backward']}; "
                f"J = {b.short(self._fill.J, 60)}" + self._problem_suffix())
