"""Containers, as torch.nn has them: ModuleList and ModuleDict hold sub-modules,
ParameterList and ParameterDict hold parameters, each registered with the container (so
``parameters()``, ``state_dict()``, ``to()`` and printing reach them) and reached like a
list or a dict.  Unlike Sequential they have no forward: the module holding them says
how to use them.
"""
import collections.abc
import itertools
import operator

from ..core import dtypes
from ..core.tensor import Tensor
from .modules import Module, Parameter


def _index(container, idx):
    """The key of entry ``idx`` (negative counts from the end), or torch's IndexError."""
    idx = operator.index(idx)
    if not -len(container) <= idx < len(container):
        raise IndexError(f"index {idx} is out of range")
    return str(idx % len(container))


def _checked_iterable(values, what):
    if not isinstance(values, collections.abc.Iterable) or isinstance(values, Tensor):
        raise TypeError(f"{what} should be called with an iterable, but got {type(values).__name__}")


def _pairs(items, who):
    """(key, value) of a mapping, or of a sequence of pairs (torch's checks of each)."""
    if isinstance(items, collections.abc.Mapping) or hasattr(items, "items") and not isinstance(items, Tensor):
        return list(items.items())
    pairs = []
    for j, p in enumerate(items):
        if not isinstance(p, collections.abc.Iterable):
            raise TypeError(f"{who} update sequence element #{j} should be Iterable; is{type(p).__name__}")
        if len(p) != 2:
            raise ValueError(f"{who} update sequence element #{j} has length {len(p)}; 2 is required")
        pairs.append((p[0], p[1]))
    return pairs


class ModuleList(Module):
    """Sub-modules in a list: indexed (``layers[0]``, a slice gives a ModuleList),
    appended, extended, iterated; registered under the names "0", "1", ..."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[_index(self, idx)]

    def __setitem__(self, idx, module):
        setattr(self, _index(self, idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, _index(self, idx))
        kept = list(self._modules.values())            # renumbered from 0
        self._modules.clear()
        self._modules.update((str(i), m) for i, m in enumerate(kept))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(itertools.chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def insert(self, index, module):
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        if not isinstance(modules, collections.abc.Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def __repr__(self):
        """Runs of equal sub-modules printed once, as torch prints them: ``(0-2): 3 x Linear(...)``."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return f"{type(self).__name__}()"
        runs = []                                     # [first index, last index, printed form]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}").replace("\n", "\n  ")
                 for a, b, r in runs]
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """Sub-modules by name, reached as a dict: ``blocks["encoder"]``, ``keys()``,
    ``items()``, ``update()``; kept in the order they were added."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if not isinstance(modules, collections.abc.Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        for key, module in _pairs(modules, "ModuleDict"):
            self[key] = module


def _tensor_line(key, p, type_name):
    """One line of a ParameterList's or ParameterDict's printed form."""
    if isinstance(p, Tensor):
        size = "x".join(str(s) for s in p.shape)
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{type_name(p)} of size {size}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


class ParameterList(Module):
    """Parameters in a list (a tensor put in becomes a Parameter), registered under
    "0", "1", ... so that ``parameters()`` finds them."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, _index(self, idx))

    def __setitem__(self, idx, param):
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, _index(self, idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        _checked_iterable(values, "ParameterList.extend")
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_tensor_line(k, p, lambda t: repr(t.dtype)) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """Parameters by name (a tensor put in becomes a Parameter), reached as a dict; a plain
    dict given whole is taken in sorted key order, as torch takes it."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _attr(self, key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                            f"'{type(key).__name__}'). Open an issue on github if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._attr(key))

    def __setitem__(self, key, value):
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, self._attr(key), value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        return ParameterDict({k: self[k] for k in self._keys})

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k = next(reversed(self._keys))
        return k, self.pop(k)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict([(k, default) for k in keys])

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        if not isinstance(parameters, collections.abc.Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            + type(parameters).__name__)
        pairs = _pairs(parameters, "ParameterDict")
        if isinstance(parameters, collections.abc.Mapping) and type(parameters) is dict:
            pairs = sorted(pairs, key=lambda kv: kv[0])
        for key, parameter in pairs:
            self[key] = parameter

    def extra_repr(self):
        return "\n".join(_tensor_line(k, p, lambda t: "torch." + dtypes.legacy_type_name(t._data.dtype))
                         for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other):
        out = other.copy()
        out.update(self)
        return out

    def __ior__(self, other):
        self.update(other)
        return self


__all__ = ["ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]
