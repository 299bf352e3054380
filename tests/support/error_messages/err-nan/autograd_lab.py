import autograd_lab as al

x = al.tensor([0.0, 1.0, 9.0], requires_grad=True)
with al.autograd.detect_anomaly():
    y = al.where(x > 0, al.log(x), 0.0)
    y.sum().backward()
