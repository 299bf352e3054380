import autograd_lab as al
import autograd_lab.nn.functional as F

prediction = al.randn(8, 1, requires_grad=True)
target = al.randn(8)
loss = F.mse_loss(prediction, target)
