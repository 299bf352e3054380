import torch

weights = torch.randn(10, 20)
x = torch.randn(30)
y = weights @ x
