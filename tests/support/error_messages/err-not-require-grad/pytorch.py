import torch

inputs = torch.randn(3, 2)
weight = torch.randn(2, requires_grad=True)
torch.autograd.grad((inputs @ weight).sum(), inputs)
