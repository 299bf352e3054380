import torch

weights = torch.randn(3, requires_grad=True)
snapshot = torch.tensor(weights)
