import torch

x = torch.ones(5)
torch.func.jvp(torch.cos, (x,), (torch.ones(4),))
