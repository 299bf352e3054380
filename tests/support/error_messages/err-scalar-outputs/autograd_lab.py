import autograd_lab as al

weights = al.randn(4, 2, requires_grad=True)
scores = weights @ al.ones(2)
scores.backward()
