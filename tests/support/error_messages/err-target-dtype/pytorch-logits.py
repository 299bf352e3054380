import torch

criterion = torch.nn.BCEWithLogitsLoss()
logits = torch.randn(8, requires_grad=True)
labels = torch.randint(0, 2, (8,))
loss = criterion(logits, labels)
