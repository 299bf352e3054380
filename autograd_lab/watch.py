"""What users can watch during a backward walk: hooks, retain_grad, traces, anomaly mode.

The walk (``engine.py``) calls in here only where something is watched: ``arrive`` at a
node with hooks or a retained gradient (or while a :class:`trace_backward` block
records), ``sent`` per edge while tracing or in anomaly mode, ``warn_where`` when a
node's rules raise in anomaly mode.  A plain backward runs none of it.
"""
import warnings

import numpy as np

from .modes import state
from .printing import array_str
from .tensor import Tensor
from .userframe import user_level

tracers = []                            # the trace_backward blocks now open, innermost last


def arrive(node, g, plan):
    """The gradient complete at a node: its hooks see it (and may replace it), a trace
    records it, a retained gradient keeps it (``plan.retained``, for the commit)."""
    if node.hooks:
        g = run_hooks(node.hooks, g, plan)
    for t in tracers:
        t.steps.append(Step(node, _snapshot(g)))
    if node.retain is not None and node.retain() is not None:
        plan.retained.append((node.retain(), g))
    return g


def run_hooks(hooks, g, plan):
    """Each hook sees the gradient and may return a replacement.  The arrays a hook saw
    or returned may be kept by the user, so they never become a .grad themselves
    (``plan.taken``)."""
    for hook in list(hooks):
        gt = g if isinstance(g, Tensor) else Tensor._make(g)
        plan.taken.add(id(gt._data))
        out = hook(gt)
        if out is not None:
            name = getattr(hook, "__name__", repr(hook))
            if not isinstance(out, Tensor) or out.shape != gt.shape:
                raise RuntimeError(f"hook {name!r} returned {out!r}; a hook must return None "
                                   f"or a tensor of shape {tuple(gt.shape)}")
            if out._data.dtype != gt._data.dtype:
                raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                                   f"{gt.dtype!r} got {out.dtype!r})")
            g = out if plan.create_graph else out._data
            plan.taken.add(id(out._data))
    return g


def sent(node, i, child, r):
    """A gradient on its way along edge i: checked for NaN in anomaly mode, traced."""
    if state.anomaly and state.check_nan and _has_nan(r):
        raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    if tracers:
        tracers[-1].steps[-1].sent.append((i, child, _snapshot(r)))


def warn_where(node):
    """A node's rules raised in anomaly mode: say where the node was recorded."""
    trace = node.__dict__.get("trace")
    where = ("No forward pass information available. Enable detect anomaly during forward pass "
             "for more information." if trace is None else
             f"Traceback of forward call that caused the error:\n{trace}")
    warnings.warn(f"Error detected in {node.name().split('::')[-1]}. {where}", stacklevel=user_level())


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
