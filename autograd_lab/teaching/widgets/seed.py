"""SeedExplorer: choose the seed v of ``y.backward(v)`` and watch ``x.grad = vᵀJ``."""
import numpy as np

from .. import viz
from ...creation import tensor as _tensor
from . import _base as b

MAX_SLIDERS = 8          # seeds with more entries are edited as a grid or as text


class SeedExplorer(b.Explorer):
    """Choose the seed v of ``y.backward(v)`` and watch ``x.grad = vᵀJ``.

    ``fn`` maps x to y (any shape).  The view has a slider and a number box per entry of
    v for outputs of up to 8 entries (a text box takes a list for bigger ones), and
    presets: each one-hot seed, "ones" and "mean" (1/n each: the seed of ``y.mean()``).
    In Jupyter each change runs a real ``y.backward(v)`` on a fresh copy of x; in the
    book's pages x.grad is formed as vᵀJ from the Jacobian computed here (backward is
    linear in the seed).  The picture is the Jacobian (one batched backward pass) with
    its rows weighted by v, and x.grad under it.

    Set: ``.seed``, ``use_preset(name)``.  Read: ``.y``, ``.seed``, ``.grad`` (x.grad from
    the backward), ``.jacobian`` (y.shape + x.shape), ``.presets``, ``.error``.
    """

    kind = "seed"
    _esm = b.module_source("seed")

    def __init__(self, fn, x, seed=None, *, names=("x", "y"), title=None):
        super().__init__()
        with b.quiet():                              # creating prints nothing
            self._start(fn, x, names, title)
            n = self.y.numel()
            self.presets = {}
            if n > 1:
                for i, idx in enumerate(np.ndindex(*self._shape)):
                    self.presets[f"one-hot {idx[0] if len(idx) == 1 else idx}"] = b.one_hot(self._shape, i)
            self.presets["ones"] = np.ones(self._shape)
            self.presets["mean"] = np.full(self._shape, 1.0 / n)
            self._seed = np.ones(self._shape)
            self.grad = None
            self.spec = self._spec()
        self._guard(self._apply)(self.presets["ones"] if seed is None else seed)

    def _spec(self):
        xn, yn = self.names
        m = int(np.prod(self._shape))
        return {
            "title": self.title or f"{yn}.backward(v): the seed v weights the rows of the Jacobian",
            "names": [xn, yn], "x_shape": list(self.x.shape), "y_shape": list(self._shape),
            "x": b.js(self.x), "y": b.js(self.y), "J": b.js(self.jacobian._data.reshape(m, -1)),
            "rows": b.index_labels(yn, self._shape), "cols": b.index_labels(xn, tuple(self.x.shape)),
            "presets": {k: b.js(v) for k, v in self.presets.items()},
            "sliders": m <= MAX_SLIDERS, "dtype": str(np.dtype(self._dtype)),
            # which entries of x each seed entry reaches, and which seeds the page may
            # answer (inf, nan, the largest numbers): see _base.page_rule
            **dict(zip(("reach", "trust"), b.page_rule(self.fn, self.x, self._shape, self._dtype,
                                                        self.jacobian._data))),
        }

    # -- the programmatic API -----------------------------------------------------------------
    @property
    def seed(self):
        with np.errstate(all="ignore"):
            return _tensor(self._seed.astype(self._dtype))

    @seed.setter
    def seed(self, value):
        self._guard(self._apply)(value)

    def use_preset(self, name):
        """Set the seed to one of ``.presets``."""
        self._guard(self._preset)(name)

    def _preset(self, name):
        if name not in self.presets:
            raise ValueError(f"no preset {name!r}; the presets are {', '.join(map(repr, self.presets))}")
        self._apply(self.presets[name])

    def _act(self, msg):
        if msg.get("do") == "preset":
            self._preset(msg["name"])
        elif msg.get("set") == "seed":
            self._apply(msg["value"])
        else:
            raise ValueError(f"SeedExplorer does not know the message {msg!r}")

    def _apply(self, value):
        self.error = self.note = None
        self.grad = None
        self._seed = b.as_numbers(value)
        xn, yn = self.names
        v = self._seed
        xc = b.leaf_copy(self.x)
        y = self.fn(xc)
        try:
            y.backward(_tensor(v), inputs=[xc])
        except RuntimeError as exc:                      # the engine's own words
            self.error = str(exc)
            return
        self.grad = xc.grad
        found = [b.seed_overflow(v, self._dtype), b.problems(yn, y), b.problems(f"{xn}.grad", self.grad)]
        found = [p for p in found if p]
        if found:
            self.error = "; ".join(found)

    def _state(self):
        return {"seed": b.js(self._seed), "grad": b.js(self.grad)}

    # -- pictures and text ------------------------------------------------------------------
    def figure(self):
        xn, yn = self.names
        m = int(np.prod(self._shape))
        ok = self.grad is not None and self._seed.shape == self._shape
        note = f"v = {b.short(self.seed)}   {xn}.grad from backward = {b.short(self.grad)}"
        if self.error:
            note = f"Problem: {self.error}  |  " + note
        return viz.plot_jacobian(self.jacobian._data.reshape(m, -1),
                                 seed=self._seed.reshape(-1) if ok else None,
                                 vjp=self.grad._data.reshape(-1) if ok else None,
                                 row_labels=b.index_labels(yn, self._shape),
                                 col_labels=b.index_labels(xn, tuple(self.x.shape)),
                                 vjp_label=f"{xn}.grad", note=note,
                                 title=self.title or f"{yn}.backward(v) gives {xn}.grad = vᵀJ")

    def summary(self):
        xn, yn = self.names
        return (f"SeedExplorer: {yn} = {b.short(self.y)}; seed v = {b.short(self.seed)}; "
                f"{xn}.grad = {b.short(self.grad)} (from {yn}.backward(v))" + self._problem_suffix())
