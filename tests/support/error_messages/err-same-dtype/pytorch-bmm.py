import torch

a = torch.randn(4, 2, 3)
b = torch.randn(4, 3, 2, dtype=torch.float64)
c = torch.bmm(a, b)
