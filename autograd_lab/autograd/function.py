"""Writing your own operation: ``al.autograd.Function``, as in torch.

A subclass gives ``forward`` and ``backward`` (and ``jvp`` for forward mode), in either
of torch's two forms::

    class Exp(al.autograd.Function):          # forward(ctx, ...)
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

    class Exp(al.autograd.Function):          # PyTorch 2: forward(...) and setup_context
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)
        ...

``apply`` runs the forward without recording, then attaches a graph node through the same
``recording.attach`` every built-in operation uses: the node is named ``<ClassName>Backward``,
drawn, hooked and counted like any other, and the engine calls ``backward`` as it calls a
built-in VJP rule.  A forward with several outputs gets one node more per output, which
hands its gradient to the function's node in its slot (see :func:`_slot`), so that
``backward`` receives one gradient per output, as in torch.  The node checks the versions
of what ``ctx`` saved, and only those, when ``backward`` reads ``ctx.saved_tensors``; a
forward that writes an input in place says so with ``ctx.mark_dirty``, and that input
becomes the output, its history the function's node (``inplace.py``'s ``_overwrite``).

**Under al.func's transforms** (vmap, grad, vjp, jvp, jacrev, jacfwd, hessian) a Function
behaves as torch's "Extending torch.func with autograd.Function" says:

- it must have the second form (``setup_context``), else torch's refusal;
- under vmap (and in jacfwd, which torch computes with vmap) it needs a ``vmap``
  staticmethod or ``generate_vmap_rule = True``, not both.  A ``vmap`` staticmethod is
  called once per vmap level whose batch reaches an input, with the inputs seen outside
  that level and their ``in_dims``; it returns ``(output, out_dims)``.  (autograd_lab keeps
  every batch in front, so a batched input's in_dim is always 0; torch may pass another.)
  With ``generate_vmap_rule``, forward, setup_context, backward and jvp run on the
  batched tensors (vmap's batch rules), the node recorded on the whole batch;
- a backward given a batch of gradients (jacrev's one-hot rows, ``is_grads_batched``)
  runs under a vmap level of its own, and a jvp given a batch of tangents (jacfwd) too,
  as torch runs them under vmap: each sees one row, never the batch.

Torch's words where a combination is refused (:data:`SETUP_CONTEXT`, :data:`NO_VMAP`, ...).
"""
import functools
import inspect
from collections import namedtuple

import numpy as np

from .. import batching, func
from ..core import inplace
from ..batching import is_batched, wrap
from ..core.forward_mode import give, tangent
from ..core.recording import FREED, Op, attach, name_by_call
from ..core.modes import no_grad, state
from ..core.tensor import Tensor
from ..core.versions import modified

DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"
SETUP_CONTEXT = ("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
                 "jacrev, ...), it must override the setup_context staticmethod. " + DOCS)
NO_VMAP = ("You tried to vmap over {}, but it does not have vmap support. Please override and "
           "implement the vmap staticmethod or set generate_vmap_rule=True. " + DOCS)
BOTH_VMAPS = ("You tried to vmap over {}, but it has both generate_vmap_rule=True and an overridden "
              "vmap staticmethod. Please set generate_vmap_rule=False or delete the overridden vmap "
              "staticmethod to avoid ambiguity. " + DOCS)
TWO_RETURNS = ("Expected the vmap staticmethod to have two returns, an output and out_dims with "
               "pytree structure compatible with the output. ")
DIRTY_NOT_RETURNED = ("Some elements marked as dirty during the forward method were not returned as "
                      "output. The inputs that are modified inplace must all be outputs of the Function.")
NESTED_JVP = ("{0}: a forward-mode transform of a forward-mode transform (jacfwd of jacfwd, jvp of a "
              "jvp) through a custom autograd.Function: torch runs its jvp staticmethod at the inner "
              "level only, so its answer for the outer level is zero; autograd_lab refuses rather than "
              "give another number. Differentiate its backward instead: al.func.hessian(f) or "
              "jacfwd(jacrev(f)).")
DIRTY_TANGENT = ("An inplace custom Function is not modifying the forward mode gradients inplace. If "
                 "the forward is modifying an input inplace, then the jvp function must modify the "
                 "corresponding gradient inplace.")
DIRTY_TANGENT_RETURNED = ("An inplace custom Function is not returning the forward mode gradients as-is. "
                          "If the forward is modifying an input inplace, then the jvp function must modify "
                          "the gradient inplace and return it as-is.")
DIRTY_LEAF = "a leaf Variable that requires grad has been used in an in-place operation."

VmapInfo = namedtuple("VmapInfo", ["batch_size", "randomness"])


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) leaves for ``backward`` and ``jvp``."""

    def __init__(self, args):
        self.needs_input_grad = tuple(isinstance(a, Tensor) and _physical(a)[0].requires_grad
                                      for a in args)
        self.materialize_grads = True
        self._saved = self._saved_forward = ()
        self._non_differentiable = self._dirty = ()
        self._outputs = None          # after apply, per output: (physical array, the node its
        self._in_jvp = False          # gradient enters, its vmap levels)

    def save_for_backward(self, *tensors):
        self._saved = tensors

    def save_for_forward(self, *tensors):
        self._saved_forward = tensors

    @property
    def saved_tensors(self):
        """The saved tensors, refused in torch's words if one was written in place since.
        One that forward returned is handed back as the recorded output -- connected to
        this node, so that a ``backward`` recorded under ``create_graph=True``
        differentiates through it -- as torch saves outputs.  In ``jvp``, as in torch,
        only what ``save_for_forward`` saved."""
        if self._in_jvp:
            return self._saved_forward
        if self._node is not None and self._node.freed:
            raise RuntimeError(FREED)
        if self._packed is not None:   # saved_tensors_hooks: what their unpack gives back
            return tuple(unpack(p) for p, unpack in self._packed)
        return tuple(self._unpack(t, v) for t, v in zip(self._saved, self._versions or ()))

    _node = None                      # the function's node, once recorded
    _versions = None                  # per saved tensor: its version when forward ended
    _packed = None                    # per saved tensor, (what the pack hook gave, unpack)
    _entries = ()                     # the vmap levels it was recorded under (batching.entries)
    _tangents = ()                    # forward mode: its inputs' tangents when it was called

    def _unpack(self, t, version):
        if not isinstance(t, Tensor):
            return t
        for k, out in enumerate(self._forward_outputs):
            if t is out and self._outputs is not None:
                data, node, levels = self._outputs[k]
                if node is not None and node.overwritten:   # (torch names one sample's shape,
                    whole = self._node_name.startswith("Vmapped")    # or the batch's, saved by vmap's rule)
                    modified(data if whole else data[(0,) * len(levels)], node, node.out_box[0],
                             node.out_version)
                y = Tensor._make(data)
                if state.grad_enabled and node is not None:
                    y.grad_fn = node
                if state.forward_level and node is not None:
                    give(y, None, node.tangent)   # (forward over reverse: hessian)
                return wrap(y, levels)
        p = t._phys if is_batched(t) else t
        if _version(p) != version:
            modified(t._data, p.grad_fn, _version(p), version)
        return t

    def _finish(self):
        """After forward: the versions of what was saved, and saved_tensors_hooks' packs."""
        self._versions = [_version(t._phys if is_batched(t) else t) if isinstance(t, Tensor) else 0
                          for t in self._saved]
        if state.saved_hooks and self._saved:
            pack, unpack = state.saved_hooks[-1]
            self._packed = [(pack(t), unpack) for t in self.saved_tensors]

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors):
        """The forward wrote these inputs in place and returns them: each comes back as
        the same tensor, its history now this function's node, as an in-place op's."""
        self._dirty = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = value


def _version(t):
    try:
        return t._version
    except RuntimeError:              # (an inference tensor keeps no count)
        return 0


def _wrap(x):
    return x if isinstance(x, Tensor) or x is None else Tensor._make(np.asarray(x))


def _unwrap_like(result, g, own=()):
    """Return tensors when the engine works on tensors (create_graph), arrays otherwise.
    An array ``backward`` returned may be one the user still holds (a saved input, say):
    the walk gets a copy (torch clones what it cannot take over), so that no ``.grad``
    shares memory with a tensor; a gradient it was given (``own``) it takes as it is."""
    if isinstance(g, Tensor) or result is None:
        return result
    if any(result is t for t in own):
        return result._data
    return result._data.copy()


class Function:
    """Base class for operations with hand-written derivatives."""

    generate_vmap_rule = False        # True: vmap runs forward, backward and jvp on the batch

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function "
                                  "to use it with forward mode AD.")

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the "
                                  "vmap staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        split = cls.setup_context is not Function.setup_context     # PyTorch 2's form
        if split:                     # (setup_context sees the defaults too, as in torch)
            args, kwargs = _bound(cls, args, kwargs)
        if func.transforms_active():
            if not split:
                raise RuntimeError(SETUP_CONTEXT)
            if func.vmap_live():
                _check_vmap_support(cls, kwargs)
                levels = batching.levels_of(*args)
                if levels and not cls.generate_vmap_rule:
                    return _apply_vmap_rule(cls, args, kwargs)
                return _call(cls, args, kwargs, split, levels)
        return _call(cls, args, kwargs, split, ())

    @classmethod
    def _op(cls):
        if "_al_op" not in cls.__dict__:
            # (its rules read only what ctx saved, which it checks itself: saved_tensors;
            # "index" says so -- nothing of the inputs or output -- and lets a backward free it)
            cls._al_op = Op(f"{cls.__name__}Backward", None,
                            vjp_all=lambda g, y, *args, ctx: cls._vjp(ctx, g, args),
                            jvp_all=lambda ts, y, *args, ctx: cls._nested_jvp(ctx, ts),
                            saves="index")
            name_by_call({cls._al_op: lambda args, params: params["ctx"]._node_name + "Backward"})
        return cls._al_op

    @classmethod
    def _nested_jvp(cls, ctx, tangents):
        """A tangent at a nested forward-mode level (a tensor; the outermost level's are
        arrays, which :func:`_push_tangents` handles once the node is recorded)."""
        if any(isinstance(t, Tensor) for t in tangents):
            if cls.jvp is Function.jvp:
                Function.jvp(ctx)         # (torch's words for a missing jvp come first)
            raise RuntimeError(NESTED_JVP.format(cls.__name__))
        return None

    @classmethod
    def _vjp(cls, ctx, g, args):
        """Call ``backward`` with one gradient per output, and check what it returns."""
        outs = ctx._outputs
        if len(outs) == 1:
            given = [g]
        else:                         # the output nodes filled the slots (see _slot)
            slots = (g._data if isinstance(g, Tensor) else g).reshape(-1)
            given = [None if type(s) is int else s for s in slots]     # (0: none came)
        lead = next((s.shape[:s.ndim - data.ndim] for s, (data, _, _) in zip(given, outs)
                     if s is not None), ())
        grads_out = tuple(_wrap(s) if s is not None else
                          (Tensor._make(np.zeros(lead + data.shape, data.dtype))
                           if ctx.materialize_grads and data is not None else None)
                          for s, (data, _, _) in zip(given, outs))
        if lead or ctx._entries:      # batched: backward sees one sample's gradients
            return _batched_backward(cls, ctx, grads_out, args, lead, g)
        grads = cls.backward(ctx, *grads_out)
        grads = _checked(cls, grads, args)
        return [_unwrap_like(_wrap(r), g, own=grads_out) for r in grads]


def _bound(cls, args, kwargs):
    """The arguments as torch binds them to ``forward``'s signature, defaults included."""
    sig = cls.__dict__.get("_al_signature")
    if sig is None:
        try:
            sig = inspect.signature(cls.forward)
        except (TypeError, ValueError):
            return args, kwargs
        cls._al_signature = sig
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return args, kwargs           # (forward itself says what is wrong)
    bound.apply_defaults()
    return bound.args, bound.kwargs


def _checked(cls, grads, args):
    """backward's gradients as a tuple of one per input, checked in torch's words."""
    grads = grads if isinstance(grads, tuple) else (grads,)
    n = len(args)
    if len(grads) < n or any(r is not None for r in grads[n:]):
        raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of "
                           f"gradients (expected {n}, got {len(grads)})")
    for i, (a, r) in enumerate(zip(args, grads)):
        if r is not None and not isinstance(a, (Tensor, np.ndarray)):
            raise RuntimeError(f"function {cls.__name__}Backward returned a gradient different "
                               f"than None at position {i + 1}, but the corresponding forward "
                               "input was not a Variable")
    return grads[:n]


def _check_vmap_support(cls, kwargs):
    if cls.generate_vmap_rule:
        if cls.vmap is not Function.vmap:
            raise RuntimeError(BOTH_VMAPS.format(cls.__name__))
    elif cls.vmap is Function.vmap:
        raise RuntimeError(NO_VMAP.format(cls.__name__))
    if any(isinstance(v, Tensor) for v in kwargs.values()):
        raise NotImplementedError("Run vmap on autograd.Function with kwarg-only Tensor args. Please "
                                  "do not pass kwarg-only Tensors to autograd.Function. "
                                  f"Got: {kwargs}")


# -- one call: forward, then the node ---------------------------------------------------------
def _call(cls, args, kwargs, split, levels):
    """Run the forward without recording and record its node.  ``levels``: the vmap
    levels its inputs are batched over (generate_vmap_rule): the forward runs on the
    batched tensors, the node on the whole batch (their physical tensors)."""
    ctx = FunctionCtx(args)
    ctx._node_name = _name(cls)
    if state.forward_level:           # the inputs' tangents, for jvp: as they were before
        ctx._tangents = [tangent(_physical(a)[0], None) if isinstance(a, Tensor) else None
                         for a in args]
    # forward runs recording nothing, in either mode (as in torch): backward and jvp say
    # how its outputs move
    grad_mode, forward_level = state.grad_enabled, state.forward_level
    state.grad_enabled = state.forward_level = 0
    try:
        if split:
            out = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, out)
        else:
            out = cls.forward(ctx, *args, **kwargs)
    finally:
        state.grad_enabled, state.forward_level = grad_mode, forward_level
    outs = out if isinstance(out, tuple) else (out,)
    ctx._forward_outputs = outs
    ctx._input_meta = tuple((_levels_of(a), a.shape) if isinstance(a, Tensor) else None for a in args)
    if levels:
        ctx._entries = batching.entries(levels)
    recorded = _record(cls, ctx, args, outs, levels)
    ctx._finish()
    return tuple(recorded) if isinstance(out, tuple) else recorded[0]


def _name(cls):
    """The name torch gives the function's node (less "Backward"): under a grad or jvp
    transform the node is a Function torch generates, ``<Name>Generated``; vmap's
    generated rule wraps it in ``Vmapped<Name>``, once per vmap level inside the
    innermost grad or jvp transform."""
    kinds = batching.transforms
    grads = [i for i, k in enumerate(kinds) if k != "vmap"]
    inner = kinds[grads[-1] + 1:] if grads else kinds
    vmapped = inner.count("vmap") if cls.generate_vmap_rule else 0
    return "Vmapped" * vmapped + cls.__name__ + ("Generated" if grads else "")


def _physical(x):
    """(plain tensor, its vmap levels) of a batched tensor; anything else with no levels."""
    return (x._phys, x._levels) if is_batched(x) else (x, ())


def _record(cls, ctx, args, outs, levels):
    """Record one call: the function's node, fed by its outputs.  Outputs marked
    non-differentiable, and those that cannot carry a gradient (integers), get none."""
    dirty = ctx._dirty
    if dirty:
        _check_dirty(dirty, outs, levels)
    keep = [isinstance(o, Tensor) and o.is_floating_point() and
            not any(o is t for t in ctx._non_differentiable) for o in outs]
    phys_args = tuple(_physical(a)[0] for a in args)
    phys_outs = [_physical(o) for o in outs]
    # (a written input's numbers are recorded as a copy, which inplace's _overwrite then
    # puts back in place: recorded on its own memory, a view would look like a view of it)
    arrays = [p._data.copy() if any(o is d for d in dirty) else p._data if isinstance(p, Tensor) else None
              for o, (p, _) in zip(outs, phys_outs)]
    op, params = cls._op(), {"ctx": ctx}
    if len(outs) == 1:
        p = phys_outs[0][0]
        recorded = [attach(op, phys_args, params, arrays[0]) if keep[0] else _plain(p)]
        ctx._node = recorded[0].grad_fn if keep[0] else None
    else:
        packed = attach(op, phys_args, params, np.empty(len(outs), object))
        ctx._node = packed.grad_fn
        recorded = [attach(_slot, (packed,), {"k": k, "n": len(outs), "name": ctx._node_name + "Backward"}, a)
                    if kept else _plain(p) for k, ((p, _), a, kept) in enumerate(zip(phys_outs, arrays, keep))]
    ctx._outputs = tuple((p._data if isinstance(p, Tensor) else None, r.grad_fn if kept else None, lv)
                         for (p, lv), r, kept in zip(phys_outs, recorded, keep))
    for k, o in enumerate(outs):      # an input written in place: it is the output
        if any(o is d for d in dirty):    # (torch's transforms count the forward's write only)
            recorded[k] = inplace.overwrite(o, recorded[k], count=0 if func.transforms_active() else 1)
    if state.forward_level:
        _push_tangents(cls, ctx, args, recorded, keep)
    return [wrap(r, lv) for r, (_, lv) in zip(recorded, phys_outs)]


def _check_dirty(dirty, outs, levels):
    """torch's refusals of ``mark_dirty``: an input not returned (as under vmap, where torch
    loses track of which output it is), a leaf that requires grad."""
    if levels or not all(any(o is d for o in outs) for d in dirty):
        raise RuntimeError(DIRTY_NOT_RETURNED)
    for d in dirty:
        if state.grad_enabled and d.is_leaf and d.requires_grad and d._base is None:
            raise RuntimeError(DIRTY_LEAF)


def function_node(node):
    """The node a hook on ``node`` belongs on: for an output of a Function with several
    outputs, the function's own node (the output's node only hands its gradient on, into
    its slot), as torch has one node for all of a Function's outputs."""
    return node.next[0] if node.op is _slot else node


def _plain(o):
    return Tensor._make(o._data) if isinstance(o, Tensor) else o


def _to_slot(g, y, packed, k, n, name):
    lead = g.ndim - y.ndim                # (a batch of gradients: the slots say so by their
    slots = np.zeros((1,) * lead + (n,), object)      # shape, as the walk reads a batch)
    slots[(0,) * lead + (k,)] = g
    return slots


# the node behind output k of a Function with several outputs: it passes its gradient on
# to the function's node in slot k; gradients arriving there from several outputs add up
# slot by slot (the slots of an object array add elementwise, 0 standing for no gradient)
_slot = Op("FunctionBackward", None, vjp=(_to_slot,), saves=False)
name_by_call({_slot: lambda args, p: p["name"]})      # named after the function, as torch


# -- batched calls: vmap's levels, a batch of gradients or tangents ----------------------------
def _physical_as(r, levels, shape, level, lead, where):
    """batching.as_physical, with the engine's words for a gradient of the wrong shape."""
    try:
        return batching.as_physical(_wrap(r), levels, shape, level, lead)
    except ValueError:
        raise RuntimeError(f"Function {where[0]} returned an invalid gradient at index {where[1]} - "
                           f"got {list(r.shape)} but expected shape compatible with "
                           f"{list(shape)}") from None


def _levels_of(a):
    return a._levels if is_batched(a) else ()


def _batched_backward(cls, ctx, grads_out, args, lead, g):
    """backward on one sample's gradients, under the levels its forward ran under and
    a level for a batch of gradients (``lead``): torch vmaps it so, and so does this."""
    with batching.running(ctx._entries, lead) as level:
        seen = [s if s is None else batching.seen(s, levels, level, lead)
                for s, (_, _, levels) in zip(grads_out, ctx._outputs)]
        grads = _checked(cls, cls.backward(ctx, *seen), args)
        name = f"{cls.__name__}Backward"
        got = [None if r is None or meta is None else
               _physical_as(r, meta[0], meta[1], level, lead, (name, i))
               for i, (r, meta) in enumerate(zip(grads, ctx._input_meta))]
    if isinstance(g, Tensor):
        return got
    return [None if r is None else np.array(r._data) for r in got]     # (copies: see _unwrap_like)


# -- forward mode: the user's jvp -------------------------------------------------------------
def _push_tangents(cls, ctx, args, recorded, keep):
    """Forward mode: the user's ``jvp`` gives the outputs' tangents from the inputs'."""
    phys = [_physical(a)[0] for a in args]
    tangents = ctx._tangents
    found = [(t, p) for t, p in zip(tangents, phys) if t is not None]
    if not found:
        return
    t0, p0 = found[0]
    lead = t0.shape[:t0.ndim - p0._data.ndim]      # jacfwd's batch of tangents
    ctx._in_jvp = True
    try:
        with no_grad(), batching.running(ctx._entries, lead) as level:
            given = [None if not isinstance(p, Tensor) else
                     batching.seen(Tensor._make(t if t is not None else np.zeros(lead + p.shape, p._data.dtype)),
                           _levels_of(a), level, lead)
                     for a, p, t in zip(args, phys, tangents)]
            out = cls.jvp(ctx, *given)
            out = out if isinstance(out, tuple) else (out,)
            for o, t in zip(ctx._forward_outputs, out):
                for a, g in zip(args, given):
                    if o is a and any(o is d for d in ctx._dirty):
                        _check_dirty_tangent(a, g, t)
            pushed = [None if t is None or not kept else
                      _physical_as(t, levels, data.shape[len(levels):], level, lead,
                                   (f"{cls.__name__}Backward", k))
                      for k, (t, kept, (data, _, levels)) in enumerate(zip(out, keep, ctx._outputs))]
    finally:
        ctx._in_jvp = False
    for r, t in zip(recorded, pushed):
        if t is not None:
            give(r, None, np.asarray(t._data, r._data.dtype))
            if r.grad_fn is not None:
                r.grad_fn.tangent = tangent(r, None)
            if state.dual_tensors is not None:
                state.dual_tensors.add(r)


def _check_dirty_tangent(a, given, got):
    """An input written in place (mark_dirty): its jvp must write the tangent it was given
    in place and return it, torch's two checks in torch's order.  torch tells a write by
    the tangent's version counter (which counts the writes of earlier Functions too: the
    input keeps that count here, ``_tangent_writes``)."""
    a = _physical(a)[0]
    before = a.__dict__.get("_tangent_writes", 0)
    now = before + given._version if got is given else (got._version if isinstance(got, Tensor) else 0)
    if now == before:
        raise RuntimeError(DIRTY_TANGENT)
    if got is not given:
        raise RuntimeError(DIRTY_TANGENT_RETURNED)
    a._tangent_writes = now


# -- a vmap staticmethod ----------------------------------------------------------------------
def _apply_vmap_rule(cls, args, kwargs):
    """Under vmap, a Function with a ``vmap`` staticmethod: called for the innermost level
    whose batch reaches an input, with the inputs seen outside it; what it returns is
    batched over that level along its ``out_dims``.  (Levels no input is batched over are
    passed over, as torch does.)"""
    level, size, randomness = batching.innermost()
    if not any(is_batched(a) and a._levels[-1] == level for a in args):
        with batching.hidden((level,)):
            return cls.apply(*args, **kwargs)
    unwrapped, in_dims = zip(*[batching.unwrap_level(a, level) for a in args])
    with batching.hidden((level,)):
        result = cls.vmap(VmapInfo(size, randomness), tuple(in_dims), *unwrapped, **kwargs)
    if not isinstance(result, tuple):
        raise RuntimeError(TWO_RETURNS + f"Got a {type(result)} instead")
    if len(result) != 2:
        raise RuntimeError(TWO_RETURNS + f"Got {len(result)} returns instead")
    out, out_dims = result

    def batched(o, d):
        if not isinstance(o, Tensor):
            return o
        for a, u in zip(args, unwrapped):
            if o is u:                # an input handed back (mark_dirty): the input itself
                return a
        return o if d is None else batching.add_level(o, d, level)
    done = batching.map_outputs(out, out_dims, batched)
    if done is None:
        raise RuntimeError("The autograd.Function's vmap staticmethod returned an incompatible "
                           f"(output, out_dims) tuple. Expected out_dims={out_dims} to be compatible "
                           "with the structure of `output`. out_dims has structure "
                           f"{batching.treespec_text(out_dims)} but output has structure "
                           f"{batching.treespec_text(out)}. " + DOCS)
    return done


ONCE = "trying to differentiate twice a function that was marked with @once_differentiable"


def _refuse_twice(g, y, fake):
    raise RuntimeError(ONCE)


# the node torch puts on what a once_differentiable backward returns under create_graph:
# its input is a stand-in leaf, not the graph, so a walk reaches it only when it runs every
# node (backward()); autograd.grad towards the inputs passes it by, as torch's does
_delayed_error = Op("torch::autograd::Error", None, vjp=(_refuse_twice,), saves=False)


def once_differentiable(fn):
    """For a ``backward`` that cannot itself be differentiated: it runs without recording.
    Under ``create_graph=True``, when a gradient it was given requires grad, each tensor
    it returns gets torch's ``Error`` node, which refuses in torch's words if a later
    backward reaches it; given gradients that require nothing, its results have no
    ``grad_fn`` at all (as in torch)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        # (under al.func's transforms torch's gradients are wrapped tensors that require
        # no grad at the outer level: no Error node, and a jvp over it keeps its tangent)
        if not state.grad_enabled or func.transforms_active() or not any(
                isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        marked = tuple(attach(_delayed_error, (_stand_in(o),), None, o._data)
                       if isinstance(o, Tensor) else o for o in ((outputs,) if single else outputs))
        return marked[0] if single else marked
    return wrapper


def _stand_in(t):
    leaf = Tensor._make(t._data)
    leaf.requires_grad_(True)
    return leaf
