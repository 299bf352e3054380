"""Calling a module with tensors of your own in place of its parameters and buffers:
``functional_call`` (torch.func.functional_call) and ``stack_module_state``.

    params = {k: v.detach() for k, v in model.named_parameters()}
    loss = lambda params, x, y: F.mse_loss(functional_call(model, params, (x,)), y)
    grads = al.func.grad(loss)(params, x, y)       # a dict: one gradient per name

The module's own tensors are swapped out for the call and put back afterwards, also when
the call raises, so a function of the parameters can be handed to a transform while the
module keeps its state.  Names are dotted paths (``"0.weight"``), as ``named_parameters``
gives them; a module holding one tensor under two names (tied weights) gets the value
given for either name under both, unless ``tie_weights=False``.
"""
import contextlib

from ..core.tensor import Tensor
from ..functions import stack

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()      # a name the module did not have before the call


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a
    dict of names to tensors, or a tuple/list of such dicts, no name in two of them) in
    place of the module's; ``strict=True`` requires exactly the module's names."""
    tensors = _merged(parameter_and_buffer_dicts)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, tensors, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def stack_module_state(models):
    """``(params, buffers)``: each name's tensors of the models stacked along a new first
    dimension (leaves that require grad when the models' do), for an ensemble."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    stacked = []
    for named in (_named_parameters, _named_buffers):
        each = [dict(named(m)) for m in models]
        table = {}
        for name in each[0]:
            ts = [d[name] for d in each]
            grads = [t.requires_grad for t in ts]
            if any(grads) and not all(grads):
                raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
            s = stack(ts)
            table[name] = s.detach().requires_grad_() if all(grads) else s
        stacked.append(table)
    return tuple(stacked)


def _merged(dicts):
    if isinstance(dicts, dict):
        return dicts
    if not isinstance(dicts, (tuple, list)):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
                         f"but got {type(dicts)}")
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    counts = {}
    for d in dicts:
        for k in d:
            counts[k] = counts.get(k, 0) + 1
    repeated = [k for k, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call "
                         "is ambiguous")
    return {k: v for d in dicts for k, v in d.items()}


def _named_parameters(module):
    return _named(module, "_parameters")


def _named_buffers(module):
    return _named(module, "_buffers")


def _named(module, table):
    """Every (dotted name, tensor) a module's ``table`` holds, tied ones under each name."""
    for prefix, m in module.named_modules(remove_duplicate=False):
        for name, t in m.__dict__.get(table, {}).items():
            if t is not None:
                yield (f"{prefix}.{name}" if prefix else name), t


def _untied(module, tensors):
    """``tensors`` with each value given for a tied tensor given under all its names."""
    names_of = {}
    for name, t in [*_named_parameters(module), *_named_buffers(module)]:
        names_of.setdefault(id(t), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    out = dict(tensors)
    for given in [n for n in tensors if n in tied]:
        names = tied[given]
        if len({id(tensors[n]) for n in names if n in tensors}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are "
                             "tied. Consider using tie_weights=False")
        for n in names:
            out[n] = tensors[given]
    return out


@contextlib.contextmanager
def _reparametrized(module, tensors, tie_weights, strict):
    if tie_weights:
        tensors = _untied(module, tensors)
    if strict:
        valid = {n for n, _ in [*_named_parameters(module), *_named_buffers(module)]}
        msgs = []
        unexpected, missing = sorted(set(tensors) - valid), sorted(valid - set(tensors))
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" +
                               "\n\t".join(msgs))
    before = {}
    try:
        for name, t in tensors.items():
            before[name] = _swap(module, name, t)
        yield
    finally:
        for name, t in before.items():
            _swap(module, name, t)


def _swap(module, path, tensor):
    """Put ``tensor`` at ``path`` (``_MISSING``: remove it); returns what was there."""
    owner = module
    *parents, name = path.split(".")
    for part in parents:
        sub = owner.__dict__.get("_modules", {}).get(part, _MISSING)
        if sub is _MISSING:
            if not hasattr(owner, part):
                raise AttributeError(f"{type(owner).__name__} has no attribute `{part}`")
            sub = getattr(owner, part)
        if not hasattr(sub, "_parameters"):
            raise TypeError(f"submodule `{part}`: {sub!r} is not an instance of torch.nn.Module")
        owner = sub
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for table in ("_parameters", "_buffers"):
        held = owner.__dict__.get(table)
        if held is not None and name in held:
            old = held[name]
            if tensor is _MISSING:
                del held[name]
            else:
                held[name] = tensor
            return old
    old = owner.__dict__.get(name, _MISSING)     # a plain attribute, or a new name for the call
    if old is not _MISSING and old is not None and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{name}`: {old} is not an instance of torch.Tensor")
    if tensor is _MISSING:
        object.__delattr__(owner, name)
    else:
        object.__setattr__(owner, name, tensor)
    return old
