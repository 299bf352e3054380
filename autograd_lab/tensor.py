"""The Tensor: a NumPy array plus what autograd needs to know about it.

A tensor holds its numbers in ``_data`` (a NumPy array).  A *leaf* is a tensor the
user made; if it ``requires_grad``, backward accumulates into its ``.grad``.  A tensor
computed from others carries ``grad_fn``, the graph node that made it.  Every
arithmetic method below just calls an operation from ``ops.py``, where each operation's
forward and derivative rules live together.
"""
import sys
import warnings

import numpy as np

from . import devices, dtypes
from .modes import state


class Tensor:
    # every tensor has its array and its grad_fn (None for a leaf); attributes that most
    # tensors never set live on the class, so making a tensor is cheap
    __slots__ = ("_data", "grad_fn", "__dict__", "__weakref__")
    _requires_grad = False
    _grad = None
    _accumulate = None      # the AccumulateGrad node of a leaf that requires grad
    _retains_grad = False
    _tangent = None         # forward mode: the tangent carried with this value
    _vbox = None            # [version, grad_fn] of in-place writes, shared with views and detach()es
    _swapped = -1           # state.writes when `x.data = ...` last replaced the array
    _inference = False      # made inside inference_mode
    __array_ufunc__ = None  # make `ndarray * tensor` call Tensor.__rmul__

    def __init__(self, *args, dtype=None, requires_grad=False):
        # the 2018-era constructor: al.Tensor([[1, 2]]) or al.Tensor(2, 3)
        if len(args) == 1 and not isinstance(args[0], int):
            data = np.array(_unwrap(args[0]), dtype=dtypes.to_numpy(dtype) or dtypes.DEFAULT_FLOAT)
        else:
            data = np.zeros(tuple(args), dtype=dtypes.to_numpy(dtype) or dtypes.DEFAULT_FLOAT)
        self._data = data
        self.grad_fn = None
        if requires_grad:
            self.requires_grad = True

    @classmethod
    def _make(cls, array):
        t = object.__new__(Tensor)
        t._data = array
        t.grad_fn = None
        return t

    # -- what it is ------------------------------------------------------------
    @property
    def shape(self):
        return self._data.shape

    def size(self, dim=None):
        return self._data.shape if dim is None else self._data.shape[dim]

    @property
    def dtype(self):
        return dtypes.from_numpy(self._data.dtype)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    @property
    def device(self):
        return devices.CPU

    is_cuda = False

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_inference(self):
        return self._inference

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def requires_grad(self):
        return self.grad_fn is not None or self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        if self.grad_fn is not None:
            if not flag:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return
        if flag and self._data.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               f"gradients (this tensor is {self.dtype!r}; make it with "
                               "dtype=al.float32 or call .float() first)")
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor "
                    f"of size '{list(self.shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype!r}' to a tensor "
                    f"with dtype '{self.dtype!r}'. Please ensure that the gradient and the "
                    "tensor have the same dtype")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def data(self):
        """The same numbers, detached from the graph (shares memory, as in torch)."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self.requires_grad and value._data.dtype.kind not in "fc":
            raise RuntimeError("data set to a tensor that requires gradients must be floating point "
                               "or complex dtype")
        self._data = value._data
        state.writes += 1                 # nodes that saved this tensor look again (engine._check_versions)
        self._swapped = state.writes

    # -- graph ------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        engine.backward(self, gradient, retain_graph, create_graph,
                        inputs=None if inputs is None else (inputs if isinstance(inputs, (list, tuple)) else [inputs]))

    def retain_grad(self):
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None and not self._retains_grad:
            self._retains_grad = True
            import weakref
            self.grad_fn.retain = weakref.ref(self)

    @property
    def retains_grad(self):
        return self._retains_grad

    def register_hook(self, hook):
        """Call ``hook(grad)`` when the gradient with respect to this tensor is computed;
        a returned tensor replaces the gradient.  Returns a handle with ``remove()``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        node = graph.edge(self)           # a leaf's hooks live on its AccumulateGrad node
        if node.hooks is None:
            node.hooks = []
        hooks = node.hooks
        hooks.append(hook)
        return _HookHandle(hooks, hook)

    def detach(self):
        """The same numbers (shared memory and version counter), outside the graph."""
        t = Tensor._make(self._data)
        t._vbox = self._box()
        return t

    def detach_(self):
        if self.grad_fn is not None:
            self.grad_fn = None
        self._requires_grad = False
        return self

    # -- leaving autograd_lab ----------------------------------------------------
    def numpy(self):
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.item()

    def tolist(self):
        return self._data.tolist()

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data)

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._scalar())

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.item()

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self):
        from .printing import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec):
        if self._data.ndim == 0:          # like torch: f"{t}" of a 0-d tensor is its number
            return format(self._data.item(), spec)
        return format(repr(self), spec)

    __hash__ = object.__hash__

    def __reduce__(self):
        raise TypeError("autograd_lab tensors are not picklable; save t.detach().numpy() instead")

    # -- arithmetic: every operator is a row of the rules table (ops.py) -------------
    def __add__(self, other): return ops.add(self, other)
    def __radd__(self, other): return ops.add(self, other)       # torch lists self first
    def __sub__(self, other): return _sub(self, other)
    def __rsub__(self, other): return _sub(other, self)
    def __mul__(self, other): return ops.mul(self, other)
    def __rmul__(self, other): return ops.mul(self, other)
    def __truediv__(self, other): return ops.div(self, other)
    def __rtruediv__(self, other): return ops.mul(ops.reciprocal(self), other)   # as torch records 2 / x
    def __pow__(self, other): return ops.power(self, other)
    def __rpow__(self, other): return ops.pow(other, self)
    def __matmul__(self, other): return ops.matmul(self, other if type(other) is Tensor else _as_tensor(other))
    def __rmatmul__(self, other): return ops.matmul(_as_tensor(other), self)
    def __neg__(self): return ops.neg(self)
    def __pos__(self): return self
    def __abs__(self): return ops.abs(self)
    def __gt__(self, other): return ops.gt(self, other)
    def __ge__(self, other): return ops.ge(self, other)
    def __lt__(self, other): return ops.lt(self, other)
    def __le__(self, other): return ops.le(self, other)
    def __eq__(self, other): return ops.eq(self, other)
    def __ne__(self, other): return ops.ne(self, other)
    def __and__(self, other): return ops.bitwise_and(self, other)
    def __rand__(self, other): return ops.bitwise_and(other, self)
    def __or__(self, other): return ops.bitwise_or(self, other)
    def __ror__(self, other): return ops.bitwise_or(other, self)
    def __invert__(self):
        if self._data.dtype.kind == "f":
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return ops.bitwise_not(self)

    def __getitem__(self, key):
        if key is None:                   # x[None] adds a leading dimension
            return self.unsqueeze(0)
        return ops.index(self, key=ops.key_of(key))

    # -- math methods ----------------------------------------------------------------
    def exp(self): return ops.exp(self)
    def log(self): return ops.log(self)
    def log1p(self): return ops.log1p(self)
    def softmax(self, dim, dtype=None): return functions.softmax(self, dim, dtype)
    def log_softmax(self, dim, dtype=None): return functions.log_softmax(self, dim, dtype)
    def sqrt(self): return ops.sqrt(self)
    def abs(self): return ops.abs(self)
    def sin(self): return ops.sin(self)
    def cos(self): return ops.cos(self)
    def tanh(self): return ops.tanh(self)
    def sigmoid(self): return ops.sigmoid(self)
    def relu(self): return ops.relu(self)
    def sign(self): return ops.sign(self)
    def floor(self): return ops.floor(self)
    def ceil(self): return ops.ceil(self)
    def round(self): return ops.round(self)
    def neg(self): return ops.neg(self)
    def pow(self, exponent): return ops.power(self, exponent)
    def add(self, other, alpha=1): return ops.add(self, _times_alpha(self, other, alpha, "add"))
    def sub(self, other, alpha=1): return _sub(self, other, alpha)
    def mul(self, other): return ops.mul(self, other)
    def div(self, other): return ops.div(self, other)
    def clamp(self, min=None, max=None): return _clamp(self, min, max)
    clip = clamp
    def maximum(self, other): return ops.maximum(self, other)
    def minimum(self, other): return ops.minimum(self, other)
    def isnan(self): return ops.isnan(self)
    def isfinite(self): return ops.isfinite(self)
    def isinf(self): return ops.isinf(self)
    def logical_not(self): return ops.logical_not(self)
    def logical_and(self, other): return ops.logical_and(self, other)
    def logical_or(self, other): return ops.logical_or(self, other)

    def sum(self, dim=None, keepdim=False):
        return ops.sum(self, dim=_dims(dim, self._data.ndim), keepdim=keepdim)

    def mean(self, dim=None, keepdim=False):
        return ops.mean(self, dim=_dims(dim, self._data.ndim), keepdim=keepdim)

    def norm(self, p="fro", dim=None, keepdim=False):
        if p not in ("fro", 2, 2.0):
            raise NotImplementedError(f"autograd_lab implements the 2-norm only, not p={p!r}")
        return ops.norm(self, dim=_dims(dim, self._data.ndim), keepdim=keepdim)

    def max(self, dim=None, keepdim=False):
        if dim is None:
            return ops.max_all(self)
        return self._pick(ops.argmax, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        if dim is None:
            return ops.min_all(self)
        return self._pick(ops.argmin, dim, keepdim)

    def _pick(self, arg, dim, keepdim):
        """(values, indices) of max/min along dim; like torch, the whole gradient of a
        value goes to the one entry its index names, even when others tie with it.  The
        node keeps its own copy of the indices: changing the returned ones in place does
        not move the gradient (torch refuses such a backward instead)."""
        ndim = self._data.ndim
        axis = _neg(dim, ndim) % max(ndim, 1)
        idx = arg(self, dim=axis, keepdim=True)
        key = tuple(idx._data.copy() if a == axis else
                    np.arange(n).reshape([-1 if b == a else 1 for b in range(ndim)])
                    for a, n in enumerate(self._data.shape))
        values = (ops.max_dim if arg is ops.argmax else ops.min_dim)(self, key=key, dim=axis, keepdim=keepdim)
        return _MinMax(values, idx if keepdim else idx.squeeze(axis))

    def amax(self, dim=None, keepdim=False): return ops.amax(self, dim=_dims(dim, self.ndim), keepdim=keepdim)
    def amin(self, dim=None, keepdim=False): return ops.amin(self, dim=_dims(dim, self.ndim), keepdim=keepdim)
    def argmax(self, dim=None, keepdim=False): return ops.argmax(self, dim=dim, keepdim=keepdim)
    def argmin(self, dim=None, keepdim=False): return ops.argmin(self, dim=dim, keepdim=keepdim)

    # -- shape -----------------------------------------------------------------------
    def reshape(self, *shape):
        return ops.reshape(self, shape=_shape(shape, self._data.size))

    def view(self, *shape):
        """reshape that must share memory: refused where it would have to copy, as in torch."""
        shape = _shape(shape, self._data.size)
        probe = self._data.view()
        try:
            probe.shape = shape           # NumPy refuses when the strides cannot express it
        except AttributeError:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                               "least one dimension spans across two contiguous subspaces). Use "
                               ".reshape(...) instead.") from None
        except ValueError:
            pass                          # a size that does not fit: reshape says so, as torch
        return ops.reshape(self, shape=shape)

    def view_as(self, other): return self.view(other.shape)
    def reshape_as(self, other): return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """The dimensions start_dim..end_dim merged into one."""
        shape = self._data.shape
        if not shape:
            return self.reshape(1)
        start, end = _neg(start_dim, len(shape)) % len(shape), _neg(end_dim, len(shape)) % len(shape)
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        return self.reshape(shape[:start] + (-1,) + shape[end + 1:]) if start < end else self

    def transpose(self, dim0, dim1):
        n = self._data.ndim
        dim0, dim1 = _neg(dim0, n), _neg(dim1, n)
        return ops.transpose(self, dim0=dim0, dim1=dim1) if n else ops.clone(self)

    def t(self):
        if self._data.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
        return ops.t(self, dim0=-1, dim1=-2) if self._data.ndim == 2 else self

    @property
    def T(self):
        if self._data.ndim != 2:          # torch's deprecation warnings, in its words
            warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                          "these cases." if self._data.ndim == 0 else
                          "The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                          "is deprecated and it will throw an error in a future release. Consider "
                          "`x.mT` to transpose batches of matrices or "
                          "`x.permute(*al.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                          "tensor.", UserWarning, stacklevel=_user_level())
        return ops.permute(self, dims=tuple(range(self._data.ndim))[::-1])    # a view, even of a vector

    @property
    def mT(self):
        return self.transpose(-2, -1)

    def permute(self, *dims):
        dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        if len(dims) != self._data.ndim:
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not "
                               "match the length of the desired ordering of dimensions i.e. input.dim() "
                               f"= {self._data.ndim} is not equal to len(dims) = {len(dims)}")
        if len({_neg(d, self._data.ndim) for d in dims}) != len(dims):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return ops.permute(self, dims=dims)

    def unsqueeze(self, dim):
        return ops.unsqueeze(self, dim=_neg(dim, self._data.ndim + 1))

    def squeeze(self, dim=None):
        if dim is not None:               # only the listed dims of size 1 go, as in torch
            many = isinstance(dim, (tuple, list))
            nd = self._data.ndim
            dims = tuple(sorted({_neg(d, nd) for d in (dim if many else (dim,))}))
            dims = tuple(d for d in dims if nd and self._data.shape[d] == 1)
            if not dims:
                return self
            dim = dims if many else dims[0]
        return ops.squeeze(self, dim=dim)

    def expand(self, *shape):
        shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        if len(shape) < self._data.ndim:
            raise RuntimeError(f"expand({self.dtype!r}{{{list(self.shape)}}}, size={list(shape)}): the "
                               f"number of sizes provided ({len(shape)}) must be greater or equal to "
                               f"the number of dimensions in the tensor ({self._data.ndim})")
        for i, n in enumerate(shape[:len(shape) - self._data.ndim]):
            if n == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
        return ops.expand(self, shape=shape)

    def expand_as(self, other):
        return self.expand(other.shape)

    def mm(self, other): return _mm(self, other)
    def matmul(self, other): return ops.matmul(self, other)
    def dot(self, other): return _dot(self, other)

    # -- copies and casts ---------------------------------------------------------------
    def clone(self): return ops.clone(self)

    def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False):
        """A cast and/or a move: ``to(al.float64)``, ``to("cpu")``, ``to(device, dtype)``,
        ``to(other)`` (other's dtype).  Only the CPU exists (see ``devices.py``)."""
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, devices.device)):
                device = a
            else:
                dtype = a
        devices.check(device)
        if dtype is None or dtypes.to_numpy(dtype) == self._data.dtype:
            return ops.clone(self) if copy else self
        return ops.to(self, dtype=dtypes.to_numpy(dtype))

    def type(self, dtype=None):
        return self.dtype if dtype is None else self.to(dtype)

    def float(self): return self.to(dtypes.float32)
    def double(self): return self.to(dtypes.float64)
    def long(self): return self.to(dtypes.int64)
    def int(self): return self.to(dtypes.int32)
    def bool(self): return self.to(dtypes.bool_)
    def cpu(self): return self

    def cuda(self, device=None, non_blocking=False):
        return self.to(devices.device("cuda", device))

    def equal(self, other):
        return functions.equal(self, other)

    # -- in place (for tensors outside the graph, as torch allows) ---------------
    # Every in-place write bumps the tensor's version.  A node that saved a tensor
    # remembers the version it saw, and the engine refuses to use a value changed since
    # (torch's "modified by an inplace operation").  Views (reshape, transpose, slicing)
    # and detach() share the counter with their source; .data does not (in torch too:
    # that is what makes .data unsafe).
    @property
    def _version(self):
        return self._vbox[0] if self._vbox is not None else 0

    def _box(self):
        """[version, node that made these numbers]: shared by this tensor, its views and
        its detach()es."""
        if self._vbox is None:
            self._vbox = [0, self.grad_fn]
        return self._vbox

    def _bump(self):
        box = self._box()
        box[0] += 1
        state.writes += 1
        if box[1] is not None:            # the node that computed these numbers may have saved them
            box[1].out_written = True

    def _check_inplace(self, value=None):
        if not state.grad_enabled:
            return
        if self.grad_fn is None and self._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if self.grad_fn is not None or (isinstance(value, Tensor) and value.requires_grad):
            raise RuntimeError(
                "autograd_lab does not record in-place operations on tensors that are part of a "
                "graph; write y = y + 1 instead of y += 1, or use al.where / al.cat to build a "
                "new tensor.")

    def _check_writable(self, value):
        self._check_inplace(value)
        if not self._data.flags.writeable:  # an expand()ed view: one number seen many times
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.")

    def _write(self, value, key=Ellipsis):
        self._check_writable(value)
        self._data[key] = value._data if isinstance(value, Tensor) else value
        self._bump()
        return self

    def _inplace(self, out_of_place, other):
        """x.add_(v), x += v: the out-of-place result, with torch's promotion, wrap-around
        and refusals, written into x's memory when x's shape and dtype can hold it."""
        self._check_writable(other)
        result = out_of_place(self, other)._data
        if result.shape != self._data.shape:
            raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the "
                               f"broadcast shape {list(result.shape)}")
        if not dtypes.can_cast(result.dtype, self._data.dtype):
            raise RuntimeError(f"result type {dtypes.scalar_type_name(result.dtype)} can't be cast "
                               f"to the desired output type {dtypes.scalar_type_name(self._data.dtype)}")
        np.copyto(self._data, result, casting="unsafe")
        self._bump()
        return self

    def _augmented(self, other, out_of_place):
        """x += v: in place when no graph is involved; otherwise the name is rebound to a
        new, recorded tensor (torch would rebase the graph in place)."""
        if state.grad_enabled and (self.requires_grad or (isinstance(other, Tensor) and other.requires_grad)):
            if self.grad_fn is None and self._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
            return out_of_place(self, other)
        return self._inplace(out_of_place, other)

    def zero_(self):
        return self._write(0)

    def fill_(self, value):
        return self._write(value)

    def copy_(self, src):
        return self._write(src)

    def __setitem__(self, key, value):
        # torch writes one value through a lone mask with masked_fill_, which takes bool
        # masks only (after checking the mask's shape; it reads no uint8 mask: no warning)
        fill = np.size(_unwrap(value)) == 1 and _one_uint8_mask(key)
        arrays = _key(key, warn=not fill)
        _check_masks(self._data.shape, arrays)
        if fill:
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                               "unsigned char")
        return self._write(value, arrays)

    def add_(self, other, alpha=1):
        return self._inplace(lambda x, v: x.add(v, alpha), other)

    def sub_(self, other, alpha=1):
        return self._inplace(lambda x, v: _sub(x, v, alpha), other)

    def mul_(self, other):
        return self._inplace(Tensor.mul, other)

    def div_(self, other):
        return self._inplace(Tensor.div, other)

    def __iadd__(self, other):
        return self._augmented(other, Tensor.__add__)

    def __isub__(self, other):
        return self._augmented(other, Tensor.__sub__)

    def __imul__(self, other):
        return self._augmented(other, Tensor.__mul__)

    def __itruediv__(self, other):
        return self._augmented(other, Tensor.__truediv__)


class _HookHandle:
    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class _MinMax(tuple):
    """(values, indices), as torch's max(dim) returns them."""
    _fields = ("values", "indices")   # a named tuple: rebuilt field by field (func's aux)

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])


def _neg(dim, ndim):
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {dim})")
    return dim - ndim if dim >= 0 else dim


def _dims(dim, ndim):
    """Check reduction dims as torch does; a 0-d tensor reduces over nothing."""
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return None                   # dim=() or []: every dimension, as in torch
    dims = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    checked = [_neg(d, ndim) for d in dims]
    for d in checked:
        if checked.count(d) > 1:
            raise RuntimeError(f"dim {d % max(ndim, 1)} appears multiple times in the list of dims")
    if ndim == 0:
        return ()
    return tuple(dims) if isinstance(dim, (list, tuple)) else dim


def _shape(shape, size):
    shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else tuple(shape)
    return tuple(int(s) for s in shape)


def _as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor._make(np.asarray(_unwrap(x)))


def _sub(a, b, alpha=1):
    """a - alpha * b, refusing bool tensors with torch's words."""
    bools = _is_bool(a) + _is_bool(b)
    if bools == 2:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if bools:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return ops.sub(a, _times_alpha(a, b, alpha, "sub"))


def _times_alpha(x, other, alpha, name):
    """``alpha * other`` for ``add``/``sub``, with torch's checks on alpha: a number, a float
    only if a float is involved, a bool only between bools (where it acts as a bool)."""
    if type(alpha) is int and alpha == 1:
        return other
    if not isinstance(alpha, (bool, int, float, np.number, np.bool_)):
        raise TypeError(f"{name}(): argument 'alpha' must be Number, not {type(alpha).__name__}")
    if isinstance(other, np.generic):
        other = dtypes.as_number(other)
    if type(other) is int:
        dtypes.check_64_bits(other)
    if _is_bool(x) and _is_bool(other):
        return other if alpha else other & False
    if isinstance(alpha, (bool, np.bool_)):
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    floats = [v._data.dtype.kind == "f" if isinstance(v, Tensor) else isinstance(v, float) for v in (x, other)]
    if isinstance(alpha, (float, np.floating)) and not any(floats):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if floats[0] and isinstance(other, int):      # torch scales the number as a double
        other = float(other)
    return other * alpha


def _is_bool(v):
    """A bool tensor, or a Python bool (which torch treats as one; a NumPy bool it reads
    as a float)."""
    return v._data.dtype.kind == "b" if isinstance(v, Tensor) else isinstance(v, bool)


def _clamp(x, min, max):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    bounds = []
    for b in (min, max):
        if isinstance(b, Tensor):
            if b.requires_grad:
                raise NotImplementedError("autograd_lab's clamp takes constant bounds; for bounds that "
                                          "need gradients write al.minimum(al.maximum(x, lo), hi)")
            b = b._data
        bounds.append(b.item() if isinstance(b, np.generic) else b)     # as Python numbers
    if x._data.dtype.kind in "biu" and any(isinstance(b, float) or np.asarray(b).dtype.kind == "f"
                                          for b in bounds if b is not None):
        x = x.to(dtypes.float32)          # a float bound makes the result float, as in torch
    for i, b in enumerate(bounds):        # an int bound must fit x's dtype, and takes it
        dtypes.check_fits(b, x._data.dtype)  # (uint8: -1 is 255), as in torch
        if x._data.dtype.kind in "iu" and type(b) is int:
            bounds[i] = np.array(b).astype(x._data.dtype)
    return ops.clamp(x, min=bounds[0], max=bounds[1])


def _mm(a, b):
    for name, m in (("self", a), ("mat2", b)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix (got a {m.ndim}D tensor of shape {tuple(m.shape)})")
    return ops.matmul(a, b)


def _dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return ops.matmul(a, b)


def _unwrap(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def _one_uint8_mask(key):
    """Whether the index is one uint8 mask (at least 1-d) among plain indices: ints,
    slices, None, ... and 0-d integer tensors."""
    masks = 0
    for k in key if type(key) is tuple else (key,):
        if isinstance(k, Tensor) and k._data.ndim and k._data.dtype == np.uint8:
            masks += 1
        elif isinstance(k, (Tensor, list, np.ndarray)) and not (
                isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype.kind == "i"):
            return False
    return masks == 1


def _check_masks(shape, key):
    """Refuse, with torch's words, a bool mask whose shape does not match the dimensions it
    indexes.  As torch, ints and slices apply first: the shape named is the one they leave."""
    key = key if type(key) is tuple else (key,)
    claimed = sum(k.ndim if _is_mask(k) else 0 if k is None or k is Ellipsis else 1 for k in key)
    dims, left, masks = [], list(shape), []
    for k in key:
        if k is Ellipsis:                   # the dimensions no other entry claims
            take = max(len(shape) - claimed, 0)
            dims, left = dims + left[:take], left[take:]
        elif k is None:
            dims.append(1)
        elif not left:
            return                          # too many indices: NumPy's own error follows
        elif _is_mask(k):
            masks.append((k, len(dims)))
            dims, left = dims + left[:k.ndim], left[k.ndim:]
        elif isinstance(k, slice):
            dims.append(len(range(*k.indices(left.pop(0)))))
        elif isinstance(k, np.ndarray):     # integer indices: the dimension stays for now
            dims.append(left.pop(0))
        else:                               # an int: applied before the masks are read
            left.pop(0)
    dims += left
    for mask, start in masks:
        for j, n in enumerate(mask.shape):
            if start + j >= len(dims) or dims[start + j] != n:
                raise IndexError(f"The shape of the mask {list(mask.shape)} at index {j} does not "
                                 f"match the shape of the indexed tensor {dims} at index {start + j}")


def _is_mask(k):
    return isinstance(k, np.ndarray) and k.dtype == bool


def _key(key, warn=True):
    """An index with tensors and lists replaced by arrays (bool masks, integer indices),
    so that advanced indexing is recognised wherever it appears in the key."""
    if isinstance(key, tuple):
        return tuple(_key(k, warn) for k in key)
    if isinstance(key, Tensor):           # a 0-d integer tensor indexes like an int: a view
        if key._data.dtype == np.uint8:   # torch still reads uint8 as a mask (a 0-d one quietly)
            if warn and key._data.ndim:
                warnings.warn("indexing with dtype al.uint8 is now deprecated, please use a dtype "
                              "al.bool instead.", UserWarning, stacklevel=_user_level())
            return key._data.astype(bool)
        return int(key._data) if key._data.ndim == 0 and key._data.dtype.kind == "i" else key._data
    if isinstance(key, list):
        a = np.asarray(_unwrap(key))
        return a.astype(np.intp) if a.size == 0 else a      # [] picks nothing (not a float index)
    return key


def _user_level():
    """The stacklevel of a warning that names the user's line, the first outside this package."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _ours(frame.f_globals.get("__name__", "")):
        frame, level = frame.f_back, level + 1
    return level


def _ours(module):
    return module == "autograd_lab" or module.startswith("autograd_lab.")


from . import engine, functions, graph, ops  # noqa: E402  (they build on Tensor; Tensor's methods call them)
