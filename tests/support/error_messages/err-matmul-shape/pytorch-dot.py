import torch

a = torch.randn(3)
b = torch.randn(4)
print(torch.dot(a, b))
