import torch

weights = torch.ones(4, 4, requires_grad=True)
weights[:, 0] = 0.0
