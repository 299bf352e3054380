"""The optimization algorithms, as torch.optim has them: SGD, Adam, AdamW, RMSprop and
Adagrad, each an ``Optimizer`` (optimizer.py) with its defaults and
its update of one parameter.

``step()`` changes each parameter in place, under ``no_grad``, by the formulas of torch's
documentation, in the order torch computes them; the per-parameter state (a momentum
buffer, Adam's averages, a step count kept as a float32 tensor, as torch keeps it) is
created on a parameter's first update, so ``state_dict()`` lists what torch's lists.

    optimizer = al.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for x, y in data:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
"""
from .. import creation
from ..core import dtypes
from .optimizer import Optimizer

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]


def _check(name, value, low=0.0):
    if not value >= low:
        raise ValueError(f"Invalid {name}: {value}")


def _steps():
    """A parameter's step count, as torch keeps it: a float32 0-d tensor."""
    return creation.tensor(0.0, dtype=dtypes.float32)


def _zeros_like(p):
    return creation.zeros_like(p).detach()


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

    def _step_group(self, group):
        """(torch keeps no state for SGD without momentum: none is made here either)"""
        for p in group["params"]:
            if p.grad is not None:
                self._update(p, p.grad, group, self.state[p] if group["momentum"] else None)

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
            state["step"] = _steps()
            state["exp_avg"], state["exp_avg_sq"] = _zeros_like(p), _zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _zeros_like(p)
        state["step"].add_(1)
        step = state["step"].item()
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


class AdamW(Adam):
    """Adam with decoupled weight decay (each step first shrinks p by lr * weight_decay),
    weight_decay 0.01 by default."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


class RMSprop(Optimizer):
    """RMSprop: each entry's step divided by the root of a running average of its squared
    gradient (``centered``: less the square of its running average; with ``momentum``, the
    steps themselves averaged)::

        g = grad + weight_decay * p
        v = alpha v + (1 - alpha) g²,     avg = sqrt(v - mean(g)² if centered else v) + eps
        b = momentum b + g / avg,         p = p - lr * b     (without momentum: p - lr g / avg)
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check("learning rate", lr)
        _check("epsilon value", eps)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        _check("alpha value", alpha)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, p, grad, group, state):
        alpha, momentum = group["alpha"], group["momentum"]
        if not state:
            state["step"] = _steps()
            state["square_avg"] = _zeros_like(p)
            if momentum > 0:
                state["momentum_buffer"] = _zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = _zeros_like(p)
        g = -grad if group["maximize"] else grad
        state["step"].add_(1)
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).add_(g * g * (1 - alpha))
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.add_((g - grad_avg) * (1 - alpha))   # torch's lerp
            avg = (square_avg - grad_avg * grad_avg).sqrt()
        else:
            avg = square_avg.sqrt()
        avg = avg + group["eps"]
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf.mul_(momentum).add_(g / avg)
            p.add_(buf, alpha=-group["lr"])
        else:
            p.add_(g / avg, alpha=-group["lr"])


class Adagrad(Optimizer):
    """Adagrad: each entry's step divided by the root of the sum of its squared gradients
    so far; the learning rate decays as lr / (1 + (t - 1) lr_decay)."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check("learning rate", lr)
        _check("lr_decay value", lr_decay)
        _check("weight_decay value", weight_decay)
        _check("initial_accumulator_value value", initial_accumulator_value)
        _check("epsilon value", eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        for group in self.param_groups:             # (torch makes Adagrad's state at once)
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _steps()
                state["sum"] = creation.full_like(p, group["initial_accumulator_value"]).detach()

    def _update(self, p, grad, group, state):
        g = -grad if group["maximize"] else grad
        state["step"].add_(1)
        step = state["step"].item()
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state["sum"].add_(g * g)
        std = state["sum"].sqrt() + group["eps"]
        p.add_(g / std, alpha=-clr)
