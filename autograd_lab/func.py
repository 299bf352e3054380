"""``al.func``: torch.func-style transforms -- ``jvp``, ``vjp``, ``grad``, ``jacrev``,
``jacfwd`` and ``hessian`` -- and ``functional_call`` (nn/stateless.py), to call a module
with parameters of your own.

Forward mode here is the real thing, not the double-backward trick: ``jvp`` gives each
input a *tangent* (a direction ``v``), and every operation pushes tangents forward with
its JVP rule (``rules.py``, beside its VJP rule) while it computes its value.  One forward
pass yields ``J v``, one column-combination of the Jacobian; a batch of tangents with a
leading dimension yields many columns in the same single pass (the rules are
right-aligned, as they are for batched gradients).

Reverse mode (``vjp``, ``grad``, ``jacrev``) records the function once and walks the
graph backward: one walk yields ``vᵀ J``, one row-combination; ``jacrev`` sends all the
one-hot seeds through a single batched walk.

Cost, as ``al.autograd.count_passes()`` reports it: ``jacrev`` of f: Rⁿ → Rᵐ is one
forward and one (batched) backward pass; ``jacfwd`` is one forward pass carrying one
batch of n tangents (``jvp`` = 1).

Composition: ``jacrev(jacrev(f))``, ``jacfwd(jacrev(f))`` and ``grad(grad(f))`` work
(the inner transform records its backward pass when an outer one is watching), and so
does nested forward mode, ``jacfwd(jacfwd(f))`` or a ``jvp`` of a ``jvp``: each forward
transform opens a level of its own, and a tangent of an inner level carries the outer
levels' tangents (``forward_mode.py``).  Reverse over forward (``jacrev(jacfwd(f))``)
raises: the outermost level's tangents are plain arrays, outside every graph.
"""
import functools
import math

import numpy as np

from .core import engine, forward_mode, watch
from .core.modes import count, state
from .nn.stateless import functional_call, stack_module_state
from .core.tensor import Tensor

from . import batching
from .batching import vmap

__all__ = ["jvp", "vjp", "grad", "grad_and_value", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state"]

NESTED_FORWARD = (
    "autograd.functional's forward-mode jacobian and gradcheck's forward mode push plain "
    "arrays as tangents, at the outermost forward-mode level only; they cannot run inside "
    "another forward-mode pass (al.func.jvp, jacfwd, forward_ad.dual_level). Use al.func.jvp "
    "or al.func.jacfwd, whose levels nest.")

REVERSE_OVER_FORWARD = (
    "Reverse mode over forward mode (jacrev(jacfwd(f)), grad of a jvp, or a forward-mode "
    "jacobian inside autograd.functional's reverse mode) is not supported: autograd_lab's "
    "tangents are plain arrays, so the result of a jvp cannot be differentiated again. "
    "Write it as jacfwd(jacrev(f)) or jacrev(jacrev(f)).")

_reverse_depth = [0]      # > 0 while a reverse-mode transform evaluates the user's function
_tangent_batches = [0]    # > 0 while a forward pass carries a batch of tangents (jacfwd)


class _Counting:
    """Counts itself in ``counter`` while it is entered."""

    def __init__(self, counter, on=True):
        self.counter, self.on = counter, on

    def __enter__(self):
        self.counter[0] += self.on

    def __exit__(self, *exc):
        self.counter[0] -= self.on
        return False


def transforms_active():
    """Whether the user's function is being run by a transform (vmap, grad, vjp, jvp,
    jacrev, jacfwd, hessian): torch's "functorch transforms are active", under which a
    custom autograd.Function must have ``setup_context``."""
    return bool(batching.transforms) or batching.active()


def vmap_live():
    """Whether torch would run the user's function under vmap here: inside al.vmap, and
    in jacfwd's forward pass, whose batch of one-hot tangents torch sends through vmap."""
    return batching.active() or _tangent_batches[0] > 0


# -- forward mode: the core every forward-mode helper uses ---------------------------------
def forward_pass(func, primals, tangents):
    """Call ``func(*duals)`` at the outermost forward-mode level, each dual carrying its
    primal's value and tangent (an array; None: no tangent).  Returns whatever ``func``
    returned; read tangents with :func:`tangent_of`.  (For gradcheck and
    autograd.functional; al.func's transforms use :func:`run_level`, which nests.)"""
    if state.forward_level:
        raise RuntimeError(NESTED_FORWARD)
    return run_level(func, primals, tangents)[0]


def run_level(func, primals, tangents, transform=False, batched=False):
    """Open a forward-mode level and call ``func(*duals)`` in it, tangents pushed through
    every operation.  Returns ``(output, level)``: read the outputs' tangents with
    ``tangent_of(out, lead, level)``.  At the outermost level (``level`` None) tangents
    are arrays; inside another level they are tensors, carrying the outer levels' own
    tangents.  Counts one ``forward`` and one ``jvp`` pass, whatever the tangent batch."""
    if _reverse_depth[0] and state.grad_enabled and any(
            isinstance(p, Tensor) and p.requires_grad for p, t in zip(primals, tangents)
            if t is not None):
        raise RuntimeError(REVERSE_OVER_FORWARD)
    if state.dual_tensors is not None:    # torch refuses to mix the two as well
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    outermost = not state.forward_level
    duals = []
    for p, t in zip(primals, tangents):
        if t is None or not isinstance(p, Tensor):
            duals.append(p)
        elif outermost:
            d = p.view_as(p) if (p.requires_grad and state.grad_enabled) else Tensor._make(p._data)
            forward_mode.give(d, None, t._data if isinstance(t, Tensor) else t)
            duals.append(d)
        else:                           # a view carries the outer levels' tangents on
            duals.append((p.view_as(p), _as_tensor(t, p)))
    if not getattr(func, "_al_internal", False):    # e.g. hessian's jac_func: not the user's function
        count("forward")
    count("jvp")
    level = forward_mode.enter()
    try:
        for d in duals:
            if isinstance(d, tuple):
                forward_mode.give(d[0], level, d[1])
        with batching.transform("jvp" if transform else None), _Counting(_tangent_batches, batched):
            return func(*[d[0] if isinstance(d, tuple) else d for d in duals]), level
    finally:
        forward_mode.leave(level)


def _as_tensor(t, p):
    """A nested level's tangent: a tensor of p's dtype (keeping its own tangents)."""
    if not isinstance(t, Tensor):
        return Tensor._make(t)
    return t if t._data.dtype == p._data.dtype else t.to(p.dtype)


def tangent_of(out, lead=(), level=None):
    """The tangent an output carries after a forward pass (zeros if none reached it): an
    array at the outermost level, a tensor at a nested one."""
    if out._base is not None:
        out.grad_fn                     # a view whose base was written since takes its tangent
    want = tuple(lead) + out.shape
    t = forward_mode.tangent(out, level)
    if t is None:
        zeros = np.zeros(want, out._data.dtype)
        return zeros if level is None else Tensor._make(zeros)
    if t.shape != want:
        t = np.broadcast_to(t, want) if level is None else t.expand(*want)
    return t


def check_tangent(p, t, batched=False):
    """A tangent as an array of p's dtype; its shape must be p's (after the batch dim)."""
    a = t._data if isinstance(t, Tensor) else np.asarray(t)
    shape = a.shape[1:] if batched else a.shape
    if shape != p.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that "
                           "of the original Tensor, this is not supported. Tensor is of size "
                           f"{list(p.shape)} while the given forward gradient is of size "
                           f"{list(shape)}.")
    if not p.is_floating_point():
        raise RuntimeError(f"forward mode needs floating point primals; got {p.dtype!r} "
                           "(only floating point tensors have tangents)")
    return a.astype(p._data.dtype, copy=False)


# -- reverse mode helpers -----------------------------------------------------------------
def _reverse_leaf(x):
    """A tensor to differentiate with respect to.  If an outer transform is already
    tracking ``x`` (it requires grad), stay connected to it; otherwise a fresh leaf.
    Returns (tensor, nested)."""
    if x.requires_grad and state.grad_enabled:
        return x.view_as(x), True
    if not x.is_floating_point():
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients "
                           f"(al.func differentiates with respect to the argument of dtype "
                           f"{x.dtype!r}; pass a float tensor)")
    leaf = Tensor._make(x._data)
    carried = forward_mode.carry(x, leaf)     # an outer forward pass (jacfwd(jacrev(f))) keeps its tangents
    leaf.requires_grad = True
    return leaf, carried


class Tracking:
    """While reverse mode evaluates the user's function (to tell reverse-over-forward)."""

    def __enter__(self):
        _reverse_depth[0] += 1

    def __exit__(self, *exc):
        _reverse_depth[0] -= 1
        return False


def _call_reverse(func, args, level):
    """Run the user's function for a reverse-mode transform; ``level`` (any object) stands
    for this transform: its hooks run in its own walk (:func:`_grads`), as in torch."""
    if not getattr(func, "_al_internal", False):    # another transform: its own call counts
        count("forward")
    with Tracking(), batching.transform("grad"), watch.at_level(watch.transform_level, level):
        return func(*args)


def _outputs(out, where):
    """(the output's structure, its tensors) for a function's result -- a tensor, or
    tuples, lists and dicts of them, as torch.func takes pytrees -- with torch's error
    text; :func:`_shaped` puts results back in that structure."""
    outs = tuple(_leaves(out))
    for o in outs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{where}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")
    return out, outs


def _shaped(tree, leaves):
    """``leaves`` in the structure of ``tree`` (see _outputs)."""
    return _rebuilt([tree], leaves)[0]


def _check_transform_args(args, argnums, trees=False):
    """The argument positions ``argnums`` names, checked as torch.func checks them; with
    ``trees`` an argument may be a dict, tuple or list of tensors (grad's pytrees)."""
    if isinstance(argnums, int):
        nums = (argnums,)
    elif isinstance(argnums, tuple) and argnums and all(isinstance(a, int) for a in argnums):
        nums = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if len(set(nums)) != len(nums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    fixed = []
    for a in nums:
        if not -len(args) <= a < len(args):
            raise RuntimeError(f"Got argnum={a}, but only {len(args)} positional inputs")
        fixed.append(a % len(args))
    for a in fixed:
        for leaf in (_leaves(args[a]) if trees else (args[a],)):
            if not isinstance(leaf, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(leaf)}")
    return tuple(fixed)


def _leaves(tree):
    """The leaves of a dict / tuple / list nest, in the order :func:`_tree_map` visits them."""
    if isinstance(tree, dict):
        return [leaf for v in tree.values() for leaf in _leaves(v)]
    if isinstance(tree, (tuple, list)):
        return [leaf for v in tree for leaf in _leaves(v)]
    return [tree]


def _split_aux(out, has_aux, where, finish):
    """(output, aux).  aux's tensors are handed back as ``finish`` hands back the outputs
    (outside a nested transform: detached from the graph this transform recorded), and,
    as in torch.func, aux may hold only tensors, in (named) tuples, lists and dicts."""
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{where}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    return out[0], _tree_map(finish, out[1])


def _tree_map(fn, tree):
    if isinstance(tree, Tensor):
        return fn(tree)
    if isinstance(tree, dict):
        mapped = tree.copy()                  # keeps OrderedDict, defaultdict, ...
        for k, v in tree.items():
            mapped[k] = _tree_map(fn, v)
        return mapped
    if isinstance(tree, (tuple, list)):
        items = [_tree_map(fn, v) for v in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    raise RuntimeError(f"Expected tensors, got unsupported type {type(tree)}")


def _plain(t):
    """A forward-mode result without its tangent."""
    return Tensor._make(t._data)


def finish(t, nested):
    """Hand a result back: connected to the outer graph when nested, plain otherwise."""
    if nested:
        return t
    out = Tensor._make(t._data)
    forward_mode.give(out, None, forward_mode.tangent(t, None))
    return out


def _zeros_for(x, lead=()):
    return Tensor._make(np.zeros(tuple(lead) + x.shape, x._data.dtype))


def _grads(outs, leaves, seeds, create_graph, batched=False, lead=(), level=None):
    """engine.grad over the outputs that require grad; zeros where no path exists.  The
    walk of the transform ``level`` (see _call_reverse)."""
    pairs = [(o, s) for o, s in zip(outs, seeds) if o.requires_grad]
    if not pairs:
        return [_zeros_for(x, lead) for x in leaves]
    with watch.at_level(watch.walk_level, level):
        got = engine.grad([o for o, _ in pairs], leaves, [s for _, s in pairs], retain_graph=True,
                          create_graph=create_graph, allow_unused=True, is_grads_batched=batched)
    return [g if g is not None else _zeros_for(x, lead) for g, x in zip(got, leaves)]


# -- the transforms -------------------------------------------------------------------------
def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J·tangents)`` in ONE forward pass, by forward mode.

    ``primals`` and ``tangents`` are tuples of tensors of the same shapes.  Each input
    carries its tangent through every operation (the JVP rules in ``rules.py``); the
    outputs' tangents are the directional derivative.  Returns ``(output, jvp_out)``
    (plus ``aux`` with ``has_aux=True``); both mirror the structure of ``func``'s output.
    Inside another forward transform it opens a level of its own, and both results keep
    the outer levels' tangents: a jvp of a jvp is a second directional derivative."""
    where = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{where}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        n = len(tangents) if isinstance(tangents, tuple) else type(tangents).__name__
        raise RuntimeError(f"{where}: Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents "
                           f"also must be. Got {len(primals)} primals and tangents {n}.")
    if not primals:
        raise RuntimeError(f"{where}: Expected primals to contain at least one Tensor.")
    if any(isinstance(p, (dict, tuple, list)) for p in primals):
        return _flattened_jvp(func, primals, tangents, strict=strict, has_aux=has_aux)
    for p in primals + tangents:
        if not isinstance(p, Tensor):
            raise RuntimeError(f"{where}: Expected primals to only contain Tensors, got {type(p)}")
    if batching.active():
        return _batched_jvp(func, primals, tangents, has_aux)
    ts = [check_tangent(p, t) for p, t in zip(primals, tangents)]
    nested = bool(state.forward_level)    # inside another level: keep its tangents
    out, level = run_level(func, primals, tangents if nested else ts, transform=True)
    keep = (lambda t: t) if nested else _plain
    out, aux = _split_aux(out, has_aux, where, keep)
    tree, outs = _outputs(out, where)
    values = tuple(keep(o) for o in outs)
    jv = tuple(tangent_of(o, (), level) if nested else Tensor._make(np.array(tangent_of(o)))
               for o in outs)
    result = (_shaped(tree, values), _shaped(tree, jv))
    return result + (aux,) if has_aux else result


def _rebuilt(trees, leaves):
    """``trees`` (dicts, tuples and lists of tensors) with their leaves, in order, replaced."""
    it = iter(leaves)
    return tuple(_tree_map(lambda _: next(it), t) for t in trees)


def _nest(tree):
    """A tree's shape, to compare two: its dicts' keys, lists apart from tuples."""
    if isinstance(tree, dict):
        return ("dict", tuple((k, _nest(v)) for k, v in tree.items()))
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__, tuple(_nest(v) for v in tree))
    return "*"


def _flattened_jvp(func, primals, tangents, **options):
    """jvp of primals that are dicts, tuples or lists of tensors (as a model's parameters
    are): one primal per leaf, the tangents' leaves beside them."""
    flat_p, flat_t = [_leaves(p) for p in primals], [_leaves(t) for t in tangents]
    if _nest(primals) != _nest(tangents):     # (dicts by their keys, in order)
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the "
                           f"same python structure. Got primals {_structure(primals)} and "
                           f"tangents {_structure(tangents)}.")
    return jvp(lambda *leaves: func(*_rebuilt(primals, leaves)), tuple(sum(flat_p, [])),
               tuple(sum(flat_t, [])), **options)


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: record ``func`` once; each ``vjp_fn(cotangents)`` is
    one backward walk returning ``cotangentsᵀ J``, one gradient per primal (a tuple; a
    primal that is a dict, tuple or list of tensors gets one of the same shape)."""
    where = "vjp(f, *primals)"
    if any(isinstance(p, (dict, tuple, list)) for p in primals):
        flat = [leaf for p in primals for leaf in _leaves(p)]
        res = vjp(lambda *leaves: func(*_rebuilt(primals, leaves)), *flat, has_aux=has_aux)
        pullback = res[1]
        return (res[0], lambda cotangents: _rebuilt(primals, pullback(cotangents))) + res[2:]
    for p in primals:
        if not isinstance(p, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(p)}")
    levels = batching.levels()          # inside vmap: the function runs on the physical tensors
    prepared = [_reverse_leaf(batching.physical(p, levels)) for p in primals]
    leaves = [x for x, _ in prepared]
    nested = any(n for _, n in prepared) or bool(state.forward_level)
    level = object()                    # (this transform, for its hooks)
    out = _call_reverse(func, [batching.wrap(x, levels) for x in leaves], level)

    def done(t):
        return batching.wrap(finish(batching.physical(t, levels), nested), levels)
    out, aux = _split_aux(out, has_aux, where, done)
    tree, outs = _outputs(out, where)
    physical = [batching.physical(o, levels) for o in outs]

    def vjp_fn(cotangents):
        if _nest(cotangents) != _nest(tree):      # (dicts: the same keys in the same order)
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                               f"structure of outputs to the function. cotangents: "
                               f"{_structure(cotangents)}, primal output: {_structure(out)}")
        cots = tuple(_leaves(cotangents))
        extra = tuple(lvl for lvl in batching.levels_of(*cots) if lvl not in levels)
        if not extra:
            grads = _grads(physical, leaves, [batching.physical(c, levels) for c in cots],
                           create_graph=nested, level=level)
            return tuple(batching.wrap(finish(g, nested), levels) for g in grads)
        # vmap over the backward: the levels added since, as one batch of seeds, one walk
        seeds = [batching.in_front(c, extra, levels) for c in cots]
        sizes = seeds[0][1]
        grads = _grads(physical, leaves, [s for s, _ in seeds], create_graph=nested,
                       batched=True, lead=(math.prod(sizes),), level=level)
        return tuple(batching.from_front(finish(g, nested), extra, sizes, levels) for g in grads)

    value = tuple(batching.wrap(finish(o, nested), levels) for o in physical)
    result = (_shaped(tree, value), vjp_fn)
    return result + (aux,) if has_aux else result


class _Leaf:
    def __repr__(self):
        return "*"


def _structure(x):
    """A pytree's structure as torch prints it: ``{'a': *, 'b': (*,)}``."""
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {_structure(v)}" for k, v in x.items()) + "}"
    if isinstance(x, (tuple, list)):
        return repr(type(x)(_Leaf() for _ in x)).replace("*", "{}").format(*map(_structure, x))
    return "*"


def _reverse_args(args, nums):
    """The arguments, with those being differentiated replaced by fresh leaves; and
    whether any of them carried a forward-mode tangent (a nested transform)."""
    args = list(args)
    flags = [bool(state.forward_level)]

    def leaf(x):
        fresh, n = _reverse_leaf(x)
        flags.append(n)
        return fresh
    for a in nums:
        args[a] = _tree_map(leaf, args[a])     # (grad's argument may be a dict of tensors)
    return args, any(flags)


def grad_and_value(func, argnums=0, has_aux=False):
    """Like :func:`grad`, returning ``(gradient, value)``."""
    def wrapper(*args):
        where = "grad_and_value(f)(*args)"
        if batching.active():
            return _batched_grad_and_value(func, argnums, has_aux, args)
        nums = _check_transform_args(args, argnums, trees=True)
        args, nested = _reverse_args(args, nums)
        level = object()
        out = _call_reverse(func, args, level)
        out, aux = _split_aux(out, has_aux, where, lambda t: finish(t, nested))
        _check_scalar(out, where)
        leaves = [x for a in nums for x in _leaves(args[a])]
        got = iter([finish(g, nested) for g in _grads((out,), leaves, (None,), create_graph=nested,
                                                      level=level)])
        gs = tuple(_tree_map(lambda _: next(got), args[a]) for a in nums)   # shaped as the argument
        g = gs[0] if isinstance(argnums, int) else gs
        value = finish(out, nested)
        return ((g, (value, aux)) if has_aux else (g, value))
    wrapper._al_internal = True
    return wrapper


def _check_scalar(out, where):
    """grad's function must return one number, in torch's words."""
    if not isinstance(out, Tensor):
        raise RuntimeError(f"{where}: Expected f(*args) to return a Tensor, got {type(out)}")
    if out.ndim != 0:
        raise RuntimeError(f"{where}: Expected f(*args) to return a scalar Tensor, got tensor "
                           f"with {out.ndim} dims. Maybe you wanted to use the vjp or jacrev "
                           "APIs instead?")


def grad(func, argnums=0, has_aux=False):
    """``grad(f)(*args)``: the gradient of a scalar-valued ``f`` with respect to
    ``args[argnums]`` -- one forward and one backward pass.  ``argnums`` may be a tuple
    (then a tuple of gradients comes back), and the argument a dict, tuple or list of
    tensors (a model's parameters: the gradient comes back in the same shape, see
    :func:`functional_call`); ``has_aux=True`` means ``f`` returns
    ``(value, aux)`` and ``grad`` returns ``(gradient, aux)``."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args):
        g, value = gv(*args)
        return (g, value[1]) if has_aux else g
    wrapper._al_internal = True
    return wrapper


def _basis(tensors):
    """The standard basis of R^N, N = total size, split into one chunk per tensor:
    chunk i has shape (N, *tensors[i].shape) and its rows are one-hot seeds/tangents."""
    sizes = [t.numel() for t in tensors]
    n = sum(sizes)
    chunks, start = [], 0
    for t, k in zip(tensors, sizes):
        c = np.zeros((n, k), t._data.dtype)
        c[start:start + k] = np.eye(k, dtype=t._data.dtype)
        chunks.append(c.reshape((n,) + t.shape))
        start += k
    return chunks, sizes


def _over_leaves(jacobian):
    """jacrev / jacfwd for arguments that are dicts, tuples or lists of tensors (a model's
    parameters, as torch.func takes them): the Jacobian with respect to each leaf, put
    back in the argument's shape.  Plain tensor arguments go straight through."""
    def transform(func, argnums=0, has_aux=False, **options):
        plain = jacobian(func, argnums, has_aux=has_aux, **options)

        def wrapper(*args):
            nums = (argnums,) if isinstance(argnums, int) else argnums
            if not isinstance(nums, tuple) or \
                    not all(isinstance(a, int) and -len(args) <= a < len(args) for a in nums) or \
                    len({a % len(args) for a in nums}) != len(nums) or \
                    not any(isinstance(args[a], (dict, tuple, list)) for a in nums):
                return plain(*args)       # (plain tensors, or argnums for its own refusal)
            nums = [a % len(args) for a in nums]
            spread, spans = [], []        # the arguments, each chosen one's leaves spread out:
            for i, a in enumerate(args):  # (where it starts, how many leaves, None: as it is)
                part = _leaves(a) if i in nums else [a]
                spans.append((len(spread), len(part) if i in nums else None))
                spread += part

            shape = []                    # the output's nest, seen at the call

            def of_leaves(*flat):
                res = func(*[_rebuilt([a], flat[k:k + n])[0] if n is not None else flat[k]
                             for a, (k, n) in zip(args, spans)])
                if has_aux and not (isinstance(res, tuple) and len(res) == 2):
                    return res            # (for the transform's own refusal)
                out = res[0] if has_aux else res
                shape.append(out)
                leaves = tuple(_leaves(out))
                return (leaves, res[1]) if out is not res else leaves
            positions = tuple(k + j for a in nums for k, n in [spans[a]] for j in range(n))
            res = jacobian(of_leaves, positions, has_aux=has_aux, **options)(*spread)
            jac = res[0] if has_aux else res

            def regroup(row):             # one output's Jacobians, leaf by leaf: per argument
                per_arg, start = [], 0
                for a in nums:
                    n = spans[a][1]
                    per_arg.append(_rebuilt([args[a]], row[start:start + n])[0])
                    start += n
                return per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
            out = _rebuilt([shape[0]], [regroup(row) for row in jac])[0]
            return (out, res[1]) if has_aux else out
        wrapper._al_internal = True
        return wrapper
    functools.update_wrapper(transform, jacobian)
    return transform


@_over_leaves
def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian by reverse mode: one forward pass, then ONE backward walk carrying
    every one-hot seed at once (``is_grads_batched``).  Shape ``out.shape + arg.shape``;
    a tuple of outputs and/or a tuple ``argnums`` give (nested) tuples, as in torch."""
    if chunk_size is not None:
        raise NotImplementedError("al.func.jacrev sends all seeds in one batched pass; "
                                  "chunk_size is not supported")

    def wrapper(*args):
        where = "vjp(f, *primals)"        # (torch builds jacrev on vjp, and says so)
        if batching.active():
            return _batched_jacobian(vjp, func, argnums, has_aux, args)
        nums = _check_transform_args(args, argnums)
        args, nested = _reverse_args(args, nums)
        leaves = [args[a] for a in nums]
        level = object()
        out = _call_reverse(func, args, level)
        out, aux = _split_aux(out, has_aux, where, lambda t: finish(t, nested))
        tree, outs = _outputs(out, where)
        seeds, sizes = _basis(outs)
        total = sum(sizes)
        grads = _grads(outs, leaves, seeds, create_graph=nested, batched=True, lead=(total,),
                       level=level)
        jac, start = [], 0
        for o, k in zip(outs, sizes):
            row = tuple(finish(g[start:start + k].reshape(o.shape + x.shape), nested)
                        for g, x in zip(grads, leaves))
            jac.append(row if not isinstance(argnums, int) else row[0])
            start += k
        jac = _shaped(tree, jac)
        return (jac, aux) if has_aux else jac
    wrapper._al_internal = True
    return wrapper


@_over_leaves
def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode: ONE forward pass carrying a batch of one-hot
    tangents, one per input entry (the columns of J).  Cheaper than ``jacrev`` when the
    function has more outputs than inputs.  ``jacfwd(jacfwd(f))`` nests (second
    derivatives), as does ``jacfwd(jacrev(f))``, which is :func:`hessian`.  ``randomness``
    is accepted for torch.func compatibility; it has no effect (there is no vmap here)."""

    def wrapper(*args):
        where = "jvp(f, primals, tangents)"
        if batching.active():
            return _batched_jacobian(jvp, func, argnums, has_aux, args)
        nums = _check_transform_args(args, argnums)
        chosen = [args[a] for a in nums]
        basis, sizes = _basis(chosen)
        tangents = [None] * len(args)
        for a, b in zip(nums, basis):
            tangents[a] = check_tangent(args[a], b, batched=True)
        out, level = run_level(func, args, tangents, transform=True, batched=True)
        nested = level is not None        # inside another level: keep its tangents
        out, aux = _split_aux(out, has_aux, where, (lambda t: t) if nested else _plain)
        tree, outs = _outputs(out, where)
        total = sum(sizes)
        jac = []
        for o in outs:
            t = tangent_of(o, (total,), level)
            row, start = [], 0
            for x, k in zip(chosen, sizes):
                if nested:                # the same moves, as operations the outer levels see
                    cols = t[start:start + k].permute(*range(1, t.ndim), 0)
                    row.append(cols.reshape(o.shape + x.shape))
                else:
                    cols = np.moveaxis(t[start:start + k], 0, -1)     # out.shape + (k,)
                    row.append(Tensor._make(np.ascontiguousarray(cols).reshape(o.shape + x.shape)))
                start += k
            jac.append(tuple(row) if not isinstance(argnums, int) else row[0])
        jac = _shaped(tree, jac)
        return (jac, aux) if has_aux else jac
    wrapper._al_internal = True
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar function, as torch.func computes it: ``jacfwd(jacrev(func))``,
    forward over reverse -- one forward pass carrying a tangent per input entry, through
    the function and through its recorded backward pass (``jacrev(jacrev(func))``, reverse
    over reverse, gives the same numbers)."""
    return jacfwd(jacrev(func, argnums), argnums)


# -- inside vmap: the transforms work on the physical tensors (batch dimensions in front) ---
def _batched_grad_and_value(func, argnums, has_aux, args):
    """grad inside vmap: the gradient of the SUM over the batch with respect to the
    physical inputs (each batched over every active level).  The samples never mix, so
    the gradient at sample i is sample i's own gradient: one forward, one backward."""
    where = "grad_and_value(f)(*args)"
    nums = _check_transform_args(args, argnums, trees=True)
    levels = batching.levels()

    def physical(t):
        return batching.physical(t, levels)

    def batched(t):
        return batching.wrap(t, levels)

    def summed(*ps):
        with batching.restored(saved):
            call = list(args)
            for a, p in zip(nums, ps):
                call[a] = _tree_map(batched, p)       # (an argument may be a tree of tensors)
            out, aux = _split_aux(func(*call), has_aux, where, lambda t: t)
            _check_scalar(out, where)
            value = physical(out)
            aux = _tree_map(physical, aux) if has_aux else ()
        return value.sum(), (value, aux)
    summed._al_internal = getattr(func, "_al_internal", False)
    phys = [_tree_map(physical, args[a]) for a in nums]
    with batching.suspended() as saved:
        gs, (_, (value, aux)) = grad_and_value(summed, tuple(range(len(nums))), has_aux=True)(*phys)
    gs = tuple(_tree_map(batched, g) for g in gs)
    g = gs[0] if isinstance(argnums, int) else gs
    if has_aux:
        return g, (batched(value), _tree_map(batched, aux))
    return g, batched(value)


def _batched_jvp(func, primals, tangents, has_aux):
    """jvp inside vmap: one forward pass over the live levels, the tangents carrying the
    innermost one in front when only they have it (vmap over the tangents: jacfwd's basis)."""
    where = "jvp(f, primals, tangents)"
    # the innermost level, when only the tangents have it (jacfwd's basis), rides in front
    # of the tangents: one forward pass for all of them.  Every other live level is the
    # primals' too (as broadcast views): the function may read tensors batched over it
    # (vmap(jacfwd(f), (None, 0)), NTK-vector products), and its outputs may have it
    live = batching.levels()
    mine = batching.levels_of(*primals)
    extra = live[-1:] if live[-1] not in mine and live[-1] in batching.levels_of(*tangents) else ()
    levels = tuple(lvl for lvl in live if lvl not in extra)
    phys = [batching.physical(p, levels) for p in primals]
    if extra:
        fronts = [batching.in_front(t, extra, levels) for t in tangents]
        sizes = fronts[0][1]
        ts = [check_tangent(p, t, batched=True) for p, (t, _) in zip(phys, fronts)]
    else:
        ts = [check_tangent(p, batching.physical(t, levels)) for p, t in zip(phys, tangents)]

    def batched_view(*duals):
        return func(*[batching.wrap(d, levels) for d in duals])
    batched_view._al_internal = getattr(func, "_al_internal", False)
    with batching.hidden(extra):          # carried by the tangents, not by batched tensors
        if state.forward_level:
            raise RuntimeError(NESTED_FORWARD)
        out = run_level(batched_view, phys, ts, transform=True, batched=bool(extra))[0]
    out, aux = _split_aux(out, has_aux, where, lambda t: batching.wrap(_plain(batching.physical(t, levels)), levels))
    tree, outs = _outputs(out, where)
    outs = [batching.physical(o, levels) for o in outs]
    values = tuple(batching.wrap(_plain(o), levels) for o in outs)
    if extra:
        jv = tuple(batching.from_front(Tensor._make(np.array(tangent_of(o, (math.prod(sizes),)))),
                                       extra, sizes, levels) for o in outs)
    else:
        jv = tuple(batching.wrap(Tensor._make(np.array(tangent_of(o))), levels) for o in outs)
    result = (_shaped(tree, values), _shaped(tree, jv))
    return result + (aux,) if has_aux else result


def _batched_jacobian(mode, func, argnums, has_aux, args):
    """jacrev / jacfwd inside vmap, as torch.func builds them: vmap over vjp's seeds
    (``mode`` is vjp: rows) or over jvp's tangents (jvp: columns), one-hot each."""
    nums = _check_transform_args(args, argnums)
    chosen = [args[a] for a in nums]

    def of_chosen(*xs):
        call = list(args)
        for a, x in zip(nums, xs):
            call[a] = x
        return func(*call)
    if mode is vjp:
        res = vjp(of_chosen, *chosen, has_aux=has_aux)
        out, pull = res[0], res[1]
        tree, outs = _outputs(out, "vjp(f, *primals)")
        basis, sizes = _basis(outs)
        seeds = tuple(Tensor._make(b) for b in basis)
        rows = vmap(pull)(_shaped(tree, seeds))                 # one backward walk
        jac, start = [], 0
        for o, k in zip(outs, sizes):
            row = tuple(g[start:start + k].reshape(o.shape + x.shape) for g, x in zip(rows, chosen))
            jac.append(row if not isinstance(argnums, int) else row[0])
            start += k
        aux = res[2] if has_aux else None
    else:
        basis, sizes = _basis(chosen)

        def push(*ts):
            res = jvp(of_chosen, tuple(chosen), ts, has_aux=has_aux)
            return (res[1], res[2]) if has_aux else res[1]
        pushed = vmap(push, out_dims=(0, None) if has_aux else 0)(*[Tensor._make(b) for b in basis])
        cols, aux = pushed if has_aux else (pushed, None)
        tree = cols
        jac = []
        for c in _leaves(cols):
            row, start = [], 0
            for x, k in zip(chosen, sizes):
                part = c[start:start + k]
                part = part.permute(*range(1, part.ndim), 0)          # out.shape + (k,)
                row.append(part.reshape(c.shape[1:] + x.shape))
                start += k
            jac.append(tuple(row) if not isinstance(argnums, int) else row[0])
    jac = _shaped(tree, jac)
    return (jac, aux) if has_aux else jac

from . import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.func", __name__, "al.func")   # (names torch has: not_here.py)
