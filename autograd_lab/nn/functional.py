"""``al.nn.functional``: activations and losses, each a row of the rules table (``rules.py``,
``layer_rules.py``, ``loss_rules.py``) or built from them, with torch's signatures and checks."""
import math
import warnings

import numpy as np

from .. import creation, dtypes, functions as _f, modes
from .. import rules as _rules
from ..batching import is_batched as _is_batched, numbers as _numbers, reads_values as _reads_values
from ..inplace import in_place_method as _in_place_method
from ..checks import broadcast_mismatch as _broadcast_mismatch, tensor_of as _t, wrap_dim as _wrap_dim
from ..tensor import Tensor as _Tensor
from . import activation_rules, embedding_rules, layer_rules, loss_rules, norm_rules

sigmoid = _f.sigmoid
tanh = _f.tanh
from ..index_functions import one_hot  # noqa: E402  (class indices as rows of 0s and a 1)


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
    if not training or p == 0:                # (torch hands back the input itself)
        return input
    keep = creation.rand(*input.shape)._data >= p
    mask = _t((keep * (0.0 if p == 1 else 1 / (1 - p))).astype(input._data.dtype))
    return input.mul_(mask) if inplace else input * mask


# -- activations, normalization, embedding, similarity and channel dropout: rows of
#    activation_rules.py, norm_rules.py and embedding_rules.py, or compositions torch also
#    writes out (normalize, cosine_similarity, softsign, instance_norm) ----------------------
def _floating_only(kernel, x):
    """torch's kernels for these activations have no integer or bool version."""
    if x._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(x._data.dtype)}'")


def _in_place(x, row, **params):
    """``row`` written over x, as x.relu_() is (torch records it under the row's in-place name)."""
    return _in_place_method(lambda t: row(t, **params), row.name)(x)


def relu(input, inplace=False):
    return input.relu_() if inplace else _f.relu(input)


def relu_(input):
    return input.relu_()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, else negative_slope * x."""
    _floating_only("leaky_relu_cpu", input)
    if inplace:
        return _in_place(input, activation_rules.leaky_relu_inplace, slope=negative_slope)
    return activation_rules.leaky_relu(input, slope=negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def gelu(input, approximate="none"):
    """x Φ(x), Φ the standard normal's distribution function; approximate="tanh" takes
    0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))) instead."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating_only("GeluKernelImpl", input)
    return activation_rules.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    """x sigmoid(x) (also called swish)."""
    _floating_only("silu_cpu", input)
    if inplace:
        return _in_place(input, activation_rules.silu)
    return activation_rules.silu(input)


def _elu(input, alpha, scale, inplace, kernel="elu_cpu"):
    _floating_only(kernel, input)
    params = dict(alpha=alpha, scale=scale, input_scale=1.0)
    if inplace:
        return _in_place(input, activation_rules.elu_inplace, **params)
    return activation_rules.elu(input, **params)


def elu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha (exp(x) - 1)."""
    return _elu(input, alpha, 1.0, inplace)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """elu with torch's constants, scaled: self-normalizing."""
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, inplace)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1))."""
    _floating_only("elu_cpu", input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    params = dict(alpha=alpha, scale=1.0, input_scale=1.0 / alpha)
    if inplace:
        return _in_place(input, activation_rules.celu_inplace, **params)
    return activation_rules.celu(input, **params)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta, and x where beta x > threshold."""
    _floating_only("softplus_cpu", input)
    return activation_rules.softplus(input, beta=beta, threshold=threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clipped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _in_place(input, activation_rules.hardtanh, min_val=min_val, max_val=max_val)
    return activation_rules.hardtanh(input, min_val=min_val, max_val=max_val)


def relu6(input, inplace=False):
    """x clipped to [0, 6] (torch records it as hardtanh)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def logsigmoid(input):
    """log(sigmoid(x)), without overflow."""
    _floating_only("log_sigmoid_cpu", input)
    return activation_rules.log_sigmoid(input)


def mish(input, inplace=False):
    """x tanh(softplus(x))."""
    _floating_only("mish_cpu", input)
    if inplace:
        return _in_place(input, activation_rules.mish)
    return activation_rules.mish(input)


def softsign(input):
    """x / (1 + |x|), written out as torch writes it."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def prelu(input, weight):
    """x where x > 0, else a * x: ``weight`` holds one a, or one per channel (dim 1)."""
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {dtypes.scalar_type_name(input._data.dtype)} "
                           f"and {dtypes.scalar_type_name(weight._data.dtype)}")
    shape = [1] * input.ndim                       # one a per channel, broadcast over the rest
    if input.ndim > 1:
        shape[1] = weight.numel()
    return activation_rules.prelu(input, weight.reshape(*shape))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input divided by its p-norm along ``dim`` (kept at least eps)."""
    if out is not None:
        raise NotImplementedError("autograd_lab's normalize does not write into out=")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def _clamped_below(norm, eps):
    """norm with its numbers kept at least eps, the gradient passing as if unclamped (torch
    clamps the norm in place, outside the graph)."""
    with modes.no_grad():
        lifted = norm.clamp_min(eps) - norm
    return norm + lifted


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Σ x1 x2 / (|x1| |x2|) along ``dim``, each norm kept at least eps; the two broadcast."""
    for name, x in (("x1", x1), ("x2", x2)):
        if not isinstance(x, _Tensor):
            raise TypeError(f"cosine_similarity(): argument '{name}' (position {1 + (name == 'x2')}) must be "
                            f"Tensor, not {type(x).__name__}")
    mismatch = _broadcast_mismatch(x1.shape, x2.shape)
    if mismatch:
        raise RuntimeError(mismatch)
    if x1.shape != x2.shape:
        shape = np.broadcast_shapes(x1.shape, x2.shape)
        x1, x2 = x1.expand(*shape), x2.expand(*shape)
    common = dtypes.promote_types(x1._data.dtype, x2._data.dtype)
    if common.kind not in "fc":
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{dtypes.scalar_type_name(common)}")
    x1, x2 = (x if x._data.dtype == common else x.to(dtypes.from_numpy(common)) for x in (x1, x2))
    _wrap_dim(dim, x1.ndim)
    n1 = _clamped_below(x1.norm(2, dim, keepdim=True), eps)
    n2 = _clamped_below(x2.norm(2, dim, keepdim=True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """|x1 - x2 + eps| along the last dimension."""
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


def _sizes(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Each sample normalized over its last len(normalized_shape) dimensions, then scaled by
    ``weight`` and shifted by ``bias`` (both of normalized_shape)."""
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
                        f"{type(normalized_shape).__name__}")
    shape = tuple(int(s) for s in normalized_shape)
    k = len(shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{_sizes(t.shape)} and normalized_shape = {_sizes(shape)}")
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={_sizes(shape)}, expected input with shape "
                           f"[*{''.join(', ' + str(s) for s in shape)}], but got input of size{_sizes(input.shape)}")
    _floating_only("LayerNormKernelImpl", input)
    return norm_rules.layer_norm(input, weight, bias, k=k, ndim=input.ndim, eps=eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x²) + eps) over the last len(normalized_shape) dimensions, times
    ``weight``; eps=None: the dtype's machine epsilon.  Written out, as torch writes it."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if input.ndim < len(shape) or tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={_sizes(shape)}, expected input with shape "
                           f"[*{''.join(', ' + str(s) for s in shape)}], but got input of size{_sizes(input.shape)}")
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    dims = tuple(range(-len(shape), 0))
    out = input * (input.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """The channels (dim 1) of each sample in ``num_groups`` groups, each group normalized
    over its channels and positions; then a per-channel scale and shift."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    sizes = [input.shape[0] * input.shape[1] // num_groups, num_groups] + list(input.shape[2:])
    _verify_batch_size(sizes, sizes)
    channels = input.shape[1]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {_sizes(input.shape)} and num_groups={num_groups}")
    for t in (weight, bias):
        if t is not None and (t.ndim != 1 or t.shape[0] != channels):
            name = "weight" if t is weight else "bias"
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {_sizes(t.shape)} and input of shape {_sizes(input.shape)}")
    return norm_rules.group_norm(input, weight, bias, groups=num_groups, ndim=input.ndim, eps=eps)


def _verify_batch_size(sizes, shown):
    """torch's refusal to normalize a single value per channel while training."""
    if sizes[0] * math.prod(sizes[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {shown}")


_BATCHED_STATS = ("Batch norm got a batched tensor as input while the running_mean or running_var, which will be "
                 "updated in place, were not batched.\nIf you are using a module and do not need eval mode, please "
                 "set `track_running_stats` to be False.If you are using a prebuilt module and do not need eval "
                 "mode, please see the functorch website for resources on how to patch your module to work with vmap")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Each channel (dim 1) normalized by the batch's mean and variance (training) or by
    the running ones, then scaled and shifted.  In training, running_mean and running_var
    (when given) move toward the batch's statistics by ``momentum``, in place."""
    if training:
        _verify_batch_size(tuple(input.shape), f"torch.Size({list(input.shape)})")
    channels = input.shape[1] if input.ndim > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.requires_grad:               # (their derivative is not implemented)
            raise RuntimeError(f"The function 'native_batch_norm' is not differentiable with respect to argument "
                               f"'{name}'. This input cannot have requires_grad True.")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be defined in evaluation mode")
    use_batch = training
    if training and running_mean is not None:
        if _is_batched(input):
            raise RuntimeError(_BATCHED_STATS)
        _update_running(input, running_mean, running_var, momentum)
    rm, rv = (None, None) if use_batch else (running_mean, running_var)
    return norm_rules.batch_norm(input, weight, bias, rm, rv, training=use_batch, ndim=input.ndim, eps=eps)


def _update_running(input, running_mean, running_var, momentum):
    """running = momentum * batch statistic + (1 - momentum) * running, as torch orders it
    (the variance unbiased: divided by n - 1)."""
    x = input._data
    dims = (0,) + tuple(range(2, x.ndim))
    n = x.size // x.shape[1]
    mean = x.mean(axis=dims)
    var = ((x - mean.reshape((1, -1) + (1,) * (x.ndim - 2))) ** 2).sum(axis=dims) / max(n - 1, 1)
    with modes.no_grad():
        for running, batch in ((running_mean, mean), (running_var, var)):
            running.copy_(_t((momentum * batch + (1 - momentum) * running._data).astype(running._data.dtype)))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Each channel of each sample normalized over its positions: batch norm of the input
    seen as one sample of N * C channels, as torch computes it (the running statistics,
    if given, averaged over the samples)."""
    if use_input_stats:
        _verify_spatial_size(input)
    n, c = input.shape[0], input.shape[1]
    folded = input.reshape(1, n * c, *input.shape[2:])
    repeat = lambda t: None if t is None else t.repeat(n)            # noqa: E731
    rm = None if running_mean is None else _t(np.tile(running_mean._data, n))
    rv = None if running_var is None else _t(np.tile(running_var._data, n))
    out = batch_norm(folded, rm, rv, repeat(weight), repeat(bias), use_input_stats, momentum, eps)
    if use_input_stats and running_mean is not None:
        with modes.no_grad():
            running_mean.copy_(_t(rm._data.reshape(n, c).mean(0)))
            running_var.copy_(_t(rv._data.reshape(n, c).mean(0)))
    return out.view(*input.shape)


def _verify_spatial_size(input):
    if math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"torch.Size({list(input.shape)})")


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """The rows of ``weight`` at the indices ``input``; the gradient adds up in the rows
    looked up (none in the padding_idx row).  ``max_norm``: the rows looked up are first
    scaled down in place to that norm, as torch does."""
    if sparse:
        raise NotImplementedError("autograd_lab has no sparse tensors: embedding(sparse=True) is not "
                                  "implemented in autograd_lab; use sparse=False")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.shape[0], "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.shape[0], "Padding_idx must be within num_embeddings"
            padding_idx = weight.shape[0] + padding_idx
    indices = _t(input)
    if indices._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{dtypes.legacy_type_name(indices._data.dtype)} instead "
                           "(while checking arguments for embedding)")
    picked = _numbers(indices)
    if picked.size and (picked.min() < 0 or picked.max() >= weight.shape[-2]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renormed(weight, picked, max_norm, norm_type)
    return embedding_rules.lookup(weight, indices, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)


def _renormed(weight, indices, max_norm, norm_type):
    """The rows looked up, scaled in place (outside the graph) to norm at most max_norm."""
    rows = np.unique(indices)
    data = weight._data[rows]
    norms = np.sum(np.abs(data) ** norm_type, axis=-1) ** (1.0 / norm_type)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(data.dtype)
    with modes.no_grad():
        weight[_t(rows)] = _t(data * scale[:, None])


def _channel_dropout(input, p, training, inplace):
    """Whole channels zeroed with probability p, the rest scaled by 1 / (1 - p): one draw
    per (sample, channel), as torch's feature dropout."""
    if p == 0 or not training or input.numel() == 0:
        return input
    keep = creation.rand(*(tuple(input.shape[:2]) + (1,) * (input.ndim - 2)))._data >= p
    mask = _t((keep * (0.0 if p == 1 else 1 / (1 - p))).astype(input._data.dtype))
    return input.mul_(mask) if inplace else input * mask


def _dropout_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout_warning(name, ndim, wanted, spatial):
    warnings.warn(f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an error in "
                  "a future release. To retain the behavior and silence this warning, please use dropout instead. "
                  f"Note that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial "
                  f"dimensions, a channel dimension, and an optional batch dimension (i.e. {wanted[0]}D or "
                  f"{wanted[1]}D inputs).", UserWarning, stacklevel=3)


def _unbatched_channel_dropout(input, p, training, inplace, batched):
    if batched:
        return _channel_dropout(input, p, training, inplace)
    return _channel_dropout(input.unsqueeze(0), p, training, False).squeeze(0) if not inplace else \
        input.mul_(_channel_dropout(_f.ones_like(input).unsqueeze(0), p, training, False).squeeze(0))


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Channel dropout for (N, C, L) or (C, L) inputs."""
    _dropout_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _unbatched_channel_dropout(input, p, training, inplace, input.ndim == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Channel dropout for (N, C, H, W) inputs (a 3-D input is taken as (N, C, L), as torch
    does, with its warning)."""
    _dropout_p(p)
    if input.ndim not in (3, 4):
        _feature_dropout_warning("dropout2d", input.ndim, (3, 4), 2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This "
                      "behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", UserWarning, stacklevel=2)
    return _channel_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Channel dropout for (N, C, D, H, W) or (C, D, H, W) inputs."""
    _dropout_p(p)
    if input.ndim not in (4, 5):
        _feature_dropout_warning("dropout3d", input.ndim, (4, 5), 3)
    return _unbatched_channel_dropout(input, p, training, inplace, input.ndim == 5)


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
