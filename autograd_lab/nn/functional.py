"""``al.nn.functional``: activations and losses built from the rules table."""
from .. import functions as _f
from ..tensor import Tensor as _Tensor, _neg

sigmoid = _f.sigmoid
tanh = _f.tanh
relu = _f.relu


def softmax(input, dim=-1):
    """exp(x) / sum(exp(x)), shifted by the (detached) maximum for stability."""
    e = _shifted(input, dim).exp()
    return e / e.sum(dim, keepdim=True)


def log_softmax(input, dim=-1):
    shifted = _shifted(input, dim)
    return shifted - shifted.exp().sum(dim, keepdim=True).log()


def _shifted(input, dim):
    """x minus its maximum along dim (detached: the shift changes no result, only the
    rounding).  An empty dim has no maximum, and nothing to shift."""
    d = _neg(dim, input.ndim)             # torch's IndexError for a dim out of range
    if input.ndim and input.shape[d] == 0:
        return input
    return input - input.amax(dim, keepdim=True).detach()


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
