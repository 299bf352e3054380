"""Data types, named and promoted the way PyTorch does it.

A tensor's dtype is one of the objects below (``al.float32``, ``al.float64``, ...).
Each wraps the NumPy dtype that actually stores the numbers.  Mixed-dtype arithmetic
follows torch's promotion rules, which differ from NumPy's in two places readers meet:
a Python float meeting an integer tensor gives the *default* float (float32), and an
integer tensor meeting a float32 tensor gives float32, not float64.
"""
import functools

import numpy as np


class dtype:
    __slots__ = ("name", "numpy", "is_floating_point", "is_complex", "itemsize", "_rank")

    def __init__(self, name, numpy_dtype, rank):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy.kind == "f"
        self.is_complex = False
        self.itemsize = self.numpy.itemsize
        self._rank = rank  # (category, size): bool < integers < floats

    def __repr__(self):
        return f"al.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


bool_ = dtype("bool", np.bool_, (0, 1))
uint8 = dtype("uint8", np.uint8, (1, 1))
int8 = dtype("int8", np.int8, (1, 1))
int16 = dtype("int16", np.int16, (1, 2))
int32 = dtype("int32", np.int32, (1, 4))
int64 = dtype("int64", np.int64, (1, 8))
float16 = dtype("float16", np.float16, (2, 2))
float32 = dtype("float32", np.float32, (2, 4))
float64 = dtype("float64", np.float64, (2, 8))

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
_FROM_NUMPY = {d.numpy: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}


class unstorable(dtype):
    """A dtype torch has that NumPy cannot hold numbers in: it can be named, compared and
    passed around (``{"bfloat16": al.bfloat16}``, ``dtype=al.bfloat16`` in a config), but
    a tensor of it cannot be made; trying says why (``NotImplementedError``)."""
    __slots__ = ("why",)

    def __init__(self, name, bits, why):
        self.name, self.why = name, why
        self.is_floating_point, self.is_complex, self.itemsize, self._rank = True, False, bits // 8, (2, bits // 8)

    @property
    def numpy(self):
        raise NotImplementedError(self.why)


bfloat16 = unstorable("bfloat16", 16, "al.bfloat16 is not implemented in autograd_lab: NumPy has no bfloat16 type "
                      "(8 exponent bits, 8 significant bits), so autograd_lab cannot hold numbers in it and round "
                      "them as torch does. Use al.float32 (or al.float16, NumPy's half precision) instead.")
_BY_NAME["bfloat16"] = bfloat16
_BY_NAME.update(float=float32, double=float64, half=float16, long=int64, int=int32)


# torch's names for its dtypes in error messages ("... Got: Long")
_SCALAR_TYPE = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool", "float16": "Half", "float32": "Float", "float64": "Double"}


def scalar_type_name(np_dtype):
    """torch's name of a NumPy dtype as its messages print it: Long, Int, Bool, Float, ..."""
    return _SCALAR_TYPE.get(np_dtype.name, np_dtype.name.capitalize())


# the C++ names torch's matrix products print for a dtype ("float != double")
_CPP_TYPE = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
             "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half", "float32": "float",
             "float64": "double", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>"}


def cpp_type_name(np_dtype):
    """torch's C++ name of a NumPy dtype, as mm's message prints it: float, double, long int."""
    return _CPP_TYPE.get(np_dtype.name, np_dtype.name)


def legacy_type_name(np_dtype):
    """torch's legacy name of a tensor type: FloatTensor, LongTensor, BoolTensor, ..."""
    return scalar_type_name(np_dtype) + "Tensor"


def from_legacy_name(name):
    """The dtype of a legacy type name, 'torch.FloatTensor' (as x.type(name) takes it)."""
    for d in ALL:
        if name in (f"torch.{legacy_type_name(d.numpy)}", f"al.{legacy_type_name(d.numpy)}"):
            return d
    raise ValueError(f"invalid type: {name!r}")


def _by_name(name):
    return _BY_NAME[name]


def from_numpy(np_dtype):
    try:
        return _FROM_NUMPY[np_dtype]
    except KeyError:
        raise TypeError(f"autograd_lab has no dtype for NumPy's {np_dtype}") from None


def to_numpy(d):
    """Accept an ``al`` dtype, a NumPy dtype or a name such as 'float64'."""
    if d is None or isinstance(d, np.dtype):
        return d
    if isinstance(d, dtype):
        return d.numpy
    if isinstance(d, str) and d in _BY_NAME:
        return _BY_NAME[d].numpy
    if d in (float, int, bool):
        return {float: float32, int: int64, bool: bool_}[d].numpy
    try:
        return from_numpy(np.dtype(d)).numpy
    except TypeError:
        raise TypeError(f"dtype must be an al.dtype such as al.float32, not {d!r}") from None


DEFAULT_FLOAT = np.dtype(np.float32)
_SCALAR_DTYPE = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: DEFAULT_FLOAT}


def promote_types(a, b):
    """torch.promote_types of two NumPy dtypes: the higher category wins (bool < integers <
    floats); within one, the wider (uint8 and int8: int16)."""
    return _widest([np.dtype(a), np.dtype(b)])


def can_cast(from_, to):
    """torch.can_cast for results written in place: never down a category (float into an
    integer tensor, integer into bool); within one, any size."""
    return _rank(from_)[0] <= _rank(to)[0]


def _widest(np_dtypes):
    """The dtype that holds every one of the highest category (uint8 and int8: int16)."""
    top = max(_rank(d)[0] for d in np_dtypes)
    return functools.reduce(np.promote_types, [d for d in np_dtypes if _rank(d)[0] == top])


def _rank(np_dtype):
    return _FROM_NUMPY[np_dtype]._rank


def result_type(arrays, scalars):
    """torch.result_type: arrays with dimensions decide, unless a zero-dim array or a
    Python scalar is of a higher category (bool < int < float), in which case the
    zero-dim array's dtype or the scalar's default dtype wins.

    torch reads a Python int as int64, or as uint64 from 2**63 on; it refuses one beyond
    64 bits, and a uint64 one meeting only bools, which it cannot promote."""
    dims = [a.dtype for a in arrays if a.ndim]
    zero = [a.dtype for a in arrays if not a.ndim]
    result = _widest(dims) if dims else None
    if zero:
        z = _widest(zero)
        if result is None or _rank(z)[0] > _rank(result)[0]:
            result = z
    for s in scalars:
        if type(s) is int:
            check_64_bits(s)
            if s > _INT64_MAX and (result is None or result.kind == "b"):
                raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                                   "attempted to promote Bool and UInt64")
        s_dtype = _SCALAR_DTYPE[type(s)] if type(s) in _SCALAR_DTYPE else _SCALAR_DTYPE[float]
        if result is None or _rank(s_dtype)[0] > _rank(result)[0]:
            result = s_dtype
    return result


_INT64_MIN, _INT64_MAX, _UINT64_MAX = -2 ** 63, 2 ** 63 - 1, 2 ** 64 - 1


def fits_64_bits(number):
    """Whether torch can take the Python int ``number`` at all (as int64 or uint64)."""
    return _INT64_MIN <= number <= _UINT64_MAX


def check_64_bits(number):
    """Refuse a Python int beyond 64 bits with torch's words, whatever the tensor's dtype."""
    if not fits_64_bits(number):
        raise OverflowError("int too big to convert" if number > 0 else "can't convert negative int to unsigned")


def as_number(scalar):
    """A NumPy scalar as the Python number torch reads it: its value, except that a NumPy
    bool, not being a Python bool, is read as a float."""
    return float(scalar) if isinstance(scalar, np.bool_) else scalar.item()


@functools.lru_cache(maxsize=None)


def int_range(np_dtype, floats=False):
    """(low, high): the numbers torch lets into integer dtype ``np_dtype``.  An unsigned
    dtype takes ints from -max (they wrap: -1 is 255 in uint8) but floats from 0; floats
    are compared as doubles (so 2.0**63 passes for int64, and wraps); NaN fits nowhere."""
    info = np.iinfo(np_dtype)
    if floats:
        return (0.0 if np_dtype.kind == "u" else float(info.min)), float(info.max)
    return (-info.max if np_dtype.kind == "u" else info.min), info.max


def check_fits(number, np_dtype):
    """Refuse an int that ``np_dtype`` cannot hold, as torch refuses it where it takes a
    number as a value or bound (``where``, ``clamp``, ``**``).  Arithmetic and comparisons
    instead wrap it around, as a C cast does (see ``_promote``).  Like torch, an
    unsigned dtype also takes negatives down to -max, which wrap (uint8: -1 is 255).
    NumPy integers count as ints; beyond 64 bits any dtype refuses (``check_64_bits``)."""
    if isinstance(number, np.integer):
        number = int(number)
    if type(number) is not int:
        return
    check_64_bits(number)
    if np_dtype.kind not in "iu":
        return
    low, high = int_range(np_dtype)
    if not low <= number <= high:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE.get(np_dtype.name, np_dtype.name + '_t')} "
                           f"without overflow")


_C_TYPE = {"int32": "int"}      # the C type torch names in the message above

# the C++ type names some of torch's messages print ("... mask with dtype unsigned char")
_C_NAME = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
           "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
           "bool": "bool"}


def c_type_name(np_dtype):
    return _C_NAME.get(np.dtype(np_dtype).name, np.dtype(np_dtype).name)


class finfo:
    """torch.finfo: the limits of a floating-point dtype (the default float if none; for
    al.bfloat16, the limits of its format, though no tensor holds it here)."""

    def __init__(self, type=None):
        d = from_numpy(DEFAULT_FLOAT) if type is None else type
        if not (isinstance(d, dtype) and d.is_floating_point):
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        if d is bfloat16:                 # 8 exponent bits (float32's), 7 stored fraction bits
            self.dtype, self.bits, self.eps, self.resolution = "bfloat16", 16, 2.0 ** -7, 0.01
            self.max = (2 - 2.0 ** -7) * 2.0 ** 127
            self.min, self.tiny = -self.max, 2.0 ** -126
            self.smallest_normal = self.tiny
            return
        info = np.finfo(d.numpy)
        self.dtype, self.bits = d.name, info.bits
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """torch.iinfo: the limits of an integer dtype."""

    def __init__(self, type):
        if not (isinstance(type, dtype) and type.numpy.kind in "iu"):
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(type.numpy)
        self.dtype, self.bits, self.min, self.max = type.name, info.bits, int(info.min), int(info.max)

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def promote(arrays, floating=False):
    """Cast inputs to torch's result dtype; for an op with real-valued results
    (``floating``), at least the default float."""
    dtype, scalars = None, False
    for a in arrays:                          # the common case: one dtype, nothing to do
        if type(a) is np.ndarray:
            if dtype is None:
                dtype = a.dtype
            elif a.dtype != dtype:
                return _promote(arrays, floating)
        elif isinstance(a, np.generic) or type(a) is int and not fits_64_bits(a):
            return _promote(arrays, floating)
        else:
            scalars = True
    # one dtype and nothing to cast: the arrays as they are
    return arrays if dtype is not None and (dtype.kind == "f" or not (scalars or floating)) else \
        _promote(arrays, floating)


def promote_from(arrays, first, floating):
    """Op inputs promoted from input ``first`` on (``where``: not its condition), and for
    an op with real-valued results (``floating``: exp, sin, ...) integers and bools cast
    to the default float, as torch does."""
    if first:
        arrays[first:] = promote(arrays[first:], floating)
    if floating:
        for i, a in enumerate(arrays):
            if type(a) is np.ndarray and a.dtype.kind in "biu":
                arrays[i] = a.astype(DEFAULT_FLOAT)
    return arrays


def _promote(arrays, floating):
    # a NumPy scalar counts as a Python number (np.True_ as a float: int8 + np.True_ is float32)
    arrays = [as_number(a) if isinstance(a, np.generic) else a for a in arrays]
    target = result_type([a for a in arrays if isinstance(a, np.ndarray)],
                                [a for a in arrays if isinstance(a, (bool, int, float))])
    if target is None:
        return arrays
    if floating and target.kind != "f":   # int8 / 300: the numbers stay whole, the result
        target = DEFAULT_FLOAT     # is float32 (300 never becomes an int8 first)
    if target.kind == "f" and any(isinstance(a, np.ndarray) for a in arrays):
        # a Python number meeting a float array is cast by NumPy to the array's dtype
        return [a.astype(target) if isinstance(a, np.ndarray) and a.dtype != target else a
                for a in arrays]
    return [a.astype(target) if isinstance(a, np.ndarray) and a.dtype != target else
            (_number_as(a, target) if isinstance(a, (bool, int, float)) else a)
            for a in arrays]


def _number_as(number, target):
    """A Python number as a 0-d array of dtype ``target``.  An int the dtype cannot hold
    wraps around, as torch's C cast does (int8: 300 is 44, so 300 + 1 is 45), where
    ``np.asarray(300, np.int8)`` would refuse (``result_type`` has refused ints beyond
    64 bits)."""
    if isinstance(number, float):
        return np.asarray(number, dtype=target)
    return np.array(number).astype(target)
