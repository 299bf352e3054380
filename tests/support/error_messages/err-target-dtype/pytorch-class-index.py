import torch

criterion = torch.nn.CrossEntropyLoss()
logits = torch.randn(8, 5, requires_grad=True)
labels = torch.tensor([0., 4., 1., 1., 2., 3., 0., 2.])
loss = criterion(logits, labels)
