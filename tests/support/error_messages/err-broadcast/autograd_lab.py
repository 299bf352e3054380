import autograd_lab as al

images = al.randn(16, 3, 32, 32)
mean = al.tensor([0.5, 0.5, 0.5])
normalized = images - mean
