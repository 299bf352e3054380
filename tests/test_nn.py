"""Training pieces without torch: losses against their formulas, gradchecked; modules
register what they hold; optimizers take the steps their formulas say."""
import math

import numpy as np
import pytest

import autograd_lab as al

F = al.nn.functional


def test_cross_entropy_of_equal_logits_is_log_of_the_number_of_classes():
    x = al.zeros(2, 4, requires_grad=True)
    loss = F.cross_entropy(x, al.tensor([0, 3]))
    loss.backward()
    assert np.isclose(loss.item(), math.log(4)) and loss.grad_fn.name() == "NllLossBackward0"
    assert np.allclose(x.grad.numpy(), [[-0.375, 0.125, 0.125, 0.125], [0.125, 0.125, 0.125, -0.375]])


@pytest.mark.parametrize("loss", [
    lambda x: F.mse_loss(x, al.tensor([[0.5, -1.0], [2.0, 0.0]], dtype=al.float64)),
    lambda x: F.binary_cross_entropy(x.sigmoid(), al.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=al.float64)),
    lambda x: F.binary_cross_entropy_with_logits(x, al.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=al.float64),
                                                 pos_weight=al.tensor([2.0, 0.5], dtype=al.float64)),
    lambda x: F.cross_entropy(x, al.tensor([1, 0]), label_smoothing=0.2, reduction="sum"),
    lambda x: F.nll_loss(x.log_softmax(1), al.tensor([1, 0]), weight=al.tensor([3.0, 1.0], dtype=al.float64)),
])
def test_losses_pass_gradcheck_and_gradgradcheck(loss):
    x = al.tensor([[0.3, -1.2], [0.8, 0.1]], dtype=al.float64, requires_grad=True)
    assert al.autograd.gradcheck(loss, (x,)) and al.autograd.gradgradcheck(loss, (x,))


def test_binary_cross_entropy_refuses_a_probability_above_one():
    with pytest.raises(RuntimeError, match="^all elements of input should be between 0 and 1$"):
        F.binary_cross_entropy(al.tensor([1.5]), al.tensor([1.0]))


def test_a_module_registers_parameters_and_submodules_in_order():
    class Net(al.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = al.nn.Parameter(al.ones(1))
            self.body = al.nn.Sequential(al.nn.Linear(2, 3), al.nn.ReLU())
            self.note = al.ones(1)                 # a plain tensor is not a parameter
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["scale", "body.0.weight", "body.0.bias"]
    assert repr(net) == ("Net(\n  (body): Sequential(\n    (0): Linear(in_features=2, out_features=3, bias=True)\n"
                         "    (1): ReLU()\n  )\n)")
    assert repr(net.scale) == "Parameter containing:\ntensor([1.], requires_grad=True)"


def test_sgd_with_momentum_follows_its_formula():
    w = al.tensor([1.0], requires_grad=True)
    opt = al.optim.SGD([w], lr=0.1, momentum=0.9)
    for _ in range(2):
        opt.zero_grad()
        (w * 2).sum().backward()                   # the gradient is 2 each time
        opt.step()
    assert np.isclose(w.item(), 1 - 0.1 * 2 - 0.1 * (0.9 * 2 + 2))


def test_adams_first_step_is_the_learning_rate_times_the_gradients_sign():
    w = al.tensor([1.0, -1.0], requires_grad=True)
    opt = al.optim.Adam([w], lr=0.01)
    (w * al.tensor([3.0, -0.5])).sum().backward()
    opt.step()
    assert np.allclose(w.tolist(), [0.99, -0.99])
