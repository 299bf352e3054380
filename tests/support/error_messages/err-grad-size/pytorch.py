import torch

w = torch.randn(4, 3, requires_grad=True)
w.grad = torch.zeros(3, 4)
