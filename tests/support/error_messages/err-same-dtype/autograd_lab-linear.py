import numpy as np
import autograd_lab as al

model = al.nn.Linear(10, 1)
data = al.from_numpy(np.random.rand(32, 10))
prediction = model(data)
