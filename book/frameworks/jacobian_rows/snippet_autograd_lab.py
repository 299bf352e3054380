import autograd_lab as al

x = al.tensor([[0.1, 0.2, 0.3], [0.4, 0.6, 0.8]])
y_true = al.tensor([[0.0, 1.0]])
W = al.tensor([[0.1257, -0.1321, 0.6404]], requires_grad=True)
b = al.tensor([[0.1049, -0.5357]])


def layer_losses(W):                    # shape (1, 2)
    return (y_true - al.sigmoid(al.mm(W, x.t()) + b)) ** 2


losses = layer_losses(W)
for seed in ([[1., 0.]], [[0., 1.]]):   # one-hot: one row each
    losses.backward(al.tensor(seed), retain_graph=True)
    print("row", W.grad)
    W.grad = None
J = al.autograd.functional.jacobian(layer_losses, W)
print(J.reshape(2, 3))
