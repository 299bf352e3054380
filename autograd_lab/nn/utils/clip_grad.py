"""Clipping gradients, as torch.nn.utils does before an optimizer step: by their total norm
(``clip_grad_norm_``: every gradient scaled by the same factor, so that their norm taken
together is at most ``max_norm``) or entry by entry (``clip_grad_value_``).  The
gradients are changed in place; nothing is recorded."""
import types
import warnings

import numpy as np

from ...core import modes
from ...core.checks import tensor_of
from ...core.tensor import Tensor


def _as_list(parameters, warn=True):
    if isinstance(parameters, Tensor):
        return [parameters]
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = list(parameters)
    if warn and is_generator and not parameters:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    return parameters


def _vector_norm(a, norm_type):
    """The norm of an array's entries, in its own dtype, as torch.linalg.vector_norm."""
    a = np.abs(a.reshape(-1))
    if norm_type == float("inf"):
        return a.max(initial=0).astype(a.dtype)
    if norm_type == 0:
        return np.asarray((a != 0).sum(), a.dtype)
    if norm_type == 2:
        return np.sqrt(np.sum(a * a, dtype=a.dtype))
    return np.sum(a ** norm_type, dtype=a.dtype) ** (1.0 / norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of every entry of ``tensors`` taken together: the norm of their norms."""
    norm_type = float(norm_type)
    tensors = _as_list(tensors, warn=False)
    if not tensors:
        return tensor_of(np.float32(0.0))
    norms = [_vector_norm(t._data, norm_type) for t in tensors]
    total = _vector_norm(np.stack(norms), norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return tensor_of(np.asarray(total))


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Every gradient times min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = [p.grad for p in _as_list(parameters, warn=False) if p.grad is not None]
    if not grads:
        return
    total = total_norm._data if isinstance(total_norm, Tensor) else np.asarray(total_norm)
    coefficient = np.minimum(np.asarray(max_norm, total.dtype) / (total + np.asarray(1e-6, total.dtype)), 1.0)
    with modes.no_grad():
        for g in grads:
            g.mul_(tensor_of(coefficient.astype(g._data.dtype)))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients of ``parameters`` so that their total norm is at most
    ``max_norm``; returns the total norm they had (a 0-d tensor)."""
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient entry of ``parameters`` to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with modes.no_grad():
        for p in _as_list(parameters, warn=False):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
