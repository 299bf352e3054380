"""torch's switches for other hardware and for speed, answered as a CPU-only torch answers them.

Learners' setup code sets them whatever machine it runs on; here they are accepted, and
change nothing, because autograd_lab computes with NumPy on one CPU, always in the same
order.  Where a CPU-only torch refuses, so does autograd_lab, in torch's words.

- ``al.backends.cudnn``: ``deterministic``, ``benchmark``, ``enabled``, ``allow_tf32``,
  ``benchmark_limit`` (settable, torch's defaults), ``is_available()`` (False),
  ``version()`` (None).  ``al.backends.mps.is_available()`` / ``is_built()`` (False),
  ``al.backends.cuda.is_built()`` (False), ``al.backends.cuda.matmul.allow_tf32`` (settable).
- ``al.cuda`` (besides ``is_available``, ``device_count``, ``manual_seed(_all)``, in
  devices.py): ``empty_cache()`` does nothing, ``memory_allocated()`` and
  ``max_memory_allocated()`` (and the ``reserved`` ones) are 0, ``is_bf16_supported()`` is
  False; ``synchronize()``, ``current_device()``, ``set_device()``, ``get_device_name()``,
  ``get_device_capability()``, ``reset_peak_memory_stats()`` raise "Torch not compiled with
  CUDA enabled", as there (for ``set_device`` and ``reset_peak_memory_stats`` torch 2.13
  raises an AttributeError about its C extension instead: the words here say why).
- Mixed precision: ``al.autocast(device_type, ...)``, ``al.amp.autocast``,
  ``al.cuda.amp.autocast`` (a context manager and a decorator): for "cuda", torch's warning
  and nothing else (no GPU: disabled); for "cpu" with bfloat16 or float16 it is refused in
  words (torch would compute matrix products in a dtype autograd_lab does not compute in);
  ``enabled=False`` always does nothing.  ``al.amp.GradScaler`` (and ``al.cuda.amp.
  GradScaler``): for "cuda", torch's warning and a scaler that passes everything through
  (``scale(x)`` is x, ``step(opt)`` is ``opt.step()``); for "cpu" it scales, unscales and
  skips steps with inf or nan gradients, as torch's.
- ``al.compile(model)``: gives back ``model`` itself (as a decorator too).  torch's
  compiler makes code faster, not different, and autograd_lab has no compiler: the
  numbers are the same; ``isinstance`` of torch's wrapper (OptimizedModule) is not.
- ``al.set_float32_matmul_precision`` / ``get_float32_matmul_precision``,
  ``al.use_deterministic_algorithms`` / ``are_deterministic_algorithms_enabled`` /
  ``is_deterministic_algorithms_warn_only_enabled``, ``al.set_num_threads`` /
  ``get_num_threads``: remembered and reported back, checked as torch checks them.
- Tensors: ``x.get_device()`` is -1 (the CPU), ``x.is_pinned()`` is False,
  ``x.pin_memory()`` is refused as a CPU-only torch refuses it.
- ``al.cuda.FloatTensor`` and torch.cuda's other legacy types: they can be named, no
  tensor is one, and making one or casting to one is refused in torch's words.
  (``al.nn.DataParallel``, the model itself wrapped, is in nn/data_parallel.py.)

The book lists them in the glossary's entry "Settings for GPUs and speed".
"""
import functools
import os
import sys
import warnings
from types import ModuleType

import numpy as np

from . import devices, not_here
from .core import dtypes
from .core.modes import no_grad
from .core.tensor import Tensor, install

NO_CUDA = ("Torch not compiled with CUDA enabled (autograd_lab runs on the CPU only: "
           "al.cuda.is_available() is False)")


def _module(name, doc, **members):
    """A module of these members, with the errors for torch's names it lacks."""
    module = ModuleType(f"autograd_lab.{name}", doc)
    module.__dict__.update(members)
    module.__getattr__ = not_here.module_getattr(f"torch.{name}", module.__name__, f"al.{name}")
    sys.modules[module.__name__] = module
    return module


def _no_cuda(*args, **kwargs):
    raise AssertionError(NO_CUDA)


# -- backends -------------------------------------------------------------------------------
class _Flags:
    """Settable flags, as ``torch.backends.cuda.matmul``."""

    def __init__(self, **flags):
        self.__dict__.update(flags)


cudnn = _module("backends.cudnn", "torch.backends.cudnn: flags for a GPU library (no GPU here)",
                enabled=True, benchmark=False, deterministic=False, allow_tf32=True, benchmark_limit=10,
                is_available=lambda: False, version=lambda: None)
mps = _module("backends.mps", "torch.backends.mps: Apple GPUs (none here)",
              is_available=lambda: False, is_built=lambda: False)
cuda_backend = _module("backends.cuda", "torch.backends.cuda: NVIDIA GPUs (none here)",
                       is_built=lambda: False,
                       matmul=_Flags(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                     allow_bf16_reduced_precision_reduction=True))
backends = _module("backends", "torch.backends, as a CPU-only torch answers it",
                   cudnn=cudnn, mps=mps, cuda=cuda_backend)


# -- mixed precision ------------------------------------------------------------------------
class autocast:
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``, a
    context manager and a decorator: disabled for "cuda" (no GPU: torch's warning), refused
    for "cpu" in bfloat16 or float16, which autograd_lab does not compute matrix products in."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        devices.device(device_type)                 # (torch's words for an unknown type)
        if device_type == "meta" and enabled:
            raise RuntimeError("unsupported scalarType")
        self.device_type, self.dtype, self.enabled = device_type, dtype, bool(enabled)
        if self.enabled and device_type == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=_caller_level())
            self.enabled = False
        if self.enabled and device_type == "cpu" and dtype not in (None, dtypes.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                          "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                          "torch.float16 currently.", UserWarning, stacklevel=_caller_level())
            self.enabled = False

    def __enter__(self):
        if self.enabled and self.device_type == "cpu":
            raise NotImplementedError(
                "autocast on the CPU is not implemented in autograd_lab: torch would compute "
                "matrix products and convolutions inside it in "
                f"{'float16' if self.dtype is dtypes.float16 else 'bfloat16'}, which autograd_lab "
                "does not; leave it out (the numbers then are float32's) or pass enabled=False")
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorated


def _caller_level():
    """The stacklevel that names the user's line, outside this module."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame, level = frame.f_back, level + 1
    return level


class GradScaler:
    """``torch.amp.GradScaler(device="cuda", init_scale=2.**16, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True)``.  For "cuda" (no GPU here)
    disabled, with torch's warning: it passes everything through.  For "cpu" it works as
    torch's: ``scale`` multiplies the loss, ``unscale_`` divides the gradients back and
    notes an inf or nan, ``step`` skips the optimizer's step then, ``update`` shrinks the
    scale after such a step and grows it after ``growth_interval`` good ones."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        if enabled and device == "cuda":
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          UserWarning, stacklevel=_caller_level())
            enabled = False
        self._enabled, self._device = enabled, device
        self._init_scale, self._growth_factor, self._backoff_factor = init_scale, growth_factor, backoff_factor
        self._growth_interval, self._growth_tracker = growth_interval, 0
        self._scale = None
        self._per_optimizer = {}      # id(optimizer) -> {"unscaled": bool, "stepped": bool, "inf": bool}

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        if not self._enabled:
            return outputs
        if self._scale is None:
            if abs(self._init_scale) > np.finfo(np.float32).max:
                raise RuntimeError("value cannot be converted to type float without overflow")
            self._scale = Tensor._make(np.array(self._init_scale, np.float32))
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        return type(outputs)(self.scale(o) for o in outputs)

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"unscaled": False, "stepped": False, "inf": False})

    def _check_scale(self, where):
        if self._scale is None:
            raise AssertionError(f"Attempted {where} but _scale is None.  This may indicate your script "
                                 "did not use scaler.scale(loss or outputs) earlier in the iteration.")

    def unscale_(self, optimizer):
        if not self._enabled:
            return
        self._check_scale("unscale_")
        state = self._state(optimizer)
        if state["unscaled"]:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stepped"]:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = 1.0 / float(self._scale._data)
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.grad.mul_(inverse)
                        state["inf"] = state["inf"] or not bool(np.isfinite(p.grad._data).all())
        state["unscaled"] = True

    def step(self, optimizer, *args, **kwargs):
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        self._check_scale("step")
        state = self._state(optimizer)
        if state["stepped"]:
            raise RuntimeError("step() has already been called since the last update().")
        if not state["unscaled"]:
            self.unscale_(optimizer)
        state["stepped"] = True
        return None if state["inf"] else optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        if not self._enabled:
            return
        self._check_scale("update")
        if new_scale is not None:
            value = float(new_scale._data if isinstance(new_scale, Tensor) else new_scale)
        else:
            found = [s["inf"] for s in self._per_optimizer.values()]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            value = float(self._scale._data)
            if any(found):
                value, self._growth_tracker = value * self._backoff_factor, 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    value, self._growth_tracker = value * self._growth_factor, 0
        self._scale = Tensor._make(np.array(value, np.float32))
        self._per_optimizer.clear()

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale._data)

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a "
                               "disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        self._scale = Tensor._make(np.array(state_dict["scale"], np.float32))
        self._growth_factor, self._backoff_factor = state_dict["growth_factor"], state_dict["backoff_factor"]
        self._growth_interval, self._growth_tracker = state_dict["growth_interval"], state_dict["_growth_tracker"]


def _cuda_autocast(enabled=True, dtype=dtypes.float16, cache_enabled=True):
    warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                  "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
    return autocast("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


def _cuda_grad_scaler(init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                      enabled=True):
    warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                  "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
    return GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


amp = _module("amp", "torch.amp: mixed precision", autocast=autocast, GradScaler=GradScaler)
cuda_amp = _module("cuda.amp", "torch.cuda.amp (deprecated in torch): mixed precision on GPUs",
                   autocast=_cuda_autocast, GradScaler=_cuda_grad_scaler)
devices.cuda.__dict__.update(
    amp=cuda_amp, empty_cache=lambda: None, memory_allocated=lambda device=None: 0,
    max_memory_allocated=lambda device=None: 0, memory_reserved=lambda device=None: 0,
    max_memory_reserved=lambda device=None: 0, is_bf16_supported=lambda including_emulation=True: False,
    synchronize=_no_cuda, current_device=_no_cuda, set_device=_no_cuda, get_device_name=_no_cuda,
    get_device_capability=_no_cuda, reset_peak_memory_stats=_no_cuda)



class _cuda_tensortype(type):
    """torch.cuda's legacy tensor types (``al.cuda.FloatTensor``, ...), as a CPU-only torch
    has them: they can be named (``dtype = torch.cuda.FloatTensor`` in a course's setup
    code), no tensor is one, and making one, or casting to one, is refused."""

    def __call__(cls, *args, **kwargs):
        raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not compiled with CUDA "
                        "enabled.")

    def __instancecheck__(cls, obj):
        return False

    def __repr__(cls):
        return f"<class 'torch.cuda.{cls.__name__}'>"

    @property
    def dtype(cls):                      # (read by x.type(al.cuda.FloatTensor): torch's error)
        raise RuntimeError(f"Cannot initialize CUDA without ATen_cuda library. {NO_CUDA}")


devices.cuda.__dict__.update(
    {name: _cuda_tensortype(name, (), {}) for name in (
        "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
        "ShortTensor", "IntTensor", "LongTensor", "BoolTensor")})

# -- compilation, precision, determinism, threads ------------------------------------------
def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False, **kwargs):
    """``model`` itself: autograd_lab has no compiler, and torch's changes speed, not numbers
    (as a decorator too: ``@al.compile`` or ``@al.compile(mode=...)``)."""
    if model is None:
        return lambda fn: fn
    return model


_settings = {"matmul_precision": "highest", "deterministic": False, "warn_only": False,
             "threads": os.cpu_count() or 1}


def set_float32_matmul_precision(precision):
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _settings["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _settings["matmul_precision"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    """autograd_lab is deterministic whatever this says (NumPy, one order); remembered."""
    if not isinstance(mode, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    _settings["deterministic"], _settings["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _settings["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _settings["warn_only"]


def set_num_threads(num):
    if not isinstance(num, int) or num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _settings["threads"] = num


def get_num_threads():
    return _settings["threads"]


class HardwareMethods:
    """Tensor's methods about devices and pinned memory, as on a CPU-only torch."""

    def get_device(self):
        return -1

    def is_pinned(self, device=None):
        return False

    def pin_memory(self, device=None):
        raise RuntimeError("Cannot access accelerator device when none is available.")


install(HardwareMethods)
