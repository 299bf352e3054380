"""Recording: how calling an operation on tensors builds the graph.

An :class:`Op` is one row of the rules table (``rules.py``, and the shell's own rows, as in
``more_rules.py``): a NumPy forward, a vector-Jacobian product (VJP) rule per input and
a Jacobian-vector product (JVP) rule per input.  Calling it on tensors runs the forward
and, when some input requires grad, attaches a :class:`Node` to the result -- the
result's ``grad_fn``.  The node keeps what
the backward walk in ``engine.py`` needs: the inputs and the output (or, for big values
its rules never read, stand-ins of the same shape), and edges (``node.next``) to the
nodes that produced the inputs.

Rules are written with the same operations they differentiate, so they are
polymorphic: on plain NumPy arrays an Op just computes (that is how a backward pass
runs fast), on tensors it records (that is how ``create_graph=True`` records the
backward pass for second derivatives).
"""
import itertools
import os
import threading
import traceback
import warnings

import numpy as np

from . import dtypes
from .checks import broadcasts_to, shape_error
from .modes import state
from .tensor import Tensor

# torch computes log(0), 0/0 and 0 * inf silently (to -inf and nan); so does autograd_lab.
# NumPy would warn, naming the line in this package that called it: those warnings, and
# only those, are silenced.  (Free until a warning fires, unlike np.errstate per call.)
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"autograd_lab(\.|$)")

# every node gets the next number when it is recorded; the inputs of a node were always
# recorded before it, so "highest number first" is an order the backward walk can use
_sequence = itertools.count()
_PACKAGE = os.path.dirname(os.path.abspath(__file__))
FREED = ("Trying to backward through the graph a second time (or directly access saved "
         "tensors after they have already been freed). Saved intermediate values of the graph "
         "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
         "you need to backward through the graph a second time or if you need to access saved "
         "tensors after calling backward.")


class Op:
    """One operation: ``forward`` on arrays, and its derivative rules.

    ``vjp``: one function per positional input, ``rule(g, y, *inputs, **params)``
    returning that input's share of the gradient (None marks an input that never
    gets one, such as ``where``'s condition).  ``jvp``: one function per input,
    ``rule(t, y, *inputs, **params)`` giving the output's tangent caused by that input's
    tangent ``t``.  Ops that take any number of inputs (``cat``) give ``vjp_all`` /
    ``jvp_all`` instead, handling all inputs at once.
    ``saves``: what the VJP rules read, much as torch's derivative formulas declare what
    they save: ``True`` (inputs and output), ``"inputs"`` (sin, div), ``"others"`` (the
    rule of each input reads the other inputs only: mul, matmul), ``"output"`` (exp,
    sigmoid, relu), a tuple of input positions (``(0,)``: where reads its condition
    only), ``"index"`` (only an index kept as a parameter, which torch saves: x[mask] = v)
    or ``False`` (only shapes: add, sum, view, ...; such graphs can be walked again after
    a backward, as in torch).  A node lets go of the big arrays its rules never read (see
    :func:`shed`), and an in-place change is refused only where a rule reads it.
    ``floating``: the op computes real-valued results (division, exp, sin, ...), so
    integer and bool inputs are first cast to the default float32, as torch does.
    ``into``: an in-place write can compute straight into the written tensor's memory
    (see :meth:`writes_into`): ``True`` where ``forward`` takes ``out=`` (a NumPy ufunc),
    else a function ``(*arrays, out)`` doing forward's operations in ``out``.  Either way
    the result has the first input's dtype when all the arrays share it.
    ``batch``: how the op runs on a batch inside ``al.func.vmap`` (see ``batching.py``):
    ``rule(op, n, *inputs, **params)`` where every array input carries ``n`` leading
    batch dimensions; None: vmap calls the op once per sample.
    """

    __slots__ = ("name", "forward", "vjp", "jvp", "vjp_all", "jvp_all", "saves", "promote",
                 "floating", "differentiable", "reads_inputs", "reads_output", "unread", "into",
                 "batch")

    def __init__(self, name, forward, vjp=None, jvp=None, *, vjp_all=None, jvp_all=None,
                 saves=True, promote=False, floating=False, differentiable=True, into=False,
                 batch=None):
        self.name = name
        self.batch = batch
        self.forward = forward
        self.vjp = vjp
        self.jvp = jvp
        self.vjp_all = vjp_all
        self.jvp_all = jvp_all
        if not (saves is True or saves is False or type(saves) is tuple or
                saves in ("inputs", "others", "output", "index")):
            raise ValueError(f"saves must be True, False, 'inputs', 'others', 'output', 'index' or "
                             f"a tuple of input positions, not {saves!r}")
        self.saves = saves
        self.reads_inputs = saves is True or type(saves) is tuple or saves in ("inputs", "others")
        self.reads_output = saves is True or saves == "output"
        # the inputs whose values no rule reads, as bits (bit i: input i), worked out once
        # here rather than at every call (see unread_inputs; None: "others", which depends)
        self.unread = (0 if saves is True or saves == "inputs" else None if saves == "others" else
                       ~sum(1 << i for i in saves) if type(saves) is tuple else -1)
        self.promote = promote
        self.floating = floating      # results are floats: integer/bool inputs become float32
        self.differentiable = differentiable
        self.into = into

    def __repr__(self):
        return f"<Op {self.grad_name((), {})}>"

    def grad_name(self, args, params):
        return self.name(args, params) if callable(self.name) else self.name

    def __call__(self, *args, **params):
        if state.batching is not None:    # inside al.func.vmap: a batched input takes the batch rule
            out = state.batching(self, args, params)
            if out is not NotImplemented:
                return out
        arrays, recording = [], False
        for a in args:
            if type(a) is Tensor:
                a, recording = a._data, True
            arrays.append(a)
        if not recording:                 # no tensor among the inputs: just compute
            return self.forward(*args, **params)
        # tensors in: compute on their arrays, then record (see attach)
        if self.promote is True:
            arrays = dtypes.promote(arrays, self.floating)
        elif self.promote:                # promote only the inputs from this index on
            arrays[self.promote:] = dtypes.promote(arrays[self.promote:], self.floating)
        if self.floating:
            for i, a in enumerate(arrays):
                if type(a) is np.ndarray and a.dtype.kind in "biu":
                    arrays[i] = a.astype(dtypes.DEFAULT_FLOAT)
        try:
            if state.into is not None and self.writes_into(args, arrays, params):
                with np.errstate(all="ignore"):   # (a warning made an error would stop it half done)
                    out = (self.forward if self.into is True else self.into)(*arrays, out=arrays[0])
            else:
                out = self.forward(*arrays, **params)
        except ValueError as e:
            raise shape_error(self, arrays, e) from None
        return attach(self, args, params, out, arrays)

    def writes_into(self, args, arrays, params):
        """Whether this op is the in-place write under way (``state.into``: the array an
        in-place method writes, on a big tensor, and its thread: inplace.in_place_method)
        and may compute straight into that array rather than into a new array the write
        then takes or copies: where the result has the written array's shape and dtype,
        and no rule of the node recorded now reads input 0's old value.  The first op on
        that array takes the write (and clears ``state.into``): an op later in the same
        method reads the memory as written.

        A speed trick: it makes an in-place chain on a tensor of 1,000,000 numbers 17%
        faster (bench/bench_tricks.py, "writing into memory")."""
        into, thread = state.into
        if arrays[0] is not into or thread != threading.get_ident():
            return False
        state.into = None
        if not self.into or params or into.dtype.kind != "f":
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
        if self.unread is None:           # "others": x's value is read for another input's rule
            return not others
        return self.unread & 1 == 1 or not (others or args[0].requires_grad)

    # -- forward mode: the output's tangent from the inputs' tangents ----------------
    def tangent(self, tangents, y, args, params):
        if self.jvp_all is not None:
            return self.jvp_all(tangents, y, *args, **params)
        out = None
        for rule, t in zip(self.jvp, tangents):
            if t is not None and rule is not None:
                term = rule(t, y, *args, **params)
                out = term if out is None else out + term
        return out


class Node:
    """A ``grad_fn``: one recorded call of an Op, as the backward walk sees it: its edges
    (``next``: per input, the node that input's gradient goes to, or None), and what the
    Op's rules will read."""
    # what every node has lives in slots (attach fills them in); what few nodes ever get
    # (hooks, a retained gradient, a tangent) falls back to the class defaults below
    __slots__ = ("op",                # the Op
                 "next",              # the edges, one per input
                 "args",              # the inputs as given: tensors, numbers, masks
                 "arrays",            # the same as NumPy arrays (what a plain backward uses)
                 "params",            # (args, arrays and out hold arrays or stand-ins for
                 "out",               #  values no rule reads: see shed)
                 "_name",             # torch's name for it, MulBackward0
                 "stamp",             # in-place writes so far (see inplace.check_versions)
                 "seq",               # recording order (see engine.walk)
                 "__dict__", "__weakref__")
    hooks = None                      # its hooks and its output's (watch.Hooks), once any is set
    retain = None                     # weakref to the output, after retain_grad()
    tangent = None                    # forward mode: the output's tangent, for saved()
    versions = None                   # versions of the saved inputs, if any had been written
    packed = None                     # saved_tensors_hooks: {input index or "out": (packed, unpack)}
    out_box = None                    # once its output's memory is written in place: the version
    out_version = 0                   # counter it shares, and the version the node made

    @property
    def freed(self):
        """Whether a backward released the saved values (it drops ``args``: engine.commit)."""
        return self.args is None

    @property
    def overwritten(self):
        """Whether the numbers this node made were written over in place since."""
        return self.out_box is not None and self.out_box[0] != self.out_version

    def reads(self, i):
        """Whether a rule that runs reads the value of input i (see :func:`unread_inputs`)."""
        edges = 0
        for k, n in enumerate(self.next):
            if n is not None:
                edges |= 1 << k
        return not unread_inputs(self.op, edges) >> i & 1

    def in_meta(self, i):
        """(shape, dtype) of input i, which a gradient for it must match."""
        a = self.args[i]
        a = a._data if type(a) is Tensor else a       # (an array: see shed)
        return a.shape, a.dtype

    def name(self):
        return self._name

    def __repr__(self):
        return f"<{self._name.split('::')[-1]}>"      # torch::autograd::CopySlices: <CopySlices>

    def saved(self, create_graph):
        """The inputs and output as the rules want them: arrays for a plain backward,
        the recorded tensors when the backward itself is being recorded."""
        if self.packed is not None:
            return self._unpacked(create_graph)
        if create_graph:
            y = self._output(self.out)
            if state.forward_level:       # forward over reverse: y keeps its tangent
                y._tangent = self.tangent
            return self.args, y
        return self.arrays, self.out

    def _unpacked(self, create_graph):
        """saved(), with the values saved_tensors_hooks packed given back by their unpack hook."""
        args, arrays, out = list(self.args), list(self.arrays), self.out
        for where, (value, unpack) in self.packed.items():
            t = unpack(value)
            if where == "out":
                out = t._data
            else:
                args[where], arrays[where] = t, t._data.astype(arrays[where].dtype, copy=False)
        if not create_graph:
            return arrays, out
        return args, self._output(out)

    def _output(self, out):
        """The output as a tensor this node made (its version is the memory's, if written)."""
        y = Tensor._make(out)
        y._grad_fn, y._vbox = self, self.out_box
        return y


def saving(node, args, result):
    """What recording does for saved values beyond keeping them: refuse inference tensors
    (torch cannot save them), and hand each saved tensor to the innermost
    saved_tensors_hooks' pack hook, keeping what it returns instead.  Values are saved in
    the order torch saves them ("others", as mul: the other input first).  The node of an
    in-place op (its first input is ``state.writing``) saves the old value of the tensor
    it writes and its output later, after the write (:func:`saving_written`), as torch."""
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


def saving_written(node, t):
    """saving() for the node of an in-place op on ``t``, after the write: what it keeps of
    t as it was (a copy: Tensor._overwrite) and its output, which is t itself."""
    if node.packed is not None:           # (saved_tensors_hooks were on when it was recorded)
        _pack(node, [0] if type(node.args[0]) is Tensor and node.reads(0) else [], t)


def _pack(node, inputs, result):
    pack, unpack = state.saved_hooks[-1]
    for i in inputs:
        node.packed[i] = (pack(node.args[i]), unpack)
    if result is not None and node.op.reads_output:
        node.packed["out"] = (pack(result), unpack)


class AccumulateGrad:
    """The node behind a leaf tensor that requires grad: where gradients end up."""
    __slots__ = ("variable", "seq", "hooks", "__weakref__")
    next = ()
    op = None
    retain = None
    freed = False

    def __init__(self, variable):
        self.variable = variable
        self.seq = next(_sequence)
        self.hooks = None             # its hooks and the leaf's (watch.Hooks), once any is set

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return "<AccumulateGrad>"


def unread_inputs(op, edges):
    """The inputs whose values no rule that runs reads, as bits (bit i: input i), by
    ``op.saves``; ``edges`` has the bits of the inputs that get a gradient.  For "others"
    (the rule of each input reads the other inputs) that is the input that alone gets a
    gradient: x * 2 keeps 2 for x's rule, and nothing of x."""
    if op.unread is not None:
        return op.unread
    return edges if edges & (edges - 1) == 0 else 0


def edge(t):
    """The node a gradient for tensor ``t`` flows into, or None."""
    node = t.grad_fn
    if node is not None:
        return node
    if t._requires_grad:
        if t._accumulate is None:
            t._accumulate = AccumulateGrad(t)
        return t._accumulate
    return None


def attach(op, args, params, out, arrays=None):
    """Wrap a forward result as a tensor, and record how it was made."""
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    result = Tensor._make(out)
    if out.base is not None:          # a view of an input (reshape, transpose, slicing, ...)
        _share_version(result, args)
    if state.grad_enabled and op.differentiable:
        node = None                   # the new node, once an input has somewhere to send a gradient
        written = False
        inner = edges = 0             # bits (bit i: input i): computed by a node; gets a gradient
        for i, a in enumerate(args):
            if type(a) is Tensor:
                maker = a._grad_fn
                if a._vbox is not None:
                    written = True
                    if a._base is not None and a._seen != a._vbox[0]:
                        maker = a.grad_fn     # a view of a base written since: the base's history
                if maker is None:
                    if a._requires_grad:
                        maker = a._accumulate or edge(a)
                else:
                    inner |= 1 << i
                if maker is not None:
                    if node is None:  # (its fields are filled in below: no __init__)
                        node = Node()
                        node.next = [None] * len(args)
                    node.next[i] = maker
                    edges |= 1 << i
        if node is not None:
            name = op.name if op.name.__class__ is str else op.name(args, params)
            if arrays is None:
                arrays = [a._data if isinstance(a, Tensor) else a for a in args]
            kept, saved = args, out   # what the node keeps of them
            unread = op.unread        # inputs whose values no rule reads (unread_inputs, inlined
            if unread is None:        # here: attach runs at every operation) ...
                unread = edges if edges & (edges - 1) == 0 else 0
            unread &= inner           # ... among those computed by a node: shed lets go of them
            if unread or not op.reads_output and out.size >= KEEP_BELOW:
                saved, kept = shed(op, out, args, arrays, unread)
            # (arrays as a tuple: of arrays and numbers only, the garbage collector stops
            # tracking it, one object fewer per node for it to walk)
            result._grad_fn = node
            node.op = op
            node.args = kept
            node.arrays = tuple(arrays)
            node.params = params or _NO_PARAMS
            node.out = saved
            node._name = name
            node.stamp = state.writes
            node.seq = next(_sequence)
            if result._vbox is not None:      # a view: its numbers are its base's, which may be
                node.out_box, node.out_version = result._vbox, result._vbox[0]    # written later
            if written and op.reads_inputs:   # remember the versions of inputs written before
                node.versions = tuple([a._vbox[0] if type(a) is Tensor and a._vbox is not None else 0
                                       for a in args])
            if state.anomaly:         # where the forward recorded it (shown if its backward fails)
                node.trace = "".join(traceback.format_list(
                    [f for f in traceback.extract_stack() if not f.filename.startswith(_PACKAGE)]))
            if state.saved_hooks or state.inference_made:
                saving(node, args, result)
    elif state.inference:
        result._inference = state.inference_made = True
    if state.forward_level:
        if not state.grad_enabled:    # (a view whose base was written since: see grad_fn)
            for a in args:
                if type(a) is Tensor and a._base is not None and a._seen != a._vbox[0]:
                    a._see_base()
        _push_tangent(op, args, params, result)
        if state.forward_level > 1:   # tangents of tangents (nested levels: forward_mode.py)
            state.push_levels(op, args, params, result)
        if result._grad_fn is not None:
            result._grad_fn.tangent = result._tangent
    if state.counters:
        for c in state.counters:
            c.ops += 1
    return result


def _share_version(view, args):
    """A view and the tensor it views count in-place writes together, as in torch: a write
    through either is a write to both, and refused where a node read those numbers.  The
    view keeps its base (torch's ``_base``: the tensor that owns the memory), so that a
    write through it can rewrite the base's history."""
    owner = view._data.base
    for a in args:
        if type(a) is Tensor and (a._data is owner or a._data.base is owner):
            box = view._vbox = a._box()
            view._base = a if a._base is None else a._base
            view._seen = box[0]
            if not state.grad_enabled:
                view._made_in_no_grad = True
            return


# -- letting go of what no rule reads ------------------------------------------------
# Arrays smaller than this are always kept: they cost nothing, and pictures of the graph
# show their values.  (tests/test_ops.py sets it to 0, so that every rule meets stand-ins.)
KEEP_BELOW = 4096
_NO_PARAMS = {}                       # the parameters of every node recorded without any
_stand_ins = {}                       # (shape, dtype) -> (array, tensor), reused
_zeros = {}                           # dtype -> the one zero every stand-in of it shows


def shed(op, out, args, arrays, unread):
    """The (output, inputs) a node keeps when its rules never read the output, or the
    inputs of bits ``unread``, all computed by other nodes (see attach): what no rule
    reads is let go of, as torch saves only what a derivative formula needs.  Such an
    input is kept as its array alone, so the tensor itself can go when the user lets go of
    it (in a long chain, no tensor per link stays alive for the garbage collector to walk
    again and again); a big such array, or a big output, is replaced by a stand-in of the
    same shape and dtype, so that it is freed now, not after the backward.  Leaves and
    constants stay: they live with their owner anyway."""
    if not op.reads_output and out.size >= KEEP_BELOW:
        out = stand_in(out)[0]
    if unread == 1 and len(args) == 2 and args[0]._data.size < KEEP_BELOW:
        return out, (args[0]._data, args[1])      # the usual case: y * 2, y + 1, ...
    if unread:
        return out, tuple(_array_of(a, arrays, i) if unread >> i & 1 else a for i, a in enumerate(args))
    return out, args


def _array_of(t, arrays, i):
    """What a node keeps of input i, a tensor whose value it never reads: its array, or a
    stand-in if it is big (and a stand-in for arrays[i] too: arrays is Op.__call__'s own)."""
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


def _push_tangent(op, args, params, result):
    """Forward mode: the output's tangent from the inputs' tangents (dual numbers)."""
    tangents = [a._tangent if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents) or not op.differentiable:
        return
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if op.promote and op.jvp_all is None:
        # elementwise ops broadcast their inputs right-aligned; a batch of tangents must
        # stay in front of the broadcast dimensions, not be mistaken for one of them
        ndim = result._data.ndim
        tangents = [t if t is None or t.ndim == x.ndim or x.ndim >= ndim else
                    t.reshape(t.shape[:t.ndim - x.ndim] + (1,) * (ndim - x.ndim) + x.shape)
                    for t, x in zip(tangents, arrays)]
    with np.errstate(all="ignore"):
        t = op.tangent(tangents, result._data, arrays, params)
    if t is None:
        return
    t = np.asarray(t)
    want = result._data.shape
    if t.shape[t.ndim - len(want):] != want or t.ndim < len(want):
        t = np.broadcast_to(t, t.shape[:max(0, t.ndim - len(want))] + want)
    result._tangent = t.astype(result._data.dtype, copy=False) if result._data.dtype.kind == "f" else t
    if state.dual_tensors is not None:    # forward_ad.dual_level takes it back at its end
        state.dual_tensors.add(result)
