"""autograd_lab: a small reverse-mode (and forward-mode) autograd engine on NumPy that
reads like PyTorch.

    import autograd_lab as al
    x = al.tensor([[2., 1.]], requires_grad=True)
    y = x @ al.tensor([[1., 2.], [3., 4.]])
    y.backward(al.tensor([[1., 0.]]))
    x.grad                                   # tensor([[1., 3.]])

The package is three rings, one folder each:

- ``core/``: what a reader opens to follow a backward pass (chapter 06): ``tensor`` (what
  a tensor is), ``recording`` (an operation on tensors records a node), ``rules`` (the
  rules table: each row's forward, VJP and JVP), ``engine`` (the backward walk),
  ``inplace`` (in-place writes and views); the optional machinery recording calls
  (``versions``, ``saved``, ``forward_mode``, ``watch``) and, below it all, ``dtypes``,
  ``modes``, ``printing``, ``userframe``, ``checks``.
- the shell, laid out as torch lays it out, built on the core's public names: what lets
  a learner run their own PyTorch code here and watch its graph and gradients.
  ``creation``, ``devices``, ``functions`` (the ``al.*`` functions), ``tensor_methods``
  (Tensor's other methods, installed last, then ``math_functions``',
  ``index_functions``', ``storage``'s and ``random``'s), more rows (``more_rules``,
  ``einsum_rules``, ``index_add_rules``, ``sequence_rules``, ``math_rules``,
  ``index_rules``), ``formats``, ``spellings`` (``axis=``, ``out=``), ``serialization``
  (``al.save``, ``al.load``), ``hardware`` (switches for GPUs and speed, as a CPU-only
  torch answers them), ``not_here`` (a torch name autograd_lab lacks says so),
  ``batching`` (``al.vmap``), ``func``, ``autograd/``, ``nn/``, ``optim/``, ``utils/``
  (datasets and loaders), ``distributions``.
- ``teaching/``: the book's tools: ``viz`` (pictures), ``graph_layout``, ``rulebook``
  (the rules table as text), ``error_finder`` (``al.explain``), ``widgets/`` (explorers
  and answer boxes).
"""
from .core import dtypes as _dtypes
from .creation import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, Generator,
                       HalfTensor, IntTensor, LongTensor, ShortTensor, arange, as_tensor,
                       default_generator, empty, empty_like, eye, from_numpy, full, full_like,
                       linspace, manual_seed, normal, ones, ones_like, rand, rand_like, randint,
                       randn, randn_like, randperm, tensor, zeros, zeros_like)
from .devices import accelerator, cuda, device, get_default_device, set_default_device
from .functions import (abs, add, all, allclose, amax, any, argmax, cat, ceil, clamp, clip, concat,
                        concatenate, cond, cos, diag, div, dot, einsum, equal, exp, floor, is_tensor,
                        isfinite, isinf, isnan, log, log1p, log_softmax, logical_and, logical_not,
                        logical_or, matmul, max, maximum, mean, min, minimum, mm, mul, mv, neg,
                        negative, norm, numel, outer, permute, pow, relu, reshape, round,
                        set_printoptions, sigmoid, sign, sin, softmax, sqrt, squeeze, stack, sub,
                        sum, t, tanh, transpose, unsqueeze, where)
from .functions import (absolute, amin, chunk, clamp_max, clamp_min, divide, eq, flatten,
                               gather, ge, greater, greater_equal, gt, index_select, le, less,
                               less_equal, logical_xor, lt, masked_fill, movedim, moveaxis,
                               multiply, narrow, ne, not_equal, rsqrt, select, sort, split,
                               square, subtract, swapaxes, swapdims, true_divide)
from .functions import unbind, unsafe_chunk, unsafe_split   # (sequence_rules.py: recurrent layers' pieces)
from .functions import broadcast_shapes, broadcast_tensors, broadcast_to, index_add
from .core.dtypes import finfo, iinfo
from .core.modes import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                    set_grad_enabled)
from .core.tensor import Tensor
from . import tensor_methods as _tensor_methods  # noqa: F401  (installs Tensor's methods)
# -- torch's other tensor operations and functions (issue 48): each module installs its
# Tensor methods after tensor_methods.py's
from .math_functions import (bmm, cumprod, cumsum, det, dist, e, exp2, expm1, flip, floor_divide, fmod, imag, inf,
                             isclose, log10, log2, nan, pi, real, remainder, std, tril, triu, var)
from .index_functions import (argsort, argwhere, index_put, masked_select, meshgrid, nonzero,
                              repeat_interleave, scatter, scatter_add, topk, unique)
from .storage import Size
from .formats import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format
from . import random  # noqa: E402  (torch.random)
from .random import get_rng_state, initial_seed, multinomial, seed, set_rng_state
from .serialization import load, save
from .batching import vmap
from . import autograd, nn, optim, utils  # noqa: E402
from .teaching.error_finder import explain  # noqa: E402  (the book's page of errors, for a message)
from . import distributions  # noqa: E402  (probability distributions: sample, log_prob, entropy)
from . import not_here as _not_here  # noqa: E402
from .hardware import (amp, autocast, backends, compile, are_deterministic_algorithms_enabled,  # noqa: E402
                       get_float32_matmul_precision, get_num_threads,
                       is_deterministic_algorithms_warn_only_enabled, set_float32_matmul_precision,
                       set_num_threads, use_deterministic_algorithms)
_not_here.install(Tensor, optim.Optimizer, utils.data.DataLoader)
# the core's modules and the error finder keep their names at the top (al.rules,
# al.engine, ``from autograd_lab import watch``), as before the rings had folders
from .core import (checks, dtypes, engine, forward_mode, inplace, modes, printing,  # noqa: E402,F401
                   recording, rules, saved, userframe, versions, watch)
from .teaching import error_finder  # noqa: E402,F401

dtype = _dtypes.dtype
float32 = float = _dtypes.float32
float64 = double = _dtypes.float64
float16 = half = _dtypes.float16
int64 = long = _dtypes.int64
int32 = int = _dtypes.int32
int16, int8, uint8 = _dtypes.int16, _dtypes.int8, _dtypes.uint8
bool = _dtypes.bool_
bfloat16 = _dtypes.bfloat16       # (named, never stored: NumPy has no bfloat16; see dtypes.unstorable)

__version__ = "0.1.0"


_LAZY = {"viz": ".teaching.viz", "widgets": ".teaching.widgets", "func": ".func",
         "rulebook": ".teaching.rulebook", "graph_layout": ".teaching.graph_layout"}


def __getattr__(name):
    # the pictures and explorers load matplotlib / ipywidgets only when asked for
    if name in _LAZY:
        import importlib
        return importlib.import_module(_LAZY[name], __name__)
    return _missing(name)          # (a torch name autograd_lab lacks says so: not_here.py)


_missing = _not_here.module_getattr("torch", __name__, "al")
