import torch
import torch.nn.functional as F

probabilities = torch.sigmoid(torch.randn(8, requires_grad=True))
labels = torch.randint(0, 2, (8,))
loss = F.binary_cross_entropy(probabilities, labels)
