import torch

w = torch.randn(4, 4, requires_grad=True).to(torch.float64)
optimizer = torch.optim.Adam([w], lr=1e-3)
