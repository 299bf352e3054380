"""Rows of the rules table for nn's embedding: rows of a weight matrix looked up by index.
(They live beside ``rules.py``, built on the same :class:`~autograd_lab.core.recording.Op`.)

The lookup ``weight[indices]`` is linear in the weight; its gradient adds each looked-up
row's gradient back into the row it came from -- twice for an index met twice -- and
leaves the ``padding_idx`` row at zero.  That adding-back is a row of its own
(``EmbeddingDenseBackwardBackward0``, as torch records it under ``create_graph``), whose
own derivative is the lookup again.

``lead`` counts leading dimensions that the weight and the indices share, one weight per
entry (under ``al.vmap`` with a batch of weights: each sample looks up in its own); a
gradient may also carry a batch of seeds in front of everything.
"""
import math

import numpy as np

from .. import batching
from ..core.recording import Op, register
from ..core.rules import reshape, where
from ..core.tensor import Tensor


def _array(a):
    return a._data if isinstance(a, Tensor) else a


def _lookup_forward(weight, indices, *, padding_idx=None, scale_grad_by_freq=False, lead=0):
    """weight[..., indices, :], each of the ``lead`` leading entries in its own weight."""
    if not lead:
        return weight[indices]
    ranges = tuple(np.arange(n).reshape((n,) + (1,) * (indices.ndim - 1 - i))
                   for i, n in enumerate(indices.shape[:lead]))
    return weight[ranges + (indices,)]


def _row_counts(indices, lead, num_weights):
    """How often each index occurs among those sharing a weight: (leading..., indices)."""
    flat = indices.reshape(math.prod(indices.shape[:lead]), -1)
    counts = np.zeros((flat.shape[0], num_weights), np.int64)
    np.add.at(counts, (np.arange(flat.shape[0])[:, None], flat), 1)
    return np.take_along_axis(counts, flat, 1).reshape(indices.shape)


def _gradient_forward(g, indices, *, num_weights, padding_idx=None, scale_grad_by_freq=False, lead=0):
    """Each looked-up row's gradient added into a (leading..., num_weights, dim) array of
    zeros, g carrying any batch of seeds in front."""
    indices = _array(indices)
    dim = g.shape[-1]
    shared, seeds = indices.shape[:lead], g.shape[:g.ndim - indices.ndim - 1]
    flat = indices.reshape(math.prod(shared), -1)                   # (weights, indices each)
    values = g.reshape((math.prod(seeds),) + flat.shape + (dim,))
    if scale_grad_by_freq:
        values = values / _row_counts(indices, lead, num_weights).reshape(flat.shape + (1,))
    if padding_idx is not None:
        values = np.where((flat != padding_idx)[..., None], values, np.zeros((), g.dtype))
    # the row of the flat (seeds * weights * num_weights, dim) result each entry adds into
    rows = (np.arange(values.shape[0])[:, None, None] * flat.shape[0] + np.arange(flat.shape[0])[:, None]) \
        * num_weights + flat
    out = np.zeros((values.shape[0] * flat.shape[0] * num_weights, dim), g.dtype)
    np.add.at(out, rows.reshape(-1), values.reshape(-1, dim))
    return out.reshape(seeds + shared + (num_weights, dim))


def _seeded_lookup(gg, indices, lead):
    """lookup with a batch of seeds in front of gg (each seed looks up the same indices)."""
    extra = gg.ndim - 2 - lead
    if not extra:
        return lookup(gg, indices, lead=lead)
    idx = _array(indices)
    return lookup(gg, np.broadcast_to(idx, gg.shape[:extra] + idx.shape), lead=lead + extra)


lookup_gradient = Op("EmbeddingDenseBackwardBackward0", _gradient_forward,
                     vjp=(lambda gg, y, g, indices, *, num_weights, padding_idx=None, scale_grad_by_freq=False,
                          lead=0: _masked(_seeded_lookup(gg, indices, lead), indices, padding_idx, lead),
                          None),
                     jvp=(lambda t, y, g, indices, *, num_weights, padding_idx=None, scale_grad_by_freq=False,
                          lead=0: lookup_gradient(t, indices, num_weights=num_weights, padding_idx=padding_idx,
                                                  scale_grad_by_freq=scale_grad_by_freq, lead=lead),
                          None),
                     saves=(1,))


def _masked(out, indices, padding_idx, lead):
    """A lookup's entries zero at the padding index.  (With scale_grad_by_freq the adding-
    back divided each entry by its index's count, and its exact derivative would divide
    again; torch's does not -- its double backward ignores the counts -- and autograd_lab
    gives torch's numbers.)"""
    idx = _array(indices)
    if padding_idx is not None:
        out = where(np.expand_dims(idx == padding_idx, -1), 0.0, out)
    return out


lookup = Op("EmbeddingBackward0", _lookup_forward,
            vjp=(lambda g, y, weight, indices, *, padding_idx=None, scale_grad_by_freq=False, lead=0:
                 lookup_gradient(g, indices, num_weights=weight.shape[-2], padding_idx=padding_idx,
                                 scale_grad_by_freq=scale_grad_by_freq, lead=lead),
                 None),
            jvp=(lambda t, y, weight, indices, *, padding_idx=None, scale_grad_by_freq=False, lead=0:
                 _seeded_lookup(t, indices, lead),
                 None),
            saves=(1,))


def _batch_lookup(op, n, weight, indices, *, padding_idx=None, scale_grad_by_freq=False, lead=0):
    """One weight for the whole batch: the batch of indices looks up in it at once.  A
    batch of weights (or counts kept per sample, for scale_grad_by_freq): each sample
    looks up in its own weight, the batch counted in ``lead``."""
    if not lead and not scale_grad_by_freq and all(s == 1 for s in weight.shape[:n]):
        return op(reshape(weight, shape=weight.shape[n:]), indices, padding_idx=padding_idx)
    weight, indices = batching.full(n, weight, indices)
    return op(weight, indices, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq, lead=lead + n)


register(globals())
batching.register(_batch_lookup, lookup)
