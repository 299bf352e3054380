import torch

x = torch.tensor([[2., 1.]], requires_grad=True)
M = torch.tensor([[1., 2.], [3., 4.]])
y = torch.mm(x, M)
print("y =", y)
for seed in ([[1., 0.]], [[0., 1.]], [[1., 1.]]):
    y.backward(torch.tensor(seed), retain_graph=True)
    print("seed", seed, "-> x.grad", x.grad)
    x.grad.zero_()
