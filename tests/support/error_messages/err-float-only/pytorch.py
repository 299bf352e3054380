import torch

labels = torch.tensor([0, 2, 1, 1], requires_grad=True)
