import torch
from torch.utils.checkpoint import checkpoint

x = torch.ones(3, requires_grad=True)
y = checkpoint(torch.sin, x)
