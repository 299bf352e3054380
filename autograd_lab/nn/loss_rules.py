"""Rows of the rules table for nn's losses: mse_loss, binary_cross_entropy (with and
without logits) and nll_loss.

cross_entropy is log_softmax then nll_loss.  (They live beside ``rules.py`` and ``layer_rules.py``, built on the same
:class:`~autograd_lab.core.recording.Op` and written with rules.py's operations.)

Each loss is one row, as in torch (MseLossBackward0, ...): the forward reduces, and the
rules spread the gradient of the reduced loss back over the entries -- the reduced loss
is a sum (or a mean) of the entries' losses, so sum's own rules do the spreading.
Weights, class indices and options are parameters: constants, never differentiated.
"""
import math

import numpy as np

from .. import batching
from ..core import dtypes
from ..batching import broadcast, reduction as reduce_each
from ..core.rules import (abs, clamp, exp, expand, log, log1p, mean, relu, reshape,
                   sigmoid, sum, unsqueeze)
from ..core.recording import Op, register
from ..core.tensor import Tensor


def _reduced(values, reduction):
    if reduction == "none":
        return values
    return values.sum() if reduction == "sum" else values.mean()


def _spread(g, per_entry, reduction, count=None):
    """g (the gradient of the reduced loss) times each entry's derivative ``per_entry``:
    a mean shares g among ``count`` entries (all of them unless given)."""
    if reduction == "none":
        return g * per_entry
    if g.ndim:                                # a sum's VJP spreads g over every entry (the
        g = unsqueeze(g, tuple(range(-per_entry.ndim, 0)))   # product broadcasts it); a batch
    if reduction == "mean":                   # of seeds stays in front
        g = g / (math.prod(per_entry.shape) if count is None else count)
    return g * per_entry


def _summed(t, per_entry, reduction, count=None):
    """Forward mode: the tangent of the reduced loss from the entries' tangents."""
    t = t * per_entry
    if reduction == "none":
        return t
    t = sum.jvp[0](t, None, per_entry)        # a sum's JVP: the tangents added up
    return t / (math.prod(per_entry.shape) if count is None else count) if reduction == "mean" else t


def _batch_loss(op, n, x, t, reduction="mean", **params):
    """A loss: the entries' losses (reduction="none"), reduced over each sample."""
    per_entry = broadcast(op, n, x, t, reduction="none", **params)
    if reduction == "none":
        return per_entry
    return reduce_each(sum if reduction == "sum" else mean, n, per_entry)


def _mse_forward(x, target, reduction="mean"):
    if x.dtype.kind != "f":               # torch has no integer kernel
        raise NotImplementedError(f'"mse_cpu" not implemented for \'{dtypes.scalar_type_name(x.dtype)}\'')
    return _reduced((x - target) ** 2, reduction)


mse_loss = Op("MseLossBackward0", _mse_forward,
              vjp=(lambda g, y, x, target, reduction="mean": _spread(g, 2 * (x - target), reduction),
                   lambda g, y, x, target, reduction="mean": _spread(g, 2 * (target - x), reduction)),
              jvp=(lambda t, y, x, target, reduction="mean": _summed(t, 2 * (x - target), reduction),
                   lambda t, y, x, target, reduction="mean": _summed(t, 2 * (target - x), reduction)),
              promote=True, saves="inputs")


def _weighted(v, weight):
    return v if weight is None else v * weight


def _bce_forward(x, target, weight=None, reduction="mean"):
    # log clamped at -100, as torch, so that a prediction of exactly 0 or 1 costs 100, not inf
    loss = -(target * np.maximum(np.log(x), -100) + (1 - target) * np.maximum(np.log1p(-x), -100))
    return _reduced(loss if weight is None else loss * weight, reduction)


binary_cross_entropy = Op(
    "BinaryCrossEntropyBackward0", _bce_forward,
    # d/dx = (x - target) / (x (1 - x)), its denominator kept from 0 as torch keeps it (1e-12)
    vjp=(lambda g, y, x, target, weight=None, reduction="mean":
         _spread(g, _weighted((x - target) / clamp((1 - x) * x, min=1e-12), weight), reduction),
         lambda g, y, x, target, weight=None, reduction="mean":
         _spread(g, _weighted(clamp(log1p(-x), min=-100.0) - clamp(log(x), min=-100.0), weight), reduction)),
    jvp=(lambda t, y, x, target, weight=None, reduction="mean":
         _summed(t, _weighted((x - target) / clamp((1 - x) * x, min=1e-12), weight), reduction),
         lambda t, y, x, target, weight=None, reduction="mean":
         _summed(t, _weighted(clamp(log1p(-x), min=-100.0) - clamp(log(x), min=-100.0), weight), reduction)),
    promote=True, saves="inputs")


def _bce_logits_forward(x, target, weight=None, pos_weight=None, reduction="mean", dtype=None):
    # (1 - target) x + (1 + (pos_weight - 1) target) softplus(-x), softplus computed without overflow;
    # torch's kernel writes the loss in the target's dtype (``dtype``), whatever x's is
    scale = 1 if pos_weight is None else 1 + (pos_weight - 1) * target
    loss = _reduced(_weighted((1 - target) * x + scale * np.logaddexp(0, -x), weight), reduction)
    return loss if dtype is None else np.asarray(loss, dtype)


def _softplus_of_minus(x):
    return log1p(exp(-abs(x))) + relu(-x)


def _bce_logits_dx(x, target, weight, pos_weight):
    """d/dx: sigmoid(x) - target, or with pos_weight p: (1 + (p - 1) target) sigmoid(x) - p target."""
    if pos_weight is None:
        return _weighted(sigmoid(x) - target, weight)
    return _weighted((1 + (pos_weight - 1) * target) * sigmoid(x) - pos_weight * target, weight)


def _bce_logits_dt(x, target, weight, pos_weight):
    """d/dt: -x, or with pos_weight p: (p - 1) softplus(-x) - x."""
    if pos_weight is None:
        return _weighted(-x, weight)
    return _weighted((pos_weight - 1) * _softplus_of_minus(x) - x, weight)


binary_cross_entropy_with_logits = Op(
    "BinaryCrossEntropyWithLogitsBackward0", _bce_logits_forward,
    vjp=(lambda g, y, x, target, weight=None, pos_weight=None, reduction="mean", dtype=None:
         _spread(g, _bce_logits_dx(x, target, weight, pos_weight), reduction),
         lambda g, y, x, target, weight=None, pos_weight=None, reduction="mean", dtype=None:
         _spread(g, _bce_logits_dt(x, target, weight, pos_weight), reduction)),
    jvp=(lambda t, y, x, target, weight=None, pos_weight=None, reduction="mean", dtype=None:
         _summed(t, _bce_logits_dx(x, target, weight, pos_weight), reduction),
         lambda t, y, x, target, weight=None, pos_weight=None, reduction="mean", dtype=None:
         _summed(t, _bce_logits_dt(x, target, weight, pos_weight), reduction)),
    promote=True, saves="inputs")


def nll_picks(shape, target, weight, ignore_index):
    """(one-hot of the targets, shaped like the input; each target's weight, 0 where it is
    ignore_index).  The classes are dimension 1 of the input (0 for a single sample)."""
    classes = shape[1] if len(shape) > 1 else shape[0]
    kept = target != ignore_index
    safe = np.where(kept, target, 0)
    onehot = np.arange(classes) == safe[..., None]     # (classes last: in place for (N, C))
    if len(shape) > 2:
        onehot = np.moveaxis(onehot, -1, 1)
    return onehot, kept.astype(np.float64) if weight is None else np.where(kept, weight[safe], 0.0)


def _nll_forward(x, target, weight=None, ignore_index=-100, reduction="mean"):
    kept = target != ignore_index
    safe = np.where(kept, target, 0)
    w = kept.astype(np.float64) if weight is None else np.where(kept, weight[safe], 0.0)
    # each target's -log p, picked from its row (the classes are dimension 1, or 0 alone)
    picked = (x[safe] if x.ndim == 1 else x[np.arange(len(safe)), safe] if x.ndim == 2 else
              np.take_along_axis(x, safe[:, None], 1)[:, 0])
    losses = -picked * w
    if reduction == "mean":                   # torch divides by the targets' total weight
        return (losses.sum() / w.sum()).astype(x.dtype)
    return _reduced(losses, reduction).astype(x.dtype)


def _nll_per_entry(x, target, weight, ignore_index):
    onehot, w = nll_picks(x.shape, target, weight, ignore_index)
    dtype = x._data.dtype if isinstance(x, Tensor) else x.dtype
    # (the total weight in the input's dtype too: a float64 total would make the whole
    # gradient float64, cast back by the walk)
    return onehot, (-w).astype(dtype), w.sum().astype(dtype)


def _nll_vjp(g, y, x, target, weight=None, ignore_index=-100, reduction="mean"):
    onehot, coef, total = _nll_per_entry(x, target, weight, ignore_index)
    per_target = _spread(g, coef, reduction, total)
    return unsqueeze(per_target, 1 - x.ndim if x.ndim > 1 else -1) * onehot


def _nll_jvp(t, y, x, target, weight=None, ignore_index=-100, reduction="mean"):
    onehot, coef, total = _nll_per_entry(x, target, weight, ignore_index)
    picked = sum(t * onehot, (1 - x.ndim if x.ndim > 1 else -1,), False)
    return _summed(picked, coef, reduction, total)


def _batch_nll(op, n, x, target, weight=None, ignore_index=-100, reduction="mean"):
    """The batch's samples folded into the rows of one nll_loss with reduction="none";
    each sample's losses then reduced on their own: a mean divides by the total weight
    of that sample's targets (constants, read from the class indices)."""
    t = target._data if isinstance(target, Tensor) else np.asarray(target)
    sizes = np.broadcast_shapes(x.shape[:n], t.shape[:n])
    x = expand(x, shape=sizes + x.shape[n:]) if x.shape[:n] != sizes else x
    t = np.broadcast_to(t, sizes + t.shape[n:]).astype(np.int64)
    own = x.shape[n:]
    rows = reshape(x, shape=(-1,) + own[1:] if len(own) > 1 else (-1, own[0]))
    flat_t = t.reshape((-1,) + t.shape[n + 1:] if len(own) > 1 else (-1,))
    per_entry = op(rows, flat_t, weight=weight, ignore_index=ignore_index, reduction="none")
    per_entry = reshape(per_entry, shape=sizes + t.shape[n:])
    if reduction == "none":
        return per_entry
    total = reduce_each(sum, n, per_entry) if per_entry.ndim > n else per_entry
    if reduction == "sum":
        return total
    _, w = nll_picks(rows.shape, flat_t, weight, ignore_index)
    return total / w.reshape(sizes + (-1,)).sum(-1).astype(x._data.dtype)


# (the rule reads only the input's shape, but torch saves the input itself: so a write to
# it before the backward is refused, and a second backward too, as in torch)
nll_loss = Op("NllLossBackward0", _nll_forward, vjp=(_nll_vjp,), jvp=(_nll_jvp,), saves="inputs")


register(globals())
batching.register(_batch_loss, mse_loss, binary_cross_entropy, binary_cross_entropy_with_logits)
batching.register(_batch_nll, nll_loss)
