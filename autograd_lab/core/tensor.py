"""The Tensor: a NumPy array plus what autograd needs to know about it.

A tensor holds its numbers in ``_data`` (a NumPy array).  A *leaf* is a tensor the
user made; if it ``requires_grad``, backward accumulates into its ``.grad``.  A tensor
computed from others carries ``grad_fn``, the graph node that made it.

This module defines what a tensor *is*.  The methods that compute with it are installed
on the class, once what they call exists (so no module imports upward), and each says
where it comes from:

- ``x + y``, ``x * y``, ``x / y``, ``-x``, ``x > y``, ...: ``rules.py``, each operator a
  row of the rules table;
- ``x - y``, ``x ** y``, ``x @ y``, ``x[key]``, ``x.exp()``, ``x.sum()``, ...:
  ``tensor_methods.py``, over the rules table (``rules.py`` and the shell's rows) and
  the ``al.*`` functions, with torch's argument checks;
- ``x.backward()``: ``engine.py``, beside the walk it starts;
- ``x.add_(v)``, ``x[key] = v``, ``x.zero_()``, ... and the two that keep a view's
  history current after its base was written (``_refresh_view``, which ``grad_fn``
  calls) or count a write (``_bump``): ``inplace.py``;
- ``x.register_hook(fn)``: ``tensor_methods.py``, over ``watch.py``.
"""
import warnings
import weakref

import numpy as np

from .. import devices
from . import dtypes
from .modes import state
from .printing import tensor_repr


class _TensorType(type):
    """Tensor's type, for one thing: ``dir(Tensor)`` leaves out the attributes marked
    ``hidden`` (torch's names that autograd_lab lacks, which only raise when read:
    not_here.py puts them on the class, where they cost nothing, unlike a __getattr__)."""

    def __dir__(cls):
        return [n for n in super().__dir__() if not _hidden(cls, n)]


def _hidden(cls, name):
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return getattr(klass.__dict__[name], "hidden", False)
    return False


def refuse_integer_grad(t, start="Only Tensors of floating point and complex dtype"):
    """torch's error for an integer or bool tensor asked to require grad.  torch starts it
    three ways: as ``start``'s default when the tensor is made (or wrapped in
    nn.Parameter), "only Tensors of floating point and complex dtype" through the
    attribute, "only Tensors of floating point dtype" through requires_grad_();
    autograd_lab adds the parenthesis."""
    if t._data.dtype.kind != "f":
        raise RuntimeError(f"{start} can require gradients (this tensor is {t.dtype!r}; make it "
                           "with dtype=al.float32 or call .float() first)")


class Tensor(metaclass=_TensorType):
    # every tensor has its array and its grad_fn (None for a leaf); attributes that most
    # tensors never set live on the class, so making a tensor is cheap
    __slots__ = ("_data", "_grad_fn", "__dict__", "__weakref__")
    # -- a leaf that requires grad ----------------------------------------------------
    _requires_grad = False
    _grad = None
    _accumulate = None      # the AccumulateGrad node its gradients go to
    _retains_grad = False   # (a tensor a node made, after retain_grad())
    # -- the optional machinery's fields, set only where it is used ----------------------
    _tangent = None         # forward mode: the tangent carried with this value (forward_mode.py)
    _vbox = None            # in-place writes: [version, node that computed the numbers],
                            # shared with views and detach()es (versions.py, inplace.py)
    _base = None            # a view: the tensor whose memory it views (torch's ._base)
    _seen = 0               # a view: the version its grad_fn was made at (see grad_fn)
    _made_in_no_grad = False  # a view made under no_grad
    _swapped = -1           # state.writes when `x.data = ...` last replaced the array
    _inference = False      # made inside inference_mode
    __array_ufunc__ = None  # make `ndarray * tensor` call Tensor.__rmul__

    def __init__(self, *args, dtype=None, requires_grad=False):
        # the 2018-era constructor: al.Tensor([[1, 2]]) or al.Tensor(2, 3)
        if len(args) == 1 and not isinstance(args[0], int):
            data = np.array(unwrap(args[0]), dtype=dtypes.to_numpy(dtype) or dtypes.DEFAULT_FLOAT)
        else:
            data = np.zeros(tuple(args), dtype=dtypes.to_numpy(dtype) or dtypes.DEFAULT_FLOAT)
        self._data = data
        self._grad_fn = None
        if requires_grad:
            refuse_integer_grad(self)
            self.requires_grad = True

    @staticmethod
    def _make(array):
        """A tensor of ``array``, made as cheaply as Python allows (every operation makes one)."""
        t = object.__new__(Tensor)
        t._data, t._grad_fn = array, None
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
        in place since gets the base's new history, as in torch (AsStridedBackward0:
        ``_refresh_view``, from inplace.py)."""
        if self._base is not None:
            self._refresh_view()
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
        if flag:
            refuse_integer_grad(self, "only Tensors of floating point and complex dtype")
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad=True):
        if requires_grad and self.grad_fn is None:
            refuse_integer_grad(self, "only Tensors of floating point dtype")
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
        state.writes += 1                 # nodes that saved this tensor look again (versions.check_versions)
        self._swapped = state.swapped = state.writes

    # -- graph ------------------------------------------------------------------
    def retain_grad(self):
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None and not self._retains_grad:
            self._retains_grad = True
            self.grad_fn.retain = weakref.ref(self)

    @property
    def retains_grad(self):
        return self._retains_grad

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
    def numpy(self, *, force=False):
        """The NumPy array holding this tensor's numbers (shared, not copied).  Refused
        for a tensor that requires grad while grad mode is on, as in torch (under no_grad,
        or with ``force=True``, it is given)."""
        if self.requires_grad and state.grad_enabled and not force:
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
        return tensor_repr(self)

    def __dir__(self):
        return [n for n in object.__dir__(self) if not _hidden(type(self), n)]

    def __format__(self, spec):
        if self._data.ndim == 0:          # like torch: f"{t}" of a 0-d tensor is its number
            return format(self._data.item(), spec)
        return format(repr(self), spec)

    __hash__ = object.__hash__

    def __reduce__(self):
        raise TypeError("autograd_lab tensors are not picklable; save t.detach().numpy() instead")

    @property
    def _version(self):
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vbox[0] if self._vbox is not None else 0

    def _box(self):
        """[version, node that computed these numbers]: shared by this tensor, its views and
        its detach()es."""
        if self._vbox is None:
            self._vbox = [0, self._grad_fn]
        return self._vbox


def install(methods):
    """Copy the methods (and properties) a class body defines onto Tensor, named as
    Tensor's own (a TypeError then says ``Tensor.backward()``, as torch's does): how the
    modules that define them give them to the class, once what they call exists."""
    for name, value in vars(methods).items():
        if name in ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__"):
            continue
        for f in (value, getattr(value, "fget", None), getattr(value, "fset", None)):
            if hasattr(f, "__qualname__") and f.__qualname__.startswith(methods.__name__ + "."):
                f.__qualname__ = f"Tensor.{f.__name__}"
        setattr(Tensor, name, value)


def unwrap(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [unwrap(d) for d in data]
    return data
