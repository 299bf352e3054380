"""Rows of the rules table for torch's tensor functions beyond the book's story.

softmax and log_softmax, clamp_min/clamp_max, rsqrt, any and all, gather and sort,
index_select, split, narrow, repeat, contiguous and the diagonals of al.diag.  (They live beside
``rules.py``, built on the same :class:`~autograd_lab.core.recording.Op` and written with its
operations, so they read, record and differentiate twice as its rows do.)

Each row has a batch rule for ``al.vmap``, registered at the end of this module in
``batching.py``'s table: the rules read their dimensions from the end, or move them
behind the batch dimensions, so a row runs once on a whole batch.
"""
import numpy as np

from . import batching
from .batching import batch_rule, broadcast, reduction
from .core.recording import Op, name_by_call, register
from .core.rules import (clamp_tensor, clone, exp, expand, index, index_forward, max_dim, reshape, scatter,
                    sum, symmetric, where)
from .core.tensor import Tensor


# -- softmax: one row each, as in torch ---------------------------------------------------
def _softmax_forward(x, dim):
    if x.size == 0:                   # nothing to compute (an empty dimension has no maximum)
        return np.array(x)
    e = np.exp(x - np.amax(x, axis=dim, keepdims=True))   # shifted by the maximum: no overflow
    return e / np.sum(e, axis=dim, keepdims=True)


def _log_softmax_forward(x, dim):
    if x.size == 0:
        return np.array(x)
    shifted = x - np.amax(x, axis=dim, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))


# the rules read the output (so writing into it in place is refused at the backward);
# ``dim`` is a tuple of one negative dimension, or () for a 0-d tensor: batch-safe as it is
softmax = Op("SoftmaxBackward0", _softmax_forward,
             **symmetric(lambda g, y, x, dim: y * (g - sum(g * y, dim, True))),
             saves="output")

log_softmax = Op("LogSoftmaxBackward0", _log_softmax_forward,
                 vjp=(lambda g, y, x, dim: g - exp(y) * sum(g, dim, True),),
                 jvp=(lambda t, y, x, dim: t - sum(t * exp(y), dim, True),),
                 saves="output")


# -- one-sided clamps, and rsqrt ----------------------------------------------------------
# x.clamp_min(tensor), x.clamp_max(tensor): clamp's rules with tensor bounds, under
# torch's names for them
clamp_min_tensor = Op("ClampMinBackward1", clamp_tensor.forward, vjp=clamp_tensor.vjp, jvp=clamp_tensor.jvp,
                      promote=True, saves="inputs")
clamp_max_tensor = Op("ClampMaxBackward1", clamp_tensor.forward, vjp=clamp_tensor.vjp, jvp=clamp_tensor.jvp,
                      promote=True, saves="inputs")

clamp_min = Op("ClampMinBackward0", lambda x, min: np.maximum(x, min),
               **symmetric(lambda g, y, x, min: where(x >= min, g, 0.0)),
               saves="inputs")

clamp_max = Op("ClampMaxBackward0", lambda x, max: np.minimum(x, max),
               **symmetric(lambda g, y, x, max: where(x <= max, g, 0.0)),
               saves="inputs")

rsqrt = Op("RsqrtBackward0", lambda x: 1 / np.sqrt(x),
           **symmetric(lambda g, y, x: -0.5 * g * y * y * y),
           floating=True, saves="output")


# -- any and all: truth over dimensions, never differentiable ------------------------------
def _truth(reduce):
    """any / all: bool results (uint8 for a uint8 input, as in torch)."""
    def forward(x, dim=None, keepdim=False):
        axis = tuple(dim) if isinstance(dim, (list, tuple)) else dim
        out = reduce(x, axis=axis, keepdims=keepdim)
        return np.asarray(out, np.uint8 if x.dtype == np.uint8 else np.bool_)
    return forward


any_ = Op("any", _truth(np.any), differentiable=False)
all_ = Op("all", _truth(np.all), differentiable=False)


# -- values picked along a dimension: gather and sort --------------------------------------
def along_key(index, axis, shape=None):
    """The index that picks, along ``axis``, the entries ``index`` (integers) names:
    one array per dimension of ``shape`` (index's own by default), the others counting 0,
    1, ... (x.gather's, x.sort's, x.max(dim)'s; under vmap the index may carry the batch
    dims in front, and the counting arrays, right-aligned, broadcast against them)."""
    index = index._data if isinstance(index, Tensor) else index    # (a rule's, when recorded)
    shape = index.shape if shape is None else shape
    return tuple(index if a == axis else np.arange(n).reshape([-1 if b == a else 1 for b in range(len(shape))])
                 for a, n in enumerate(shape))


def _batch_gather(op, n, x, idx, dim):
    """Both inputs get every batch dimension; then it is one gather along the same
    dimension behind them (entry i of a batch dimension takes its index from sample i)."""
    sizes = np.broadcast_shapes(x.shape[:n], idx.shape[:n])
    x, idx = (a if a.shape[:n] == sizes else expand(a, shape=sizes + a.shape[n:]) for a in (x, idx))
    return op(x, idx, dim=dim + n)


# x.gather(dim, index): the index is an input (never differentiated) that torch saves with
# x: so a second backward is refused, and so is a backward after either was written in
# place.  The gradient goes back to the entries picked, added up where one is picked twice.
gather = Op("GatherBackward0", lambda x, idx, dim: x[along_key(idx, dim)],
            vjp=(lambda g, y, x, idx, dim:
                 scatter(g, shape=x.shape, key=along_key(idx, dim), lead=g.ndim - y.ndim),
                 None),
            jvp=(lambda t, y, x, idx, dim:
                 index(t, key=along_key(idx, dim), lead=t.ndim - x.ndim),
                 None),
            saves="inputs")

# x.sort(dim): the values at the order argsort found (``key``, built by along_key); the
# rules are x.max(dim)'s, and so is the batch rule: the order carries the batch dims in
# front, and the batch dims get a range each.  (torch saves the order: a second backward
# is refused, as there.)
sort = Op("SortBackward0", lambda x, key, dim, keepdim, stable=False: max_dim.forward(x, key, dim, keepdim),
          vjp=(lambda g, y, x, key, dim, keepdim, stable=False: max_dim.vjp[0](g, y, x, key, dim, keepdim),),
          jvp=(lambda t, y, x, key, dim, keepdim, stable=False: max_dim.jvp[0](t, y, x, key, dim, keepdim),),
          saves="index")


# -- index's rules under torch's other names ----------------------------------------------
# x.contiguous() of a tensor that is not: a copy laid out row by row (clone keeps the layout)
contiguous = Op("CloneBackward0", lambda x: np.array(x, order="C"), vjp=clone.vjp, jvp=clone.jvp, saves=False)

# x.index_select(dim, i), x.split(n), x.chunk(n), x.narrow(...)
index_select = Op("IndexSelectBackward0", index_forward, vjp=index.vjp, jvp=index.jvp, saves="index")
split = Op("SplitBackward0", lambda x, key, lead=0, sizes=False: index_forward(x, key, lead),
           vjp=(lambda g, y, x, key, lead=0, sizes=False: index.vjp[0](g, y, x, key, lead),),
           jvp=(lambda t, y, x, key, lead=0, sizes=False: index.jvp[0](t, y, x, key, lead),),
           saves=False)
narrow = Op("SliceBackward0", index_forward, vjp=index.vjp, jvp=index.jvp, saves=False)


# -- repeat: copies of x side by side ------------------------------------------------------
def _repeat_forward(x, repeats):
    return np.tile(x, repeats)


def _repeat_vjp(g, y, x, repeats):
    """Each entry of x was copied once per repeat: add up its copies.  g's trailing
    dimensions are split into (repeats, size) pairs, and the repeats summed away."""
    lead = g.shape[:g.ndim - y.ndim]
    sizes = (1,) * (len(repeats) - x.ndim) + tuple(x.shape)
    pairs = tuple(n for r, s in zip(repeats, sizes) for n in (r, s))
    split = reshape(g, lead + pairs)
    summed = sum(split, tuple(range(-2 * len(repeats), 0, 2)), False)
    return reshape(summed, lead + tuple(x.shape))


def _repeat_forward_batched(t, x, repeats):
    """repeat of a tangent that may carry a batch in front: the batch repeated once."""
    lead = t.ndim - x.ndim
    sizes = (1,) * (len(repeats) - x.ndim) + tuple(x.shape)
    t = reshape(t, t.shape[:lead] + sizes)
    return repeat(t, (1,) * lead + tuple(repeats))


def _batch_repeat(op, n, x, repeats):
    """The sample padded with 1s to as many dims as repeats (behind the batch dims, where
    np.tile would put them in front), and the batch dims repeated once."""
    x = reshape(x, shape=x.shape[:n] + (1,) * (len(repeats) + n - x.ndim) + x.shape[n:])
    return op(x, repeats=(1,) * n + tuple(repeats))


repeat = Op("RepeatBackward0", _repeat_forward,
            vjp=(_repeat_vjp,),
            jvp=(lambda t, y, x, repeats: _repeat_forward_batched(t, x, repeats),),
            saves=False)


# -- diagonals: al.diag puts a vector on a diagonal, or takes a matrix's diagonal ----------
def _on_diagonal(shape, offset):
    """(rows, cols) of the entries on diagonal ``offset`` of a matrix of ``shape``
    (above the main one for offset > 0); none if the offset is off the matrix."""
    r, c = shape
    k = max(0, min(r - max(-offset, 0), c - max(offset, 0)))
    return np.arange(k) + max(-offset, 0), np.arange(k) + max(offset, 0)


def _diag_put_forward(v, offset, shape):
    """A matrix of ``shape`` (per leading index), zero but for ``v`` on diagonal ``offset``."""
    out = np.zeros(v.shape[:-1] + tuple(shape), v.dtype)
    out[(Ellipsis,) + _on_diagonal(shape, offset)] = v
    return out


def _diag_take_forward(x, offset):
    """Diagonal ``offset`` of the last two dimensions of x, as a new array."""
    return x[(Ellipsis,) + _on_diagonal(x.shape[-2:], offset)]


# each is the other's VJP; both read the last dimensions only, so a batch of seeds or
# tangents in front rides along, and so does vmap's batch: the batch rule is the op itself
diag_put = Op("DiagEmbedBackward0", _diag_put_forward,
              vjp=(lambda g, y, v, offset, shape: diag_take(g, offset=offset),),
              jvp=(lambda t, y, v, offset, shape: diag_put(t, offset=offset, shape=shape),),
              saves=False)
diag_take = Op("DiagonalBackward0_copy", _diag_take_forward,
               vjp=(lambda g, y, x, offset: diag_put(g, offset=offset, shape=x.shape[-2:]),),
               jvp=(lambda t, y, x, offset: diag_take(t, offset=offset),),
               saves=False)


name_by_call({
    sort: lambda args, p: "SortBackward1" if p.get("stable") else "SortBackward0",
    split: lambda args, p: "SplitWithSizesBackward0" if p.get("sizes") else "SplitBackward0",
})
register(globals())
# -- their batch rules (al.vmap) -----------------------------------------------------------
# (softmax's ``dim`` is a tuple of one negative dimension, or () for a 0-d tensor: batch-safe
# as it is, and so are the diagonals' rules, which read the last dimensions only)
batching.register(broadcast, clamp_min_tensor, clamp_max_tensor, clamp_min, clamp_max, rsqrt, contiguous)
batching.register(reduction, any_, all_)
batching.register(lambda op, n, x, dim: op(x, dim=dim), softmax, log_softmax)
batching.register(_batch_gather, gather)
batching.register(batch_rule(max_dim), sort)
batching.register(batch_rule(index), index_select, narrow)
batching.register(lambda op, n, x, key, lead=0, sizes=False: op(x, key=key, lead=lead + n, sizes=sizes), split)
batching.register(_batch_repeat, repeat)
batching.register(lambda op, n, v, offset, shape: op(v, offset=offset, shape=shape), diag_put)
batching.register(lambda op, n, x, offset: op(x, offset=offset), diag_take)
