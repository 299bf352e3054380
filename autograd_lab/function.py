"""Writing your own operation: ``al.autograd.Function``, as in torch.

A subclass gives ``forward(ctx, *args)`` and ``backward(ctx, *grads)`` (and optionally
``jvp(ctx, *tangents)`` for forward mode).  ``apply`` runs the forward without
recording, then attaches a graph node through the same ``graph.attach`` every built-in
operation uses: the node is named ``<ClassName>Backward``, drawn, hooked and counted
like any other, and the engine calls ``backward`` as it calls a built-in VJP rule.
"""
import numpy as np

from .graph import Op, attach
from .modes import no_grad, state
from .tensor import Tensor


class FunctionCtx:
    """What ``forward`` leaves for ``backward``."""

    def __init__(self, args):
        self.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        self._saved = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self._saved = tensors

    save_for_forward = save_for_backward

    @property
    def saved_tensors(self):
        return self._saved

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self.materialize_grads = value


def _wrap(x):
    return x if isinstance(x, Tensor) or x is None else Tensor._make(np.asarray(x))


def _unwrap_like(result, g):
    """Return tensors when the engine works on tensors (create_graph), arrays otherwise."""
    if isinstance(g, Tensor):
        return result
    return None if result is None else result._data


class Function:
    """Base class for operations with hand-written derivatives."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

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
    def _op(cls):
        if "_al_op" not in cls.__dict__:
            cls._al_op = Op(f"{cls.__name__}Backward", None,
                            vjp_all=lambda g, y, *args, ctx: cls._vjp(ctx, g, len(args)),
                            jvp_all=lambda ts, y, *args, ctx: cls._jvp(ctx, ts))
        return cls._al_op

    @classmethod
    def _vjp(cls, ctx, g, n_inputs):
        grads = cls.backward(ctx, _wrap(g))
        if not isinstance(grads, tuple):
            grads = (grads,)
        if len(grads) != n_inputs:
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of "
                               f"gradients (expected {n_inputs}, got {len(grads)})")
        return [_unwrap_like(_wrap(r), g) for r in grads]

    @classmethod
    def _jvp(cls, ctx, tangents):
        with no_grad():
            out = cls.jvp(ctx, *[_wrap(t) for t in tangents])
        return None if out is None else _wrap(out)._data

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx(args)
        with no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{cls.__name__}.forward must return a single Tensor, got "
                            f"{type(out).__name__} (autograd_lab supports one output per Function)")
        if state.forward_level and any(isinstance(a, Tensor) and a._tangent is not None for a in args) \
                and cls.jvp is Function.jvp:
            raise RuntimeError(f"{cls.__name__} has no jvp staticmethod, so forward mode cannot "
                               "push a tangent through it")
        return attach(cls._op(), args, {"ctx": ctx}, out._data)


def once_differentiable(fn):
    """torch's decorator for backwards that cannot be differentiated again; here a no-op."""
    return fn
