"""``al.autograd``: the torch.autograd subset -- backward, grad, Function, checks, modes."""
from ..core.engine import backward, grad
from ..core.watch import Step, trace_backward
from .function import Function, FunctionCtx, once_differentiable
from ..core.modes import (PassCounter, count_passes, detect_anomaly, enable_grad, is_anomaly_enabled,
                     no_grad, set_detect_anomaly, set_grad_enabled)
from ..core.tensor import Tensor as _Tensor
from . import forward_ad, functional, graph
from .gradcheck import GradcheckError, gradcheck, gradgradcheck


def Variable(data, requires_grad=False, volatile=False):
    """The pre-0.4 wrapper.  Variables were merged into tensors in PyTorch 0.4, so this
    returns a tensor (sharing ``data``'s numbers) with ``requires_grad`` set."""
    if not isinstance(data, _Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    t = _Tensor._make(data._data)
    t.requires_grad = requires_grad
    return t


__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "Variable", "forward_ad",
           "no_grad", "enable_grad", "set_grad_enabled", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "count_passes", "PassCounter", "gradcheck", "gradgradcheck",
           "GradcheckError", "functional", "trace_backward", "Step"]

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.autograd", __name__, "al.autograd")   # (names torch has: not_here.py)
