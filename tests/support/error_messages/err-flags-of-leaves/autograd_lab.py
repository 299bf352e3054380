import autograd_lab as al

w = al.randn(3, requires_grad=True)
scaled = w / w.norm()
scaled.requires_grad = False
