import numpy as np
import torch

data = torch.from_numpy(np.random.rand(32, 10))
weight = torch.randn(10, 1, requires_grad=True)
prediction = data @ weight
