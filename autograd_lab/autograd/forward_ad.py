"""``al.autograd.forward_ad``: forward mode with dual tensors, as torch spells it.

    with fwAD.dual_level():
        x = fwAD.make_dual(primal, tangent)      # a view of primal carrying a tangent
        y = f(x)                                  # every operation pushes the tangent on
        jvp = fwAD.unpack_dual(y).tangent         # J @ tangent

This is the same engine as ``al.func.jvp``: a tensor carries its tangent beside its
value, and each operation's JVP rule (``rules.py``) computes the output's tangent while the
operation runs.  Leaving the level takes every tangent it gave away, so a later forward
pass cannot mistake them for its own.
"""
import weakref
from collections import namedtuple

from ..core.forward_mode import give, tangent as tangent_of
from ..func import check_tangent
from ..core.modes import state
from ..core.tensor import Tensor

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "UnpackedDualTensor"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def enter_dual_level():
    """Start a forward-mode level (one at a time, as in torch); returns its number, 0."""
    if state.dual_tensors is not None or state.forward_level:    # (al.func's levels nest)
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.dual_tensors = weakref.WeakSet()     # every tensor given a tangent in this level
    state.forward_level = 1
    return 0


def exit_dual_level(*, level=None):
    """End the level: the tensors it gave tangents to lose them."""
    for t in list(state.dual_tensors or ()):
        give(t, None, None)
        if t.grad_fn is not None:
            t.grad_fn.tangent = None
    state.dual_tensors = None
    state.forward_level = 0


class dual_level:
    """``with dual_level():`` -- forward mode inside the block (see the module docstring)."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` carrying ``tangent``: its operations push the tangent forward."""
    if state.dual_tensors is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make "
                           "sure to enter_dual_level() first.")
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not t.is_floating_point():
            raise ValueError(f"Expected {name} to be floating point or complex, but got: {t.dtype!r}")
    if tangent_of(tensor, None) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           "gradient at the same level 0 is not supported.")
    data = check_tangent(tensor, tangent)
    dual = tensor.view_as(tensor)
    if data is not tangent._data or data.strides != tensor._data.strides:
        tangent = Tensor._make(data.copy())    # another dtype or layout: a copy, as in torch
    give(dual, None, tangent._data)
    dual._tangent_tensor = tangent             # handed back as it came (unpack_dual)
    state.dual_tensors.add(dual)
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: a view of the value without its tangent, and the tangent
    (None outside the level that gave it, or for a tensor that never had one)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    primal = tensor.view_as(tensor)
    give(primal, None, None)
    t = tangent_of(tensor, None)
    if t is None:
        return UnpackedDualTensor(primal, None)
    given = getattr(tensor, "_tangent_tensor", None)
    return UnpackedDualTensor(primal, given if given is not None and given._data is t else Tensor._make(t))

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.autograd.forward_ad", __name__, "al.autograd.forward_ad")   # (names torch has: not_here.py)
