import autograd_lab as al


class Cube(al.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, v):           # v: the seed arriving at y
        x, = ctx.saved_tensors
        return v * 3 * x ** 2       # tensor operations: recorded


x = al.tensor([1., 2., -1.], requires_grad=True)
g, = al.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
h, = al.autograd.grad(g.sum(), x)
print(g)
print(h)
