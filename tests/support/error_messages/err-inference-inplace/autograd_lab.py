import autograd_lab as al

with al.inference_mode():
    buffer = al.zeros(3, 2)
buffer.mul_(0.5)
