"""``al.utils.checkpoint``, as ``torch.utils.checkpoint``: keep less for the backward by
running a block of the forward again when the backward needs its values.

    y = checkpoint(block, x, use_reentrant=False)

**Non-reentrant** (``use_reentrant=False``, the form torch recommends): the block runs
inside a pair of ``saved_tensors_hooks`` whose pack hook keeps, for each value the
block's nodes save, an empty :class:`_Holder` instead of the value.  The block's inputs
are kept.  When the backward first unpacks a holder, the block runs again on those
inputs (with grad on, the random generator as it was), and its pack hook hands each
value it saves to the matching holder, in order; it stops as soon as the last holder is
filled.  So the graph outside the block keeps the block's inputs, and inside it only
shapes, until the backward reaches it.

**Reentrant** (``use_reentrant=True``, what torch 2.13 runs when the argument is not
given, after its warning): one node for the whole block that runs it again inside a
backward of its own.  autograd_lab does not have it and says so (after torch's warning,
when the argument is left out): pass ``use_reentrant=False``.
"""
import traceback
import warnings

from .. import random as _random
from ..autograd.graph import saved_tensors_hooks
from ..core.modes import enable_grad, state
from ..not_here import NotInAutogradLab
from ..core.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError"]

WARN = ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
        "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
        "exception. use_reentrant=False is recommended, but if you need to preserve the current "
        "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
        "the differences between the two variants.")
WARN_SEQUENTIAL = ("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter "
                   "should be passed explicitly. In version 2.9 we will raise an exception if "
                   "use_reentrant is not passed. use_reentrant=False is recommended, but if you "
                   "need to preserve the current default behavior, you can pass "
                   "use_reentrant=True. Refer to docs for more details on the differences "
                   "between the two variants.")
REENTRANT = ("torch.utils.checkpoint's reentrant form (use_reentrant=True, torch's default when "
             "use_reentrant is not passed) is not implemented in autograd_lab: pass "
             "use_reentrant=False, the form torch recommends")


class CheckpointError(RuntimeError):
    """The block saved other values when it ran again than the first time (torch's)."""


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, keeping for the backward only ``args``: the block
    runs again when the backward needs what it saved (see the module's text)."""
    if use_reentrant is None:
        warnings.warn(WARN, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        raise NotInAutogradLab(REENTRANT)
    if context_fn is not None or debug:
        raise NotInAutogradLab("torch.utils.checkpoint's context_fn and debug are not "
                               "implemented in autograd_lab")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], "
                         f"but got {determinism_check}")
    if not state.grad_enabled:
        return function(*args, **kwargs)
    frame = _Frame(function, args, kwargs, preserve, determinism_check == "default", early_stop)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        out = function(*args, **kwargs)
    frame.forward_done = True
    return out


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a Sequential, or a list of modules or functions) one after the
    other on ``input``, in ``segments`` pieces, each but the last checkpointed."""
    if use_reentrant is None:
        warnings.warn(WARN_SEQUENTIAL, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        raise NotInAutogradLab(REENTRANT)

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    from ..nn.modules import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size, end = len(functions) // segments, -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)


# -- the non-reentrant form ------------------------------------------------------------------
class _Holder:
    """What a node inside the block keeps in place of a saved value: nothing, until the
    block runs again and fills it (``value``); emptied when unpacked."""
    __slots__ = ("frame", "index", "value", "meta", "__weakref__")

    def _kept_tensors(self):
        """What keeping this holder keeps alive (count_saved): the block's inputs, and
        the value the block's second run filled in, until it is unpacked."""
        kept = [a for a in self.frame.args if type(a) is Tensor and a.grad_fn is not None]
        return kept + ([self.value] if self.value is not None else [])


class _Stop(Exception):
    """The block's second run has filled every holder: the rest need not run."""


class _Frame:
    """One checkpointed call: the block, its inputs, the holders its nodes keep."""

    def __init__(self, function, args, kwargs, preserve, check, early_stop):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.check, self.early_stop, self.forward_done = check, early_stop, False
        self.rng = _random.get_rng_state() if preserve else None
        self.holders = []                 # every holder handed out, in saving order

    def pack(self, t):
        holder = _Holder()
        holder.frame, holder.index, holder.value = self, len(self.holders), None
        holder.meta = (tuple(t.shape), t.dtype)
        self.holders.append(holder)
        return holder

    def unpack(self, holder):
        if holder.value is None:          # the first unpack of this backward: run again
            self.recompute()
        value, holder.value = holder.value, None
        return value

    def recompute(self):
        filled = []

        def refill(t):
            i = len(filled)
            if i >= len(self.holders):
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation "
                    "than during the original forward pass.")
            t = Tensor._make(t._data)     # its values, without history (as t.detach(), but not
                                              # sharing t's versions, which lead back to its node)
            self.holders[i].value = t
            filled.append(t)
            if self.early_stop and len(filled) == len(self.holders):
                raise _Stop
            return t

        saved_rng = _random.get_rng_state() if self.rng is not None else None
        try:
            if self.rng is not None:
                _random.set_rng_state(self.rng)
            with saved_tensors_hooks(refill, lambda t: t), enable_grad():
                self.function(*self.args, **self.kwargs)
        except _Stop as stop:             # (the frames it left hold the rest of the run's
            traceback.clear_frames(stop.__traceback__)   # values: let go of them now)
        finally:
            if saved_rng is not None:
                _random.set_rng_state(saved_rng)
        if len(filled) != len(self.holders):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {len(filled)}.")
        if self.check:
            differ = [(i, h.meta, (tuple(t.shape), t.dtype))
                      for i, (h, t) in enumerate(zip(self.holders, filled))
                      if h.meta != (tuple(t.shape), t.dtype)]
            if differ:
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have "
                    "different metadata than during the forward pass.\n" + "".join(
                        f"tensor at position {i}:\nsaved metadata: {{'shape': {list(a[0])}, "
                        f"'dtype': {a[1]}}}\nrecomputed metadata: {{'shape': {list(b[0])}, "
                        f"'dtype': {b[1]}}}\n" for i, a, b in differ) + ".")
