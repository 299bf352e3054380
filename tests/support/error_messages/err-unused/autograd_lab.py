import autograd_lab as al

w1 = al.randn(3, requires_grad=True)
w2 = al.randn(3, requires_grad=True)
bias = al.zeros(1, requires_grad=True)
al.autograd.grad((w1 * w2).sum(), [w1, w2, bias])
