import torch

x = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.6, 0.8]])
y_true = torch.tensor([[0.0, 1.0]])
W = torch.tensor([[0.1257, -0.1321, 0.6404]], requires_grad=True)
b = torch.tensor([[0.1049, -0.5357]], requires_grad=True)
y_pred = torch.sigmoid(torch.mm(W, x.t()) + b)
losses = (y_true - y_pred) ** 2        # shape (1, 2)

losses.backward(torch.tensor([[0.5, 0.5]]), retain_graph=True)
print("W.grad =", W.grad)
losses.backward(torch.tensor([0.5, 0.5]))  # the post's flat seed
