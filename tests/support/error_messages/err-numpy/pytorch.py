import torch

prediction = torch.randn(10, requires_grad=True) * 2
array = prediction.numpy()
