import torch

x = torch.randn(6, requires_grad=True)
if x > 0:
    y = x.sqrt()
