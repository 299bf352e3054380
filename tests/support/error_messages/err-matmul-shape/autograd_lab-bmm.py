import autograd_lab as al

queries = al.randn(8, 5, 16)
keys = al.randn(8, 5, 16)
scores = queries @ keys
