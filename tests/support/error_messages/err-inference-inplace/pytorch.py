import torch

with torch.inference_mode():
    buffer = torch.zeros(3, 2)
buffer.mul_(0.5)
