import numpy as np
import torch

model = torch.nn.Conv2d(3, 16, kernel_size=3)
images = torch.from_numpy(np.random.rand(8, 3, 32, 32))
features = model(images)
