import torch

t = torch.linspace(0, 1, 6, requires_grad=True)
(dy,) = torch.autograd.grad(torch.sin(t).sum(), t)
(d2y,) = torch.autograd.grad(dy.sum(), t)
