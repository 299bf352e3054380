import torch

w1 = torch.randn(3, requires_grad=True)
w2 = torch.randn(3, requires_grad=True)
bias = torch.zeros(1, requires_grad=True)
torch.autograd.grad((w1 * w2).sum(), [w1, w2, bias])
