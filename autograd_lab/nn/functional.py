"""``al.nn.functional``: activations and losses, each a row of the rules table (``rules.py``,
``layer_rules.py``, ``loss_rules.py``) or built from them, with torch's signatures and checks."""
import warnings

import numpy as np

from .. import creation, dtypes, functions as _f
from .. import rules as _rules
from ..batching import is_batched as _is_batched, numbers as _numbers, reads_values as _reads_values
from ..checks import broadcast_mismatch as _broadcast_mismatch, tensor_of as _t
from ..tensor import Tensor as _Tensor
from . import layer_rules, loss_rules
# convolution and pooling (convolution.py); padding, resizing and pixel shuffles (resampling.py)
from .convolution import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, avg_pool1d,
                          avg_pool2d, conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                          conv_transpose3d, max_pool1d, max_pool2d)
from .resampling import (interpolate, pad, pixel_shuffle, pixel_unshuffle, upsample, upsample_bilinear,
                         upsample_nearest)

sigmoid = _f.sigmoid
tanh = _f.tanh
relu = _f.relu


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _f.softmax(input, _dim(input, dim, "softmax", _stacklevel), dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _f.log_softmax(input, _dim(input, dim, "log_softmax", _stacklevel), dtype=dtype)


softmax.__doc__, log_softmax.__doc__ = _f.softmax.__doc__, _f.log_softmax.__doc__


def _dim(input, dim, name, stacklevel):
    """``dim``, or the one torch picks when none is given (a choice it has deprecated).
    The warning names the line ``stacklevel`` frames up from here, as torch counts: 3 is
    the caller of softmax; a library wrapping softmax passes 4 to name its own caller."""
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if input.ndim in (0, 1, 3) else 1


def _checked(name, input, target, reduction, differs=None):
    """torch's checks shared by the losses: a known reduction, and a target of the input's
    size -- one of another size is refused with ``differs`` (the text after the sizes), or,
    without it, broadcast with torch's warning."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not isinstance(target, _Tensor):
        raise TypeError(f"{name}(): argument 'target' (position 2) must be Tensor, not {type(target).__name__}")
    if target.shape != input.shape:
        sizes = f"target size ({_size(target)}) that is different to the input size ({_size(input)})"
        if differs is not None:
            raise ValueError(differs.format(target=_size(target), input=_size(input)))
        warnings.warn(f"Using a {sizes}. This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", UserWarning, stacklevel=3)


_SAME_SIZE = ("Using a target size ({target}) that is different to the input size ({input}) is "
              "deprecated. Please ensure they have the same size.")


def _size(t):
    return f"torch.Size({list(t.shape)})"


def _legacy(size_average, reduce):
    if size_average is not None or reduce is not None:
        raise NotImplementedError("size_average and reduce are deprecated in torch and not supported "
                                  "here; use reduction='mean', 'sum' or 'none'")


def _constant(t, like, name):
    """A weight as an array of the input's dtype: weights are constants here."""
    if t is None:
        return None
    if isinstance(t, _Tensor) and t.requires_grad:
        raise NotImplementedError(f"autograd_lab does not differentiate with respect to {name}")
    return np.asarray(t._data if isinstance(t, _Tensor) else t, dtype=like._data.dtype)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean (or sum) of (input - target)²; shapes that differ broadcast, with torch's
    warning."""
    _legacy(size_average, reduce)
    _checked("mse_loss", input, target, reduction)
    if weight is None:
        return loss_rules.mse_loss(input, target, reduction=reduction)
    return _weighted_loss((input - target) ** 2, input, weight, reduction)


def _weighted_loss(per_entry, input, weight, reduction):
    """A loss's entries times their weights, reduced: a weighted mean divides by the
    weights' sum.  (torch writes the weighted losses out, as here.)"""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = per_entry * weight
    if reduction == "none":
        return weighted
    return weighted.sum() if reduction == "sum" else weighted.sum() / weight.sum()


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)), for probabilities x in [0, 1]; each log is kept
    above -100, as in torch."""
    _legacy(size_average, reduce)
    _checked("binary_cross_entropy", input, target, reduction, _SAME_SIZE)
    x = _numbers(input)                                      # (under vmap: every sample's)
    if x.size and not (np.all(x >= 0) and np.all(x <= 1)):    # (NaN fails too)
        raise RuntimeError("all elements of input should be between 0 and 1")
    return loss_rules.binary_cross_entropy(input, target, weight=_constant(weight, input, "weight"),
                                     reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """binary_cross_entropy(sigmoid(x), t), computed from the logits x without overflow."""
    _legacy(size_average, reduce)
    _checked("binary_cross_entropy_with_logits", input, target, reduction,
             "Target size ({target}) must be the same as input size ({input})")
    return loss_rules.binary_cross_entropy_with_logits(input, target, weight=_constant(weight, input, "weight"),
                                                 pos_weight=_constant(pos_weight, input, "pos_weight"),
                                                 reduction=reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """-input[i, target[i]] (log-probabilities picked by class index), averaged over the
    targets' weights.  Under vmap the targets are checked on the whole batch at once."""
    _legacy(size_average, reduce)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _classes(input, target)
    numbers = _numbers(target).astype(np.int64, copy=False)
    _in_bounds(numbers, input.shape[1] if input.ndim > 1 else input.shape[0], ignore_index)
    t = target if _is_batched(target) else numbers
    return loss_rules.nll_loss(input, t, weight=_constant(weight, input, "weight"),
                         ignore_index=ignore_index, reduction=reduction)


def _classes(input, target):
    """torch's checks of the target class indices' dtype and shape."""
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{dtypes.scalar_type_name(target._data.dtype)}")
    if input.ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if input.ndim > 1 and (target.ndim == 0 or target.shape[0] != input.shape[0]):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 0}).")
    batch = () if input.ndim == 1 else input.shape[:1] + input.shape[2:]
    if tuple(target.shape) != batch:
        raise RuntimeError(f"Expected target size {list(batch)}, got {list(target.shape)}")


def _in_bounds(t, classes, ignore_index):
    bad = (t != ignore_index) & ((t < 0) | (t >= classes))
    if bad.any():
        raise IndexError(f"Target {t[bad].flat[0]} is out of bounds.")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """nll_loss(log_softmax(input)) for class indices, or -(target * log_softmax(input))
    summed over the classes for class probabilities; label_smoothing mixes in the uniform
    distribution over the classes, as torch does."""
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    dim = 1 if input.ndim > 1 else 0
    logp = log_softmax(input, dim)
    eps = label_smoothing
    classes = input.shape[dim]
    if target.is_floating_point():                      # probabilities, one per class
        _checked("cross_entropy", input, target, reduction, _SAME_SIZE)
        w = 1 if weight is None else _rules.unsqueeze(_t(_constant(weight, input, "weight")), -1) \
            if dim == 0 else _t(_constant(weight, input, "weight")).reshape((classes,) + (1,) * (input.ndim - 2))
        per_sample = -(logp * (target * (1 - eps) + eps / classes) * w).sum(dim)
        if reduction == "mean":
            return per_sample.sum() / (input.numel() // classes)
        return per_sample.sum() if reduction == "sum" else per_sample
    loss = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if not eps:
        return loss
    return _smoothed(loss, logp, input, target, weight, ignore_index, reduction, eps)


@_reads_values("cross_entropy")
def _smoothed(loss, logp, input, target, weight, ignore_index, reduction, eps):
    """Class indices with label smoothing: the loss mixed with the uniform distribution's
    (its mean divides by the kept targets' weight, read from their numbers: under vmap,
    one sample at a time)."""
    dim = 1 if input.ndim > 1 else 0
    classes = input.shape[dim]
    ignored = target._data == ignore_index
    w = 1 if weight is None else _t(_constant(weight, input, "weight")).reshape(
        (classes,) + (1,) * (input.ndim - 2))
    smooth = _f.where(_t(ignored), 0.0, -(logp * w).sum(dim))
    if reduction == "mean":
        kept = target._data[~ignored]
        smooth = smooth.sum() / (kept.size if weight is None else float(_constant(weight, input, "w")[kept].sum()))
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - eps) * loss + smooth * (eps / classes)


def linear(input, weight, bias=None):
    """input Wᵀ + b, recorded as torch records it: with a bias, one addmm on the input's
    rows (viewed as a matrix, and the result viewed back, unless the input's memory is
    not in row order); without, a matrix product."""
    if bias is None:
        return input @ weight.t()
    if input.ndim == 2:
        return layer_rules.linear_node(bias, input, weight.t())
    if input.ndim and input._data.flags.c_contiguous and weight.ndim == 2:
        rows = layer_rules.linear_node(bias, input.reshape(-1, input.shape[-1]), weight.t())
        return rows.reshape(*input.shape[:-1], rows.shape[-1])
    return input @ weight.t() + bias


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean (or sum) of |input - target|, written out as torch writes it (its grad_fn
    is the reduction's: MeanBackward0)."""
    _legacy(size_average, reduce)
    _checked("l1_loss", input, target, reduction)
    mismatch = _broadcast_mismatch(input.shape, target.shape)
    if mismatch:                                          # (torch broadcasts them first)
        raise RuntimeError(mismatch)
    loss = (input - target).abs()
    if weight is not None:
        return _weighted_loss(loss, input, weight, reduction)
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


def dropout(input, p=0.5, training=True, inplace=False):
    """Each entry zeroed with probability p, the others scaled by 1 / (1 - p), in training;
    the input itself otherwise.  The entries kept are drawn from the package's generator."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training:
        return input
    keep = creation.rand(*input.shape)._data >= p
    mask = _t((keep * (0.0 if p == 1 else 1 / (1 - p))).astype(input._data.dtype))
    return input.mul_(mask) if inplace else input * mask

