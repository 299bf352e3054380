"""Lazy modules, as torch.nn has them: LazyLinear is a Linear whose ``in_features`` is
read from its first input.  Until then its weight and bias are
:class:`UninitializedParameter`\\ s -- they can be handed to an optimizer, not computed
with -- and on the first call they take their shapes, torch's initialisation, and the
module becomes a plain Linear (``type(layer) is nn.Linear`` afterwards, as in torch).
"""

from ..core import dtypes, modes
from ..core.tensor import Tensor
from .modules import Linear, Module

UNINITIALIZED_SHAPE = ("Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
                       "in `load_state_dict` when trying to load an uninitialized parameter into an initialized one. "
                       "Call `forward` to initialize the parameters before accessing their attributes.")
UNINITIALIZED_USE = ("Attempted to use an uninitialized parameter in {}. This error happens when you are using a "
                     "`LazyModule` or explicitly manipulating `torch.nn.parameter.UninitializedParameter` objects. "
                     "When using LazyModules Call `forward` with a dummy batch to initialize the parameters before "
                     "calling torch functions")


class UninitializedParameter(Tensor):
    """A parameter without numbers or shape yet: any use but handing it around raises,
    until :meth:`materialize` gives it a shape (then it is a plain Parameter, the same
    object: an optimizer that holds it keeps it)."""
    __slots__ = ()
    _grad_fn = None                   # (a leaf; its numbers come with materialize)
    _requires_grad = True

    def __init__(self, requires_grad=True, device=None, dtype=None):
        self._is_parameter = True
        self._wants_grad, self._lazy_dtype = requires_grad, dtype

    @property
    def _data(self):
        raise ValueError(UNINITIALIZED_USE.format("an operation"))

    @property
    def shape(self):
        raise RuntimeError(UNINITIALIZED_SHAPE)

    def size(self, dim=None):
        raise RuntimeError(UNINITIALIZED_SHAPE)

    def detach(self):
        return self

    def numpy(self, *, force=False):
        raise ValueError(UNINITIALIZED_USE.format("numpy()"))

    __array__ = numpy

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise ValueError(UNINITIALIZED_USE.format(ufunc.__name__))

    def __array_function__(self, func, types, args, kwargs):
        raise ValueError(UNINITIALIZED_USE.format(func.__name__))

    def __repr__(self):
        return "<UninitializedParameter>"

    def materialize(self, shape, device=None, dtype=None):
        """Give it ``shape``: uninitialized numbers (an initialisation fills them), and the
        class of a plain parameter."""
        dtype = dtype if dtype is not None else self._lazy_dtype
        wants_grad = self._wants_grad
        del self._wants_grad, self._lazy_dtype
        self.__class__ = Tensor
        Tensor.__init__(self, *shape, dtype=dtype, requires_grad=wants_grad)


def is_lazy(t):
    return isinstance(t, UninitializedParameter)


class LazyModuleMixin:
    """What a lazy module adds: a forward pre-hook that, on the first call, gives the
    parameters their shapes from the input, initialises them and turns the module into
    its ``cls_to_become``."""
    cls_to_become = None

    def _start_lazy(self):
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self):
        return any(is_lazy(p) for p in (*self._parameters.values(), *self._buffers.values()))

    def _load_own(self, state_dict, prefix, assign, missing, unexpected, errors):
        """Loading gives an uninitialized parameter the shape of the one loaded."""
        for name, p in self._parameters.items():
            if is_lazy(p) and prefix + name in state_dict:
                with modes.no_grad():
                    p.materialize(state_dict[prefix + name].shape)
        super()._load_own(state_dict, prefix, assign, missing, unexpected, errors)


def _infer_parameters(module, args, kwargs):
    module.initialize_parameters(*args, **kwargs)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """Linear(in_features read from the first input's last dimension, out_features)."""
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self._start_lazy()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            with modes.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


__all__ = ["LazyLinear", "UninitializedParameter", "LazyModuleMixin"]
