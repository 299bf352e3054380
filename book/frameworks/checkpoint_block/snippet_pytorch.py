import torch
from torch.utils.checkpoint import checkpoint

runs = []
def block(x):             # kept: only x; runs again in the backward
    runs.append(len(runs))
    return (x.sin() * x).exp()

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = checkpoint(block, x, use_reentrant=False)
y.sum().backward()
print(x.grad)
print("block ran", len(runs), "times")
