"""torch's argument checks and normalisations, shared by the tensor's methods, the rules
table and the ``al.*`` functions: dimensions, shapes, index keys, masks, broadcasting."""
import warnings

import numpy as np

from .tensor import Tensor, unwrap
from .userframe import user_level


def wrap_dim(dim, ndim):
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {dim})")
    return dim - ndim if dim >= 0 else dim


def reduction_dims(dim, ndim):
    """Check reduction dims as torch does; a 0-d tensor reduces over nothing."""
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return None                   # dim=() or []: every dimension, as in torch
    dims = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    checked = [wrap_dim(d, ndim) for d in dims]
    for d in checked:
        if checked.count(d) > 1:
            raise RuntimeError(f"dim {d % max(ndim, 1)} appears multiple times in the list of dims")
    if ndim == 0:
        return ()
    return tuple(dims) if isinstance(dim, (list, tuple)) else dim


def shape_arg(shape):
    shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else tuple(shape)
    return tuple(int(s) for s in shape)


def tensor_of(x):
    return x if isinstance(x, Tensor) else Tensor._make(np.asarray(unwrap(x)))


def dense(a):
    """Whether an array's numbers fill one block of memory, in some order, with no gaps
    (and none seen twice, as through a zero stride)."""
    step = a.itemsize
    for stride, n in sorted((abs(s), n) for s, n in zip(a.strides, a.shape) if n != 1):
        if stride != step:
            return False
        step *= n
    return True


def is_number(v):
    return isinstance(v, (bool, int, float, np.number, np.bool_))


def key_dims(shape, key):
    """An index key as torch reads it, entry by entry: ``[(entry, sizes)]``, the sizes of
    the dimensions of ``shape`` each entry claims -- one for an int, a slice or integer
    indices, as many as a mask has, none for None, and for ``...`` those no other entry
    claims (an entry past the last dimension gets fewer) -- and the sizes left after the
    key.  (x[key]'s grad_fn name, the mask checks and whether x[key] = v writes through
    a view all read a key this way.)"""
    claimed = sum(k.ndim if is_mask(k) else 0 if k is None or k is Ellipsis else 1 for k in key)
    entries, at = [], 0
    for k in key:
        take = (max(len(shape) - claimed, 0) if k is Ellipsis else 0 if k is None else
                k.ndim if is_mask(k) else 1)
        entries.append((k, tuple(shape[at:at + take])))
        at += take
    return entries, tuple(shape[at:])


def check_masks(shape, key):
    """Refuse, with torch's words, a bool mask whose shape does not match the dimensions it
    indexes.  As torch, ints and slices apply first: the shape named is the one they leave."""
    entries, rest = key_dims(shape, key if type(key) is tuple else (key,))
    dims, masks = [], []
    for k, sizes in entries:
        if k is Ellipsis:                   # the dimensions no other entry claims
            dims += sizes
        elif k is None:
            dims.append(1)
        elif not sizes:
            return                          # too many indices: NumPy's own error follows
        elif is_mask(k):
            masks.append((k, len(dims)))
            dims += sizes
        elif isinstance(k, slice):
            dims.append(len(range(*k.indices(sizes[0]))))
        elif isinstance(k, np.ndarray):     # integer indices: the dimension stays for now
            dims.append(sizes[0])
        # (an int: applied before the masks are read)
    dims += rest
    for mask, start in masks:
        for j, n in enumerate(mask.shape):
            if start + j >= len(dims) or dims[start + j] != n:
                raise IndexError(f"The shape of the mask {list(mask.shape)} at index {j} does not "
                                 f"match the shape of the indexed tensor {dims} at index {start + j}")


def is_mask(k):
    return isinstance(k, np.ndarray) and k.dtype == bool


def index_key(key, warn=True):
    """An index with tensors and lists replaced by arrays (bool masks, integer indices),
    so that advanced indexing is recognised wherever it appears in the key."""
    if isinstance(key, tuple):
        return tuple(index_key(k, warn) for k in key)
    if isinstance(key, Tensor):           # a 0-d integer tensor indexes like an int: a view
        if key._data.dtype == np.uint8:   # torch still reads uint8 as a mask (a 0-d one quietly)
            if warn and key._data.ndim:
                warnings.warn("indexing with dtype al.uint8 is now deprecated, please use a dtype "
                              "al.bool instead.", UserWarning, stacklevel=user_level())
            return key._data.astype(bool)
        return int(key._data) if key._data.ndim == 0 and key._data.dtype.kind == "i" else key._data
    if isinstance(key, list):
        a = np.asarray(unwrap(key))
        return a.astype(np.intp) if a.size == 0 else a      # [] picks nothing (not a float index)
    return key


def broadcast_mismatch(sa, sb):
    """torch's sentence for the last dimension where shapes sa and sb cannot broadcast
    (torch reports that one), or None if they broadcast."""
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    for dim in range(n - 1, -1, -1):
        if pa[dim] != pb[dim] and 1 not in (pa[dim], pb[dim]):
            return (f"The size of tensor a ({pa[dim]}) must match the size of tensor b ({pb[dim]}) "
                    f"at non-singleton dimension {dim}")
    return None


def matmul_error(a, b, err):
    """torch's sentence for the shapes a matmul of arrays a and b refuses (NumPy's ``err``
    said no)."""
    if a.ndim == 0 or b.ndim == 0:
        return RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                            f"{a.ndim}D and {b.ndim}D")
    k_a, k_b = a.shape[-1], b.shape[-2] if b.ndim > 1 else b.shape[0]
    if k_a != k_b:
        if a.ndim == 1 and b.ndim == 1:
            return RuntimeError(f"inconsistent tensor size, expected tensor [{k_a}] and src [{k_b}] to "
                                f"have the same number of elements, but got {k_a} and {k_b} elements "
                                "respectively")
        if a.ndim == 2 and b.ndim == 1:
            return RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat "
                                f"({a.shape[0]}x{a.shape[1]}), vec ({b.shape[0]})")
        sa, sb = "x".join(map(str, a.shape[-2:] if a.ndim > 1 else (1,) + a.shape)), \
            "x".join(map(str, b.shape[-2:] if b.ndim > 1 else b.shape + (1,)))
        return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")
    bad = broadcast_mismatch(a.shape[:-2], b.shape[:-2] if b.ndim > 1 else ())
    if bad:                           # the batch dimensions do not broadcast
        return RuntimeError(bad)
    return RuntimeError(f"matmul: {err}")


def check_into(shape, other):
    """Refuse, in torch's words, a shape that does not broadcast to ``shape`` (the shape of
    the tensor an in-place op writes)."""
    mismatch = broadcast_mismatch(shape, other)
    if mismatch:
        raise RuntimeError(mismatch)
    both = np.broadcast_shapes(shape, other)
    if both != tuple(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(both)}")


def broadcasts_to(shape, target):
    """Whether an array of ``shape`` broadcasts to ``target`` without growing it."""
    return len(shape) <= len(target) and all(n == 1 or n == m for n, m in zip(reversed(shape), reversed(target)))


def shape_error(op, arrays, err):
    """Turn NumPy's broadcasting error into torch's sentence, naming both shapes."""
    shapes = [a.shape for a in arrays if isinstance(a, np.ndarray)]
    if "broadcast" in str(err) and len(shapes) >= 2:
        so_far = shapes[0]
        for shape in shapes[1:]:              # the first input that does not fit the others
            bad = broadcast_mismatch(so_far, shape)
            if bad:
                return RuntimeError(f"{bad}. Shapes {tuple(so_far)} and {tuple(shape)} do not broadcast.")
            so_far = np.broadcast_shapes(so_far, shape)
    name = op.name if isinstance(op.name, str) else getattr(op.forward, "__name__", "op")
    return RuntimeError(f"{name.replace('Backward0', '')}: {err}")
