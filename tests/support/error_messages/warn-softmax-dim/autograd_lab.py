import autograd_lab as al
import autograd_lab.nn.functional as F

scores = al.randn(4, 10)
probabilities = F.softmax(scores)
