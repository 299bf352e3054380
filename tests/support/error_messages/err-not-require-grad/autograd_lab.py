import autograd_lab as al

inputs = al.randn(3, 2)
weight = al.randn(2, requires_grad=True)
al.autograd.grad((inputs @ weight).sum(), inputs)
