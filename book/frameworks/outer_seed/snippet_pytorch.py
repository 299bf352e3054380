import torch

x = torch.tensor([1., 2., 3., 4.], requires_grad=True)
y = torch.outer(x, x)                   # shape (4, 4)
(g,) = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y),
                           retain_graph=True)
print(g)
torch.autograd.grad(y, x, grad_outputs=torch.ones_like(x))  # x's shape
