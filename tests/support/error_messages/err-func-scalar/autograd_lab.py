import autograd_lab as al
from autograd_lab.func import grad

def predict(w):
    return al.tanh(w * 3)

grad(predict)(al.randn(7))
