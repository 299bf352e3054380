"""Activation modules beyond ReLU, Sigmoid and Tanh, as torch.nn has them: LeakyReLU, GELU,
SiLU, ELU, CELU, SELU, Softplus, Hardtanh, ReLU6, LogSigmoid, Mish, Softsign, Tanhshrink and
PReLU (the one with a parameter: its slopes).  Each holds its settings and calls its
function in ``functional.py``; each prints as torch's does.
"""
import warnings

from .. import creation, devices
from . import functional as F, init
from .modules import Module, Parameter


def _inplace(module, first=False):
    """The ``inplace=True`` part of a printed form: after the other settings, or alone."""
    if not module.inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace(self)}"


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace(self, first=True)


class Mish(SiLU):
    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class SELU(SiLU):
    def forward(self, input):
        return F.selu(input, self.inplace)


class ELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace(self)}"


class CELU(ELU):
    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        for old, new in (("min_value", min_value), ("max_value", max_value)):
            if new is not None:
                warnings.warn(f"keyword argument `{old}` is deprecated and rename to `{old[:-2]}`", FutureWarning,
                              stacklevel=2)
        min_val = min_val if min_value is None else min_value
        max_val = max_val if max_value is None else max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if max_val <= min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace(self)}"


class ReLU6(Hardtanh):
    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace(self, first=True)


class LogSigmoid(Module):
    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    def forward(self, input):
        return F.tanhshrink(input)


class PReLU(Module):
    """leaky_relu with learned slopes: one for every channel (``num_parameters`` = C), or
    one shared; each starts at ``init``."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        devices.check(device)
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(creation.empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


__all__ = ["LeakyReLU", "GELU", "SiLU", "Mish", "SELU", "ELU", "CELU", "Softplus", "Hardtanh", "ReLU6",
           "LogSigmoid", "Softsign", "Tanhshrink", "PReLU"]
