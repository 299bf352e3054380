import torch

x = torch.randn(6, requires_grad=True)
y = x.sigmoid()
y.mul_(2)
y.sum().backward()
