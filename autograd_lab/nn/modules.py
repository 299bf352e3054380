"""torch.nn modules: objects that hold parameters and sub-modules, and call ``forward``.

A module keeps what is assigned to it in order -- parameters in ``_parameters``,
sub-modules in ``_modules`` -- which is what ``parameters()``, ``named_parameters()``,
``print(model)``, ``model[0]`` and ``model.to(device)`` walk.  The arithmetic lives in
``functional.py``; each module here only holds its settings.
"""
import math

from .. import creation, devices, dtypes
from ..tensor import Tensor
from . import functional as F


class _ParameterType(type):
    def __instancecheck__(cls, obj):          # isinstance(p, nn.Parameter)
        return isinstance(obj, Tensor) and getattr(obj, "_is_parameter", False)


class Parameter(metaclass=_ParameterType):
    """A leaf tensor that requires grad and that a module registers as its parameter.
    (torch's Parameter is a Tensor subclass; here it is a Tensor marked as one, so that
    every operation sees a plain Tensor.)  It prints as ``Parameter containing:``."""

    def __new__(cls, data=None, requires_grad=True):
        data = creation.empty(0) if data is None else data
        p = data.detach().requires_grad_(requires_grad)
        p._is_parameter = True
        return p


class Module:
    training = True

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    # -- what a module holds ---------------------------------------------------------------
    def __setattr__(self, name, value):
        params, modules = self.__dict__.get("_parameters"), self.__dict__.get("_modules")
        if isinstance(value, (Parameter, Module)) and params is None:
            kind = "parameters" if isinstance(value, Parameter) else "module"
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if params is not None:
            for table in (params, modules, self.__dict__):
                table.pop(name, None)
        if isinstance(value, Parameter):
            params[name] = value
        elif isinstance(value, Module):
            modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):              # only called when normal lookup fails
        for table in ("_parameters", "_modules"):
            held = self.__dict__.get(table, {})
            if name in held:
                return held[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in (self.__dict__.get("_parameters", {}), self.__dict__.get("_modules", {})):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._parameters[name] = param

    def add_module(self, name, module):
        self._modules[name] = module

    register_module = add_module

    def named_parameters(self, prefix="", recurse=True):
        seen = set()
        for module_prefix, module in (self.named_modules(prefix) if recurse else [(prefix, self)]):
            for name, p in module._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{module_prefix}.{name}" if module_prefix else name), p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_children(self):
        yield from ((name, m) for name, m in self._modules.items() if m is not None)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, m in self.named_children():
            yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

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
            for p in self.parameters():
                if p._data.dtype.kind == "f":
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
            return f"{type(self).__name__}({extra})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines + children) + "\n)"


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
        bound = 1 / math.sqrt(self.in_features) if self.in_features else 0.0
        for p in (self.weight, self.bias):
            if p is not None:
                p._data[...] = (creation.rand(*p.shape, dtype=p.dtype) * (2 * bound) - bound)._data

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


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
    """Modules applied one after the other; indexed, sliced and iterated like a list."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], dict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self:
            input = m(input)
        return input

    def __getitem__(self, idx):
        items = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(dict(items[idx]))
        if not -len(items) <= idx < len(items):
            raise IndexError(f"index {idx} is out of range")
        return items[idx][1]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


# -- activations -------------------------------------------------------------------------------
class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input)

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

