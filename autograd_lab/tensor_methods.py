"""Tensor's methods, installed on the class after everything they call exists.

``tensor.py`` defines what a tensor *is* (its array, its grad_fn, its .grad); the
methods that compute (``x + y``, ``x.exp()``, ``x.sum()``, ``x.backward()``) call the
rules table (``rules.py``, ``more_rules.py``), the ``al.*`` functions and the walk, all of which build on
Tensor.  So, as autodidact gives its Box its methods after the wrappers exist, the
methods are gathered here in :class:`TensorMethods` and copied onto Tensor at import:
no module has to import upward.
"""
import builtins
import copy
import warnings

import numpy as np

from . import creation, devices, functions as F, more_rules
from .core import dtypes, engine, inplace, rules, recording, watch
from . import sequence_rules

from . import index_add_rules
from .core.checks import reduction_dims, shape_arg, tensor_of, wrap_dim
from .core.tensor import Tensor, install
from .core.userframe import user_level
from .more_rules import along_key
from .batching import levels_of, numbers, reads_values, wrap
from .spellings import numpy_names
from . import formats, math_rules, storage


class TensorMethods:
    backward = engine.tensor_backward       # (in engine.py, beside the walk it starts)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when the gradient with respect to this tensor is computed;
        a returned tensor replaces the gradient.  Returns a handle with ``remove()``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        node = recording.edge(self)           # a leaf's hooks live on its AccumulateGrad node
        return watch.RemovableHandle(watch.hooks_of(node).tensor, watch.of_its_level(hook))

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` with this leaf once a backward has accumulated its
        gradient into ``.grad`` (to update the parameter there and then, say).  In
        autograd_lab every .grad is written once the whole walk succeeded, so these hooks
        run then, one leaf after another.  Returns a handle with ``remove()``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        return watch.RemovableHandle(watch.hooks_of(recording.edge(self)).accumulated, hook)


    # -- the operators that check their arguments first (the others are rows: rules.py) --
    def __sub__(self, other): return F.checked_sub(self, other)
    def __rsub__(self, other): return F.checked_sub(other, self)
    def __rtruediv__(self, other): return rules.mul(rules.reciprocal(self), other)   # as torch records 2 / x
    def __pow__(self, other): return F.power(self, other)
    def __rpow__(self, other): return rules.pow(other, self)
    def __matmul__(self, other): return rules.matmul(self, other if type(other) is Tensor else tensor_of(other))
    def __rmatmul__(self, other): return rules.matmul(tensor_of(other), self)
    def __pos__(self): return self

    def __invert__(self):
        if self.is_floating_point():
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return rules.bitwise_not(self)

    def __getitem__(self, key):
        if key is None:                   # x[None] adds a leading dimension
            return self.unsqueeze(0)
        return rules.index(self, key=rules.key_of(key))

    # -- math methods ----------------------------------------------------------------
    def exp(self): return rules.exp(self)
    def log(self): return rules.log(self)
    def log1p(self): return rules.log1p(self)
    @numpy_names
    def softmax(self, dim, dtype=None): return F.softmax(self, dim, dtype)
    @numpy_names
    def log_softmax(self, dim, dtype=None): return F.log_softmax(self, dim, dtype)
    def sqrt(self): return rules.sqrt(self)
    def abs(self): return rules.abs(self)
    def sin(self): return rules.sin(self)
    def cos(self): return rules.cos(self)
    def tanh(self): return rules.tanh(self)
    def sigmoid(self): return rules.sigmoid(self)
    def relu(self): return rules.relu(self)
    def sign(self): return rules.sign(self)
    def floor(self): return rules.floor(self)
    def ceil(self): return rules.ceil(self)
    def round(self, *, decimals=0):
        if decimals == 0:
            return rules.round(self)
        if not self.is_floating_point():  # (torch's kernel with decimals is for floats only)
            raise NotImplementedError(f'"round_cpu" not implemented for \'{dtypes.scalar_type_name(self._data.dtype)}\'')
        return math_rules.round_decimals(self, decimals=int(decimals))
    def neg(self): return rules.neg(self)
    def pow(self, exponent): return F.power(self, exponent)
    def add(self, other, alpha=1): return rules.add(self, F.times_alpha(self, other, alpha, "add"))
    def sub(self, other, alpha=1): return F.checked_sub(self, other, alpha)
    def mul(self, other): return rules.mul(self, other)
    def div(self, other, *, rounding_mode=F.NOT_GIVEN):
        return rules.div(self, other) if rounding_mode is F.NOT_GIVEN else F.rounded_div(self, other, rounding_mode)
    def clamp(self, min=None, max=None): return F.checked_clamp(self, min, max)
    clip = clamp
    def maximum(self, other): return rules.maximum(self, F.tensor_arg(other, "maximum", "other", 1))
    def minimum(self, other): return rules.minimum(self, F.tensor_arg(other, "minimum", "other", 1))
    def isnan(self): return rules.isnan(self)
    def isfinite(self): return rules.isfinite(self)
    def isinf(self): return rules.isinf(self)
    def logical_not(self): return rules.logical_not(self)
    def logical_and(self, other): return rules.logical_and(self, other)
    def logical_or(self, other): return rules.logical_or(self, other)
    def logical_xor(self, other): return rules.logical_xor(self, other)

    @numpy_names
    def sum(self, dim=None, keepdim=False, *, dtype=None):
        x = self if dtype is None else self.to(dtype)     # (cast first, as torch)
        return rules.sum(x, dim=reduction_dims(dim, x.ndim), keepdim=keepdim)

    @numpy_names
    def mean(self, dim=None, keepdim=False, *, dtype=None):
        x = self if dtype is None else self.to(dtype)
        return rules.mean(x, dim=reduction_dims(dim, x.ndim), keepdim=keepdim)

    def norm(self, p="fro", dim=None, keepdim=False):
        if p not in ("fro", 2, 2.0):
            raise NotImplementedError(f"autograd_lab implements the 2-norm only, not p={p!r}")
        return rules.norm(self, dim=reduction_dims(dim, self.ndim), keepdim=keepdim)

    @numpy_names
    def max(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):       # x.max(other): maximum, as in torch
            return rules.maximum(self, dim)
        if dim is None:
            _check_not_empty(self, "max")
            return rules.max_all(self)
        return self._pick(rules.argmax, dim, keepdim)

    @numpy_names
    def min(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            return rules.minimum(self, dim)
        if dim is None:
            _check_not_empty(self, "min")
            return rules.min_all(self)
        return self._pick(rules.argmin, dim, keepdim)

    def _pick(self, arg, dim, keepdim):
        """(values, indices) of max/min along dim; like torch, the whole gradient of a
        value goes to the one entry its index names, even when others tie with it.  The
        node keeps its own copy of the indices: changing the returned ones in place does
        not move the gradient (torch refuses such a backward instead).  (Under vmap the
        indices are every sample's, batch dims in front: see rules._batch_pick.)"""
        ndim = self.ndim
        axis = wrap_dim(dim, ndim) % max(ndim, 1)
        _check_not_empty(self, "max" if arg is rules.argmax else "min", axis)
        idx = arg(self, dim=axis, keepdim=True)
        key = along_key(numbers(idx).copy(), axis, self.shape)
        values = (rules.max_dim if arg is rules.argmax else rules.min_dim)(self, key=key, dim=axis, keepdim=keepdim)
        return F.RETURN_TYPES["max" if arg is rules.argmax else "min"](values, idx if keepdim else idx.squeeze(axis))

    @numpy_names
    def amax(self, dim=None, keepdim=False):
        dims = reduction_dims(dim, self.ndim)
        _check_not_empty(self, "amax", dims)
        return rules.amax(self, dim=dims, keepdim=keepdim)

    @numpy_names
    def amin(self, dim=None, keepdim=False):
        dims = reduction_dims(dim, self.ndim)
        _check_not_empty(self, "amin", dims)
        return rules.amin(self, dim=dims, keepdim=keepdim)

    @numpy_names
    def argmax(self, dim=None, keepdim=False):
        _check_not_empty(self, "argmax", dim, IndexError)
        _check_not_bool(self, "argmax")
        return rules.argmax(self, dim=dim, keepdim=keepdim)
    @numpy_names
    def any(self, dim=None, keepdim=False): return more_rules.any_(self, dim=dim, keepdim=keepdim)
    @numpy_names
    def all(self, dim=None, keepdim=False): return more_rules.all_(self, dim=dim, keepdim=keepdim)
    @numpy_names
    def argmin(self, dim=None, keepdim=False):
        _check_not_empty(self, "argmin", dim, IndexError)
        _check_not_bool(self, "argmin")
        return rules.argmin(self, dim=dim, keepdim=keepdim)

    # -- shape -----------------------------------------------------------------------
    def reshape(self, *shape):
        return rules.reshape(self, shape=shape_arg(shape))

    def view(self, *shape):
        """reshape that must share memory: refused where it would have to copy, as in torch."""
        shape = shape_arg(shape)
        probe = self._data.view()
        try:
            probe.shape = shape           # NumPy refuses when the strides cannot express it
        except AttributeError:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                               "least one dimension spans across two contiguous subspaces). Use "
                               ".reshape(...) instead.") from None
        except ValueError:
            pass                          # a size that does not fit: reshape says so, as torch
        return rules.view(self, shape=shape)

    def view_as(self, other): return self.view(other.shape)
    def reshape_as(self, other): return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """The dimensions start_dim..end_dim merged into one."""
        shape = self.shape
        if not shape:
            return self.reshape(1)
        start, end = wrap_dim(start_dim, len(shape)) % len(shape), wrap_dim(end_dim, len(shape)) % len(shape)
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        return self.reshape(shape[:start] + (-1,) + shape[end + 1:]) if start < end else self

    def transpose(self, dim0, dim1):
        n = self.ndim
        dim0, dim1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
        return rules.transpose(self, dim0=dim0, dim1=dim1) if n else rules.transpose(self, dim0=-1, dim1=-1)

    def t(self):
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        return rules.transpose2d(self, dim0=-1, dim1=-2 if self.ndim == 2 else -1)   # a view, even of a vector

    @property
    def T(self):
        if self.ndim != 2:          # torch's deprecation warnings, in its words
            warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                          "these cases." if self.ndim == 0 else
                          "The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                          "is deprecated and it will throw an error in a future release. Consider "
                          "`x.mT` to transpose batches of matrices or "
                          "`x.permute(*al.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                          "tensor.", UserWarning, stacklevel=user_level())
        return rules.permute(self, dims=tuple(range(self.ndim))[::-1])    # a view, even of a vector

    @property
    def mT(self):
        return self.transpose(-2, -1)

    def permute(self, *dims):
        dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        if len(dims) != self.ndim:
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not "
                               "match the length of the desired ordering of dimensions i.e. input.dim() "
                               f"= {self.ndim} is not equal to len(dims) = {len(dims)}")
        if len({wrap_dim(d, self.ndim) for d in dims}) != len(dims):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return rules.permute(self, dims=dims)

    @numpy_names
    def unsqueeze(self, dim):
        return rules.unsqueeze(self, dim=wrap_dim(dim, self.ndim + 1))

    @numpy_names
    def squeeze(self, dim=None):
        if dim is not None:               # only the listed dims of size 1 go, as in torch
            many = isinstance(dim, (tuple, list))
            nd = self.ndim
            dims = tuple(sorted({wrap_dim(d, nd) for d in (dim if many else (dim,))})) if nd else ()
            dim = dims if many else dims[0] if dims else 0      # (a view, even if none is of size 1)
        return rules.squeeze(self, dim=dim)

    def expand(self, *shape):
        shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        if len(shape) < self.ndim:
            raise RuntimeError(f"expand({self.dtype!r}{{{list(self.shape)}}}, size={list(shape)}): the "
                               f"number of sizes provided ({len(shape)}) must be greater or equal to "
                               f"the number of dimensions in the tensor ({self.ndim})")
        for i, n in enumerate(shape[:len(shape) - self.ndim]):
            if n == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
        lead = len(shape) - self.ndim
        for dim in reversed(range(self.ndim)):          # torch names the last one that differs
            want, have = shape[lead + dim], self.shape[dim]
            if want != have and want != -1 and have != 1:
                raise RuntimeError(f"The expanded size of the tensor ({want}) must match the existing "
                                   f"size ({have}) at non-singleton dimension {lead + dim}.  Target sizes: "
                                   f"{list(shape)}.  Tensor sizes: {list(self.shape)}")
        return rules.expand(self, shape=shape)

    def expand_as(self, other):
        return self.expand(other.shape)

    def broadcast_to(self, size):
        return self.expand(size)

    def mm(self, other): return F.checked_mm(self, other)
    def matmul(self, other): return rules.matmul(self, other)
    def dot(self, other): return F.checked_dot(self, other)
    def diag(self, diagonal=0): return F.checked_diag(self, diagonal)

    # -- copies and casts ---------------------------------------------------------------
    def clone(self, *, memory_format=None):
        return storage.formatted(self, memory_format, copy=True)

    def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
        """A cast and/or a move: ``to(al.float64)``, ``to("cpu")``, ``to(device, dtype)``,
        ``to(other)`` (other's dtype).  Only the CPU exists (see ``devices.py``).  A
        ``memory_format`` lays the result out so (``al.channels_last``: see storage.py)."""
        if memory_format is not None:
            return storage.formatted(self.to(*args, dtype=dtype, device=device, copy=copy), memory_format)
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, devices.device)):
                device = a
            else:
                dtype = a
        devices.check(device)
        if dtype is None or dtypes.to_numpy(dtype) == self._data.dtype:
            return rules.clone(self) if copy else self
        np_dtype = dtypes.to_numpy(dtype)
        if np_dtype.kind != "f":          # integers and bools get no gradient: a new leaf, as torch
            return rules.to(self.detach(), dtype=np_dtype)
        return rules.to(self, dtype=np_dtype)

    def type(self, dtype=None, non_blocking=False):
        """Without an argument, torch's legacy name of the tensor's type ('torch.FloatTensor');
        with one (al.FloatTensor, 'torch.FloatTensor' or a dtype), the tensor cast to it."""
        if dtype is None:
            return "torch." + dtypes.legacy_type_name(self._data.dtype)
        if isinstance(dtype, str):
            dtype = dtypes.from_legacy_name(dtype)
        return self.to(getattr(dtype, "dtype", dtype))

    def float(self): return self.to(dtypes.float32)
    def double(self): return self.to(dtypes.float64)
    def long(self): return self.to(dtypes.int64)
    def int(self): return self.to(dtypes.int32)
    def bool(self): return self.to(dtypes.bool_)
    def cpu(self): return self

    def cuda(self, device=None, non_blocking=False):
        return self.to(devices.device("cuda", device))

    def equal(self, other):
        return F.equal(self, other)


    # -- refilling with random numbers from the package's generator (nn.init uses these) ----
    def normal_(self, mean=0, std=1, *, generator=None):
        return self.copy_(creation.normal(mean, std, self.shape, generator=generator, dtype=self.dtype))

    def uniform_(self, from_=0, to=1, *, generator=None):
        return self.copy_(creation.rand(*self.shape, generator=generator, dtype=self.dtype) * (to - from_) + from_)

    @reads_values("masked_fill")          # (its mask's numbers pick the entries)
    def masked_fill(self, mask, value):
        v, key = inplace.masked_args(self, mask, value)
        return rules.masked_fill(self, v, key=key)

    # -- torch's other names for the operations above ---------------------------------
    def eq(self, other): return rules.eq(self, other)
    def ne(self, other): return rules.ne(self, other)
    def gt(self, other): return rules.gt(self, other)
    def ge(self, other): return rules.ge(self, other)
    def lt(self, other): return rules.lt(self, other)
    def le(self, other): return rules.le(self, other)
    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
    subtract, multiply, divide, true_divide = sub, mul, div, div
    absolute, negative = abs, neg
    swapaxes = swapdims = transpose

    # -- more of torch's operations (issue 36) --------------------------------------------
    def square(self): return F.power(self, 2)
    def rsqrt(self): return more_rules.rsqrt(self)

    def clamp_min(self, min):
        return more_rules.clamp_min_tensor(self, min, None) if isinstance(min, Tensor) else \
            more_rules.clamp_min(_floating_for(self, min), min)

    def clamp_max(self, max):
        return more_rules.clamp_max_tensor(self, None, max) if isinstance(max, Tensor) else \
            more_rules.clamp_max(_floating_for(self, max), max)

    def where(self, condition, y): return F.where(condition, self, y)

    def mv(self, vec): return F.mv(self, vec)

    def contiguous(self, memory_format=None):
        if memory_format is not None and memory_format is not formats.contiguous_format:
            return storage.formatted(self, memory_format)
        return self if self._data.flags.c_contiguous else more_rules.contiguous(self)

    @numpy_names
    def sort(self, dim=-1, descending=False, stable=False):
        """(values, indices) along dim; ties keep their order (a stable sort), NaN counts
        as the largest, as in torch.  NumPy's argsort finds the order, of every sample at
        once under vmap (the dim counted from the end, behind the batch dims)."""
        ndim = self.ndim
        axis = wrap_dim(dim, ndim) % max(ndim, 1)
        data = numbers(self)
        if ndim == 0:
            order = np.zeros(data.shape, np.int64)
        elif descending:                  # stable, largest first: sort the reversed array
            n = self.shape[axis]
            order = n - 1 - np.flip(np.argsort(np.flip(data, axis - ndim), axis - ndim, kind="stable"),
                                    axis - ndim)
        else:
            order = np.argsort(data, axis - ndim, kind="stable")
        key = along_key(order, axis, self.shape) if ndim else ()
        values = more_rules.sort(self, key=key, dim=axis, keepdim=True, stable=bool(stable))
        return F.RETURN_TYPES["sort"](values, wrap(Tensor._make(order.astype(np.int64)), levels_of(self)))

    @numpy_names
    def gather(self, dim, index):
        axis = wrap_dim(dim, self.ndim) % max(self.ndim, 1)
        _index_of(index, "gather(): Expected dtype int32/int64 for index")
        if index.ndim != self.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        n = self.shape[axis] if self.ndim else 1
        idx = numbers(index)              # (every sample's, under vmap: checked entry by entry)
        bad = idx[(idx >= n) | (idx < -n)]
        if bad.size:
            raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {axis} with size {n}")
        return more_rules.gather(self, index, dim=axis)

    @numpy_names
    def index_select(self, dim, index):
        axis = wrap_dim(dim, self.ndim) % max(self.ndim, 1)
        idx = _index_of(index, "index_select(): Expected dtype int32 or int64 for index")
        if idx.ndim > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        n = self.shape[axis] if self.ndim else 1
        if n == 0 and idx.size:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if ((idx >= n) | (idx < -n)).any():
            raise IndexError("index out of range in self")
        return more_rules.index_select(self, key=(slice(None),) * axis + (idx.reshape(-1),))

    @numpy_names
    def narrow(self, dim, start, length):
        axis = wrap_dim(dim, self.ndim) % max(self.ndim, 1)
        n = self.shape[axis]
        start = start + n if start < 0 else start
        if start + length > n:
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
        return more_rules.narrow(self, key=(slice(None),) * axis + (slice(start, start + length),))

    @numpy_names
    def select(self, dim, index):
        axis = wrap_dim(dim, self.ndim) % max(self.ndim, 1)
        n = self.shape[axis]
        if not -n <= index < n:
            raise IndexError(f"select(): index {index} out of range for tensor of size "
                             f"{list(self.shape)} at dimension {axis}")
        return rules.index(self, key=(slice(None),) * axis + (index,))

    def split(self, split_size, dim=0):
        axis = wrap_dim(dim, self.ndim) % max(self.ndim, 1)
        n = self.shape[axis]
        if isinstance(split_size, (list, tuple)):
            if builtins.sum(split_size) != n:
                raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                                   f"tensor's size at dimension {axis}), but got split_sizes={list(split_size)}")
            sizes, named = list(split_size), True
        else:
            if split_size == 0 and n:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                                   f"size of {n}")
            sizes, named = [builtins.min(split_size, n - i) for i in range(0, n, split_size)] or [0], False
        starts = np.cumsum([0] + sizes[:-1])
        return tuple(more_rules.split(self, key=(slice(None),) * axis + (slice(a, a + k),), sizes=named)
                     for a, k in zip(starts.tolist(), sizes))

    @numpy_names
    def chunk(self, chunks, dim=0):
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        n = self.shape[wrap_dim(dim, self.ndim)]
        return self.split(-(-n // chunks) if n else 1, dim)

    def repeat(self, *sizes):
        sizes = shape_arg(sizes)
        if len(sizes) < self.ndim:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                               "dimensions of tensor")
        return more_rules.repeat(self, repeats=sizes)

    def movedim(self, source, destination):
        nd = self.ndim
        src = [wrap_dim(d, nd) % max(nd, 1) for d in (source if isinstance(source, (tuple, list)) else [source])]
        dst = [wrap_dim(d, nd) % max(nd, 1) for d in
               (destination if isinstance(destination, (tuple, list)) else [destination])]
        order = [d for d in range(nd) if d not in src]
        for d, s in sorted(zip(dst, src)):
            order.insert(d, s)
        return rules.permute(self, dims=tuple(order))

    moveaxis = movedim

    # -- taken apart along a dimension, as recurrent layers do (sequence_rules.py) --------
    def __iter__(self):
        """``for row in x``: the rows, as torch takes them (x.unbind(0): UnbindBackward0)."""
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def unbind(self, dim=0):
        """The slices along ``dim``, as a tuple (each UnbindBackward0)."""
        if self.ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        axis = wrap_dim(dim, self.ndim) % self.ndim
        return tuple(sequence_rules.unbind(self, key=(slice(None),) * axis + (i,)) for i in range(self.shape[axis]))

    def unsafe_split(self, split_size, dim=0):
        """split's pieces, which torch does not track as views of this tensor."""
        axis = wrap_dim(dim, self.ndim) % max(self.ndim, 1)
        n = self.shape[axis]
        if split_size == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        return tuple(sequence_rules.unsafe_split(self, key=(slice(None),) * axis + (slice(a, a + split_size),))
                     for a in (range(0, n, split_size) if n else [0]))

    def unsafe_chunk(self, chunks, dim=0):
        """chunk's pieces, which torch does not track as views of this tensor."""
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        n = self.shape[wrap_dim(dim, self.ndim)]
        return self.unsafe_split(-(-n // chunks) if n else 1, dim)


def _index_of(index, message):
    if not isinstance(index, Tensor) or index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(message)
    return index._data


def _floating_for(x, bound):
    """x, cast to the default float if a float bound meets an integer tensor (as torch)."""
    return x.to(dtypes.float32) if isinstance(bound, float) and x._data.dtype.kind in "biu" else x


def _check_not_bool(x, name):
    if x._data.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")


def _check_not_empty(x, name, dim=None, kind=None):
    """torch's refusals of a max, min or arg-max of nothing."""
    if not x.numel():
        if dim is None or dim == ():
            raise (kind or RuntimeError)(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0." +
                ("" if kind else " Specify the reduction dim with the 'dim' argument."))
        for d in (dim if isinstance(dim, (tuple, list)) else (dim,)):
            d = wrap_dim(d, x.ndim) % max(x.ndim, 1)
            if x.ndim and x.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


install(TensorMethods)
Tensor.backward.__qualname__ = "Tensor.backward"
install(inplace.InPlaceMethods)
for _name in ("add", "sub", "mul", "div", "pow", "clamp", "clip", "relu", "sigmoid", "tanh", "exp", "log",
              "log1p", "sin", "cos", "abs", "neg", "sqrt", "sign", "floor", "ceil", "round"):
    setattr(Tensor, _name + "_", inplace.in_place_method(getattr(Tensor, _name), _name + "_"))
for _name in ("add", "sub", "mul", "truediv"):     # x += v is x.add_(v)
    setattr(Tensor, f"__i{_name}__", inplace.in_place_method(getattr(Tensor, f"__{_name}__"), f"__i{_name}__"))


# -- copy.deepcopy of a tensor (and so of a module: nn/modules.py) -----------------------------
# the fields of a tensor that belong to autograd_lab's machinery, not to its user: a copy is
# a new leaf and starts without them
_MACHINERY = {"_requires_grad", "_grad", "_accumulate", "_retains_grad", "_tangent", "_vbox", "_base", "_seen",
              "_made_in_no_grad", "_swapped", "_inference"}


class DeepCopy:
    def __deepcopy__(self, memo):
        """A new leaf with a copy of the numbers, requires_grad and .grad (copied too), as
        torch copies a leaf -- a parameter without its .grad and other attributes, as
        torch copies a Parameter; tensors sharing memory share the copy of it.  Refused for
        a tensor a graph made, in torch's words."""
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        new = Tensor._make(_copied_memory(self._data, memo))
        memo[id(self)] = new
        new.requires_grad_(self.requires_grad)
        if self.__dict__.get("_is_parameter"):
            new._is_parameter = True
            return new
        if self.grad is not None:
            new.grad = copy.deepcopy(self.grad, memo)
        for name, value in self.__dict__.items():
            if name not in _MACHINERY:
                new.__dict__[name] = copy.deepcopy(value, memo)
        return new


def _copied_memory(data, memo):
    """A copy of ``data``: of the array owning its memory, once per deepcopy (so two views
    of one memory stay views of one memory), seen through the same window."""
    root = data
    while isinstance(root.base, np.ndarray):
        root = root.base
    key = ("autograd_lab memory", id(root))
    if key not in memo:
        memo[key] = root.copy(order="K")
    copied = memo[key]
    if root is data:
        return copied
    offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(data.shape, data.dtype, buffer=copied, offset=offset, strides=data.strides)


install(DeepCopy)

# -- index_add (its row: index_add_rules.py) ------------------------------------------------
class IndexAddMethods:
    def index_add(self, dim, index, source, *, alpha=1):
        """``self`` with ``alpha * source`` added along ``dim`` at the positions ``index``
        names (a position named twice gets both), checked in torch's words."""
        for name, pos, value in (("index", 2, index), ("source", 3, source)):
            if not isinstance(value, Tensor):
                raise TypeError(f"index_add(): argument '{name}' (position {pos}) must be Tensor, "
                                f"not {type(value).__name__}")
        axis = wrap_dim(dim, self.ndim)
        if self.ndim == 0:
            raise NotImplementedError("index_add of a 0-d tensor is not implemented in autograd_lab "
                                      "(index_add of a tensor of one dimension or more is)")
        idx = index._data
        if idx.dtype not in (np.int64, np.int32):
            raise RuntimeError("index_add_(): Expected dtype int32/int64 for index but got: "
                               f"{dtypes.scalar_type_name(idx.dtype)}")
        if idx.ndim > 1:
            raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {idx.ndim} "
                             f"with type: {dtypes.scalar_type_name(idx.dtype)} and size: {list(idx.shape)}")
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(f"index_add_(): self ({dtypes.scalar_type_name(self._data.dtype)}) and "
                               f"source ({dtypes.scalar_type_name(source._data.dtype)}) must have the "
                               "same scalar type")
        n_idx, at = idx.size, axis % self.ndim
        if source.ndim and n_idx != source.shape[wrap_dim(dim, source.ndim)]:
            raise RuntimeError(f"index_add_(): Number of indices ({n_idx}) should be equal to "
                               f"source.size(dim): ({source.shape[wrap_dim(dim, source.ndim)]}), for dim: {at}")
        if source.ndim != self.ndim or any(s != t for i, (s, t) in enumerate(zip(source.shape, self.shape))
                                           if i != at):
            raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                               f"specified dimension. Got self.shape = {list(self.shape)} "
                               f"source.shape = {list(source.shape)}")
        bad = idx[(idx < 0) | (idx >= self.shape[at])]
        if bad.size:
            raise RuntimeError(f"index {bad[0]} is out of bounds for dimension {at} with size "
                               f"{self.shape[at]}")
        return index_add_rules.index_add(self, source, index=idx.reshape(-1), dim=at - self.ndim,
                                         alpha=alpha)


install(IndexAddMethods)
Tensor.index_add_ = inplace.in_place_method(Tensor.index_add, "index_add_")
