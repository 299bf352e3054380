import torch

x = torch.randn(3, requires_grad=True)
hidden = torch.relu(x * 4)
hidden.sum().backward()
print(hidden.grad)
