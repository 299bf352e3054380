import autograd_lab as al

class ScaledAdd(al.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, scale):
        return a + b * scale

    @staticmethod
    def backward(ctx, grad):
        return grad, grad

a = al.ones(3, requires_grad=True)
ScaledAdd.apply(a, al.ones(3), 2.0).sum().backward()
