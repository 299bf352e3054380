import autograd_lab as al

w = al.randn(4, 3, requires_grad=True)
w.grad = al.zeros(3, 4)
