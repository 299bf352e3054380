"""``al.nn.init``, as ``torch.nn.init``: refill a tensor in place (without recording) with
numbers drawn from the package's generator, scaled as the named schemes say."""
import math
import numbers
import warnings

from .. import modes

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

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.nn.init", __name__, "al.nn.init")   # (names torch has: not_here.py)
