import autograd_lab as al

# f(x) = sqrt(x) for x > 0, -x otherwise; at x = -1, df/dx = -1
roots = {"sqrt": al.sqrt, "** 0.5": lambda x: x ** 0.5}
for name, root in roots.items():
    x = al.tensor(-1., requires_grad=True)
    al.where(x > 0, root(x), -x).backward()
    by_where = x.grad
    x = al.tensor(-1., requires_grad=True)
    al.cond(x > 0, root, lambda x: -x, (x,)).backward()
    print(f"{name:6}  where: {by_where}  cond: {x.grad}")
