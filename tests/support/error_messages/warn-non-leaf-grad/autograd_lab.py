import autograd_lab as al

x = al.randn(3, requires_grad=True)
hidden = al.relu(x * 4)
hidden.sum().backward()
print(hidden.grad)
