import torch

a = torch.randn(3)
b = torch.randn(3, dtype=torch.float64)
print(a @ b)
