"""``al.nn.init``, as ``torch.nn.init``: refill a tensor in place (without recording) with
numbers drawn from the package's generator, scaled as the named schemes say."""
import math
import numbers
import warnings

import numpy as np

from ..core import modes
from ..core.checks import tensor_of
from .. import creation
from ..core import dtypes

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "xavier_uniform_",
           "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The factor a nonlinearity asks the weights' spread to be scaled by, as torch."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Number) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _filled(tensor, fill):
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return tensor
    with modes.no_grad():
        fill()
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    return _filled(tensor, lambda: tensor.uniform_(a, b, generator=generator))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    return _filled(tensor, lambda: tensor.normal_(mean, std, generator=generator))


def constant_(tensor, val):
    return _filled(tensor, lambda: tensor.fill_(val))


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return _filled(tensor, tensor.zero_)


def _fans(tensor):
    """(fan_in, fan_out): the inputs and outputs each weight connects, as torch counts them."""
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * field, tensor.shape[0] * field


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of {['fan_in', 'fan_out']}")
    return _fans(tensor)[mode == "fan_out"]


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _fans(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _fans(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if tensor.numel() == 0:
        return _filled(tensor, None)
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if tensor.numel() == 0:
        return _filled(tensor, None)
    return normal_(tensor, 0, calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode)), generator)


# -- more schemes: orthogonal, truncated normal, identity-like ---------------------------------
def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix, times ``gain``: the Q of the QR decomposition of a
    normal draw (its signs fixed by R's diagonal, so the draw's distribution is uniform
    over orthogonal matrices).  Dimensions after the first are flattened."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = creation.randn(rows, cols, generator=generator, dtype=dtypes.float64)._data
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with modes.no_grad():
        tensor.copy_(_tensor_like(q.reshape(tensor.shape) * gain, tensor))
    return tensor


def _tensor_like(values, tensor):
    return tensor_of(np.asarray(values, tensor._data.dtype))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) restricted to [a, b]: drawn through the inverse of the normal's
    distribution function, as torch draws it."""
    cdf = lambda v: (1.0 + math.erf(v / math.sqrt(2.0))) / 2.0        # noqa: E731
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)
    u = creation.rand(*tensor.shape, generator=generator, dtype=dtypes.float64)._data * (2 * hi - 2 * lo) + (2 * lo - 1)
    values = np.clip(_erfinv(u) * std * math.sqrt(2.0) + mean, a, b)
    with modes.no_grad():
        tensor.copy_(_tensor_like(values, tensor))
    return tensor


def _erfinv(y):
    """The inverse of erf, by Newton's method from a close first guess (NumPy has none)."""
    y = np.asarray(y, np.float64)
    a = 0.147
    ln = np.log1p(-y * y)
    first = 2 / (math.pi * a) + ln / 2
    x = np.sign(y) * np.sqrt(np.sqrt(first * first - ln / a) - first)
    erf = np.frompyfunc(math.erf, 1, 1)
    for _ in range(3):
        x = x - (erf(x).astype(np.float64) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return x


def eye_(tensor):
    """The identity matrix (of a 2-D tensor's shape), as in linear layers that start as
    the identity."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with modes.no_grad():
        tensor.copy_(_tensor_like(np.eye(*tensor.shape), tensor))
    return tensor


def dirac_(tensor, groups=1):
    """A convolution kernel that passes its input through (per group): 1 at the kernel's
    centre from input channel i to output channel i, 0 elsewhere."""
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    values = np.zeros(sizes)
    for g in range(groups):
        for d in range(min(out_per_group, sizes[1])):
            values[(g * out_per_group + d, d) + tuple(s // 2 for s in sizes[2:])] = 1
    with modes.no_grad():
        tensor.copy_(_tensor_like(values, tensor))
    return tensor


def _deprecated(new):
    def old(*args, **kwargs):
        warnings.warn(f"`nn.init.{new.__name__[:-1]}` is now deprecated in favor of `nn.init.{new.__name__}`.",
                      FutureWarning, stacklevel=2)
        return new(*args, **kwargs)
    old.__name__ = new.__name__[:-1]
    return old


uniform, normal, constant = _deprecated(uniform_), _deprecated(normal_), _deprecated(constant_)
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal, orthogonal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_), \
    _deprecated(orthogonal_)
__all__ += ["orthogonal_", "trunc_normal_", "eye_", "dirac_", "uniform", "normal", "constant", "xavier_uniform",
            "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal"]

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.nn.init", __name__, "al.nn.init")   # (names torch has: not_here.py)
