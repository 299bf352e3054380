"""Writing your own operation: ``al.autograd.Function``, as in torch.

A subclass gives ``forward`` and ``backward`` (and ``jvp`` for forward mode), in either
of torch's two forms::

    class Exp(al.autograd.Function):          # forward(ctx, ...)
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

    class Exp(al.autograd.Function):          # PyTorch 2: forward(...) and setup_context
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)
        ...

``apply`` runs the forward without recording, then attaches a graph node through the same
``recording.attach`` every built-in operation uses: the node is named ``<ClassName>Backward``,
drawn, hooked and counted like any other, and the engine calls ``backward`` as it calls a
built-in VJP rule.  A forward with several outputs gets one node more per output, which
hands its gradient to the function's node in its slot (see :func:`_slot`), so that
``backward`` receives one gradient per output, as in torch.
"""
import functools

import numpy as np

from ..forward_mode import give, tangent
from ..recording import FREED, Op, attach, name_by_call
from ..modes import no_grad, state
from ..tensor import Tensor


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) leaves for ``backward`` and ``jvp``."""

    def __init__(self, args):
        self.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        self.materialize_grads = True
        self._saved = self._saved_forward = ()
        self._non_differentiable = ()
        self._outputs = None          # after apply: (output array, the node its gradient enters) per output
        self._in_jvp = False

    def save_for_backward(self, *tensors):
        self._saved = tensors

    def save_for_forward(self, *tensors):
        self._saved_forward = tensors

    @property
    def saved_tensors(self):
        """The saved tensors.  One that forward returned is handed back as the recorded
        output -- connected to this node, so that a ``backward`` recorded under
        ``create_graph=True`` differentiates through it -- as torch saves outputs."""
        if self._in_jvp:             # (torch shows jvp only what save_for_forward saved; the
            return self._saved_forward or self._saved      # saved_for_backward ones serve too)
        if self._node is not None and self._node.freed:
            raise RuntimeError(FREED)
        return tuple(self._unpack(t) for t in self._saved)

    _node = None                      # the function's node, once recorded

    def _unpack(self, t):
        if self._outputs is None or not isinstance(t, Tensor):
            return t
        for out, (data, node) in zip(self._forward_outputs, self._outputs):
            if t is out:
                y = Tensor._make(data)
                if state.grad_enabled and node is not None:
                    y.grad_fn = node
                return y
        return t

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors):
        raise NotImplementedError("autograd_lab does not record in-place operations: a Function's "
                                  "forward must return new tensors")

    def set_materialize_grads(self, value):
        self.materialize_grads = value


def _wrap(x):
    return x if isinstance(x, Tensor) or x is None else Tensor._make(np.asarray(x))


def _unwrap_like(result, g, own=()):
    """Return tensors when the engine works on tensors (create_graph), arrays otherwise.
    An array ``backward`` returned may be one the user still holds (a saved input, say):
    the walk gets a copy (torch clones what it cannot take over), so that no ``.grad``
    shares memory with a tensor; a gradient it was given (``own``) it takes as it is."""
    if isinstance(g, Tensor) or result is None:
        return result
    if any(result is t for t in own):
        return result._data
    return result._data.copy()


class Function:
    """Base class for operations with hand-written derivatives."""

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function "
                                  "to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx(args)
        with no_grad():
            if cls.setup_context is not Function.setup_context:     # PyTorch 2's form
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        ctx._forward_outputs = outs
        recorded = _record(cls, ctx, args, outs)
        return tuple(recorded) if isinstance(out, tuple) else recorded[0]

    @classmethod
    def _op(cls):
        if "_al_op" not in cls.__dict__:
            cls._al_op = Op(f"{cls.__name__}Backward", None,
                            vjp_all=lambda g, y, *args, ctx: cls._vjp(ctx, g, args),
                            jvp_all=lambda ts, y, *args, ctx: None)     # tangents: see _push_tangents
        return cls._al_op

    @classmethod
    def _vjp(cls, ctx, g, args):
        """Call ``backward`` with one gradient per output, and check what it returns."""
        if len(ctx._outputs) == 1:
            grads_out = (_wrap(g),)
        else:                         # the output nodes filled the slots (see _slot)
            slots = g._data if isinstance(g, Tensor) else g
            grads_out = tuple(_wrap(s) if isinstance(s, (Tensor, np.ndarray)) else
                              (Tensor._make(np.zeros_like(data)) if ctx.materialize_grads else None)
                              for s, (data, _) in zip(slots, ctx._outputs))
        grads = cls.backward(ctx, *grads_out)
        grads = grads if isinstance(grads, tuple) else (grads,)
        n = len(args)
        if len(grads) < n or any(r is not None for r in grads[n:]):
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of "
                               f"gradients (expected {n}, got {len(grads)})")
        for i, (a, r) in enumerate(zip(args, grads)):
            if r is not None and not isinstance(a, (Tensor, np.ndarray)):
                raise RuntimeError(f"function {cls.__name__}Backward returned a gradient different "
                                   f"than None at position {i + 1}, but the corresponding forward "
                                   "input was not a Variable")
        return [_unwrap_like(_wrap(r), g, own=grads_out) for r in grads[:n]]


def _record(cls, ctx, args, outs):
    """Record one call: the function's node, fed by its outputs.  Outputs marked
    non-differentiable, and those that cannot carry a gradient (integers), get none."""
    keep = [isinstance(o, Tensor) and o.is_floating_point() and
            not any(o is t for t in ctx._non_differentiable) for o in outs]
    op, params = cls._op(), {"ctx": ctx}
    if sum(keep) <= 1 and len(outs) == 1:
        recorded = [attach(op, args, params, outs[0]._data) if keep[0] else _plain(outs[0])]
        ctx._node = recorded[0].grad_fn
        ctx._outputs = ((outs[0]._data if isinstance(outs[0], Tensor) else None, ctx._node),)
    else:
        packed = attach(op, args, params, np.empty(len(outs), object))
        ctx._node = packed.grad_fn
        recorded = [attach(_slot, (packed,), {"k": k, "n": len(outs), "name": op.name}, o._data)
                    if kept else _plain(o) for k, (o, kept) in enumerate(zip(outs, keep))]
        ctx._outputs = tuple((o._data if isinstance(o, Tensor) else None, r.grad_fn if kept else None)
                             for o, r, kept in zip(outs, recorded, keep))
    if state.forward_level:
        _push_tangents(cls, ctx, args, recorded, keep)
    return recorded


def function_node(node):
    """The node a hook on ``node`` belongs on: for an output of a Function with several
    outputs, the function's own node (the output's node only hands its gradient on, into
    its slot), as torch has one node for all of a Function's outputs."""
    return node.next[0] if node.op is _slot else node


def _plain(o):
    return Tensor._make(o._data) if isinstance(o, Tensor) else o


def _to_slot(g, y, packed, k, n, name):
    slots = np.zeros(n, object)
    slots[k] = g
    return slots


# the node behind output k of a Function with several outputs: it passes its gradient on
# to the function's node in slot k; gradients arriving there from several outputs add up
# slot by slot (the slots of an object array add elementwise, 0 standing for no gradient)
_slot = Op("FunctionBackward", None, vjp=(_to_slot,), saves=False)
name_by_call({_slot: lambda args, p: p["name"]})      # named after the function, as torch


def _push_tangents(cls, ctx, args, recorded, keep):
    """Forward mode: the user's ``jvp`` gives the outputs' tangents from the inputs'."""
    tangents = [tangent(a, None) for a in args if isinstance(a, Tensor)]
    if all(t is None for t in tangents):
        return
    given = [None if not isinstance(a, Tensor) else
             Tensor._make(tangent(a, None) if tangent(a, None) is not None else np.zeros_like(a._data))
             for a in args]
    ctx._in_jvp = True
    try:
        with no_grad():
            out = cls.jvp(ctx, *given)
    finally:
        ctx._in_jvp = False
    out = out if isinstance(out, tuple) else (out,)
    for r, t, kept in zip(recorded, out, keep):
        if kept and t is not None:
            give(r, None, np.asarray(_wrap(t)._data, r._data.dtype))
            if r.grad_fn is not None:
                r.grad_fn.tangent = tangent(r, None)
            if state.dual_tensors is not None:
                state.dual_tensors.add(r)


def once_differentiable(fn):
    """For a ``backward`` that cannot itself be differentiated: it runs without recording,
    so under ``create_graph=True`` its gradients have no ``grad_fn`` (as in torch)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper
