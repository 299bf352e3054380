"""The other spellings torch's functions accept, for the shell's functions and methods.

- NumPy's names: torch's argument parser takes ``axis=`` for ``dim=`` and ``keepdims=``
  for ``keepdim=`` in every function it defines natively (``x.sum(axis=0)``,
  ``torch.cat(xs, axis=1)``, ``x.max(axis=0, keepdims=True)``), though not in those
  written in Python (``F.softmax``, ``x.split``, ``x.norm``).  :func:`numpy_names` gives a
  function or method those spellings.
- ``out=``: torch's functions can write their result into a tensor given as ``out``
  (resized if it has another shape; refused when an argument requires grad, since such
  a write cannot be differentiated).  :func:`with_out` adds the parameter.
"""
import functools
import inspect
import warnings

from .core import dtypes, inplace
from .core.modes import no_grad, state
from .core.tensor import Tensor
from .core.userframe import user_level

NUMPY_NAMES = (("axis", "dim"), ("keepdims", "keepdim"))


def numpy_names(fn):
    """``fn``, also taking ``axis=`` for its ``dim`` and ``keepdims=`` for its ``keepdim``
    (both spellings at once is an unexpected keyword, as in torch)."""
    own = inspect.signature(fn)
    aliases = [(numpy, name) for numpy, name in NUMPY_NAMES if name in own.parameters]

    @functools.wraps(fn)
    def spelled(*args, **kwargs):
        if kwargs:
            for numpy, name in aliases:
                if numpy in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got an unexpected keyword argument '{numpy}'")
                    kwargs[name] = kwargs.pop(numpy)
        return fn(*args, **kwargs)
    spelled.__signature__ = with_keywords(own, [numpy for numpy, _ in aliases])
    return spelled


def with_out(fn=None, *, warn_resize=True):
    """``fn`` with torch's ``out=``: the result written into ``out`` (a tensor, or a tuple
    of them for functions returning several), which is returned.  (torch's factories,
    ``randn(..., out=t)``, resize ``out`` without a warning: ``warn_resize=False``.)"""
    if fn is None:
        return lambda f: with_out(f, warn_resize=warn_resize)
    name = fn.__name__

    @functools.wraps(fn)
    def writing(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        if state.grad_enabled and any(isinstance(a, Tensor) and a.requires_grad
                                      for a in (*args, *kwargs.values(), *outs)):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        result = fn(*args, **kwargs)
        results = result if isinstance(result, tuple) else (result,)
        if len(results) != len(outs):
            raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(results)} Tensors")
        for o, r in zip(outs, results):
            write_out(o, r, warn_resize)
        if hasattr(result, "_fields"):    # (values, indices): torch's max_out, sort_out, ...
            return _out_type(type(result))(*outs)
        return out
    writing.__signature__ = with_keywords(inspect.signature(fn), ["out"])
    return writing


@functools.cache
def _out_type(kind):
    """torch's return type of a function given out=: max's is max_out."""
    return type(f"{kind.__name__}_out", (kind,), {"__doc__": f"(values, indices) of {kind.__name__}, out=."})


def write_out(out, result, warn_resize=True):
    """Write ``result`` into ``out``, as torch's out= does: resized (with torch's warning
    when it held numbers of another shape), cast to its dtype where that loses no kind."""
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    got = result._data
    if not dtypes.can_cast(got.dtype, out._data.dtype):
        raise RuntimeError(f"result type {dtypes.scalar_type_name(got.dtype)} can't be cast to the desired "
                           f"output type {dtypes.scalar_type_name(out._data.dtype)}")
    if out._data.shape != got.shape:
        if out._data.size and warn_resize:
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out._data.shape)}, which does not match the required output shape "
                          f"{list(got.shape)}. This behavior is deprecated, and in a future PyTorch "
                          "release outputs will not be resized unless they have zero elements. You can "
                          "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                          "with t.resize_(0).", UserWarning, stacklevel=user_level())
        return inplace.replace_numbers(out, got.astype(out._data.dtype))
    with no_grad():
        return out.copy_(result)


def with_keywords(signature, names):
    """``signature`` with keyword-only parameters ``names`` (default None) added before
    any ``**kwargs``."""
    params = list(signature.parameters.values())
    have = {p.name for p in params}
    extra = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None) for n in names if n not in have]
    if params and params[-1].kind is inspect.Parameter.VAR_KEYWORD:
        return signature.replace(parameters=params[:-1] + extra + params[-1:])
    return signature.replace(parameters=params + extra)
