import torch
import torch.nn.functional as F

prediction = torch.randn(8, 1, requires_grad=True)
target = torch.randn(8)
loss = F.mse_loss(prediction, target)
