"""The Optimizer base class, as torch.optim has it: parameter groups (a list of dicts, each
the parameters and their settings), a state per parameter, ``zero_grad``, ``step`` (each
algorithm's update, in ``algorithms.py``), and ``state_dict`` / ``load_state_dict`` to
save and restore all of it.

A state_dict names parameters by their position (0, 1, ... across the groups), so an
optimizer over the same model's parameters can load it: its tensors are copied into the
state with each parameter's dtype, its settings replace the groups' settings.
"""
import copy
import itertools
import warnings
from collections import defaultdict

from ..core.modes import enable_grad, no_grad
from ..nn.modules import typename, zero_grad_of
from ..core.tensor import Tensor

__all__ = ["Optimizer"]


class _RequiredParameter:
    """The default of a setting a group must give (torch's ``required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    def __init__(self, params, defaults):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors "
                            f"or dicts, but got {typename(params)}")
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group (a dict with "params" and any settings; the defaults fill in the
        rest): the dict itself joins ``param_groups``, as in torch."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]      # (name, parameter) pairs
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {typename(p)}")
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                zero_grad_of(p, set_to_none)

    def step(self, closure=None):
        """One update of every parameter that has a gradient (``closure``: a function that
        recomputes the loss, called first with grad mode on; its value is returned)."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group):
        for p in group["params"]:
            if p.grad is not None:
                self._update(p, p.grad, group, self.state[p])

    # -- saving and restoring ------------------------------------------------------------------
    def state_dict(self):
        """{"state": {position: that parameter's state}, "param_groups": [each group's
        settings, with "params" the positions]}: the state's tensors themselves, not copies."""
        positions = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                positions.setdefault(id(p), len(positions))
            packed["params"] = [positions[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(positions[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Take the settings and state of ``state_dict``: its groups' settings copied, its
        state's tensors in each parameter's dtype (a step count as it was)."""
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        by_position = dict(zip(itertools.chain.from_iterable(g["params"] for g in saved),
                               itertools.chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in by_position:
                state[by_position[k]] = _cast(by_position[k], v)
            else:
                state[k] = v
        for group, new in zip(groups, saved):
            new["params"] = group["params"]
            if "param_names" in group and "param_names" not in new:
                new["param_names"] = group["param_names"]
        self.state, self.param_groups = state, saved

    def __repr__(self):
        groups = ["\n".join([f"Parameter Group {i}"] + [f"    {key}: {group[key]}" for key in sorted(group)
                                                         if key != "params"])
                  for i, group in enumerate(self.param_groups)]
        return f"{type(self).__name__} (\n" + "\n\n".join(groups) + "\n)"


def _cast(param, value, key=None):
    """A loaded state value for ``param``: tensors in its dtype (the same tensor if it has
    it already, as torch's ``to``; the step count kept as it is), containers walked into."""
    if isinstance(value, Tensor):
        if key == "step" or not param.is_floating_point():
            return value
        return value.to(param.dtype)
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value
