import autograd_lab as al
import autograd_lab.nn.functional as F

probabilities = al.sigmoid(al.randn(8, requires_grad=True))
labels = al.randint(0, 2, (8,))
loss = F.binary_cross_entropy(probabilities, labels)
