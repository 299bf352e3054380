import autograd_lab as al

t = al.linspace(0, 1, 6, requires_grad=True)
(dy,) = al.autograd.grad(al.sin(t).sum(), t)
(d2y,) = al.autograd.grad(dy.sum(), t)
