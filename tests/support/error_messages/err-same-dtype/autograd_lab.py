import numpy as np
import autograd_lab as al

data = al.from_numpy(np.random.rand(32, 10))
weight = al.randn(10, 1, requires_grad=True)
prediction = data @ weight
