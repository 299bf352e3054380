import torch

w = torch.randn(3, requires_grad=True)
scaled = w / w.norm()
scaled.requires_grad = False
