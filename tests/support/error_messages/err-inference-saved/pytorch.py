import torch

with torch.inference_mode():
    features = torch.randn(8, 3)
w = torch.randn(3, requires_grad=True)
scores = (features * w).sum()
