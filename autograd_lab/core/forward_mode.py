"""Forward mode: every recorded operation pushes its inputs' tangents to its output.

While a forward-mode level is live (``al.func.jvp``, ``autograd.forward_ad.dual_level``),
a tensor carries a tangent with its value, and ``recording.attach`` calls :func:`push`
after each operation: the output's tangent is the sum of each input's JVP rule applied to
that input's tangent (dual numbers).  At the outermost level a tangent is a plain array,
``_tangent``, pushed by :func:`push`.

Levels nest (``al.func.jvp`` inside ``al.func.jvp``, so ``jacfwd(jacfwd(f))``): a tensor
then carries one tangent per level.  Each deeper level k has its own id, and a tensor
keeps its tangent for that level as a *tensor* in ``_levels``; that tensor carries
tangents of its own, for the levels outside k: the second derivatives.  The rule that
pushes a level-k tangent through an operation is the operation's JVP rule (rules.py),
evaluated on tensors while only the levels outside k are live: the rule's own operations
then push those levels' tangents, which differentiates the rule.  This is how functorch
nests its levels (each wraps the one outside it); :func:`push_nested` does it.
"""
import numpy as np

from .modes import no_grad, state
from .tensor import Tensor

_ids = iter(range(1, 1 << 62))
stack = []          # the ids of the live levels, outermost first (level 1 has none: arrays)

IN_PLACE = ("an in-place write changed a tensor that carries a tangent of a nested forward-mode "
            "level (jvp inside jvp, jacfwd of jacfwd); autograd_lab cannot follow such a write. "
            "Write the function without in-place operations (x = x * 2, not x *= 2).")

NO_RULE = ("{} pushes tangents at the outermost forward-mode level only: a custom "
           "autograd.Function cannot run inside nested forward-mode levels (jvp inside jvp, "
           "jacfwd of jacfwd). Write the function with autograd_lab's operations instead.")


def enter():
    """Start one more level; returns its id (None for the outermost, whose tangents are arrays)."""
    state.forward_level += 1
    if state.forward_level == 1:
        return None
    level = next(_ids)
    stack.append(level)
    return level


def leave(level):
    """End the level :func:`enter` started."""
    state.forward_level -= 1
    if level is not None:
        stack.remove(level)


def tangent(t, level):
    """``t``'s tangent at ``level`` (an id from :func:`enter`; None: the outermost, an
    array), or None."""
    if level is None:
        return t._tangent
    got = t.__dict__.get("_levels") if type(t) is Tensor else None
    if got is None and t._grad_fn is not None:      # an output the backward walk rebuilt from
        got = getattr(t._grad_fn, "levels", None)   # its node (forward over reverse)
    if got is None:
        return None
    version, tangents = got
    found = tangents.get(level)
    if found is not None and version != t._version:
        raise RuntimeError(IN_PLACE)
    return found


def give(t, level, value):
    """Set ``t``'s tangent at ``level`` (a tensor, or an array for the outermost level)."""
    if level is None:
        t._tangent = value
        return
    got = t.__dict__.get("_levels")
    tangents = {} if got is None else dict(got[1])
    tangents[level] = value
    t._levels = (t._version, tangents)


def push(op, args, params, result):
    """The result's tangent at every live level, from its inputs' (recording.attach calls
    this while a level is live).  The outermost level's tangent is an array, pushed here
    from the inputs' arrays; deeper levels' are :func:`push_nested`'s."""
    if not state.grad_enabled:        # a view whose base was written since: its tangent is the
        for a in args:                # base's there now (recording's edges refresh it otherwise)
            if type(a) is Tensor and a._base is not None:
                a._refresh_view()
    if not op.differentiable:
        return
    tangents = [a._tangent if isinstance(a, Tensor) else None for a in args]
    if any(t is not None for t in tangents):
        arrays = [a._data if isinstance(a, Tensor) else a for a in args]
        if op.promote and op.jvp_all is None:
            # elementwise ops broadcast their inputs right-aligned; a batch of tangents must
            # stay in front of the broadcast dimensions, not be mistaken for one of them
            ndim = result._data.ndim
            tangents = [t if t is None or t.ndim == x.ndim or x.ndim >= ndim else
                        t.reshape(t.shape[:t.ndim - x.ndim] + (1,) * (ndim - x.ndim) + x.shape)
                        for t, x in zip(tangents, arrays)]
        with np.errstate(all="ignore"):
            t = tangent_of(op, tangents, result._data, arrays, params)
        if t is not None:
            result._tangent = _as_array_tangent(t, result._data)
            if state.dual_tensors is not None:    # forward_ad.dual_level takes it back at its end
                state.dual_tensors.add(result)
    if state.forward_level > 1:
        push_nested(op, args, params, result)
    if result._grad_fn is not None:
        result._grad_fn.tangent = result._tangent


def tangent_of(op, tangents, y, args, params):
    """The output's tangent from the inputs' ``tangents`` (None: no tangent): the sum of
    the row's JVP rules, one per input that has a tangent."""
    if op.jvp_all is not None:
        return op.jvp_all(tangents, y, *args, **params)
    out = None
    for rule, t in zip(op.jvp, tangents):
        if t is not None and rule is not None:
            term = rule(t, y, *args, **params)
            out = term if out is None else out + term
    return out


def _as_array_tangent(t, y):
    """A rule's answer as the outermost level's tangent of y: an array of y's dtype, and
    of its shape (behind any batch of tangents)."""
    t = np.asarray(t)
    want = y.shape
    if t.shape[t.ndim - len(want):] != want or t.ndim < len(want):
        t = np.broadcast_to(t, t.shape[:max(0, t.ndim - len(want))] + want)
    return t.astype(y.dtype, copy=False) if y.dtype.kind == "f" else t


def push_nested(op, args, params, result):
    """The result's tangents at every nested level (the outermost one's is pushed by
    :func:`push`)."""
    live = state.forward_level
    for k, level in enumerate(stack[:live - 1], start=2):     # (a rule runs with fewer live)
        tangents = [tangent(a, level) if type(a) is Tensor else None for a in args]
        if all(t is None for t in tangents):
            continue
        if op.promote and op.jvp_all is None:
            tangents = [_batch_in_front(t, a, result) for t, a in zip(tangents, args)]
        state.forward_level = k - 1             # the rule's operations push the outer levels
        try:
            with no_grad(), np.errstate(all="ignore"):
                t = tangent_of(op, tangents, result, list(args), params)
        finally:
            state.forward_level = live
        if t is None and op.jvp_all is not None:      # (an autograd.Function: see function.py)
            raise RuntimeError(NO_RULE.format(op.grad_name(args, params)))
        if t is not None:
            give(result, level, _as_tangent(t, result))
    node = result._grad_fn
    if node is not None and "_levels" in result.__dict__:
        node.levels = result._levels            # for the output a backward rebuilds (Node.saved)


def _batch_in_front(t, x, result):
    """An elementwise op broadcasts right-aligned: a batch of tangents in front of a
    smaller input's shape must stay in front of the result's broadcast dimensions."""
    if t is None:
        return t
    ndim, xdim = result.ndim, x.ndim
    if t.ndim == xdim or xdim >= ndim:
        return t
    lead = t.shape[:t.ndim - xdim]
    return t.reshape(lead + (1,) * (ndim - xdim) + x.shape)


def _as_tangent(t, result):
    """A rule's answer as a tensor of the result's dtype and (batch and) shape."""
    if type(t) is not Tensor:
        t = Tensor._make(np.asarray(t))
    want = result.shape
    if t.ndim < len(want) or t.shape[t.ndim - len(want):] != want:
        t = t.expand(*(t.shape[:max(0, t.ndim - len(want))] + want))
    if result._data.dtype.kind == "f" and t._data.dtype != result._data.dtype:
        with no_grad():
            t = t.to(result.dtype)
    return t


def carry(src, dst):
    """Give ``dst`` (a new tensor of the same numbers) every tangent ``src`` carries, at
    each live level; returns whether it carried any."""
    carried = src._tangent is not None
    dst._tangent = src._tangent
    for level in stack[:state.forward_level - 1]:
        t = tangent(src, level)
        if t is not None:
            give(dst, level, t)
            carried = True
    return carried

