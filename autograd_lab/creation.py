"""Making tensors: from data, filled, ranges, and seeded random numbers.

``al.manual_seed(s)`` makes every later ``randn``/``rand`` call reproducible.  The numbers
come from NumPy's PCG64 generator, so they are not the numbers torch draws for the
same seed.
"""
import numpy as np

from . import dtypes
from .tensor import Tensor, _unwrap

_rng = np.random.default_rng(0)


def manual_seed(seed):
    """Restart the random number generator from ``seed``; returns the generator."""
    global _rng
    _rng = np.random.default_rng(int(seed))
    return _rng


def _finish(data, requires_grad):
    t = Tensor._make(data)
    if requires_grad:
        t.requires_grad = True
    return t


def tensor(data, dtype=None, requires_grad=False, device=None):
    """A new leaf tensor holding a copy of ``data``.

    Python floats become float32 (torch's default dtype); Python ints become int64 and
    bools stay bool; NumPy arrays keep their dtype.  Python numbers given an integer
    ``dtype`` must fit it, as in torch; NumPy arrays and tensors are cast, wrapping around.
    """
    np_dtype = dtypes.to_numpy(dtype)
    into_int = np_dtype is not None and np_dtype.kind in "iu"
    if isinstance(data, (Tensor, np.ndarray)) or isinstance(data, np.generic) and not into_int:
        array = _known(np.array(_unwrap(data), dtype=np_dtype), data)   # cast, wrapping, as torch
    else:
        array = _from_python(data, np_dtype)
    return _finish(array, requires_grad)


def _from_python(data, np_dtype):
    """Python numbers (perhaps with arrays and tensors among them): NumPy types them
    first, then torch's checks and default dtypes apply."""
    into_int = np_dtype is not None and np_dtype.kind in "iu"
    data = _unwrap(data)
    try:
        array = np.array(data, dtype=None if into_int else np_dtype)
    except ValueError as e:
        raise ValueError(f"expected sequences of equal length at every level: {e}") from None
    if (np_dtype is None or into_int) and _beyond_int64(array):
        array = _with_big_ints(data, array, floats_rescue=not into_int)
    array = _known(array, data)
    if into_int:
        return _fitted(array, np_dtype, data)
    return array.astype(dtypes.DEFAULT_FLOAT) if np_dtype is None and array.dtype == np.float64 else array


def _known(array, data):
    """Refuse what is not numbers, or numbers in a dtype we lack (such as uint64)."""
    if array.dtype == object or array.dtype.kind not in "biuf":
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    dtypes.from_numpy(array.dtype)
    return array


def _beyond_int64(array):
    """Whether NumPy may have met Python ints beyond int64: it then picks uint64, float64
    or object where torch picks int64 or float32."""
    if array.dtype == np.float64 and array.size:      # NaN among them: look closer, too
        return not np.abs(array).max() < 2.0 ** 63
    return array.dtype == np.uint64 or array.dtype == object


def _with_big_ints(data, array, floats_rescue):
    """Type data holding Python ints beyond int64 as torch does: floats among them make
    the tensor float (unless an integer dtype was asked for); ints alone cannot be stored,
    and torch refuses them."""
    has_float = has_big_int = False
    stack = [data]
    while stack:
        d = stack.pop()
        if isinstance(d, (list, tuple)):
            stack.extend(d)
        elif isinstance(d, (float, np.floating)) or isinstance(d, np.ndarray) and d.dtype.kind == "f":
            has_float = True
        elif type(d) is int and not -2 ** 63 <= d < 2 ** 63:
            has_big_int = True
    if has_big_int and not (has_float and floats_rescue):
        raise ValueError("Overflow when unpacking long long")
    return np.array(data, dtype=np.float64) if has_float and array.dtype == object else array


def _fitted(array, np_dtype, data):
    """Numbers into an integer dtype, refused as torch refuses them unless every one fits
    (see ``dtypes.int_range``); floats are truncated toward zero.  Where NumPy made one float64
    array of ints and floats, the numbers are looked at one by one: a float64 would round
    ints beyond 2**53, and cannot tell -1 from -1.0."""
    if not array.size:
        return array.astype(np_dtype)
    low, high = array.min(), array.max()
    if array.dtype.kind == "f" and not (-2.0 ** 53 < low and high < 2.0 ** 53       # NaN fails
                                        and (np_dtype.kind == "i" or low >= 0)):
        numbers = np.array(data, dtype=object)
        ints, floats = dtypes.int_range(np_dtype), dtypes.int_range(np_dtype, floats=True)
        for v in numbers.flat:
            lo, hi = floats if isinstance(v, (float, np.floating)) else ints
            if not lo <= v <= hi:
                raise _overflow(np_dtype)
        whole = [(int(v) + 2 ** 63) % 2 ** 64 - 2 ** 63 for v in numbers.flat]   # 2.0**63 wraps, as in torch
        return np.array(whole, dtype=np.int64).reshape(numbers.shape).astype(np_dtype)
    lo, hi = dtypes.int_range(np_dtype, floats=array.dtype.kind == "f")
    if not (lo <= low and high <= hi):
        raise _overflow(np_dtype)
    return array.astype(np_dtype)


def _overflow(np_dtype):
    return RuntimeError(f"value cannot be converted to type {np_dtype.name} without overflow")


def as_tensor(data, dtype=None):
    if isinstance(data, Tensor) and dtype is None:
        return data
    return tensor(data, dtype=dtype)


def from_numpy(array):
    """A tensor sharing memory with a NumPy array (like torch.from_numpy)."""
    return Tensor._make(np.asarray(array))


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _float(dtype):
    return dtypes.to_numpy(dtype) or dtypes.DEFAULT_FLOAT


def zeros(*size, dtype=None, requires_grad=False):
    return _finish(np.zeros(_size(size), _float(dtype)), requires_grad)


def ones(*size, dtype=None, requires_grad=False):
    return _finish(np.ones(_size(size), _float(dtype)), requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False):
    if dtype is None and isinstance(fill_value, bool):
        dtype = dtypes.bool_
    elif dtype is None and isinstance(fill_value, int):
        dtype = dtypes.int64
    return _finish(np.full(_size((size,)), fill_value, _float(dtype)), requires_grad)


def empty(*size, dtype=None, requires_grad=False):
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def _like(x, dtype):
    return dtypes.to_numpy(dtype) or x._data.dtype


def zeros_like(x, dtype=None, requires_grad=False):
    return _finish(np.zeros(x.shape, _like(x, dtype)), requires_grad)


def ones_like(x, dtype=None, requires_grad=False):
    return _finish(np.ones(x.shape, _like(x, dtype)), requires_grad)


def full_like(x, fill_value, dtype=None, requires_grad=False):
    return _finish(np.full(x.shape, fill_value, _like(x, dtype)), requires_grad)


def empty_like(x, dtype=None, requires_grad=False):
    return zeros_like(x, dtype, requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False):
    return _finish(np.eye(n, m, dtype=_float(dtype)), requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    if dtype is None:
        whole = all(isinstance(v, int) for v in (start, end, step))
        dtype = dtypes.int64 if whole else dtypes.float32
    return _finish(np.arange(start, end, step, dtype=dtypes.to_numpy(dtype)), requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False):
    return _finish(np.linspace(start, end, int(steps), dtype=_float(dtype)), requires_grad)


def randn(*size, dtype=None, requires_grad=False):
    """Standard normal samples from the seeded generator (see ``manual_seed``)."""
    return _finish(_rng.standard_normal(_size(size)).astype(_float(dtype)), requires_grad)


def rand(*size, dtype=None, requires_grad=False):
    """Uniform samples in [0, 1) from the seeded generator."""
    return _finish(_rng.random(_size(size)).astype(_float(dtype)), requires_grad)


def randint(low, high=None, size=(), dtype=None):
    if high is None:
        low, high = 0, low
    return _finish(_rng.integers(low, high, _size((size,))).astype(dtypes.to_numpy(dtype) or np.int64), False)


def randn_like(x, dtype=None, requires_grad=False):
    return randn(*x.shape, dtype=dtype or x.dtype, requires_grad=requires_grad)


def rand_like(x, dtype=None, requires_grad=False):
    return rand(*x.shape, dtype=dtype or x.dtype, requires_grad=requires_grad)


def FloatTensor(*args):
    """The 2018 spelling of a float32 tensor: ``al.FloatTensor([[1, 2]])``."""
    return Tensor(*args, dtype=dtypes.float32)


def DoubleTensor(*args):
    return Tensor(*args, dtype=dtypes.float64)


def LongTensor(*args):
    return Tensor(*args, dtype=dtypes.int64)
