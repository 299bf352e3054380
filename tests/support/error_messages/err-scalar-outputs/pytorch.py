import torch

weights = torch.randn(4, 2, requires_grad=True)
scores = weights @ torch.ones(2)
scores.backward()
