import autograd_lab as al
once_differentiable = al.autograd.function.once_differentiable


class Cube(al.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * al.tensor(3 * x.numpy() ** 2)

x = al.tensor([1., 2.], requires_grad=True)
g, = al.autograd.grad((Cube.apply(x) * x).sum(), x, create_graph=True)
g.sum().backward()
