"""The Tensor: a NumPy array plus what autograd needs to know about it.

A tensor holds its numbers in ``_data`` (a NumPy array).  A *leaf* is a tensor the
user made; if it ``requires_grad``, backward accumulates into its ``.grad``.  A tensor
computed from others carries ``grad_fn``, the graph node that made it.  Every
arithmetic method below just calls an operation from ``ops.py``, where each operation's
forward and derivative rules live together.  An in-place method (``x.add_(v)``,
``x[mask] = 0``) is its out-of-place operation written into the tensor's memory and
recorded as the tensor's new history (see the in-place section).
"""
import sys
import threading
import warnings
import weakref

import numpy as np

from . import devices, dtypes
from .modes import state


VIEW_OF_A_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."


class Tensor:
    # every tensor has its array and its grad_fn (None for a leaf); attributes that most
    # tensors never set live on the class, so making a tensor is cheap
    __slots__ = ("_data", "_grad_fn", "__dict__", "__weakref__")
    _requires_grad = False
    _grad = None
    _accumulate = None      # the AccumulateGrad node of a leaf that requires grad
    _retains_grad = False
    _tangent = None         # forward mode: the tangent carried with this value
    _vbox = None            # [version, node that computed the numbers]: shared with views and detach()es
    _base = None            # a view: the tensor whose memory it views (torch's ._base)
    _seen = 0               # a view: the version its grad_fn was made at (see grad_fn)
    _made_in_no_grad = False  # a view made under no_grad
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
        self._grad_fn = None
        if requires_grad:
            self.requires_grad = True

    @staticmethod
    def _make(array):
        """A tensor of ``array``, made as cheaply as Python allows (every operation makes one)."""
        t = object.__new__(Tensor)
        t._data = array
        t._grad_fn = None
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
    def grad_fn(self):
        """The node that made this tensor (None for a leaf).  A view whose base was written
        in place since gets the base's new history, as in torch (AsStridedBackward0)."""
        if self._base is not None and self._seen != self._vbox[0]:
            self._see_base()
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

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
        self._swapped = state.swapped = state.writes

    # -- graph ------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        engine.backward(self, gradient, retain_graph, create_graph,
                        inputs=None if inputs is None else (inputs if isinstance(inputs, (list, tuple)) else [inputs]))

    def retain_grad(self):
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None and not self._retains_grad:
            self._retains_grad = True
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
    def any(self, dim=None, keepdim=False): return ops.any_(self, dim=dim, keepdim=keepdim)
    def all(self, dim=None, keepdim=False): return ops.all_(self, dim=dim, keepdim=keepdim)
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

    # -- in place --------------------------------------------------------------------------
    # An in-place method is its out-of-place method recorded on the tensor, as torch
    # records it: x.exp_() computes x.exp(), writes the numbers into x's memory, adds one
    # to x's version and makes the new node x's grad_fn.  That node's input is x as it
    # was; a rule that reads that old value gets a copy of it, as the memory now holds the
    # new one (torch saves the original too).
    #
    # Versions: a tensor shares its counter with its views and its detach()es, not with
    # .data (nor in torch: that is what makes .data unsafe).  A node remembers the versions
    # of the values it saved, and the engine refuses to use one changed since
    # (engine._check_versions) -- only where a rule reads it (Op.saves).
    #
    # Views: a write through a view is a write into its base.  The base's grad_fn becomes
    # CopySlices, which puts the view's new numbers into the base's old history; a view of
    # the base then reads the base's new history (AsStridedBackward0, made when asked).
    @property
    def _version(self):
        return self._vbox[0] if self._vbox is not None else 0

    def _box(self):
        """[version, node that computed these numbers]: shared by this tensor, its views and
        its detach()es."""
        if self._vbox is None:
            self._vbox = [0, self._grad_fn]
        return self._vbox

    def _bump(self):
        box = self._vbox or self._box()
        box[0] += 1
        state.writes += 1
        if box[1] is not None:            # the node that computed these numbers may have saved
            box[1].out_box = box          # them: from now on it compares their version
            box[1] = None

    def _see_base(self):
        """A view whose base was written since its grad_fn was made: its numbers are now the
        base's, so its history is a piece of the base's new one (whatever the grad mode)."""
        base = self._base
        key = _place(self._data, base._data)
        self._seen = self._vbox[0]
        grad_mode, state.grad_enabled = state.grad_enabled, True
        try:
            self._grad_fn = ops.as_strided(base, key=key)._grad_fn
        finally:
            state.grad_enabled = grad_mode
        t = base._tangent
        if t is not None:                 # (forward mode: its tangent is the base's there too)
            self._tangent = ops.as_strided(t, key=key, lead=t.ndim - base._data.ndim)

    def _check_inplace(self):
        if self._inference and not state.inference:
            raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed."
                               "You can make a clone to get a normal tensor before doing inplace update."
                               "See https://github.com/pytorch/rfcs/pull/17 for more details.")
        if state.grad_enabled and self._grad_fn is None and self._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if not self._data.flags.writeable:  # an expand()ed view: one number seen many times
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.")

    def _check_view(self, recorded):
        """torch's refusals of a write through a view that would be recorded."""
        base = self._base
        if not state.grad_enabled:
            return
        if self._made_in_no_grad and (recorded or base.requires_grad):
            raise RuntimeError(
                "A view was created in no_grad mode and is being modified inplace with grad mode "
                "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
                "You can clarify your code by moving both the view and the inplace either both "
                "inside the no_grad block (if you don't want the inplace to be tracked) or both "
                "outside (if you want the inplace to be tracked).")
        if base._grad_fn is None and base._requires_grad:
            raise RuntimeError(VIEW_OF_A_LEAF)

    def _overwrite(self, result):
        """Write ``result``, computed from this tensor as it is, into its memory, and make
        result's node this tensor's history -- or, through a view, the base's."""
        node, base, have, got = result._grad_fn, self._base, self._data, result._data
        if base is not None:
            self._check_view(node is not None)
        if node is not None and node.args[0] is self and node.op.reads_inputs and node.reads(0):
            old = Tensor._make(have.copy())             # the rule reads x as it was
            old._grad_fn, old._tangent = node.next[0], self._tangent
            node.args = (old, *node.args[1:])
            if node.arrays[0] is have:
                node.arrays = (old._data, *node.arrays[1:])
        if got is have:                   # the op computed into this memory (Op.writes_into)
            pass
        elif sys.getrefcount(have) == 3 and have.base is None and got.base is None and got.dtype is have.dtype:
            self._data = got              # no one else holds these numbers: take the new ones, no copy
        else:
            have[...] = got               # (cast as C casts: int8 += 300 wraps, as in torch)
        self._bump()
        if node is None:
            if result._tangent is None:
                return self
        else:                             # its output is this memory now: it sees later writes
            _made(node, self)
        if base is None:
            self._take(node, result._tangent)
        else:                             # the base's new numbers: its old ones, this view's new ones
            whole = graph.attach(ops.copy_slices, (base, result), {"key": _place(self._data, base._data)},
                                 base._data)
            if whole._grad_fn is not None:
                _made(whole._grad_fn, base)
            base._take(whole._grad_fn, whole._tangent)
        if node is not None and node.packed is not None:
            graph.saving_written(node, self)      # saved_tensors_hooks: x as it was, and x now
        return self

    def _take(self, node, tangent):
        """Make ``node`` this tensor's history (a retained gradient moves with it, as in
        torch), and ``tangent`` its tangent."""
        if node is not None:
            if self._retains_grad:
                self._grad_fn.retain, node.retain = None, weakref.ref(self)
            self._grad_fn = node
        self._tangent = tangent

    def _put(self, op, value, key=(Ellipsis,)):
        """Write ``value`` at ``key``: x[key] = v, fill_, zero_, copy_, masked_fill_.  Through
        a view the write goes into the base, where torch records it (CopySlices)."""
        self._check_inplace()
        recorded = _tracked(self) or _tracked(value)
        if self._base is not None:
            self._check_view(recorded)
        if not recorded:                  # nothing to record: just write
            ops.write_into(self._data, value._data if isinstance(value, Tensor) else value, key)
            self._bump()
            return self
        if self._base is None:
            return self._overwrite(op(self, value, key=key))
        base = self._base
        at = np.ravel_multi_index(_place(self._data, base._data), base.shape)
        base._overwrite(ops.copy_slices(base, value, key=np.unravel_index(ops._index_forward(at, key),
                                                                          base.shape)))
        return self

    def zero_(self):
        return self._put(ops.zero, 0)

    def fill_(self, value):
        if isinstance(value, Tensor):
            if value._data.ndim:
                raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                   f"{value._data.ndim} dimensions.")
        elif not _is_number(value):
            raise TypeError(f"fill_() received an invalid combination of arguments - got "
                            f"({type(value).__name__}), but expected one of:\n * (Tensor value)\n"
                            f" * (Number value)")
        else:
            dtypes.check_fits(value, self._data.dtype)
        return self._put(ops.fill, value)

    def copy_(self, src):
        if not isinstance(src, Tensor):
            raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
        _check_into(self._data.shape, src._data.shape)
        if src._vbox is not None and src._vbox is self._vbox:
            _check_overlap(self, src)
        return self._put(ops.copy, src)

    def masked_fill_(self, mask, value):
        return self._put(ops.masked_fill, *_masked(self, mask, value))

    def masked_fill(self, mask, value):
        v, key = _masked(self, mask, value)
        return ops.masked_fill(self, v, key=key)

    def __setitem__(self, key, value):
        # torch writes one value through a lone mask with masked_fill_, which takes bool
        # masks only (after checking the mask's shape; it reads no uint8 mask: no warning)
        fill = np.size(_unwrap(value)) == 1 and _one_uint8_mask(key)
        arrays = _key(key, warn=not fill)
        _check_masks(self._data.shape, arrays)
        if fill:
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                               "unsigned char")
        key = arrays if type(arrays) is tuple else (arrays,)
        value = _setitem_value(self, key, value)
        # torch's names: a write through a view (an int, None, a part of a dimension, or a
        # tensor that is a view) is CopySlices; indices alone, IndexPutBackward0; the whole
        # tensor, FillBackward3 (one number) or CopyBackwards
        if self._base is not None or _through_a_view(self._data.shape, key):
            if state.grad_enabled and self._grad_fn is None and self._requires_grad:
                raise RuntimeError(VIEW_OF_A_LEAF)
            return self._put(ops.copy_slices, value, key)
        if any(isinstance(k, np.ndarray) for k in key):
            return self._put(ops.index_put, value, key)
        return self._put(ops.copy if value._data.ndim else ops.fill, value, key)


def _in_place(method, name):
    """The in-place form of a method: x.exp_() is x.exp(), with torch's promotion,
    wrap-around and refusals, written into x's memory when x's shape and dtype can hold
    it, and recorded (Tensor._overwrite)."""
    def in_place(self, *args, **kwargs):
        self._check_inplace()
        for a in args:
            if type(a) is Tensor and a._vbox is not None and a._vbox is self._vbox:
                _check_overlap(self, a)   # (a view of the same memory)
        if state.saved_hooks:             # what its node hands them is x as it was (graph.saving)
            writing, state.writing = state.writing, self
            try:
                result = method(self, *args, **kwargs)
            finally:
                state.writing = writing
        elif self._data.size >= graph.KEEP_BELOW and _into(self, args, kwargs):
            state.into = (self._data, threading.get_ident())  # its op may compute straight into
            try:                                               # it (Op.writes_into)
                result = method(self, *args, **kwargs)
            finally:
                state.into = None
        else:
            result = method(self, *args, **kwargs)
        # (self._data is not held in a local here: _overwrite takes the new array when no
        # one else holds the old one, which it tells by the old one's reference count)
        got, shape, dtype = result._data, self._data.shape, self._data.dtype
        if got.shape != shape:
            _check_into(shape, got.shape)
        if got.dtype is not dtype and not dtypes.can_cast(got.dtype, dtype):
            raise RuntimeError(f"result type {dtypes.scalar_type_name(got.dtype)} can't be cast "
                               f"to the desired output type {dtypes.scalar_type_name(dtype)}")
        return self._overwrite(result)
    in_place.__name__ = in_place.__qualname__ = name
    in_place.__doc__ = f"In-place version of :meth:`{method.__name__}`."
    return in_place


for _name in ("add", "sub", "mul", "div", "pow", "clamp", "clip", "relu", "sigmoid", "tanh", "exp", "log",
              "log1p", "sin", "cos", "abs", "neg", "sqrt", "sign", "floor", "ceil", "round"):
    setattr(Tensor, _name + "_", _in_place(getattr(Tensor, _name), _name + "_"))
for _name in ("add", "sub", "mul", "truediv"):     # x += v is x.add_(v)
    setattr(Tensor, f"__i{_name}__", _in_place(getattr(Tensor, f"__{_name}__"), f"__i{_name}__"))


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


def _made(node, t):
    """``node`` made the numbers in ``t``'s memory (an in-place write): it notes the version
    they are at, so that a later write is seen -- refused if its rules read them
    (engine._check_versions), shown as overwritten in pictures of the graph."""
    if node.op.reads_output:
        node.out = t._data
    node.out_box, node.out_version = t._vbox, t._vbox[0]


def _into(t, args, kwargs):
    """Whether an in-place write on ``t`` may let its op compute into t's array: t is no
    view and carries no tangent (forward mode reads x after the op); every input is a
    tensor or a number (no code of the caller's runs before the op: a __mul__ of theirs
    could read x), none shares t's memory (x.add_(x, alpha=2) must read x as it was) or
    is an inference tensor (recording would refuse it after the write); and NumPy's
    floating-point errors do not raise (np.seterr: the write would stop half done)."""
    if t._base is not None or t._tangent is not None or state.forward_level:
        return False
    for a in (*args, *kwargs.values()):
        if type(a) is Tensor:
            if a._inference or np.may_share_memory(a._data, t._data):
                return False
        elif not _is_number(a):
            return False
    return not _RAISING.intersection(np.geterr().values())


_RAISING = {"raise", "call"}


def _tracked(t):
    """Whether an in-place write of (or through) ``t`` must be recorded: it requires grad
    (in grad mode) or carries a tangent."""
    return type(t) is Tensor and ((state.grad_enabled and t.requires_grad) or t._tangent is not None)


def _is_number(v):
    return isinstance(v, (bool, int, float, np.number, np.bool_))


def _place(view, base):
    """Where each number of the array ``view`` sits in ``base``, an array sharing its
    memory: an index into base, found from the numbers' addresses."""
    def addresses(a):
        at = np.array(a.__array_interface__["data"][0])
        for n, stride in zip(a.shape, a.strides):
            at = np.add.outer(at, np.arange(n) * stride)
        return at
    spots = addresses(base).ravel()
    order = np.argsort(spots, kind="stable")
    flat = order[np.searchsorted(spots, addresses(view), sorter=order)]
    return np.unravel_index(flat, base.shape)


def _through_a_view(shape, key):
    """Whether torch's x[key] = v writes through a view of x: when the key has an int, a
    None or a slice that is not the whole of its dimension (those apply first)."""
    claimed = sum(k.ndim if _is_mask(k) else 0 if k is None or k is Ellipsis else 1 for k in key)
    dims = iter(shape)
    for k in key:
        if k is Ellipsis:
            for _ in range(len(shape) - claimed):
                next(dims)
        elif k is None or isinstance(k, (bool, int, np.integer, np.bool_)):
            return True
        elif isinstance(k, slice):
            n = next(dims, 0)
            if k.start not in (None, 0) or k.step not in (None, 1) or (k.stop is not None and k.stop < n):
                return True
        else:                             # indices: a mask takes as many dimensions as it has
            for _ in range(k.ndim if _is_mask(k) else 1):
                next(dims, 0)
    return False


def _setitem_value(x, key, value):
    """The value of ``x[key] = value`` as a tensor, checked as torch checks it: a number
    becomes a constant of x's dtype; through indices (index_put_) a tensor must have x's
    dtype, unless one number goes through a lone mask (masked_fill_, which casts); without
    indices (copy_) it must expand to the shape written."""
    if _is_number(value):
        dtypes.check_fits(value, x._data.dtype)
        return Tensor._make(np.array(value).astype(x._data.dtype))
    if not isinstance(value, Tensor):
        kind = type(value)
        kind = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"can't assign a {kind} to a al.{dtypes.scalar_type_name(x._data.dtype)}Tensor")
    if value._vbox is not None and value._vbox is x._vbox and value._data.ndim:
        _check_overlap(x, value)          # (one number is read first, as fill_ reads it)
    if any(isinstance(k, np.ndarray) for k in key):
        one_mask = value._data.ndim == 0 and len(key) == 1 and _is_mask(key[0])
        if value._data.dtype != x._data.dtype and not one_mask:
            raise RuntimeError("Index put requires the source and destination dtypes match, got "
                               f"{dtypes.scalar_type_name(x._data.dtype)} for the destination and "
                               f"{dtypes.scalar_type_name(value._data.dtype)} for the source.")
    else:
        _check_expand(value._data.shape, ops._index_forward(x._data, key).shape, value.dtype)
    return value


def _check_overlap(written, read):
    """Refuse, as torch does, an in-place op that reads a tensor lying over the memory it
    writes in another way: it would read numbers it has already written.  (Like torch, it
    passes over layouts with gaps, where telling is too hard.)"""
    a, b = written._data, read._data
    if a is b or not (np.may_share_memory(a, b) and _dense(a) and _dense(b)):
        return
    if a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.strides == b.strides:
        return                            # the same numbers, laid out the same way: fine
    raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to "
                       "tensor refer to a single memory location. Please clone() the tensor before "
                       "performing the operation.")


def _dense(a):
    """Whether an array's numbers fill one block of memory, in some order, with no gaps."""
    step = a.itemsize
    for stride, n in sorted((abs(s), n) for s, n in zip(a.strides, a.shape) if n != 1):
        if stride != step:
            return False
        step *= n
    return True


def _check_expand(shape, target, dtype):
    """Refuse, in torch's words, a value that x[key] = v cannot expand to the shape it writes
    (torch first drops the value's leading dimensions of size 1)."""
    shape = tuple(shape)
    while shape and shape[0] == 1 and len(shape) > len(target):
        shape = shape[1:]
    if len(shape) > len(target):
        raise RuntimeError(f"expand(al.{dtypes.scalar_type_name(dtype.numpy)}Tensor{{{list(shape)}}}, "
                           f"size={list(target)}): the number of sizes provided ({len(target)}) must be "
                           f"greater or equal to the number of dimensions in the tensor ({len(shape)})")
    for i in range(1, len(shape) + 1):
        if shape[-i] not in (1, target[-i]):
            raise RuntimeError(f"The expanded size of the tensor ({target[-i]}) must match the existing "
                               f"size ({shape[-i]}) at non-singleton dimension {len(target) - i}.  "
                               f"Target sizes: {list(target)}.  Tensor sizes: {list(shape)}")


def _masked(x, mask, value):
    """(value, key) of x.masked_fill(mask, value), checked as torch checks them."""
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        kind = mask._data.dtype if isinstance(mask, Tensor) else np.asarray(mask).dtype
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{dtypes.c_type_name(kind)}")
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s).")
    else:
        dtypes.check_fits(value, x._data.dtype)
    _check_into(x._data.shape, mask._data.shape)
    return value, (np.broadcast_to(mask._data, x._data.shape).copy(),)


def _check_into(shape, other):
    """Refuse, in torch's words, a shape that does not broadcast to ``shape`` (the shape of
    the tensor an in-place op writes)."""
    mismatch = graph.broadcast_mismatch(shape, other)
    if mismatch:
        raise RuntimeError(mismatch)
    both = np.broadcast_shapes(shape, other)
    if both != tuple(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(both)}")


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
