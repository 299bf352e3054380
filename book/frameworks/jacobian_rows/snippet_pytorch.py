import torch

x = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.6, 0.8]])
y_true = torch.tensor([[0.0, 1.0]])
W = torch.tensor([[0.1257, -0.1321, 0.6404]], requires_grad=True)
b = torch.tensor([[0.1049, -0.5357]])


def layer_losses(W):                    # shape (1, 2)
    return (y_true - torch.sigmoid(torch.mm(W, x.t()) + b)) ** 2


losses = layer_losses(W)
for seed in ([[1., 0.]], [[0., 1.]]):   # one-hot: one row each
    losses.backward(torch.tensor(seed), retain_graph=True)
    print("row", W.grad)
    W.grad = None
J = torch.autograd.functional.jacobian(layer_losses, W)
print(J.reshape(2, 3))
