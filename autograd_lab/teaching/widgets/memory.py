"""MemoryExplorer: a small MLP's memory through one training step, forward and backward,
with and without checkpointing the blocks the reader picks.

The model is chapter 05c's: inputs of 32 features, three blocks of two hidden layers
(each a ``Linear`` of ``width`` units, then a ReLU), a ``Linear`` to 10 outputs and mean
squared error, on a batch of ``batch`` examples.  Each run is real: autograd_lab records
the forward (the picked blocks under ``al.utils.checkpoint``) and runs the backward
inside ``al.autograd.graph.count_saved``, whose timeline the explorer draws: after every
node recorded and every node the backward ran, the bytes of saved values alive and of
the gradients on their way.

The bytes depend on the shapes and the dtype only, so the book's pages compute the same
timeline in JavaScript from the layer sizes (memory.js ``memoryTimeline``, a model of
which node keeps which value); tests/explorers/test_explorer_memory_views.py checks that it gives
the kernel's timeline, step by step, for many settings."""
import json
import math

import numpy as np

from .. import viz
from ...creation import manual_seed as _seed, randn as _randn
from ...core.dtypes import float32, float64
from ...nn.functional import mse_loss as _mse, relu as _relu
from ...nn.modules import Linear as _Linear
from ...core.saved import count_saved
from ...utils.checkpoint import checkpoint as _checkpoint
from . import _base as b

N_IN, N_OUT, BLOCKS = 32, 10, 3       # the chapter's model: 32 features in, 10 out, 3 blocks
LIMITS = {"batch": (1, 512), "width": (1, 512)}
DTYPES = {"float32": float32, "float64": float64}


def whole(name, value):
    """A batch or a width as the reader gave it (a number or text): a whole number within
    LIMITS[name], else a ValueError in the words the view uses too (memory.js ``whole``)."""
    lo, hi = LIMITS[name]
    text = str(value).strip() if isinstance(value, str) else value
    if isinstance(text, str):
        if text == "":
            raise ValueError(f"{name}: the box is empty; type a whole number from {lo} to {hi}")
        try:
            v = float(text)
        except ValueError:
            raise ValueError(f"{name}: could not read {text!r} as a number; type a whole number "
                             f"from {lo} to {hi}") from None
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        v = float(value)
    else:
        raise ValueError(f"{name}: type a whole number from {lo} to {hi}, not {value!r}")
    if not (math.isfinite(v) and v.is_integer() and lo <= v <= hi):
        shown = viz.num(v).rstrip(".") if math.isfinite(v) else ("nan" if math.isnan(v) else
                                                                   ("inf" if v > 0 else "-inf"))
        raise ValueError(f"{name}: {shown} is not a whole number from {lo} to {hi}")
    return int(v)


class _Phases(count_saved):
    """count_saved that also notes the phase of each step of its timeline: "f" a node the
    forward recorded, "r" a node recorded again during the backward (a checkpointed block
    run again), "b" a node the backward ran."""

    def __init__(self):
        super().__init__()
        self.phases, self.walking = [], False

    def recorded(self, node):
        super().recorded(node)
        self.phases.append("r" if self.walking else "f")

    def walked(self, node, gradients):
        super().walked(node, gradients)
        self.phases.append("b")


def timeline(width, batch, checkpointed=(), dtype="float32"):
    """One training step of the chapter's MLP, measured by count_saved: ``steps`` (per
    step: grad_fn name, saved bytes, gradient bytes in flight, phase), ``kept`` (saved
    bytes after the forward) and ``peak`` (the most of saved plus gradient bytes during
    the backward).  Weights and data are seeded: the bytes would be the same with any."""
    dt = DTYPES[dtype]
    _seed(0)
    widths = [N_IN] + [width] * (2 * BLOCKS) + [N_OUT]
    layers = [_Linear(i, o, dtype=dt) for i, o in zip(widths, widths[1:])]
    x, t = _randn(batch, N_IN, dtype=dt), _randn(batch, N_OUT, dtype=dt)

    def block(h, pair):
        for layer in pair:
            h = _relu(layer(h))
        return h

    with _Phases() as saved:
        h = x
        for k in range(BLOCKS):
            pair = layers[2 * k:2 * k + 2]
            if k in checkpointed:
                h = _checkpoint(block, h, pair, use_reentrant=False)
            else:
                h = block(h, pair)
        loss = _mse(layers[-1](h), t)
        kept = saved.now
        saved.walking = True
        loss.backward()
    steps = [[name, int(now), int(held), phase]
             for (name, now, held), phase in zip(saved.timeline, saved.phases)]
    return {"steps": steps, "kept": int(kept), "peak": int(saved.peak)}


def peak_step(steps):
    """The step where the backward held the most (the first such), as count_saved's peak."""
    best, at = -1, None
    for i, (_, now, held, phase) in enumerate(steps):
        if phase != "f" and now + held > best:
            best, at = now + held, i
    return at


def kib(n):
    return f"{n / 1024:,.1f} KiB"


class MemoryExplorer(b.Explorer):
    """A small MLP's memory through one training step, forward then backward, with the
    blocks the reader picks checkpointed: a step chart of the bytes of saved values alive
    and of the gradients on their way, the peak marked, beside the same step with no
    checkpointing; and the numbers as text (saved after the forward, peak during the
    backward).

    The view has a checkbox per block, a slider and a box for the batch and for the width
    (whole numbers from 1 to 512) and buttons for the dtype.  In Jupyter the kernel runs
    each change for real (``timeline``: a forward and a backward inside count_saved); in
    the book's pages the view computes the same timeline from the layer sizes.

    Set: ``.checkpointed`` (block indices), ``.batch``, ``.width``, ``.dtype`` ("float32"
    or "float64").  Read: ``.steps``, ``.kept``, ``.peak``, ``.plain`` (the same for no
    checkpointing), ``.error``.
    """

    kind = "memory"
    _esm = b.module_source("memory")

    def __init__(self, checkpointed=(1,), batch=128, width=256, dtype="float32", *, title=None):
        super().__init__()
        with b.quiet():
            self._ck = self._blocks(checkpointed)
            self._batch, self._width = whole("batch", batch), whole("width", width)
            self._dtype = self._pick_dtype(dtype)
            self.title = title
            self.spec = {"title": title or "Memory through one training step: pick blocks to checkpoint",
                         "n_in": N_IN, "n_out": N_OUT, "blocks": BLOCKS, "limits": LIMITS,
                         "dtypes": {k: int(np.dtype(k).itemsize) for k in DTYPES}}
            self._compute()
        self._publish()

    # -- the programmatic API ------------------------------------------------------------------
    checkpointed = property(lambda self: tuple(self._ck),
                            lambda self, v: self._guard(self._act)({"set": "checkpointed", "value": v}))
    batch = property(lambda self: self._batch,
                     lambda self, v: self._guard(self._act)({"set": "batch", "value": v}))
    width = property(lambda self: self._width,
                     lambda self, v: self._guard(self._act)({"set": "width", "value": v}))
    dtype = property(lambda self: self._dtype,
                     lambda self, v: self._guard(self._act)({"set": "dtype", "value": v}))
    steps = property(lambda self: [list(s) for s in self._r["steps"]])
    kept = property(lambda self: self._r["kept"])
    peak = property(lambda self: self._r["peak"])
    plain = property(lambda self: dict(self._plain))

    @staticmethod
    def _blocks(value):
        try:
            picked = sorted({int(i) for i in value})
            ok = all(float(i) == int(i) and not isinstance(i, (bool, str)) for i in value)
        except (TypeError, ValueError):
            picked, ok = [], False
        if not ok or any(not 0 <= i < BLOCKS for i in picked):
            raise ValueError(f"checkpointed: a list of block numbers from 0 to {BLOCKS - 1}, "
                             f"not {value!r}")
        return picked

    @staticmethod
    def _pick_dtype(value):
        if value not in DTYPES:
            raise ValueError(f"dtype: float32 or float64, not {value!r}")
        return value

    def _act(self, msg):
        """``{"set": "checkpointed" | "batch" | "width" | "dtype", "value": ...}``.  A bad
        value changes nothing; its problem is shown."""
        self.error = self.note = None
        name, value = msg.get("set"), msg.get("value")
        try:
            if name == "checkpointed":
                self._ck = self._blocks(value)
            elif name in LIMITS:
                setattr(self, f"_{name}", whole(name, value))
            elif name == "dtype":
                self._dtype = self._pick_dtype(value)
            else:
                raise ValueError("MemoryExplorer does not know the message "
                                 + json.dumps(msg, separators=(",", ":"), default=str))
        except ValueError as exc:
            self.error = str(exc)
            return
        self._compute()

    def _compute(self):
        self._r = timeline(self._width, self._batch, self._ck, self._dtype)
        self._plain = (self._r if not self._ck else
                       timeline(self._width, self._batch, (), self._dtype))

    def _state(self):
        return {"checkpointed": list(self._ck), "batch": self._batch, "width": self._width,
                "dtype": self._dtype, "steps": self._r["steps"], "kept": self._r["kept"],
                "peak": self._r["peak"], "plain": {"steps": self._plain["steps"],
                                                   "kept": self._plain["kept"],
                                                   "peak": self._plain["peak"]}}

    # -- pictures and text ------------------------------------------------------------------
    def _setting(self):
        ck = ", ".join(map(str, self._ck))
        return (f"batch {self._batch}, width {self._width}, {self._dtype}, "
                + (f"block{'s' if len(self._ck) > 1 else ''} {ck} checkpointed" if self._ck
                   else "no block checkpointed"))

    def figure(self):
        fig = viz.new_figure(6.8, 3.0)          # not pyplot's: a notebook shows it only once
        ax = fig.subplots()
        steps = self._r["steps"]
        total = [(now + held) / 1024 for _, now, held, _ in steps]
        saved = [now / 1024 for _, now, _, _ in steps]
        if self._ck:
            plain = [(now + held) / 1024 for _, now, held, _ in self._plain["steps"]]
            ax.step(range(len(plain)), plain, where="post", color=viz.MUTED, ls="--", lw=1.2,
                    label="no checkpointing: saved + gradients")
        ax.fill_between(range(len(saved)), saved, step="post", color=viz.SKY, alpha=0.45,
                        label="saved values")
        ax.step(range(len(total)), total, where="post", color=viz.BLUE, lw=1.8,
                label="saved + gradients in flight")
        at = peak_step(steps)
        ax.plot([at], [total[at]], "o", color=viz.VERMILLION)
        ax.annotate(f"peak {kib(self._r['peak'])}", (at, total[at]), xytext=(6, 2),
                    textcoords="offset points", fontsize=8.5, color=viz.INK)
        start = sum(1 for s in steps if s[3] == "f") - 0.5
        ax.axvline(start, color=viz.RULE, lw=0.8, ls=":")
        ax.set(xlabel="step (nodes recorded, then nodes the backward ran)", ylabel="KiB",
               facecolor=viz.PAPER)
        ax.legend(loc="upper left", fontsize=7.5, frameon=False)
        ax.set_title(self.title or self._setting(), fontsize=10)
        fig.tight_layout()
        fig._al_alt = self._alt()
        return fig

    def _alt(self):
        r, p = self._r, self._plain
        at = peak_step(r["steps"])
        s = (f"Step chart of the bytes one training step of an MLP with six hidden layers holds ({self._setting()}), "
             f"over {len(r['steps'])} steps: saved values and gradients in flight. Saved after the "
             f"forward: {r['kept']:,} bytes; peak during the backward: {r['peak']:,} bytes, at step "
             f"{at}.")
        if self._ck:
            s += (f" With no block checkpointed: {p['kept']:,} bytes after the forward, peak "
                  f"{p['peak']:,} bytes.")
        if self.error:
            s += f" Problem: {self.error}"
        return s

    def summary(self):
        r, p = self._r, self._plain
        s = (f"MemoryExplorer: {self._setting()}: saved after the forward {r['kept']:,} bytes, "
             f"peak {r['peak']:,} bytes")
        if self._ck:
            s += f" (no checkpointing: {p['kept']:,} and {p['peak']:,})"
        return s + self._problem_suffix()
