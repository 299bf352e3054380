import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, v):           # v: the seed arriving at y
        x, = ctx.saved_tensors
        return v * 3 * x ** 2       # tensor operations: recorded


x = torch.tensor([1., 2., -1.], requires_grad=True)
g, = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
h, = torch.autograd.grad(g.sum(), x)
print(g)
print(h)
