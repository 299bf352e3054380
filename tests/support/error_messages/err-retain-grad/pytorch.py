import torch

features = torch.randn(5, 2) * 3
features.retain_grad()
