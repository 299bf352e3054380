"""The ``al.*`` functions, with torch's names and signatures, over the rules table."""
import builtins
import functools

import numpy as np

from . import dtypes, einsum_rules, index_add_rules, rules, more_rules  # noqa: F401 (rows)
from .checks import tensor_of, wrap_dim
from .tensor import Tensor


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


def mm(input, mat2):
    return checked_mm(_t(input), _t(mat2))


def matmul(input, other):
    return rules.matmul(_t(input), _t(other))


def dot(input, other):
    return checked_dot(_t(input), _t(other))


def mv(input, vec):
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {vec.ndim}")
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


def unsqueeze(input, dim):
    return _t(input).unsqueeze(dim)


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
floor, ceil, round, neg = map(_unary, (rules.floor, rules.ceil, rules.round, rules.neg))
isnan, isinf, isfinite = rules.isnan, rules.isinf, rules.isfinite
logical_not = rules.logical_not
negative = neg


def add(input, other, alpha=1):
    return _t(input).add(other, alpha=alpha)


def sub(input, other, alpha=1):
    return checked_sub(_t(input), other, alpha)


def mul(input, other):
    return rules.mul(_t(input), other)


def div(input, other):
    return rules.div(_t(input), other)


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


def maximum(input, other):
    return rules.maximum(tensor_arg(input, "maximum", "input", 1), tensor_arg(other, "maximum", "other", 2))


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


def sum(input, dim=None, keepdim=False):
    return _t(input).sum(dim, keepdim)


def mean(input, dim=None, keepdim=False):
    return _t(input).mean(dim, keepdim)


def norm(input, p="fro", dim=None, keepdim=False):
    return _t(input).norm(p, dim, keepdim)


def amax(input, dim=None, keepdim=False):
    return _t(input).amax(dim, keepdim)


def max(input, dim=None, keepdim=False):
    """The largest entry; along ``dim``, (values, indices); ``max(a, b)`` of two tensors is
    ``maximum(a, b)``, as in torch."""
    return _t(input).max(dim, keepdim)


def min(input, dim=None, keepdim=False):
    return _t(input).min(dim, keepdim)


def amin(input, dim=None, keepdim=False):
    return _t(input).amin(dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    return _t(input).argmax(dim, keepdim)


def any(input, dim=None, keepdim=False):
    return _t(input).any(dim, keepdim)


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


@_half_in_float32


def softmax(input, dim, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim``, computed shifted by the maximum (no overflow):
    one row of the rules table, SoftmaxBackward0, as in torch."""
    x, dims = _softmax_input(_t(input), dim, "softmax")
    return more_rules.softmax(x, dim=dims)


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


def stack(tensors, dim=0):
    tensors = _sequence(tensors, "stack")
    for i, x in enumerate(tensors[1:], 1):
        if x.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(x.shape)} at entry {i}")
    return rules.stack(*tensors, dim=wrap_dim(dim, tensors[0].ndim + 1))


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


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None):
    from . import printing
    if profile == "default":
        printing.PRECISION, printing.THRESHOLD, printing.EDGEITEMS, printing.LINEWIDTH = 4, 1000, 3, 80
    for name, value in (("PRECISION", precision), ("THRESHOLD", threshold),
                        ("EDGEITEMS", edgeitems), ("LINEWIDTH", linewidth)):
        if value is not None:
            setattr(printing, name, value)


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


def sort(input, dim=-1, descending=False, stable=False):
    return _t(input).sort(dim, descending, stable)


def gather(input, dim, index):
    return _t(input).gather(dim, index)


def index_select(input, dim, index):
    return _t(input).index_select(dim, index)


def index_add(input, dim, index, source, *, alpha=1):
    return _t(input).index_add(dim, index, source, alpha=alpha)


def narrow(input, dim, start, length):
    return _t(input).narrow(dim, start, length)


def select(input, dim, index):
    return _t(input).select(dim, index)


def split(tensor, split_size_or_sections, dim=0):
    return _t(tensor).split(split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    return _t(input).chunk(chunks, dim)


def movedim(input, source, destination):
    return _t(input).movedim(source, destination)


moveaxis = movedim
swapaxes = swapdims = transpose


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
