import torch

w = torch.randn(3, 3, requires_grad=True)
loss = (w ** 2).sum()
loss.backward()
w.sub_(0.01 * w.grad)
