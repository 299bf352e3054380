import autograd_lab as al

x = al.tensor([1., 2., 3., 4.], requires_grad=True)
y = al.outer(x, x)                      # shape (4, 4)
(g,) = al.autograd.grad(y, x, grad_outputs=al.ones_like(y),
                        retain_graph=True)
print(g)
al.autograd.grad(y, x, grad_outputs=al.ones_like(x))  # x's shape
