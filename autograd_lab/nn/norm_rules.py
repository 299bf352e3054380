"""Rows of the rules table for nn's normalization layers: batch norm, layer norm and group
norm.  (They live beside ``rules.py``, built on the same :class:`~autograd_lab.core.recording.Op`.)

Each normalizes ``x`` over some dimensions -- to mean 0 and variance 1, with
``xhat = (x - mean) / sqrt(var + eps)`` -- then scales and shifts it by a weight and a
bias.  Only the dimensions differ: batch norm averages over the batch and the positions
(one mean per channel), layer norm over the last dimensions of each sample, group norm
over each group of channels of each sample.  Their rules share one fact: the derivative
of ``xhat`` applied to a change ``v`` is

    invstd * (v - mean(v) - xhat * mean(v * xhat))          (means over the same dims)

-- what :func:`_project` computes -- and it is its own adjoint, so it serves the VJP and
the JVP.  The rules are written with the table's rows (mean, rsqrt, reshape, ...), so a
second derivative differentiates them as recorded (torch's second-order nodes have other
names: NativeBatchNormBackwardBackward0 and the like; the numbers agree).

Dimensions are counted from the end, and a per-channel weight is reshaped behind its own
leading dimensions: a gradient may carry a batch of seeds in front, and under ``al.vmap``
every input its batch dimensions, so each row batches by running once on the whole batch
(each sample keeps its own statistics, as torch's vmap computes them).
"""
from .. import batching
from ..more_rules import rsqrt
from ..core.recording import Op, register
from ..core.rules import mean, reshape, sum
from .layer_rules import in_front


# -- what the three rows share -----------------------------------------------------------------
def _normalized(x, dims, eps):
    """(xhat, invstd): x less its mean over ``dims``, times 1 / sqrt(biased variance + eps)."""
    centered = x - mean(x, dim=dims, keepdim=True)
    invstd = rsqrt(mean(centered * centered, dim=dims, keepdim=True) + eps)
    return centered * invstd, invstd


def _project(v, xhat, invstd, dims):
    """The derivative of xhat (over ``dims``) applied to the change v."""
    return invstd * (v - mean(v, dim=dims, keepdim=True) - xhat * mean(v * xhat, dim=dims, keepdim=True))


def _channel(v, ndim):
    """A per-channel vector (its leading dims, then C) shaped to broadcast over x of
    ``ndim`` dims (N, C, ...): 1 for N, C, then 1 per position dimension."""
    return reshape(v, shape=v.shape[:-1] + (1, v.shape[-1]) + (1,) * (ndim - 2))


def _spatial_dims(ndim):
    """Every dimension of (N, C, ...) but the channels', counted from the end."""
    return (-ndim,) + tuple(range(-(ndim - 2), 0))


def _scaled(g, w, shape):
    return g if w is None else g * shape(w)


# -- batch norm: one mean and variance per channel, over the batch and the positions ----------
def _batch_stats(x, rmean, rvar, training, ndim, eps):
    """(xhat, invstd) from the batch's statistics (training) or the running ones."""
    if training:
        return _normalized(x, _spatial_dims(ndim), eps)
    invstd = rsqrt(_channel(rvar, ndim) + eps)
    return (x - _channel(rmean, ndim)) * invstd, invstd


def _affine(xhat, w, b, shape):
    y = _scaled(xhat, w, shape)
    return y if b is None else y + shape(b)


def _batch_norm_forward(x, w, b, rmean, rvar, *, training, ndim, eps):
    xhat, _ = _batch_stats(x, rmean, rvar, training, ndim, eps)
    return _affine(xhat, w, b, lambda v: _channel(v, ndim))


def _batch_norm_x(g, x, w, rmean, rvar, training, ndim, eps):
    """The change of the output per change of x, applied to g (a gradient or a tangent)."""
    xhat, invstd = _batch_stats(x, rmean, rvar, training, ndim, eps)
    gw = _scaled(g, w, lambda v: _channel(v, ndim))
    return _project(gw, xhat, invstd, _spatial_dims(ndim)) if training else gw * invstd


def _batch_norm_weight(g, x, rmean, rvar, training, ndim, eps):
    xhat, _ = _batch_stats(x, rmean, rvar, training, ndim, eps)
    return sum(g * xhat, dim=_spatial_dims(ndim))


def _batch_norm_weight_tangent(t, x, rmean, rvar, training, ndim, eps):
    xhat, _ = _batch_stats(x, rmean, rvar, training, ndim, eps)
    return _channel(t, ndim) * xhat


# The running statistics are inputs (no gradient): under vmap they may be batched, as a
# functional_call's buffers are.
batch_norm = Op("NativeBatchNormBackward0", _batch_norm_forward,
                vjp=(lambda g, y, x, w, b, rm, rv, *, training, ndim, eps:
                     _batch_norm_x(g, x, w, rm, rv, training, ndim, eps),
                     lambda g, y, x, w, b, rm, rv, *, training, ndim, eps:
                     _batch_norm_weight(g, x, rm, rv, training, ndim, eps),
                     lambda g, y, x, w, b, rm, rv, *, training, ndim, eps: sum(g, dim=_spatial_dims(ndim)),
                     None, None),
                jvp=(lambda t, y, x, w, b, rm, rv, *, training, ndim, eps:
                     _batch_norm_x(t, x, w, rm, rv, training, ndim, eps),
                     lambda t, y, x, w, b, rm, rv, *, training, ndim, eps:
                     _batch_norm_weight_tangent(t, x, rm, rv, training, ndim, eps),
                     lambda t, y, x, w, b, rm, rv, *, training, ndim, eps: _channel(t, ndim),
                     None, None),
                saves="inputs")


# -- layer norm: each sample over its last k dimensions; weight and bias of those dims' shape --
def _trailing(v, ndim, k):
    """An element-wise weight (its leading dims, then the normalized shape) shaped to
    broadcast over x of ``ndim`` dims."""
    lead = v.shape[:v.ndim - k]
    return reshape(v, shape=lead + (1,) * (ndim - k) + v.shape[v.ndim - k:])


def _layer_dims(k):
    return tuple(range(-k, 0))


def _leading_dims(ndim, k):
    return tuple(range(-ndim, -k))


def _layer_norm_forward(x, w, b, *, k, ndim, eps):
    xhat, _ = _normalized(x, _layer_dims(k), eps)
    return _affine(xhat, w, b, lambda v: _trailing(v, ndim, k))


def _layer_norm_x(g, x, w, k, ndim, eps):
    xhat, invstd = _normalized(x, _layer_dims(k), eps)
    return _project(_scaled(g, w, lambda v: _trailing(v, ndim, k)), xhat, invstd, _layer_dims(k))


def _layer_norm_x_tangent(t, x, w, k, ndim, eps):
    xhat, invstd = _normalized(x, _layer_dims(k), eps)
    return _scaled(_project(t, xhat, invstd, _layer_dims(k)), w, lambda v: _trailing(v, ndim, k))


def _over_samples(a, ndim, k):
    """A gradient of x's shape summed over the dimensions the weight does not have."""
    dims = _leading_dims(ndim, k)
    return sum(a, dim=dims) if dims else a


layer_norm = Op("NativeLayerNormBackward0", _layer_norm_forward,
                vjp=(lambda g, y, x, w, b, *, k, ndim, eps: _layer_norm_x(g, x, w, k, ndim, eps),
                     lambda g, y, x, w, b, *, k, ndim, eps:
                     _over_samples(g * _normalized(x, _layer_dims(k), eps)[0], ndim, k),
                     lambda g, y, x, w, b, *, k, ndim, eps: _over_samples(g, ndim, k)),
                jvp=(lambda t, y, x, w, b, *, k, ndim, eps: _layer_norm_x_tangent(t, x, w, k, ndim, eps),
                     lambda t, y, x, w, b, *, k, ndim, eps:
                     _trailing(t, ndim, k) * _normalized(x, _layer_dims(k), eps)[0],
                     lambda t, y, x, w, b, *, k, ndim, eps: _trailing(t, ndim, k)),
                saves="inputs")


# -- group norm: each sample's channels in groups, each group over its channels and positions --
def _grouped(a, groups, ndim):
    """x-shaped ``a`` (its leading dims, then N, C, ...) as (leading dims, N, groups, rest)."""
    lead = a.shape[:a.ndim - ndim]
    return reshape(a, shape=lead + (a.shape[a.ndim - ndim], groups, -1))


def _group_stats(x, groups, ndim, eps):
    """(xhat in groups, invstd, xhat in x's shape)."""
    xhat, invstd = _normalized(_grouped(x, groups, ndim), (-1,), eps)
    return xhat, invstd, reshape(xhat, shape=x.shape)


def _group_norm_forward(x, w, b, *, groups, ndim, eps):
    return _affine(_group_stats(x, groups, ndim, eps)[2], w, b, lambda v: _channel(v, ndim))


def _group_norm_x(g, x, w, groups, ndim, eps, tangent=False):
    xhat, invstd, _ = _group_stats(x, groups, ndim, eps)
    per_channel = lambda v: _channel(v, ndim)                 # noqa: E731
    v = g if tangent else _scaled(g, w, per_channel)
    out = reshape(_project(_grouped(v, groups, ndim), xhat, invstd, (-1,)), shape=g.shape)
    return _scaled(out, w, per_channel) if tangent else out


group_norm = Op("NativeGroupNormBackward0", _group_norm_forward,
                vjp=(lambda g, y, x, w, b, *, groups, ndim, eps: _group_norm_x(g, x, w, groups, ndim, eps),
                     lambda g, y, x, w, b, *, groups, ndim, eps:
                     sum(g * _group_stats(x, groups, ndim, eps)[2], dim=_spatial_dims(ndim)),
                     lambda g, y, x, w, b, *, groups, ndim, eps: sum(g, dim=_spatial_dims(ndim))),
                jvp=(lambda t, y, x, w, b, *, groups, ndim, eps:
                     _group_norm_x(t, x, w, groups, ndim, eps, tangent=True),
                     lambda t, y, x, w, b, *, groups, ndim, eps:
                     _channel(t, ndim) * _group_stats(x, groups, ndim, eps)[2],
                     lambda t, y, x, w, b, *, groups, ndim, eps: _channel(t, ndim)),
                saves="inputs")


register(globals())
# -- their batch rules (al.vmap): statistics over dimensions counted from the end, weights
# shaped behind their own leading dimensions: the rows run once, the batch in front
batching.register(in_front, batch_norm, layer_norm, group_norm)
