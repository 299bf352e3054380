"""torch's other math on values, as al.* functions and Tensor methods, with torch's
checks and words: logarithms and powers in other bases, remainders (``x % n``), running
sums and products, variance and standard deviation, distances, triangles of matrices,
batched matrix products, determinants, flipping, ``isclose``, and the constants torch
keeps (``al.pi``, ``al.e``, ``al.inf``, ``al.nan``).  The derivatives are the rows of
``math_rules.py``; the methods are installed on Tensor here (after tensor_methods.py)."""
import builtins
import math
import warnings

import numpy as np

from .core import dtypes, inplace
from . import functions as F, math_rules as R
from .core.checks import bmm_error, broadcast_mismatch, reduction_dims, tensor_of, wrap_dim
from .spellings import numpy_names
from .core.tensor import Tensor, install
from .core.userframe import user_level

pi, e, inf, nan = math.pi, math.e, math.inf, math.nan


def _t(x):
    return x if isinstance(x, Tensor) else tensor_of(x)


class MathMethods:
    # -- logarithms and powers in other bases ---------------------------------------------
    def log2(self): return R.log2(self)
    def log10(self): return R.log10(self)
    def exp2(self): return R.exp2(self)
    def expm1(self): return R.expm1(self)

    # -- remainders ---------------------------------------------------------------------------
    def remainder(self, other): return (R.remainder if isinstance(other, Tensor) else R.remainder_scalar)(self, other)
    def fmod(self, other): return (R.fmod if isinstance(other, Tensor) else R.fmod_scalar)(self, other)
    def __mod__(self, other): return self.remainder(other)
    def __rmod__(self, other): return R.remainder_of_number(other, self)
    def floor_divide(self, other): return R.floor_divide(self, other)
    def __floordiv__(self, other): return R.floor_divide(self, other)
    def __rfloordiv__(self, other): return R.floor_divide(other, self)

    # -- running sums and products --------------------------------------------------------------
    @numpy_names
    def cumsum(self, dim, *, dtype=None):
        x = self if dtype is None else self.to(dtype)
        return R.cumsum(x, dim=wrap_dim(dim, x.ndim))

    @numpy_names
    def cumprod(self, dim, *, dtype=None):
        x = self if dtype is None else self.to(dtype)
        return R.cumprod(x, dim=wrap_dim(dim, x.ndim))

    def flip(self, *dims):
        dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        wrapped = [wrap_dim(d, self.ndim) for d in dims]
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"dim {wrapped[0] % builtins.max(self.ndim, 1)} appears multiple times in the "
                               "list of dims")
        return R.flip(self, dims=tuple(wrapped))

    # -- spread ---------------------------------------------------------------------------------
    @numpy_names
    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return _spread(R.var, "var", self, dim, unbiased, keepdim, correction)

    @numpy_names
    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return _spread(R.std, "std", self, dim, unbiased, keepdim, correction)

    def dist(self, other, p=2): return dist(self, other, p)

    # -- matrices ------------------------------------------------------------------------------
    def triu(self, diagonal=0): return _triangle(R.triu, "triu", self, diagonal)
    def tril(self, diagonal=0): return _triangle(R.tril, "tril", self, diagonal)
    def bmm(self, mat2): return bmm(self, mat2)
    def det(self): return det(self)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return isclose(self, other, rtol, atol, equal_nan)

    # -- the real and imaginary parts: autograd_lab's tensors are real ----------------------------
    @property
    def real(self):
        """The tensor itself: its numbers are real (as torch's x.real of a real tensor)."""
        return self

    @property
    def imag(self):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _spread(row, name, x, dim, unbiased, keepdim, correction):
    """var / std: torch's overloads (dim, unbiased, keepdim), (unbiased), and correction=,
    checked as torch checks them."""
    if isinstance(dim, bool):             # x.std(False): the legacy (unbiased) overload
        dim, unbiased = None, dim
    if unbiased is not None and (correction is not None or not isinstance(unbiased, bool)):
        got = ", ".join([type(dim).__name__, type(unbiased).__name__, type(keepdim).__name__] +
                        ([f"correction={type(correction).__name__}"] if correction is not None else []))
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected "
                        "one of:\n * (dim, bool unbiased = True, bool keepdim = False)\n"
                        " * (dim = None, *, Number correction = None, bool keepdim = False)")
    if not x.is_floating_point():
        raise RuntimeError("std and var only support floating point and complex dtypes")
    correction = (1 if unbiased is None or unbiased else 0) if correction is None else correction
    dims = reduction_dims(dim, x.ndim)
    dims = None if dims is None else tuple(wrap_dim(d, x.ndim) for d in
                                           (dims if isinstance(dims, tuple) else (dims,)))
    if R.reduced_count(x.shape, dims) - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning,
                      stacklevel=user_level())
    return row(x, dim=dims, correction=correction, keepdim=bool(keepdim))


def _triangle(row, name, x, diagonal):
    if x.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return row(x, diagonal=int(diagonal))


# -- the al.* functions --------------------------------------------------------------------------
def log2(input): return _t(input).log2()
def log10(input): return _t(input).log10()
def exp2(input): return _t(input).exp2()
def expm1(input): return _t(input).expm1()


def remainder(input, other):
    """input - other * floor(input / other): the sign of ``other``, as Python's %."""
    if not isinstance(input, Tensor):
        return R.remainder_of_number(input, _t(other))
    return input.remainder(other)


def floor_divide(input, other):
    """input / other rounded down (x // n); torch records it without a derivative."""
    return R.floor_divide(_t(input), other)


def fmod(input, other):
    """C's fmod: input - other * trunc(input / other), the sign of ``input``."""
    return _t(input).fmod(other)


@numpy_names
def cumsum(input, dim, *, dtype=None):
    return _t(input).cumsum(dim, dtype=dtype)


@numpy_names
def cumprod(input, dim, *, dtype=None):
    return _t(input).cumprod(dim, dtype=dtype)


def flip(input, dims):
    return _t(input).flip(dims)


@numpy_names
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _t(input).var(dim, unbiased, keepdim, correction=correction)


@numpy_names
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _t(input).std(dim, unbiased, keepdim, correction=correction)


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast): ``dist(a, b)`` is ``(a - b).norm(p)``, one
    row of the table (DistBackward0), as in torch."""
    for t in (input, other):
        if not isinstance(t, Tensor):
            raise TypeError(f"dist(): argument '{'input' if t is input else 'other'}' must be Tensor, "
                            f"not {type(t).__name__}")
    if F.is_bool(input) or F.is_bool(other):
        F.checked_sub(input, other)       # (torch subtracts first: its words for bools)
    kind = np.result_type(input._data.dtype, other._data.dtype)
    if kind.kind != "f":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{dtypes.scalar_type_name(kind)} instead.")
    return R.dist(input, other, p=float(p))


def triu(input, diagonal=0): return _t(input).triu(diagonal)
def tril(input, diagonal=0): return _t(input).tril(diagonal)


def bmm(input, mat2):
    """A batch of matrix products: input[b] @ mat2[b] for each b (both 3-d)."""
    for name, m in (("batch1", input), ("batch2", mat2)):
        if not isinstance(m, Tensor):
            raise TypeError(f"bmm(): argument '{'input' if name == 'batch1' else 'mat2'}' must be Tensor, "
                            f"not {type(m).__name__}")
        if m.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    refused = bmm_error(input.shape, mat2.shape, input._data.dtype, mat2._data.dtype)
    if refused:
        raise refused
    if input._data.dtype == np.bool_:
        raise NotImplementedError('"bmm" not implemented for \'Bool\'')
    return R.bmm(input, mat2)


def det(A):
    """The determinant of each square matrix in A (its last two dimensions)."""
    A = _t(A)
    if A.ndim < 2:
        raise RuntimeError("linalg.det: The input tensor A must have at least 2 dimensions.")
    if not A.is_floating_point():
        raise RuntimeError(f"linalg.det: Expected a floating point or complex tensor as input. Got "
                           f"{dtypes.scalar_type_name(A._data.dtype)}")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.det: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    return R.det(A)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Where |input - other| <= atol + rtol * |other| (or both are the same infinity; NaN
    equals NaN only with ``equal_nan``), as a bool tensor; the dtypes must match."""
    for pos, (name, t) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(f"isclose(): argument '{name}' (position {pos}) must be Tensor, not "
                            f"{type(t).__name__}")
    a, b = input._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{dtypes.scalar_type_name(a.dtype)} did not match {dtypes.scalar_type_name(b.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    mismatch = broadcast_mismatch(a.shape, b.shape)
    if mismatch:
        raise RuntimeError(mismatch)
    if a.dtype == np.bool_:
        return Tensor._make(np.asarray(a == b))
    return Tensor._make(np.asarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def real(input):
    return _t(input).real


def imag(input):
    return _t(input).imag


install(MathMethods)
for _name in ("log2", "log10", "exp2", "expm1", "remainder", "fmod", "floor_divide", "cumsum", "cumprod",
              "triu", "tril"):
    setattr(Tensor, _name + "_", inplace.in_place_method(getattr(Tensor, _name), _name + "_"))
for _name in ("mod", "floordiv"):       # x %= n, x //= n
    setattr(Tensor, f"__i{_name}__", inplace.in_place_method(getattr(Tensor, f"__{_name}__"), f"__i{_name}__"))
