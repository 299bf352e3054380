"""Rows of the rules table for picking and placing entries by index: the k largest
(topk), the entries a mask selects (masked_select), writing into the places an index
names (scatter, scatter_add, index_put with accumulate=True), sliding windows (unfold),
and the rows torch records without a derivative (unique, a scatter that reduces).

A place is named as in ``more_rules.along_key``: an index tensor says, along one
dimension, where each of its entries goes; the other dimensions count 0, 1, ...  The
rules move gradients back along the same places: what a write put somewhere gets the
gradient from there, and what it wrote over gets none.  The al.* functions and Tensor
methods that call these rows, with torch's checks, are ``index_functions.py``.
"""
import numpy as np

from . import batching
from .math_rules import refused
from .more_rules import along_key
from .core.recording import Op, register
from .core.tensor import Tensor
from .core.rules import expand, index, index_put, max_dim, scatter, sum, unsqueeze


# -- topk: the k largest (or smallest) along a dimension -------------------------------------
# the values at the places the method found (``key``, built by along_key); x.max(dim)'s
# rules, as x.sort's (more_rules.py), under torch's name
topk = Op("TopkBackward0", max_dim.forward, vjp=max_dim.vjp, jvp=max_dim.jvp, saves="index")


# -- masked_select: the entries where a mask holds, as one vector ------------------------------
def _masked_select_forward(x, key, shape):
    return np.broadcast_to(x, shape)[key]


masked_select = Op("MaskedSelectBackward0", _masked_select_forward,
                   vjp=(lambda g, y, x, key, shape: scatter(g, shape=shape, key=key, lead=g.ndim - y.ndim),),
                   jvp=(lambda t, y, x, key, shape:
                        index(expand.jvp[0](t, None, x, shape), key=key, lead=t.ndim - x.ndim),),
                   saves="index")


# -- scatter: x with the entries of src (or one value) written at the places index names -------
def _zeros(shape, like):
    """Zeros of ``shape`` in the dtype of ``like`` (an array, or a tensor under nested
    forward mode); they depend on nothing, so they are never recorded."""
    return np.zeros(shape, (like._data if isinstance(like, Tensor) else like).dtype)


def _region(src, idx):
    """The part of src a scatter reads: its first idx.shape entries (src may be larger)."""
    if tuple(src.shape[src.ndim - idx.ndim:]) == idx.shape:
        return src
    return index(src, key=(Ellipsis,) + tuple(slice(0, k) for k in idx.shape))


def _scatter_write(x, src, idx, dim):
    out = np.array(x)
    out[along_key(idx, dim)] = _region(src, idx)
    return out


def _places(g, y, idx, dim):
    """(key, lead) that index a gradient (perhaps a batch of them, in front) at idx's places."""
    return dict(key=along_key(idx, dim), lead=g.ndim - y.ndim)


def _written_over(g, y, idx, dim):
    """x's share of a scatter's gradient (or tangent): g, but none where it wrote over x."""
    return index_put(g, 0.0, **_places(g, y, idx, dim))


scatter_src = Op("ScatterBackward0", _scatter_write,
                 vjp=(lambda g, y, x, src, idx, dim: _written_over(g, y, idx, dim),
                      lambda g, y, x, src, idx, dim: index(g, **_places(g, y, idx, dim))),
                 jvp=(lambda t, y, x, src, idx, dim: _written_over(t, x, idx, dim),
                      lambda t, y, x, src, idx, dim:
                      index_put(_zeros(t.shape[:t.ndim - src.ndim] + y.shape, y), _region(t, idx),
                                key=along_key(idx, dim), lead=t.ndim - src.ndim)),
                 saves="index")


def _scatter_value(x, value, idx, dim):
    out = np.array(x)
    out[along_key(idx, dim)] = value
    return out


scatter_value = Op("ScatterBackward1", _scatter_value,
                   vjp=(lambda g, y, x, value, idx, dim: _written_over(g, y, idx, dim),),
                   jvp=(lambda t, y, x, value, idx, dim: _written_over(t, x, idx, dim),),
                   saves="index")


# -- adding at places: scatter_add, and x.index_put_(indices, v, accumulate=True) ----------------
def _add_at(x, values, key, lead=0):
    """x plus ``values`` added at ``key`` (a place named twice gets both); after ``lead``
    batch dimensions, which the values carry in front too."""
    region = index.forward(x, key, lead).shape
    if lead and np.ndim(values):      # the values' own dims, right-aligned behind the batch
        values = np.reshape(values, np.shape(values)[:lead] + (1,) * (len(region) - np.ndim(values)) +
                            np.shape(values)[lead:])
    return x + scatter.forward(np.broadcast_to(values, region), x.shape[lead:], key, lead)


# the gradient of x is g; that of the values, g read at their places (summed back to the
# values' shape where they were broadcast); the values' tangent is added at their places
index_put_accumulate = Op(
    "IndexPutBackward0", _add_at,
    vjp=(lambda g, y, x, values, key, lead=0: g,
         lambda g, y, x, values, key, lead=0: index(g, key=key, lead=g.ndim - y.ndim + lead)),
    jvp=(lambda t, y, x, values, key, lead=0: t,
         lambda t, y, x, values, key, lead=0:
         index_put_accumulate(_zeros(t.shape[:t.ndim - np.ndim(values)] + y.shape, y), t, key=key,
                              lead=t.ndim - np.ndim(values) + lead)),
    saves="index")

scatter_add = Op("ScatterAddBackward0",
                 lambda x, src, idx, dim: _add_at(x, _region(src, idx), along_key(idx, dim)),
                 vjp=(lambda g, y, x, src, idx, dim: g,
                      lambda g, y, x, src, idx, dim: index(g, **_places(g, y, idx, dim))),
                 jvp=(lambda t, y, x, src, idx, dim: t,
                      lambda t, y, x, src, idx, dim:
                      scatter(_region(t, idx), shape=y.shape, key=along_key(idx, dim), lead=t.ndim - src.ndim)),
                 saves="index")


# -- unfold: every window of ``size`` entries along a dimension, ``step`` apart ----------------
def window_key(shape, dim, size, step):
    """The index that reads x.unfold(dim, size, step) from x of ``shape`` (dim negative):
    one array per dimension of x, shaped for the result (the windows along dim, the
    entries of each window in a new last dimension)."""
    n = len(shape)
    windows = (shape[dim] - size) // step + 1
    out_ndim = n + 1
    key = []
    for a in range(n):
        if a == n + dim:
            w = np.arange(windows).reshape([-1 if b == a else 1 for b in range(out_ndim)])
            k = np.arange(size).reshape([1] * n + [-1])
            key.append(w * step + k)
        else:
            key.append(np.arange(shape[a]).reshape([-1 if b == a else 1 for b in range(out_ndim)]))
    return tuple(key)


def _unfold_forward(x, dim, size, step):
    """The windows as a view of x, as torch's (writable where windows do not overlap); of
    a number (dim None), the number itself, or nothing."""
    if dim is None:
        return x[..., None][..., :size]
    d = x.ndim + dim
    shape = x.shape[:d] + ((x.shape[d] - size) // step + 1,) + x.shape[d + 1:] + (size,)
    strides = x.strides[:d] + (x.strides[d] * step,) + x.strides[d + 1:] + (x.strides[d],)
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=step >= size and x.flags.writeable)


def _unfold_vjp(g, y, x, dim, size, step):
    if dim is None:
        return sum(g, -1)
    return scatter(g, shape=x.shape, key=window_key(x.shape, dim, size, step), lead=g.ndim - y.ndim)


def _unfold_jvp(t, y, x, dim, size, step):
    if dim is None:
        return index(unsqueeze(t, -1), key=(Ellipsis, slice(0, size)))
    return index(t, key=window_key(x.shape, dim, size, step), lead=t.ndim - x.ndim)


unfold = Op("UnfoldBackward0", _unfold_forward, vjp=(_unfold_vjp,), jvp=(_unfold_jvp,), saves=False)


# -- rows torch records without a derivative ----------------------------------------------------
_UNIQUE = refused(lambda p: f"the derivative for '{p['kernel']}' is not implemented.",
                   lambda p: f"Trying to use forward AD with {p['kernel']} that does not support it because "
                             "it has not been implemented yet.", NotImplementedError)
# torch.unique: the values were found by the method (np.unique); the node only records them
unique = Op("Unique2Backward0", lambda x, values, kernel: values, vjp=(_UNIQUE[0],), jvp=(_UNIQUE[1],),
            saves=False)
unique_dim = Op("UniqueDimBackward0", unique.forward, vjp=unique.vjp, jvp=unique.jvp, saves=False)


def _reduce_into(x, src, idx, dim, reduce, inplace=False):
    """x with src (or a number) added into, or multiplied into, the places idx names."""
    out = np.array(x)
    at = np.add.at if reduce == "add" else np.multiply.at
    at(out, along_key(idx, dim), _region(src, idx) if np.ndim(src) else src)
    return out


_SCATTER = refused(lambda p: f"derivative for aten::scatter{'_' if p.get('inplace') else ''} is not implemented",
                    lambda p: f"Trying to use forward AD with aten::scatter{'_' if p.get('inplace') else ''} "
                              "that does not support it.")
# scatter with reduce= (the old way to add or multiply into places): NotImplemented, as torch
scatter_reduce = Op("torch::autograd::NotImplemented", _reduce_into, vjp=(_SCATTER[0], _SCATTER[0]), jvp=(_SCATTER[1], _SCATTER[1]),
                    saves=False)


register(globals())


# -- their batch rules (al.vmap) ------------------------------------------------------------------
def _batch_along(op, n, x, *rest, idx, dim, **params):
    """The scatter rows: x (and src) get every batch dimension, and so does the index (an
    array parameter: with the batch dimensions in front if it was batched, else none);
    then it is one scatter along the same dimension behind them."""
    if idx.ndim == x.ndim - n:
        idx = idx.reshape((1,) * n + idx.shape)
    tensors = [a for a in (x, *rest) if hasattr(a, "shape") and np.ndim(a)]
    sizes = np.broadcast_shapes(idx.shape[:n], *[a.shape[:n] for a in tensors])
    x, *rest = [a if not (hasattr(a, "shape") and np.ndim(a)) or a.shape[:n] == sizes else
                expand(a, shape=sizes + a.shape[n:]) for a in (x, *rest)]
    idx = np.broadcast_to(idx, sizes + idx.shape[n:])
    return op(x, *rest, idx=idx, dim=dim + n, **params)


def _dynamic_shape(kernel):
    """A batch rule refusing, in torch's words, an op whose result's shape depends on each
    sample's numbers (the methods refuse first; this holds for a direct call of the row)."""
    def refuse(op, n, *args, **params):
        raise RuntimeError("vmap: We do not support batching operators that can output dynamic shape. "
                           f"Attempted to vmap over {kernel}. Please file an issue at "
                           "https://github.com/pytorch/pytorch/issues if you need this feature.")
    return refuse


batching.register(batching.batch_rule(max_dim), topk)
batching.register(_batch_along, scatter_src, scatter_value, scatter_add, scatter_reduce)
batching.register(lambda op, n, x, values, key, lead=0: op(*batching.full(n, x, values), key=key, lead=lead + n),
                  index_put_accumulate)
batching.register(lambda op, n, x, dim, size, step: op(x, dim=dim, size=size, step=step), unfold)
# (a batched mask is refused by the method, in torch's words: each sample would select a
# different number of entries; the same mask for every sample selects the same number)
batching.register(lambda op, n, x, key, shape: op(x, key=(slice(None),) * n + tuple(key), shape=x.shape[:n] + shape),
                  masked_select)
batching.register(_dynamic_shape("aten::_unique2"), unique)
batching.register(_dynamic_shape("aten::unique_dim"), unique_dim)
