"""What users can watch during a backward walk: hooks, retain_grad, traces, anomaly mode.

The walk (``engine.py``) makes one :class:`Watch` per walk and calls it only where
something is watched: ``arrive`` at a node with hooks or a retained gradient (or while a
:class:`trace_backward` block records), ``sent`` per edge while tracing or in anomaly
mode, ``failed`` when a node's rules raise.  It also knows which gradient arrays someone
else may hold (``owned``), so that a ``.grad`` never shares memory with them.
"""
import warnings

import numpy as np

from .modes import state
from .tensor import Tensor
from .userframe import user_level

_tracers = []                           # the trace_backward blocks now open, innermost last


class Watch:
    def __init__(self, seeds, create_graph):
        self.create_graph = create_graph
        self.tracing = bool(_tracers)
        self.checks = self.tracing or (state.anomaly and state.check_nan)
        self.retained = []              # (tensor, gradient) for retain_grad()
        self.taken = set(map(id, seeds))    # arrays someone else holds: the caller, a hook

    def arrive(self, node, g):
        """The gradient complete at a node: its hooks see it (and may replace it), a trace
        records it, a retained gradient keeps it."""
        if node.hooks:
            g = self._run_hooks(node.hooks, g)
        if self.tracing:
            for t in _tracers:
                t.steps.append(Step(node, _snapshot(g)))
        if node.retain is not None and node.retain() is not None:
            self.retained.append((node.retain(), g))
        return g

    def _run_hooks(self, hooks, g):
        """Each hook sees the gradient and may return a replacement.  The arrays a hook saw
        or returned may be kept by the user, so they never become a .grad themselves."""
        for hook in list(hooks):
            gt = g if isinstance(g, Tensor) else Tensor._make(g)
            self.taken.add(id(gt._data))
            out = hook(gt)
            if out is not None:
                name = getattr(hook, "__name__", repr(hook))
                if not isinstance(out, Tensor) or out.shape != gt.shape:
                    raise RuntimeError(f"hook {name!r} returned {out!r}; a hook must return None "
                                       f"or a tensor of shape {tuple(gt.shape)}")
                if out._data.dtype != gt._data.dtype:
                    raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                                       f"{gt.dtype!r} got {out.dtype!r})")
                g = out if self.create_graph else out._data
                self.taken.add(id(out._data))
        return g

    def sent(self, node, i, child, r):
        """A gradient on its way along edge i: checked for NaN in anomaly mode, traced."""
        if state.anomaly and state.check_nan and _has_nan(r):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
        if self.tracing:
            _tracers[-1].steps[-1].sent.append((i, child, _snapshot(r)))

    def failed(self, node):
        """A node's rules raised: in anomaly mode, say where the node was recorded."""
        if not state.anomaly:
            return
        trace = node.__dict__.get("trace")
        where = ("No forward pass information available. Enable detect anomaly during forward pass "
                 "for more information." if trace is None else
                 f"Traceback of forward call that caused the error:\n{trace}")
        warnings.warn(f"Error detected in {node.name().split('::')[-1]}. {where}", stacklevel=user_level())

    def owned(self, g):
        """A gradient as a tensor its new holder may keep.

        Rules mostly return fresh arrays, which are handed over as they are (a copy of a
        784x256 weight gradient is measurable).  An array is copied when someone else may
        hold it: a seed the caller passed in, a view of another array, an array a hook saw,
        or the very array already handed to another tensor (``add`` sends one gradient to
        both inputs)."""
        if isinstance(g, Tensor):
            return g
        if g.base is not None or id(g) in self.taken:
            g = g.copy()
        self.taken.add(id(g))
        return Tensor._make(g)


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
