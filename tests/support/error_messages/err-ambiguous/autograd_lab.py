import autograd_lab as al

x = al.randn(6, requires_grad=True)
if x > 0:
    y = x.sqrt()
