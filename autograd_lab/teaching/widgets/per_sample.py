"""PerSampleExplorer: pick an example of a batch and see its row of the Jacobian, its
per-sample gradient, and the sum of all rows that ``losses.sum().backward()`` leaves.

The model is chapter 05's sigmoid layer, one squared error per example:
``loss_i = (y_i - sigmoid(W·x_i + b_i))²``, so row i of J = ∂losses/∂W is
``δ_i · x_i`` with ``δ_i = 2(ŷ_i - y_i) ŷ_i (1 - ŷ_i)`` (= ∂loss_i/∂b_i)."""
import math
from types import SimpleNamespace

import numpy as np

from .. import viz
from ...creation import tensor as _tensor
from ...core.engine import grad as _grad
from ...core.tensor import Tensor
from ...functions import sigmoid as _sigmoid
from . import _base as b

LIMIT = 1e6          # the largest |number| a reader may type (the view's sliders say the same)
SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def gradients(W, x, y, bias, sample):
    """Everything the explorer shows, computed by autograd_lab for W (n,), x (B, n), y (B,)
    and bias (B,) (NumPy arrays of one float dtype) and the picked example:

    * ``losses`` from one forward pass of the batch, ``z`` and ``y_hat`` on the way;
    * ``J`` (B, n), every per-sample gradient, from one batched backward pass with every
      one-hot seed (``is_grads_batched=True``);
    * ``row`` and ``delta``: ``autograd.grad(losses, (W, b), grad_outputs=e_i)``, one backward
      pass with the one-hot seed of the picked example (``delta`` is ∂loss_i/∂b_i);
    * ``total``: ``W.grad`` after ``losses.sum().backward()``, the sum of J's rows.

    All four walk the same graph, so row i of J is ``row`` to the bit.  (``vmap(grad(
    one_loss))`` gives the same rows up to float32 rounding: it forms W·x_i in another
    order; the tests compare them.)"""
    B, n = x.shape
    Wl = _tensor(W.reshape(1, n).copy(), requires_grad=True)
    bl = _tensor(bias.reshape(1, B).copy(), requires_grad=True)
    xt, yt = _tensor(x), _tensor(y.reshape(1, B))
    z = Wl @ xt.t() + bl
    y_hat = _sigmoid(z)
    losses = (yt - y_hat) ** 2                                   # (1, B)
    seed = _tensor(b.one_hot((1, B), sample).astype(x.dtype))
    seeds = _tensor(np.eye(B, dtype=x.dtype).reshape(B, 1, B))
    (J,) = _grad(losses, Wl, grad_outputs=seeds, retain_graph=True, is_grads_batched=True)
    row, delta = _grad(losses, (Wl, bl), grad_outputs=seed, retain_graph=True)
    losses.sum().backward()
    return SimpleNamespace(z=z._data.reshape(B), y_hat=y_hat._data.reshape(B),
                           losses=losses._data.reshape(B), J=J._data.reshape(B, n),
                           row=row._data.reshape(n), delta=float(delta._data.reshape(B)[sample]),
                           total=Wl.grad._data.reshape(n))


class PerSampleExplorer(b.Explorer):
    """Pick an example of a batch and see its per-sample gradient: the one-hot seed e_i
    over the batch's losses, the Jacobian J = ∂losses/∂W (a row per example, a column per
    weight) with row i framed, row i's numbers ∂loss_i/∂W, and the sum of the rows, which
    is what ``losses.sum().backward()`` leaves in ``W.grad``.

    The model: ``loss_i = (y_i - sigmoid(W·x_i + b_i))²`` with W of shape (1, n), x (B, n),
    y and b with B entries (e.g. shaped (1, B)).  The view has a radio button per example,
    sliders and number boxes for the picked example's x_i and y_i and for the weights
    (shared by every example), and "reset".  In Jupyter every change runs autograd_lab
    (``gradients``: a forward pass, a batched backward for J, a backward with the one-hot
    seed, ``losses.sum().backward()``); in the book's pages the view computes the same formula in
    float32 arithmetic (per_sample.js), so every input can be changed there too.

    Set: ``.sample``, ``set_x(i, values)``, ``set_y(i, value)``, ``.W``, ``reset()``.  Read:
    ``.J``, ``.row``, ``.total``, ``.losses``, ``.delta``, ``.seed``, ``.error``.
    """

    kind = "per_sample"
    _esm = b.module_source("per_sample")

    def __init__(self, W, x, y, bias, sample=0, *, title=None):
        super().__init__()
        with b.quiet():
            for name, t in (("W", W), ("x", x), ("y", y), ("b", bias)):
                if not isinstance(t, Tensor):
                    raise TypeError(f"PerSampleExplorer needs {name} as an autograd_lab tensor, "
                                    f"got {type(t).__name__}")
            self._dtype = W._data.dtype
            if self._dtype.kind != "f":
                raise TypeError(f"PerSampleExplorer needs floating-point weights, got dtype {W.dtype}")
            if x.dim() != 2 or W.numel() != x.shape[1]:
                raise ValueError(f"x must be (examples, inputs) and W one weight per input: got x "
                                 f"{viz.shape_str(tuple(x.shape))} and W {viz.shape_str(tuple(W.shape))}")
            B, n = x.shape
            for name, t in (("y", y), ("b", bias)):
                if t.numel() != B:
                    raise ValueError(f"{name} needs one entry per example ({B}), got {t.numel()}")
            arrays = [np.asarray(t._data, dtype=self._dtype).reshape(shape)
                      for t, shape in ((W, (n,)), (x, (B, n)), (y, (B,)), (bias, (B,)))]
            for name, a in zip("Wxyb", arrays):
                if not np.isfinite(a).all() or (np.abs(a) > LIMIT).any():
                    raise ValueError(f"{name} must hold finite numbers within ±{LIMIT:,.0f}")
            self._start = [a.copy() for a in arrays]
            self._W, self._x, self._y, self._b = (a.copy() for a in arrays)
            self.B, self.n, self.title = B, n, title
            self._sample = self._pick(sample)
            self.spec = self._spec()
            self._compute()
        self._publish()

    def _spec(self):
        return {
            "title": self.title or "Per-sample gradients: pick an example, see its row of J = ∂losses/∂W",
            "B": self.B, "n": self.n, "dtype": str(self._dtype), "limit": LIMIT,
            "b": b.js(self._b), "start": self._values(*self._start),
            "rows": [f"loss{str(i).translate(SUB)}" for i in range(self.B)],
            "cols": [f"w{str(k).translate(SUB)}" for k in range(self.n)],
        }

    @staticmethod
    def _values(W, x, y, _b=None):
        return {"W": b.js(W), "x": b.js(x), "y": b.js(y)}

    # -- the programmatic API ------------------------------------------------------------------
    sample = property(lambda self: self._sample,
                      lambda self, i: self._guard(self._act)({"set": "sample", "value": i}))
    W = property(lambda self: _tensor(self._W.reshape(1, self.n).copy()),
                 lambda self, v: self._guard(self._act)({"set": "W", "value": v}))
    x = property(lambda self: _tensor(self._x.copy()))
    y = property(lambda self: _tensor(self._y.copy()))
    J = property(lambda self: _tensor(self._r.J.copy()))
    row = property(lambda self: _tensor(self._r.row.copy()))
    total = property(lambda self: _tensor(self._r.total.copy()))
    losses = property(lambda self: _tensor(self._r.losses.copy()))
    delta = property(lambda self: self._r.delta)
    seed = property(lambda self: _tensor(b.one_hot((self.B,), self._sample).astype(self._dtype)))

    def set_x(self, i, values):
        """Example i's inputs x_i (n numbers)."""
        self._guard(self._act)({"set": f"x{i}", "value": values})

    def set_y(self, i, value):
        """Example i's target y_i."""
        self._guard(self._act)({"set": f"y{i}", "value": value})

    def reset(self):
        """The chapter's values again (the picked example stays)."""
        self._guard(self._act)({"do": "reset"})

    # -- the kernel's answers --------------------------------------------------------------------
    def _pick(self, value):
        try:
            i = float(b.as_numbers(value))
        except (TypeError, ValueError):
            i = math.nan
        if not (i.is_integer() and 0 <= i < self.B):
            raise ValueError(f"there is no example {value!r}: pick 0 to {self.B - 1}")
        return int(i)

    def _numbers(self, value, count, names, spoiled="every row"):
        """``count`` numbers a reader gave for ``names`` (one label each): finite and within
        ±LIMIT, else a ValueError in the words the page uses too (per_sample.js);
        ``spoiled``: what a nan or an inf there would turn to nan."""
        a = np.asarray(b.as_numbers(value), dtype=np.float64).reshape(-1)
        if a.size != count:
            raise ValueError(f"{names[0] if count == 1 else ', '.join(names)}: expected {count} "
                             f"number{'s' if count > 1 else ''}, got {a.size}")
        for name, v in zip(names, a):
            if not math.isfinite(v):
                raise ValueError(f"{name} = {b.js(np.float64(v))}: only finite numbers are taken "
                                 f"(with nan or inf {spoiled} would be nan)")
            if abs(v) > LIMIT:
                raise ValueError(f"{name} = {viz.num(v)} is beyond ±{LIMIT:,.0f}; type a smaller number")
        return a.astype(self._dtype)

    def _act(self, msg):
        """One message of the view, or of the programmatic API: ``{"set": "sample" | "W" |
        "x<i>" | "y<i>", "value": ...}`` or ``{"do": "reset"}``.  A bad value changes nothing;
        its problem is shown."""
        self.error = self.note = None
        name = msg.get("set")
        try:
            if msg.get("do") == "reset":
                self._W, self._x, self._y, self._b = (a.copy() for a in self._start)
            elif name == "sample":
                self._sample = self._pick(msg.get("value"))
            elif name == "W":
                self._W = self._numbers(msg.get("value"), self.n, self._labels("w"))
            elif isinstance(name, str) and name[:1] in "xy" and name[1:].isdigit() \
                    and int(name[1:]) < self.B:
                i = int(name[1:])
                spoiled = f"row {i} and Σ rows"
                if name[0] == "x":
                    self._x[i] = self._numbers(msg.get("value"), self.n, self._labels("x", i), spoiled)
                else:
                    self._y[i] = self._numbers(msg.get("value"), 1, [f"y{str(i).translate(SUB)}"],
                                               spoiled)[0]
            else:
                raise ValueError(f"PerSampleExplorer does not know the message {msg!r}")
        except ValueError as exc:
            self.error = str(exc)
            return
        self._compute()

    def _labels(self, what, i=None):
        if what == "w":
            return [f"w{str(k).translate(SUB)}" for k in range(self.n)]
        return [f"x{str(i).translate(SUB)}[{k}]" for k in range(self.n)]

    def _compute(self):
        self._r = gradients(self._W, self._x, self._y, self._b, self._sample)

    def _state(self):
        r = self._r
        return {"sample": self._sample, **self._values(self._W, self._x, self._y),
                "z": b.js(r.z), "y_hat": b.js(r.y_hat), "losses": b.js(r.losses), "J": b.js(r.J),
                "row": b.js(r.row), "delta": b.js(np.float64(r.delta)), "total": b.js(r.total)}

    # -- pictures and text ------------------------------------------------------------------
    def figure(self):
        i, r = self._sample, self._r
        note = (f"row {i} = ∂loss{str(i).translate(SUB)}/∂W = δ{str(i).translate(SUB)}·x"
                f"{str(i).translate(SUB)} = {b.short(r.row, 60)};  sum of the rows = W.grad of "
                f"losses.sum().backward() = {b.short(r.total, 60)}")
        if self.error:
            note = f"Problem: {self.error}  |  " + note
        fig = viz.plot_jacobian(r.J, seed=b.one_hot((self.B,), i), vjp=r.row, vjp_label=f"row {i}",
                                highlight=i, row_labels=self.spec["rows"], col_labels=self.spec["cols"],
                                title=self.title or f"example {i}'s gradient: row {i} of J = ∂losses/∂W",
                                note=note)
        fig._al_alt = self._alt()
        return fig

    def _alt(self):
        i, r = self._sample, self._r
        rows = "; ".join(f"row {k}: {b.short(r.J[k], 60)}" for k in range(self.B))
        s = (f"The {self.B}-by-{self.n} Jacobian of the losses (y_i - sigmoid(W·x_i + b_i))² with "
             f"respect to W = {b.short(self._W, 60)}, one row per example: {rows}. Example {i} is "
             f"picked: its one-hot seed {b.short(b.one_hot((self.B,), i))} selects row {i}, its "
             f"per-sample gradient {b.short(r.row, 60)} (δ = {viz.num(r.delta)} times x{i} = "
             f"{b.short(self._x[i], 60)}; loss {viz.num(float(r.losses[i]))}). The sum of all "
             f"rows, what losses.sum().backward() leaves in W.grad, is {b.short(r.total, 60)}.")
        if self.error:
            s += f" Problem: {self.error}"
        return s

    def summary(self):
        i, r = self._sample, self._r
        return (f"PerSampleExplorer: example {i} of {self.B}; row {i} = {b.short(r.row, 60)}; "
                f"sum of rows = {b.short(r.total, 60)}" + self._problem_suffix())
