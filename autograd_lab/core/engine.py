"""The backward walk: from outputs and their seeds to the gradients of the inputs.

``backward`` and ``grad`` check their arguments and turn them into seeds; ``run`` does
the rest in three steps:

1. **Plan** (:class:`Plan`).  Where the walk delivers gradients: at every leaf for
   ``backward()``, at the tensors asked about for ``grad(outputs, inputs)`` (or
   ``backward(inputs=...)``), where only the nodes that lead to them run their rules.
2. **Walk** (:func:`walk`).  Every node took the next number from a counter when it was
   recorded (``Node.seq``), after the nodes that made its inputs; so every node that sends
   a gradient to a node has a larger number than it.  The walk keeps the nodes that have
   received something in a heap and runs the one with the largest number next: all its
   senders have run by then, and its gradient is complete.  It calls the node's VJP rules
   (its row of the rules table) and sends one gradient along each edge.  No search of the
   graph comes first, and nothing recurses, so a 100,000-op chain is just a long loop.
3. **Commit** (:func:`commit`).  Only after the whole walk succeeded are ``.grad`` fields
   written, so an error leaves every ``.grad`` as it was.  Saved values go earlier: a
   node's, as soon as its rules ran, as torch frees them, unless the graph is retained
   (``Plan.keep``).

With ``create_graph=True`` the rules run on tensors and are recorded, so the gradients
themselves have a ``grad_fn`` and can be differentiated again.  What users can watch
during a walk (hooks, ``retain_grad``, traces, anomaly mode) is ``watch.py``.
"""
from heapq import heappop, heappush

import numpy as np

from . import rules, saved, watch
from .checks import broadcast_mismatch
from .versions import check_versions
from .modes import count, state
from .recording import FREED, edge
from .tensor import Tensor


def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    backward(self, gradient, retain_graph, create_graph, inputs)     # (Tensor.backward)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(sum of seed * tensor)/d(leaf) into every leaf's ``.grad``."""
    if inputs is not None and not as_tuple(inputs):     # (torch checks this first)
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if grad_tensors is None or isinstance(tensors, Tensor):
        grad_tensors = (grad_tensors,) * len(as_tuple(tensors))
    seeds = make_seeds(as_tuple(tensors), as_tuple(grad_tensors), create_graph)
    run(as_tuple(tensors), seeds, inputs, retain_graph, create_graph, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(sum of grad_outputs * outputs)/d(inputs), one tensor per input, without
    touching any ``.grad``.  With ``is_grads_batched=True`` the first dimension of every
    grad_output is a batch of seeds, all sent through the graph in one walk."""
    outputs, inputs = as_tuple(outputs), as_tuple(inputs)
    if not inputs:
        raise RuntimeError("grad requires non-empty inputs.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError(f"grad(): inputs[{i}] is a {type(x).__name__}, not a Tensor")
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grad_outputs = as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    seeds = make_seeds(outputs, grad_outputs, create_graph, is_grads_batched)
    if is_grads_batched and any(v is None for v in grad_outputs):
        raise RuntimeError(IMPLICIT_BATCHED)    # (a scalar's 1 is no batch)
    found = run(outputs, seeds, inputs, retain_graph, create_graph, accumulate=False)
    result = []
    for i, (x, g) in enumerate(zip(inputs, found)):
        if g is None and not (materialize_grads or allow_unused):
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been "
                               "used in the graph. Set allow_unused=True if this is the desired "
                               "behavior.")
        if g is None and materialize_grads:
            lead = seeds[0].shape[:1] if is_grads_batched else ()
            g = Tensor._make(np.zeros(lead + x.shape, x._data.dtype))
        result.append(g)
    return tuple(result)


def make_seeds(outputs, grad_outputs, create_graph, batched=False):
    """A seed per output (make_seed): as many seeds as outputs, or torch's words."""
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    return [make_seed(i, y, v, create_graph, batched) for i, (y, v) in enumerate(zip(outputs, grad_outputs))]


def make_seed(i, y, v, create_graph, batched=False):
    """Output ``y``'s seed ``v`` (the i-th) as dL/dy of y's shape (a scalar's may be left
    out: 1); with ``batched``, a batch of them along a first dimension."""
    if not isinstance(y, Tensor):
        raise TypeError(f"outputs[{i}] is a {type(y).__name__}, not a Tensor")
    if v is None:                       # ones, for a scalar (and for y that needs no grad: Plan refuses it)
        if y._data.size != 1 and y.requires_grad:
            raise RuntimeError(IMPLICIT.format(tuple(y.shape)))
        v = np.ones_like(y._data)
    if not isinstance(v, (Tensor, np.ndarray, int, float)):
        raise TypeError(NOT_A_SEED.format(type(v).__name__))
    v_data = v._data if isinstance(v, Tensor) else np.asarray(v)
    if (v_data.shape[1:] if batched else v_data.shape) != y._data.shape:
        raise RuntimeError((MISMATCH_BATCHED if batched else MISMATCH).format(
            i=i, seed=tuple(v_data.shape), out=tuple(y._data.shape)))
    # (under create_graph a seed tensor keeps its own history)
    return v.to(y.dtype) if create_graph and isinstance(v, Tensor) else v_data.astype(y._data.dtype, copy=False)


def as_tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def run(outputs, seeds, inputs, retain_graph, create_graph, accumulate):
    """Plan, walk, commit, with grad mode on (recording) only for create_graph."""
    plan = Plan(outputs, seeds, inputs, create_graph, accumulate)
    plan.keep = create_graph if retain_graph is None else retain_graph
    if state.counters:                  # (count_passes)
        count("backward")
    grad_mode, state.grad_enabled = state.grad_enabled, create_graph
    try:
        walk(zip(plan.roots, seeds), plan)
        commit(plan)
    finally:
        state.grad_enabled = grad_mode
    return None if accumulate else plan.results()


def walk(sends, plan):
    """The backward walk: run each node once its gradient is complete, the
    latest-recorded first, and pass what its rules return along its edges;
    a node lets go of its saved values once its rules ran.  ``plan`` is what
    the call asked for: ``targets``, the inputs of autograd.grad (None for
    backward(): every leaf), ``needed``, the nodes on a path to them, and
    ``keep``, retain_graph."""
    pending, ready = {}, []           # gradients so far; heap of (-seq, node)
    while True:
        for node, g in sends:           # gradients arriving at a node add up
            if node in pending:
                pending[node] = add(pending[node], g)
            else:
                pending[node] = g
                heappush(ready, (-node.seq, node))
                if node.op is None and plan.targets is None:
                    plan.delivered[node] = None   # its .grad: in arrival order
        if not ready:
            return
        # the latest-recorded node first: everything that sends to it was
        # recorded after it, so has already run: its gradient is complete
        node = heappop(ready)[1]
        arrived = pending.pop(node)
        sends = ()
        if plan.needed is not None and node not in plan.needed:
            continue                    # it leads to no input asked about
        watched = node.hooks or node.retain or plan.watching
        g = watch.arrive(node, arrived, plan) if watched else arrived
        if node.op is None:             # a leaf: its gradient is complete
            plan.delivered[node] = g
            continue
        if plan.targets and plan.deliver(node, arrived, g):
            continue                    # an input asked about: stop here
        # call its rules (and its own hooks around them, if it has any)
        sends = (watch.run_node(node, g, plan, run_rules) if watched
                 else run_rules(node, g, plan))
        if not plan.keep:               # its values are read no more
            release(node)
        if state.saved_counts:          # count_saved (saved.py)
            saved.walked(node, pending, sends)


class Plan:
    """What one walk needs beyond the graph: where it delivers gradients (``targets``:
    None for every leaf), which nodes must run their rules to get there (``needed``: None
    for all), and what it found: ``delivered`` at targets, ``retained`` for retain_grad.

    ``owned`` hands each gradient over to the tensor that keeps it.  Rules mostly return
    fresh arrays, handed over as they are; an array someone else may hold (``taken``: a
    seed the caller passed, an array a hook saw, one already handed to another tensor, as
    ``add`` sends one gradient to both inputs) or a view is copied.  A speed trick: an MLP
    step at batch 1 is 11% faster than with a copy each time (bench/bench_tricks.py,
    "handing gradients over")."""

    inputs = targets = needed = None    # (every leaf, every node: see aim)
    # keep: retain_graph.  Unless it is set, each node lets go of its saved values as soon
    # as its rules ran, as torch's do, not after the whole walk: the most a backward holds
    # (saved values and the gradients it carries) is lower, by about a tenth for the MLP
    # of bench/bench_memory.py and book/05c.  An error later in the walk (an in-place write
    # found, a Function's backward failing) leaves the nodes that ran freed, as in torch;
    # .grad fields are still written only at the commit.
    keep = True

    def __init__(self, outputs, seeds, inputs, create_graph, accumulate):
        self.roots = [y.grad_fn or edge(y) for y in outputs]   # (edge: a leaf's node)
        if None in self.roots:
            raise RuntimeError(NO_GRAD_FN.format(self.roots.index(None)))
        self.create_graph, self.accumulate = create_graph, accumulate
        # node -> gradient; (tensor, gradient) per retain_grad; hooks waiting for the commit
        self.delivered, self.retained, self.accumulated = {}, [], []
        self.taken = set(map(id, seeds))    # arrays others hold (see owned)
        self.watching = state.anomaly or bool(watch.tracers)  # every node passes watch.py
        if inputs is not None:
            self.aim(as_tuple(inputs))

    def aim(self, inputs):
        """Deliver at the nodes of ``inputs`` only, and run only the nodes leading there."""
        self.inputs = inputs
        if self.accumulate:             # as torch, one by one and even if the walk fails: a
            for x in inputs:            # non-leaf asked about retains its gradient (later too)
                x.retain_grad()
        self.targets = set(map(edge, inputs))
        if None in self.targets:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        self.needed = self._leading_to(self.targets)

    def _leading_to(self, targets):
        """The nodes from which some target can be reached: only their rules must run."""
        needed = set(targets)       # (a node's inputs were recorded before it: seq order)
        for node in sorted(reachable(self.roots), key=lambda n: n.seq):
            if node not in needed and any(c in needed for c in node.next):
                needed.add(node)
        return needed

    def deliver(self, node, arrived, g):
        """At a tensor asked about that some rule made: keep its gradient; True if the walk
        stops there.  If its rules must still run (other inputs lie beyond it), grad()
        keeps what arrived, before its hooks: torch's order, both ways."""
        if node not in self.targets:
            return False
        passes_on = any(c in self.needed for c in node.next)
        self.delivered[node] = arrived if passes_on and not self.accumulate else g
        return not passes_on            # (a rule that never runs keeps its saved values, as torch)

    def results(self):
        """grad()'s answer: per input, its gradient or None."""
        found = [self.delivered.get(edge(x)) for x in self.inputs]
        return [g if g is None or isinstance(g, Tensor) else self.owned(g) for g in found]

    def owned(self, g):
        """A gradient array as a tensor its new holder may keep: see the class's note."""
        if g.base is not None or id(g) in self.taken:
            g = g.copy()
        self.taken.add(id(g))
        return Tensor._make(g)


def reachable(roots):
    """Every node a walk from ``roots`` can reach along the edges, the roots included."""
    seen, stack = set(roots), list(roots)
    while stack:
        for child in stack.pop().next:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def run_rules(node, g, plan):
    """Call one node's VJP rules: the (next node, gradient) pair for each edge that needs
    one, each gradient of its input's shape and dtype."""
    if node.args is None:               # a backward freed what its rules read (commit)
        raise RuntimeError(FREED)
    if node.stamp != state.writes:      # something was written in place since the forward
        check_versions(node)
    args, y = node.arrays, node.out                 # what the rules read, as arrays, or
    if plan.create_graph or node.packed is not None:    # as tensors, or hooks unpack it
        args, y = node.saved(plan.create_graph)
        g = Tensor._make(g) if plan.create_graph and not isinstance(g, Tensor) else g
    op, params, lead = node.op, node.params, g.ndim - node.out.ndim
    every = op.vjp_all and op.vjp_all(g, y, *args, **params)  # (cat, Functions: all at once)
    sends = []
    for i, child in enumerate(node):    # its edges (a node is the list of them: recording.Node)
        if child is None or (plan.needed is not None and child not in plan.needed):
            continue
        # input i's rule (if it has one), run only for an input that takes a gradient
        r = every[i] if every else op.vjp[i] and op.vjp[i](g, y, *args, **params)
        if r is None:
            continue
        a = node.args[i]                # (a tensor, or its array: see saved.shed)
        a = a._data if type(a) is Tensor else a
        if lead or type(r) is not np.ndarray or r.shape != a.shape or r.dtype != a.dtype:
            r = fit(node, i, r, lead, g)
        if plan.watching:               # anomaly mode's NaN check, a trace
            watch.sent(node, i, child, r)
        sends.append((child, r))
    return sends


def fit(node, i, r, lead, g):
    """Make a rule's result match its input: sum away broadcasting, cast the dtype."""
    shape, dtype = node.in_meta(i)
    if dtype.kind == "O":               # the slots of a Function's outputs (autograd/function.py):
        return r                        # one gradient each, of any batch, no shape of their own
    if not isinstance(r, (Tensor, np.ndarray)):
        r = np.asarray(r)
    want = tuple(g.shape[:lead]) + shape
    if r.shape != want:
        try:
            if r.ndim < len(want):     # a rule may broadcast; it may not drop dimensions
                raise ValueError
            r = rules.sum_to(r, shape, lead=lead) if isinstance(r, Tensor) else \
                rules.sum_to.forward(r, shape, lead)     # an array: nothing to record
        except (ValueError, RuntimeError):
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - "
                               f"got {list(r.shape)} but expected shape compatible with "
                               f"{list(want)}") from None
    if isinstance(r, Tensor):
        return r if r._data.dtype == dtype else r.to(dtype)
    return np.asarray(r, dtype)         # a full sum gives a NumPy scalar: make it a 0-d array


def add(old, g):
    """Two gradients for one place, added (0-d arrays add up to a NumPy number: keep an array)."""
    total = old + g
    return total if type(total) is np.ndarray or isinstance(total, Tensor) else np.asarray(total)


def commit(plan):
    """Once the whole walk succeeded: write every .grad it found (first each checked, then
    all written, so that one that does not fit leaves every .grad as it was)."""
    # a leaf's .grad (written in place unless recorded), a retained gradient (and
    # backward(inputs=[t]) retains t)
    leaves = plan.delivered.items() if plan.accumulate else ()
    writes = [(node.variable, g, not plan.create_graph) for node, g in leaves if node.op is None]
    writes += [(t, g, False) for t, g in plan.retained]
    for t, g, in_place in writes:
        if t._grad is not None and t._grad._data.shape != g.shape:
            check_fits(t, g, in_place)
    for t, g, in_place in writes:
        if t._grad is None:             # with create_graph, its own recorded copy (as torch)
            t._grad = rules.grad_copy(g) if isinstance(g, Tensor) else plan.owned(g)
        elif not in_place or isinstance(g, Tensor):
            t._grad = t._grad + g       # a new tensor (recorded under create_graph)
        else:                           # in place, as torch, even into a .grad that an earlier
            np.add(t._grad._data, g, out=t._grad._data, casting="unsafe")   # create_graph recorded
    if plan.accumulated:                # hooks waiting for a leaf's .grad (watch.py)
        watch.accumulated(plan.accumulated)


def release(node):
    """What a walk does to a node whose rules ran (unless the graph is retained): let
    go of the values its rules read (``Node.freed`` from now on), and of what
    ``saved.release`` lets go of: packed values, a big output (a small one stays)."""
    if node.op.saves:
        node.args = node.arrays = None
        if node.packed is not None or node.out.size >= saved.KEEP_BELOW:
            saved.release(node)         # what hooks packed, a big output (saved.py)


def check_fits(t, g, in_place):
    """Refuse, before any .grad is written, a gradient that cannot be added to ``t.grad``
    (whose array ``t.grad.data = ...`` replaced by one of another shape).  Where torch
    adds the two anyway, broadcasting, so does autograd_lab: out of place, any shapes that
    broadcast; in place, only into a .grad that keeps its shape."""
    have = tuple(t._grad._data.shape)
    text = broadcast_mismatch(have, g.shape)
    if text is None:
        both = np.broadcast_shapes(have, g.shape)
        if not in_place or both == have:
            return
        text = f"output with shape {list(have)} doesn't match the broadcast shape {list(both)}"
    raise RuntimeError(f"{text}. The gradient of a tensor of shape {tuple(t.shape)} cannot be "
                       f"added to its .grad of shape {have}; no .grad was changed.")


# -- torch's words ------------------------------------------------------------------------
NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"
IMPLICIT = ("grad can be implicitly created only for scalar outputs (this output has shape {}: "
            "pass a gradient of that shape, the dL/dy of the loss you have in mind)")
NOT_A_SEED = "gradient must be a Tensor, a number or None, not {} (wrap it: al.tensor(...))"
IMPLICIT_BATCHED = "is_grads_batched=True needs explicit grad_outputs (a batch of seeds)"
MISMATCH = ("Mismatch in shape: grad_output[{i}] has a shape of {seed} and output[{i}] has a "
            "shape of {out}. The seed must have the output's shape: it holds one dL/dy entry "
            "per entry of y.")
MISMATCH_BATCHED = (
    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
    "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
    "corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of {seed} "
    "and output[{i}] has a shape of {out}.")

__all__ = ["backward", "grad"]
