"""The ``al.*`` functions, with torch's names and signatures, over the rules table."""
import builtins
import functools
import math

import numpy as np

from .core import dtypes, rules
from . import einsum_rules, index_add_rules, math_rules, more_rules, sequence_rules  # noqa: F401  (registers its rows)
from .core.checks import broadcast_mismatch, tensor_of, wrap_dim
from .spellings import numpy_names, with_out
from .core.tensor import Tensor
from .storage import Size


def _t(x):
    return x if isinstance(x, Tensor) else tensor_of(x)


def where(condition, input, other):
    """Pick ``input`` where ``condition`` holds and ``other`` elsewhere.

    Either branch may be a tensor or a Python number.  The gradient of the result goes
    to ``input`` where the condition is true and to ``other`` where it is false; the
    condition, a bool tensor, never receives one (see ``rules.where``)."""
    condition = _t(condition)
    if condition._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition.dtype!r}")
    for number, branch in ((input, other), (other, input)):
        if isinstance(branch, Tensor):
            dtypes.check_fits(number, branch._data.dtype)
    return rules.where(condition, input, other)


@with_out
def mm(input, mat2):
    return checked_mm(_t(input), _t(mat2))


@with_out
def matmul(input, other):
    return rules.matmul(_t(input), _t(other))


def dot(input, other):
    return checked_dot(_t(input), _t(other))


def mv(input, vec):
    if input.ndim != 2 or vec.ndim != 1:
        # torch's mv is an addmv into a 1-d result: its dimensions are named first
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    return rules.matmul(input, vec)


def outer(input, vec2):
    """outer(a, b)[j, k] = a[j] * b[k]; like torch, it is a broadcast multiplication
    (so its grad_fn is MulBackward0)."""
    input, vec2 = _t(input), _t(vec2)
    if input.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"outer: expected 1D tensors, got {input.ndim}D and {vec2.ndim}D")
    return input.reshape(-1, 1) * vec2



def diag(input, diagonal=0):
    """torch.diag: a 1-d tensor becomes a square matrix with it on diagonal ``diagonal``
    (above the main one if positive, below if negative); a 2-d tensor gives that diagonal
    of it, as a new 1-d tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(f"diag(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return checked_diag(input, diagonal, position=2)


def checked_diag(input, diagonal, position=1):
    """al.diag and Tensor.diag (where ``diagonal`` is argument 1, as torch counts)."""
    if not isinstance(diagonal, (int, np.integer)) or isinstance(diagonal, bool):
        raise TypeError(f"diag(): argument 'diagonal' (position {position}) must be int, not "
                        f"{type(diagonal).__name__}")
    if input.ndim == 1:
        n = input.shape[0] + builtins.abs(diagonal)
        return more_rules.diag_put(input, offset=int(diagonal), shape=(n, n))
    if input.ndim == 2:
        return more_rules.diag_take(input, offset=int(diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")

def transpose(input, dim0, dim1):
    return _t(input).transpose(dim0, dim1)


def t(input):
    return _t(input).t()


def reshape(input, shape):
    return _t(input).reshape(shape)


@numpy_names
def unsqueeze(input, dim):
    return _t(input).unsqueeze(dim)


@numpy_names
def squeeze(input, dim=None):
    return _t(input).squeeze(dim)


def permute(input, dims):
    return _t(input).permute(dims)


def _unary(op):
    def f(input):
        return op(input if type(input) is Tensor else tensor_of(input))
    f.__name__ = op.grad_name((), {}).replace("Backward0", "").lower()
    f.__doc__ = f"Elementwise {f.__name__}; its derivative rules are ``rules.{f.__name__}``."
    return f


sigmoid, tanh, relu, exp, log, sqrt = map(_unary, (rules.sigmoid, rules.tanh, rules.relu, rules.exp, rules.log, rules.sqrt))
log1p = _unary(rules.log1p)
abs, sin, cos, sign = map(_unary, (rules.abs, rules.sin, rules.cos, rules.sign))
floor, ceil, neg = map(_unary, (rules.floor, rules.ceil, rules.neg))
isnan, isinf, isfinite = rules.isnan, rules.isinf, rules.isfinite
logical_not = rules.logical_not
negative = neg


@with_out
def round(input, *, decimals=0):
    """Each entry rounded to ``decimals`` digits after the point (half to even)."""
    return _t(input).round(decimals=decimals)


@with_out
def add(input, other, alpha=1):
    return _t(input).add(other, alpha=alpha)


@with_out
def sub(input, other, alpha=1):
    return checked_sub(_t(input), other, alpha)


@with_out
def mul(input, other):
    return rules.mul(_t(input), other)


NOT_GIVEN = type("NotGiven", (), {"__repr__": lambda self: "<not given>"})()   # (rounding_mode=None is a choice)


@with_out
def div(input, other, *, rounding_mode=NOT_GIVEN):
    """input / other; with rounding_mode "floor" or "trunc", rounded down or toward zero."""
    return rules.div(_t(input), other) if rounding_mode is NOT_GIVEN else rounded_div(_t(input), other, rounding_mode)


def rounded_div(a, b, rounding_mode):
    """torch.div with a rounding_mode given (even None): DivBackward2, as torch records it."""
    if rounding_mode is None:
        return math_rules.div_mode(a, b)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    return math_rules.div_rounded(a, b, rounding_mode=rounding_mode)


def pow(input, exponent):
    return power(input, exponent) if isinstance(input, Tensor) or isinstance(exponent, Tensor) \
        else power(_t(input), exponent)


def power(base, exponent):
    """``tensor ** exponent``, ``tensor.pow`` and ``al.pow`` call this, not the rules
    table's ``pow`` (rules.py): torch refuses an integer tensor to a negative *number* (not
    tensor) power, or to one its dtype cannot hold, and only here is a number still told
    apart from a tensor (``pow`` sees arrays)."""
    if type(base) is Tensor and base._data.dtype.kind in "biu" and _is_int_number(exponent):
        if exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        dtypes.check_fits(exponent, base._data.dtype)
    return rules.pow(base, exponent) if isinstance(exponent, Tensor) else rules.pow_number(base, exponent)


def _is_int_number(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


@with_out
def maximum(input, other):
    return rules.maximum(tensor_arg(input, "maximum", "input", 1), tensor_arg(other, "maximum", "other", 2))


@with_out
def minimum(input, other):
    return rules.minimum(tensor_arg(input, "minimum", "input", 1), tensor_arg(other, "minimum", "other", 2))


def tensor_arg(value, fn, name, position):
    """``value``, refused in torch's words unless it is a tensor (torch.maximum(x, 0.5))."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")
    return value


def clamp(input, min=None, max=None):
    return checked_clamp(_t(input), min, max)


clip = clamp


def logical_and(input, other):
    return rules.logical_and(_t(input), other)


def logical_or(input, other):
    return rules.logical_or(_t(input), other)


def logical_xor(input, other):
    return rules.logical_xor(_t(input), other)


@with_out
@numpy_names
def sum(input, dim=None, keepdim=False, *, dtype=None):
    return _t(input).sum(dim, keepdim, dtype=dtype)


@with_out
@numpy_names
def mean(input, dim=None, keepdim=False, *, dtype=None):
    return _t(input).mean(dim, keepdim, dtype=dtype)


def norm(input, p="fro", dim=None, keepdim=False):
    return _t(input).norm(p, dim, keepdim)


@numpy_names
def amax(input, dim=None, keepdim=False):
    return _t(input).amax(dim, keepdim)


@with_out
@numpy_names
def max(input, dim=None, keepdim=False):
    """The largest entry; along ``dim``, (values, indices); ``max(a, b)`` of two tensors is
    ``maximum(a, b)``, as in torch."""
    return _t(input).max(dim, keepdim)


@with_out
@numpy_names
def min(input, dim=None, keepdim=False):
    return _t(input).min(dim, keepdim)


@numpy_names
def amin(input, dim=None, keepdim=False):
    return _t(input).amin(dim, keepdim)


@numpy_names
def argmax(input, dim=None, keepdim=False):
    return _t(input).argmax(dim, keepdim)


@numpy_names
def any(input, dim=None, keepdim=False):
    return _t(input).any(dim, keepdim)


@numpy_names
def all(input, dim=None, keepdim=False):
    return _t(input).all(dim, keepdim)


def _half_in_float32(fn):
    """Cast the input to ``dtype`` if one is given (as torch does, before computing); then
    compute a float16 input in float32 and round the result once, as torch's kernels do
    for softmax and log_softmax (in float16 throughout, the sum rounds at every step)."""
    @functools.wraps(fn)
    def in_float32(input, dim, dtype=None):
        x = _t(input) if dtype is None else _t(input).to(dtype)
        if x._data.dtype == np.float16:
            return fn(x.to(dtypes.float32), dim).to(dtypes.float16)
        return fn(x, dim)
    return in_float32


@numpy_names
@_half_in_float32
def softmax(input, dim, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim``, computed shifted by the maximum (no overflow):
    one row of the rules table, SoftmaxBackward0, as in torch."""
    x, dims = _softmax_input(_t(input), dim, "softmax")
    return more_rules.softmax(x, dim=dims)


@numpy_names
@_half_in_float32
def log_softmax(input, dim, dtype=None):
    """x - max - log(sum(exp(x - max))): never the log of a softmax rounded to zero
    (LogSoftmaxBackward0, one row of the rules table)."""
    x, dims = _softmax_input(_t(input), dim, "log_softmax")
    return more_rules.log_softmax(x, dim=dims)


def _softmax_input(x, dim, name):
    """(x, its dimension as the rows read it), refused as torch refuses it.  An empty tensor
    has nothing to compute, and comes back as it is, even an integer one (as in torch).
    (``dtype=`` was applied before: see _half_in_float32.)"""
    d = wrap_dim(dim, x.ndim)                 # torch's IndexError for a dim out of range
    if x.numel() and not x.is_floating_point():   # torch has no integer kernel (and no silent cast)
        kernel = f"{name}_lastdim_kernel_impl" if d == -1 or x.ndim == 0 else f"{name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{dtypes.scalar_type_name(x._data.dtype)}' (pass dtype=al.float32 "
                                  "to compute in floating point)")
    return x, ((d,) if x.ndim else ())


def _sequence(tensors, name):
    if isinstance(tensors, Tensor) or not len(tensors):
        raise TypeError(f"{name}() expects a non-empty list or tuple of tensors")
    return [_t(x) for x in tensors]


@with_out
@numpy_names
def cat(tensors, dim=0):
    """Join tensors along an existing dimension.  As in torch, a 1-D empty tensor (shape
    ``(0,)``) may sit among tensors of any shape: it adds nothing (an old convention that
    torch keeps), though it still takes part in the result's dtype and gets its (empty)
    gradient."""
    tensors = _sequence(tensors, "cat")
    for i, x in enumerate(tensors):
        if x.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    if builtins.all(x.shape == (0,) for x in tensors):     # only empty vectors: an empty vector
        return rules.cat(*tensors, dim=0)
    kept = [(i, x) for i, x in enumerate(tensors) if not rules.skipped_by_cat(x.shape, tensors)]
    ref = kept[0][1]
    d = wrap_dim(dim, ref.ndim)
    for i, x in kept[1:]:
        if x.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {x.ndim}")
        for j, (a, b) in enumerate(zip(ref.shape, x.shape)):
            if a != b and j != ref.ndim + d:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {ref.ndim + d}. "
                                   f"Expected size {a} but got size {b} for tensor number {i} in the "
                                   f"list (shapes {ref.shape} and {x.shape}).")
    return rules.cat(*tensors, dim=d)


concat = concatenate = cat


@with_out
@numpy_names
def stack(tensors, dim=0):
    tensors = _sequence(tensors, "stack")
    for i, x in enumerate(tensors[1:], 1):
        if x.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(x.shape)} at entry {i}")
    return rules.stack(*tensors, dim=wrap_dim(dim, tensors[0].ndim + 1))


def broadcast_shapes(*shapes):
    """The shape that tensors of these shapes broadcast to (NumPy's rule), as a Size."""
    out = ()
    for i, shown in enumerate((s,) if isinstance(s, int) else s for s in shapes):
        s = tuple(shown)                                # (torch prints the argument as given)
        n = builtins.max(len(out), len(s))
        padded = (1,) * (n - len(out)) + out
        for d in range(-1, -len(s) - 1, -1):            # torch names the last dimension that clashes
            if s[d] != padded[d] and 1 not in (s[d], padded[d]):
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[d]} at {d}! "
                                   f"Mismatching argument at index {i} had {shown}; but expected shape "
                                   f"should be broadcastable to {list(padded)}")
        out = np.broadcast_shapes(out, s)
    return Size(out)


def broadcast_tensors(*tensors):
    """Each tensor expanded to the shape they broadcast to (one already of that shape is
    returned as it is, as in torch)."""
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}")
    shape = ()
    for x in tensors:
        differs = broadcast_mismatch(shape, x.shape)
        if differs:
            raise RuntimeError(differs)
        shape = np.broadcast_shapes(shape, x.shape)
    return tuple(x if x.shape == shape else x.expand(shape) for x in tensors)


def broadcast_to(input, size):
    return _t(input).expand(size)


def cond(pred, true_fn, false_fn, operands=()):
    """Call ``true_fn(*operands)`` if ``pred`` holds, else ``false_fn(*operands)``.

    As with a Python ``if``, only the branch taken runs, so only it is recorded in the
    graph: tensors used only by the other branch get no gradient at all (``.grad`` stays
    None) -- TensorFlow's "switched-off" gradient of Switch/Merge.  ``torch.cond`` picks
    the branch the same way but records one ``CondAutogradOpBackward`` node, which gives
    the branch not taken a gradient of zeros instead of None."""
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"cond: expected pred to be a tensor with one element, got shape "
                               f"{tuple(pred.shape)}")
        pred = bool(pred._data.item())
    elif not isinstance(pred, (bool, int, np.bool_)):
        raise RuntimeError(f"cond: expected pred to be a bool or a one-element tensor, got {type(pred).__name__}")
    branch = true_fn if pred else false_fn
    return branch(*tuple(operands))


def numel(input):
    return input.numel()


def is_tensor(obj):
    return isinstance(obj, Tensor)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(_t(input)._data, _t(other)._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input, other):
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """How tensors print: digits after the point (``precision``), how many entries before
    a tensor is shown by its edges only (``threshold``, ``edgeitems`` per side), the
    line width, scientific notation forced on or off (``sci_mode``; None lets each tensor
    decide: torch resets it to None whenever it is not given), or a whole ``profile``:
    "default", "short" (2 digits, 2 edge items) or "full" (every entry)."""
    from .core import printing
    if profile is not None:
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {sorted(PROFILES)}, not {profile!r}")
        printing.PRECISION, printing.THRESHOLD, printing.EDGEITEMS, printing.LINEWIDTH = PROFILES[profile]
    for name, value in (("PRECISION", precision), ("THRESHOLD", threshold),
                        ("EDGEITEMS", edgeitems), ("LINEWIDTH", linewidth)):
        if value is not None:
            setattr(printing, name, value)
    printing.SCI_MODE = sci_mode


# -- torch's checks, shared with the Tensor methods of the same names -------------------


class MinMax(tuple):
    """(values, indices), as torch's max(dim) returns them."""
    _fields = ("values", "indices")   # a named tuple: rebuilt field by field (func's aux)

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):                   # as torch prints its return types
        return f"al.return_types.{type(self).__name__}(\nvalues={self[0]!r},\nindices={self[1]!r})"


# what x.max(dim), x.min(dim) and x.sort() return, named as torch names them
RETURN_TYPES = {name: type(name, (MinMax,), {"__doc__": f"(values, indices) of {name}."})
                for name in ("max", "min", "sort")}


def checked_sub(a, b, alpha=1):
    """a - alpha * b, refusing bool tensors with torch's words."""
    bools = is_bool(a) + is_bool(b)
    if bools == 2:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if bools:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return rules.sub(a, times_alpha(a, b, alpha, "sub"))


def times_alpha(x, other, alpha, name):
    """``alpha * other`` for ``add``/``sub``, with torch's checks on alpha: a number, a float
    only if a float is involved, a bool only between bools (where it acts as a bool)."""
    if type(alpha) is int and alpha == 1:
        return other
    if not isinstance(alpha, (bool, int, float, np.number, np.bool_)):
        raise TypeError(f"{name}(): argument 'alpha' must be Number, not {type(alpha).__name__}")
    if isinstance(other, np.generic):
        other = dtypes.as_number(other)
    if type(other) is int:
        dtypes.check_64_bits(other)
    if is_bool(x) and is_bool(other):
        return other if alpha else other & False
    if isinstance(alpha, (bool, np.bool_)):
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    floats = [v.is_floating_point() if isinstance(v, Tensor) else isinstance(v, float) for v in (x, other)]
    if isinstance(alpha, (float, np.floating)) and not builtins.any(floats):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if floats[0] and isinstance(other, int):      # torch scales the number as a double
        other = float(other)
    return other * alpha


def is_bool(v):
    """A bool tensor, or a Python bool (which torch treats as one; a NumPy bool it reads
    as a float)."""
    return v._data.dtype.kind == "b" if isinstance(v, Tensor) else isinstance(v, bool)


def checked_clamp(x, min, max):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):    # bounds as tensors: ClampBackward0
        if not builtins.all(b is None or isinstance(b, Tensor) for b in (min, max)):
            got = ", ".join(type(b).__name__ for b in (min, max))
            raise TypeError(f"clamp() received an invalid combination of arguments - got ({got}), but "
                            "expected one of:\n * (Tensor min = None, Tensor max = None)\n"
                            " * (Number min = None, Number max = None)")
        return rules.clamp_tensor(x, min, max)
    bounds = [b.item() if isinstance(b, np.generic) else b for b in (min, max)]   # as Python numbers
    if x._data.dtype.kind in "biu" and builtins.any(isinstance(b, float) or np.asarray(b).dtype.kind == "f"
                                          for b in bounds if b is not None):
        x = x.to(dtypes.float32)          # a float bound makes the result float, as in torch
    for i, b in enumerate(bounds):        # an int bound must fit x's dtype, and takes it
        dtypes.check_fits(b, x._data.dtype)  # (uint8: -1 is 255), as in torch
        if x._data.dtype.kind in "iu" and type(b) is int:
            bounds[i] = np.array(b).astype(x._data.dtype)
    return rules.clamp(x, min=bounds[0], max=bounds[1])


def checked_mm(a, b):
    for name, m in (("self", a), ("mat2", b)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix (got a {m.ndim}D tensor of shape {tuple(m.shape)})")
    return rules.matmul(a, b)


def checked_dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return rules.matmul(a, b)




# -- torch's other names, and more of its operations (issue 36) ---------------------------
def subtract(input, other, alpha=1):
    return checked_sub(_t(input), other, alpha)


multiply = mul
divide = true_divide = div
absolute = abs
greater, greater_equal, less, less_equal = rules.gt, rules.ge, rules.lt, rules.le
gt, ge, lt, le, eq, ne = rules.gt, rules.ge, rules.lt, rules.le, rules.eq, rules.ne
not_equal = ne


def square(input):
    return _t(input).square()


def rsqrt(input):
    return _t(input).rsqrt()


def clamp_min(input, min):
    return _t(input).clamp_min(min)


def clamp_max(input, max):
    return _t(input).clamp_max(max)


def flatten(input, start_dim=0, end_dim=-1):
    return _t(input).flatten(start_dim, end_dim)


def masked_fill(input, mask, value):
    return _t(input).masked_fill(mask, value)


@numpy_names
def sort(input, dim=-1, descending=False, stable=False):
    return _t(input).sort(dim, descending, stable)


@numpy_names
def gather(input, dim, index):
    return _t(input).gather(dim, index)


@numpy_names
def index_select(input, dim, index):
    return _t(input).index_select(dim, index)


def index_add(input, dim, index, source, *, alpha=1):
    return _t(input).index_add(dim, index, source, alpha=alpha)


@numpy_names
def narrow(input, dim, start, length):
    return _t(input).narrow(dim, start, length)


@numpy_names
def select(input, dim, index):
    return _t(input).select(dim, index)


def split(tensor, split_size_or_sections, dim=0):
    return _t(tensor).split(split_size_or_sections, dim)


@numpy_names
def chunk(input, chunks, dim=0):
    return _t(input).chunk(chunks, dim)


def movedim(input, source, destination):
    return _t(input).movedim(source, destination)


moveaxis = movedim
swapaxes = swapdims = transpose


def unbind(input, dim=0):
    return _t(input).unbind(dim)


def unsafe_chunk(input, chunks, dim=0):
    return _t(input).unsafe_chunk(chunks, dim)


def unsafe_split(tensor, split_size, dim=0):
    return _t(tensor).unsafe_split(split_size, dim)


def einsum(*args):
    """torch.einsum: ``einsum("ij,jk->ik", a, b)`` multiplies what shares a letter and sums
    the letters the output leaves out (here a matrix product).  The operands may come as
    one list, ``einsum("ij,jk", [a, b])``, or in the sublist form, each followed by its
    dimensions as numbers 0-51: ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    else:
        equation, operands = _sublists(args)
    for i, x in enumerate(operands):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(x).__name__}")
    return einsum_rules.einsum(*operands, equation=equation)


def _sublists(args):
    """The sublist form as an equation: operand, its dims, operand, its dims, ... [output dims]."""
    def term(dims):
        letters = []
        for d in dims:
            if d is Ellipsis:
                letters.append("...")
            elif isinstance(d, float):
                raise TypeError("'float' object cannot be interpreted as an integer")
            elif isinstance(d, (int, np.integer)) and 0 <= d < 52:
                letters.append(einsum_rules.LETTERS[d])
            else:
                raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
        return "".join(letters)
    pairs = args[:len(args) // 2 * 2]
    equation = ",".join(term(dims) for dims in pairs[1::2])
    if len(args) % 2:
        equation += "->" + term(args[-1])
    return equation, pairs[0::2]
