import torch

w = torch.tensor([0.9, 1.1], requires_grad=True)
state = torch.ones(2)
for step in range(3):
    state = torch.tanh(state * w)
    loss = state.pow(2).sum()
    loss.backward()
