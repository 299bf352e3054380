"""``al.nn.functional``: activations and losses, each a row of the rules table (``rules.py``,
``layer_rules.py``, ``loss_rules.py``) or built from them, with torch's signatures and checks."""
import warnings

import numpy as np

from .. import creation, dtypes, functions as _f
from .. import rules as _rules
from ..batching import is_batched as _is_batched, numbers as _numbers, reads_values as _reads_values
from ..checks import broadcast_mismatch as _broadcast_mismatch, tensor_of as _t, wrap_dim as _wrap_dim
from ..tensor import Tensor as _Tensor
from . import layer_rules, loss_rules

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
    if not t.size or 0 <= t.min() and t.max() < classes:
        return                                # (the usual case, read in two passes)
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


# -- convolution and pooling: torch's checks, then a row of layer_rules ---------------------------
def _pair(value, name, dims=2, fn=None):
    """An int or a sequence of ``dims`` ints, as a tuple of ``dims``; torch's words if not."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = tuple(value) * dims
        if len(value) != dims:
            if fn is not None:
                raise RuntimeError(fn)
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {dims} values to "
                               f"match the convolution dimensions, but got {name}={list(value)}")
        return tuple(int(v) for v in value)
    return (int(value),) * dims


def _size_text(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A 2-D convolution (cross-correlation, as torch): input (N, C, H, W) or (C, H, W),
    weight (O, C / groups, kh, kw); padding a number, a pair, "valid" or "same"."""
    if input.ndim not in (3, 4):
        raise RuntimeError("Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           + _size_text(input.shape))
    if input.ndim == 3:
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    dims = weight.ndim - 2
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    if dims != 2:
        raise RuntimeError(f"expected stride to be a single integer value or a list of {dims} values to match "
                           f"the convolution dimensions, but got stride={list(stride)}")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        if input.shape[0] == 1:                          # (torch takes another path for one image)
            raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    pads = _conv_padding(padding, stride, dilation, weight.shape[2:])
    _conv_checks(input, weight, bias, groups, pads, dilation)
    geo = layer_rules.Geometry(stride, pads, dilation, groups, tuple(input.shape[2:]), tuple(weight.shape[2:]))
    return layer_rules.conv2d(input, weight, bias, geo=geo)


def _conv_padding(padding, stride, dilation, kernel):
    """((top, bottom), (left, right)).  "same" pads d (k - 1) in all, the odd one at the end,
    as torch does."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0), (0, 0)
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [d * (k - 1) for d, k in zip(dilation, kernel)]
        if any(t % 2 for t in total):
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                          "zero-padded copy of the input be created", UserWarning, stacklevel=3)
        return tuple((t // 2, t - t // 2) for t in total)
    pads = _pair(padding, "padding")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in pads)


def _conv_checks(input, weight, bias, groups, pads, dilation):
    """torch's checks of dtypes and sizes, in its order and words."""
    kinds = {input._data.dtype, weight._data.dtype}
    if np.dtype(bool) in kinds:
        raise NotImplementedError("\"slow_conv2d_cpu\" not implemented for 'Bool'")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(input._data.dtype)} but found "
                           f"{dtypes.scalar_type_name(weight._data.dtype)}")
    if bias is not None and bias._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({dtypes.scalar_type_name(input._data.dtype).lower()}) and bias type "
                           f"({dtypes.scalar_type_name(bias._data.dtype).lower()}) should be the same")
    out_channels = weight.shape[0]
    if out_channels % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{_size_text(weight.shape)}] instead")
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_size_text(weight.shape)}, expected "
                           f"input{_size_text(input.shape)} to have {weight.shape[1] * groups} channels, but got "
                           f"{input.shape[1]} channels instead")
    if bias is not None and tuple(bias.shape) != (out_channels,):
        raise RuntimeError(f"Given weight of size {_size_text(weight.shape)}, expected bias to be 1-dimensional "
                           f"with {out_channels} elements, but got bias of size {_size_text(bias.shape)} instead")
    padded = [n + a + b for n, (a, b) in zip(input.shape[2:], pads)]
    kernel = [d * (k - 1) + 1 for d, k in zip(dilation, weight.shape[2:])]
    if any(k > n for k, n in zip(kernel, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: ({padded[0]} x {padded[1]}). Kernel size: "
                           f"({kernel[0]} x {kernel[1]}). Kernel size can't be greater than actual input size")


def _pool_geometry(name, input, kernel_size, stride, padding, dilation, ceil_mode):
    """torch's checks of a pooling's arguments and input, in its order and words; the
    Geometry of its windows (the right and bottom padding grow to hold ceil_mode's last
    window)."""
    kernel = _pair(kernel_size, "kernel_size", fn=f"{name}: kernel_size must either be a single int, or a "
                                                   "tuple of two ints")
    stride = kernel if stride is None or stride == [] or stride == () else _pair(
        stride, "stride", fn=f"{name}: stride must either be omitted, a single int, or a tuple of two ints")
    pad = _pair(padding, "padding", fn=f"{name}: padding must either be a single int, or a tuple of two ints")
    dilation = _pair(dilation, "dilation", fn=f"{name}: dilation must be either a single int, or a tuple of "
                                              "two ints")
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
    sizes = input.shape[-2:] if input.ndim >= 2 else ()
    out = []
    for n, k, s, p, d in zip(sizes, kernel, stride, pad, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
        o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
        out.append(o - 1 if ceil_mode and (o - 1) * s >= n + p else o)
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilation[0]} "
                           f"dilationW: {dilation[1]}")
    if input.ndim not in (3, 4) or 0 in input.shape[-3:]:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if pad[0] > kernel[0] // 2 or pad[1] > kernel[1] // 2:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {pad[1]}, "
                           f"padH = {pad[0]}, kW = {kernel[1]}, kH = {kernel[0]}")
    if min(out) < 1:
        c, h, w = input.shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out[0]}x{out[1]}). "
                           "Output size is too small")
    pads = tuple((p, max(p, (o - 1) * s + d * (k - 1) + 1 - n - p))
                 for n, k, s, p, d, o in zip(sizes, kernel, stride, pad, dilation, out))
    return layer_rules.Geometry(stride, pads, dilation, 1, tuple(sizes), kernel)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest entry of each window; with ``return_indices``, also where it is (h * W + w
    in the input's plane), as torch."""
    geo = _pool_geometry("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)
    index = layer_rules.max_pool_index(input, geo=geo)
    out = layer_rules.max_pool2d(input, index, size=geo.size)
    return (out, index) if return_indices else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window: divided by the window's size, padding included (or not:
    ``count_include_pad=False``), or by ``divisor_override``."""
    if input.ndim < 3:
        _wrap_dim(-3, input.ndim)                    # torch's IndexError
    geo = _pool_geometry("avg_pool2d", input, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        divisor = divisor_override
    else:
        h, w = (_window_counts(n, o, k, s, p, count_include_pad) for n, o, k, s, p in
                zip(geo.size, _outputs(geo), geo.kernel, geo.stride, (pad[0] for pad in geo.padding)))
        divisor = np.outer(h, w)
    if input.is_floating_point():
        divisor = np.asarray(divisor, input._data.dtype)
    return layer_rules.avg_pool2d(input, geo=geo, divisor=divisor)


def _outputs(geo):
    return [(n + a + b - d * (k - 1) - 1) // s + 1 for n, (a, b), k, s, d in
            zip(geo.size, geo.padding, geo.kernel, geo.stride, geo.dilation)]


def _window_counts(n, out, k, s, p, count_include_pad):
    """How many entries each window along one axis averages: up to the padding's end, or
    (count_include_pad=False) the input's entries only."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, n + p)
    if count_include_pad:
        return end - start
    return np.minimum(end, n) - np.maximum(start, 0)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a given output size (None: the input's), each window from
    floor(i n / out) to ceil((i + 1) n / out) as torch; to size 1, the mean."""
    if isinstance(output_size, (list, tuple)):            # torch's checks, in its order
        if input.ndim <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        sizes = [n if o is None else int(o) for o, n in zip(output_size, input.shape[-len(output_size):])]
    else:
        sizes = [int(output_size)] * 2
    if len(sizes) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if min(sizes) < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{sizes[0]}, {sizes[1]}}}")
    if sizes == [1, 1]:                                   # torch takes the mean: MeanBackward1
        return input.mean((-1, -2), keepdim=True)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {_size_text(input.shape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for "
                                  f"'{dtypes.scalar_type_name(input._data.dtype)}'")
    dtype = input._data.dtype
    rows, cols = (layer_rules.adaptive_weights(n, o, dtype) for n, o in zip(input.shape[-2:], sizes))
    return layer_rules.adaptive_avg_pool2d(input, rows=rows, cols=cols)
