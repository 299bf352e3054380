import autograd_lab as al
from autograd_lab.utils.checkpoint import checkpoint

x = al.ones(3, requires_grad=True)
y = checkpoint(al.sin, x)
