import autograd_lab as al

w = al.tensor([0.9, 1.1], requires_grad=True)
state = al.ones(2)
for step in range(3):
    state = al.tanh(state * w)
    loss = state.pow(2).sum()
    loss.backward()
