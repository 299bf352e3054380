"""``al.optim``: the optimizers tutorials train with, SGD and Adam, as torch.optim has them.

An optimizer holds parameter groups (a list of dicts: the parameters and their settings)
and a state per parameter (a momentum buffer, Adam's averages).  ``step()`` changes each
parameter in place, under ``no_grad``, by the formulas of torch's documentation, in the
order torch computes them; ``zero_grad()`` clears the gradients for the next step.

    optimizer = al.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for x, y in data:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
"""
from .modes import no_grad
from .nn.modules import zero_grad_of
from .tensor import Tensor

__all__ = ["Optimizer", "SGD", "Adam"]


class Optimizer:
    def __init__(self, params, defaults):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors "
                            f"or dicts, but got {params.type()}")
        self.defaults = defaults
        self.state = {}
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        for group in groups if isinstance(groups[0], dict) else [{"params": groups}]:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = {**self.defaults, **param_group, "params": params}
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                zero_grad_of(p, set_to_none)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            from .modes import enable_grad
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, p.grad, group, self.state.setdefault(p, {}))
        return loss

    def __repr__(self):
        groups = ["\n".join([f"Parameter Group {i}"] + [f"    {key}: {group[key]}" for key in sorted(group)
                                                         if key != "params"])
                  for i, group in enumerate(self.param_groups)]
        return f"{type(self).__name__} (\n" + "\n\n".join(groups) + "\n)"


def _check(name, value, low=0.0):
    if not value >= low:
        raise ValueError(f"Invalid {name}: {value}")


class SGD(Optimizer):
    """Stochastic gradient descent, with momentum (optionally Nesterov's), dampening and
    weight decay (added to the gradient)::

        g = grad + weight_decay * p
        b = g (first step), momentum * b + (1 - dampening) * g (later steps)
        p = p - lr * (g + momentum * b if nesterov else b)
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        _check("learning rate", lr)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                                      foreach=foreach, differentiable=differentiable, fused=fused))

    def _update(self, p, grad, group, state):
        g = -grad if group["maximize"] else grad
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = g.clone().detach()
            else:
                buf.mul_(momentum).add_(g, alpha=1 - group["dampening"])
            g = g.add(buf, alpha=momentum) if group["nesterov"] else buf
        p.add_(g, alpha=-group["lr"])


class Adam(Optimizer):
    """Adam: running averages of the gradient (m) and of its square (v), corrected for
    their start at zero, set the step of each entry::

        g = grad + weight_decay * p            (decoupled_weight_decay: p = p (1 - lr wd))
        m = beta1 m + (1 - beta1) g,   v = beta2 v + (1 - beta2) g²
        p = p - lr / (1 - beta1^t) * m / (sqrt(v / (1 - beta2^t)) + eps)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check("learning rate", lr)
        _check("epsilon value", eps)
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        _check("weight_decay value", weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))

    def _update(self, p, grad, group, state):
        beta1, beta2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        g = -grad if group["maximize"] else grad
        if not state:
            state["step"] = 0
            state["exp_avg"], state["exp_avg_sq"] = (g.detach() * 0, g.detach() * 0)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = g.detach() * 0
        state["step"] += 1
        step = state["step"]
        if wd and group["decoupled_weight_decay"]:
            p.mul_(1 - lr * wd)
        elif wd:
            g = g.add(p, alpha=wd)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.add_((g - m) * (1 - beta1))                     # torch's lerp
        v.mul_(beta2).add_(g * g * (1 - beta2))
        if group["amsgrad"]:
            state["max_exp_avg_sq"].copy_(state["max_exp_avg_sq"].maximum(v))
            v = state["max_exp_avg_sq"]
        step_size = lr / (1 - beta1 ** step)
        denom = v.sqrt() / (1 - beta2 ** step) ** 0.5 + group["eps"]
        p.add_(m / denom, alpha=-step_size)

from . import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.optim", __name__, "al.optim")   # (names torch has: not_here.py)
