import torch

images = torch.randn(16, 3, 32, 32)
mean = torch.tensor([0.5, 0.5, 0.5])
normalized = images - mean
