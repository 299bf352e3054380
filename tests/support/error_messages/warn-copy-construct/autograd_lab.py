import autograd_lab as al

weights = al.randn(3, requires_grad=True)
snapshot = al.tensor(weights)
