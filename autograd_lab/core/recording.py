"""Recording: calling an operation on tensors computes it and records how.

An :class:`Op` is one row of the rules table (``rules.py``, and the shell's rows, as in
``more_rules.py``): a NumPy forward and its derivative rules.  Called on arrays it just
computes.  Called on tensors it computes on their arrays and, when some input has
somewhere to send a gradient, :func:`attach` gives the result a :class:`Node`, its
``grad_fn``: the op, its edges (``node.next``: per input, the node that input's gradient
goes to), what the rules will read, and a number.  Every node takes the next number when
it is recorded, after the nodes that made its inputs: the order the walk (``engine.py``)
runs them in.

Rules are written with the same operations they differentiate, so they are
polymorphic: on plain NumPy arrays an Op just computes (that is how a backward pass
runs fast), on tensors it records (that is how ``create_graph=True`` records the
backward pass for second derivatives).

Recording does nothing else.  What the optional machinery needs when an operation runs
lives in the module that owns it, and recording makes one call into it, only while it is
switched on:

- in-place writes: a view shares its base's versions, a node notes the versions it
  read, an in-place method's op may compute into the written memory (``versions.py``);
- what a node lets go of, saved-tensor hooks and the count of saved bytes (``saved.py``);
- forward mode: the output's tangent, at every live level (``forward_mode.py``);
- anomaly mode: where the node was made (``watch.py``); ``count_passes`` (``modes.py``);
- inside ``al.vmap`` a batched input takes the row's batch rule (``batching.py``,
  reached through ``state.batching``).
"""
import itertools
import warnings

import numpy as np

from .checks import shape_error
from .dtypes import promote, promote_from
from .forward_mode import push as push_tangents
from .modes import count, made_in_inference_mode, state
from . import saved
from .saved import pack, shed, unpacked
from .tensor import Tensor
from .versions import forward_into, note_versions, share_version
from .watch import note_origin

# torch computes log(0), 0/0 and 0 * inf silently (to -inf and nan); so does autograd_lab.
# NumPy would warn, naming the line in this package that called it: those warnings, and
# only those, are silenced.  (Free until a warning fires, unlike np.errstate per call.)
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"autograd_lab(\.|$)")

_sequence = itertools.count()         # the nodes' numbers, in the order they are recorded
FREED = ("Trying to backward through the graph a second time (or directly access saved "
         "tensors after they have already been freed). Saved intermediate values of the graph "
         "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
         "you need to backward through the graph a second time or if you need to access saved "
         "tensors after calling backward.")


class Op:
    """One row of the rules table: ``forward`` on arrays, and its derivative rules.

    - ``name``: torch's name for its nodes (``MulBackward0``); where torch's name depends
      on the call, the row's module registers a function for it (:func:`name_by_call`).
    - ``vjp``: one rule per input, ``rule(g, y, *inputs, **params)``, that input's share
      of the gradient ``g`` arriving at the output ``y`` (None: it never gets one, as
      ``where``'s condition).  ``jvp``: one rule per input, ``rule(t, y, *inputs,
      **params)``, the output's tangent caused by that input's tangent ``t``.  An op
      that takes any number of inputs (``cat``) gives ``vjp_all`` / ``jvp_all`` instead.
    - ``saves``: what the VJP rules read, as torch's derivative formulas declare what they
      save: ``True`` (inputs and output), ``"inputs"``, ``"others"`` (each input's rule
      reads the other inputs only: mul, matmul), ``"output"``, a tuple of input
      positions, ``"index"`` (only an index kept as a parameter) or ``False`` (only
      shapes).  A node lets go of what its rules never read (``saved.py``), and an
      in-place change is refused only where a rule reads it.
    - ``promote``: inputs promoted to a common dtype (True, or from that input on);
      ``floating``: integer and bool inputs become float32 first (division, exp, ...);
      ``differentiable``: False for comparisons and the like, which record nothing;
      ``into``: an in-place write may compute straight into the written memory
      (``versions.writes_into``): True where ``forward`` takes ``out=``, else a function
      ``(*arrays, out)`` doing forward's operations in ``out``.
    """

    __slots__ = ("name", "named", "forward", "vjp", "jvp", "vjp_all", "jvp_all", "saves",
                 "promote", "floating", "differentiable", "into", "reads_inputs", "reads_output",
                 "unread")

    def __init__(self, name, forward, vjp=None, jvp=None, *, vjp_all=None, jvp_all=None,
                 saves=True, promote=False, floating=False, differentiable=True, into=False):
        if not (saves is True or saves is False or type(saves) is tuple or
                saves in ("inputs", "others", "output", "index")):
            raise ValueError(f"saves must be True, False, 'inputs', 'others', 'output', 'index' or "
                             f"a tuple of input positions, not {saves!r}")
        self.name, self.named, self.forward = name, None, forward
        self.vjp, self.jvp, self.vjp_all, self.jvp_all = vjp, jvp, vjp_all, jvp_all
        self.saves, self.promote, self.floating = saves, promote, floating
        self.differentiable, self.into = differentiable, into
        self.reads_inputs = saves is True or type(saves) is tuple or saves in ("inputs", "others")
        self.reads_output = saves is True or saves == "output"
        # the inputs whose values no rule reads, as bits (bit i: input i), worked out once
        # here rather than at every call (None: "others", which depends on the call)
        self.unread = (0 if saves is True or saves == "inputs" else None if saves == "others" else
                       ~sum(1 << i for i in saves) if type(saves) is tuple else -1)

    def __repr__(self):
        return f"<Op {self.name}>"

    def grad_name(self, args, params):
        """The name of the node a call with these arguments records."""
        return self.name if self.named is None else self.named(args, params)

    def __call__(self, *args, **params):
        if state.batching is not None:    # inside al.vmap: a batched input takes the batch rule
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
        if self.promote is True:          # torch's dtype promotion (dtypes.py)
            arrays = promote(arrays, self.floating)
        elif self.promote or self.floating:
            arrays = promote_from(arrays, self.promote, self.floating)
        try:                              # (while an in-place method writes: versions.py)
            out = (self.forward(*arrays, **params) if state.into is None else
                   forward_into(self, args, arrays, params))
        except ValueError as e:
            raise shape_error(self, arrays, e) from None
        return attach(self, args, params, out, arrays)


def name_by_call(names):
    """Register the grad_fn names that depend on the call: ``{row: function(args,
    params) -> name}`` (torch records x - 1 as SubBackward0, 1 - x as RsubBackward1).
    The other rows' nodes carry the row's own name."""
    for op, named in names.items():
        op.named = named


# -- the rules table: every row module registers its rows ---------------------------------
ROWS = {}                             # {module: {name: Op}}, in the order modules registered


def register(namespace):
    """A row module's last act, ``register(globals())``: the Ops it defines join the rules
    table under their Python names (a row it imported is listed where it was defined)."""
    known = {id(op) for rows in ROWS.values() for op in rows.values()}
    module = namespace["__name__"].rsplit(".", 1)[-1]
    ROWS[module] = {name: op for name, op in namespace.items()
                    if isinstance(op, Op) and id(op) not in known}


class Node(list):
    """A ``grad_fn``: one recorded call of an Op, as the backward walk sees it: its edges
    (``next``: per input, the node that input's gradient goes to, or None), and what the
    Op's rules will read.

    The node is the list of its edges (``node.next`` is the node itself).  A speed trick,
    measured by ``bench/bench_engine.py``'s chain: a long graph is then one object per link
    for Python's garbage collector to walk again and again, not a node and a tuple of
    edges; recording 100,000 operations takes about 12% less time.  It is still a node,
    not a list: equal only to itself, hashable, and true (it always has an edge)."""
    # what every node has lives in slots (attach fills them in)
    __slots__ = ("op",                # the Op
                 "args",              # the inputs as given: tensors, numbers, masks
                 "arrays",            # the same as NumPy arrays (what a plain backward uses)
                 "params",            # (args, arrays and out hold arrays or stand-ins for
                 "out",               #  values no rule reads: saved.shed)
                 "_name",             # torch's name for it, MulBackward0
                 "stamp",             # in-place writes so far (see versions.check_versions)
                 "seq",               # its number: recording order (see engine.walk)
                 "__dict__", "__weakref__")
    # the optional machinery's fields, which few nodes ever set: class defaults
    hooks = None                      # its hooks and its output's (watch.Hooks), once any is set
    retain = None                     # weakref to the output, after retain_grad()
    tangent = None                    # forward mode: the output's tangent, for saved()
    versions = None                   # versions: those of the saved inputs, if any had been written
    out_box = None                    # versions: once its output's memory is written in place,
    out_version = 0                   # the counter it shares, and the version the node made
    packed = None                     # saved_tensors_hooks: {input index or "out": (packed, unpack)}

    # equal only to itself, as object is (not by its edges, as a list): the walk keeps
    # nodes in dicts and sets
    __eq__, __ne__, __hash__ = object.__eq__, object.__ne__, object.__hash__

    @property
    def next(self):
        """Per input, the node its gradient goes to, or None."""
        return self

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
        a = a._data if type(a) is Tensor else a       # (an array: see saved.shed)
        return a.shape, a.dtype

    def name(self):
        return self._name

    def __repr__(self):
        return f"<{self._name.split('::')[-1]}>"      # torch::autograd::CopySlices: <CopySlices>

    def saved(self, create_graph):
        """The inputs and output as the rules want them: arrays for a plain backward,
        the recorded tensors when the backward itself is being recorded."""
        if self.packed is not None:       # saved_tensors_hooks packed them (saved.py)
            return unpacked(self, create_graph)
        if create_graph:
            return self.args, self.output(self.out)
        return self.arrays, self.out

    def output(self, out):
        """The output as a tensor this node made (its version is the memory's, if written;
        under forward mode it carries its tangent: forward over reverse)."""
        y = Tensor._make(out)
        y._grad_fn, y._vbox = self, self.out_box
        if state.forward_level:
            y._tangent = self.tangent
        return y


class AccumulateGrad:
    """The node behind a leaf tensor that requires grad: where gradients end up."""
    __slots__ = ("variable", "seq", "hooks", "__weakref__")
    next = ()
    op = None
    retain = None
    freed = False

    def __init__(self, variable):     # (hooks: its hooks and the leaf's, watch.Hooks, once any is set)
        self.variable, self.seq, self.hooks = variable, next(_sequence), None

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
        return t._accumulate or accumulator(t)
    return None


def accumulator(leaf):
    """The AccumulateGrad node of a leaf that requires grad, made on its first use."""
    leaf._accumulate = node = AccumulateGrad(leaf)
    return node


_NO_PARAMS = {}                       # the parameters of every node recorded without any


def attach(op, args, params, out, arrays=None):
    """Wrap a forward result as a tensor and record how it was made: a node, its edges
    (where each input's gradient goes) and its number."""
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    result = Tensor._make(out)
    if out.base is not None:          # a view of an input shares its versions (versions.py)
        share_version(result, args)
    if state.grad_enabled and op.differentiable:
        # inner, got: bits (bit i: input i): computed by a node; gets a gradient
        edges, written, inner, got = [None] * len(args), False, 0, 0
        for i, a in enumerate(args):
            if type(a) is Tensor:
                maker = a._grad_fn
                if a._vbox is not None:   # written in place, or a view: its history may have
                    written, maker = True, a.grad_fn   # moved on (versions.py, Tensor.grad_fn)
                if maker is not None:
                    inner |= 1 << i
                elif a._requires_grad:
                    maker = a._accumulate or accumulator(a)
                else:
                    continue
                edges[i], got = maker, got | 1 << i
        if got:                           # (the node is its edges; the rest filled in here)
            node = result._grad_fn = Node(edges)
            node.op, node.seq, node.stamp = op, next(_sequence), state.writes
            node._name = op.name if op.named is None else op.named(args, params)
            node.args, node.params, node.out = args, params or _NO_PARAMS, out
            # (a tuple of arrays and numbers: the garbage collector soon stops tracking it)
            node.arrays = tuple(arrays) if arrays is not None else tuple(
                [a._data if isinstance(a, Tensor) else a for a in args])
            # the inputs no rule reads, computed by a node (unread_inputs, inlined: attach
            # runs at every operation), and a big output no rule reads: let go (saved.py)
            unread = (got if got & (got - 1) == 0 else 0) if op.unread is None else op.unread
            if unread & inner or out.size >= saved.KEEP_BELOW and not op.reads_output:
                shed(node, unread & inner)
            if written or result._vbox is not None:   # in-place versions (versions.py)
                note_versions(node, args, result)
            if state.saved_hooks or state.inference_made or state.saved_counts:
                pack(node, args, result)  # saved-tensor hooks, counts (saved.py)
            if state.anomaly:         # anomaly mode: where it was made (watch.py)
                note_origin(node)
    elif state.inference:             # inference_mode: a tensor no graph may save (modes.py)
        made_in_inference_mode(result)
    if state.forward_level:           # forward mode: its tangent (forward_mode.py)
        push_tangents(op, args, params, result)
    if state.counters:                # count_passes (modes.py)
        count("ops")
    return result
