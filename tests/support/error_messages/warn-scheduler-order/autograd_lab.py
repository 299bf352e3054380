import autograd_lab as al

model = al.nn.Linear(4, 1)
optimizer = al.optim.SGD(model.parameters(), lr=0.1)
scheduler = al.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)
for epoch in range(2):
    scheduler.step()
    loss = model(al.randn(8, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
