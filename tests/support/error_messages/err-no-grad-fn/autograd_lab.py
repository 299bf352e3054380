import autograd_lab as al

params = al.zeros(5)
loss = ((params - 1.0) ** 2).mean()
loss.backward()
