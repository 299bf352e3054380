"""In-place writes and views (``x.add_(v)``, ``x[mask] = v``, ``x.zero_()``), recorded as
torch records them.

An in-place method is its out-of-place method recorded on the tensor, as torch records
it: x.exp_() computes x.exp(), writes the numbers into x's memory, adds one to x's
version and makes the new node x's grad_fn.  That node's input is x as it was; a rule
that reads that old value gets a copy of it, as the memory now holds the new one (torch
saves the original too).

Versions: a tensor shares its counter with its views and its detach()es, not with
.data (nor in torch: that is what makes .data unsafe).  A node remembers the versions of
the values it saved, and the walk refuses to use one changed since, only where a rule
reads it: ``versions.py``, what recording and the walk know of writes, below the rules
table this module writes with.

Views: a write through a view is a write into its base.  The base's grad_fn becomes
CopySlices, which puts the view's new numbers into the base's old history; a view of the
base then reads the base's new history (AsStridedBackward0, made when its ``grad_fn`` is
asked for: :meth:`InPlaceMethods._refresh_view`).

The methods are installed on Tensor by ``tensor_methods.py``.
"""
import sys
import threading
import weakref

import numpy as np

from . import checks, dtypes, recording, rules, saved
from .checks import check_into, dense, index_key, is_mask, is_number, key_dims
from .modes import state
from .tensor import Tensor, unwrap

VIEW_OF_A_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."


class InPlaceMethods:
    """Tensor's in-place methods (installed on Tensor by tensor_methods.py)."""

    def _bump(self, count=1):
        box = self._vbox or self._box()
        box[0] += count
        state.writes += count
        if box[1] is not None:            # the node that computed these numbers may have saved
            box[1].out_box = box          # them: from now on it compares their version
            box[1] = None

    def _refresh_view(self):
        """A view whose base was written since its grad_fn was made: its numbers are now the
        base's, so its history is a piece of the base's new one (whatever the grad mode).
        (Tensor.grad_fn calls this for every view; recording reads grad_fn for them.)"""
        if self._seen == self._vbox[0]:
            return                        # not written since: its history stands
        base = self._base
        key = _place(self._data, base._data)
        self._seen = self._vbox[0]
        grad_mode, state.grad_enabled = state.grad_enabled, True
        try:
            self._grad_fn = rules.as_strided(base, key=key)._grad_fn
        finally:
            state.grad_enabled = grad_mode
        t = base._tangent
        if t is not None:                 # (forward mode: its tangent is the base's there too)
            self._tangent = rules.as_strided(t, key=key, lead=t.ndim - base._data.ndim)

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

    def _overwrite(self, result, count=1):
        """Write ``result``, computed from this tensor as it is, into its memory, and make
        result's node this tensor's history -- or, through a view, the base's.  ``count``:
        the write's versions (0: counted already, :func:`overwrite`)."""
        if type(result) is not Tensor:    # batched (vmap), into a tensor that is not
            result._written_into(self)
        node, base, have, got = result._grad_fn, self._base, self._data, result._data
        if base is not None:
            self._check_view(node is not None)
        if node is not None and node.args[0] is self and node.op.reads_inputs and node.reads(0):
            old = Tensor._make(have.copy())             # the rule reads x as it was
            old._grad_fn, old._tangent = node.next[0], self._tangent
            node.args = (old, *node.args[1:])
            if node.arrays[0] is have:
                node.arrays = (old._data, *node.arrays[1:])
        if got is have:                   # the op computed into this memory (versions.writes_into)
            pass
        # a speed trick: the new array becomes the tensor's when no one else holds the old
        # one (its reference count), rather than being copied into it -- relu_ on a tensor
        # of 1,000,000 numbers 30% faster, add_ on 2,000,000 int64 twice as fast
        # (bench/bench_tricks.py, "taking the new array")
        elif sys.getrefcount(have) == 3 and have.base is None and got.base is None and got.dtype is have.dtype:
            self._data = got              # no one else holds these numbers: take the new ones, no copy
        else:
            have[...] = got               # (cast as C casts: int8 += 300 wraps, as in torch)
        self._bump(count)
        if node is None:
            if result._tangent is None:
                return self
        else:                             # its output is this memory now: it sees later writes
            _made(node, self)
        if base is None:
            self._take(node, result._tangent)
        else:                             # the base's new numbers: its old ones, this view's new ones
            whole = recording.attach(rules.copy_slices, (base, result), {"key": _place(self._data, base._data)},
                                 base._data)
            if whole._grad_fn is not None:
                _made(whole._grad_fn, base)
            base._take(whole._grad_fn, whole._tangent)
        if node is not None and node.packed is not None:
            saved.pack_written(node, self)      # saved_tensors_hooks: x as it was, and x now
        return self

    def _take(self, node, tangent):
        """Make ``node`` this tensor's history (a retained gradient moves with it, as in
        torch), and ``tangent`` its tangent."""
        if node is not None:
            if self._retains_grad:
                self._grad_fn.retain, node.retain = None, weakref.ref(self)
            self._grad_fn = node
        if tangent is not None and self._tangent is not None:
            self._tangent_writes = self.__dict__.get("_tangent_writes", 0) + 1   # (torch writes the
        self._tangent = tangent           # tangent in place: a custom Function's jvp checks the count)

    def _put(self, op, value, key=(Ellipsis,)):
        """Write ``value`` at ``key``: x[key] = v, fill_, zero_, copy_, masked_fill_.  Through
        a view the write goes into the base, where torch records it (CopySlices)."""
        self._check_inplace()
        if isinstance(value, Tensor) and type(value) is not Tensor:
            value._written_into(self)     # batched (vmap), into a tensor that is not
        recorded = _tracked(self) or _tracked(value)
        if self._base is not None:
            self._check_view(recorded)
        if not recorded:                  # nothing to record: just write
            rules.write_into(self._data, value._data if isinstance(value, Tensor) else value, key)
            self._bump()
            return self
        if self._base is None:
            return self._overwrite(op(self, value, key=key))
        base = self._base
        if base._data.ndim == 0:          # a view of one number: written or not (a 0-d mask)
            hit = np.zeros(self._data.shape, bool)
            rules.write_into(hit, True, key)
            base._overwrite(rules.copy_slices(base, value, key=(np.array(hit.any()),)))
            return self
        at = np.ravel_multi_index(_place(self._data, base._data), base.shape)
        base._overwrite(rules.copy_slices(base, value, key=np.unravel_index(rules.index_forward(at, key),
                                                                          base.shape)))
        return self

    def zero_(self):
        return self._put(rules.zero, 0)

    def fill_(self, value):
        if isinstance(value, Tensor):
            if value._data.ndim:
                raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                   f"{value._data.ndim} dimensions.")
        elif not is_number(value):
            raise TypeError(f"fill_() received an invalid combination of arguments - got "
                            f"({type(value).__name__}), but expected one of:\n * (Tensor value)\n"
                            f" * (Number value)")
        else:
            dtypes.check_fits(value, self._data.dtype)
        return self._put(rules.fill, value)

    def copy_(self, src):
        if not isinstance(src, Tensor):
            raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
        check_into(self._data.shape, src._data.shape)
        if src._vbox is not None and src._vbox is self._vbox:
            _check_overlap(self, src)
        return self._put(rules.copy, src)

    def masked_fill_(self, mask, value):
        return self._put(rules.masked_fill, *masked_args(self, mask, value))

    def __setitem__(self, key, value):
        # torch writes one value through a lone mask with masked_fill_, which takes bool
        # masks only (after checking the mask's shape; it reads no uint8 mask: no warning)
        fill = np.size(unwrap(value)) == 1 and _one_uint8_mask(key)
        arrays = index_key(key, warn=not fill)
        checks.check_masks(self._data.shape, arrays)
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
            return self._put(rules.copy_slices, value, key)
        if any(isinstance(k, np.ndarray) for k in key):
            return self._put(rules.index_put, value, key)
        return self._put(rules.copy if value._data.ndim else rules.fill, value, key)


def reshape_in_place(x, row, **params):
    """An in-place shape method (x.unsqueeze_(0), x.t_()): x now holds the view ``row``
    makes of its numbers -- the same memory -- and, where it is recorded, the row's node is
    x's history (UnsqueezeBackward1, TBackward1, ...); its version moves on, as torch's."""
    x._check_inplace()
    view = row(x, **params)
    x._data = view._data
    x._bump()
    if x._base is not None:               # (a view: its history is this node, not its base's new one)
        x._seen = x._vbox[0]
    if view._grad_fn is not None or view._tangent is not None:
        x._take(view._grad_fn, view._tangent)
    return x


def replace_numbers(x, array):
    """x holds ``array`` from now on (x.resize_, out= of another shape): a write, which its
    version counts."""
    x._data = array
    x._bump()
    return x


def overwrite(t, result, count=1):
    """``result``, computed from ``t``, as an in-place write of ``t``: its numbers, its
    history and a version more (``count``: 0 where the write was counted already).  For
    the shell's writes that are not methods of Tensor: a custom Function's
    ``mark_dirty``, vmap's writes to a batch."""
    return t._overwrite(result, count)


def check_writable(t):
    """Refuse, in torch's words, to write ``t`` in place (a leaf that requires grad, an
    inference tensor outside inference_mode, an expanded tensor)."""
    t._check_inplace()


def in_place_method(method, name):
    """The in-place form of a method: x.exp_() is x.exp(), with torch's promotion,
    wrap-around and refusals, written into x's memory when x's shape and dtype can hold
    it, and recorded (Tensor._overwrite)."""
    def in_place(self, *args, **kwargs):
        self._check_inplace()
        for a in args:
            if type(a) is Tensor and a._vbox is not None and a._vbox is self._vbox:
                _check_overlap(self, a)   # (a view of the same memory)
        if state.saved_hooks:             # what its node hands them is x as it was (saved.pack)
            writing, state.writing = state.writing, self
            try:
                result = method(self, *args, **kwargs)
            finally:
                state.writing = writing
        elif self._data.size >= saved.KEEP_BELOW and may_write_into(self, args, kwargs):
            state.into = (self._data, threading.get_ident())  # its op may compute straight into
            try:                                               # it (versions.writes_into)
                result = method(self, *args, **kwargs)
            finally:
                state.into = None
        else:
            result = method(self, *args, **kwargs)
        # (self._data is not held in a local here: _overwrite takes the new array when no
        # one else holds the old one, which it tells by the old one's reference count)
        got, shape, dtype = result._data, self._data.shape, self._data.dtype
        if got.shape != shape:
            check_into(shape, got.shape)
        if got.dtype is not dtype and not dtypes.can_cast(got.dtype, dtype):
            raise RuntimeError(f"result type {dtypes.scalar_type_name(got.dtype)} can't be cast "
                               f"to the desired output type {dtypes.scalar_type_name(dtype)}")
        return self._overwrite(result)
    in_place.__name__ = in_place.__qualname__ = name
    in_place.__doc__ = f"In-place version of :meth:`{method.__name__}`."
    return in_place


def _made(node, t):
    """``node`` made the numbers in ``t``'s memory (an in-place write): it notes the version
    they are at, so that a later write is seen -- refused if its rules read them
    (versions.check_versions), shown as overwritten in pictures of the graph."""
    if node.op.reads_output:
        node.out = t._data
    node.out_box, node.out_version = t._vbox, t._vbox[0]


def may_write_into(t, args, kwargs):
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
        elif not is_number(a):
            return False
    return not _RAISING.intersection(np.geterr().values())


_RAISING = {"raise", "call"}


def _tracked(t):
    """Whether an in-place write of (or through) ``t`` must be recorded: it requires grad
    (in grad mode) or carries a tangent."""
    return type(t) is Tensor and ((state.grad_enabled and t.requires_grad) or t._tangent is not None)


def _place(view, base):
    """Where each number of the array ``view`` sits in ``base``, an array sharing its
    memory: an index into base, found from the numbers' addresses."""
    def addresses(a):
        at = np.array(a.__array_interface__["data"][0])
        for n, stride in zip(a.shape, a.strides):
            at = np.add.outer(at, np.arange(n) * stride)
        return at
    if base.ndim == 0:                    # a view of one number: every index of it is that number
        return (None,) * view.ndim
    spots = addresses(base).ravel()
    order = np.argsort(spots, kind="stable")
    flat = order[np.searchsorted(spots, addresses(view), sorter=order)]
    return np.unravel_index(flat, base.shape)


def _through_a_view(shape, key):
    """Whether torch's x[key] = v writes through a view of x: when the key has an int, a
    None or a slice that is not the whole of its dimension (those apply first)."""
    for k, sizes in key_dims(shape, key)[0]:
        if k is None or isinstance(k, (bool, int, np.integer, np.bool_)):
            return True
        if isinstance(k, slice):
            n = sizes[0] if sizes else 0
            if k.start not in (None, 0) or k.step not in (None, 1) or (k.stop is not None and k.stop < n):
                return True
    return False


def _setitem_value(x, key, value):
    """The value of ``x[key] = value`` as a tensor, checked as torch checks it: a number
    becomes a constant of x's dtype; through indices (index_put_) a tensor must have x's
    dtype, unless one number goes through a lone mask (masked_fill_, which casts); without
    indices (copy_) it must expand to the shape written."""
    if is_number(value):
        dtypes.check_fits(value, x._data.dtype)
        return Tensor._make(np.array(value).astype(x._data.dtype))
    if not isinstance(value, Tensor):
        kind = type(value)
        kind = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"can't assign a {kind} to a al.{dtypes.scalar_type_name(x._data.dtype)}Tensor")
    advanced = any(isinstance(k, np.ndarray) for k in key)
    if value._vbox is not None and value._vbox is x._vbox and value._data.ndim and not advanced:
        # (one number is read first, as fill_ reads it; torch's copy_ compares the numbers
        # written, x[key], with the value: x[:, 0] = x[:, 1] is fine)
        _check_overlap(Tensor._make(rules.index_forward(x._data, key)), value)
    if advanced:
        if value._data.ndim and np.may_share_memory(x._data, value._data):
            raise RuntimeError(OVERLAP)   # index_put_ refuses even the same numbers (x[:, i] = x)
        one_mask = value._data.ndim == 0 and len(key) == 1 and is_mask(key[0])
        if value._data.dtype != x._data.dtype and not one_mask:
            raise RuntimeError("Index put requires the source and destination dtypes match, got "
                               f"{dtypes.scalar_type_name(x._data.dtype)} for the destination and "
                               f"{dtypes.scalar_type_name(value._data.dtype)} for the source.")
    else:
        _check_expand(value._data.shape, rules.index_forward(x._data, key).shape, value.dtype)
    return value


def _check_overlap(written, read):
    """Refuse, as torch does, an in-place op that reads a tensor lying over the memory it
    writes in another way: it would read numbers it has already written.  (Like torch, it
    passes over layouts with gaps, where telling is too hard.)"""
    a, b = written._data, read._data
    if a is b or not (np.may_share_memory(a, b) and dense(a) and dense(b)):
        return
    if a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.strides == b.strides:
        return                            # the same numbers, laid out the same way: fine
    raise RuntimeError(OVERLAP)


OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer "
           "to a single memory location. Please clone() the tensor before performing the operation.")


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


def masked_args(x, mask, value):
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
    check_into(x._data.shape, mask._data.shape)
    return value, (np.broadcast_to(mask._data, x._data.shape).copy(),)


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


