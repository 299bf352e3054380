"""torch.nn modules: objects that hold parameters and sub-modules, and call ``forward``.

A module keeps what is assigned to it in order -- parameters in ``_parameters``,
sub-modules in ``_modules`` -- which is what ``parameters()``, ``named_parameters()``,
``print(model)``, ``model[0]`` and ``model.to(device)`` walk.  The arithmetic lives in
``functional.py``; each module here only holds its settings.
"""
import copy
import math
import operator
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from .. import creation, devices, not_here
from ..core import dtypes, modes
from ..core.tensor import Tensor, refuse_integer_grad
from ..core.watch import RemovableHandle
from . import functional as F, init, module_hooks


class _ParameterType(type):
    def __instancecheck__(cls, obj):          # isinstance(p, nn.Parameter)
        return isinstance(obj, Tensor) and getattr(obj, "_is_parameter", False)


class Parameter(metaclass=_ParameterType):
    """A leaf tensor that requires grad and that a module registers as its parameter.
    (torch's Parameter is a Tensor subclass; here it is a Tensor marked as one, so that
    every operation sees a plain Tensor.)  It prints as ``Parameter containing:``."""

    def __new__(cls, data=None, requires_grad=True):
        data = creation.empty(0) if data is None else data
        if requires_grad:
            refuse_integer_grad(data)         # in torch's words for a tensor being made
        p = data.detach().requires_grad_(requires_grad)
        p._is_parameter = True
        return p


_HOOK_TABLES = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks")
_HOOK_FLAGS = ("_forward_pre_hooks_with_kwargs", "_forward_hooks_with_kwargs", "_forward_hooks_always_called")


class Module:
    training = True

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})
        for name in _HOOK_TABLES:                 # {handle id: hook}, in the order they run
            object.__setattr__(self, name, OrderedDict())
        for name in _HOOK_FLAGS:                  # the handle ids of hooks registered with that flag
            object.__setattr__(self, name, set())

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        held = self.__dict__
        for name in _HOOK_TABLES:
            if held.get(name):                    # hooks to run around the forward (module_hooks.py)
                return module_hooks.call(self, args, kwargs)
        return self.forward(*args, **kwargs)

    # -- hooks (module_hooks.py runs them) ----------------------------------------------------
    def _hook(self, table, hook, prepend, **flags):
        hooks = self.__dict__[table]
        handle = RemovableHandle(hooks, hook)
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        for flag, on in flags.items():
            if on:
                self.__dict__[flag].add(handle.id)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call ``hook(module, args)`` before each forward (``with_kwargs``: ``hook(module,
        args, kwargs)``); what it returns, if not None, replaces the arguments."""
        return self._hook("_forward_pre_hooks", hook, prepend, _forward_pre_hooks_with_kwargs=with_kwargs)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Call ``hook(module, args, output)`` after each forward (``with_kwargs``:
        ``hook(module, args, kwargs, output)``); what it returns, if not None, replaces the
        output.  ``always_call``: also when the forward raises."""
        return self._hook("_forward_hooks", hook, prepend, _forward_hooks_with_kwargs=with_kwargs,
                          _forward_hooks_always_called=always_call)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_output)`` when the gradient with respect to the output
        arrives; what it returns, if not None, replaces grad_output."""
        return self._hook("_backward_pre_hooks", hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_input, grad_output)`` once the gradients with respect to
        the inputs are computed; what it returns, if not None, replaces grad_input."""
        return self._hook("_backward_hooks", hook, prepend)

    def register_backward_hook(self, hook):
        raise NotImplementedError("register_backward_hook (torch's deprecated non-full hook) is not implemented in "
                                  "autograd_lab; use register_full_backward_hook")

    # -- copying: copy.deepcopy(model) ----------------------------------------------------------
    def __deepcopy__(self, memo):
        """A module of the same class holding copies of everything it holds: parameters and
        buffers (leaves, as torch copies them), sub-modules, settings, hooks."""
        clone = type(self).__new__(type(self))
        memo[id(self)] = clone
        for name, value in self.__dict__.items():
            object.__setattr__(clone, name, copy.deepcopy(value, memo))
        return clone

    # -- what a module holds ---------------------------------------------------------------
    def __setattr__(self, name, value):
        """A Parameter, a Module or a tensor for a buffer's name is registered in its table
        (a name reassigned keeps its place, as in torch); anything else is an attribute.
        A name holding a parameter or a sub-module takes only another of its kind, or None."""
        held = self.__dict__
        params, modules, buffers = held.get("_parameters"), held.get("_modules"), held.get("_buffers")
        if isinstance(value, (Parameter, Module)) and params is None:
            kind = "parameters" if isinstance(value, Parameter) else "module"
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if isinstance(value, Parameter):
            _forget(name, held, buffers, modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            _forget(name, held, params, buffers)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):              # only called when normal lookup fails
        for table in ("_parameters", "_buffers", "_modules"):
            held = self.__dict__.get(table, {})
            if name in held:
                return held[name]
        if name.startswith("_"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        raise not_here.error("torch.nn.Module", name, f"'{type(self).__name__}' object",
                             dir(type(self)) + list(self.__dict__) +
                             [n for t in ("_parameters", "_buffers", "_modules") for n in self.__dict__.get(t, {})],
                             "al.nn.Module", kind="members")

    def __delattr__(self, name):
        for table in (self.__dict__.get("_parameters", {}), self.__dict__.get("_buffers", {}),
                      self.__dict__.get("_modules", {})):
            if name in table:
                del table[name]
                self.__dict__.get("_non_persistent_buffers_set", set()).discard(name)
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """A tensor the module keeps that is not a parameter (a running mean, say): moved by
        ``to()``, and saved in ``state_dict()`` unless ``persistent=False``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if name not in self._buffers and (name in self.__dict__ or name in self._parameters or
                                          name in self._modules or hasattr(type(self), name)):
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def get_submodule(self, target):
        """The sub-module at a dotted path ("encoder.layers.0"); "" is the module itself."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def _get_name(self):
        return type(self).__name__

    register_module = add_module

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, p in module._parameters.items():
                if p is not None and not (remove_duplicate and id(p) in seen):
                    seen.add(id(p))
                    yield (f"{module_prefix}.{name}" if module_prefix else name), p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, b in module._buffers.items():
                if b is not None and not (remove_duplicate and id(b) in seen):
                    seen.add(id(b))
                    yield (f"{module_prefix}.{name}" if module_prefix else name), b

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- saving and loading ----------------------------------------------------------------
    def _own_state(self):
        """(name, tensor) of what this module alone saves: parameters, then persistent buffers."""
        yield from ((n, p) for n, p in self._parameters.items() if p is not None)
        yield from ((n, b) for n, b in self._buffers.items()
                    if b is not None and n not in self._non_persistent_buffers_set)

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer by its dotted name,
        detached (the same memory: a later step changes them) unless ``keep_vars``."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        destination._metadata[prefix[:-1]] = {"version": getattr(self, "_version", 1)}
        for name, t in self._own_state():
            destination[prefix + name] = t if keep_vars else t.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy the tensors of ``state_dict`` into the module's parameters and buffers, by
        name.  Keys missing or unexpected are an error when ``strict`` (else they are
        returned); a tensor of another shape is always an error.  ``assign=True`` puts the
        given tensors in place of the module's own instead of copying."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        for prefix, module in _prefixed_modules(self, ""):
            module._load_own(state_dict, prefix, assign, missing, unexpected, errors)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def _load_own(self, state_dict, prefix, assign, missing, unexpected, errors):
        own = dict(self._own_state())
        for name, t in own.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            given = state_dict[key]
            if not isinstance(given, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(given)}")
                continue
            if t.ndim == 0 and given.ndim == 1:       # an old checkpoint's scalar, as torch
                given = given[0]
            if given.shape != t.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape torch.Size({list(given.shape)}) "
                              f"from checkpoint, the shape in current model is torch.Size({list(t.shape)}).")
                continue
            if assign:
                setattr(self, name, Parameter(given, t.requires_grad) if isinstance(t, Parameter) else given)
            else:
                with modes.no_grad():
                    t.copy_(given)
        for key in state_dict:
            if key.startswith(prefix):
                first = key[len(prefix):].split(".", 1)[0]
                if first not in self._modules and first not in own:
                    unexpected.append(key)

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(dotted name, module) for the module and every sub-module, depth first; one held
        twice is listed once (unless ``remove_duplicate=False``)."""
        if memo is None:
            memo = set()
        if id(self) in memo and remove_duplicate:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # -- modes, gradients, devices ----------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            m.training = mode
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            zero_grad_of(p, set_to_none)

    def to(self, *args, **kwargs):
        """The CPU is the only device (see ``devices.py``); a dtype converts every floating
        parameter in place, as torch does."""
        dtype = kwargs.get("dtype")
        devices.check(kwargs.get("device"))
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, devices.device)):
                devices.check(a)
            else:
                dtype = a
        if dtype is not None:
            for p in (*self.parameters(), *self.buffers()):
                if p.is_floating_point():
                    p._data = p._data.astype(dtypes.to_numpy(dtype))
        return self

    def cpu(self):
        return self

    def cuda(self, device=None):
        devices.check(devices.device("cuda", device))

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    # -- printing ------------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({name}): " + _indent(repr(m)) for name, m in self._modules.items()]
        if not children and len(lines) <= 1:
            return f"{self._get_name()}({extra})"
        return f"{self._get_name()}(\n  " + "\n  ".join(lines + children) + "\n)"


def _forget(name, *tables):
    """Take ``name`` out of the tables that are not the one it is going into."""
    for table in tables:
        if table is not None:
            table.pop(name, None)


def typename(obj):
    """torch.typename: a tensor's legacy type name, else the object's class by its module."""
    if isinstance(obj, Tensor):
        return "torch." + dtypes.legacy_type_name(obj._data.dtype)
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", None) else f"{module}.{cls.__qualname__}"


class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys missing from the state_dict and those it
    had that the module lacks."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _prefixed_modules(module, prefix):
    """(prefix, module) for the module and every sub-module, as state_dict names them
    (a module held twice, twice)."""
    yield prefix, module
    for name, m in module._modules.items():
        if m is not None:
            yield from _prefixed_modules(m, prefix + name + ".")


def _indent(text):
    return text.replace("\n", "\n  ")


def zero_grad_of(p, set_to_none):
    """What zero_grad does to one parameter (modules and optimizers alike)."""
    if p.grad is None:
        return
    if set_to_none:
        p.grad = None
    else:
        if p.grad.grad_fn is not None:
            p.grad = p.grad.detach()
        p.grad.zero_()


# -- layers ------------------------------------------------------------------------------------
def fan_in_uniform(module, fan_in):
    """torch's initialisation of Linear and Conv2d (kaiming_uniform_ with a = √5, which
    comes to the same bound): weight, then bias, uniform in ±1/√fan_in, drawn from the
    package's generator."""
    bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
    for p in (module.weight, module.bias):
        if p is not None:
            init.uniform_(p, -bound, bound)


class Linear(Module):
    """y = x Wᵀ + b, with torch's initialisation: W and b uniform in ±1/√in_features."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        devices.check(device)
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(creation.empty(out_features, in_features, dtype=dtype))
        self.bias = Parameter(creation.empty(out_features, dtype=dtype)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        fan_in_uniform(self, self.in_features)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


def _ntuple(v, n):
    """kernel_size=3 as (3, 3) (n = 2), a sequence as a tuple, as torch's _pair/_triple."""
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _ConvNd(Module):
    """What Conv1d/2d/3d and ConvTranspose1d/2d/3d share: their settings, checked in
    torch's words, a weight (out, in / groups, *kernel) -- (in, out / groups, *kernel)
    when transposed -- and a bias (out), initialised as torch does."""
    dims, transposed = 2, False

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                 padding_mode, output_padding=0, device=None, dtype=None):
        super().__init__()
        devices.check(device)
        n = self.dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        kernel_size, stride, dilation = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):      # (a set, printed in the order torch's prints in)
                raise ValueError(f"Invalid padding string {padding!r}, should be one of { {'same', 'valid'} }")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        modes = {"zeros", "reflect", "replicate", "circular"}       # (a set literal, as torch's)
        if padding_mode not in modes:
            raise ValueError(f"padding_mode must be one of {modes}, but got padding_mode='{padding_mode}'")
        if self.transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.output_padding, self.padding_mode = _ntuple(output_padding, n), padding_mode
        self._reversed_padding_repeated_twice = self._padding_for_mode()
        shape = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(creation.empty(*shape, *kernel_size, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _padding_for_mode(self):
        """F.pad's list (last dimension first, each side) that a padding_mode other than
        zeros pads the input with before a convolution without padding."""
        if self.padding == "valid":
            return [0, 0] * self.dims
        if self.padding == "same":
            pads = []
            for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                total = d * (k - 1)
                pads += [total // 2, total - total // 2]
            return pads
        return [p for p in reversed(self.padding) for _ in range(2)]

    def reset_parameters(self):
        fan_in_uniform(self, self.weight.shape[1] * math.prod(self.kernel_size))

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self.dims:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.dims:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def forward(self, input):
        conv = (F.conv1d, F.conv2d, F.conv3d)[self.dims - 1]
        if self.padding_mode != "zeros":              # padded first, as torch does
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_Conv):
    """A 1-D convolution layer (over sequences: input (N, C, L))."""
    dims = 1


class Conv2d(_Conv):
    """A 2-D convolution layer: weight (out, in / groups, kh, kw) and bias (out), initialised
    as torch does; padding a number, a pair, "valid" or "same"; padding_mode "zeros",
    "reflect", "replicate" or "circular"."""
    dims = 2


class Conv3d(_Conv):
    """A 3-D convolution layer (over volumes or clips: input (N, C, D, H, W))."""
    dims = 3


class _ConvTranspose(_ConvNd):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, output_padding, device=device, dtype=dtype)

    def forward(self, input, output_size=None):
        conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self.dims - 1]
        extra = self._output_padding(input, output_size)
        return conv(input, self.weight, self.bias, self.stride, self.padding, extra, self.groups, self.dilation)

    def _output_padding(self, input, output_size):
        """output_padding, or what makes the output ``output_size`` (torch's checks)."""
        if output_size is None:
            return self.output_padding
        n = self.dims
        lead = 2 if input.ndim == n + 2 else 1
        if len(output_size) == lead + n:
            output_size = output_size[lead:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.ndim}D input, output_size must have {n} or {lead + n} "
                             f"elements (got {len(output_size)})")
        low = [(input.shape[d + lead] - 1) * s - 2 * p + dl * (k - 1) + 1 for d, (s, p, dl, k) in
               enumerate(zip(self.stride, self.padding, self.dilation, self.kernel_size))]
        high = [m + s - 1 for m, s in zip(low, self.stride)]
        if any(not lo <= size <= hi for size, lo, hi in zip(output_size, low, high)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {low} to "
                             f"{high} (for an input of torch.Size({list(input.shape[2:])}))")
        return tuple(size - lo for size, lo in zip(output_size, low))


class ConvTranspose1d(_ConvTranspose):
    """A transposed 1-D convolution layer: conv1d's gradient with respect to its input."""
    dims = 1


class ConvTranspose2d(_ConvTranspose):
    """A transposed 2-D convolution layer (upsampling with learned weights): weight (in,
    out / groups, kh, kw)."""
    dims = 2


class ConvTranspose3d(_ConvTranspose):
    dims = 3


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class MaxPool1d(MaxPool2d):
    """Max pooling of sequences (N, C, L)."""

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """Average pooling of sequences (N, C, L)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class Dropout(Module):
    """Zeroes each entry with probability p in training (scaling the rest by 1 / (1 - p));
    passes the input through in eval mode."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Sequential(Module):
    """Modules applied one after the other; indexed, sliced, changed and iterated like a
    list (an OrderedDict names them)."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self:
            input = m(input)
        return input

    def _key(self, idx):
        """The name of entry ``idx`` (negative counts from the end), or torch's IndexError."""
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return list(self._modules)[idx % len(self)]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx):
        keys = list(self._modules)[idx] if isinstance(idx, slice) else [self._key(idx)]
        for key in keys:
            delattr(self, key)
        kept = list(self._modules.values())           # renumbered from 0
        self._modules.clear()
        self._modules.update((str(i), m) for i, m in enumerate(kept))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def _check_sequential(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")

    def __add__(self, other):
        self._check_sequential(other)
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other):
        self._check_sequential(other)
        return self.extend(list(other))

    def __mul__(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        return Sequential().extend(list(self) * other)

    __rmul__ = __mul__

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        index = index + n if index < 0 else index
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self


# -- activations -------------------------------------------------------------------------------
class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    def forward(self, input):
        return F.tanh(input)


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


# -- losses: a module per function of functional.py, holding its settings ------------------------
class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction


class MSELoss(_Loss):
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class BCELoss(_Loss):
    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class NLLLoss(_Loss):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(NLLLoss):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(weight, ignore_index, reduction)
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)

