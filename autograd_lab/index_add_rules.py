"""The row of ``x.index_add(dim, index, source, alpha=1)``: x with ``alpha * source[i]``
added at position ``index[i]`` along ``dim`` -- positions named twice get both.

    out = x.clone();  out[..., index[i], ...] += alpha * source[..., i, ...]

Its rules read like the formula: x's gradient is the gradient as it is (every entry of x
passes through once), source's is alpha times the gradient at the positions it was added
to (``index_select``); a tangent is pushed the same way.  ``dim`` is kept counted from the
end, so the rule and its batch rule (vmap) work on a batch in front.  The index is a
parameter, never differentiated (torch's IndexAddBackward0 keeps it, and alpha).
"""
import numpy as np

from . import batching
from .core.recording import Op, register
from .core.rules import index as pick


def _key(index_, dim):
    """The place ``index_`` picks along ``dim`` (negative), whatever lies in front."""
    return (Ellipsis, index_) + (slice(None),) * (-dim - 1)


def _index_add_forward(x, source, index, dim, alpha=1):
    out = np.array(x, copy=True)
    np.add.at(out, _key(index, dim), source * alpha if alpha != 1 else source)
    return out


def _source_gradient(g, y, x, source, index, dim, alpha=1):
    picked = pick(g, key=_key(index, dim), lead=g.ndim - y.ndim)
    return picked if alpha == 1 else picked * alpha


def _source_tangent(t, y, x, source, index, dim, alpha=1):
    lead = t.shape[:t.ndim - np.ndim(source)]
    zeros = np.zeros(lead + y.shape, y.dtype)
    return index_add(zeros, t, index=index, dim=dim, alpha=alpha)


index_add = Op("IndexAddBackward0", _index_add_forward,
               vjp=(lambda g, y, x, source, index, dim, alpha=1: g,
                    _source_gradient),
               jvp=(lambda t, y, x, source, index, dim, alpha=1: t,
                    _source_tangent),
               saves="index")
register(globals())

# vmap: both inputs get every batch dim (np.add.at does not broadcast x), the place is
# counted from the end
batching.register(lambda op, n, x, source, **params: op(*batching.full(n, x, source), **params),
                  index_add)
