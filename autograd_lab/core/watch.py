"""What users can watch during a backward walk: hooks, retain_grad, traces, anomaly mode.

The walk (``engine.py``) calls in here only where something is watched: at a node with
hooks or a retained gradient, and at every node while a :class:`trace_backward` block
records or anomaly mode is on.  There ``arrive`` takes the gradient in, ``run_node``
calls the node's rules with its own hooks around them (``grad_fn.register_prehook``,
``grad_fn.register_hook``) and ``sent`` sees each gradient sent on; ``accumulated`` runs
once the .grads are written if a leaf's node has hooks waiting for that.  In anomaly
mode, a node whose rules or hooks raise says where it was recorded (``warn_where``).
A plain backward runs none of it.  The order is torch's: at a node, the hooks of its tensor, then retain_grad, then
the node's pre-hooks, its rules, its hooks; at a leaf's node, its .grad is written (in
autograd_lab: once the whole walk succeeded), then its post-accumulate-grad hooks, then
the node's hooks.
"""
import contextlib
import itertools
import os
import traceback
import warnings

import numpy as np

from . import dtypes
from .modes import state
from .printing import array_str
from .tensor import Tensor
from .userframe import user_level

tracers = []                            # the trace_backward blocks now open, innermost last
walking = []                            # the walks whose hooks are running, innermost last
# the package's folder (this file is in core/): a forward traceback leaves its frames out
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


# A tensor hook registered while a grad transform of al.func (grad, vjp, jacrev) runs the
# user's function belongs to that transform: it runs in that transform's backward walk
# only, as torch keeps it at the transform's level (in grad of grad, the outer walk passes
# the hooked node again, through the recorded inner backward, and does not run it).
transform_level = [None]                # the grad transform running the user's function (func.py)
walk_level = [None]                     # the grad transform whose backward walk runs (func.py)


@contextlib.contextmanager
def at_level(which, level):
    """``which`` (transform_level or walk_level) is ``level`` inside."""
    before, which[0] = which[0], level
    try:
        yield
    finally:
        which[0] = before


def of_its_level(hook):
    """``hook`` as registered now: if a grad transform runs, it runs in that one's walk only."""
    level = transform_level[0]
    if level is None:
        return hook

    def at_its_level(g):
        return hook(g) if walk_level[0] is level else None
    at_its_level.__name__ = getattr(hook, "__name__", repr(hook))
    return at_its_level


def note_origin(node):
    """Anomaly mode, while recording: the node keeps where the user's code made it (shown,
    by :func:`warn_where`, if its backward fails)."""
    node.trace = "".join(traceback.format_list(
        [f for f in traceback.extract_stack() if not f.filename.startswith(_PACKAGE)]))


class Hooks:
    """A node's hooks by kind, each a dict {handle id: function} in the order registered:
    ``tensor`` (``Tensor.register_hook`` on the node's output, or on the leaf),
    ``pre`` and ``post`` (``grad_fn.register_prehook`` / ``register_hook``),
    ``accumulated`` (``Tensor.register_post_accumulate_grad_hook``, on a leaf's node).
    ``inputs``: the input positions a node hook's ``grad_inputs`` lists, as
    ``next_functions`` does (set by ``autograd.graph`` when such a hook is registered)."""
    __slots__ = ("tensor", "pre", "post", "accumulated", "inputs")

    def __init__(self):
        self.tensor, self.pre, self.post, self.accumulated = {}, {}, {}, {}
        self.inputs = ()

    def __bool__(self):
        return bool(self.tensor or self.pre or self.post or self.accumulated)


def hooks_of(node):
    """The node's :class:`Hooks`, made on first use."""
    if node.hooks is None:
        node.hooks = Hooks()
    return node.hooks


class RemovableHandle:
    """What registering a hook returns (torch.utils.hooks.RemovableHandle): ``remove()``
    takes the hook out again; as a context manager, at the end of the block."""
    _ids = itertools.count()

    def __init__(self, hooks, fn):
        self.id = next(self._ids)
        self._hooks = hooks
        hooks[self.id] = fn

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def arrive(node, g, plan):
    return _blamed(_arrive, node, g, plan)


def _arrive(node, g, plan):
    """The gradient complete at a node: its tensor's hooks see it (and may replace it), a
    trace records it, a retained gradient keeps it (``plan.retained``, for the commit).
    A leaf's node that the walk executes runs its pre-hooks here, as the .grad it writes
    is what they return; a node that a ``backward(inputs=...)`` stops at runs its hooks
    (its rules do not: nothing lies beyond it that is asked about)."""
    hooks = node.hooks
    if hooks and hooks.tensor:
        g = run_hooks(hooks.tensor.values(), g, plan)
    for t in tracers:
        t.steps.append(Step(node, _snapshot(g)))
    if node.retain is not None and node.retain() is not None:
        plan.retained.append((node.retain(), g))
    if hooks and (hooks.pre or hooks.post or hooks.accumulated) and _executes_here(node, plan):
        if node.op is None:
            g = _leaf_node(node, g, plan)
        else:
            outputs = _call_pre(hooks, _outputs(g, plan), plan)
            _call_post(node, hooks, [], outputs, plan)
    return g


def _executes_here(node, plan):
    """Whether the walk executes this node without running its rules: a leaf's node in
    a backward (grad() only looks at it), or a node a backward(inputs=...) stops at."""
    if not plan.accumulate:
        return False
    if node.op is None:
        return plan.targets is None or node in plan.targets
    return (plan.targets is not None and node in plan.targets and
            not any(c in plan.needed for c in node.next))


def _leaf_node(node, g, plan):
    """A leaf's node in a backward: its pre-hooks may replace the gradient its .grad
    gets; its post-accumulate-grad hooks and its own hooks wait for the commit.  A
    pre-hook that returns None lets nothing through: the .grad stays as it was (zeros
    are added to it, and a .grad that was None is put back to None after the commit)."""
    hooks, blocked = node.hooks, False
    if hooks.pre:
        g = _call_pre(hooks, (_as_tensor(g, plan),), plan)[0]
        if g is None:
            t = node.variable
            blocked, g = True, Tensor._make(np.zeros(t._data.shape, t._data.dtype))
        g = g if plan.create_graph else g._data
    if hooks.post or hooks.accumulated or blocked:
        plan.accumulated.append((node, None if blocked else g, blocked and node.variable._grad is None))
    return g


def accumulated(waiting):
    """After the commit wrote every .grad: per leaf whose node waited for it, its
    post-accumulate-grad hooks (called with the leaf), then its node's hooks
    (``grad_inputs`` is empty: the node sends nothing on; ``grad_outputs`` holds the
    gradient, None if a pre-hook let nothing through)."""
    for node, g, was_none in waiting:
        _blamed(_accumulated, node, g, was_none)


def _accumulated(node, g, was_none):
    hooks = node.hooks
    if was_none:
        node.variable._grad = None
    for hook in list(hooks.accumulated.values()):
        hook(node.variable)
    if hooks.post:
        outputs = (None if g is None else g if isinstance(g, Tensor) else Tensor._make(g),)
        for hook in list(hooks.post.values()):
            out = hook((), outputs)
            if out is not None:
                _replacement(hook, out, ())


def run_node(node, g, plan, rules):
    """A watched node's rules (``rules(node, g, plan)``: engine.run_rules).  Its pre-hooks, if it
    has any, see (and may replace) the gradient of its output, the rules run on what they
    leave, and its hooks see what the rules send to each input (``grad_inputs``, one per
    entry of ``next_functions``, None where nothing is sent) and may replace it."""
    return _blamed(_run_node, node, g, plan, rules)


def _run_node(node, g, plan, rules):
    hooks = node.hooks
    if hooks is None or not (hooks.pre or hooks.post):
        return rules(node, g, plan)
    outputs = _call_pre(hooks, _outputs(g, plan), plan)
    g = _gradient(outputs, g, plan)
    sends = [] if g is None else rules(node, g, plan)    # (None: a pre-hook let nothing through)
    if hooks.post:
        sends = _call_post(node, hooks, sends, outputs, plan)
    return sends


def _outputs(g, plan):
    """``grad_outputs``: the gradient of the node's output; for a Function with several
    outputs, whose gradients arrive in slots (``autograd/function.py``), one per output,
    None where none arrived."""
    a = g._data if isinstance(g, Tensor) else g
    if a.dtype != object:
        return (_as_tensor(g, plan),)
    return tuple(None if isinstance(s, int) else _as_tensor(s, plan) for s in a)


def _gradient(outputs, g, plan):
    """What the rules get: ``outputs`` as the pre-hooks left them, in ``g``'s form
    (None if nothing is left)."""
    kept = [None if t is None else t if plan.create_graph else t._data for t in outputs]
    a = g._data if isinstance(g, Tensor) else g
    if a.dtype != object:
        return kept[0]
    if all(k is None for k in kept):
        return None
    slots = np.zeros(len(kept), object)
    for k, t in enumerate(kept):
        if t is not None:
            slots[k] = t
    return slots


def _call_pre(hooks, outputs, plan):
    """Call the node's pre-hooks with ``grad_outputs``; return it, replaced if a pre-hook
    returned a new one."""
    walking.append(plan)
    try:
        for hook in list(hooks.pre.values()):
            out = hook(outputs)
            if out is not None:
                outputs = _replacement(hook, out, outputs)
                plan.taken.update(id(t._data) for t in outputs if t is not None)
    finally:
        walking.pop()
    return outputs


def _call_post(node, hooks, sends, outputs, plan):
    """Call the node's hooks with (grad_inputs, grad_outputs); return the sends, replaced
    if a hook returned new grad_inputs."""
    slots, sent = _slots(node, hooks.inputs, sends)
    inputs = tuple(None if k is None else _as_tensor(sends[k][1], plan) for k in slots)
    walking.append(plan)
    try:
        for hook in list(hooks.post.values()):
            out = hook(inputs, outputs)
            if out is not None:
                inputs = _replacement(hook, out, inputs)
                plan.taken.update(id(t._data) for t in inputs if t is not None)
    finally:
        walking.pop()
    new = [s for k, s in enumerate(sends) if k not in sent]      # (edges the hooks do not see)
    for i, k, t in zip(hooks.inputs, slots, inputs):
        if t is not None:
            new.append((node.next[i], t if plan.create_graph else t._data))
    return new


def _slots(node, positions, sends):
    """For each listed input position, the index in ``sends`` of what the rules sent it
    (None if nothing), and the set of those indices.  The walk's sends are in input order,
    one per input that got a gradient, so they are matched to positions in that order.
    (Where one tensor is two inputs of a custom Function whose backward returns None for
    the first, the hooks would see its gradient in the first place: what reaches the
    tensor, the sum of both, is the same.)"""
    slots, k, sent = [], 0, set()
    for i in range(len(node.next)):
        child = node.next[i]
        here = None
        if child is not None and k < len(sends) and sends[k][0] is child:
            here, k = k, k + 1
        if i in positions:
            slots.append(here)
            if here is not None:
                sent.add(here)
    return slots, sent


def _replacement(hook, out, old):
    """What a node's hook returned, checked as torch checks it: a tuple of one tensor
    (or None) per gradient, each of the shape and dtype of the one it replaces."""
    name = getattr(hook, "__name__", repr(hook))
    if not isinstance(out, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(out).__name__}'")
    if len(out) != len(old):
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values "
                           f"(got {len(out)}, but expected {len(old)})")
    for new, was in zip(out, old):
        if new is None:
            continue
        if not isinstance(new, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
        if was is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        _check_like(name, new, was)
    return out


def _check_like(name, new, was):
    if new.shape != was.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value (a gradient of shape "
                           f"{tuple(was.shape)} became one of shape {tuple(new.shape)})")
    if new._data.dtype != was._data.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"{_type_name(was)} got {_type_name(new)})")


def _type_name(t):
    return f"al.{dtypes.scalar_type_name(t._data.dtype)}Tensor"     # torch's legacy names


def _as_tensor(g, plan):
    """A gradient as the tensor a hook sees; the array then counts as held by someone
    else (``plan.taken``), so it never becomes a .grad itself."""
    t = g if isinstance(g, Tensor) else Tensor._make(g)
    plan.taken.add(id(t._data))
    return t


def run_hooks(hooks, g, plan):
    """Each hook sees the gradient and may return a replacement.  The arrays a hook saw
    or returned may be kept by the user, so they never become a .grad themselves
    (``plan.taken``)."""
    walking.append(plan)
    try:
        for hook in list(hooks):
            gt = _as_tensor(g, plan)
            out = hook(gt)
            if out is not None:
                if not isinstance(out, Tensor):
                    raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")
                _check_like(getattr(hook, "__name__", repr(hook)), out, gt)
                g = out if plan.create_graph else out._data
                plan.taken.add(id(out._data))
    finally:
        walking.pop()
    return g


def sent(node, i, child, r):
    """A gradient on its way along edge i: checked for NaN in anomaly mode, traced."""
    if state.anomaly and state.check_nan and _has_nan(r):
        raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    if tracers:
        tracers[-1].steps[-1].sent.append((i, child, _snapshot(r)))


def _blamed(step, node, *args):
    """``step(node, *args)``: a node's rules or hooks.  In anomaly mode, if they raise,
    first say where the node was recorded (torch's "Error detected in ...")."""
    if not state.anomaly:
        return step(node, *args)
    try:
        return step(node, *args)
    except Exception:
        warn_where(node)
        raise


def warn_where(node):
    """A node's rules or hooks raised in anomaly mode: say where the node was recorded."""
    trace = getattr(node, "trace", None)      # (a leaf's node has none)
    where = ("No forward pass information available. Enable detect anomaly during forward pass "
             "for more information." if trace is None else
             f"Traceback of forward call that caused the error:\n{trace}")
    warnings.warn(f"Error detected in {node.name()}. {where}", stacklevel=user_level())


def _has_nan(r):
    a = r._data if isinstance(r, Tensor) else r
    return a.dtype != object and bool(np.isnan(a).any())    # (object: a Function's slots, function.py)


def _snapshot(g):
    return np.array(g._data if isinstance(g, Tensor) else g, copy=True)


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
        tracers.append(self)
        return self

    def __exit__(self, *exc):
        tracers.remove(self)
        return False

    def edge_grads(self):
        """{(node, input index): gradient} for every edge a gradient flowed along."""
        return {(id(s.node), i): g for s in self.steps for i, _, g in s.sent}

    def received(self):
        """{node: gradient received} for every node visited."""
        return {id(s.node): s.received for s in self.steps}

    def __str__(self):
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
