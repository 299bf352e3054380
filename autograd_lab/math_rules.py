"""Rows of the rules table for torch's other math on values: logarithms and powers in other
bases, remainders, running sums and products, spread (variance and standard deviation),
the distance between two tensors, triangles of matrices, batched products and
determinants, and flipping a tensor.

Each row reads like the math it differentiates, written with the table's operations, so
its rules record and differentiate again (second derivatives) as ``rules.py``'s do; the
dimensions a row reduces or runs along are kept negative, so a batch of seeds (or vmap's
batch) in front of them rides along.  The al.* functions and Tensor methods that call
these rows, with torch's checks and words, are ``math_functions.py``.
"""
import math

import numpy as np

from . import batching
from .batching import broadcast
from .core.recording import Op, register
from .core.tensor import Tensor
from .core.rules import (abs, div, floor, index, matmul, mean, neg_dims, reshape, sign, sum, symmetric,
                    transpose, unreduce, unsqueeze, where, zeros_like_grad)

LN2, LN10 = math.log(2.0), math.log(10.0)


# -- logarithms and powers in other bases ---------------------------------------------------
log2 = Op("Log2Backward0", np.log2,
          **symmetric(lambda g, y, x: g / (x * LN2)),
          floating=True, saves="inputs")

log10 = Op("Log10Backward0", np.log10,
           **symmetric(lambda g, y, x: g / (x * LN10)),
           floating=True, saves="inputs")

exp2 = Op("Exp2Backward0", np.exp2,
          **symmetric(lambda g, y, x: g * y * LN2),
          floating=True, saves="output")

expm1 = Op("Expm1Backward0", np.expm1,                # exp(x) - 1, accurate for tiny x
           **symmetric(lambda g, y, x: g * (y + 1)),
           floating=True, saves="output")


# -- remainders: a - b * floor(a / b) (the sign of b: x % n), and C's fmod (the sign of a) --
def _integer_checked(forward, kernel):
    """forward, refusing what torch's kernel refuses: bools (it has no kernel for them) and
    an integer division by zero (floats give NaN or inf)."""
    def checked(a, b):
        _check_integers(a, b, kernel)
        return forward(a, b)
    checked.__name__ = forward.__name__
    return checked


def _check_integers(a, b, kernel):
    kind = np.result_type(a, b).kind
    if kind == "b":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    if kind in "iu" and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


# (the quotient in b's rule is the division rounded as torch rounds it: a / b then rounded
# can land on the other side of a whole number)
def _remainder(a, b):
    """a - b * floor(a / b), as torch's kernel computes it: C's fmod, moved by b where its
    sign is not b's (a zero keeps a's sign: -3 % 1.5 is -0.0, as in torch)."""
    if np.result_type(a, b).kind != "f":
        return np.remainder(a, b)
    r = np.fmod(a, b)
    return np.where((r != 0) & ((r < 0) != (np.asarray(b) < 0)), r + b, r)


remainder = Op("RemainderBackward1", _integer_checked(_remainder, "remainder_cpu"),
               **symmetric(lambda g, y, a, b: g,
                           lambda g, y, a, b: -g * div_rounded(a, b, rounding_mode="floor")),
               promote=True, saves="inputs")

fmod = Op("FmodBackward1", _integer_checked(np.fmod, "fmod_cpu"),
          **symmetric(lambda g, y, a, b: g,
                      lambda g, y, a, b: -g * div_rounded(a, b, rounding_mode="trunc")),
          promote=True, saves="inputs")

# modulo a number: the tensor's gradient passes through, and nothing is kept
remainder_scalar = Op("RemainderBackward0", remainder.forward, **symmetric(lambda g, y, a, b: g, None),
                      promote=True, saves=False)
fmod_scalar = Op("FmodBackward0", fmod.forward, **symmetric(lambda g, y, a, b: g, None),
                 promote=True, saves=False)


def refused(backward, forward, kind=RuntimeError):
    """The rules of a row torch records without a derivative: a backward (or a tangent)
    through it stops with torch's words, each a function of the row's parameters."""
    def refuse_backward(g, y, *inputs, **params):
        raise kind(backward(params))

    def refuse_tangent(t, y, *inputs, **params):
        raise NotImplementedError(forward(params))
    refuse_backward.refuses = refuse_tangent.refuses = True
    return refuse_backward, refuse_tangent


def _aten(kernel):
    """torch's refusals for an aten kernel that has no derivative."""
    return refused(lambda p: f"derivative for aten::{kernel} is not implemented",
                   lambda p: f"Trying to use forward AD with aten::{kernel} that does not support it.")


# a number modulo a tensor (2 % x): torch records a node it names NotImplemented, and
# refuses to differentiate through it
_REMAINDER = _aten("remainder")
remainder_of_number = Op("torch::autograd::NotImplemented", remainder.forward,
                         vjp=(None, _REMAINDER[0]), jvp=(None, _REMAINDER[1]),
                         promote=True, saves=False)


# -- division with a rounding mode (torch.div(a, b, rounding_mode=...)), and a // b -----------
def _rounded_div(a, b, rounding_mode):
    """a / b rounded down ("floor") or toward zero ("trunc"); integers stay integers."""
    _check_integers(a, b, f"div_{rounding_mode}_cpu")
    if np.result_type(a, b).kind in "iu":
        q = np.floor_divide(a, b)
        if rounding_mode == "trunc":      # floor, moved up one where the signs differ and it is not exact
            q = q + ((np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0)))
        return q
    return np.floor_divide(a, b) if rounding_mode == "floor" else np.trunc(np.true_divide(a, b))


# torch names every division given a rounding_mode DivBackward2: without rounding, div's
# rules; rounded, a step function, whose gradient is zero (exact zeros, depending on nothing)
div_mode = Op("DivBackward2", np.true_divide, vjp=div.vjp, jvp=div.jvp,
              promote=True, floating=True, saves="inputs")
div_rounded = Op("DivBackward2", _rounded_div,
                 **symmetric(lambda g, y, a, b, rounding_mode: zeros_like_grad(g),
                             lambda g, y, a, b, rounding_mode: zeros_like_grad(g)),
                 promote=True, saves=False)

# a // b: torch records a node it names NotImplemented, and refuses to differentiate through it
_FLOOR_DIVIDE = _aten("floor_divide")
floor_divide = Op("torch::autograd::NotImplemented", _integer_checked(np.floor_divide, "div_floor_cpu"),
                  vjp=(_FLOOR_DIVIDE[0],) * 2, jvp=(_FLOOR_DIVIDE[1],) * 2,
                  promote=True, saves=False)

# x.round(decimals=d): a step function too (RoundBackward1)
round_decimals = Op("RoundBackward1", lambda x, decimals: np.round(x, decimals),
                    **symmetric(lambda g, y, x, decimals: zeros_like_grad(g)),
                    saves=False)


# -- running sums and products along a dimension ---------------------------------------------
def _running(reduce):
    """cumsum / cumprod along ``dim``: integers and bools add up in int64, as in torch."""
    def forward(x, dim):
        if x.ndim == 0:
            return x.astype(np.int64) if x.dtype.kind in "biu" else x.copy()
        return reduce(x, axis=dim, dtype=np.int64 if x.dtype.kind in "biu" else None)
    forward.__name__ = reduce.__name__
    return forward


def _flip_forward(x, dims):
    return np.flip(x, dims) if x.ndim else x[...]


# flipping is its own inverse: its rules flip again (a view, as torch's flip is not: copied)
flip = Op("FlipBackward0", lambda x, dims: np.array(_flip_forward(x, dims)),
          **symmetric(lambda g, y, x, dims: flip(g, dims=dims)),
          saves=False)

# each entry of x is in every running sum from its place on: its gradient is the running
# sum of g taken from the end (flip, cumsum, flip)
cumsum = Op("CumsumBackward0", _running(np.cumsum),
            vjp=(lambda g, y, x, dim: flip(cumsum(flip(g, dims=(dim,)), dim=dim), dims=(dim,)) if x.ndim else g,),
            jvp=(lambda t, y, x, dim: cumsum(t, dim=dim) if x.ndim else t,),
            saves=False)


def _without_each(x, dim):
    """(products, after): products[..., i, j] is the running product up to j of x along
    ``dim`` with its entry i replaced by 1 (so it holds for zeros too, where y / x does
    not), dim moved last; after[i, j] says whether j >= i, where entry i takes part."""
    xs = transpose(x, dim0=dim, dim1=-1) if dim != -1 else x
    n = xs.shape[-1]
    own = np.eye(n, dtype=bool)
    products = cumprod(where(own, 1.0, unsqueeze(xs, -2)), dim=-1)
    return products, np.triu(np.ones((n, n), dtype=bool))


def _through_products(v, x, dim, backward):
    """cumprod's rules: dy_j/dx_i is the product of x_0..x_j without x_i, for j >= i; the
    VJP sums it against g over j, the JVP against t over i.  (Along one entry the product
    is x itself: g passes as it is, a constant of x, as in torch.)"""
    if x.ndim == 0 or x.shape[dim] == 1:
        return v
    products, after = _without_each(x, dim)
    vs = transpose(v, dim0=dim, dim1=-1) if dim != -1 else v
    out = sum(where(after, products * unsqueeze(vs, -2 if backward else -1), 0.0), -1 if backward else -2)
    return transpose(out, dim0=dim, dim1=-1) if dim != -1 else out


# (torch keeps the output too: writing into it in place is refused at the backward, as there)
cumprod = Op("CumprodBackward0", _running(np.cumprod),
             vjp=(lambda g, y, x, dim: _through_products(g, x, dim, backward=True),),
             jvp=(lambda t, y, x, dim: _through_products(t, x, dim, backward=False),),
             saves=True)


# -- spread: variance and standard deviation --------------------------------------------------
def reduced_count(shape, dim):
    """How many entries each result of a reduction over ``dim`` (None: all) gathers."""
    return math.prod(shape[d] for d in neg_dims(dim, len(shape)))


def _per_degree(x, dim, correction):
    """1 / (n - correction), torch's divisor, infinite when no degree of freedom is left."""
    left = max(reduced_count(x.shape, dim) - correction, 0)
    return 1.0 / left if left else math.inf


def _var_forward(x, dim=None, correction=1, keepdim=False):
    axes = neg_dims(dim, x.ndim)
    if x.size == 0:
        return np.sum(x, axis=axes, keepdims=keepdim) * np.nan
    d = x - np.mean(x, axis=axes, keepdims=True)
    return np.sum(d * d, axis=axes, keepdims=keepdim) * x.dtype.type(_per_degree(x, dim, correction))


def _var_vjp(g, y, x, dim=None, correction=1, keepdim=False):
    """d var / dx = 2 (x - mean) / (n - correction), each entry's share of g.  Over the
    whole tensor with no degree of freedom left, torch's choice: inf, NaN where x is its
    mean, constants that depend on no input."""
    centred = x - mean(x, neg_dims(dim, x.ndim), True)
    per_degree = _per_degree(x, dim, correction)
    if math.isinf(per_degree) and (dim is None or x.ndim == 0):
        return unreduce(g, x, dim, keepdim) * np.where(np.asarray(_values(centred)) == 0, np.nan, np.inf)
    return unreduce(g, x, dim, keepdim) * centred * (2 * per_degree)


def _values(t):
    """The numbers of an array or a tensor (a rule may get either)."""
    return t._data if isinstance(t, Tensor) else t


def _var_jvp(t, y, x, dim=None, correction=1, keepdim=False):
    centred = x - mean(x, neg_dims(dim, x.ndim), True)
    return sum(t * centred, neg_dims(dim, x.ndim), keepdim) * (2 * _per_degree(x, dim, correction))


var = Op("VarBackward0", _var_forward, vjp=(_var_vjp,), jvp=(_var_jvp,), saves="inputs")

# std = sqrt(var): var's rules, g divided by 2 std first (0 where std is 0, as torch)
std = Op("StdBackward0", lambda x, dim=None, correction=1, keepdim=False: np.sqrt(_var_forward(x, dim, correction, keepdim)),
         vjp=(lambda g, y, x, dim=None, correction=1, keepdim=False:
              _var_vjp(where(y == 0, 0.0, g / (2 * y)), y, x, dim, correction, keepdim),),
         jvp=(lambda t, y, x, dim=None, correction=1, keepdim=False:
              where(y == 0, 0.0, _var_jvp(t, y, x, dim, correction, keepdim) / (2 * y)),),
         saves=True)


# -- the distance between two tensors: the p-norm of a - b ---------------------------------------
# (``dims``: the dimensions it sums over, all of them unless vmap runs it on a batch)
def _dist_forward(a, b, p=2.0, dims=None):
    d = np.abs(a - b)
    axes = neg_dims(dims, d.ndim)
    if p == 0:
        return np.asarray(np.count_nonzero(d, axis=axes), d.dtype)
    if math.isinf(p):
        if not d.size:
            return np.zeros(np.sum(d, axis=axes).shape, d.dtype)
        return (np.amax if p > 0 else np.amin)(d, axis=axes)
    if p == 2:
        return np.sqrt(np.sum(d * d, axis=axes))
    return np.sum(d ** p, axis=axes) ** (1 / p)


def norm_backward(g, y, d, p, dims=None):
    """The gradient of ||d||_p (y) with respect to d, as torch's norm_backward: 0 where the
    norm is 0; for p = inf, shared evenly by the entries of largest size."""
    g, y = unreduce(g, d, dims, False), unreduce(y, d, dims, False)
    if p == 0:
        return zeros_like_grad(g)
    if p == 1:
        return g * sign(d)
    if math.isinf(p):
        hit = abs(d) == y
        return sign(d) * (g / sum(hit, neg_dims(dims, d.ndim), True)) * hit
    if p == 2:
        return d * where(y == 0, 0.0, g / y)
    if p < 1:
        scaled = sign(d) * where(d == 0, 0.0, abs(d) ** (p - 1))
        return scaled * g * y ** (1 - p)
    scaled = sign(d) * abs(d) ** (p - 1) if p < 2 else d * abs(d) ** (p - 2)
    return scaled * where(y == 0, 0.0, g / y ** (p - 1))


def _dist_jvp(t, y, a, b, p, dims, side):
    """The tangent of dist(a, b) from a tangent of a (side 0) or b (side 1): its entries
    weighted by the gradient's shares, summed (a batch of tangents stays in front)."""
    d = a - b
    x = a if side == 0 else b
    lead = np.ndim(t) - np.ndim(x)
    if lead and np.ndim(x) < np.ndim(d):       # (the batch must not meet d's broadcast dims)
        t = reshape(t, shape=tuple(t.shape[:lead]) + (1,) * (np.ndim(d) - np.ndim(x)) + tuple(x.shape))
    out = sum(norm_backward(zeros_like_grad(y) + 1, y, d, p, dims) * t, neg_dims(dims, np.ndim(d)), False)
    return out if side == 0 else -out


dist = Op("DistBackward0", _dist_forward,
          vjp=(lambda g, y, a, b, p=2.0, dims=None: norm_backward(g, y, a - b, p, dims),
               lambda g, y, a, b, p=2.0, dims=None: -norm_backward(g, y, a - b, p, dims)),
          jvp=(lambda t, y, a, b, p=2.0, dims=None: _dist_jvp(t, y, a, b, p, dims, 0),
               lambda t, y, a, b, p=2.0, dims=None: _dist_jvp(t, y, a, b, p, dims, 1)),
          promote=True, saves=True)


# -- triangles of the last two dimensions ----------------------------------------------------
triu = Op("TriuBackward0", lambda x, diagonal=0: np.triu(x, diagonal),
          **symmetric(lambda g, y, x, diagonal=0: triu(g, diagonal=diagonal)),
          saves=False)

tril = Op("TrilBackward0", lambda x, diagonal=0: np.tril(x, diagonal),
          **symmetric(lambda g, y, x, diagonal=0: tril(g, diagonal=diagonal)),
          saves=False)


# -- products of batches of matrices, and determinants ------------------------------------------
# bmm: matmul's rules (a batch of matrices times a batch of matrices), under torch's name
bmm = Op("BmmBackward0", lambda a, b: np.matmul(a, b), vjp=matmul.vjp, jvp=matmul.jvp, saves="others")


def cofactors(a):
    """The cofactor matrix of each matrix in ``a``: entry (i, j) is (-1)^(i+j) times the
    determinant of a without row i and column j -- the derivative of det(a) with respect
    to a[i, j].  It holds for singular matrices too (det(a) inv(a)ᵀ does not), and, made
    of determinants, differentiates again.  (n² determinants of size n - 1: fine for the
    small matrices learners take determinants of.)"""
    n = a.shape[-1]
    keep = np.array([np.delete(np.arange(n), i) for i in range(n)], dtype=np.intp).reshape(n, n - 1 if n else 0)
    minors = index(a, key=(Ellipsis, keep[:, None, :, None], keep[None, :, None, :]))
    dets = det(minors)
    return where(np.add.outer(np.arange(n), np.arange(n)) % 2 == 1, -dets, dets)


det = Op("LinalgDetBackward0", lambda a: np.asarray(np.linalg.det(a)),
         vjp=(lambda g, y, a: unsqueeze(unsqueeze(g, -1), -1) * cofactors(a),),
         jvp=(lambda t, y, a: sum(cofactors(a) * t, (-2, -1), False),),
         saves="inputs")


register(globals())

# -- their batch rules (al.vmap): dimensions are negative, the matrices' the last two --------
batching.register(broadcast, log2, log10, exp2, expm1, remainder, fmod, remainder_scalar, fmod_scalar,
                  remainder_of_number, div_mode,
                  div_rounded, floor_divide, round_decimals)
batching.register(lambda op, n, x, dims: op(x, dims=dims), flip)
batching.register(lambda op, n, x, dim: op(x, dim=dim), cumsum, cumprod)
batching.register(lambda op, n, x, dim=None, correction=1, keepdim=False:
                  op(x, dim=neg_dims(dim, x.ndim - n), correction=correction, keepdim=keepdim), var, std)
batching.register(lambda op, n, x, diagonal=0: op(x, diagonal=diagonal), triu, tril)
batching.register(lambda op, n, a, b: matmul(a, b), bmm)
batching.register(lambda op, n, a: op(a), det)
# dist: both inputs padded to the sample's dimensions (as elementwise rows), summed over those
batching.register(lambda op, n, a, b, p=2.0, dims=None:
                  broadcast(op, n, a, b, p=p, dims=neg_dims(dims, max(np.ndim(a), np.ndim(b)) - n)), dist)
