"""``al.vmap`` (also ``al.func.vmap``): run a function written for one sample on a whole
batch at once.

Inside ``vmap(f)(x)``, ``f`` sees a :class:`BatchedTensor`: a tensor with the shape of
one sample whose numbers are the whole batch, kept in a plain tensor (``_phys``) with
one leading dimension per vmap level (``_levels``, outermost first).  Every operation of
the rules table on a batched input goes through its row's **batch rule**, kept in this
module's table :data:`BATCH_RULES`, keyed by the row (as JAX keeps its
``primitive_batchers``): the rules of the core's rows are below; the shell's row modules
(``more_rules.py``, ``einsum_rules.py``, ``nn/loss_rules.py``, ``nn/layer_rules.py``)
register theirs.  A rule gets the inputs with the batch dimensions in front and runs the
op ONCE on the physical arrays -- vectorized, not a loop.  An op with no batch rule yet
is called once per sample, with a warning the first time (as torch's vmap warns of its
"performance drop").  The rows themselves know nothing of vmap: ``Op.__call__`` hands a
call to :func:`_run` (through ``state.batching``) while a vmap runs.

The transforms of ``func.py`` compose with it by working on the physical tensors (see
:func:`physical`, :func:`wrap`): ``vmap(grad(f))`` differentiates the sum over the batch
(the samples never mix, so each sample's gradient is its own), and ``vmap(vjp_fn)``
sends a batch of seeds through ONE backward walk -- what ``is_grads_batched`` does.
"""
import contextlib
import functools
import itertools
import math
import warnings

import numpy as np

from .core import inplace, rules
from .core.checks import wrap_dim
from .core.recording import ROWS
from .core.modes import state
from .core.tensor import Tensor

__all__ = ["vmap", "BatchedTensor"]

_stack = []                 # active levels, outermost first: [level, batch size, randomness]
transforms = []             # the transforms running the user's function, outermost first:
                            # "vmap", "grad" (grad, vjp, jacrev), "jvp" (jvp, jacfwd)
_numbers = itertools.count(1)
_warned = set()             # ops whose per-sample fallback has been announced


# -- what a batched tensor is ------------------------------------------------------------
ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
        "calling .item() on a Tensor, please try to rewrite what you're doing with other "
        "operations. If error is occurring somewhere inside PyTorch internals, please file a "
        "bug report.")
CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
                "control flow. We don't support that yet, please file an issue at "
                "https://github.com/pytorch/pytorch/issues .")
VALUES = ("vmap: this function reads the numbers of a batched tensor outside the operations "
          "of the rules table, which autograd_lab's vmap cannot batch; write it with "
          "tensor operations, or call it outside vmap")
IN_PLACE = ("vmap: autograd_lab's vmap does not batch this write to a batched tensor ({}); write "
            "the function out of place (y = x + 1), or with the in-place methods it batches "
            "(x.add_(1), x.mul_(y), x.zero_(), ...)")
INPLACE_MORE = ("vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
                "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
                "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to "
                "use out-of-place operators instead of inplace arithmetic. If said operator is being "
                "called inside the PyTorch framework, please file a bug report instead.")


def _refuse(message, name=None):
    def refuse(self, *args, **kwargs):
        raise RuntimeError(message.format(name))
    return refuse


class _Unread(np.ndarray):
    """What ``BatchedTensor._data`` shows: the shape and dtype of one sample, and no
    numbers -- reading them (as code outside the rules table would) raises."""
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise RuntimeError(VALUES)

    def __array_function__(self, func, types, args, kwargs):
        raise RuntimeError(VALUES)

    item = tolist = _refuse(ITEM)
    __bool__ = _refuse(CONTROL_FLOW)
    __getitem__ = __setitem__ = copy = astype = __array__ = __iter__ = _refuse(VALUES)
    __float__ = __int__ = __index__ = tobytes = _refuse(VALUES)

    def __repr__(self):
        return f"<the {list(self.shape)} sample of a batched tensor>"


_unread_cache = {}


def _unread(shape, dtype):
    key = (shape, dtype)
    found = _unread_cache.get(key)
    if found is None:
        zero = np.zeros((), dtype)
        found = np.ndarray(shape, dtype, buffer=zero, strides=(0,) * len(shape)).view(_Unread)
        found.flags.writeable = False
        if len(_unread_cache) < 256:
            _unread_cache[key] = found
    return found


class BatchedTensor(Tensor):
    """A tensor of one sample's shape standing for a batch (see the module's docstring).
    ``_phys``: a plain tensor, one leading dimension per level in ``_levels``."""
    __slots__ = ("_phys", "_levels")
    _grad_fn = None                   # (its history is its physical tensor's: see grad_fn)

    @property
    def _data(self):
        p = self._phys._data
        return _unread(p.shape[len(self._levels):], p.dtype)

    @_data.setter
    def _data(self, value):
        raise RuntimeError(IN_PLACE.format("x.data = ..."))

    @property
    def grad_fn(self):
        """As torch shows a tensor inside vmap: None where vmap is the innermost transform
        (grad(vmap(f)): the history is the whole batch's), its batch's where a grad
        transform runs inside it (vmap(grad(f)))."""
        return None if _vmap_innermost() else self._phys.grad_fn

    @property
    def requires_grad(self):
        """As torch says of a tensor inside vmap (see grad_fn)."""
        return self._phys.requires_grad and not _vmap_innermost()

    @requires_grad.setter
    def requires_grad(self, flag):
        raise RuntimeError(IN_PLACE.format("requires_grad"))

    @property
    def _version(self):
        return self._phys._version

    # -- in-place writes: the out-of-place result, batched, written into the whole batch --
    def _check_inplace(self):
        inplace.check_writable(self._phys)

    def _overwrite(self, result, count=1):
        """An in-place method's result (inplace.py computed it with the batch rules) written
        into this batch: its physical tensor takes the numbers and the history."""
        if any(lvl not in self._levels for lvl in levels_of(result)):
            raise RuntimeError(INPLACE_MORE)
        inplace.overwrite(self._phys, physical(result, self._levels), count)
        return self

    def _put(self, op, value, key=(Ellipsis,)):
        inplace.check_writable(self._phys)
        if any(lvl not in self._levels for lvl in levels_of(value)):
            raise RuntimeError(INPLACE_MORE)
        inplace.overwrite(self._phys, physical(op(self, value, key=key), self._levels))
        return self

    def masked_fill_(self, mask, value):
        """(inplace.py's reads the mask's numbers: here the out-of-place one, written.)"""
        inplace.check_writable(self._phys)
        return inplace.overwrite(self, self.masked_fill(mask, value))

    def _written_into(self, plain):
        """inplace.py: a batched value cannot be written into a tensor that is not."""
        raise RuntimeError(INPLACE_MORE)

    def register_hook(self, hook):
        """``hook`` sees one sample's gradient, as in torch: the hook on the physical
        tensor runs it under this tensor's levels (and one more for a batch of seeds)."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        levels, more, shape = self._levels, entries(self._levels), self.shape

        def on_the_batch(g):
            lead = tuple(g.shape[:g.ndim - len(levels) - len(shape)])
            with running(more, lead) as level:
                out = hook(seen(g, levels, level, lead))
                return None if out is None else as_physical(out, levels, shape, level, lead)
        return self._phys.register_hook(on_the_batch)

    @property
    def _tangent(self):
        return None

    def detach(self):
        return wrap(self._phys.detach(), self._levels)

    @property
    def data(self):
        return wrap(self._phys.data, self._levels)

    def contiguous(self, memory_format=None):
        return self                   # (a sample's layout is not seen under vmap)

    item = tolist = _refuse(ITEM)
    __bool__ = _refuse(CONTROL_FLOW)
    detach_ = _refuse(IN_PLACE, "detach_")
    retain_grad = _refuse(IN_PLACE, "retain_grad")
    numpy = __float__ = __int__ = __index__ = _refuse(VALUES)
    backward = _refuse("vmap: autograd_lab's vmap cannot call .backward() inside the function; "
                       "use al.func.grad or al.func.vjp, which compose with vmap")

    def __repr__(self):
        inner = repr(self._phys).replace("\n", "\n    ")
        return f"BatchedTensor(lvl={self._levels[-1]}, bdim=0, value=\n    {inner}\n)"


def _vmap_innermost():
    return bool(transforms) and transforms[-1] == "vmap"


def _refuse_writes():
    """The writes a batched tensor refuses: indexing assignment (x[0] = v), whose checks
    read the sample's numbers; every in-place method batches (BatchedTensor._overwrite)."""
    if "_writes_refused" in BatchedTensor.__dict__:
        return
    BatchedTensor.__setitem__ = _refuse(IN_PLACE, "x[key] = v")
    BatchedTensor._writes_refused = True


def wrap(phys, levels):
    """A batched tensor over ``levels`` (outermost first) of the plain tensor ``phys``,
    whose leading dimensions are those levels; ``phys`` itself when there are none."""
    if not levels:
        return phys
    b = object.__new__(BatchedTensor)
    b._phys, b._levels = phys, tuple(levels)
    return b


def is_batched(x):
    return type(x) is BatchedTensor


def levels():
    """The vmap levels active now, outermost first."""
    return tuple(entry[0] for entry in _stack)


def active():
    return bool(_stack)


def _size(level):
    for lvl, size, _ in _stack:
        if lvl == level:
            return size
    raise RuntimeError("vmap: a batched tensor was used outside the vmap that made it; "
                       "return it from the function instead")


def physical(x, want):
    """``x`` as a plain tensor whose leading dimensions are the levels ``want`` (sorted,
    outermost first): its own batch dimensions, and the others broadcast (a view, no
    copy).  ``x`` must not be batched over a level missing from ``want``."""
    if is_batched(x):
        p, have = x._phys, x._levels
    else:
        p, have = (x if isinstance(x, Tensor) else Tensor._make(np.asarray(x))), ()
    if have == tuple(want):
        return p
    missing = [lvl for lvl in have if lvl not in want]
    if missing:
        raise RuntimeError(f"vmap: internal error: a tensor batched over level {missing[0]} "
                           f"met a transform that does not know it")
    p = _ones_for_missing(p, have, want)
    sizes = tuple(_size(lvl) for lvl in want)
    if p.shape[:len(want)] != sizes:
        p = rules.expand(p, shape=sizes + p.shape[len(want):])
    return p


def _ones_for_missing(p, have, want):
    """``p`` (leading dims: the levels ``have``) reshaped to lead with the levels ``want``,
    a dimension of 1 for each level it lacks (a view)."""
    shape, k = [], 0
    for lvl in want:
        if k < len(have) and have[k] == lvl:
            shape.append(p.shape[k])
            k += 1
        else:
            shape.append(1)
    return rules.reshape(p, shape=tuple(shape) + p.shape[len(have):])


# -- running an op on batched inputs: the op's batch rule, or one call per sample ----------
def _op_name(op):
    """The row's name in the rules table (as torch's warning names its operator)."""
    for rows in ROWS.values():
        for name, o in rows.items():
            if o is op:
                return name
    return op.name


def _aligned(a, want, n):
    """An input with exactly the ``n`` batch dimensions of ``want`` in front (size 1 for the
    levels it lacks): batched tensors by reshaping, plain tensors and arrays by a 1 per level."""
    if type(a) is BatchedTensor:
        return a._phys if a._levels == want else _ones_for_missing(a._phys, a._levels, want)
    if type(a) is Tensor:
        return rules.reshape(a, shape=(1,) * n + a.shape)
    if type(a) is np.ndarray:
        return a.reshape((1,) * n + a.shape)
    return a


def _run(op, args, params):
    """``state.batching`` while vmap runs: an op with a batched input goes through its
    batch rule; NotImplemented (compute as usual) when no input is batched."""
    want = None
    for a in args:
        if type(a) is BatchedTensor:
            want = a._levels if want is None else tuple(sorted(set(want) | set(a._levels)))
    if want is None:
        for v in params.values():
            if type(v) is BatchedTensor:
                raise RuntimeError(VALUES)
        return NotImplemented
    n = len(want)
    phys = [_aligned(a, want, n) for a in args]
    rule = BATCH_RULES.get(op)
    if rule is None:
        out = _per_sample(op, phys, params, want, n)
    else:
        out = rule(op, n, *phys, **params)
    sizes = tuple(_size(lvl) for lvl in want)
    if out.shape[:n] != sizes:               # every input had a 1 there: spread it over the batch
        out = rules.expand(out, shape=sizes + out.shape[n:])
    return wrap(out, want)


# -- batch rules: how each row runs on a whole batch at once --------------------------------
# _run hands a rule the op, ``n`` and the inputs, every array input carrying ``n`` leading
# batch dimensions (size 1 where it is not batched); the rule runs the op ONCE and returns
# the output with the batch dimensions in front.  The op's own dimensions sit behind them,
# so a rule only has to turn the sample's dims into batch-safe ones.
BATCH_RULES = {}                      # row (an Op) -> its batch rule


def register(rule, *ops):
    """Give each of ``ops`` (rows of the rules table) the batch rule ``rule(op, n, *inputs,
    **params)``."""
    for op in ops:
        BATCH_RULES[op] = rule


def batch_rule(op):
    """The batch rule of a row, or None (then vmap calls it once per sample)."""
    return BATCH_RULES.get(op)


def _own(a, n):
    """The number of dimensions of one sample of ``a`` (its own, behind the batch)."""
    return np.ndim(a._data if isinstance(a, Tensor) else a) - n


def _padded(a, n, ndim):
    """``a``'s own dimensions padded with 1s to ``ndim``, behind its batch dims."""
    extra = ndim - _own(a, n)
    if extra <= 0 or not hasattr(a, "shape"):
        return a
    shape = a.shape[:n] + (1,) * extra + a.shape[n:]
    return rules.reshape(a, shape=shape) if isinstance(a, Tensor) else np.reshape(a, shape)


def broadcast(op, n, *args, **params):
    """Elementwise: pad every input's own dims to the output's; the batch dims broadcast."""
    ndim = max((_own(a, n) for a in args if hasattr(a, "shape")), default=0)
    return op(*[_padded(a, n, ndim) for a in args], **params)


def full(n, *args):
    """The inputs with their batch dims expanded to the batch's (ops that do not broadcast)."""
    sizes = np.broadcast_shapes(*[a.shape[:n] for a in args])
    return [a if a.shape[:n] == sizes else rules.expand(a, shape=sizes + a.shape[n:]) for a in args]


def _sample_dims(dim, ndim):
    """Dims of one sample (None: all of them) as negative indices: batch-safe."""
    if dim is None:
        return tuple(range(-ndim, 0))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(sorted(wrap_dim(d, ndim) for d in dims))


def reduction(op, n, x, dim=None, keepdim=False):
    """sum, mean, amax, ...: reduce the sample's dims, counted from the end."""
    return op(x, dim=_sample_dims(dim, _own(x, n)), keepdim=keepdim)


def _arg_reduction(op, n, x, dim=None, keepdim=False):
    """argmax/argmin: dim None is the flat index within the sample."""
    own = _own(x, n)
    if dim is None:
        out = op(rules.reshape(x, shape=x.shape[:n] + (-1,)), dim=-1, keepdim=False)
        return rules.reshape(out, shape=out.shape + (1,) * own) if keepdim else out
    return op(x, dim=_sample_dims(dim, own)[0], keepdim=keepdim)


def at_end(d, ndim):
    """A dimension of one sample (of ``ndim`` dims) counted from the end."""
    return d - ndim if d >= 0 else d


def _batch_matmul(op, n, a, b):
    """Vectors become matrices (and back); then matmul's own batch broadcasting does the
    rest.  A matrix that is not batched stays one matrix: the batch rides in a's rows."""
    la, lb = _own(a, n), _own(b, n)
    if lb == 2 and all(s == 1 for s in b.shape[:n]):
        return op(a, rules.reshape(b, shape=b.shape[n:]))
    a2 = rules.unsqueeze(a, -2) if la == 1 else a
    b2 = rules.unsqueeze(b, -1) if lb == 1 else b
    core = max(la, lb, 2)
    out = op(_padded(a2, n, core), _padded(b2, n, core))
    if lb == 1:
        out = rules.squeeze(out, -1)
    return rules.squeeze(out, -1 if la == 1 and lb == 1 else -2) if la == 1 else out


def _batch_write(op, n, x, values, key, lead=0):
    """x[key] = values (and its kin): x gets every batch dim, the key indexes behind them."""
    if isinstance(values, Tensor):
        x, values = full(n, x, values)
    else:
        x = rules.expand(x, shape=np.broadcast_shapes(x.shape[:n], np.shape(values)[:n]) + x.shape[n:])
    return op(x, values, key=key, lead=lead + n)


def _batch_pick(op, n, x, key, dim, keepdim, **params):
    """max(dim)'s values: the key's arrays index a sample's dims (the found indices may
    carry the batch dims in front: right-aligned, they broadcast); the batch dims get a
    range each.  (x.sort's row too, in more_rules.py: ``params`` are its own.)"""
    lead = tuple(np.arange(s).reshape((s,) + (1,) * (x.ndim - 1 - i)) for i, s in enumerate(x.shape[:n]))
    return op(x, key=lead + tuple(key), dim=dim + n, keepdim=keepdim or x.ndim == n, **params)


def _sample_shape(shape, own):
    """A reshape's shape for one sample of shape ``own``: -1 worked out, and torch's error
    when the numbers do not fit."""
    size, known = math.prod(own), math.prod(s for s in shape if s != -1)
    resolved = tuple(size // known if s == -1 and known else s for s in shape)
    if math.prod(resolved) != size:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return resolved


def _batch_squeeze(op, n, x, dim=None):
    """squeeze: the sample's dims of size 1 (never a batch dim of size 1), from the end."""
    own = x.shape[n:]
    if dim is None:
        return op(x, dim=tuple(i - len(own) for i, s in enumerate(own) if s == 1))
    if isinstance(dim, tuple):
        return op(x, dim=tuple(at_end(d, len(own)) for d in dim))
    return op(x, dim=at_end(dim, len(own)))


# elementwise: the batch broadcasts like any leading dimension
register(broadcast, rules.add, rules.sub, rules.mul, rules.div, rules.reciprocal, rules.neg,
         rules.pow, rules.pow_number, rules.maximum, rules.minimum, rules.where, rules.clamp,
         rules.clamp_tensor, rules.threshold_backward, rules.relu, rules.exp, rules.log,
         rules.log1p, rules.sqrt, rules.sin, rules.cos, rules.tanh, rules.sigmoid, rules.abs,
         rules.sign, rules.floor, rules.ceil, rules.round, rules.gt, rules.ge, rules.lt, rules.le,
         rules.eq, rules.ne, rules.logical_and, rules.logical_or, rules.logical_xor,
         rules.logical_not, rules.bitwise_and, rules.bitwise_or, rules.bitwise_not, rules.isnan,
         rules.isinf, rules.isfinite, rules.to, rules.clone, rules.grad_copy)
register(reduction, rules.sum, rules.mean, rules.norm, rules.amax, rules.amin)
register(_arg_reduction, rules.argmax, rules.argmin)
register(_batch_pick, rules.max_dim, rules.min_dim)
register(lambda op, n, x: reduction(rules.amax, n, x), rules.max_all)
register(lambda op, n, x: reduction(rules.amin, n, x), rules.min_all)
register(lambda op, n, x, shape: op(x, shape=x.shape[:n] + _sample_shape(shape, x.shape[n:])),
         rules.reshape, rules.view)
# (transpose's dims are stored negative, so they are batch-safe as they are)
register(lambda op, n, x, dim0, dim1: op(x, dim0=at_end(dim0, _own(x, n)), dim1=at_end(dim1, _own(x, n))),
         rules.transpose, rules.transpose2d)
register(lambda op, n, x, dims: op(x, dims=dims), rules.permute)
register(lambda op, n, x, dim: op(x, dim=at_end(dim, _own(x, n) + 1)), rules.unsqueeze)
register(_batch_squeeze, rules.squeeze)
register(lambda op, n, x, shape: op(_padded(x, n, len(shape)), shape=shape), rules.expand)
register(lambda op, n, x, shape, lead=0: op(x, shape=shape, lead=lead + n), rules.sum_to)
register(lambda op, n, x, key, lead=0: op(x, key=key, lead=lead + n), rules.index, rules.as_strided)
register(lambda op, n, g, shape, key, lead=0: op(g, shape=shape, key=key, lead=lead + n), rules.scatter)
register(_batch_write, rules.index_put, rules.copy_slices, rules.masked_fill, rules.fill, rules.zero, rules.copy)
register(lambda op, n, *xs, dim=0: op(*full(n, *xs), dim=at_end(dim, _own(xs[0], n))), rules.cat)
register(lambda op, n, *xs, dim=0: op(*full(n, *xs), dim=at_end(dim, _own(xs[0], n) + 1)), rules.stack)
register(_batch_matmul, rules.matmul)


def _warn_once(name):
    if name not in _warned:
        _warned.add(name)
        warnings.warn(f"There is a performance drop because we have not yet implemented the "
                      f"batching rule for {name}. Please file us an issue on GitHub so that we "
                      f"can prioritize its implementation.", UserWarning, stacklevel=5)


def _per_sample(op, phys, params, want, n):
    """The fallback: one call of the op per sample, the results stacked."""
    _warn_once(_op_name(op))
    sizes = tuple(_size(lvl) for lvl in want)
    total = math.prod(sizes)
    flat = []
    for a in phys:
        if isinstance(a, (Tensor, np.ndarray)):
            own = a.shape[n:]
            if isinstance(a, Tensor):
                a = rules.reshape(rules.expand(a, shape=sizes + own), shape=(total,) + own)
            else:
                a = np.broadcast_to(a, sizes + own).reshape((total,) + own)
            flat.append((True, a))
        else:
            flat.append((False, a))
    outs = [op(*[rules.index(a, key=(i,)) if batched and isinstance(a, Tensor) else
                 a[i] if batched else a for batched, a in flat], **params)
            for i in range(total)]
    out = rules.stack(*outs, dim=0)
    return rules.reshape(out, shape=sizes + out.shape[1:])


def numbers(x):
    """The numbers of ``x``: for a batched tensor, those of every sample (its physical
    array, batch dimensions in front).  For the shell's checks that hold entry by entry
    (a class index in range, a probability in [0, 1]): run on the whole batch at once,
    they refuse what a check of each sample would refuse."""
    return x._phys._data if type(x) is BatchedTensor else x._data


def reads_values(name):
    """For a function of the shell that reads its inputs' numbers in Python in a way
    that differs from sample to sample (cross_entropy's label smoothing divides by the
    count of each sample's kept targets): with a batched input inside vmap it runs once
    per sample, with the fallback's warning naming ``name``, instead of reading the
    numbers of a whole batch as one sample's.  (A check that holds entry by entry reads
    :func:`numbers` instead, and stays vectorized.)"""
    return functools.partial(_reads_values, name=name)


def _reads_values(fn, name):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if state.batching is None:
            return fn(*args, **kwargs)
        want = levels_of(*args, *kwargs.values())
        if not want:
            return fn(*args, **kwargs)
        _warn_once(name)
        sizes = tuple(_size(lvl) for lvl in want)
        total = math.prod(sizes)

        def flat(a):
            if not is_batched(a):
                return None
            p = physical(a, want)
            return rules.reshape(p, shape=(total,) + p.shape[len(want):])
        flats = [flat(a) for a in args]
        kflats = {k: flat(v) for k, v in kwargs.items()}
        outs = []
        for i in range(total):
            call = [a if f is None else rules.index(f, key=(i,)) for a, f in zip(args, flats)]
            kcall = {k: v if kflats[k] is None else rules.index(kflats[k], key=(i,))
                     for k, v in kwargs.items()}
            outs.append(fn(*call, **kcall))
        if isinstance(outs[0], tuple):            # (values, indices): each stacked
            parts = [_stacked([o[k] for o in outs], sizes, want) for k in range(len(outs[0]))]
            return type(outs[0])(*parts) if hasattr(outs[0], "_fields") else tuple(parts)
        return _stacked(outs, sizes, want)
    return wrapper


def _stacked(outs, sizes, want):
    out = rules.stack(*outs, dim=0)
    return wrap(rules.reshape(out, shape=sizes + out.shape[1:]), want)


# -- vmap itself ------------------------------------------------------------------------
def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _leaves(tree):
    """(flat list of leaves, structure) of nested tuples, lists and dicts."""
    if isinstance(tree, (tuple, list)):
        flat, specs = [], []
        for v in tree:
            f, s = _leaves(v)
            flat += f
            specs.append(s)
        return flat, (type(tree), specs)
    if isinstance(tree, dict):
        flat, specs = [], []
        for k, v in tree.items():
            f, s = _leaves(v)
            flat += f
            specs.append((k, s))
        return flat, (dict, specs)
    return [tree], None


def _rebuild(spec, flat):
    it = iter(flat)

    def build(s):
        if s is None:
            return next(it)
        kind, parts = s
        if kind is dict:
            return {k: build(p) for k, p in parts}
        items = [build(p) for p in parts]
        return kind(*items) if hasattr(kind, "_fields") else kind(items)
    return build(spec)


def _spec_text(spec):
    """A structure as torch prints a TreeSpec's leaves: * for a leaf."""
    if spec is None:
        return "*"
    kind, parts = spec
    inner = ", ".join(_spec_text(p[1] if kind is dict else p) for p in parts)
    return {tuple: f"({inner})", list: f"[{inner}]", dict: f"{{{inner}}}"}.get(kind, f"({inner})")


def _broadcast_dims(dims, spec):
    """The in_dims/out_dims for each leaf of ``spec``: an int or None applies to a whole
    subtree; a tuple must match the structure.  None if they do not match."""
    if dims is None or isinstance(dims, int):
        return [dims] * _count(spec)
    if spec is None:
        return None
    kind, parts = spec
    if not isinstance(dims, (tuple, list)) or kind is dict or len(dims) != len(parts):
        return None
    out = []
    for d, p in zip(dims, parts):
        got = _broadcast_dims(d, p)
        if got is None:
            return None
        out += got
    return out


def _count(spec):
    if spec is None:
        return 1
    return sum(_count(p[1] if spec[0] is dict else p) for p in spec[1])


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``vmap(func)(*args)``: ``func`` written for one sample, run on a batch: each input is
    split along its ``in_dims`` entry (an int, or None: the same for every sample; nested
    tuples follow the inputs' structure), and each output gets the batch at ``out_dims``.
    Vectorized: every operation runs once on the whole batch (its row's batch rule).
    ``chunk_size``: run that many samples at a time.  ``randomness``: "error" (random
    functions inside raise), "same" (one draw shared by the batch) or "different"."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    def wrapped(*args, **kwargs):
        name = _name(func)
        _check_out_dims(out_dims, name)
        if not isinstance(in_dims, (int, tuple)):
            raise ValueError(f"vmap({name}, in_dims={repr(in_dims)}, ...)(<inputs>): expected "
                             f"`in_dims` to be int or a (potentially nested) tuple matching the "
                             f"structure of inputs, got: {type(in_dims)}.")
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                             "inputs, or you are trying to vmap over a function with no inputs. "
                             "The latter is unsupported.")
        flat, spec = _leaves(args)
        dims = _broadcast_dims(in_dims, spec)
        if dims is None:
            raise _incompatible(f"vmap({name}, in_dims={repr(in_dims)}, ...)(<inputs>)",
                                "in_dims", in_dims, "inputs", spec)
        dims = list(dims)
        for i, (a, d) in enumerate(zip(flat, dims)):
            where = f"vmap({name}, in_dims={repr(in_dims)}, ...)(<inputs>)"
            if d is not None and not isinstance(d, int) or isinstance(d, bool):
                raise ValueError(f"{where}: Got in_dim={d} for an input but in_dim must be either "
                                 "an integer dimension or None.")
            if d is not None and not isinstance(a, Tensor):
                raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type "
                                 f"{type(a)}. We cannot vmap over non-Tensor arguments, please use "
                                 "None as the respective in_dim")
            if d is not None and not -a.dim() <= d < a.dim():
                raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a "
                                 f"Tensor of dimensionality {a.dim()} so expected in_dim to satisfy "
                                 f"-{a.dim()} <= in_dim < {a.dim()}.")
            if d is not None and d < 0:
                dims[i] = d % a.dim()
        sizes = [a.shape[d] for a, d in zip(flat, dims) if d is not None]
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if any(s != sizes[0] for s in sizes):
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        size = sizes[0]
        if chunk_size is None or chunk_size >= size:
            return _call(func, name, flat, dims, spec, size, kwargs)
        pieces = []
        for start in range(0, size, chunk_size):
            stop = min(start + chunk_size, size)
            part = [a if d is None else _slice(a, d, start, stop) for a, d in zip(flat, dims)]
            pieces.append(_call(func, name, part, dims, spec, stop - start, kwargs))
        return _join(pieces, out_dims, name)

    def _call(func_, name, flat, dims, spec, size, kwargs):
        _refuse_writes()
        level = next(_numbers)
        batched = [a if d is None else _enter(a, d, level) for a, d in zip(flat, dims)]
        _stack.append([level, size, randomness])
        before = state.batching
        state.batching = _run
        try:
            with transform("vmap"):
                out = func_(*_rebuild(spec, batched), **kwargs)
        finally:
            _stack.pop()
            state.batching = before
        return _leave(out, level, size, name)

    def _leave(out, level, size, name):
        outs, ospec = _leaves(out)
        odims = _output_dims(out, ospec, out_dims, name)
        done = []
        for o, d in zip(outs, odims):
            if d is None:
                if is_batched(o) and level in o._levels:
                    raise ValueError(f"vmap({name}, ...): `{name}` can not return a "
                                     f"BatchedTensor when out_dim is None")
                done.append(o)
                continue
            if not isinstance(o, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got "
                                 f"type {type(o)}. Did you mean to set out_dims= to None for output?")
            done.append(_exit(o, level, size, d))
        return _rebuild(ospec, done)

    wrapped.__name__ = f"vmap({_name(func)})"
    wrapped._al_internal = getattr(func, "_al_internal", False)
    return wrapped


def _check_out_dims(out_dims, name):
    flat, _ = _leaves(out_dims) if not isinstance(out_dims, int) else ([out_dims], None)
    for d in flat:
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise ValueError(f"vmap({name}, ..., out_dims={repr(out_dims)}): `out_dims` must "
                             "be an int, None or a python collection of ints representing where in "
                             "the outputs the vmapped dimension should appear.")


def _slice(a, d, start, stop):
    return rules.index(a, key=(slice(None),) * d + (slice(start, stop),))


def _output_dims(out, ospec, out_dims, name):
    """out_dims for each output (torch's rule: a single tensor takes an int, None or a
    1-tuple), or torch's error."""
    if isinstance(out, Tensor):
        odims = [out_dims] if isinstance(out_dims, int) or out_dims is None else \
            list(out_dims) if isinstance(out_dims, tuple) and len(out_dims) == 1 else None
    else:
        odims = _broadcast_dims(out_dims, ospec)
    if odims is None:
        raise _incompatible(f"vmap({name}, ..., out_dims={repr(out_dims)})(<inputs>)",
                            "out_dims", out_dims, "outputs", ospec)
    return odims


def _incompatible(where, which, dims, what, spec):
    return ValueError(f"{where}: {which} is not compatible with the structure of `{what}`. "
                      f"{which} has structure {_spec_text(_leaves(dims)[1])} but {what} has "
                      f"structure {_spec_text(spec)}.")


def _join(pieces, out_dims, name):
    """chunk_size: the chunks' outputs joined along their batch dimension."""
    first, spec = _leaves(pieces[0])
    odims = _output_dims(pieces[0], spec, out_dims, name)
    flats = [_leaves(p)[0] for p in pieces]
    return _rebuild(spec, [first[i] if d is None else
                           rules.cat(*[f[i] for f in flats], dim=d % first[i].ndim)
                           for i, d in enumerate(odims)])


def _enter(a, d, level):
    """Input ``a`` batched over the new (innermost) level along its own dimension ``d``."""
    if is_batched(a):
        k = len(a._levels)
        p = a._phys
        if d != 0:
            order = list(range(p.ndim))
            order.insert(k, order.pop(k + d))
            p = rules.permute(p, dims=tuple(order))
        return wrap(p, a._levels + (level,))
    if d != 0:
        order = list(range(a.ndim))
        order.insert(0, order.pop(d))
        a = rules.permute(a, dims=tuple(order))
    return wrap(a, (level,))


def _exit(o, level, size, d):
    """Output ``o`` with the batch of ``level`` moved out to its own dimension ``d``."""
    if is_batched(o) and level in o._levels:
        k = o._levels.index(level)
        rest = tuple(lvl for lvl in o._levels if lvl != level)
        p = o._phys
    else:                                  # not batched over this level: the same for every sample
        rest = o._levels if is_batched(o) else ()
        p = o._phys if is_batched(o) else o
        k = len(rest)
        p = rules.expand(rules.unsqueeze(p, dim=k), shape=p.shape[:k] + (size,) + p.shape[k:])
    own = p.ndim - len(rest) - 1
    if not -(own + 1) <= d < own + 1:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-(own + 1)}, {own}], "
                         f"but got {d})")
    target = len(rest) + (d % (own + 1))
    order = list(range(p.ndim))
    order.insert(target, order.pop(k))
    if order != list(range(p.ndim)):
        p = rules.permute(p, dims=tuple(order))
    return wrap(p, rest)


# -- random functions inside vmap ------------------------------------------------------------
RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use "
                "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                "operation out of vmap")


def random_shape(shape):
    """For the random functions of creation.py: (shape to draw, levels to batch it over).
    Outside vmap, or with randomness="same", the shape as asked; "different" draws one
    sample per batch entry; "error" (torch's default) refuses."""
    if not _stack:
        return tuple(shape), ()
    mode = _stack[-1][2]
    if mode == "error":
        raise RuntimeError(RANDOM_ERROR)
    if mode == "same":
        return tuple(shape), ()
    want = tuple(lvl for lvl, _, m in _stack if m == "different")
    return tuple(_size(lvl) for lvl in want) + tuple(shape), want


@contextlib.contextmanager
def suspended():
    """No vmap level active inside (a transform working on physical tensors); yields the
    levels, for :func:`restored` to put back around the user's function."""
    saved = _stack[:]
    del _stack[:]
    try:
        yield saved
    finally:
        _stack[:] = saved


@contextlib.contextmanager
def hidden(levels):
    """The vmap levels ``levels`` out of sight inside (a forward pass carries them in its
    tangents, not in batched tensors: see func._batched_jvp)."""
    saved = _stack[:]
    _stack[:] = [entry for entry in saved if entry[0] not in levels]
    try:
        yield
    finally:
        _stack[:] = saved


@contextlib.contextmanager
def restored(saved):
    inner = _stack[:]
    before = state.batching
    _stack[:] = saved + inner
    state.batching = _run if _stack else before
    try:
        yield
    finally:
        _stack[:] = inner
        state.batching = before


def in_front(x, extra, levels):
    """``x`` as a plain tensor with the levels ``extra`` (newer than ``levels``) merged into
    ONE leading dimension, then ``levels``: a batch of seeds or tangents for a graph
    recorded over ``levels``.  Returns (tensor, sizes of the extra levels)."""
    both = tuple(sorted(extra + levels))
    p = physical(x, both)
    order = [both.index(lvl) for lvl in extra] + [both.index(lvl) for lvl in levels]
    order += list(range(len(both), p.ndim))
    if order != list(range(p.ndim)):
        p = rules.permute(p, dims=tuple(order))
    sizes = p.shape[:len(extra)]
    return rules.reshape(p, shape=(math.prod(sizes),) + p.shape[len(extra):]), sizes


def from_front(t, extra, sizes, levels):
    """The inverse of :func:`in_front`: a batched tensor over ``extra`` and ``levels``."""
    both = tuple(sorted(extra + levels))
    t = rules.reshape(t, shape=tuple(sizes) + t.shape[1:])
    now = list(extra) + list(levels)
    order = [now.index(lvl) for lvl in both] + list(range(len(both), t.ndim))
    if order != list(range(t.ndim)):
        t = rules.permute(t, dims=tuple(order))
    return wrap(t, both)


def levels_of(*xs):
    """The levels any of ``xs`` is batched over, outermost first."""
    found = set()
    for x in xs:
        if is_batched(x):
            found.update(x._levels)
    return tuple(sorted(found))


@contextlib.contextmanager
def transform(kind):
    """While a transform (``kind``; None: none) runs the user's function: see ``transforms``."""
    if kind is None:
        yield
        return
    transforms.append(kind)
    try:
        yield
    finally:
        transforms.pop()


# -- what a custom autograd.Function needs of vmap (autograd/function.py) --------------------
def innermost():
    """(level, batch size, randomness) of the innermost live level, or None."""
    return tuple(_stack[-1]) if _stack else None


def entries(levels):
    """The live levels ``levels`` as :func:`live` makes them live again: a Function's
    node keeps them, for its backward to run as its forward ran."""
    return tuple((lvl, size, mode) for lvl, size, mode in _stack if lvl in levels)


@contextlib.contextmanager
def live(more):
    """The levels of ``more`` (from :func:`entries`) live inside, with those live already:
    the batched tensors a Function's forward saved can be computed with again."""
    saved, before = _stack[:], state.batching
    have = {entry[0] for entry in saved}
    _stack[:] = sorted(saved + [list(e) for e in more if e[0] not in have], key=lambda e: e[0])
    state.batching = _run if _stack else before
    try:
        yield
    finally:
        _stack[:] = saved
        state.batching = before


@contextlib.contextmanager
def new_level(size):
    """A fresh innermost level of ``size`` live inside; yields its number.  A Function's
    backward given a batch of gradients (jacrev's one-hot rows) runs under it, as torch
    runs it under vmap: it sees one gradient, never the batch."""
    level = next(_numbers)
    with live([(level, size, "error")]):
        yield level


@contextlib.contextmanager
def running(more, lead):
    """The levels of ``more`` (from :func:`entries`) live, and for a batch in front of the
    gradients or tangents at hand (``lead``, its shape) a new innermost level over it;
    yields that level (None without).  A Function's backward or jvp, or a hook on a
    batched tensor, runs so: on the batched tensors :func:`seen` makes, one sample each."""
    with live(more):
        if not lead:
            yield None
            return
        with new_level(math.prod(lead)) as level:
            yield level


def seen(t, levels, level, lead):
    """A plain tensor of a gradient or tangent (``lead`` in front, then ``levels``) as the
    user's code sees it: batched over ``levels`` and over ``level`` (:func:`running`)."""
    if level is None:
        return wrap(t, levels)
    t = rules.reshape(t, shape=(math.prod(lead),) + t.shape[len(lead):])
    return from_front(t, (level,), (t.shape[0],), levels)


def as_physical(r, levels, shape, level, lead):
    """What the user's code returned for a tensor batched over ``levels`` of shape
    ``shape``, as a plain tensor again (the inverse of :func:`seen`): summed over the
    levels that tensor does not have, and to its shape where it broadcast (ValueError
    where it cannot be), then the batch ``lead`` in front."""
    keep = levels + ((level,) if level is not None else ())
    r = sum_levels(r, keep)
    if tuple(r.shape) != tuple(shape):
        r = rules.sum_to(r, shape=tuple(shape))
    if level is None:
        return physical(r, levels)
    p, _ = in_front(r, (level,), levels)
    return rules.reshape(p, shape=tuple(lead) + p.shape[1:])


def unwrap_level(x, level):
    """(x seen outside ``level``, the innermost live level, with that batch as its
    dimension 0; 0) if x is batched over it, else (x, None): what a Function's ``vmap``
    staticmethod gets, with its in_dim."""
    if is_batched(x) and x._levels[-1] == level:
        return wrap(x._phys, x._levels[:-1]), 0
    return x, None


def add_level(x, dim, level):
    """x batched over ``level`` (the innermost) along its own dimension ``dim``: what a
    Function's ``vmap`` staticmethod returned, with its out_dim."""
    own = x.ndim
    if not -own <= dim < own:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-own}, {own - 1}], "
                         f"but got {dim})")
    return _enter(x, dim % own, level)


def sum_levels(x, keep):
    """``x`` batched over no level outside ``keep``: summed over the others (the gradient
    of an input that was not batched over them)."""
    if not is_batched(x):
        return x
    drop = tuple(i for i, lvl in enumerate(x._levels) if lvl not in keep)
    if not drop:
        return x
    return wrap(rules.sum(x._phys, dim=drop), tuple(lvl for lvl in x._levels if lvl in keep))


def map_outputs(out, out_dims, fn):
    """``out`` (a tensor, or tuples, lists and dicts of them) rebuilt with ``fn(leaf,
    out_dim)`` for each leaf, ``out_dims`` following its structure as vmap's do; None if
    they do not fit it."""
    flat, spec = _leaves(out)
    dims = _broadcast_dims(out_dims, spec)
    if dims is None:
        return None
    return _rebuild(spec, [fn(o, d) for o, d in zip(flat, dims)])


def treespec_text(tree):
    """The structure of ``tree`` as torch prints a pytree's TreeSpec (``*`` for a leaf)."""
    def text(spec, indent):
        if spec is None:
            return "*"
        kind, parts = spec
        context = [k for k, _ in parts] if kind is dict else kind.__name__ if hasattr(kind, "_fields") else None
        children = [p for _, p in parts] if kind is dict else parts
        inner = ",".join(("" if i == 0 else "\n" + " " * (indent + 2)) + text(c, indent + 2)
                         for i, c in enumerate(children))
        return f"TreeSpec({kind.__name__}, {context}, [{inner}])"
    return text(_leaves(tree)[1], 0)
