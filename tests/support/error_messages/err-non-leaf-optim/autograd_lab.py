import autograd_lab as al

w = al.randn(4, 4, requires_grad=True).to(al.float64)
optimizer = al.optim.SGD([w], lr=1e-3)
