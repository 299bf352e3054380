import autograd_lab as al

prediction = al.randn(10, requires_grad=True) * 2
array = prediction.numpy()
