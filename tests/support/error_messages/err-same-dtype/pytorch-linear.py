import numpy as np
import torch

model = torch.nn.Linear(10, 1)
data = torch.from_numpy(np.random.rand(32, 10))
prediction = model(data)
