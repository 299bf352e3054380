"""The rules table: the operations the walk and the book's story rest on.

Arithmetic, selection, elementwise functions, reductions, shapes, indexing and writes,
matmul.  The shell adds rows of its own, built the same way on these: torch's other tensor
functions in ``more_rules.py`` and nn's losses in ``nn/loss_rules.py`` (``rulebook`` shows
them after these), and nn's layers in ``nn/layer_rules.py``.

Each entry is one :class:`~autograd_lab.core.recording.Op`:

* a **forward** on NumPy arrays;
* a **VJP rule** per input, ``(g, y, *inputs) -> gradient for that input``: ``g`` is the
  gradient arriving at the output ``y`` (dL/dy); the rule returns g times the
  Jacobian of y with respect to that input (dL/dinput);
* a **JVP rule** per input, ``(t, y, *inputs) -> tangent of y``: what a small change
  ``t`` of that input does to the output, for forward mode.

Rules are written with the operations of this table, so a rule applied to tensors is
itself recorded, and second derivatives come for free.  Rules only see the output's
own shape; the engine sums a gradient back to a broadcast input's shape
(``sum_to``) and handles a leading batch of seeds, so every rule reads right-aligned:
``g`` may carry extra leading dimensions (one per batched seed) and rules index axes
from the end.
"""
import math

import numpy as np

from . import dtypes
from .checks import check_masks, dense, index_key, key_dims, matmul_error, wrap_dim
from .recording import ROWS, Op, name_by_call, register
from .tensor import Tensor, install


# -- helpers the rules share -------------------------------------------------------
def _neg_dims(dim, ndim):
    """Dimensions as negative indices, so they still point at the right axes when a
    batch of seeds adds leading dimensions."""
    if dim is None:
        return tuple(range(-ndim, 0))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(sorted(wrap_dim(d, ndim) for d in dims))


def _lead(g, y):
    """The batch dimensions a gradient carries in front of its tensor's shape."""
    return g.shape[:g.ndim - y.ndim]


def _unreduce(g, x, dim, keepdim):
    """Spread a reduction's gradient back over the reduced input's shape."""
    if not keepdim and g.ndim:         # put the reduced dims back (a 0-d g broadcasts as it is)
        dims = _neg_dims(dim, x.ndim)
        if dims:
            g = unsqueeze(g, dims)
    return expand(g, x.shape)


def _zeros_like(g):
    """A gradient of zeros shaped like g, as torch's zeros_like(grad): not g * 0, which is
    NaN where g is inf or NaN.  It depends on nothing, so it is never recorded."""
    data = g._data if isinstance(g, Tensor) else g
    return np.zeros(data.shape, data.dtype)


def _routed(g, share, elsewhere=None):
    """g * share, with exact zeros where the gradient went ``elsewhere`` (by default where
    a boolean ``share`` is False): there g * 0 would be NaN if g is inf or NaN, and torch's
    rules fill in 0."""
    r = g * share
    if isinstance(r, Tensor):
        return where(~share if elsewhere is None else elsewhere, 0.0, r)
    if np.isnan(np.minimum.reduce(r, axis=None)):   # (NaN anywhere makes the minimum NaN: one pass,
        #                                        with no sum to round; 2.5x faster than add.reduce)
        r = np.array(r)                 # (a fresh array: a 0-d product is a NumPy number)
        np.copyto(r, 0, where=~share if elsewhere is None else elsewhere)
    return r


# the helpers the shell's row modules share with these rows (math_rules.py, index_rules.py),
# under public names
neg_dims, unreduce, zeros_like_grad = _neg_dims, _unreduce, _zeros_like


def symmetric(*rules):
    """The rules of a row whose VJP and JVP are one expression per input, because that
    input's Jacobian is its own transpose: diagonal for an elementwise op (broadcasting
    aside: the walk sums a gradient back to its input's shape, a tangent broadcasts
    forward), symmetric for softmax, a swap of two dimensions for transpose.  Each rule is
    written once, in ``g``, and is linear in it: applied to a gradient it is the VJP, to a
    tangent the JVP (the rulebook prints it with ``t``)."""
    return {"vjp": rules, "jvp": rules}


# -- arithmetic (inputs are promoted to a common dtype, as in torch) --------------------
add = Op("AddBackward0", np.add,
         **symmetric(lambda g, y, a, b: g,
                     lambda g, y, a, b: g),
         saves=False, promote=True, into=True)

sub = Op("SubBackward0", np.subtract,
         **symmetric(lambda g, y, a, b: g,
                     lambda g, y, a, b: -g),
         saves=False, promote=True, into=True)

mul = Op("MulBackward0", np.multiply,
         **symmetric(lambda g, y, a, b: g * b,
                     lambda g, y, a, b: g * a),
         promote=True, saves="others", into=True)

div = Op("DivBackward0", np.true_divide,
         **symmetric(lambda g, y, a, b: g / b,
                     lambda g, y, a, b: -g * a / (b * b)),
         promote=True,
         floating=True, saves="inputs", into=True)

reciprocal = Op("ReciprocalBackward0", np.reciprocal,
                **symmetric(lambda g, y, x: -g * y * y),
                floating=True, saves="output")

def _neg_forward(x):
    if x.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(x)


neg = Op("NegBackward0", _neg_forward,
         **symmetric(lambda g, y, x: -g),
         saves=False)


def _pow_base(g, y, a, b):
    # d(a^b)/da = b a^(b-1); torch defines it as 0 where b == 0 (even at a == 0)
    if isinstance(b, (int, float)):
        if b == 0:
            return _zeros_like(g)
        return g * b * (a if b == 2 else pow_number(a, b - 1))   # a ** 1 is a: no power to compute
    return where(b == 0, 0.0, g * b * a ** (b - 1))


def _pow_exponent(g, y, a, b):
    # d(a^b)/db = a^b log(a); torch defines it as 0 where a == 0 and b >= 0, and multiplies
    # g by that (so a NaN g stays NaN there, and so does a second derivative through log(0))
    return g * where((a == 0) & (b >= 0), 0.0, y * log(a))


def _pow_forward(a, b):
    if isinstance(b, np.ndarray) and b.dtype == np.bool_ and np.asarray(a).dtype == np.bool_:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if np.asarray(a).dtype.kind in "biu" and np.asarray(b).dtype.kind in "biu" and np.any(np.asarray(b) < 0):
        return _int_pow(np.asarray(a), np.asarray(b))
    if type(b) is float and b == -0.5:   # torch takes 1 / sqrt(a) (so -0.0 gives -inf)
        return 1 / np.sqrt(a)
    return a ** b                     # NumPy's ** squares for 2 and takes sqrt for 0.5, as torch does


def _int_pow(a, b):
    """Integers to integer powers with some negative: NumPy refuses; torch gives a^b where
    b >= 0 and, where b < 0, 1/a^|b| rounded toward zero: 1 for a == 1, ±1 for a == -1, else 0."""
    out = a ** np.maximum(b, 0)
    at_negative = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 0, 1, -1), 0))
    return np.where(b < 0, at_negative, out).astype(out.dtype)


pow = Op("PowBackward1", _pow_forward,
         **symmetric(_pow_base, _pow_exponent),
         promote=True)

# a tensor to a number's power: the rules read the tensor only (so x ** 2 then an in-place
# change of the result is fine, as in torch)
pow_number = Op("PowBackward0", _pow_forward,
                **symmetric(_pow_base, None),
                promote=True, saves="inputs")


def _max_share(a, b):
    """a's share of maximum(a, b)'s gradient, as torch: all of it where b is not larger --
    also where either is NaN, as NaN compares false -- and half where they tie."""
    return ~(a < b) + (a == b) * -0.5


def _max_pick(a, b):
    """a's share of maximum(a, b)'s tangent: torch's forward rule is not its backward rule
    at a NaN, where the tangent of b alone goes through."""
    return (a > b) + (a == b) * 0.5


maximum = Op("MaximumBackward0", np.maximum,
             vjp=(lambda g, y, a, b: _routed(g, _max_share(a, b), a < b),
                  lambda g, y, a, b: _routed(g, _max_share(b, a), b < a)),
             jvp=(lambda t, y, a, b: t * _max_pick(a, b),
                  lambda t, y, a, b: t * (1 - _max_pick(a, b))),
             promote=True, saves="inputs")

minimum = Op("MinimumBackward0", np.minimum,
             vjp=(lambda g, y, a, b: _routed(g, _max_share(b, a), a > b),
                  lambda g, y, a, b: _routed(g, _max_share(a, b), b > a)),
             jvp=(lambda t, y, a, b: t * _max_pick(b, a),
                  lambda t, y, a, b: t * (1 - _max_pick(b, a))),
             promote=True, saves="inputs")


# -- selection: the mask routes the gradient, and gets none itself -----------------
where = Op("WhereBackward0", np.where,
           **symmetric(None,                                   # the condition: no gradient, ever
                       lambda g, y, mask, a, b: where(mask, g, 0.0),
                       lambda g, y, mask, a, b: where(mask, 0.0, g)),
           promote=1, saves=(0,))


def _clamp_forward(x, min=None, max=None):
    return np.clip(x, min, max)


def _clamp_pass(x, min, max):
    """1 where clamp passes x through (min <= x <= max), 0 where it clips."""
    inside = True
    if min is not None:
        inside = inside & (x >= min)
    if max is not None:
        inside = inside & (x <= max)
    return inside


clamp = Op("ClampBackward1", _clamp_forward,
           **symmetric(lambda g, y, x, min=None, max=None: _routed(g, _clamp_pass(x, min, max))),
           saves="inputs")


def _clamp_tensor_forward(x, min, max):
    return np.minimum(np.maximum(x, min), max) if min is not None and max is not None else \
        np.maximum(x, min) if min is not None else np.minimum(x, max)


def _clamp_min_share(x, min, max):
    """Where min decides the result: x below it (and, with a max too, min below max)."""
    return (x < min) & (min < max) if max is not None else x < min


def _clamp_max_share(x, min, max):
    """Where max decides: x above it, or max below min (max wins then, as in torch)."""
    return (x > max) | (max < min) if min is not None else x > max


# clamp with tensor bounds (ClampBackward0): each bound gets the gradient where it decided
clamp_tensor = Op("ClampBackward0", _clamp_tensor_forward,
                  **symmetric(lambda g, y, x, min, max: where(_clamp_pass(x, min, max), g, 0.0),
                              lambda g, y, x, min, max: where(_clamp_min_share(x, min, max), g, 0.0),
                              lambda g, y, x, min, max: where(_clamp_max_share(x, min, max), g, 0.0)),
                  promote=True, saves="inputs")


def _relu_forward(x):
    if x.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return np.maximum(x, 0)


def _threshold_backward_forward(g, y):
    """g where y > 0 (or is NaN, which relu passes on), else exactly 0: relu's output is 0
    exactly where it let nothing through, so one comparison finds where g goes."""
    return np.asarray(_routed(g, y != 0))


# relu's gradient is an operation of its own, as in torch.  Recorded under create_graph,
# it gives relu a second derivative of 0 (the mask does not move with y), not "does not
# require grad".
threshold_backward = Op("ThresholdBackwardBackward0", _threshold_backward_forward,
                        **symmetric(lambda gg, out, g, y: threshold_backward(gg, y),
                                    lambda gg, out, g, y: _zeros_like(gg)),
                        promote=True, saves="inputs")

relu = Op("ReluBackward0", _relu_forward,
          **symmetric(lambda g, y, x: threshold_backward(g, y)),
          saves="output")


# -- elementwise functions ------------------------------------------------------------
exp = Op("ExpBackward0", np.exp,
         **symmetric(lambda g, y, x: g * y),
         floating=True, saves="output", into=True)

log = Op("LogBackward0", np.log,
         **symmetric(lambda g, y, x: g / x),
         floating=True, saves="inputs", into=True)

log1p = Op("Log1PBackward0", np.log1p,          # log(1 + x), accurate for tiny x
           **symmetric(lambda g, y, x: g / (1 + x)),
           floating=True, saves="inputs", into=True)

sqrt = Op("SqrtBackward0", np.sqrt,
          **symmetric(lambda g, y, x: g / (2 * y)),
         floating=True, saves="output", into=True)

sin = Op("SinBackward0", np.sin,
         **symmetric(lambda g, y, x: g * cos(x)),
         floating=True, saves="inputs", into=True)

cos = Op("CosBackward0", np.cos,
         **symmetric(lambda g, y, x: -g * sin(x)),
         floating=True, saves="inputs", into=True)

tanh = Op("TanhBackward0", np.tanh,
          **symmetric(lambda g, y, x: g * (1 - y * y)),
          floating=True, saves="output", into=True)


def _sigmoid_into(x, out):
    """sigmoid's forward for sigmoid_ on a big tensor: the same operations in the same
    order (so the same numbers to the bit), in x's own memory instead of three new arrays.
    (Change the two together: tests/core/test_inplace.py compares them bit for bit.)"""
    np.negative(x, out=out)
    np.exp(out, out=out)
    np.add(out, 1, out=out)
    return np.true_divide(1, out, out=out)


sigmoid = Op("SigmoidBackward0", lambda x: 1 / (1 + np.exp(-x)),
             **symmetric(lambda g, y, x: g * (y * (1 - y))),
             floating=True, saves="output", into=_sigmoid_into)

def _no_bool(kernel, forward):
    """forward, refusing a bool tensor as torch's kernel does (it has none for bools)."""
    def checked(x):
        if x.dtype == np.bool_:
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
        return forward(x)
    return checked


abs = Op("AbsBackward0", _no_bool("abs_cpu", np.abs),
         **symmetric(lambda g, y, x: g * sign(x)),
         saves="inputs")

# piecewise-constant functions: derivative zero wherever it exists (a gradient of
# zeros, not none: the graph goes on, but nothing flows through)
def _flat(name, forward):
    return Op(name, forward, **symmetric(lambda g, y, x: _zeros_like(g)),
              saves=False)


def _sign_forward(x):
    if x.dtype == np.bool_:                           # NumPy has no sign of a bool; torch's is the bool
        return x.copy()
    s = np.sign(x)
    if s.dtype.kind == "f" and np.isnan(s).any():     # torch's sign of NaN is 0, NumPy's NaN
        s = np.where(np.isnan(s), 0, s)
    return s


sign, floor = _flat("SignBackward0", _sign_forward), _flat("FloorBackward0", _no_bool("floor_vml_cpu", np.floor))
ceil = _flat("CeilBackward0", _no_bool("ceil_vml_cpu", np.ceil))
round = _flat("RoundBackward0", _no_bool("round_vml_cpu", np.round))


# -- comparisons and logic: bool results, never differentiable ------------------------
def _compare(ufunc):
    return Op(ufunc.__name__, ufunc, promote=True, differentiable=False)


gt, ge, lt, le = _compare(np.greater), _compare(np.greater_equal), _compare(np.less), _compare(np.less_equal)
eq, ne = _compare(np.equal), _compare(np.not_equal)
logical_and, logical_or = _compare(np.logical_and), _compare(np.logical_or)
logical_xor = _compare(np.logical_xor)
logical_not = Op("logical_not", np.logical_not, differentiable=False)
def _bitwise(name, ufunc, promote):
    """Bits of bools and integers; torch has no bitwise operations on floats."""
    def forward(*arrays):
        dtype = np.result_type(*arrays)
        if dtype.kind == "f":
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dtypes.scalar_type_name(dtype)}\'')
        return ufunc(*arrays)
    return Op(name, forward, promote=promote, differentiable=False)


bitwise_and = _bitwise("bitwise_and", np.bitwise_and, promote=True)
bitwise_or = _bitwise("bitwise_or", np.bitwise_or, promote=True)
bitwise_not = _bitwise("bitwise_not", np.invert, promote=False)
isnan = Op("isnan", np.isnan, differentiable=False)
isinf = Op("isinf", np.isinf, differentiable=False)
isfinite = Op("isfinite", np.isfinite, differentiable=False)
argmax = Op("argmax", lambda x, dim=None, keepdim=False: np.argmax(x, axis=dim, keepdims=keepdim),
            differentiable=False)
argmin = Op("argmin", lambda x, dim=None, keepdim=False: np.argmin(x, axis=dim, keepdims=keepdim),
            differentiable=False)


# -- reductions -----------------------------------------------------------------------
def _sum_forward(x, dim=None, keepdim=False):
    # integers and bools sum to int64, as in torch
    return np.add.reduce(x, axis=_axes(dim), keepdims=keepdim,
                         dtype=np.int64 if x.dtype.kind in "biu" else None)


def _axes(dim):
    return tuple(dim) if isinstance(dim, list) else dim


sum = Op("SumBackward0", _sum_forward,
         vjp=(lambda g, y, x, dim=None, keepdim=False: _unreduce(g, x, dim, keepdim),),
         jvp=(lambda t, y, x, dim=None, keepdim=False: sum(t, _neg_dims(dim, x.ndim), keepdim),),
         saves=False)


def _share(y, x):
    """Each input entry's share of a mean: (entries out) / (entries in)."""
    n = math.prod(x.shape)
    return math.prod(y.shape) / n if n else 0.0


def _mean_forward(x, dim=None, keepdim=False):
    if x.dtype.kind != "f":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {dtypes.scalar_type_name(x.dtype)}")
    if x.size == 0:                       # NumPy warns about an empty mean; torch quietly gives nan
        return np.sum(x, axis=_axes(dim), keepdims=keepdim, dtype=x.dtype) * np.nan
    total = np.add.reduce(x, axis=_axes(dim), keepdims=keepdim)   # as np.mean, without its
    return total / (x.size // total.size)                          # Python-level wrapper


mean = Op("MeanBackward0", _mean_forward,
          vjp=(lambda g, y, x, dim=None, keepdim=False: _unreduce(g * _share(y, x), x, dim, keepdim),),
          jvp=(lambda t, y, x, dim=None, keepdim=False: mean(t, _neg_dims(dim, x.ndim), keepdim),),
          saves=False)


def _norm_forward(x, dim=None, keepdim=False):
    if x.dtype.kind not in "fc":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {dtypes.scalar_type_name(x.dtype)}")
    return np.sqrt(np.sum(x * x, axis=_axes(dim), keepdims=keepdim))


norm = Op("LinalgVectorNormBackward0", _norm_forward,
          # d|x|/dx = x / |x|, and torch's choice of 0 at x = 0
          vjp=(lambda g, y, x, dim=None, keepdim=False:
               _unreduce(where(y == 0, 0.0, g / y), x, dim, keepdim) * x,),
          jvp=(lambda t, y, x, dim=None, keepdim=False:
               where(y == 0, 0.0, sum(t * x, _neg_dims(dim, x.ndim), keepdim) / y),))


def _amax_share(x, y, dim, keepdim):
    """Where several entries share the maximum, they share its gradient evenly (a NaN
    maximum equals nothing: its gradient is NaN, as in torch)."""
    hit = x == _unreduce(y, x, dim, keepdim)
    return hit / _unreduce(sum(hit, _neg_dims(dim, x.ndim), keepdim), x, dim, keepdim)


def _spread_evenly(g, y, x, dim=None, keepdim=False):
    """x.max()'s gradient, as torch: shared evenly by the entries equal to the maximum --
    the NaN entries, if the maximum is NaN -- and exactly 0 elsewhere, whatever g is."""
    hit = isnan(x) if isnan(y) else x == y
    return _routed(_unreduce(g / sum(hit), x, None, False), hit, ~hit)


def _extreme(name, forward, vjp=None):
    return Op(name, lambda x, dim=None, keepdim=False: forward(x, axis=_axes(dim), keepdims=keepdim),
              vjp=(vjp or (lambda g, y, x, dim=None, keepdim=False:
                           _unreduce(g, x, dim, keepdim) * _amax_share(x, y, dim, keepdim)),),
              jvp=(lambda t, y, x, dim=None, keepdim=False:
                   sum(t * _amax_share(x, y, dim, keepdim), _neg_dims(dim, x.ndim), keepdim),))


# x.max(dim) / x.min(dim): the values at the indices argmax/argmin found (``key`` holds one
# index array per dimension); like torch, the whole gradient of a value goes to the one
# entry its index names, even when others tie with it
def _pick_forward(x, key, dim, keepdim):
    values = x[key]
    return values if keepdim or x.ndim == 0 else np.squeeze(values, dim)


def _pick_vjp(g, y, x, key, dim, keepdim):
    if not keepdim and x.ndim:        # dim counted from the end, so that a batch of seeds
        g = unsqueeze(g, dim - x.ndim)  # in front of g stays in front
    return scatter(g, shape=x.shape, key=key, lead=g.ndim - x.ndim)


def _pick_jvp(t, y, x, key, dim, keepdim):
    values = index(t, key=key, lead=t.ndim - x.ndim)
    return values if keepdim or x.ndim == 0 else squeeze(values, dim - x.ndim)


def _picked(name):
    return Op(name, _pick_forward, vjp=(_pick_vjp,), jvp=(_pick_jvp,), saves=False)


max_dim, min_dim = _picked("MaxBackward0"), _picked("MinBackward0")
amax, amin = _extreme("AmaxBackward0", np.amax), _extreme("AminBackward0", np.amin)
max_all = _extreme("MaxBackward1", np.amax, vjp=_spread_evenly)   # x.max(), x.min(): no dim
min_all = _extreme("MinBackward1", np.amin, vjp=_spread_evenly)


# -- shapes: these move numbers around, so their rules move gradients back --------------
def _reshape_forward(x, shape):
    try:
        return np.reshape(x, shape)
    except ValueError:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {x.size}") from None


def _reshape_name(args, p):
    """torch's reshape is a view of a contiguous tensor (ViewBackward0), a view with other
    strides where they can express the new shape (ReshapeAliasBackward0), else a copy
    (UnsafeViewBackward0)."""
    x = args[0]._data
    if x.flags.c_contiguous:
        return "ViewBackward0"
    probe = x.view()
    try:
        probe.shape = p["shape"]          # NumPy refuses when the strides cannot express it
    except (AttributeError, ValueError):
        return "UnsafeViewBackward0"
    return "ReshapeAliasBackward0"


reshape = Op("ViewBackward0", _reshape_forward,
             vjp=(lambda g, y, x, shape: reshape(g, _lead(g, y) + x.shape),),
             jvp=(lambda t, y, x, shape: reshape(t, _lead(t, x) + y.shape),),
             saves=False)
# x.view(shape): the same rules, and always a view (Tensor.view refuses the rest)
view = Op("ViewBackward0", _reshape_forward, vjp=reshape.vjp, jvp=reshape.jvp, saves=False)


def _swap(x, dim0, dim1):
    return x.swapaxes(dim0, dim1) if x.ndim else x[...]     # (a 0-d tensor: a view of itself)


# a swap of two dimensions is its own inverse: its rules are the swap again
transpose = Op("TransposeBackward0", _swap, **symmetric(lambda g, y, x, dim0, dim1: transpose(g, dim0, dim1)),
               saves=False)
transpose2d = Op("TBackward0", _swap, vjp=transpose.vjp, jvp=transpose.jvp, saves=False)   # x.t()


def _permute_forward(x, dims):
    lead = x.ndim - len(dims)
    return np.transpose(x, tuple(range(lead)) + tuple(lead + d % len(dims) for d in dims))


permute = Op("PermuteBackward0", _permute_forward,
             vjp=(lambda g, y, x, dims: permute(g, tuple(np.argsort([d % len(dims) for d in dims]))),),
             jvp=(lambda t, y, x, dims: permute(t, dims),),
             saves=False)

def _unsqueeze_forward(x, dim):
    """x with a dimension of 1 at ``dim`` (an int or a tuple of them): a view, as
    np.expand_dims makes, reshaped directly (the rules call this at every reduction's VJP)."""
    dims = dim if type(dim) is tuple else (dim,)
    ndim, shape = x.ndim + len(dims), list(x.shape)
    for d in sorted(d % ndim for d in dims):
        shape.insert(d, 1)
    return x.reshape(shape)


unsqueeze = Op("UnsqueezeBackward0", _unsqueeze_forward,
               vjp=(lambda g, y, x, dim: squeeze(g, dim),),
               jvp=(lambda t, y, x, dim: unsqueeze(t, dim),),
               saves=False)

def _ones(x, dim):
    """The dimensions among ``dim`` (an int or a tuple) of size 1: squeeze(d) passes over
    the others, as torch does."""
    if dim is None:
        return None
    return tuple(d for d in (dim if isinstance(dim, tuple) else (dim,)) if x.ndim and x.shape[d] == 1)


squeeze = Op("SqueezeBackward0", lambda x, dim=None: np.squeeze(x, _ones(x, dim))[...],   # a view, even of nothing squeezed
             vjp=(lambda g, y, x, dim=None: reshape(g, _lead(g, y) + x.shape),),
             jvp=(lambda t, y, x, dim=None: reshape(t, _lead(t, x) + y.shape),),
             saves=False)


def _expand_forward(x, shape):
    """Broadcast the trailing dimensions of x to ``shape``, keeping any extra leading ones."""
    lead = x.ndim - len(shape)
    if -1 in shape:                   # -1: keep that dimension's size
        shape = tuple(s if s != -1 else x.shape[lead + i] for i, s in enumerate(shape))
    shape = x.shape[:max(0, lead)] + tuple(shape)
    if x.ndim == 0:                   # a full reduction's gradient (every loss's): its one number
        view = np.ndarray(shape, x.dtype, buffer=x, strides=(0,) * len(shape))   # seen everywhere,
        view.flags.writeable = False  # the view np.broadcast_to makes, without its general checks
        return view
    return np.broadcast_to(x, shape)


def _expand_jvp(t, y, x, shape):
    lead = t.ndim - x.ndim
    if lead and x.ndim < len(shape):   # keep a batch of tangents in front of the new dims
        t = reshape(t, shape=t.shape[:lead] + (1,) * (len(shape) - x.ndim) + x.shape)
    return expand(t, shape=shape)


expand = Op("ExpandBackward0", _expand_forward,
            vjp=(lambda g, y, x, shape: sum_to(g, x.shape, lead=g.ndim - y.ndim),),
            jvp=(_expand_jvp,),
            saves=False)


def _sum_to_forward(x, shape, lead=0):
    """Sum x down to ``x.shape[:lead] + shape``: undo broadcasting, keep batch dims."""
    want = x.shape[:lead] + tuple(shape)
    extra = x.ndim - len(want)
    if extra > 0:                     # dimensions that broadcasting added in front of shape
        x = np.add.reduce(x, axis=tuple(range(lead, lead + extra)))
    if x.shape != want:               # dimensions of size 1 that broadcasting stretched
        ones = tuple(i for i in range(lead, x.ndim) if want[i] == 1 and x.shape[i] != 1)
        if ones:
            x = np.add.reduce(x, axis=ones, keepdims=True)
        if x.shape != want:
            raise ValueError(f"size {list(shape)} is not expandable to size {list(x.shape[lead:])}")
    return x


def _sum_to_vjp(g, y, x, shape, lead=0):
    middle = tuple(range(lead - x.ndim, -len(shape))) if x.ndim - lead > len(shape) else ()
    return expand(unsqueeze(g, middle) if middle else g, x.shape)


sum_to = Op("SumToSizeBackward0", _sum_to_forward,
            vjp=(_sum_to_vjp,),
            jvp=(lambda t, y, x, shape, lead=0: sum_to(t, shape, lead=t.ndim - x.ndim + lead),),
            saves=False)


def _ints_first(full):
    """torch applies integer indices before tensor indices; NumPy counts an int among the
    advanced indices, and moves the advanced dimensions to the front when a slice lies
    between them (x[1, :, [0, 2]] would come out transposed).  For a key with both, the
    (ints as basic indexing, the rest) to apply one after the other; else None."""
    if not (any(isinstance(k, (int, np.integer)) for k in full)
            and any(isinstance(k, np.ndarray) and k.ndim for k in full)):
        return None
    ints = tuple(k if isinstance(k, (int, np.integer)) or k is None or k is Ellipsis
                 else slice(None) for k in full)
    rest = tuple(slice(None) if k is None else k for k in full if not isinstance(k, (int, np.integer)))
    return ints, rest


def index_forward(x, key, lead=0):
    full = (slice(None),) * lead + key if lead else key
    split = _ints_first(full)
    try:
        out = x[full] if split is None else x[split[0]][split[1]]
    except IndexError as e:
        check_masks(x.shape, full)   # a mask of the wrong shape, in torch's words
        said = str(e)
        if " is out of bounds for axis " not in said:
            raise
        # an index past the end: NumPy's sentence with torch's word for an axis
        raise IndexError(said.replace(" for axis ", " for dimension ")) from None
    if type(out) is not np.ndarray:   # every dimension indexed by an int: NumPy gives a copied
        out = x[full + (Ellipsis,)]   # number; the trailing ... gives a 0-d view, as torch
    return out


def _index_name(args, p):
    """torch's name: basic indexing applies its parts left to right (an int selects, a
    slice that is not the whole dimension slices, None unsqueezes) and is named after the
    last one applied; nothing applied is an alias (x[...], x[:, :]), but a lone slice
    always slices (x[:]).  Any tensor or list among them: IndexBackward0."""
    key = p["key"]
    if any(isinstance(k, np.ndarray) for k in key):
        return "IndexBackward0"
    if len(key) == 1 and isinstance(key[0], slice):
        return "SliceBackward0"
    shape = args[0].shape[p.get("lead", 0):] if isinstance(args[0], Tensor) else ()
    last = "Alias"
    for k, sizes in key_dims(shape, key)[0]:
        if k is None:
            last = "Unsqueeze"
        elif isinstance(k, slice):
            n = sizes[0] if sizes else 0
            if k.indices(n) != (0, n, 1):
                last = "Slice"
        elif k is not Ellipsis:
            last = "Select"
    return last + "Backward0"


def _whole(key):
    """Whether an index takes everything as it is (x[...], x[:, :]): its gradient is g."""
    return all(k is Ellipsis or isinstance(k, slice) and k == slice(None) for k in key)


index = Op("IndexBackward0", index_forward,
           vjp=(lambda g, y, x, key, lead=0: g if _whole(key) else
                scatter(g, shape=x.shape[lead:], key=key, lead=g.ndim - y.ndim + lead),),
           jvp=(lambda t, y, x, key, lead=0: t if _whole(key) else
                index(t, key=key, lead=t.ndim - x.ndim + lead),),
           saves=False)


def _scatter_forward(g, shape, key, lead=0):
    """Zeros of ``shape`` with g added at ``key`` (repeated indices add up)."""
    out = np.zeros(g.shape[:lead] + tuple(shape), dtype=g.dtype)
    target, full = _target(out, key, lead)
    if any(isinstance(k, np.ndarray) and k.dtype != bool for k in full):   # integer indices may
        spelled = []                      # repeat: np.add.at adds them up; it wants no masks
        for k in full:
            spelled.extend(np.nonzero(k) if isinstance(k, np.ndarray) and k.dtype == bool else (k,))
        np.add.at(target, tuple(spelled), g)
    else:
        target[full] = g
    return out


scatter = Op("IndexPutBackward0", _scatter_forward,
             vjp=(lambda gg, y, g, shape, key, lead=0: index(gg, key=key, lead=gg.ndim - y.ndim + lead),),
             jvp=(lambda t, y, g, shape, key, lead=0: scatter(t, shape=shape, key=key, lead=t.ndim - g.ndim + lead),),
             saves=False)


def _target(out, key, lead=0):
    """(array, key) that index ``out`` as torch reads ``key`` (after ``lead`` batch
    dimensions): the ints first, on a view, as ``index`` applies them."""
    full = (slice(None),) * lead + key
    split = _ints_first(full)
    return (out, full) if split is None else (out[split[0]], split[1])


# -- writes: x with the numbers at ``key`` replaced by ``values`` ------------------------
# The out-of-place form of x[key] = v, fill_, zero_, copy_ and masked_fill_ (tensor.py
# records them on x, as torch does).  The numbers at key now come from values: x gets no
# gradient there, values gets the gradient at key (summed over where it was broadcast).
# torch names the node after the method that wrote; the rules are the same.
def _put_forward(x, values, key, lead=0):
    out = np.array(x)
    write_into(out, values, key, lead)
    return out


def write_into(out, values, key, lead=0):
    """out[key] = values, in place, with torch's order of indices and its words."""
    target, full = _target(out, key, lead)
    if lead and np.ndim(values):      # a batch of values (forward mode): in front of the region
        region = target[full].shape
        values = np.reshape(values, values.shape[:lead] + (1,) * (len(region) - values.ndim) +
                            values.shape[lead:])
    try:
        target[full] = values
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(np.shape(values))} cannot be "
                           f"broadcast to indexing result of shape {list(target[full].shape)}") from None


def _write_rules(saves, whole=False):
    """The rules of a write; ``whole``: it writes every number of x (fill_, zero_, copy_),
    so x's gradient is zeros that depend on nothing, as torch's zeros_like(grad)."""
    return dict(
        vjp=((lambda g, y, x, values, key, lead=0: _zeros_like(g)) if whole else
             (lambda g, y, x, values, key, lead=0: index_put(g, 0.0, key=key, lead=g.ndim - y.ndim + lead)),
             lambda g, y, x, values, key, lead=0: index(g, key=key, lead=g.ndim - y.ndim + lead)),
        jvp=((lambda t, y, x, values, key, lead=0: _zeros_like(t)) if whole else
             (lambda t, y, x, values, key, lead=0: index_put(t, 0.0, key=key, lead=t.ndim - y.ndim + lead)),
             lambda t, y, x, values, key, lead=0:
             index_put(np.zeros(t.shape[:t.ndim - np.ndim(values)] + y.shape, y.dtype), t, key=key,
                       lead=t.ndim - np.ndim(values))),
        saves=saves)


# torch keeps the index (or mask) of these, so a second backward is refused; fill_ and
# zero_ keep nothing
index_put = Op("IndexPutBackward0", _put_forward, **_write_rules("index"))          # x[indices] = v
copy_slices = Op("torch::autograd::CopySlices", _put_forward, **_write_rules("index"))   # a write through a view, or x[0] = v
masked_fill = Op("MaskedFillBackward0", _put_forward, **_write_rules("index"))
fill = Op("FillBackward2", _put_forward, **_write_rules(False, whole=True))
zero = Op("ZeroBackward0", _put_forward, **_write_rules(False, whole=True))
copy = Op("torch::autograd::CopyBackwards", _put_forward, **_write_rules(False, whole=True))
# a view whose base was written since it was made reads the base's new history
as_strided = Op("AsStridedBackward0", index_forward, vjp=index.vjp, jvp=index.jvp, saves=False)


def _along(dim, ndim, k):
    """An index picking ``k`` (an int or a slice) along dimension ``dim``, batch-safe."""
    d = _neg_dims(dim, ndim)[0]
    return (Ellipsis, k) + (slice(None),) * (-d - 1)


def skipped_by_cat(shape, xs):
    """Whether cat passes over an input of this shape: an empty vector among inputs that
    are not all empty vectors (torch's legacy rule)."""
    return tuple(shape) == (0,) and any(tuple(x.shape) != (0,) for x in xs)


def _cat_vjp(g, y, *xs, dim=0):
    grads, start = [], 0
    for x in xs:
        if skipped_by_cat(x.shape, xs):               # took no part: an empty gradient
            grads.append(np.zeros(_lead(g, y) + x.shape, (y._data if isinstance(y, Tensor) else y).dtype))
            continue
        n = x.shape[dim]
        grads.append(index(g, key=_along(dim, y.ndim, slice(start, start + n))))
        start += n
    return grads


def _cat_jvp(ts, y, *xs, dim=0):
    lead = next(_lead(t, x) for t, x in zip(ts, xs) if t is not None)
    parts = [t if t is not None else np.zeros(lead + x.shape, y.dtype) for t, x in zip(ts, xs)
             if not skipped_by_cat(x.shape, xs)]
    return cat(*parts, dim=_neg_dims(dim, y.ndim)[0])


def _cat_forward(*xs, dim=0):
    return np.concatenate([x for x in xs if not skipped_by_cat(x.shape, xs)] or xs, axis=dim)


cat = Op("CatBackward0", _cat_forward, vjp_all=_cat_vjp, jvp_all=_cat_jvp,
         saves=False, promote=True)


def _stack_jvp(ts, y, *xs, dim=0):
    lead = next(_lead(t, x) for t, x in zip(ts, xs) if t is not None)
    parts = [t if t is not None else np.zeros(lead + x.shape, y.dtype) for t, x in zip(ts, xs)]
    return stack(*parts, dim=_neg_dims(dim, y.ndim)[0])


stack = Op("StackBackward0", lambda *xs, dim=0: np.stack(xs, axis=dim),
           vjp_all=lambda g, y, *xs, dim=0: [index(g, key=_along(dim, y.ndim, i)) for i in range(len(xs))],
           jvp_all=_stack_jvp,
           saves=False, promote=True)


def _to_forward(x, dtype):
    return x.astype(dtypes.to_numpy(dtype))


to = Op("ToCopyBackward0", _to_forward,
        vjp=(lambda g, y, x, dtype: to(g, x.dtype),),
        jvp=(lambda t, y, x, dtype: to(t, dtype),),
        saves=False)

def _clone_forward(x):
    """A copy laid out as x (torch's preserve_format) where x fills its memory without
    gaps or repeats, else row by row (an expanded or sliced tensor's copy is contiguous)."""
    return np.array(x, order="K" if dense(x) else "C")


clone = Op("CloneBackward0", _clone_forward,
           **symmetric(lambda g, y, x: g),
           saves=False)

# what backward(create_graph=True) stores in a leaf's .grad: its own copy, still recorded
grad_copy = Op("torch::autograd::CopyBackwards", np.array, vjp=clone.vjp, jvp=clone.jvp, saves=False)



# -- products ---------------------------------------------------------------------------
def _matmul_forward(a, b):
    if a.dtype != b.dtype:            # torch's words, from the kernel its matmul reaches
        raise matmul_error(a, b)
    try:
        out = np.matmul(a, b)
    except ValueError as e:           # NumPy refuses the shapes: say why in torch's words
        raise matmul_error(a, b, e) from None
    if a.dtype == np.bool_:           # torch has no kernel for bools: it names the one it tried
        kernel = ("dot" if a.ndim == b.ndim == 1 else "addmv_impl_cpu" if b.ndim == 1 else
                  "addmm_impl_cpu_" if b.ndim == 2 else "bmm")
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    return out


def _matmul_vjp_a(g, y, a, b):
    if b.ndim == 1:                                   # y = a @ b contracts b's only axis
        return unsqueeze(g, -1) * b
    if a.ndim == 1 and b.ndim > 2:                    # a is a row vector in disguise
        return squeeze(unsqueeze(g, -2) @ b.mT, -2)
    return g @ b.mT                                   # (for a 1-D a, g's rows: a batch of seeds)


def _matmul_vjp_b(g, y, a, b):
    if b.ndim == 1:
        if a.ndim == 1:
            return unsqueeze(g, -1) * a
        if a.ndim == 2:                               # gᵀ a as one matrix product, even for
            return g @ a                              # a batch of seeds (rows of g)
        return squeeze(unsqueeze(g, -2) @ a, -2)
    if a.ndim == 1:
        return unsqueeze(a, -1) * unsqueeze(g, -2)
    if a.ndim > 2 and a.shape[-2] == 1:               # a stack of rows (vmap's a sample's
        return a.mT * g                               # vector): outer products, no sum to do
    return a.mT @ g


def _matmul_name(args, p):
    """torch's name for the node its matmul records last: mm, mv and dot for matrices and
    vectors; a vector times a matrix is an mm between an unsqueeze and a squeeze
    (SqueezeBackward4); batched products end in a reshape of the batched mm's result
    (UnsafeViewBackward0), or, when a matrix that requires grad (or a batch of one, 3-d)
    meets a batch of matrices, in a copy of the transpose of one mm (CloneBackward0; TransposeBackward0 if no copy
    is needed)."""
    a, b = args[0]._data.ndim, args[1]._data.ndim
    if a <= 2 and b <= 2:
        if a == 1 and b == 2:
            return "SqueezeBackward4"
        return "MmBackward0" if b == 2 else "MvBackward0" if a == 2 else "DotBackward0"
    one = a == 3 and b == 3 and args[0]._data.shape[0] == 1 < args[1]._data.shape[0]   # a batch of one
    if (a == 2 or one) and args[0].requires_grad:   # folded into one mm (so that the matrix's gradient
        # is one mm too), whose transpose is copied unless it is already contiguous
        n, p = args[0]._data.shape[-2], args[1]._data.shape[-1]
        return "TransposeBackward0" if n == 1 or p == 1 else "CloneBackward0"
    return "UnsafeViewBackward0"


def _matmul_jvp(t, y, a, b, side):
    """d(a @ b) = da @ b + a @ db.  A batch of tangents (leading dims beyond the input's)
    must not mix with matmul's own conventions: make both operands matrices, put the
    batch in front of matmul's batch dims, and reshape to the output's shape."""
    x = a if side == 0 else b
    lead = t.ndim - x.ndim
    if lead == 0:
        return matmul(t, b) if side == 0 else matmul(a, t)
    if side == 0 and b.ndim <= 2:                     # the batch rides along in t's rows
        return matmul(t, b)
    if side == 1 and a.ndim <= 2 and b.ndim >= 2:
        return matmul(a, t)
    if side == 1 and a.ndim == 2:                     # W @ x: the tangents of x, as rows,
        return matmul(t, a.mT)                        # times Wᵀ in one matrix product
    a2 = unsqueeze(a, -2) if a.ndim == 1 else a
    b2 = unsqueeze(b, -1) if b.ndim == 1 else b
    if x.ndim == 1:
        t = unsqueeze(t, -2 if side == 0 else -1)
    core = a2.ndim if a2.ndim > b2.ndim else b2.ndim
    t = reshape(t, shape=t.shape[:lead] + (1,) * (core - t.ndim + lead) + t.shape[lead:])
    out = matmul(t, b2) if side == 0 else matmul(a2, t)
    return reshape(out, shape=out.shape[:lead] + y.shape)


matmul = Op("MmBackward0", _matmul_forward,
            vjp=(_matmul_vjp_a, _matmul_vjp_b),
            jvp=(lambda t, y, a, b: _matmul_jvp(t, y, a, b, 0),
                 lambda t, y, a, b: _matmul_jvp(t, y, a, b, 1)),
            saves="others")


# -- the operators: each is a row of the table ------------------------------------------
class Operators:
    """x + y, x * y, x / y, -x, abs(x), x > y, x & y, ...: each calls its row, installed on
    Tensor here.  (The operators that first check their arguments in torch's words, x - y,
    x ** y, x @ y, ~x and x[key], are tensor_methods.py's.)"""
    def __add__(self, other): return add(self, other)
    def __radd__(self, other): return add(self, other)       # torch lists self first
    def __mul__(self, other): return mul(self, other)
    def __rmul__(self, other): return mul(self, other)
    def __truediv__(self, other): return div(self, other)
    def __neg__(self): return neg(self)
    def __abs__(self): return abs(self)
    def __gt__(self, other): return gt(self, other)
    def __ge__(self, other): return ge(self, other)
    def __lt__(self, other): return lt(self, other)
    def __le__(self, other): return le(self, other)
    def __eq__(self, other): return eq(self, other)
    def __ne__(self, other): return ne(self, other)
    __hash__ = object.__hash__        # (a class that defines __eq__ would otherwise get None)
    def __and__(self, other): return bitwise_and(self, other)
    def __rand__(self, other): return bitwise_and(other, self)
    def __or__(self, other): return bitwise_or(self, other)
    def __ror__(self, other): return bitwise_or(other, self)


install(Operators)


# -- grad_fn names that depend on the call ---------------------------------------------
# torch names some nodes after how the operation was called; the other rows' nodes carry
# the row's name
name_by_call({
    sub: lambda args, p: "SubBackward0" if isinstance(args[0], Tensor) else "RsubBackward1",
    pow: lambda args, p: "PowBackward1" if isinstance(args[0], Tensor) else "PowBackward2",
    sum: lambda args, p: "SumBackward0" if p.get("dim") is None else "SumBackward1",
    mean: lambda args, p: "MeanBackward0" if p.get("dim") is None else "MeanBackward1",
    squeeze: lambda args, p: ("SqueezeBackward0" if p.get("dim") is None else
                              "SqueezeBackward2" if isinstance(p["dim"], tuple) else "SqueezeBackward1"),
    masked_fill: lambda args, p: "MaskedFillBackward1" if isinstance(args[1], Tensor) else "MaskedFillBackward0",
    fill: lambda args, p: "FillBackward3" if isinstance(args[1], Tensor) else "FillBackward2",
    reshape: _reshape_name,
    index: _index_name,
    matmul: _matmul_name,
})
register(globals())


def table():
    """The rows of this module, by their Python names (the core's part of the book's rules
    table: ``rulebook.table()`` adds the shell's)."""
    return dict(ROWS["rules"])


def key_of(key):
    """Normalise an index for ``index``: always a tuple, tensors turned into arrays."""
    key = index_key(key)
    return key if isinstance(key, tuple) else (key,)
