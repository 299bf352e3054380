"""Versions and views: what recording and the walk know of in-place writes.

A tensor whose memory is written in place, or shares memory with one that may be (a
view, a ``detach()``), holds a version box, ``_vbox``: [writes so far, the node that
computed the numbers], shared by all of them.  Recording calls in here only for such
tensors: a view shares its base's box and remembers its base (:func:`share_version`);
a node notes the versions of the inputs its rules read (:func:`note_versions`).  The
walk refuses a value written since a node read it (:func:`check_versions`), in torch's
words, only where a rule reads it (``Op.saves``).

An in-place method may let its op compute straight into the written memory
(:func:`forward_into`).  The methods that write, bump versions and record the write are
``inplace.py``, above the rules table; this module is what recording and the walk need
of them, below both.
"""
import threading

import numpy as np

from . import dtypes
from .checks import broadcasts_to
from .modes import state
from .tensor import Tensor


def share_version(view, args):
    """A view and the tensor it views count in-place writes together, as in torch: a write
    through either is a write to both, and refused where a node read those numbers.  The
    view keeps its base (torch's ``_base``: the tensor that owns the memory), so that a
    write through it can rewrite the base's history."""
    owner = view._data.base
    if owner is not None and not isinstance(owner, np.ndarray):   # NumPy's stride tricks (unfold's
        owner = getattr(owner, "base", owner)                     # windows) hold the array they view
    for a in args:
        if type(a) is Tensor and (a._data is owner or a._data.base is owner):
            box = view._vbox = a._box()
            view._base = a if a._base is None else a._base
            view._seen = box[0]
            if not state.grad_enabled:
                view._made_in_no_grad = True
            return


def note_versions(node, args, result):
    """A node recorded with a written input or a view for its output: it remembers the
    versions of its inputs (where its rules read them) and, for a view, the box its
    output shares with its base, which a later write bumps."""
    if result._vbox is not None:
        node.out_box, node.out_version = result._vbox, result._vbox[0]
    if node.op.reads_inputs:
        node.versions = tuple([a._vbox[0] if type(a) is Tensor and a._vbox is not None else 0
                               for a in args])


def check_versions(node):
    """Something was written since the node was recorded.  Refuse to differentiate with
    saved values that were changed in place since: only the values the node's rules read
    (``Op.saves``), as torch checks only what it saved, and not those saved_tensors_hooks
    packed (torch cannot follow versions through the hooks: the rules use what the unpack
    hook returns).  And take in arrays that ``x.data = ...`` put in place of an input's,
    as torch's backward does."""
    packed = node.packed or ()
    if node.overwritten and node.op.reads_output and "out" not in packed:
        modified(node.out, node, node.out_box[0], node.out_version)
    if not node.op.reads_inputs and state.swapped <= node.stamp:
        return                          # no rule reads an input, and no input's array was replaced
    for i, a in enumerate(node.args):
        if type(a) is not Tensor:
            continue
        if a._swapped > node.stamp:
            old = node.arrays[i]
            if a._data.shape != old.shape:   # the gradient's shape would follow it: refuse
                raise RuntimeError(f"input {i} of {node.name()} had shape {tuple(old.shape)} in the "
                                   f"forward, but its .data was replaced by one of shape "
                                   f"{tuple(a._data.shape)}: run the forward again")
            if node.op.reads_inputs:    # the new numbers, cast as the forward cast them
                new = a._data if a._data.dtype == old.dtype else a._data.astype(old.dtype)
                node.arrays = node.arrays[:i] + (new,) + node.arrays[i + 1:]
        if a._vbox is not None and node.reads(i) and i not in packed:
            saved = node.versions[i] if node.versions else 0
            if a._vbox[0] != saved:     # torch names the node that made it now, if any
                modified(a._data, a.grad_fn, a._vbox[0], saved)


def check_saved(node, where):
    """Refuse, in torch's words, to give back a value node saved (input ``where``, or the
    output, "out": grad_fn._saved_*) that was written in place since."""
    if where == "out":
        if node.overwritten:
            modified(node.out, node, node.out_box[0], node.out_version)
        return
    a, saved = node.args[where], node.versions[where] if node.versions else 0
    if a._vbox is not None and a._vbox[0] != saved:
        modified(a._data, a.grad_fn, a._vbox[0], saved)


def modified(data, maker, now, saved):
    made = "" if maker is None else f", which is output 0 of {short_name(maker)},"
    kind = "CPUBoolType" if data.dtype == np.bool_ else f"al.{dtypes.scalar_type_name(data.dtype)}Tensor"
    raise RuntimeError(                 # (torch's legacy type names: al.FloatTensor, ..., CPUBoolType)
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{kind} {list(data.shape)}]{made} is at "
        f"version {now}; expected version {saved} instead. " + (ANOMALY_HINT if state.anomaly else HINT))


HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
        "with al.autograd.set_detect_anomaly(True, check_nan=False).")
ANOMALY_HINT = ("Hint: the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. Good luck!")


def short_name(node):
    """A node's name as torch's message about saved values prints it: ExpBackward0 is Exp."""
    name = node.name().split("::")[-1]
    return name[:-len("Backward0")] if name.endswith("Backward0") else name.replace("Backward", "")


def forward_into(op, args, arrays, params):
    """An op's forward while an in-place method is under way (``state.into``): computed
    straight into the written array where it may (:func:`writes_into`), else as usual."""
    if not writes_into(op, args, arrays, params):
        return op.forward(*arrays, **params)
    with np.errstate(all="ignore"):   # (a warning made an error would stop it half done)
        return (op.forward if op.into is True else op.into)(*arrays, out=arrays[0])


def writes_into(op, args, arrays, params):
    """Whether ``op`` is the in-place write under way (``state.into``: the array an in-place
    method writes, on a big tensor, and its thread: inplace.in_place_method) and may
    compute straight into that array rather than into a new array the write then takes
    or copies: where the result has the written array's shape and dtype, and no rule of
    the node recorded now reads input 0's old value.  The first op on that array takes
    the write (and clears ``state.into``): an op later in the same method reads the
    memory as written.

    A speed trick: it makes an in-place chain on a tensor of 1,000,000 numbers 17%
    faster (bench/bench_tricks.py, "writing into memory")."""
    into, thread = state.into
    if arrays[0] is not into or thread != threading.get_ident():
        return False
    state.into = None
    if not op.into or params or into.dtype.kind != "f":
        return False
    shape, dtype = into.shape, into.dtype
    for a in arrays[1:]:
        if type(a) is np.ndarray:     # the same dtype, and a shape that broadcasts to x's
            if a.dtype != dtype or a.shape != shape and not broadcasts_to(a.shape, shape):
                return False
        elif type(a) is not float and type(a) is not int:
            return False
    if not state.grad_enabled:
        return True                   # nothing is recorded
    others = any(type(a) is Tensor and a.requires_grad for a in args[1:])   # get gradients
    if op.unread is None:             # "others": x's value is read for another input's rule
        return not others
    return op.unread & 1 == 1 or not (others or args[0].requires_grad)
