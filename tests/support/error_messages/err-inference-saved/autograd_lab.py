import autograd_lab as al

with al.inference_mode():
    features = al.randn(8, 3)
w = al.randn(3, requires_grad=True)
scores = (features * w).sum()
