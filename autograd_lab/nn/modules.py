"""Small torch.nn modules: callables holding parameters."""
import math

from .. import creation
from . import functional as F


def Parameter(data, requires_grad=True):
    """A leaf tensor that requires grad (torch's Parameter is a Tensor subclass)."""
    return data.detach().requires_grad_(requires_grad)


class Module:
    def __call__(self, *args):
        return self.forward(*args)

    def parameters(self):
        for value in vars(self).values():
            if isinstance(value, Module):
                yield from value.parameters()
            elif getattr(value, "requires_grad", False) and getattr(value, "is_leaf", False):
                yield value

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def __repr__(self):
        return f"{type(self).__name__}()"


class Sigmoid(Module):
    def forward(self, x):
        return F.sigmoid(x)


class Tanh(Module):
    def forward(self, x):
        return F.tanh(x)


class ReLU(Module):
    def forward(self, x):
        return F.relu(x)


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True):
        bound = 1 / math.sqrt(in_features)
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(creation.rand(out_features, in_features) * (2 * bound) - bound)
        self.bias = Parameter(creation.rand(out_features) * (2 * bound) - bound) if bias else None

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def __repr__(self):
        return f"Linear(in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None})"


class Sequential(Module):
    def __init__(self, *layers):
        self.layers = list(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        for layer in self.layers:
            yield from layer.parameters()


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        self.reduction = reduction

    def forward(self, input, target):
        return F.mse_loss(input, target, self.reduction)
