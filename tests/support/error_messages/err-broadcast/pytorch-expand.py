import torch

bias = torch.zeros(3)
rows = bias.expand(5, 4)
