import autograd_lab as al

x = al.ones(5)
al.func.jvp(al.cos, (x,), (al.ones(4),))
