"""The sigmoid layer of the third document (post 003), as several test modules build it."""
import autograd_lab as al


def layer_inputs(seed):
    """x (2 samples of 3 features), y_true, and W (1x3) and b (1x2) drawn with ``seed``;
    W and b require grad."""
    x = al.tensor([[0.1, 0.2, 0.3], [0.4, 0.6, 0.8]])
    y_true = al.tensor([[0.0, 1.0]])
    al.manual_seed(seed)
    W = al.randn(1, 3, requires_grad=True)
    b = al.randn(1, 2, requires_grad=True)
    return x, y_true, W, b
