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


# -- convolution and pooling, against sums written out, and gradchecked ------------------------
def test_conv2d_is_the_sum_over_each_window_written_out():
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((2, 4, 5, 6)), rng.standard_normal((6, 2, 3, 2)), rng.standard_normal(6)
    y = F.conv2d(al.tensor(x, requires_grad=True), al.tensor(w), al.tensor(b), stride=(2, 1), padding=1,
                 dilation=(1, 2), groups=2)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    expected = np.zeros(y.shape)
    for n, o, i, j in np.ndindex(*y.shape):
        group = o // 3                                   # out channels 0-2 read in channels 0-1
        window = xp[n, 2 * group:2 * group + 2, 2 * i:2 * i + 3, j:j + 3:2]
        expected[n, o, i, j] = (window * w[o]).sum() + b[o]
    assert y.grad_fn.name() == "ConvolutionBackward0" and np.allclose(y.detach().numpy(), expected)


def test_pooling_picks_and_averages_each_window():
    x = al.arange(16.0).reshape(1, 1, 4, 4)
    y, indices = F.max_pool2d(x, 2, return_indices=True)
    assert y.tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]] and indices.tolist() == [[[[5, 7], [13, 15]]]]
    assert F.avg_pool2d(x, 2).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    assert F.avg_pool2d(x, 3, 1, 1, count_include_pad=False)[0, 0, 0, 0].item() == 2.5   # (0+1+4+5)/4
    assert F.adaptive_avg_pool2d(x, (1, 2)).tolist() == [[[[6.5, 8.5]]]]


@pytest.mark.parametrize("layer", [
    lambda x: F.conv2d(x, al.tensor(np.linspace(-1, 1, 12).reshape(2, 1, 2, 3)), None, 1, "valid", 1, 2),
    lambda x: F.max_pool2d(x, 2, 1, 1, ceil_mode=True),
    lambda x: F.avg_pool2d(x, (2, 3), 2, 1, True, False),
    lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
])
def test_layers_pass_gradcheck_and_gradgradcheck(layer):
    x = al.tensor(np.random.default_rng(1).permutation(40).reshape(1, 2, 4, 5) / 9.0, dtype=al.float64,
                  requires_grad=True)
    assert al.autograd.gradcheck(layer, (x,), check_forward_ad=True)
    assert al.autograd.gradgradcheck(layer, (x,))


def test_conv2d_layer_holds_torchs_parameters_and_prints_as_torch():
    layer = al.nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
    assert [(n, p.shape) for n, p in layer.named_parameters()] == [("weight", (6, 2, 3, 3)), ("bias", (6,))]
    assert repr(layer) == "Conv2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), groups=2)"
    assert layer(al.ones(1, 4, 8, 8)).shape == (1, 6, 4, 4)


# -- data loading and saving a model's state ---------------------------------------------------------
def test_a_dataloader_batches_in_order_or_shuffled():
    ds = al.utils.data.TensorDataset(al.arange(10.0).reshape(5, 2), al.arange(5))
    loader = al.utils.data.DataLoader(ds, batch_size=2)
    assert len(loader) == 3 and [y.tolist() for _, y in loader] == [[0, 1], [2, 3], [4]]
    shuffled = al.utils.data.DataLoader(ds, batch_size=2, shuffle=True, drop_last=True)
    al.manual_seed(0)
    order = [y.tolist() for _, y in shuffled]
    al.manual_seed(0)
    assert len(order) == 2 and order == [y.tolist() for _, y in shuffled]


def test_a_state_dict_round_trip():
    al.manual_seed(0)
    model = al.nn.Sequential(al.nn.Conv2d(1, 2, 3), al.nn.Flatten(), al.nn.Linear(8, 1))
    state = model.state_dict()
    assert list(state) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    other = al.nn.Sequential(al.nn.Conv2d(1, 2, 3), al.nn.Flatten(), al.nn.Linear(8, 1))
    x = al.randn(3, 1, 4, 4)
    assert not al.equal(other(x), model(x))
    assert repr(other.load_state_dict(state)) == "<All keys matched successfully>"
    assert al.equal(other(x), model(x))
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "extra"'):
        other.load_state_dict({**state, "extra": al.zeros(1)})
