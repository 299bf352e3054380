import torch
import torch.nn.functional as F

scores = torch.randn(4, 10)
probabilities = F.softmax(scores)
