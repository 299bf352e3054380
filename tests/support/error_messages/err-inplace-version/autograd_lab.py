import autograd_lab as al

x = al.randn(6, requires_grad=True)
y = x.sigmoid()
y.mul_(2)
y.sum().backward()
