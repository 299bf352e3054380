import torch

counts = torch.tensor([3, 0, 2])
counts.requires_grad_()
