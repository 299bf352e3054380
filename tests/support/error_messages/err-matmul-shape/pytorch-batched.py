import torch

queries = torch.randn(8, 5, 16)
keys = torch.randn(8, 5, 16)
scores = queries @ keys
