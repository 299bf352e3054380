import autograd_lab as al

x = al.tensor([[2., 1.]], requires_grad=True)
M = al.tensor([[1., 2.], [3., 4.]])
y = al.mm(x, M)
print("y =", y)
for seed in ([[1., 0.]], [[0., 1.]], [[1., 1.]]):
    y.backward(al.tensor(seed), retain_graph=True)
    print("seed", seed, "-> x.grad", x.grad)
    x.grad.zero_()
