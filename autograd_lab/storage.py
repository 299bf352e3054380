"""How a tensor's numbers lie in memory, and its shape: ``x.storage()`` (torch.storage's
TypedStorage), ``stride``, ``storage_offset``, ``data_ptr``, ``is_contiguous`` and memory
formats; ``al.Size``; new tensors like another (``new_zeros``, ``new_tensor``,
``type_as``, ...), ``ravel``, and the in-place shape methods (``unsqueeze_``, ``t_``,
``transpose_``, ``squeeze_``, ``resize_``).

A tensor's numbers are a NumPy array.  Strides, the storage and its offset describe that
array, in elements as torch counts them: where NumPy lays numbers out as torch does (a
new tensor row by row, a view of it, a transpose) they agree with torch's; where NumPy
chose another layout for a result, they say NumPy's.  The storage is the memory of the
array the tensor views (its ``base``), read as a flat run of numbers.
"""
import math
import warnings

import numpy as np

from . import creation
from .core import dtypes, inplace, recording, rules
from .formats import contiguous_format, is_laid_out, laid_out, memory_format, preserve_format
from .core.checks import shape_arg, wrap_dim
from .core.modes import state
from .core.tensor import Tensor, install
from .core.userframe import user_level


class Size(tuple):
    """torch.Size: a tuple of sizes, printed as ``al.Size([2, 3])``.  (A tensor's
    ``.shape`` and ``.size()`` are plain tuples in autograd_lab, printed as ``(2, 3)``;
    they compare equal to a Size of the same sizes.)"""

    def __new__(cls, sizes=()):
        items = []
        for i, n in enumerate(sizes):
            if isinstance(n, Tensor) and n.numel() == 1 and n._data.dtype.kind in "biu":
                n = n.item()
            if not isinstance(n, (int, np.integer)):
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(n).__name__}')")
            items.append(int(n))
        return super().__new__(cls, items)

    def __repr__(self):
        return f"al.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, key):
        got = super().__getitem__(key)
        return Size(got) if isinstance(key, slice) else got

    def __add__(self, other):
        return Size(tuple(self) + tuple(other)) if isinstance(other, tuple) else NotImplemented

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, n):
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def numel(self):
        """The number of entries a tensor of these sizes holds."""
        return math.prod(self)


def _copied(x, fmt):
    """A copy of ``x`` laid out in memory format ``fmt``."""
    out = laid_out(x, fmt)
    return np.array(out, order="K") if np.may_share_memory(out, x) else out


# x.contiguous(memory_format=...), x.clone(memory_format=...), x.to(memory_format=...): the
# same numbers, copied into another layout (its gradient is g, as clone's)
relaid = recording.Op("CloneBackward0", _copied,
                      vjp=(lambda g, y, x, fmt: g,), jvp=(lambda t, y, x, fmt: t,), saves=False)


def formatted(x, fmt, copy=False):
    """x laid out in memory format ``fmt``: x itself if it is already (unless ``copy``),
    else a recorded copy (None and al.preserve_format keep x's layout)."""
    if fmt is None or fmt is preserve_format:
        return rules.clone(x) if copy else x
    if not isinstance(fmt, memory_format):
        raise TypeError(f"memory_format must be an al.memory_format such as al.contiguous_format, not {fmt!r}")
    fmt.check(x.ndim)
    return x if not copy and is_laid_out(x._data, fmt) else relaid(x, fmt=fmt)


def root_of(array):
    """The array that owns the memory ``array`` views (through NumPy's as_strided views,
    whose base is a stand-in holding the array they view)."""
    while True:
        base = array.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)        # (stride_tricks' DummyArray)
            if not isinstance(base, np.ndarray):
                return array
        array = base


def _address(array):
    return array.__array_interface__["data"][0]


class TypedStorage:
    """The memory a tensor's numbers lie in, as a flat run of numbers of its dtype (torch's
    x.storage()): shared by the tensor's views, indexable, writable."""

    def __init__(self, tensor):
        root = root_of(tensor._data)
        self._root, self.dtype = root, tensor.dtype
        itemsize = root.dtype.itemsize
        self._flat = np.ndarray((root.nbytes // itemsize,), root.dtype, buffer=root, offset=0) \
            if root.flags.c_contiguous or root.flags.f_contiguous else root.reshape(-1)
        self.device = tensor.device

    def size(self):
        return self._flat.size

    __len__ = size

    def __getitem__(self, i):
        got = self._flat[i]
        return got.tolist() if isinstance(i, slice) else got.item()

    def __setitem__(self, i, value):
        self._flat[i] = value

    def __iter__(self):
        return iter(self._flat.tolist())

    def tolist(self):
        return self._flat.tolist()

    def data_ptr(self):
        return _address(self._flat)

    def element_size(self):
        return self._flat.itemsize

    def nbytes(self):
        return self._flat.nbytes

    def __repr__(self):
        lines = [f" {v}" for v in self._flat.tolist()]
        return "\n".join(lines + [f"[al.storage.TypedStorage(dtype={self.dtype!r}, device=cpu) of size "
                                  f"{self.size()}]"])


class UntypedStorage(TypedStorage):
    """The same memory as bytes (torch's x.untyped_storage())."""

    def __init__(self, tensor):
        super().__init__(tensor)
        self._flat = self._flat.view(np.uint8)
        self.dtype = dtypes.uint8

    def __repr__(self):
        lines = [f" {v}" for v in self._flat.tolist()]
        return "\n".join(lines + [f"[al.storage.UntypedStorage(device=cpu) of size {self.size()}]"])


STORAGE_WARNING = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
                   "the only storage class. This should only matter to you if you are using storages "
                   "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead "
                   "of tensor.storage()")


class StorageMethods:
    # -- how the numbers lie in memory -----------------------------------------------------------
    def stride(self, dim=None):
        """Steps between neighbours along each dimension, in entries (NumPy's strides
        divided by the size of an entry; a tensor of no entries reports the steps of a
        row-by-row layout, as torch's new empty tensors do).  (A dimension of size 1
        never steps: NumPy may report 0 there where torch reports another number.)"""
        a = self._data
        if a.size == 0:
            steps = tuple(int(np.prod(a.shape[d + 1:])) for d in range(a.ndim))
        else:
            steps = tuple(s // a.itemsize for s in a.strides)
        return steps if dim is None else steps[wrap_dim(dim, self.ndim)]

    def storage(self):
        warnings.warn(STORAGE_WARNING, UserWarning, stacklevel=user_level())
        return TypedStorage(self)

    def untyped_storage(self):
        return UntypedStorage(self)

    def storage_offset(self):
        """Where the first entry sits in the storage, in entries."""
        if self._data.size == 0:
            return 0
        return (_address(self._data) - _address(root_of(self._data))) // self._data.itemsize

    def data_ptr(self):
        """The address of the first entry (equal for tensors that share it)."""
        return _address(self._data)

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def is_contiguous(self, memory_format=contiguous_format):
        return is_laid_out(self._data, memory_format)

    def ravel(self):
        """The numbers as one row: a view of a contiguous tensor, else of a copy."""
        return self.contiguous().view(-1)

    # -- new tensors like this one: its dtype unless told otherwise ---------------------------------
    def new_zeros(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        return creation.zeros(*_sizes(sizes, size), dtype=dtype or self.dtype, device=device,
                              requires_grad=requires_grad)

    def new_ones(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        return creation.ones(*_sizes(sizes, size), dtype=dtype or self.dtype, device=device,
                              requires_grad=requires_grad)

    def new_empty(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        return creation.empty(*_sizes(sizes, size), dtype=dtype or self.dtype, device=device,
                              requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
                 pin_memory=False):
        d = dtypes.to_numpy(dtype) or self._data.dtype
        return creation.full(size, np.array(fill_value).astype(d)[()], dtype=dtypes.from_numpy(d), device=device,
                             requires_grad=requires_grad)

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        if isinstance(data, Tensor):
            warnings.warn("To copy construct from a tensor, it is recommended to use "
                          "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
                          "rather than tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=user_level())
            data = data.detach()
        d = dtypes.to_numpy(dtype) or self._data.dtype
        array = np.array(data._data if isinstance(data, Tensor) else data).astype(d)
        return creation.tensor(array, device=device, requires_grad=requires_grad)

    def new(self, *args, **kwargs):
        """The legacy constructor: ``x.new()`` (empty), ``x.new(2, 3)`` (a shape),
        ``x.new([1, 2])`` (numbers), all of x's dtype."""
        if not args:
            return creation.empty(0, dtype=self.dtype, **kwargs)
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
            return creation.empty(*args, dtype=self.dtype, **kwargs)
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0]._data.dtype != self._data.dtype:
                raise TypeError(f"expected {self.dtype!r} (got {args[0].dtype!r})")
            return args[0].detach()
        return creation.tensor(args[0], dtype=self.dtype, **kwargs)

    # the casts torch names after C's types (float, double, long, int, bool: tensor_methods.py)
    def half(self): return self.to(dtypes.float16)
    def short(self): return self.to(dtypes.int16)
    def char(self): return self.to(dtypes.int8)
    def byte(self): return self.to(dtypes.uint8)
    def bfloat16(self): return self.to(dtypes.bfloat16)     # (refused in words: dtypes.unstorable)

    def type_as(self, other):
        """This tensor cast to other's dtype (itself if it has it already)."""
        return self.to(other.dtype)

    # -- the in-place shape methods: the same view, recorded on the tensor ----------------------------
    def unsqueeze_(self, dim):
        return inplace.reshape_in_place(self, UNSQUEEZE_, dim=wrap_dim(dim, self.ndim + 1))

    def squeeze_(self, dim=None):
        view = self.squeeze(dim)
        row = SQUEEZE_ if dim is None else SQUEEZE_DIM_
        return inplace.reshape_in_place(self, row, dim=view.grad_fn.params["dim"] if view.grad_fn else _squeezed_dims(self, dim))

    def t_(self):
        if self.ndim > 2 and not (self.requires_grad and self.is_leaf):   # (torch names a leaf first)
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        return inplace.reshape_in_place(self, T_, dim0=-1, dim1=-2 if self.ndim == 2 else -1)

    def transpose_(self, dim0, dim1):
        n = self.ndim
        return inplace.reshape_in_place(self, TRANSPOSE_, dim0=wrap_dim(dim0, n) if n else -1, dim1=wrap_dim(dim1, n) if n else -1)

    swapdims_ = swapaxes_ = transpose_

    def resize_(self, *sizes, memory_format=None):
        """New sizes, keeping the numbers that fit, in order (new places hold zeros; torch
        leaves them uninitialized).  Refused for a tensor that requires grad, as in torch."""
        shape = shape_arg(sizes)
        if self.requires_grad and state.grad_enabled:
            raise RuntimeError("cannot resize variables that require grad")
        if math.prod(shape) == self._data.size and self._data.flags.c_contiguous:
            return inplace.replace_numbers(self, self._data.reshape(shape))
        new = np.zeros(shape, self._data.dtype)
        keep = min(new.size, self._data.size)
        new.reshape(-1)[:keep] = self._data.reshape(-1)[:keep]
        return inplace.replace_numbers(self, new)

    def resize_as_(self, other, memory_format=None):
        return self.resize_(other.shape)


def _sizes(sizes, size=None):
    """new_zeros(2, 3), new_zeros((2, 3)) or new_zeros(size=(2, 3)): the sizes."""
    if size is not None:
        return tuple(size)
    return tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes


def _squeezed_dims(x, dim):
    many = isinstance(dim, (tuple, list))
    dims = tuple(sorted({wrap_dim(d, x.ndim) for d in (dim if many else (dim,))})) if x.ndim else ()
    return dims if many else dims[0] if dims else 0


# the rows of the in-place shape methods: the out-of-place rows' rules, under torch's names
UNSQUEEZE_ = recording.Op("UnsqueezeBackward1", rules.unsqueeze.forward, vjp=rules.unsqueeze.vjp,
                          jvp=rules.unsqueeze.jvp, saves=False)
SQUEEZE_ = recording.Op("SqueezeBackward3", rules.squeeze.forward, vjp=rules.squeeze.vjp, jvp=rules.squeeze.jvp,
                        saves=False)
SQUEEZE_DIM_ = recording.Op("SqueezeBackward4", rules.squeeze.forward, vjp=rules.squeeze.vjp,
                            jvp=rules.squeeze.jvp, saves=False)
T_ = recording.Op("TBackward1", rules.transpose.forward, vjp=rules.transpose.vjp, jvp=rules.transpose.jvp,
                  saves=False)
TRANSPOSE_ = recording.Op("TransposeBackward1", rules.transpose.forward, vjp=rules.transpose.vjp,
                          jvp=rules.transpose.jvp, saves=False)
recording.register({"__name__": "storage", "relaid": relaid, "unsqueeze_": UNSQUEEZE_, "squeeze_": SQUEEZE_,
                    "squeeze_dim_": SQUEEZE_DIM_, "t_": T_, "transpose_": TRANSPOSE_})


install(StorageMethods)
