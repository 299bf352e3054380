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
import weakref

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


def release(node):
    """The rest of what a walk lets go of at a node whose rules ran (engine.release): the
    values saved-tensor hooks packed, and a big output, kept as a stand-in (the walk still
    reads its shape).  (``packed`` is set only where hooks set it: a node's ``__dict__`` is
    made on its first use, and a walk of 100,000 nodes made one each, 8% of its time.)"""
    if node.packed is not None:
        node.packed = None
    if node.out.size >= KEEP_BELOW:
        node.out = stand_in(node.out)[0]


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
                               "autograd, or use `al.no_grad()` instead of `al.inference_mode()`.")
    if state.saved_hooks:
        node.packed = {}
        if state.writing is not None and args[0] is state.writing:
            _pack(node, [i for i in inputs if i != 0], None)
        else:
            _pack(node, inputs, result)
    for counting in state.saved_counts:
        counting.recorded(node)


def pack_written(node, t):
    """pack() for the node of an in-place op on ``t``, after the write: what it keeps of
    t as it was (a copy: inplace's _overwrite) and its output, which is t itself."""
    if node.packed is not None:           # (saved_tensors_hooks were on when it was recorded)
        _pack(node, [0] if type(node.args[0]) is Tensor and node.reads(0) else [], t)


def _pack(node, inputs, result):
    """Hand the values to the pack hook; the node keeps what it returns, and of the
    values themselves only their shapes and dtypes (stand-ins), as torch keeps only what
    the pack hook returned: that is how hooks save memory (checkpointing, float16)."""
    pack_hook, unpack = state.saved_hooks[-1]
    args, arrays = list(node.args), list(node.arrays)
    for i in inputs:
        node.packed[i] = (pack_hook(args[i]), unpack)
        if args[i]._grad_fn is None:      # a leaf: its owner's memory (count_saved)
            node.leaves = getattr(node, "leaves", ()) + (_key(args[i]._data),)
        arrays[i], args[i] = stand_in(arrays[i])[0], stand_in(args[i]._data)[1]
    node.args, node.arrays = tuple(args), tuple(arrays)
    if result is not None and node.op.reads_output:
        node.packed["out"] = (pack_hook(result), unpack)
        node.out = stand_in(node.out)[0]


def unpacked(node, create_graph):
    """Node.saved() of a node whose values saved_tensors_hooks packed: given back by
    their unpack hook."""
    args, arrays, out = list(node.args), list(node.arrays), node.out
    for where, (value, unpack) in node.packed.items():
        t = unpack(value)
        if where == "out":
            out = t._data.astype(out.dtype, copy=False)
        else:
            args[where], arrays[where] = t, t._data.astype(arrays[where].dtype, copy=False)
    if not create_graph:
        return arrays, out
    return args, node.output(out)


# -- counting what graphs keep: al.autograd.graph.count_saved ---------------------------------
class count_saved:
    """Count the bytes of saved values that graphs recorded inside the block keep alive,
    and the most memory a backward inside it held: saved values plus the gradients the
    walk was carrying.  Values are counted once however many nodes keep them (a view as
    the array it views); leaves (parameters, data: tensors no operation made) are their
    owners', not counted.  Inside saved_tensors_hooks a node keeps what the pack hook
    returned: a tensor counts its bytes, anything else none, but for al.utils.checkpoint's
    placeholders, which count the block's inputs they keep alive (``_kept_tensors``).

    >>> with al.autograd.graph.count_saved() as saved:
    ...     loss = model(x).sum()
    ...     saved.now                 # bytes the graph keeps for the backward
    ...     loss.backward()
    ...     saved.now, saved.peak     # 0 (freed), and the peak during the backward

    ``timeline`` lists ``(step, saved bytes, gradient bytes)`` after every operation
    recorded and after every node a backward ran, the gradients being those on their
    way between nodes (not those delivered to leaves, which become ``.grad``); ``peak``
    is the most of saved plus gradient bytes during a backward; ``nodes`` is how many
    nodes recorded inside are still alive (kept by some tensor), freed or not."""

    def __init__(self):
        self._nodes = weakref.WeakSet()   # every node recorded inside and still alive
        self.timeline = []
        self.peak = 0

    def __enter__(self):
        state.saved_counts = state.saved_counts + (self,)
        return self

    def __exit__(self, *exc):
        state.saved_counts = tuple(c for c in state.saved_counts if c is not self)
        return False

    @property
    def nodes(self):
        return len(self._nodes)

    @property
    def now(self):
        """Bytes of the saved values the graphs keep alive now."""
        return _bytes(_kept(self._nodes))

    _held = 0                         # gradient bytes of the walk under way (0: none)

    def recorded(self, node):
        """After ``node`` was recorded (in a forward, or in a block a backward runs again)."""
        self._nodes.add(node)
        now = self.now
        self.timeline.append((node.name(), now, self._held))
        if self._held:
            self.peak = max(self.peak, now + self._held)

    def walked(self, node, gradients):
        """After ``node`` ran in a backward that holds ``gradients`` (arrays or tensors)."""
        arrays = [g._data if type(g) is Tensor else g for g in gradients if g is not None]
        self._held = held = _bytes({_key(a): a for a in arrays})
        now = self.now
        self.timeline.append((node.name(), now, held))
        self.peak = max(self.peak, now + held)

    def __repr__(self):
        return f"count_saved(now={self.now}, peak={self.peak}, nodes={self.nodes})"


def _kept(nodes):
    """{buffer: array} of the values unfreed ``nodes`` keep for their rules, leaves' left out."""
    kept, owned = {}, set()
    for node in list(nodes):
        if node.args is None:
            continue
        owned.update(getattr(node, "leaves", ()))
        for i, a in enumerate(node.args):
            if type(a) is Tensor and a._grad_fn is None:
                owned.add(_key(a._data))  # a leaf's (or a view of it: a parameter's .t())
        for value, _ in (node.packed or {}).values():
            for t in getattr(value, "_kept_tensors", lambda: (value,))():
                if type(t) is Tensor:
                    kept[_key(t._data)] = t._data
        for i, a in enumerate(node.arrays):
            arg = node.args[i]
            if (type(a) is np.ndarray and node.reads(i) and not is_stand_in(a) and
                    not (type(arg) is Tensor and arg._grad_fn is None)):
                kept[_key(a)] = a
        if node.op.reads_output and not is_stand_in(node.out):
            kept[_key(node.out)] = node.out
    for k in owned:
        kept.pop(k, None)
    return kept


def _key(a):
    """The array whose memory ``a`` is (a view: the array it views), by identity."""
    while isinstance(a, np.ndarray) and a.base is not None and isinstance(a.base, np.ndarray):
        a = a.base
    return id(a)


def _bytes(arrays):
    total = 0
    for a in arrays.values():
        while isinstance(a, np.ndarray) and isinstance(a.base, np.ndarray):
            a = a.base
        total += a.nbytes if isinstance(a, np.ndarray) else 0
    return total


def walked(node, pending, sends):
    """What the walk calls after each node's rules ran while a count is open: the
    gradients it holds are those waiting at nodes and those just sent, but for those
    going to a leaf (they become its .grad, not the walk's)."""
    held = [g for n, g in (*pending.items(), *sends) if n.op is not None]
    for counting in state.saved_counts:
        counting.walked(node, held)
