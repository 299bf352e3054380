import torch

class RowMean(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.mean(dim=1)

    @staticmethod
    def backward(ctx, grad):
        return grad

x = torch.randn(4, 6, requires_grad=True)
RowMean.apply(x).sum().backward()
