"""``al.nn.functional``: activations and losses, each a row of the rules table (``rules.py``,
``layer_rules.py``, ``loss_rules.py``) or built from them, with torch's signatures and checks."""
import math
import warnings

import numpy as np

from .. import creation, functions as _f, sequence_rules
from ..core import dtypes, modes
from ..core import rules as _rules
from ..batching import is_batched as _is_batched, numbers as _numbers, reads_values as _reads_values
from ..core.inplace import in_place_method as _in_place_method
from ..core.checks import broadcast_mismatch as _broadcast_mismatch, tensor_of as _t, wrap_dim as _wrap_dim
from ..core.tensor import Tensor as _Tensor
from . import activation_rules, embedding_rules, layer_rules, loss_rules, masks, norm_rules
# convolution and pooling (convolution.py); padding, resizing and pixel shuffles (resampling.py)
from .convolution import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, avg_pool1d,
                          avg_pool2d, conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                          conv_transpose3d, max_pool1d, max_pool2d)
from .resampling import (affine_grid, grid_sample, interpolate, pad, pixel_shuffle, pixel_unshuffle, upsample,
                         upsample_bilinear, upsample_nearest)

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


def _broadcast(input, target):
    """torch broadcasts a loss's two sides first, so a 0-dim side of a wider dtype counts
    as a full-size one in the result's dtype."""
    return (input, target) if input.shape == target.shape else _f.broadcast_tensors(input, target)


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
    input, target = _broadcast(input, target)
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
    if target._data.dtype != input._data.dtype:        # torch's kernel takes one dtype
        raise RuntimeError(f"Found dtype {dtypes.scalar_type_name(target._data.dtype)} but expected "
                           f"{dtypes.scalar_type_name(input._data.dtype)}")
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
    kind = target._data.dtype.kind
    if kind == "b":                                    # torch computes 1 - target first
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if kind in "iu":                                   # ... and writes into the target's dtype
        raise RuntimeError(f"result type {dtypes.scalar_type_name(input._data.dtype)} can't be cast to "
                           f"the desired output type {dtypes.scalar_type_name(target._data.dtype)}")
    return loss_rules.binary_cross_entropy_with_logits(input, target, weight=_constant(weight, input, "weight"),
                                                 pos_weight=_constant(pos_weight, input, "pos_weight"),
                                                 reduction=reduction, dtype=target._data.dtype)


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
    if target.shape == input.shape:                     # probabilities, one per class
        if not target.is_floating_point():              # (torch tells them by the shape)
            raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                               f"got {dtypes.scalar_type_name(target._data.dtype)}")
        _checked("cross_entropy", input, target, reduction)
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
    if input._data.dtype != weight._data.dtype:      # torch's addmm checks dtypes first
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{dtypes.scalar_type_name(input._data.dtype)} and "
                           f"{dtypes.scalar_type_name(weight._data.dtype)}")
    if input.ndim == 2:
        return layer_rules.linear_node(bias, input, weight.t())
    if input.ndim and input._data.flags.c_contiguous and weight.ndim == 2:
        rows = layer_rules.linear_node(bias, input.reshape(-1, input.shape[-1]), weight.t())
        return rows.reshape(*input.shape[:-1], rows.shape[-1])
    return input @ weight.t() + bias


# -- attention: as torch's reference implementation computes it ---------------------------------
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q kᵀ · scale + mask) v over the last two dimensions, scale 1/√E by default:
    each query's output is the values averaged with weights from its similarity to each
    key.  ``attn_mask``: bool (True: may attend) or float (added); ``is_causal``: each
    position attends to itself and earlier ones.  A row where every key is masked gives
    zeros, not NaN.  Computed as torch's reference ("math") implementation: torch on a CPU
    runs a fused kernel for 4-d inputs (ScaledDotProductFlashAttentionForCpuBackward0) with
    the same numbers."""
    _attention_checks(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    if scale is None:
        scale = 1 / math.sqrt(query.shape[-1])
    factor = math.sqrt(abs(scale))                       # (torch scales q and k by √scale each)
    q = query * (factor if scale >= 0 else 0.0 - factor)
    attn = q @ (key.transpose(-2, -1) * factor)
    if is_causal:                                        # the lower triangle may attend
        attn_mask = _t(np.tril(np.ones((query.shape[-2], key.shape[-2]), dtype=bool)))
    if attn_mask is not None:
        if attn_mask.dtype == dtypes.bool_:              # where it may not: -inf
            attn_mask = _t(np.where(attn_mask._data, 0.0, -np.inf).astype(query._data.dtype))
        attn = attn + attn_mask
    attn = sequence_rules.safe_softmax(attn, dim=(-1,))
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return attn @ value


def _attention_checks(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa):
    """torch's checks of scaled_dot_product_attention's arguments, in its words."""
    q, k, v = (_cpp_type(t) for t in (query, key, value))
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: {q} "
                           f"key.dtype: {k} and value.dtype: {v} instead.")
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if attn_mask is not None and attn_mask.dtype not in (dtypes.bool_, dtypes.float32, query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {_cpp_type(attn_mask)} and  "
                           f"query.dtype: {q} instead.")
    if not 0.0 <= dropout_p <= 1.0 and dropout_p > 0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if enable_gqa and query.ndim > 2 and key.shape[-3] != query.shape[-3]:
        raise NotImplementedError("scaled_dot_product_attention(enable_gqa=True) with fewer key heads than query "
                                  "heads (grouped-query attention) is not implemented in autograd_lab")
    if not query.is_floating_point():
        raise RuntimeError(f"expected scalar type Float but found {dtypes.scalar_type_name(query._data.dtype)}")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """What nn.MultiheadAttention computes, for inputs (L, N, E) or (L, E), in torch's
    steps: queries, keys and values projected (one matrix for all three), split into
    ``num_heads`` heads, each head's attention, the heads joined and projected out.
    Returns the output and, with ``need_weights``, the attention weights (averaged over
    the heads unless ``average_attn_weights=False``)."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = masks.additive(key_padding_mask, "key_padding_mask", query.dtype,
                                      None if attn_mask is None else attn_mask.dtype, "attn_mask")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None                                  # (scaled_dot_product_attention makes it)
    else:
        attn_mask = masks.additive(attn_mask, "attn_mask", query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, use_separate_proj_weight,
                             (q_proj_weight, k_proj_weight, v_proj_weight))
    src_len = key.shape[0]
    if attn_mask is not None:
        attn_mask = masks.sized(attn_mask, (tgt_len, src_len), (bsz * num_heads, tgt_len, src_len))
    if bias_k is not None and bias_v is not None:         # a learned key and value added to every sequence
        k, v = _f.cat([k, bias_k.repeat(1, bsz, 1)]), _f.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    elif (bias_k is None) != (bias_v is None):
        raise AssertionError(f"{'bias_k' if bias_v is None else 'bias_v'} is set but "
                             f"{'bias_v' if bias_v is None else 'bias_k'} is None")
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward's static_k and static_v are not implemented in "
                                  "autograd_lab")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)      # (N heads, L, head_dim)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:                                    # a key and value of zeros added
        zeros = creation.zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype)
        k, v = _f.cat([k, zeros], dim=1), _f.cat([v, zeros], dim=1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
            bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        weights = q_scaled @ k.transpose(-2, -1)
        if attn_mask is not None:
            weights = attn_mask + weights
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = (weights @ v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        return (out, weights) if batched else (out.squeeze(1), weights.squeeze(0))
    if attn_mask is not None:
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 and attn_mask.ndim == 3 else \
            attn_mask.view(bsz, num_heads, -1, src_len)
    q, k, v = (t.view(bsz, num_heads, t.shape[1], head_dim) for t in (q, k, v))
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
    return (out, None) if batched else (out.squeeze(1), None)


def _cpp_type(t):
    """A tensor's element type as torch's C++ messages name it (float, double, long int)."""
    name = dtypes.scalar_type_name(t._data.dtype)
    return {"Long": "long int", "Short": "short int", "Half": "c10::Half", "Byte": "unsigned char",
            "Char": "signed char"}.get(name, name.lower())


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's checks of attention's inputs' dimensions: batched (3-D) or not (2-D)."""
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query "
                             "tensor")
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {query.ndim - 1}-D "
                             f"but found {key_padding_mask.ndim}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.ndim}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"torch.Size({list(attn_mask.shape)})")
    return batched


def _in_projection(query, key, value, w, b, separate, qkv_weights):
    """Queries, keys and values projected as torch does: one linear layer over the query
    when the three are the same tensor (self-attention), split into three after; else
    the query's rows of the weight, and the key's and value's."""
    E = query.shape[-1]
    if separate:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims torch.Size({list(key.shape[:2])}) do not match "
                                 f"value's torch.Size({list(value.shape[:2])})")
        biases = (None,) * 3 if b is None else b.chunk(3)
        return tuple(linear(x, wx, bx) for x, wx, bx in zip((query, key, value), qkv_weights, biases))
    if key.shape != value.shape:
        raise AssertionError(f"key shape torch.Size({list(key.shape)}) does not match value shape "
                             f"torch.Size({list(value.shape)})")
    if key is value:
        if query is key:
            proj = linear(query, w, b)
            proj = proj.view(*proj.shape[:-1], 3, E).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = linear(key, w_kv, b_kv)
        kv = kv.view(*kv.shape[:-1], 2, E).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return linear(query, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None,) * 3 if b is None else b.chunk(3)
    return linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean (or sum) of |input - target|, written out as torch writes it (its grad_fn
    is the reduction's: MeanBackward0)."""
    _legacy(size_average, reduce)
    _checked("l1_loss", input, target, reduction)
    input, target = _broadcast(input, target)
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

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.nn.functional", __name__, "al.nn.functional")   # (names torch has: not_here.py)
