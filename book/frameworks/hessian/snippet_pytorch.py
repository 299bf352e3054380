import torch

A = torch.tensor([[1., 2., 0.], [0., 3., 1.], [4., 0., 2.]])
quad = lambda x: x @ A @ x              # f(x) = xᵀAx, H = A + Aᵀ
p = torch.tensor([1., -1., 2.], requires_grad=True)
(g,) = torch.autograd.grad(quad(p), p, create_graph=True)
print(g)
print(torch.autograd.functional.hessian(quad, p))
