"""GradOutputsExplorer: choose grad_outputs and watch what autograd.grad returns.

The seed has the output's full shape: ``autograd.grad(y, x, grad_outputs=seed)``."""
import numpy as np

from .. import viz
from ...creation import tensor as _tensor
from ...core.engine import grad as _grad
from . import _base as b

MAX_CELLS = 36          # seeds with more entries are edited as text only

# What a seed means as a loss L (grad_outputs is dL/dy).  One text per situation, used by
# the kernel and, through the spec, by the page, so both say the same.
LOSS = {
    "ones": "L = {y}.sum(): every entry of {y} counts once",
    "one-hot": "L = {y}[{index}]: only that entry counts",
    "upper triangle": "L = sum of {y}[i, j] for i <= j: the upper triangle, diagonal included",
    "diagonal": "L = {y}[0, 0] + {y}[1, 1] + ...: the trace of {y}",
    None: "L = (seed * {y}).sum(): each entry of {y} weighted by its seed entry",
    "shape": "no loss: the seed's shape {shape} is not {y}'s shape",
}
ZERO = "The seed is all zeros: L ignores {y}, so the gradient is 0."


class GradOutputsExplorer(b.Explorer):
    """Edit ``grad_outputs`` -- a seed with the output's full shape -- and watch
    ``autograd.grad(y, x, grad_outputs=seed)``: dL/dx for the loss L the seed stands for.

    Presets: "ones" (L = y.sum()), "one-hot" (L = one entry of y, at an index the reader
    chooses: ``use_preset("one-hot", index=(j, k))``), and for a 2-D y "upper triangle"
    and, when y is square, "diagonal".  The seed can also be edited entry by entry (a
    grid of cells shaped like y) or typed whole (``set_seed_text("[[...]]")``).  A seed of
    the wrong shape is handed to the engine anyway: its error appears in the view and in
    ``.error``.

    In Jupyter every change runs ``autograd.grad`` on a fresh copy of x.  In the book's
    pages dL/dx is formed as vec(seed)ᵀ J, with the Jacobian J autograd_lab computed
    when the book was built (grad is linear in grad_outputs).  The view shows J with one
    row per entry of y, each row weighted by its seed entry: dL/dx is the sum of the
    weighted rows.

    Read: ``.seed``, ``.grad`` (what grad returned), ``.loss`` (what the seed means),
    ``.jacobian`` (y.shape + x.shape), ``.preset``, ``.index``, ``.error``.
    """

    kind = "grad_outputs"
    _esm = b.module_source("grad_outputs")

    def __init__(self, fn, x, seed=None, *, names=("x", "y"), title=None):
        super().__init__()
        with b.quiet():                              # creating prints nothing
            self._start(fn, x, names, title)
            self.presets = {"ones": np.ones(self._shape), "one-hot": b.one_hot(self._shape, 0)}
            if len(self._shape) == 2:
                self.presets["upper triangle"] = np.triu(np.ones(self._shape))
                if self._shape[0] == self._shape[1]:
                    self.presets["diagonal"] = np.eye(self._shape[0])
            self.index = (0,) * len(self._shape)
            self.preset = None
            self._seed = np.ones(self._shape)
            self.grad = None
            self.spec = self._spec()
        if seed is None:
            self.use_preset("ones")
        else:
            self.seed = seed

    def _spec(self):
        xn, yn = self.names
        m = int(np.prod(self._shape))
        return {
            "title": self.title or f"autograd.grad({yn}, {xn}, grad_outputs=seed) returns vec(seed)ᵀ J",
            "names": [xn, yn], "x_shape": list(self.x.shape), "y_shape": list(self._shape),
            "x": b.js(self.x), "y": b.js(self.y), "J": b.js(self.jacobian._data.reshape(m, -1)),
            "rows": b.index_labels(yn, self._shape), "cols": b.index_labels(xn, tuple(self.x.shape)),
            "presets": {k: b.js(v) for k, v in self.presets.items()},
            "cells": 1 <= len(self._shape) <= 2 and m <= MAX_CELLS,
            "dtype": str(np.dtype(self._dtype)),
            # which entries of x each seed entry reaches, and which seeds the page may
            # answer (inf, nan, the largest numbers): see _base.page_rule
            **dict(zip(("reach", "trust"), b.page_rule(self.fn, self.x, self._shape, self._dtype,
                                                        self.jacobian._data))),
            "loss": {("custom" if k is None else k): v.replace("{y}", yn) for k, v in LOSS.items()},
            "zero": ZERO.replace("{y}", yn),
            "wrong_shape": self._wrong_shape_text(),
        }

    def _wrong_shape_text(self):
        """The engine's own words for a seed of the wrong shape (x's shape, the usual
        mistake), with the seed's shape left open as ``{shape}``: the page fills it in."""
        bad = tuple(self.x.shape) if tuple(self.x.shape) != self._shape else (int(np.prod(self._shape)) + 1,)
        xc = b.leaf_copy(self.x)
        try:
            _grad(self.fn(xc), xc, grad_outputs=_tensor(np.ones(bad, self._dtype)))
        except RuntimeError as exc:
            text, shown = str(exc), viz.shape_str(bad)
            if shown in text:
                return text.replace(shown, "{shape}", 1)
        return "Mismatch in shape: grad_output[0] has a shape of {shape} and output[0] has a shape of " \
            + viz.shape_str(self._shape) + "."

    # -- the programmatic API -----------------------------------------------------------------
    @property
    def seed(self):
        with np.errstate(all="ignore"):
            return _tensor(self._seed.astype(self._dtype))

    @seed.setter
    def seed(self, value):
        self._guard(self._custom)(value)

    def set_seed_text(self, text):
        """Free entry: a seed typed as a (nested) list, e.g. ``"[[1, 0], [0, 1]]"``."""
        self._guard(self._custom)(str(text))

    def use_preset(self, name, index=None):
        """"ones", "one-hot" (at ``index``, default the index chosen last), "upper
        triangle", "diagonal"."""
        self._guard(self._preset)(name, index)

    def _custom(self, value):
        self._apply(value, preset=None)

    def _preset(self, name, index=None):
        if name not in self.presets:
            raise ValueError(f"no preset {name!r}; the presets are {', '.join(map(repr, self.presets))}")
        if name == "one-hot":
            idx = self.index if index is None else (tuple(index) if np.ndim(index) else (int(index),))
            if len(idx) != len(self._shape) or any(
                    isinstance(i, bool) or not isinstance(i, (int, float, np.integer, np.floating))
                    or int(i) != i or not 0 <= int(i) < s for i, s in zip(idx, self._shape)):
                raise IndexError(f"index {tuple(idx)} is outside {self.names[1]}'s shape "
                                 f"{viz.shape_str(self._shape)}")
            self.index = tuple(int(i) for i in idx)
            seed = np.zeros(self._shape)
            seed[self.index] = 1.0
        else:
            seed = self.presets[name]
        self._apply(seed, preset=name)

    def _entry(self, k, value):
        """One entry of the seed (flat index k) changed in the grid."""
        v = np.array(self._seed if self._seed.shape == self._shape else self.presets["ones"], dtype=np.float64)
        try:
            entry = b.as_numbers(value)
        except ValueError:
            entry = None
        if entry is None or entry.size != 1:
            raise ValueError(f"{b.index_labels(self.names[1], self._shape)[int(k)]}: could not read "
                             f"{str(value)!r} as one number")
        v.reshape(-1)[int(k)] = float(entry.reshape(-1)[0])
        self._custom(v)

    def _act(self, msg):
        if msg.get("do") == "preset":
            self._preset(msg["name"], msg.get("index"))
        elif msg.get("set") == "index":
            self._preset("one-hot", msg["value"])
        elif msg.get("set") == "entry":
            self._entry(msg["index"], msg["value"])
        elif msg.get("set") == "seed":
            self._custom(msg["value"])
        else:
            raise ValueError(f"GradOutputsExplorer does not know the message {msg!r}")

    def _apply(self, value, preset):
        """Run grad with this seed.  A seed that cannot be read changes nothing."""
        seed = b.as_numbers(value)
        self.error = self.note = None
        self.grad = None
        self._seed, self.preset = seed, preset
        xn, yn = self.names
        xc = b.leaf_copy(self.x)
        y = self.fn(xc)
        try:
            (g,) = _grad(y, xc, grad_outputs=_tensor(self._seed.astype(self._dtype)))
        except RuntimeError as exc:                       # the engine's own words
            self.error = str(exc)
            return
        self.grad = g
        found = [b.seed_overflow(self._seed, self._dtype), b.problems(f"dL/d{xn}", g)]
        found = [p for p in found if p]
        if found:
            self.error = "; ".join(found)
        if np.all(self._seed == 0):
            self.note = ZERO.replace("{y}", yn)

    @property
    def loss(self):
        """What the seed means as a loss L, with grad_outputs = dL/dy."""
        yn = self.names[1]
        if self._seed.shape != self._shape:
            return LOSS["shape"].replace("{y}", yn).replace("{shape}", viz.shape_str(self._seed.shape))
        text = LOSS[self.preset].replace("{y}", yn)
        return text.replace("{index}", ", ".join(map(str, self.index)))

    def _state(self):
        return {"seed": b.js(self._seed), "grad": b.js(self.grad), "preset": self.preset,
                "index": list(self.index), "loss": self.loss}

    # -- pictures and text ------------------------------------------------------------------
    def figure(self):
        xn, yn = self.names
        m = int(np.prod(self._shape))
        ok = self.grad is not None and self._seed.shape == self._shape
        note = f"{self.loss}.  grad returns dL/d{xn} = {b.short(self.grad, 60)}"
        title = self.title or "grad returns vec(seed)ᵀ J"
        if self.error:                           # its first sentence: the picture is narrow
            note = f"Problem: {self.error.split('. ')[0].rstrip('.')}."
            title = f"{self.error.split(':')[0].rstrip('.')}: grad returns no gradient"
        fig = viz.plot_jacobian(self.jacobian._data.reshape(m, -1),
                                seed=self._seed.reshape(-1) if ok else None,
                                vjp=self.grad._data.reshape(-1) if ok else None,
                                row_labels=b.index_labels(yn, self._shape),
                                col_labels=b.index_labels(xn, tuple(self.x.shape)),
                                vjp_label=f"dL/d{xn}", note=note,
                                title=title)
        seed = f"seed {viz.shape_str(self._seed.shape)} = {b.short(self.seed, 80)}"
        J = _rows_text(self.jacobian._data.reshape(m, -1))
        if self.error:
            fig._al_alt = (f"The Jacobian of {yn} with respect to {xn}, flattened to {m} rows and "
                           f"{self.x.numel()} columns, J = {J}; the {seed} does not fit, so grad "
                           f"returns no gradient: {self.error.rstrip('.')}.")
        else:
            fig._al_alt = (f"The Jacobian of {yn} with respect to {xn}, flattened to {m} rows (one per "
                           f"entry of {yn}) and {self.x.numel()} columns, each row weighted by its seed "
                           f"entry ({seed}); the weighted rows add up to dL/d{xn} = "
                           f"{b.short(self.grad, 60)}; J = {J}; {self.loss}.")
        return fig

    def summary(self):
        xn = self.names[0]
        return (f"GradOutputsExplorer: seed {viz.shape_str(self._seed.shape)} = {b.short(self.seed)}; "
                f"{self.loss}; dL/d{xn} = {b.short(self.grad)}" + self._problem_suffix())


def _rows_text(J, most=240):
    """The numbers of J, row by row (the first ``most`` of them), for the alt text."""
    text = b.text(J)
    return text if J.size <= most else b.short(_tensor(J), 400)
