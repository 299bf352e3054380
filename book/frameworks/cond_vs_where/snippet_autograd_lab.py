import autograd_lab as al

w = al.tensor(2., requires_grad=True)
a = al.tensor(3., requires_grad=True)   # used only when w > 1
b = al.tensor(5., requires_grad=True)   # used only when w <= 1

out = al.cond(w > 1, lambda w: a * w, lambda w: b * w, (w,))
out.backward()
print("cond: ", w.grad, a.grad, b.grad)
w.grad = a.grad = None
out = al.where(w > 1, a * w, b * w)
out.backward()
print("where:", w.grad, a.grad, b.grad)
