"""A module's hooks: functions called around its forward (forward pre-hooks and forward
hooks) and during a backward walk (full backward hooks and backward pre-hooks), as
torch.nn.Module runs them.  ``Module.__call__`` hands a call here only when the module
has one.

    model.fc.register_forward_hook(lambda module, args, output: print(output.shape))
    model.fc.register_full_backward_hook(lambda module, grad_input, grad_output: ...)

A backward hook needs to see the gradients at the module's edges, so the call passes the
tensor input and the tensor output through an identity row of the rules table (torch's
``BackwardHookFunctionBackward`` node) and watches the gradients arriving at them: at
the output, the backward pre-hooks (which may replace ``grad_output``); at the input,
the full backward hooks (which may replace ``grad_input``).  torch's single node carries
any number of tensors; here each edge carries one, so a module whose forward takes
several tensors that require grad, or returns several, is refused with a backward hook.
"""
import warnings

from .. import batching
from ..batching import broadcast
from ..core.modes import state
from ..core.recording import Op, register
from ..core.tensor import Tensor

# the identity at a hooked module's edges: a view of its input, the gradient passed through
edge = Op("BackwardHookFunctionBackward", lambda x: x.view(),
          vjp=(lambda g, y, x: g,), jvp=(lambda t, y, x: t,), saves=False)


def call(module, args, kwargs):
    """``module(*args, **kwargs)`` with its hooks run around the forward."""
    args, kwargs = _before(module, args, kwargs)
    watch = _BackwardHook(module) if module._backward_hooks or module._backward_pre_hooks else None
    if watch is not None:
        args = watch.inputs(args)
    try:
        result = module.forward(*args, **kwargs)
    except Exception:
        for hook_id, hook in module._forward_hooks.items():
            if hook_id in module._forward_hooks_always_called:
                _after(module, hook_id, hook, args, kwargs, None)
        raise
    for hook_id, hook in module._forward_hooks.items():
        out = _after(module, hook_id, hook, args, kwargs, result)
        if out is not None:
            result = out
    return result if watch is None else watch.outputs(result)


def _before(module, args, kwargs):
    """The forward pre-hooks, in order: each may replace the arguments."""
    for hook_id, hook in module._forward_pre_hooks.items():
        if hook_id in module._forward_pre_hooks_with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    return args, kwargs


def _after(module, hook_id, hook, args, kwargs, result):
    if hook_id in module._forward_hooks_with_kwargs:
        return hook(module, args, kwargs, result)
    return hook(module, args, result)


ONE_TENSOR = ("autograd_lab's full backward hooks watch a module with one tensor {what} that requires grad "
              "(torch's one node carries several); this module's forward {how}")


class _BackwardHook:
    """One forward's watch over the gradients at the module's edges."""

    def __init__(self, module):
        self.module = module
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_at = None          # the position of the input watched, or None (none requires grad)
        self.output_at = None

    def _wrap(self, items, what, how, hook):
        """``items`` (a tuple) with its one tensor that requires grad passed through the
        identity and watched by ``hook``; its position (None: no tensor requires grad)."""
        if not state.grad_enabled:
            return items, None
        needing = [i for i, a in enumerate(items) if isinstance(a, Tensor) and a.requires_grad]
        if not needing:
            return items, None
        if len(needing) > 1:
            raise NotImplementedError(ONE_TENSOR.format(what=what, how=how))
        at = needing[0]
        passed = edge(items[at])
        passed.register_hook(hook)
        return items[:at] + (passed,) + items[at + 1:], at

    def inputs(self, args):
        self.n_inputs = len(args)
        args, self.input_at = self._wrap(tuple(args), "input", "takes several", self._at_input)
        return args

    def outputs(self, result):
        single = not isinstance(result, tuple)
        items = (result,) if single else result
        self.n_outputs = len(items)
        items, self.output_at = self._wrap(items, "output", "returns several", self._at_output)
        return items[0] if single else items

    def _at_output(self, grad):
        """The gradient arriving at the output: the backward pre-hooks may replace it; with
        no input that requires grad, the full backward hooks run here, with grad_input None."""
        grads = tuple(grad if i == self.output_at else None for i in range(self.n_outputs))
        for hook in list(self.module._backward_pre_hooks.values()):
            out = hook(self.module, grads)
            if out is None:
                continue
            out = out if isinstance(out, tuple) else (out,)
            if len(out) != len(grads):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, got "
                                   f"{len(out)}, but expected {len(grads)}")
            grads = out
        self.grad_outputs = grads
        if self.input_at is None:
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                          "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=2)
            nothing = (None,) * self.n_inputs
            for hook in list(self.module._backward_hooks.values()):
                res = hook(self.module, nothing, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        return grads[self.output_at]

    def _at_input(self, grad):
        """The gradient arriving at the input: the full backward hooks see it with the
        output's, and may replace it."""
        if self.grad_outputs is None:
            return None
        grads = tuple(grad if i == self.input_at else None for i in range(self.n_inputs))
        for hook in list(self.module._backward_hooks.values()):
            out = hook(self.module, grads, self.grad_outputs)
            if out is None:
                continue
            out = out if isinstance(out, tuple) else (out,)
            if len(out) != len(grads):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(out)}, but "
                                   f"expected {len(grads)}")
            grads = out
        self.grad_outputs = None
        return grads[self.input_at]


register(globals())
batching.register(broadcast, edge)
