"""torch's argument checks and normalisations, shared by the tensor's methods, the rules
table and the ``al.*`` functions: dimensions, shapes, index keys, masks, broadcasting."""
import warnings

import numpy as np

from .dtypes import cpp_type_name, scalar_type_name
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


def matmul_error(a, b, err=None):
    """torch's error for a matmul of arrays a and b that cannot run (their dtypes differ,
    or NumPy's ``err`` refused the shapes), found as torch finds it: matmul hands the pair
    to dot, mv, mm or bmm by their dimensions (folding a batch into the rows of one mm when
    that needs no copy, as for inputs that do not require grad), and the kernel it reaches
    says what it checks first."""
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        return RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                            f"{da}D and {db}D")
    if da == 1 and db == 1:
        return _dot_error(a, b)
    if da == 2 and db == 1:
        return _mv_error(a, b)
    if da <= 2 and db == 2:
        return _mm_error(a.reshape(1, -1) if da == 1 else a, b)
    if _folds(a, b):                  # one mm (or mv) on the larger operand's rows
        t1 = a if da >= db else np.swapaxes(b, -1, -2)
        t2 = b if da >= db else (a.T if da == 2 else a)
        rows = t1.reshape(-1, t1.shape[-1])
        return _mm_error(rows, t2) if t2.ndim == 2 else _mv_error(rows, t2)
    n, m1 = (a.shape[-2] if da > 1 else 1), a.shape[-1]
    m2, p = (b.shape[-2], b.shape[-1]) if db > 1 else (b.shape[0], 1)
    batch1, batch2 = a.shape[:max(da - 2, 0)], b.shape[:max(db - 2, 0)]
    bad = broadcast_mismatch(batch1, batch2)
    if bad:                           # the batch dimensions do not broadcast
        return RuntimeError(bad)
    count = int(np.prod(np.broadcast_shapes(batch1, batch2), dtype=np.int64))
    return bmm_error((count, n, m1), (count, m2, p), a.dtype, b.dtype) or \
        RuntimeError(f"matmul: {err}")


def _folds(a, b):
    """Whether torch's matmul folds the larger operand (3-d or more, against a vector or a
    matrix) into the rows of one matrix: when the other is not 2-d, and the larger one's
    leading dimensions are laid out in one run."""
    t1 = a if a.ndim >= b.ndim else np.swapaxes(b, -1, -2)
    other = b.ndim if a.ndim >= b.ndim else a.ndim
    if not (t1.ndim >= 3 and other <= 2) or a.ndim == 2:
        return False
    if t1.size == 0:
        return True
    strides = [s // t1.itemsize for s in t1.strides]
    return all(strides[i] == strides[i + 1] * t1.shape[i + 1] for i in range(t1.ndim - 2))


def _dot_error(a, b):
    if a.dtype != b.dtype:
        return RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                            f"{scalar_type_name(a.dtype)} and {scalar_type_name(b.dtype)}")
    return RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                        f"[{b.shape[0]}] to have the same number of elements, but got "
                        f"{a.shape[0]} and {b.shape[0]} elements respectively")


def _mv_error(mat, vec):
    if mat.shape[1] != vec.shape[0]:
        return RuntimeError(f"size mismatch, got input ({mat.shape[0]}), mat "
                            f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    # torch's mv is an addmv into a result of the vector's dtype, named first
    names = [scalar_type_name(d) for d in (vec.dtype, mat.dtype, vec.dtype)]
    return RuntimeError(f"addmv input tensors must have the same dtype, but got "
                        f"{names[0]}, {names[1]}, and {names[2]}")


def _mm_error(m1, m2):
    if m1.shape[1] != m2.shape[0]:
        return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                            f"({m1.shape[0]}x{m1.shape[1]} and {m2.shape[0]}x{m2.shape[1]})")
    return RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                        f"{cpp_type_name(m1.dtype)} != {cpp_type_name(m2.dtype)}")


def bmm_error(s1, s2, d1, d2):
    """torch's bmm error for batches of matrices of shapes s1 and s2 (3-d) and dtypes d1
    and d2, or None if it would run."""
    want = [s1[0], s1[2]]
    if list(s2[:2]) != want:
        return RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: {want} "
                            f"but got: {list(s2[:2])}.")
    if d1 != d2:
        return RuntimeError(f"expected scalar type {scalar_type_name(d1)} but found "
                            f"{scalar_type_name(d2)}")
    return None


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
