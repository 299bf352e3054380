import autograd_lab as al

features = al.randn(5, 2) * 3
features.retain_grad()
