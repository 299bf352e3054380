"""``al.nn.functional``: activations and losses built from the rules table."""
import warnings

from .. import functions as _f
from ..tensor import Tensor as _Tensor

sigmoid = _f.sigmoid
tanh = _f.tanh
relu = _f.relu


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _f.softmax(input, _dim(input, dim, "softmax", _stacklevel), dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _f.log_softmax(input, _dim(input, dim, "log_softmax", _stacklevel), dtype=dtype)


softmax.__doc__, log_softmax.__doc__ = _f.softmax.__doc__, _f.log_softmax.__doc__


def _dim(input, dim, name, stacklevel):
    """``dim``, or the one torch picks when none is given (a choice it has deprecated).
    The warning names the line ``stacklevel`` frames up from here, as torch counts: 3 is
    the caller of softmax; a library wrapping softmax passes 4 to name its own caller."""
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if input.ndim in (0, 1, 3) else 1


def mse_loss(input, target, reduction="mean"):
    if not isinstance(target, _Tensor) or input.shape != target.shape:
        raise ValueError(f"mse_loss: input shape {tuple(input.shape)} and target shape "
                         f"{tuple(getattr(target, 'shape', ()))} must match")
    sq = (input - target) ** 2
    if reduction == "mean":
        return sq.mean()
    if reduction == "sum":
        return sq.sum()
    if reduction == "none":
        return sq
    raise ValueError(f"{reduction} is not a valid value for reduction")


def linear(input, weight, bias=None):
    out = input @ weight.t()
    return out if bias is None else out + bias
