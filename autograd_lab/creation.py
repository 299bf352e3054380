"""Making tensors: from data, filled, ranges, and seeded random numbers.

``al.manual_seed(s)`` makes every later ``randn``/``rand`` call reproducible; a
``Generator`` of one's own, passed as ``generator=``, keeps a stream apart.  The numbers
come from NumPy's PCG64 generator, so they are not the numbers torch draws for the
same seed.  Every factory takes torch's ``dtype=``, ``device=`` (the CPU: see
``devices.py``) and ``requires_grad=``.
"""
import functools
import inspect
import math
import warnings

import numpy as np

from . import devices, formats
from .core import dtypes
from . import batching
from .core.modes import made_in_inference_mode, state
from .core.userframe import user_level
from .spellings import with_keywords, with_out
from .core.tensor import Tensor, refuse_integer_grad, unwrap


class Generator:
    """A stream of random numbers, as ``torch.Generator``: ``Generator().manual_seed(42)``."""

    def __init__(self, device="cpu"):
        self.device = devices.check(device)
        self.manual_seed(67280421310721)          # torch's default seed

    def manual_seed(self, seed):
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        """Reseed from the operating system's entropy; returns the new seed."""
        self.manual_seed(int(np.random.SeedSequence().entropy % 2 ** 63))
        return self._seed


default_generator = Generator().manual_seed(0)


def manual_seed(seed):
    """Restart the default generator from ``seed``; returns it."""
    return default_generator.manual_seed(seed)


def _generator(generator):
    return (generator or default_generator)._rng


def _finish(data, requires_grad):
    t = Tensor._make(data)
    if state.inference:
        made_in_inference_mode(t)
    if requires_grad:
        refuse_integer_grad(t)
        t.requires_grad = True
    return t


def tensor(data, dtype=None, requires_grad=False, device=None):
    """A new leaf tensor holding a copy of ``data``.

    Python floats become float32 (torch's default dtype); Python ints become int64 and
    bools stay bool; NumPy arrays keep their dtype.  Python numbers given an integer
    ``dtype`` must fit it, as in torch; NumPy arrays and tensors are cast, wrapping around.
    """
    devices.check(device)
    if isinstance(data, Tensor):        # a copy that leaves the graph: torch says how to ask
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                      "or sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=user_level())
    np_dtype = dtypes.to_numpy(dtype)
    into_int = np_dtype is not None and np_dtype.kind in "iu"
    if isinstance(data, (Tensor, np.ndarray)) or isinstance(data, np.generic) and not into_int:
        array = _known(np.array(unwrap(data), dtype=np_dtype), data)   # cast, wrapping, as torch
    else:
        array = _from_python(data, np_dtype)
    return _finish(array, requires_grad)


def _from_python(data, np_dtype):
    """Python numbers (perhaps with arrays and tensors among them): NumPy types them
    first, then torch's checks and default dtypes apply.  A tensor among them is one
    number, as in torch (its dtype takes part in the result's)."""
    into_int = np_dtype is not None and np_dtype.kind in "iu"
    inner, given = [], data
    data = _numbers_of_tensors(data, inner)
    try:
        array = np.array(data, dtype=None if into_int else np_dtype)
    except ValueError as e:
        raise ValueError(f"expected sequences of equal length at every level: {e}") from None
    if (np_dtype is None or into_int) and _beyond_int64(array):
        array = _with_big_ints(data, array, floats_rescue=not into_int)
    array = _known(array, data)
    if into_int:
        return _fitted(array, np_dtype, data)
    if np_dtype is None and inner:        # torch promotes the tensors' dtypes with the numbers'
        numbers = np.array(_numbers_of_tensors(given, [], stand_in=False)).dtype   # (False: no say)
        numbers = dtypes.DEFAULT_FLOAT if numbers == np.float64 else numbers
        return array.astype(functools.reduce(dtypes.promote_types, inner, numbers))
    if np_dtype is None and array.dtype == np.float64:
        array = array.astype(dtypes.DEFAULT_FLOAT)
    return array


def _numbers_of_tensors(data, dtypes_seen, stand_in=None):
    """``data`` with each tensor in it replaced by its one number (torch refuses a tensor
    of more or fewer), or by ``stand_in`` if given, noting the tensors' dtypes in
    ``dtypes_seen``."""
    if isinstance(data, Tensor):
        if data.numel() != 1:           # (torch reads an integer tensor as an index first)
            if data._data.dtype.kind in "biu":
                raise TypeError("only integer tensors of a single element can be converted to an index")
            raise ValueError("only one element tensors can be converted to Python scalars")
        dtypes_seen.append(data._data.dtype)
        return data._data.item() if stand_in is None else stand_in
    if isinstance(data, (list, tuple)):
        return [_numbers_of_tensors(d, dtypes_seen, stand_in) for d in data]
    return data


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


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, copied only where it must be, as torch's: a tensor of the dtype
    asked is given back itself (of another dtype, converted as ``x.to(dtype)`` converts,
    graph kept); a NumPy array of the dtype asked shares its memory, as ``from_numpy``'s
    does; anything else is copied, as by ``tensor()``."""
    devices.check(device)
    np_dtype = dtypes.to_numpy(dtype)
    if isinstance(data, Tensor):
        return data if np_dtype is None or np_dtype == data._data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and np_dtype in (None, data.dtype) and _storable(data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def _storable(np_dtype):
    try:
        dtypes.from_numpy(np_dtype)
        return True
    except TypeError:
        return False


def from_numpy(array):
    """A tensor sharing memory with a NumPy array (like torch.from_numpy)."""
    return Tensor._make(np.asarray(array))


def _size(name, dims, size=None):
    """torch's ways to give a shape: ``zeros(2, 3)``, ``zeros((2, 3))``, ``zeros([2, 3])``,
    ``zeros(size=(2, 3))``."""
    if size is not None:
        if dims:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        dims = (size,)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    for i, n in enumerate(dims):
        if isinstance(n, (bool, float)) or not isinstance(n, (int, np.integer, Tensor)):
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, but found "
                            f"element of type {type(n).__name__} at pos {i}")
    dims = tuple(int(n) for n in dims)
    if any(n < 0 for n in dims):
        bad = next(n for n in dims if n < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {list(dims)}")
    return dims


def _float(dtype):
    return dtypes.to_numpy(dtype) or dtypes.DEFAULT_FLOAT


def _made(array, device, requires_grad):
    """The last step of every factory: the device check, then a leaf."""
    devices.check(device)
    return _finish(array, requires_grad)


def zeros(*dims, size=None, dtype=None, device=None, requires_grad=False):
    return _made(np.zeros(_size("zeros", dims, size), _float(dtype)), device, requires_grad)


def ones(*dims, size=None, dtype=None, device=None, requires_grad=False):
    return _made(np.ones(_size("ones", dims, size), _float(dtype)), device, requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if dtype is None and isinstance(fill_value, bool):
        dtype = dtypes.bool_
    elif dtype is None and isinstance(fill_value, int):
        dtype = dtypes.int64
    return _made(np.full(_size("full", (size,)), fill_value, _float(dtype)), device, requires_grad)


def empty(*dims, size=None, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Zeros (torch leaves a new tensor's numbers uninitialized; these are zero), laid out
    as ``memory_format`` says (row by row unless al.channels_last)."""
    out = zeros(*dims, size=size, dtype=dtype, device=device, requires_grad=requires_grad)
    if memory_format is not None:
        out._data = formats.laid_out(out._data, memory_format)
    return out


def _like(x, dtype):
    return dtypes.to_numpy(dtype) or x._data.dtype


def _laid_like(array, input, memory_format):
    """A new array for a *_like factory, laid out as torch's memory_format says: like the
    input (None, al.preserve_format: NumPy's order="K" keeps its layout), row by row, or
    channels last (formats.py)."""
    if memory_format is None or memory_format is formats.preserve_format:
        return array
    return formats.laid_out(np.ascontiguousarray(array), memory_format)


def zeros_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _made(_laid_like(np.zeros_like(input._data, _like(input, dtype)), input, memory_format),
                 device, requires_grad)


def ones_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _made(_laid_like(np.ones_like(input._data, _like(input, dtype)), input, memory_format),
                 device, requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _made(_laid_like(np.full_like(input._data, fill_value, _like(input, dtype)), input, memory_format),
                 device, requires_grad)


def empty_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return zeros_like(input, dtype, device, requires_grad, memory_format)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    return _made(np.eye(n, m, dtype=_float(dtype)), device, requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """start, start + step, ... up to end (excluded), float32 unless every argument is an
    int.  The values are torch's (see :func:`_torch_arange`): computed in double precision
    from ``start`` and the index, then rounded to the dtype -- not added up in float32,
    which drifts (``arange(-8, 8, 0.1)`` would miss 0 by 7.6e-6)."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        whole = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = dtypes.int64 if whole else dtypes.float32
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not all(np.isfinite(float(v)) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    np_dtype = dtypes.to_numpy(dtype)
    if np_dtype.kind in "iu" and all(isinstance(v, (int, np.integer)) for v in (start, end, step)):
        values = np.arange(start, end, step, dtype=np_dtype)       # whole numbers: exact
    else:
        values = _torch_arange(float(start), float(step), int(np.ceil((end - start) / step)), np_dtype)
    return _made(values, device, requires_grad)


def _torch_arange(start, step, n, np_dtype):
    """Entry i is ``start + step * i``, computed in double with one rounding (a fused
    multiply-add) and rounded to the dtype.  torch's CPU kernel (on AVX2, for fewer than
    32768 entries) does so in vectors of 32 bytes: within a vector, entry j is counted
    from the vector's first entry, already rounded to the dtype.  Done the same way, the
    values are torch's to the last bit."""
    i = np.arange(n)
    lanes = 32 // np_dtype.itemsize
    j = i % lanes
    first = _fma(step, i - j, start).astype(np_dtype)
    values = _fma(step, j, first.astype(np.float64)).astype(np_dtype)
    tail = n - n % (2 * lanes)            # what is left after pairs of vectors: one by one
    values[tail:] = _fma(step, i[tail:], start).astype(np_dtype)
    return values


def _fma(a, b, c):
    """``a * b + c`` on float64 arrays, rounded once, as a fused multiply-add rounds (the
    product's rounding error recovered by Dekker's splitting, the sum's by Knuth's two-sum)."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    p = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    p_err = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo   # a * b = p + p_err
    s = p + c
    back = s - p
    s_err = (p - (s - back)) + (c - back)                                  # p + c = s + s_err
    return s + (s_err + p_err)


def _split(x):
    t = 134217729.0 * x                   # 2**27 + 1: the high and low halves of the mantissa
    hi = t - (t - x)
    return hi, x - hi


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from start to end, as torch computes them: the step
    in the result's dtype, the first half counted up from ``start`` and the second half
    down from ``end`` (so both ends are exact), each value rounded once."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    np_dtype = _float(dtype)
    first, last = np_dtype.type(start), np_dtype.type(end)
    step = (last - first) / np_dtype.type(steps - 1) if steps > 1 else np_dtype.type(0)
    i = np.arange(steps)
    up = i < max(steps // 2, 1)
    values = np.where(up, _fma(step, i, first), _fma(-step, steps - 1 - i, last))
    return _made(values.astype(np_dtype), device, requires_grad)


def _random(shape, draw, device, requires_grad):
    """A random tensor of ``shape``; inside al.func.vmap, as its ``randomness`` says:
    refused ("error"), one draw for the batch ("same") or one per sample ("different")."""
    shape, levels = batching.random_shape(shape)
    return batching.wrap(_made(draw(shape), device, requires_grad), levels)


def randn(*dims, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples from the seeded generator (see ``manual_seed``)."""
    rng = _generator(generator)
    return _random(_size("randn", dims, size), lambda s: rng.standard_normal(s).astype(_float(dtype)),
                   device, requires_grad)


def rand(*dims, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1) from the seeded generator."""
    rng = _generator(generator)
    return _random(_size("rand", dims, size), lambda s: rng.random(s).astype(_float(dtype)),
                   device, requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Integers from low (default 0) to high, excluded: ``randint(10, (3,))`` or
    ``randint(0, 10, (3,))``."""
    if size is None:                      # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    rng = _generator(generator)
    return _random(_size("randint", (size,)),
                   lambda s: rng.integers(low, high, s).astype(dtypes.to_numpy(dtype) or np.int64),
                   device, requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """0, ..., n - 1 in a random order."""
    rng = _generator(generator)
    return _random((), lambda s: np.array([rng.permutation(int(n)) for _ in range(math.prod(s))]).reshape(
        s + (int(n),)).astype(dtypes.to_numpy(dtype) or np.int64), device, requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Normal samples: ``normal(0, 1, (2, 3))`` (numbers and a size), or one sample per entry
    of ``mean`` and/or ``std`` tensors (then no size).  Samples are constants: for a
    gradient through mean and std, write ``mean + std * al.randn_like(mean)``."""
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    if any(t.requires_grad for t in tensors):
        raise NotImplementedError("autograd_lab's normal() draws constants; to differentiate with "
                                  "respect to mean and std, write mean + std * al.randn_like(mean)")
    rng = _generator(generator)
    if tensors:
        shape = np.broadcast_shapes(*(t.shape for t in tensors))
        np_dtype = tensors[0]._data.dtype
        m, s = (v._data if isinstance(v, Tensor) else v for v in (mean, std))
        return _made((m + s * rng.standard_normal(shape)).astype(np_dtype), device, requires_grad)
    if size is None:
        raise TypeError("normal(): with a number for mean and for std, give a size: "
                        "normal(0.0, 1.0, (2, 3))")
    return _random(_size("normal", (size,)),
                   lambda s: (mean + std * rng.standard_normal(s)).astype(_float(dtype)), device, requires_grad)


def randn_like(input, dtype=None, device=None, requires_grad=False, generator=None):
    return randn(*input.shape, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad,
                 generator=generator)


def rand_like(input, dtype=None, device=None, requires_grad=False, generator=None):
    return rand(*input.shape, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad,
                generator=generator)


class tensortype(type):
    """torch's legacy tensor types (al.FloatTensor, al.LongTensor, ...): calling one makes
    a tensor of its dtype, the 2018 way (``al.FloatTensor([[1, 2]])``, ``al.FloatTensor(2, 3)``);
    ``isinstance(x, al.FloatTensor)`` asks for the dtype; ``x.type(al.DoubleTensor)`` casts."""

    def __call__(cls, *args):
        return Tensor(*args, dtype=cls.dtype)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.numpy

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _legacy(d):
    return tensortype(dtypes.legacy_type_name(d.numpy), (), {"dtype": d, "__module__": "autograd_lab"})


FloatTensor, DoubleTensor, HalfTensor = map(_legacy, (dtypes.float32, dtypes.float64, dtypes.float16))
LongTensor, IntTensor, ShortTensor = map(_legacy, (dtypes.int64, dtypes.int32, dtypes.int16))
CharTensor, ByteTensor, BoolTensor = map(_legacy, (dtypes.int8, dtypes.uint8, dtypes.bool_))


# -- torch's keywords about where numbers live: pin_memory (which needs a GPU) and out= -------
PINNED = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is "
          "available on this system.")


def _pinnable(fn, out=False):
    """``fn`` taking torch's ``pin_memory=`` -- False, as on any CPU; True is refused in the
    words of a CPU build of torch (pinned memory is for copying to a GPU) -- and, with
    ``out``, torch's ``out=`` (the result written into a given tensor, resized without a
    warning, as torch's factories do: spellings.with_out)."""
    written = with_out(fn, warn_resize=False) if out else None

    @functools.wraps(fn)
    def placed(*args, pin_memory=False, out=None, **kwargs):
        if pin_memory:
            raise RuntimeError(PINNED)
        if out is not None:
            if written is None:
                raise TypeError(f"{fn.__name__}() got an unexpected keyword argument 'out'")
            return written(*args, out=out, **kwargs)
        return fn(*args, **kwargs)
    placed.__signature__ = with_keywords(inspect.signature(fn), ["pin_memory"] + ["out"] * out)
    return placed


tensor, as_tensor, zeros_like, ones_like, empty_like, full_like = map(
    _pinnable, (tensor, as_tensor, zeros_like, ones_like, empty_like, full_like))
zeros, ones, empty, full, eye, arange, linspace, randn, rand, randint = (
    _pinnable(f, out=True) for f in (zeros, ones, empty, full, eye, arange, linspace, randn, rand, randint))
