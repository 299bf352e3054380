"""A calibration for bench_engine's MLP step: the least a Python tape autograd can do.

Just enough reverse mode for ``((sigmoid(X @ W1 + b1) @ W2 + b2 - Y) ** 2).mean()``: each
value keeps its parents and one closure per parent that maps the output's gradient to
that parent's.  No dtypes, no shape checks, no hooks, no version counters, no freeing,
no error that leaves the graph as it was -- everything autograd_lab does besides the
arithmetic.  Its time, beside autograd_lab's, shows how much of autograd_lab's distance
from hand-written NumPy any engine written in Python pays, and how much is the price of
behaving like torch.autograd.
"""
import numpy as np


class Value:
    __slots__ = ("data", "parents", "grad", "requires_grad")

    def __init__(self, data, parents=(), requires_grad=None):
        self.data, self.grad = data, None
        self.parents = tuple((p, rule) for p, rule in parents if p.requires_grad)
        self.requires_grad = bool(self.parents) if requires_grad is None else requires_grad

    def __matmul__(self, other):
        return Value(self.data @ other.data, ((self, lambda g: g @ other.data.T),
                                              (other, lambda g: self.data.T @ g)))

    def __add__(self, other):              # other: the same shape, or a bias row
        return Value(self.data + other.data, ((self, lambda g: g),
                                              (other, lambda g: _unbroadcast(g, other))))

    def __sub__(self, other):
        return Value(self.data - other.data, ((self, lambda g: g), (other, lambda g: -g)))

    def __pow__(self, k):
        base = self.data if k == 2 else self.data ** (k - 1)     # x ** 1 is x: nothing to compute
        return Value(self.data ** k, ((self, lambda g: g * k * base),))

    def mean(self):
        n = self.data.size
        return Value(self.data.mean(), ((self, lambda g: np.broadcast_to(g / n, self.data.shape)),))

    def sigmoid(self):
        y = 1 / (1 + np.exp(-self.data))
        return Value(y, ((self, lambda g: g * (y * (1 - y))),))

    def backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:                       # depth first, each node after all it feeds
            v, expanded = stack.pop()
            if expanded:
                order.append(v)
            elif id(v) not in seen:
                seen.add(id(v))
                stack.append((v, True))
                stack.extend((p, False) for p, _ in v.parents)
        self.grad = np.ones_like(self.data)
        for v in reversed(order):
            for p, rule in v.parents:
                g = rule(v.grad)
                p.grad = g if p.grad is None else p.grad + g


def _unbroadcast(g, x):
    return g.sum(0) if x.data.ndim < g.ndim else g


def mlp(X, Y, W1, b1, W2, b2):
    """The bench's MLP step on this tape (same buffers, same arithmetic)."""
    X, Y = Value(X, requires_grad=False), Value(Y, requires_grad=False)
    params = [Value(p, requires_grad=True) for p in (W1, b1, W2, b2)]
    W1, b1, W2, b2 = params

    def step():
        for p in params:
            p.grad = None
        loss = (((X @ W1 + b1).sigmoid() @ W2 + b2 - Y) ** 2).mean()
        loss.backward()
        return loss.data, W1.grad, b1.grad, W2.grad, b2.grad
    return step
