"""Rows of the rules table for nn's layers -- linear, convolution and pooling: NumPy
forwards with no Python loop over pixels, and their VJP and JVP rules.  (They live beside
``rules.py``, built on the same :class:`~autograd_lab.core.recording.Op`.)

A linear layer on a batch of rows is one row, addmm: bias + input @ weightᵀ, as torch
records it (AddmmBackward0).

A convolution reads every window of the input at once: ``sliding_window_view`` gives a
view of shape (..., C, Ho, Wo, kh, kw) without copying, and one matrix product with the
weights turns the windows into the output (im2col).  Its rules are two more rows of the
table, for the gradient with respect to the input (the products spread back over the
windows: one strided add per kernel position, kh * kw of them) and to the weight (windows
times gradient, one matrix product).  Convolution is linear in the input and in the
weight, so these three rows are each other's derivatives, and second derivatives come out
of the same table -- as torch's ConvolutionBackwardBackward0.

Pooling is linear in its input too (max pooling once the winners are chosen): each
pooling has a row for the forward and a row for its adjoint, each the other's VJP.

Rules index axes from the end (the rules table's convention, see ``rules.py``): inputs and
gradients may carry extra leading dimensions, one per batched seed or tangent.  That is
also how every row batches under ``al.vmap`` (its batch rule, registered at the end of
this module in ``batching.py``'s table): a row runs once on the whole batch, with the
batch dimensions in front.  Where only the images are
batched (not the weights), the batch is folded into the images' dimension N, so one big
matrix product does it all; a batch of weights pairs up with its images in the
matrix product's stack -- what torch's vmap gets from a convolution with groups=B.
"""
import math
from collections import namedtuple

import numpy as np

from .. import batching
from ..core import rules
from ..core.recording import Op, name_by_call, register
from ..core.tensor import Tensor

windows_of = np.lib.stride_tricks.sliding_window_view

# What a convolution's rows share: stride, padding as ((before, after), ...) per spatial
# dimension, dilation and groups, and the sizes of the input's spatial dimensions (H, W)
# and of the kernel (kh, kw) -- one entry per spatial dimension, so the same rows do
# conv1d, conv2d and conv3d (and the poolings, in two dimensions).
Geometry = namedtuple("Geometry", "stride padding dilation groups size kernel")


def windows(x, geo, fill=0):
    """Every window of ``x`` (..., H, W), padded with ``fill``: a view (..., Ho, Wo, kh, kw)
    (one spatial dimension or three alike)."""
    d = len(geo.kernel)
    if any(b < 0 for _, b in geo.padding):            # (a transposed convolution's: see below)
        x = x[(Ellipsis,) + tuple(slice(0, n + min(b, 0)) for (_, b), n in zip(geo.padding, geo.size))]
    if any(a or b > 0 for a, b in geo.padding):
        x = np.pad(x, [(0, 0)] * (x.ndim - d) + [(a, max(b, 0)) for a, b in geo.padding], constant_values=fill)
    spans = tuple(dl * (k - 1) + 1 for k, dl in zip(geo.kernel, geo.dilation))
    view = windows_of(x, spans, axis=tuple(range(-d, 0)))
    return view[(Ellipsis,) + tuple(slice(None, None, s) for s in geo.stride + geo.dilation)]


def spread(cols, geo, dtype):
    """The adjoint of :func:`windows`: add each window's entries (cols: (..., kh, kw, Ho,
    Wo)) back where they were read, and drop the padding.  One strided add per kernel
    position, each covering every window."""
    d = len(geo.kernel)
    outs = cols.shape[-d:]
    out = np.zeros(cols.shape[:-2 * d] + tuple(n + a + max(b, 0) for n, (a, b) in zip(geo.size, geo.padding)), dtype)
    for at in np.ndindex(*geo.kernel):
        reach = tuple(slice(i * dl, i * dl + s * (o - 1) + 1, s)
                      for i, dl, s, o in zip(at, geo.dilation, geo.stride, outs))
        out[(Ellipsis,) + reach] += cols[(Ellipsis,) + at + (slice(None),) * d]
    return out[(Ellipsis,) + tuple(slice(a, a + n) for (a, _), n in zip(geo.padding, geo.size))]


def _lead(a, core):
    return a.shape[:a.ndim - core]


def in_front(op, n, *args, **params):
    """The batch rule of a row whose rules read axes from the end: run it once, the
    batch dimensions in front of every input (broadcast where an input has 1s)."""
    return op(*args, **params)


def _unbatched(a, n):
    return a is None or all(s == 1 for s in a.shape[:n])


def _folded(op, n, x, *others, ndim, **params):
    """Run ``op`` with the batch of ``x`` folded into its first own dimension (N: x has
    ``ndim`` own dimensions), the ``others`` (not batched) as one sample: one call on
    N * batch images, the result unfolded."""
    lead, own = x.shape[:n], x.shape[n:]
    if not own or len(own) != ndim:
        return op(x, *others, **params)
    flat = rules.reshape(x, shape=(-1,) + own[1:])
    others = [o if o is None or not isinstance(o, Tensor) else rules.reshape(o, shape=o.shape[n:])
              for o in others]
    out = op(flat, *others, **params)
    return rules.reshape(out, shape=lead + own[:1] + out.shape[1:])


def _fold_images(op, n, x, *others, geo, **params):
    """Batch rule of a convolution's row (x, w, ...) linear in x (N, C, H, W): fold the
    batch into N when nothing else is batched; else ride in front."""
    if all(_unbatched(o, n) for o in others if isinstance(o, Tensor) or o is None):
        return _folded(op, n, x, *others, ndim=len(geo.kernel) + 2, geo=geo, **params)
    return op(x, *others, geo=geo, **params)


def _with_batch_axis(w, core):
    """A weight with leading (batch) dimensions gets an axis of 1 for the input's batch N,
    so that matmul pairs its batch with the input's."""
    return w.reshape(_lead(w, core) + (1,) + w.shape[w.ndim - core:]) if w.ndim > core else w


# -- linear: bias + mat1 @ mat2 in one row ------------------------------------------------------
def _addmm_row(saves):
    return Op("AddmmBackward0", lambda b, m1, m2: rules.matmul(m1, m2) + b,
              vjp=(lambda g, y, b, m1, m2: g,             # (the walk sums it to b's shape)
                   lambda g, y, b, m1, m2: g @ m2.mT,
                   _addmm_weight_vjp),
              jvp=(lambda t, y, b, m1, m2: _spread_bias(t, b),
                   lambda t, y, b, m1, m2: t @ m2,
                   lambda t, y, b, m1, m2: m1 @ t),
              saves=saves)


def _batch_addmm(op, n, b, m1, m2):
    """Rows of a batch of mat1 against one mat2 (and one bias): folded into one product.
    Else the batch rides in front, the bias given a 1 for mat1's rows."""
    if _unbatched(m2, n) and _unbatched(b, n) and m1.ndim == n + 2:
        rows = rules.reshape(m1, shape=(-1, m1.shape[-1]))
        out = op(rules.reshape(b, shape=b.shape[n:]), rows, rules.reshape(m2, shape=m2.shape[n:]))
        return rules.reshape(out, shape=m1.shape[:-1] + out.shape[-1:])
    if b.ndim - n == 1:
        b = rules.reshape(b, shape=b.shape[:n] + (1,) + b.shape[n:])
    return op(b, m1, m2)


def _addmm_weight_vjp(g, y, b, m1, m2):
    """mat1ᵀ g; for a stack of single rows (the samples of vmap's per-sample gradients),
    outer products: nothing to sum, and a matrix product with an inner size of 1 is slow."""
    if m1.ndim > 2 and m1.shape[-2] == 1:
        return m1.mT * g
    return m1.mT @ g


def _spread_bias(t, b):
    """b's tangent, with any batch of tangents in front of the rows b is added to."""
    lead = t.ndim - b.ndim
    return rules.reshape(t, shape=t.shape[:lead] + (1,) * (2 - b.ndim) + t.shape[lead:]) if lead else t


addmm = _addmm_row((1, 2))            # the row as the table shows it
# torch saves mat1 only where mat2 gets a gradient, and mat2 only where mat1 does (so a
# frozen layer's weight may change in place before the backward): the row, saving less,
# by (mat1 requires grad, mat2 requires grad)
addmm_rows = {(True, True): addmm, (True, False): _addmm_row((2,)),
              (False, True): _addmm_row((1,)), (False, False): _addmm_row(False)}


def linear_node(b, m1, m2):
    """bias + m1 @ m2, recorded as one AddmmBackward0 node (of the addmm row that saves
    what torch saves)."""
    return addmm_rows[m1.requires_grad, m2.requires_grad](b, m1, m2)


# -- convolution ------------------------------------------------------------------------------
def _columns(x, geo, images_last=False):
    """im2col: every window of x (..., N, C, H, W) in one copy, laid out as rows -- one
    per channel and kernel position (c, i, j), each the strided slab of x that position
    reads, so the copy moves whole rows: (..., N, C*kh*kw, Ho*Wo), or with
    ``images_last`` (..., C*kh*kw, N*Ho*Wo) for the weight's gradient.  Also (Ho, Wo).
    (Any number of spatial dimensions d: the kernel's d and the outputs' d alike.)"""
    d = len(geo.kernel)
    win = windows(x, geo)                                 # (..., N, C, Ho, Wo, kh, kw)
    win = np.moveaxis(win, tuple(range(-d, 0)), tuple(range(-2 * d, -d)))   # (..., N, C, kh, kw, Ho, Wo)
    lead, (N, C), outs = win.shape[:-2 * d - 2], win.shape[-2 * d - 2:-2 * d], win.shape[-d:]
    K, HW = C * math.prod(geo.kernel), math.prod(outs)
    if images_last:
        win = np.moveaxis(win, -2 * d - 2, -d - 1)         # (..., C, kh, kw, N, Ho, Wo)
        return win.reshape(lead + (K, N * HW)), outs
    return win.reshape(lead + (N, K, HW)), outs


def _conv_forward(x, w, b=None, *, geo):
    """im2col: the weights as rows, times the windows as columns, per group."""
    d, G = len(geo.kernel), geo.groups
    O = w.shape[-d - 2]
    cols, outs = _columns(x, geo)                         # (..., N, C*kh*kw, Ho*Wo)
    *lead, N, K, HW = cols.shape
    cols = cols.reshape(*lead, N, G, K // G, HW)
    wm = w.reshape(_lead(w, d + 2) + (G, O // G, K // G))  # (..., G, O/G, C/G*kh*kw)
    out = _with_batch_axis(wm, 3) @ cols                  # (..., N, G, O/G, Ho*Wo)
    out = out.reshape(out.shape[:-3] + (O,) + outs)
    return out if b is None else out + _bias_shaped(b, d)


def _bias_shaped(b, d):
    """A bias (..., O) shaped to add to outputs (..., N, O, H, W)."""
    return b.reshape(_lead(b, 1) + (1,) * (b.ndim > 1) + b.shape[-1:] + (1,) * d)


def _conv_input_grad(g, w, *, geo):
    """d(conv)/d(input) applied to g: each output's gradient times the weights, spread
    back over the window it read.  (Also the transposed convolution's forward.)"""
    d, G = len(geo.kernel), geo.groups
    Cg, O, outs = w.shape[-d - 1], g.shape[-d - 1], g.shape[-d:]
    gm = g.reshape(g.shape[:-d - 1] + (G, O // G, math.prod(outs)))          # (..., N, G, O/G, HW)
    wm = w.reshape(_lead(w, d + 2) + (G, O // G, Cg * math.prod(geo.kernel)))   # (..., G, O/G, K)
    cols = _with_batch_axis(wm, 3).swapaxes(-1, -2) @ gm  # (..., N, G, C/G*kh*kw, HW)
    cols = cols.reshape(cols.shape[:-3] + (G * Cg,) + geo.kernel + outs)
    return spread(cols, geo, np.result_type(g, w))


def _conv_weight_grad(x, g, *, geo):
    """d(conv)/d(weight) applied to g: gradients times windows, summed over the images
    and the output positions -- one matrix product per group."""
    d, G, O = len(geo.kernel), geo.groups, g.shape[-len(geo.kernel) - 1]
    cols, _ = _columns(x, geo, images_last=True)          # (..., C*kh*kw, N*Ho*Wo)
    *lead, K, NHW = cols.shape
    cols = cols.reshape(*lead, G, K // G, NHW)
    gm = np.moveaxis(g, -d - 2, -d - 1).reshape(_lead(g, d + 2) + (G, O // G, NHW))   # (a view if N = 1)
    out = gm @ cols.swapaxes(-1, -2)                      # (..., G, O/G, C/G*kh*kw)
    out.shape = out.shape[:-3] + (O, K // G // math.prod(geo.kernel)) + geo.kernel   # (not a view: the
    return out                                                                    # walk keeps it, uncopied)


def _bias_grad(g, geo):
    d = len(geo.kernel)
    return rules.sum(g, dim=(-d - 2,) + tuple(range(-d, 0)))


def _bias_tangent(t, geo):
    return rules.reshape(t, shape=_bias_shaped(t, len(geo.kernel)).shape)


# The three rows: the convolution, and the two halves of its derivative, each bilinear,
# so that the derivative of each is made of the three (<gg, input_grad(g, w)> =
# <convolution(gg, w), g>, ...).  One set for conv1d, conv2d and conv3d: the geometry
# says how many spatial dimensions there are.
convolution = Op("ConvolutionBackward0", _conv_forward,
                 vjp=(lambda g, y, x, w, b=None, *, geo: convolution_input_grad(g, w, geo=geo),
                      lambda g, y, x, w, b=None, *, geo: convolution_weight_grad(x, g, geo=geo),
                      lambda g, y, x, w, b=None, *, geo: _bias_grad(g, geo)),
                 jvp=(lambda t, y, x, w, b=None, *, geo: convolution(t, w, None, geo=geo),
                      lambda t, y, x, w, b=None, *, geo: convolution(x, t, None, geo=geo),
                      lambda t, y, x, w, b=None, *, geo: _bias_tangent(t, geo)),
                 saves="inputs")

convolution_input_grad = Op("ConvolutionBackwardBackward0", _conv_input_grad,
                            vjp=(lambda gg, y, g, w, *, geo: convolution(gg, w, None, geo=geo),
                                 lambda gg, y, g, w, *, geo: convolution_weight_grad(gg, g, geo=geo)),
                            jvp=(lambda t, y, g, w, *, geo: convolution_input_grad(t, w, geo=geo),
                                 lambda t, y, g, w, *, geo: convolution_input_grad(g, t, geo=geo)),
                            saves="others")

convolution_weight_grad = Op("ConvolutionBackwardBackward0", _conv_weight_grad,
                             vjp=(lambda gg, y, x, g, *, geo: convolution_input_grad(g, gg, geo=geo),
                                  lambda gg, y, x, g, *, geo: convolution(x, gg, None, geo=geo)),
                             jvp=(lambda t, y, x, g, *, geo: convolution_weight_grad(t, g, geo=geo),
                                  lambda t, y, x, g, *, geo: convolution_weight_grad(x, t, geo=geo)),
                             saves="others")     # (a sum over N per sample)


# -- transposed convolution: the convolution's input gradient as a layer ----------------------
# conv_transpose2d(x, w) is d(conv2d)/d(input) applied to x: the same three bilinear maps,
# in other places.  ``geo`` is the geometry of the convolution it transposes, whose input
# is the transposed convolution's output.  output_padding adds entries after the end of
# the output that the convolution's windows do not reach: the padding after each
# dimension is padding - output_padding, negative where the output reaches beyond the
# last window (``windows`` then crops, ``spread`` leaves those entries zero).
def _conv_transpose_forward(x, w, b=None, *, geo):
    out = _conv_input_grad(x, w, geo=geo)
    return out if b is None else out + _bias_shaped(b, len(geo.kernel))


conv_transpose = Op("ConvolutionBackward0", _conv_transpose_forward,
                    vjp=(lambda g, y, x, w, b=None, *, geo: conv_transpose_input_grad(g, w, geo=geo),
                         lambda g, y, x, w, b=None, *, geo: convolution_weight_grad(g, x, geo=geo),
                         lambda g, y, x, w, b=None, *, geo: _bias_grad(g, geo)),
                    jvp=(lambda t, y, x, w, b=None, *, geo: conv_transpose(t, w, None, geo=geo),
                         lambda t, y, x, w, b=None, *, geo: conv_transpose(x, t, None, geo=geo),
                         lambda t, y, x, w, b=None, *, geo: _bias_tangent(t, geo)),
                    saves="inputs")

# its input gradient is a convolution, recorded under the name of a convolution's gradient
conv_transpose_input_grad = Op("ConvolutionBackwardBackward0", lambda g, w, *, geo: _conv_forward(g, w, geo=geo),
                               vjp=(lambda gg, y, g, w, *, geo: convolution_input_grad(gg, w, geo=geo),
                                    lambda gg, y, g, w, *, geo: convolution_weight_grad(g, gg, geo=geo)),
                               jvp=(lambda t, y, g, w, *, geo: conv_transpose_input_grad(t, w, geo=geo),
                                    lambda t, y, g, w, *, geo: conv_transpose_input_grad(g, t, geo=geo)),
                               saves="others")


# -- pooling: a linear map and its adjoint, each the other's derivative -----------------------
def linear_pair(name, forward, adjoint, saves, extras=0):
    """Rows for a map linear in its one input, ``forward(x, **params)``, and its adjoint
    ``adjoint(g, **params)`` (the VJP): each row's rules are the other row.  The adjoint's
    row takes x too, as torch's backward of a pooling does (so that a gradient recorded
    with create_graph=True depends on x, with a derivative of zeros).  ``extras``: inputs
    after x that both rows take and pass on, with no gradient (max pooling's indices:
    inputs, not parameters, so that under vmap they are batched with x)."""
    none = (None,) * extras
    there = Op(name, forward,
               vjp=(lambda g, y, x, *index, **p: back(g, x, *index, **p),) + none,
               jvp=(lambda t, y, x, *index, **p: there(t, *index, **p),) + none,
               saves=saves)
    back = Op(name.replace("Backward0", "BackwardBackward0"),
              lambda g, x, *index, **p: adjoint(g, *index, **p),
              vjp=(lambda gg, y, g, x, *index, **p: there(gg, *index, **p),
                   lambda gg, y, g, x, *index, **p: _zeros(gg)) + none,   # (y, gg and x: x's shape)
              jvp=(lambda t, y, g, x, *index, **p: back(t, x, *index, **p),
                   lambda t, y, g, x, *index, **p: _zeros(t)) + none,
              saves=tuple(range(2, 2 + extras)) or False)
    return there, back


def _zeros(like):
    data = like._data if isinstance(like, Tensor) else like
    return np.zeros(data.shape, data.dtype)


def _pick(x, index, *, size):
    """The entries of x (..., C, H, W) at ``index`` (N, C, Ho, Wo: positions h * W + w)."""
    flat, picks = x.reshape(x.shape[:-2] + (size[0] * size[1],)), index.shape[-2] * index.shape[-1]
    at = np.broadcast_to(index.reshape(index.shape[:-2] + (picks,)), flat.shape[:-1] + (picks,))
    return np.take_along_axis(flat, at, -1).reshape(x.shape[:-2] + index.shape[-2:])


def _put(g, index, *, size):
    """The adjoint of _pick: each gradient added at the entry it picked (two windows can
    pick the same entry), in an input-shaped array of zeros."""
    H, W = size
    rows = int(np.prod(g.shape[:-2]))
    per_row = g.shape[-2] * g.shape[-1]
    at = np.broadcast_to(index, g.shape).reshape(rows, per_row) + (np.arange(rows) * (H * W))[:, None]
    total = np.bincount(at.ravel(), weights=g.reshape(rows, per_row).ravel(), minlength=rows * H * W)
    return total.astype(g.dtype, copy=False).reshape(g.shape[:-2] + (H, W))


# max pooling picks the winners first (max_pool_index); this pair moves numbers and gradients
max_pool2d, max_pool2d_backward = linear_pair("MaxPool2DWithIndicesBackward0", _pick, _put, "inputs",
                                               extras=1)


def _max_pool_index(x, *, geo):
    """Where each window's maximum is, as torch's indices (h * W + w in the unpadded input):
    the first maximum in the window, or its last NaN; padding never wins.  One pass per
    kernel position, each over every window at once (an argmax along a short last axis
    would step window by window)."""
    H, W = geo.size
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min if x.dtype.kind in "iu" else False
    win = windows(x, geo, fill)                           # (..., Ho, Wo, kh, kw)
    positions = windows(np.arange(H * W).reshape(H, W), geo, -1)
    best = win[..., 0, 0]
    index = np.empty(best.shape, np.int64)
    index[...] = positions[..., 0, 0]
    for i, j in np.ndindex(*geo.kernel):
        if i or j:
            v = win[..., i, j]
            take = v > best
            if x.dtype.kind == "f":
                take |= np.isnan(v)                       # a later NaN wins (and stays)
            best = np.maximum(best, v)
            np.copyto(index, positions[..., i, j], where=take)
    if not (index < 0).any():
        return index
    positions = positions.reshape(positions.shape[:-2] + (-1,))
    first = np.take_along_axis(positions, (positions >= 0).argmax(-1)[..., None], -1)[..., 0]
    return np.where(index < 0, first, index).astype(np.int64)   # all -inf: the first real entry


# the winners, as a row with no derivative: under vmap it finds them in the whole batch at once
max_pool_index = Op("max_pool2d_indices", _max_pool_index, differentiable=False)


def _avg_forward(x, *, geo, divisor):
    total = windows(x, geo).sum((-2, -1), dtype=np.int64 if x.dtype.kind in "biu" else None)
    if x.dtype.kind in "biu":                          # integers: divided, rounded toward 0
        return (np.sign(total) * (np.abs(total) // divisor)).astype(x.dtype)
    return (total / divisor).astype(x.dtype, copy=False)


def _avg_adjoint(g, *, geo, divisor):
    share = g / divisor
    cols = np.broadcast_to(share[..., None, None, :, :], share.shape[:-2] + geo.kernel + share.shape[-2:])
    return spread(cols, geo, g.dtype)


avg_pool2d, avg_pool2d_backward = linear_pair("AvgPool2DBackward0", _avg_forward, _avg_adjoint, "inputs")


def adaptive_weights(size, out, dtype):
    """The (out, size) matrix averaging rows: row i spans floor(i size / out) to
    ceil((i + 1) size / out), as torch's adaptive pooling."""
    i = np.arange(out)
    start, end = (i * size) // out, -((-(i + 1) * size) // out)
    j = np.arange(size)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def along_axes(x, *, mats):
    """x's last ``len(mats)`` dimensions each multiplied by its matrix (mats[i]: (out, in)
    for dimension i of them): a map that acts on each dimension separately."""
    d = len(mats)
    for i, m in enumerate(mats):
        x = np.moveaxis(m @ np.moveaxis(x, i - d, -2), -2, i - d)
    return x


# adaptive average pooling is separable: each spatial dimension averaged by its matrix
adaptive_avg_pool, adaptive_avg_pool_backward = linear_pair(
    "AdaptiveAvgPool2DBackward0", along_axes,
    lambda g, *, mats: along_axes(g, mats=tuple(m.T for m in mats)),
    "inputs")
name_by_call({
    adaptive_avg_pool: lambda args, p: "AdaptiveAvgPool3DBackward0" if len(p["mats"]) == 3 else
    "AdaptiveAvgPool2DBackward0",
    adaptive_avg_pool_backward: lambda args, p: "AdaptiveAvgPool3DBackwardBackward0" if len(p["mats"]) == 3 else
    "AdaptiveAvgPool2DBackwardBackward0",
})


register(globals())
# -- their batch rules (al.vmap) ----------------------------------------------------------------
batching.register(_batch_addmm, *addmm_rows.values())
batching.register(_fold_images, convolution, convolution_input_grad, conv_transpose, conv_transpose_input_grad)
batching.register(in_front, convolution_weight_grad,     # (a sum over N per sample)
                  max_pool2d, max_pool2d_backward, avg_pool2d, avg_pool2d_backward,
                  adaptive_avg_pool, adaptive_avg_pool_backward, max_pool_index)
