import torch

x = torch.tensor([1., 2., 3., 4.], requires_grad=True)
y = torch.tensor([-1., -2., 3., 4.], requires_grad=True)
v = torch.tensor([10., 20., 30., 40.])  # the seed dL/dz

z1 = torch.where(x > 2, 1., 0.)         # case 1: two constants
print("case 1:", z1.requires_grad, z1.grad_fn)
torch.where(x > 2, x, 0.).backward(v)   # case 2: one branch is x
print("case 2:", x.grad)
x.grad = None
torch.where(x > 2, x, y).backward(v)    # case 3: both are tensors
print("case 3:", x.grad, y.grad)
