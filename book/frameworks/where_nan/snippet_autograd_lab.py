import autograd_lab as al

x = al.tensor([-1., 0., 1., 4.], requires_grad=True)
z = al.where(x > 0, al.sqrt(x), 0.)
z.sum().backward()
print(z)
print(x.grad)
