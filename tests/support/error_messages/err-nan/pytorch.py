import torch

x = torch.tensor([0.0, 1.0, 9.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = torch.where(x > 0, torch.log(x), 0.0)
    y.sum().backward()
