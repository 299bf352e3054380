"""Picking and placing entries by index, as al.* functions and Tensor methods with torch's
checks and words: ``topk``, ``argsort``, ``nonzero``, ``masked_select``, ``scatter`` and
``scatter_add`` (and their in-place forms), ``index_put`` with ``accumulate=``,
``unique``, ``unfold``, ``repeat_interleave``, ``meshgrid`` and ``one_hot``.

The rows they record are ``index_rules.py``'s, or compositions of the table's rows where
torch's graph is one (``repeat_interleave`` is unsqueeze, expand, clone and view;
``meshgrid`` is view and expand), so the grad_fn names come out as torch's."""
import numpy as np

from . import batching, functions as F, index_rules as R
from .core import inplace, rules
from .core.checks import index_key, tensor_of, wrap_dim
from .more_rules import along_key
from .spellings import numpy_names
from .core.tensor import Tensor, install
from .core.userframe import user_level

# Under vmap, a tensor a row broadcasts (index_put's values, masked_select's input) is
# expanded first: its batch dimensions lie in front of its own, where a gradient summed back
# over broadcast dimensions would meet them.
DYNAMIC = ("vmap: We do not support batching operators that can output dynamic shape. Attempted to "
           "vmap over {}. Please file an issue at https://github.com/pytorch/pytorch/issues if you "
           "need this feature.")

topk_type = type("topk", (F.MinMax,), {"__doc__": "(values, indices) of topk."})


def _t(x):
    return x if isinstance(x, Tensor) else tensor_of(x)


def _refuse_batched(x, kernel):
    """torch's vmap refusal of an op whose result's shape depends on the numbers."""
    if batching.is_batched(x):
        raise RuntimeError(DYNAMIC.format(kernel))


def _index_tensor(index, name):
    if not isinstance(index, Tensor) or index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    return index


class IndexMethods:
    # -- the k largest, and the order ---------------------------------------------------------
    @numpy_names
    def topk(self, k, dim=-1, largest=True, sorted=True):
        """(values, indices) of the k largest entries along dim (the k smallest with
        largest=False), largest first; ties keep their order, NaN counts as the largest.
        (The order is found by a stable sort, of every sample at once under vmap.)"""
        ndim = self.ndim
        axis = wrap_dim(dim, ndim) % max(ndim, 1)
        n = self.shape[axis] if ndim else 1
        if not 0 <= k <= n:
            raise RuntimeError("selected index k out of range")
        if self._data.dtype == np.bool_:
            raise RuntimeError("topk does not support bool dtypes on CPU")
        order = batching.numbers(self.argsort(axis, descending=largest, stable=True))
        if ndim == 0:
            return topk_type(R.topk(self, key=(), dim=0, keepdim=True), Tensor._make(order))
        order = np.take(order, np.arange(k), axis=axis - ndim)
        shape = self.shape[:axis] + (k,) + self.shape[axis + 1:]
        values = R.topk(self, key=along_key(order, axis, shape), dim=axis, keepdim=True)
        return topk_type(values, batching.wrap(Tensor._make(order), batching.levels_of(self)))

    @numpy_names
    def argsort(self, dim=-1, descending=False, stable=False):
        return self.detach().sort(dim, descending, stable).indices

    def nonzero(self, *, as_tuple=False):
        """The indices of the entries that are not zero: one row per entry (or, as_tuple,
        one index tensor per dimension)."""
        _refuse_batched(self, "aten::nonzero")
        a = self._data
        if as_tuple:
            if a.ndim == 0:
                return (Tensor._make(np.zeros(int(a != 0), np.int64)),)
            return tuple(Tensor._make(i.astype(np.int64)) for i in np.nonzero(a))
        return Tensor._make(np.argwhere(a).astype(np.int64))

    argwhere = nonzero

    def masked_select(self, mask):
        if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        if batching.is_batched(mask):
            raise RuntimeError("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We "
                               "cannot support this because for each batch this would return a differently "
                               "shaped Tensor. Please file an issue at https://github.com/pytorch/pytorch/issues "
                               "if you need this feature.")
        shape = np.broadcast_shapes(self.shape, mask.shape)
        x = self.expand(shape) if batching.is_batched(self) and self.shape != shape else self
        return R.masked_select(x, key=(np.broadcast_to(mask._data, shape),), shape=shape)

    # -- writing at places -------------------------------------------------------------------------
    def scatter(self, dim, index, src=None, value=None, *, reduce=None):
        return _scatter(self, dim, index, src, value, reduce, False)

    def scatter_add(self, dim, index, src):
        x, axis, idx = _scatter_args(self, dim, index, src, "scatter")
        return R.scatter_add(x, src, idx=idx, dim=axis)

    def index_put(self, indices, values, accumulate=False):
        """x with ``values`` written at ``indices`` (a tuple of index tensors, as x[indices]
        reads them); added to what is there with accumulate=True (a place named twice gets
        both)."""
        return _index_put(self, indices, values, accumulate, "index_put")

    # -- unique, windows, repeats ----------------------------------------------------------------------
    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """The distinct entries (or, along dim, the distinct slices), sorted; with
        return_inverse where each entry went, with return_counts how often each came."""
        _refuse_batched(self, "aten::_unique2" if dim is None else "aten::unique_dim")
        a = self._data
        axis = None if dim is None else wrap_dim(dim, self.ndim) % max(self.ndim, 1)
        values, inverse, counts = np.unique(a.reshape(-1) if axis is None else a, return_inverse=True,
                                            return_counts=True, axis=axis, equal_nan=False)
        row, kernel = (R.unique, "_unique2") if axis is None else (R.unique_dim, "unique_dim")
        out = row(self, values=values, kernel=kernel)
        inverse = inverse.reshape(a.shape if axis is None else (a.shape[axis],)).astype(np.int64)
        extra = [Tensor._make(inverse)] * bool(return_inverse) + \
            [Tensor._make(counts.astype(np.int64))] * bool(return_counts)
        return (out, *extra) if extra else out

    def unfold(self, dimension, size, step):
        """Every window of ``size`` entries along ``dimension``, ``step`` apart, as a view:
        the windows take that dimension's place, a window's entries a new last one."""
        d = wrap_dim(dimension, self.ndim)
        if self.ndim == 0:                # a number: the window of it, or none
            if size > 1:
                raise RuntimeError(f"maximum size for tensor at dimension 0 is 1 but size is {size}")
            if step <= 0:
                raise RuntimeError(f"step is {step} but must be > 0")
            return R.unfold(self, dim=None, size=int(size), step=int(step))
        n = self.shape[d]
        if size > n:
            raise RuntimeError(f"maximum size for tensor at dimension {d % self.ndim} is {n} but size is {size}")
        if size < 0:
            raise RuntimeError(f"size is {size} but must be >= 0")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        return R.unfold(self, dim=d, size=int(size), step=int(step))

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        """Each entry (or each slice along dim) repeated ``repeats`` times in place."""
        if dim is not None and self.ndim == 0:
            wrap_dim(dim + 1, 1)          # (torch unsqueezes dim + 1 of a number: out of range)
        x = self.reshape(-1) if dim is None else self
        d = 0 if dim is None else wrap_dim(dim, x.ndim) % max(x.ndim, 1)
        if isinstance(repeats, Tensor):
            counts = _repeat_counts(repeats)
            if counts.size == 1:
                counts = np.repeat(counts, x.shape[d])
            if counts.size != x.shape[d]:
                raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                                   f"repeats.size(0) = {counts.size} and input.size(0) = {x.shape[d]}")
            _check_output_size(output_size, int(counts.sum()))
            return x.index_select(d, Tensor._make(np.repeat(np.arange(x.shape[d]), counts)))
        if not isinstance(repeats, (int, np.integer)) or isinstance(repeats, bool):
            raise TypeError(f"repeat_interleave() received an invalid combination of arguments - got "
                            f"({type(repeats).__name__}), but expected one of:\n * (Tensor repeats, int dim = "
                            "None, *, int output_size = None)\n * (int repeats, int dim = None, *, "
                            "int output_size = None)")
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        _check_output_size(output_size, x.shape[d] * repeats if x.ndim else repeats)
        if x.ndim == 0:
            x = x.reshape(1)
        shape = list(x.shape)
        wide = x.unsqueeze(d + 1).expand(shape[:d + 1] + [int(repeats)] + shape[d + 1:])
        return wide.clone().view(shape[:d] + [shape[d] * int(repeats)] + shape[d + 1:])


def _index_put(self, indices, values, accumulate, name):
    """x.index_put and x.index_put_ (``name``, as torch's messages say)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"{name}(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    if values._data.dtype != self._data.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{_name(self)} for the destination and {_name(values)} for the source.")
    key = index_key(tuple(indices))
    _check_bounds(self.shape, key)
    region = rules.index_forward(np.broadcast_to(np.empty((), bool), self.shape), key).shape
    try:
        np.broadcast_to(np.empty(values.shape, bool), region)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be "
                           f"broadcast to indexing result of shape {list(region)}") from None
    if batching.levels_of(self, values) and values.shape != region:
        values = values.expand(region)    # (under vmap the rows' batch dims sit in front: see below)
    row = R.index_put_accumulate if accumulate else rules.index_put
    return row(self, values, key=key)


def _name(t):
    from .core.dtypes import scalar_type_name
    return scalar_type_name(t._data.dtype)


def _check_bounds(shape, key):
    """index_put's IndexError for an index past its dimension, in torch's words."""
    d = 0
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype != np.bool_:
            n = shape[d]
            bad = k[(k >= n) | (k < -n)]
            if bad.size:
                raise IndexError(f"index {bad.flat[0]} is out of bounds for dimension {d} with size {n}")
            d += 1
        elif isinstance(k, np.ndarray):
            d += k.ndim
        elif k is not None:
            d += 1


def _repeat_counts(repeats):
    counts = repeats._data
    if counts.ndim > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if counts.dtype.kind not in "iu":
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for \'{_name(repeats)}\'')
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    return counts.reshape(-1)


def _check_output_size(output_size, want):
    if output_size is not None and output_size != want:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {want} but got {output_size}")


def _scatter_args(x, dim, index, src, name):
    """(x, dim, index array) of a scatter, checked in torch's order and words.  Under
    vmap, with a batched index, x comes back batched over the index's levels too, and the
    array carries them in front (the rows' batch rule lines them up)."""
    axis = wrap_dim(dim, x.ndim) % max(x.ndim, 1)
    _index_tensor(index, name)
    idx = index._data if not batching.is_batched(index) else None
    if idx is None:
        want = batching.levels_of(x, index)
        x, idx = batching.wrap(batching.physical(x, want), want), batching.physical(index, want)._data
    if index.ndim != x.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None:
        if not isinstance(src, Tensor):
            raise TypeError(f"{name}(): argument 'src' must be Tensor, not {type(src).__name__}")
        if src._data.dtype != x._data.dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        if src.ndim != x.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    own = idx.shape[idx.ndim - index.ndim:]
    if any(i > s for d, (i, s) in enumerate(zip(own, x.shape)) if d != axis) or \
            src is not None and any(i > s for i, s in zip(own, src.shape)):
        raise RuntimeError(f"Expected index {list(own)} to be no larger than self {list(x.shape)} apart "
                           f"from dimension {axis}" + (f" and to be no larger size than src {list(src.shape)}"
                                                       if src is not None else ""))
    n = x.shape[axis] if x.ndim else 1
    bad = idx[(idx >= n) | (idx < -n)]
    if bad.size:
        raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {axis} with size {n}")
    return x, axis, idx % n if n else idx


def _scatter(x, dim, index, src, value, reduce, in_place):
    """x.scatter(dim, index, src or value[, reduce=]) and its in-place form."""
    if src is not None and not isinstance(src, Tensor) and value is None:
        src, value = None, src            # x.scatter(dim, index, 2.0): the value overload
    if src is None and value is None:
        raise TypeError("scatter() received an invalid combination of arguments - got (int, Tensor), but "
                        "expected one of: (int dim, Tensor index, Tensor src) or (int dim, Tensor index, "
                        "Number value)")
    x, axis, idx = _scatter_args(x, dim, index, src, "scatter")
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if src is not None:
            import warnings
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be "
                          "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
                          "reduction options.", UserWarning, stacklevel=user_level())
        return R.scatter_reduce(x, src if src is not None else _fitting(value, x), idx=idx, dim=axis,
                                reduce=reduce, inplace=in_place)
    if src is not None:
        return R.scatter_src(x, src, idx=idx, dim=axis)
    return R.scatter_value(x, value=_fitting(value, x), idx=idx, dim=axis)


def _fitting(value, x):
    """A number as torch writes it into x: cast to x's dtype (2.5 into integers is 2)."""
    if isinstance(value, Tensor):
        value = value.item()
    return np.array(value).astype(x._data.dtype)[()]


# -- the in-place forms: the out-of-place methods recorded on the tensor (inplace.py) ------------
def _scatter_in_place(self, dim, index, src=None, value=None, *, reduce=None):
    return _scatter(self, dim, index, src, value, reduce, True)


_scatter_in_place.__name__ = "scatter"


# -- the al.* functions ----------------------------------------------------------------------------
@numpy_names
def topk(input, k, dim=-1, largest=True, sorted=True):
    return _t(input).topk(k, dim, largest, sorted)


@numpy_names
def argsort(input, dim=-1, descending=False, stable=False):
    return _t(input).argsort(dim, descending, stable)


def nonzero(input, *, as_tuple=False):
    return _t(input).nonzero(as_tuple=as_tuple)


argwhere = nonzero


def masked_select(input, mask):
    return _t(input).masked_select(mask)


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    return _t(input).scatter(dim, index, src, value, reduce=reduce)


def scatter_add(input, dim, index, src):
    return _t(input).scatter_add(dim, index, src)


def index_put(input, indices, values, accumulate=False):
    return _t(input).index_put(indices, values, accumulate)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _t(input).unique(sorted, return_inverse, return_counts, dim)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each entry of input repeated; with only a tensor of counts, the indices 0, 1, ...
    each repeated its count of times."""
    if repeats is None:
        counts = _repeat_counts(_t(input))
        return Tensor._make(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
    return _t(input).repeat_interleave(repeats, dim, output_size=output_size)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: output i holds tensor i's entries along dimension i, the same
    across the others (indexing="xy" swaps the first two dimensions, as NumPy's)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        import warnings
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                      "argument.", UserWarning, stacklevel=user_level())
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: a "
                               f"tensor of shape {list(t.shape)}")
    if any(t._data.dtype != tensors[0]._data.dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    sizes = [t.numel() for t in tensors]
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        axes[0], axes[1] = 1, 0
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for t, a in zip(tensors, axes):
        shape = [1] * len(tensors)
        shape[a] = -1
        grids.append(t.view(shape).expand(sizes))
    return tuple(grids)


def one_hot(tensor, num_classes=-1):
    """Each class index as a row of zeros with a 1 at that index (int64, a new last dimension)."""
    if not isinstance(tensor, Tensor) or tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = batching.numbers(tensor)
    if num_classes == -1:
        if not a.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = (a[..., None] == np.arange(num_classes)).astype(np.int64)
    return batching.wrap(Tensor._make(out), batching.levels_of(tensor))


install(IndexMethods)
Tensor.scatter_ = inplace.in_place_method(_scatter_in_place, "scatter_")
Tensor.scatter_add_ = inplace.in_place_method(Tensor.scatter_add, "scatter_add_")
Tensor.index_put_ = inplace.in_place_method(
    lambda self, indices, values, accumulate=False: _index_put(self, indices, values, accumulate, "index_put_"),
    "index_put_")
