import torch

losses = torch.rand(3, 4, requires_grad=True) * 2
total = losses.item()
