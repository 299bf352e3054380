import torch

features = torch.randn(64, 784)
layer = torch.nn.Linear(28, 10)
logits = layer(features)
