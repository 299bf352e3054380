import autograd_lab as al

labels = al.tensor([0, 2, 1, 1], requires_grad=True)
