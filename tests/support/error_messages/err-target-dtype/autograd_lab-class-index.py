import autograd_lab as al

criterion = al.nn.CrossEntropyLoss()
logits = al.randn(8, 5, requires_grad=True)
labels = al.tensor([0., 4., 1., 1., 2., 3., 0., 2.])
loss = criterion(logits, labels)
