"""Saved values: what a node keeps for its rules, and what it lets go of.

A node keeps its inputs and its output for its rules (``Node.args``, ``.arrays``,
``.out``).  Most rules read only some of them, as their row declares (``Op.saves``,
much as torch's derivative formulas declare what they save), and recording lets go of
the rest (:func:`shed`): an input no rule reads is kept as its array alone, so the
tensor itself goes with the user's last reference to it; a big value no rule reads
becomes a stand-in of the same shape and dtype (:func:`stand_in`), so its memory is
freed now, not after the backward.

Inside ``saved_tensors_hooks`` every tensor a node saves goes through the pack hook
(:func:`pack`), and the rules get back what the unpack hook returns (:func:`unpacked`).
Inference tensors cannot be saved, as in torch.
"""
import numpy as np

from .modes import state
from .tensor import Tensor

# Arrays smaller than this are always kept: they cost nothing, and pictures of the graph
# show their values.  (tests/core/test_ops.py sets it to 0, so that every rule meets stand-ins.)
KEEP_BELOW = 4096
_stand_ins = {}                       # (shape, dtype) -> (array, tensor), reused
_zeros = {}                           # dtype -> the one zero every stand-in of it shows


def shed(node, unread):
    """Let go of what the node's rules never read: the inputs of bits ``unread`` (bit i:
    input i), all computed by other nodes (leaves and constants stay: they live with
    their owner anyway), and a big output its rules do not read.  Such an input is kept
    as its array alone (in a long chain, no tensor per link stays alive for the garbage
    collector to walk again and again); a big one, or a big output, as a stand-in."""
    args, out = node.args, node.out
    if not node.op.reads_output and out.size >= KEEP_BELOW:
        node.out = stand_in(out)[0]
    if unread == 1 and len(args) == 2 and args[0]._data.size < KEEP_BELOW:
        arrays = node.arrays                      # the usual case: y * 2, y + 1, ... where the
        node.args = arrays if arrays[0] is args[0]._data and arrays[1] is args[1] else (  # arrays are
            args[0]._data, args[1])               # what it keeps: one tuple for both
    elif unread:
        arrays = list(node.arrays)
        node.args = tuple(_array_of(a, arrays, i) if unread >> i & 1 else a for i, a in enumerate(args))
        node.arrays = tuple(arrays)


def _array_of(t, arrays, i):
    """What a node keeps of input i, a tensor whose value it never reads: its array, or a
    stand-in if it is big (and a stand-in for arrays[i] too)."""
    if t._data.size < KEEP_BELOW:
        return t._data
    arrays[i] = stand_in(arrays[i])[0]
    return stand_in(t._data)[0]


def stand_in(a):
    """(array, tensor) standing in for ``a``: its shape and dtype, one shared zero for its
    values (a read-only view with zero strides).  See :func:`is_stand_in`."""
    key = (a.shape, a.dtype)
    found = _stand_ins.get(key)
    if found is None:
        if len(_stand_ins) >= 256:
            _stand_ins.clear()
        zero = _zeros.get(a.dtype)
        if zero is None:
            zero = _zeros[a.dtype] = np.zeros((), a.dtype)
        view = np.ndarray(a.shape, a.dtype, buffer=zero, strides=(0,) * a.ndim)
        view.flags.writeable = False
        found = _stand_ins[key] = (view, Tensor._make(view))
    return found


def is_stand_in(a):
    """Whether ``a`` (an array) is a stand-in: its values were not kept."""
    return a.base is not None and a.base is _zeros.get(a.dtype)


# -- saved_tensors_hooks, and inference tensors ---------------------------------------------
def pack(node, args, result):
    """What recording does for saved values beyond keeping them: refuse inference tensors
    (torch cannot save them), and hand each saved tensor to the innermost
    saved_tensors_hooks' pack hook, keeping what it returns instead.  Values are saved in
    the order torch saves them ("others", as mul: the other input first).  The node of an
    in-place op (its first input is ``state.writing``) saves the old value of the tensor
    it writes and its output later, after the write (:func:`pack_written`), as torch."""
    inputs = [i for i, a in enumerate(node.args) if type(a) is Tensor and node.reads(i)]
    if node.op.saves == "others":
        inputs.reverse()
    for i in inputs:
        if args[i]._inference:
            raise RuntimeError("Inference tensors cannot be saved for backward. Please do not use Tensors "
                               "created in inference mode in computation tracked by autograd. To work "
                               "around this, you can make a clone to get a normal tensor and use it in "
                               "autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")
    if not state.saved_hooks:
        return
    node.packed = {}
    if state.writing is not None and args[0] is state.writing:
        _pack(node, [i for i in inputs if i != 0], None)
    else:
        _pack(node, inputs, result)


def pack_written(node, t):
    """pack() for the node of an in-place op on ``t``, after the write: what it keeps of
    t as it was (a copy: inplace's _overwrite) and its output, which is t itself."""
    if node.packed is not None:           # (saved_tensors_hooks were on when it was recorded)
        _pack(node, [0] if type(node.args[0]) is Tensor and node.reads(0) else [], t)


def _pack(node, inputs, result):
    pack_hook, unpack = state.saved_hooks[-1]
    for i in inputs:
        node.packed[i] = (pack_hook(node.args[i]), unpack)
    if result is not None and node.op.reads_output:
        node.packed["out"] = (pack_hook(result), unpack)


def unpacked(node, create_graph):
    """Node.saved() of a node whose values saved_tensors_hooks packed: given back by
    their unpack hook."""
    args, arrays, out = list(node.args), list(node.arrays), node.out
    for where, (value, unpack) in node.packed.items():
        t = unpack(value)
        if where == "out":
            out = t._data
        else:
            args[where], arrays[where] = t, t._data.astype(arrays[where].dtype, copy=False)
    if not create_graph:
        return arrays, out
    return args, node.output(out)
