"""The backward walk: from outputs and their seeds to the gradients of the inputs.

1. **Order.**  Every node took the next number from a counter when it was recorded
   (``Node.seq``), after the nodes that made its inputs; so every node that sends a
   gradient to a node has a larger number than it.  The walk keeps the nodes that have
   received something in a heap and runs the one with the largest number next: all its
   senders have run by then, and its gradient is complete.  No search of the graph comes
   first, and nothing recurses, so a 100,000-op chain is just a long loop.
2. **Prune.**  For ``grad(outputs, inputs)`` (or ``backward(inputs=...)``) only the
   nodes from which a wanted input can be reached run their rules.
3. **Walk.**  Each node receives the sum of the gradients sent to it by every use of its
   output, runs its VJP rules (``ops.py``), and sends one gradient along each edge.  A
   node's gradient is dropped as soon as it has been passed on.  NumPy's warnings about
   nan and inf are silenced for this package (``graph.py``), as torch computes them quietly.
4. **Commit.**  Only after the whole walk succeeded are ``.grad`` fields written and saved
   values freed, so an error leaves the graph and every ``.grad`` as they were.

With ``create_graph=True`` the rules run on tensors and are recorded, so the
gradients themselves have a ``grad_fn`` and can be differentiated again.
"""
import warnings
from heapq import heappop, heappush
from operator import attrgetter

import numpy as np

from . import dtypes, ops
from .graph import AccumulateGrad, broadcast_mismatch, edge
from .modes import count, state
from .tensor import Tensor, _user_level

FREED = ("Trying to backward through the graph a second time (or directly access saved "
         "tensors after they have already been freed). Saved intermediate values of the graph "
         "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
         "you need to backward through the graph a second time or if you need to access saved "
         "tensors after calling backward.")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(sum of seed * tensor)/d(leaf) into every leaf's ``.grad``."""
    single = isinstance(tensors, Tensor)
    tensors = _as_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = (None,) * len(tensors)
    else:
        grad_tensors = (grad_tensors,) if single else _as_tuple(grad_tensors)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    seeds = _make_seeds(tensors, grad_tensors, create_graph, batched=False)
    retain = create_graph if retain_graph is None else retain_graph
    _run(tensors, seeds, inputs, retain, create_graph, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(sum of grad_outputs * outputs)/d(inputs), one tensor per input, without
    touching any ``.grad``.  With ``is_grads_batched=True`` the first dimension of every
    grad_output is a batch of seeds, all sent through the graph in one walk."""
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("grad requires non-empty inputs.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError(f"grad(): inputs[{i}] is a {type(x).__name__}, not a Tensor")
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grad_outputs = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(grad_outputs)} "
                           f"grad_outputs for {len(outputs)} outputs")
    seeds = _make_seeds(outputs, grad_outputs, create_graph, batched=is_grads_batched)
    retain = create_graph if retain_graph is None else retain_graph
    found = _run(outputs, seeds, inputs, retain, create_graph, accumulate=False)
    result = []
    for i, (x, g) in enumerate(zip(inputs, found)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the desired "
                                   "behavior.")
            if materialize_grads:
                lead = seeds[0].shape[:1] if is_grads_batched else ()
                g = Tensor._make(np.zeros(lead + x.shape, x._data.dtype))
        result.append(g)
    return tuple(result)


# -- seeds ------------------------------------------------------------------------------
def _make_seeds(outputs, grad_outputs, create_graph, batched):
    seeds = []
    for i, (y, v) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(y, Tensor):
            raise TypeError(f"outputs[{i}] is a {type(y).__name__}, not a Tensor")
        if not y.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if v is None:
            if y._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs "
                                   f"(this output has shape {tuple(y.shape)}: pass a gradient "
                                   "of that shape, the dL/dy of the loss you have in mind)")
            if batched:
                raise RuntimeError("is_grads_batched=True needs explicit grad_outputs (a batch of seeds)")
            one = np.array(1, y._data.dtype)
            seeds.append(one if y._data.ndim == 0 else one.reshape(y._data.shape))   # a 1 shaped like y
            continue
        if not isinstance(v, (Tensor, np.ndarray, int, float)):
            raise TypeError(f"gradient must be a Tensor, a number or None, not {type(v).__name__} "
                            "(wrap it: al.tensor(...))")
        v_data = v._data if isinstance(v, Tensor) else np.asarray(v)
        want = y.shape
        got = v_data.shape[1:] if batched else v_data.shape
        if got != want:
            if batched:
                raise RuntimeError(
                    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
                    "as the batch dimension. The sizes of the remaining dimensions are expected to "
                    "match the shape of corresponding output, but a mismatch was detected: "
                    f"grad_output[{i}] has a shape of {tuple(v_data.shape)} and output[{i}] has a "
                    f"shape of {tuple(want)}.")
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {tuple(v_data.shape)} "
                               f"and output[{i}] has a shape of {tuple(want)}. The seed must have "
                               "the output's shape: it holds one dL/dy entry per entry of y.")
        if v_data.dtype.kind not in "fb" and y._data.dtype.kind == "f" and isinstance(v, Tensor):
            pass  # an integer seed is cast, as torch casts it
        v_data = v_data.astype(y._data.dtype, copy=False)
        if create_graph and isinstance(v, Tensor):
            seeds.append(v if v._data.dtype == y._data.dtype else v.to(y._data.dtype))
        else:
            seeds.append(v_data)
    return seeds


def _as_tuple(x):
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


# -- the walk ----------------------------------------------------------------------------
def _run(outputs, seeds, inputs, retain_graph, create_graph, accumulate):
    roots = list(map(edge, outputs))
    # targets: where the walk delivers gradients -- every leaf for backward() (None), or
    # the nodes of the tensors grad() was asked about (an intermediate's is its grad_fn)
    if inputs is None:
        targets = needed = None
    else:
        if accumulate:                  # as torch, one by one and even if the walk fails: a
            for x in inputs:            # non-leaf asked about retains its gradient (later too)
                x.retain_grad()
        targets = set()
        for x in inputs:
            n = edge(x)
            if n is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            targets.add(n)
        needed = _needed(roots, targets)

    if state.counters:
        count("backward")
    pending, ready = {}, []             # node -> its gradient so far; heap of (-seq, node)
    delivered = {}                      # target node -> its gradient
    retained = []                       # (tensor, gradient) for retain_grad()
    ran = []                            # nodes whose rules ran: their saved values go after
    taken = set(map(id, seeds))         # arrays someone else holds: the caller, a hook (_owned)
    sends = zip(roots, seeds)           # (node, gradient) pairs on their way
    grad_mode, state.grad_enabled = state.grad_enabled, create_graph   # record only for create_graph
    try:
        while True:
            for node, g in sends:       # gradients arriving at one node add up
                if node.op is None and targets is None and not (node.hooks or _tracers):
                    old = delivered.get(node)   # a leaf nobody watches, in backward(): it
                    delivered[node] = g if old is None else _sum(old, g)   # needs no turn of its own
                    continue
                old = pending.get(node)
                if old is None:
                    pending[node] = g
                    heappush(ready, (-node.seq, node))
                else:
                    pending[node] = _sum(old, g)
            if not ready:
                break
            # the latest-recorded node first: everything that sends to it was recorded
            # after it, so has already run, and its gradient is complete
            node = heappop(ready)[1]
            g = pending.pop(node)
            sends = ()
            if needed is not None and node not in needed:
                continue                # an output that leads to none of the inputs
            arrived = g
            if node.hooks or node.retain is not None or _tracers:
                g = _observe(node, g, create_graph, retained, taken)
            if node.op is None or (targets is not None and node in targets):
                passes_on = node.op is not None and any(c is not None and c in needed for c in node.next)
                # what its hooks made of the gradient; but grad() of an intermediate whose
                # rules must still run (other inputs lie beyond it) captures what arrived,
                # before its hooks -- torch's order, both ways
                delivered[node] = arrived if passes_on and not accumulate else g
                if not passes_on:
                    continue            # its rule never runs: its saved values stay (as in torch)
            try:
                if node.freed:
                    raise RuntimeError(FREED)
                if node.stamp != state.writes:
                    _check_versions(node)   # something was written since the forward
                sends = _propagate(node, g, needed, create_graph)
            except Exception:
                if state.anomaly:       # where the node was recorded, as torch's anomaly mode
                    _warn_where(node)
                raise
            ran.append(node)

        # commit: nothing above touched a tensor, so an error leaves everything as it was.
        # First the list of .grad fields to write, each checked, then the writes (still in
        # create_graph's grad mode: a .grad made here is recorded if it should be)
        writes = []                     # (tensor, gradient, add in place)
        if accumulate:
            for node, g in delivered.items():
                if isinstance(node, AccumulateGrad):
                    writes.append((node.variable, g, not create_graph))
                else:   # backward(inputs=[non-leaf]) accumulates into that tensor's .grad
                    for x in {id(x): x for x in inputs}.values():      # once, even if listed twice
                        if x.grad_fn is node:
                            writes.append((x, g, False))
        for t, g in retained:           # retained gradients accumulate, like a leaf's
            if not (accumulate and inputs is not None and any(t is x for x in inputs)):
                writes.append((t, g, False))   # (unless backward(inputs=[t]) just did)
        for t, g, in_place in writes:
            if t._grad is not None and t._grad._data.shape != g.shape:
                _check_fits(t, g, in_place)
        for t, g, in_place in writes:
            _accumulate(t, g, taken, in_place)
    finally:
        state.grad_enabled = grad_mode
    if not retain_graph:
        for node in ran:
            if node.op.saves:           # the node is freed from now on (Node.freed)
                node.args = node.arrays = None
    if inputs is None:
        return None
    return [None if edge(x) not in delivered else _owned(delivered[edge(x)], taken) for x in inputs]


def _needed(roots, targets):
    """The nodes from which some target can be reached: only their rules must run."""
    seen, stack = set(roots), list(roots)
    while stack:
        for child in stack.pop().next:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    needed = set(targets)
    for node in sorted(seen, key=attrgetter("seq")):    # a node's inputs were recorded before it
        if node not in needed and any(c in needed for c in node.next):
            needed.add(node)
    return needed


def _check_versions(node):
    """Something was written since the node was recorded.  Refuse to differentiate with
    saved values that were changed in place since: only the values the node's rules read
    (``Op.saves``), as torch checks only what it saved.  And take in arrays that
    ``x.data = ...`` put in place of an input's, as torch's backward does."""
    if node.overwritten and node.op.reads_output:
        _modified(node.out, node, node.out_box[0], node.out_version)
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
        if a._vbox is not None and node.reads(i):
            saved = node.versions[i] if node.versions else 0
            if a._vbox[0] != saved:     # torch names the node that made it now, if any
                _modified(a._data, a.grad_fn, a._vbox[0], saved)


def _warn_where(node):
    trace = node.__dict__.get("trace")
    where = ("No forward pass information available. Enable detect anomaly during forward pass for "
             "more information." if trace is None else f"Traceback of forward call that caused the "
             f"error:\n{trace}")
    warnings.warn(f"Error detected in {node.name().split('::')[-1]}. {where}", stacklevel=_user_level())


def _modified(data, maker, now, saved):
    made = "" if maker is None else f", which is output 0 of {_short_name(maker)},"
    kind = "CPUBoolType" if data.dtype == np.bool_ else f"al.{dtypes.scalar_type_name(data.dtype)}Tensor"
    raise RuntimeError(                 # (torch's legacy type names: al.FloatTensor, ..., CPUBoolType)
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{kind} {list(data.shape)}]{made} is at "
        f"version {now}; expected version {saved} instead. " + (ANOMALY_HINT if state.anomaly else HINT))


HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
        "with al.autograd.set_detect_anomaly(True, check_nan=False).")
ANOMALY_HINT = ("Hint: the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. Good luck!")


def _short_name(node):
    """A node's name as torch's message about saved values prints it: ExpBackward0 is Exp."""
    name = node.name().split("::")[-1]
    return name[:-len("Backward0")] if name.endswith("Backward0") else name.replace("Backward", "")


def _propagate(node, g, needed, create_graph):
    """Apply one node's VJP rules: the (next node, gradient) pair for each edge that needs one."""
    if create_graph:
        args, y = node.saved(True)
        if not isinstance(g, Tensor):
            g = Tensor._make(g)
    elif node.packed is not None:       # (saved_tensors_hooks)
        args, y = node.saved(False)
    else:
        args, y = node.arrays, node.out
    op, params = node.op, node.params
    lead_ndim = g.ndim - node.out.ndim
    rules = op.vjp
    if op.vjp_all is not None:        # one rule for all inputs (cat, user Functions)
        grads, rules = op.vjp_all(g, y, *args, **params), None
    sends = []
    for i, child in enumerate(node.next):
        if child is None or (needed is not None and child not in needed):
            continue
        if rules is not None:         # one rule per input: run only the ones wanted
            r = rules[i](g, y, *args, **params) if rules[i] is not None else None
        else:
            r = grads[i] if i < len(grads) else None
        if r is None:
            continue
        a = node.args[i]
        if type(a) is Tensor:
            a = a._data                 # (else the array itself: see graph.shed)
        if lead_ndim or type(r) is not np.ndarray or r.shape != a.shape or r.dtype != a.dtype:
            r = _fit(node, i, r, lead_ndim, g, a.shape, a.dtype)
        if state.anomaly and state.check_nan and _has_nan(r):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
        if _tracers:
            _tracers[-1].steps[-1].sent.append((i, child, _snapshot(r)))
        sends.append((child, r))
    return sends


def _fit(node, i, r, lead_ndim, g, shape, dtype):
    """Make a rule's result match its input: sum away broadcasting, cast the dtype."""
    if not isinstance(r, (Tensor, np.ndarray)):
        r = np.asarray(r)
    want = tuple(g.shape[:lead_ndim]) + shape
    if r.shape != want:
        try:
            if r.ndim < len(want):     # a rule may broadcast; it may not drop dimensions
                raise ValueError
            r = ops.sum_to(r, shape, lead=lead_ndim) if isinstance(r, Tensor) else \
                ops.sum_to.forward(r, shape, lead_ndim)     # an array: nothing to record
        except (ValueError, RuntimeError):
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - "
                               f"got {list(r.shape)} but expected shape compatible with "
                               f"{list(want)}") from None
    if isinstance(r, Tensor):
        return r if r._data.dtype == dtype else r.to(dtype)
    return np.asarray(r, dtype)         # a full sum gives a NumPy scalar: make it a 0-d array


def _observe(node, g, create_graph, retained, taken):
    """What users can watch at a node: their hooks (which may replace the gradient), a
    trace of the walk, and retain_grad()."""
    if node.hooks:
        g = _run_hooks(node.hooks, g, create_graph, taken)
    if _tracers:
        _trace(node, g)
    if node.retain is not None and node.retain() is not None:
        retained.append((node.retain(), g))
    return g


def _run_hooks(hooks, g, create_graph, taken):
    """Each hook sees the gradient and may return a replacement.  The arrays a hook saw
    or returned may be kept by the user, so they never become a .grad themselves."""
    for hook in list(hooks):
        gt = g if isinstance(g, Tensor) else Tensor._make(g)
        taken.add(id(gt._data))
        out = hook(gt)
        if out is not None:
            name = getattr(hook, "__name__", repr(hook))
            if not isinstance(out, Tensor) or out.shape != gt.shape:
                raise RuntimeError(f"hook {name!r} returned {out!r}; a hook must return None "
                                   f"or a tensor of shape {tuple(gt.shape)}")
            if out._data.dtype != gt._data.dtype:
                raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                                   f"{gt.dtype!r} got {out.dtype!r})")
            g = out if create_graph else out._data
            taken.add(id(out._data))
    return g


def _sum(old, g):
    """Two gradients for one place, added (0-d arrays add up to a NumPy number: keep an array)."""
    total = old + g
    return total if type(total) is np.ndarray or isinstance(total, Tensor) else np.asarray(total)


def _has_nan(r):
    a = r._data if isinstance(r, Tensor) else r
    return a.dtype != object and bool(np.isnan(a).any())    # (object: a Function's slots, function.py)


def _owned(g, taken):
    """A gradient as a tensor its new holder may keep.

    Rules mostly return fresh arrays, which are handed over as they are (a copy of a
    784x256 weight gradient is measurable).  An array is copied when someone else may
    hold it: a seed the caller passed in, a view of another array, or the very array
    already handed to another tensor (``add`` sends one gradient to both inputs)."""
    if isinstance(g, Tensor):
        return g
    if g.base is not None or id(g) in taken:
        g = g.copy()
    taken.add(id(g))
    return Tensor._make(g)


def _check_fits(t, g, in_place):
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


def _accumulate(t, g, taken, in_place):
    """Add a gradient into ``t.grad``: in place for a leaf's plain gradient, as torch does."""
    if t._grad is None:             # with create_graph, its own recorded copy (as torch)
        t._grad = ops.grad_copy(g) if isinstance(g, Tensor) else _owned(g, taken)
    elif not in_place or isinstance(g, Tensor):
        t._grad = t._grad + g       # a new tensor (recorded under create_graph)
    else:                           # in place, as torch -- even into a .grad that an earlier
        np.add(t._grad._data, g, out=t._grad._data, casting="unsafe")   # create_graph recorded


# -- watching a walk -----------------------------------------------------------------------
_tracers = []


class Step:
    """One node's turn in a backward walk: the gradient it received and what it sent."""
    __slots__ = ("node", "received", "sent")

    def __init__(self, node, received):
        self.node = node
        self.received = received      # the summed gradient arriving at the node's output
        self.sent = []                 # (input index, next node, gradient) per edge

    @property
    def name(self):
        """The node's name, with a leaf's node shown as plain ``AccumulateGrad``."""
        return _short(self.node)

    def __repr__(self):
        return f"Step({self.name}, received={self.received!r}, sent to {len(self.sent)} edge(s))"


class trace_backward:
    """Record every step of the backward walks run inside the block.

    >>> with al.autograd.trace_backward() as trace:
    ...     loss.backward()
    >>> print(trace)          # one line per node, in the order the engine visited them
    ``trace.steps`` holds :class:`Step` objects; the gradients are copies, so recording
    does not keep the engine's own buffers alive."""

    def __init__(self):
        self.steps = []

    def __enter__(self):
        _tracers.append(self)
        return self

    def __exit__(self, *exc):
        _tracers.remove(self)
        return False

    def edge_grads(self):
        """{(node, input index): gradient} for every edge a gradient flowed along."""
        return {(id(s.node), i): g for s in self.steps for i, _, g in s.sent}

    def received(self):
        """{node: gradient received} for every node visited."""
        return {id(s.node): s.received for s in self.steps}

    def __str__(self):
        from .printing import array_str
        lines = []
        for k, s in enumerate(self.steps, 1):
            lines.append(f"{k}. {_short(s.node)} receives {_flat(array_str(s.received))}")
            for i, child, g in s.sent:
                lines.append(f"     input {i} -> {_short(child)}: {_flat(array_str(g))}")
        return "\n".join(lines)

    def __repr__(self):
        return f"<trace_backward: {len(self.steps)} steps>"


def _short(node):
    return node.name().split("::")[-1] if node is not None else "None"


def _flat(text):
    return " ".join(text.split())


def _snapshot(g):
    return np.array(g._data if isinstance(g, Tensor) else g, copy=True)


def _trace(node, g):
    for t in _tracers:
        t.steps.append(Step(node, _snapshot(g)))


__all__ = ["backward", "grad", "trace_backward", "Step"]
