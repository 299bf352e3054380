import torch

x = torch.tensor([-1., 0., 1., 4.], requires_grad=True)
z = torch.where(x > 0, torch.sqrt(x), 0.)
z.sum().backward()
print(z)
print(x.grad)
