"""The numbers the five source documents print, reproduced by autograd_lab."""
import numpy as np
import pytest

import autograd_lab as al

from sigmoid_layer import layer_inputs


def test_mm_example_prints_like_torch():
    x = al.autograd.Variable(al.FloatTensor([[2, 1]]), requires_grad=True)
    M = al.autograd.Variable(al.FloatTensor([[1, 2], [3, 4]]))
    y = al.mm(x, M)
    assert repr(x) == "tensor([[2., 1.]], requires_grad=True)"
    assert repr(y) == "tensor([[5., 8.]], grad_fn=<MmBackward0>)"


@pytest.mark.parametrize("seed, expected", [([[1, 0]], [[1, 3]]), ([[0, 1]], [[2, 4]]),
                                            ([[1, 1]], [[3, 7]])])
def test_mm_seed_picks_a_weighted_sum_of_rows_of_M_transposed(seed, expected):
    x = al.tensor([[2.0, 1.0]], requires_grad=True)
    M = al.tensor([[1.0, 2.0], [3.0, 4.0]])
    y = al.mm(x, M)
    y.backward(al.FloatTensor(seed), retain_graph=True)
    assert x.grad.tolist() == expected


def test_mm_seeds_need_zeroing_between_calls_or_they_add_up():
    x = al.tensor([[2.0, 1.0]], requires_grad=True)
    y = al.mm(x, al.tensor([[1.0, 2.0], [3.0, 4.0]]))
    y.backward(al.tensor([[1.0, 0.0]]), retain_graph=True)
    y.backward(al.tensor([[0.0, 1.0]]), retain_graph=True)
    assert x.grad.tolist() == [[3.0, 7.0]]          # [[1, 3]] + [[2, 4]]
    x.grad.data.zero_()
    y.backward(al.tensor([[1.0, 1.0]]))
    assert x.grad.tolist() == [[3.0, 7.0]]


def test_doubling_loop_gives_a_power_of_two_times_the_seed():
    al.manual_seed(0)
    x = al.randn(3, requires_grad=True)
    y = x * 2
    k = 1
    while y.data.norm() < 1000:
        y = y * 2
        k += 1
    seed = al.tensor([0.1, 1.0, 0.0001], dtype=al.float32)
    y.backward(seed)
    assert np.allclose(x.grad.numpy(), 2.0 ** k * seed.numpy())
    assert 2 ** k * float(x.detach().norm()) >= 1000 > 2 ** (k - 1) * float(x.detach().norm())


def test_doubling_loop_with_512_prints_the_documents_numbers():
    x = al.tensor([1.0, 1.0, 1.0], requires_grad=True)
    y = x * 2
    for _ in range(8):
        y = y * 2
    y.backward(al.tensor([0.1, 1.0, 0.0001]))
    # the 2018 post printed [51.2, 512, 0.0512]; today's torch formats this in sci mode
    assert repr(x.grad) == "tensor([5.1200e+01, 5.1200e+02, 5.1200e-02])"


def test_outer_with_ones_seed_gives_twice_the_sum():
    x = al.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = al.outer(x, x)
    assert repr(y) == ("tensor([[ 1.,  2.,  3.,  4.],\n        [ 2.,  4.,  6.,  8.],\n"
                       "        [ 3.,  6.,  9., 12.],\n        [ 4.,  8., 12., 16.]], "
                       "grad_fn=<MulBackward0>)")
    (g,) = al.autograd.grad(y, x, grad_outputs=al.ones_like(y))
    assert repr(g) == "tensor([20., 20., 20., 20.])"


def test_outer_with_a_seed_of_x_shape_raises_the_mismatch_error():
    x = al.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = al.outer(x, x)
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"\(4,\) and output\[0\] has a shape of \(4, 4\)\."):
        al.autograd.grad(y, x, grad_outputs=al.ones_like(x))


X = [1.0, 2.0, 3.0, 4.0]
Y = [-1.0, -2.0, 3.0, 4.0]


def test_where_with_constant_branches_is_constant():
    x = al.tensor(X, requires_grad=True)
    z = al.where(x > 2, 1, 0)
    assert z.tolist() == [0, 0, 1, 1]
    assert not z.requires_grad and z.grad_fn is None


def test_where_with_one_differentiable_branch_routes_gradient_where_true():
    x = al.tensor(X, requires_grad=True)
    z = al.where(x > 2, x, 0.0)
    assert z.tolist() == [0, 0, 3, 4]
    z.sum().backward()
    assert x.grad.tolist() == [0, 0, 1, 1]


def test_where_with_two_branches_routes_to_x_where_true_and_y_where_false():
    x = al.tensor(X, requires_grad=True)
    y = al.tensor(Y, requires_grad=True)
    z = al.where(x > 2, x, y)
    assert z.tolist() == [-1, -2, 3, 4]
    z.backward(al.tensor([10.0, 20.0, 30.0, 40.0]))
    assert x.grad.tolist() == [0, 0, 30, 40]
    assert y.grad.tolist() == [10, 20, 0, 0]


def test_where_condition_is_a_bool_tensor_that_never_requires_grad():
    x = al.tensor(X, requires_grad=True)
    cond = x > 2
    assert cond.dtype == al.bool and not cond.requires_grad
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients"):
        cond.requires_grad_()                # (torch's words for the method)


def _sigmoid_layer():
    x, y_true, W, b = layer_inputs(seed=3)
    y_pred = al.nn.Sigmoid()(al.mm(W, al.transpose(x, 0, 1)) + b)
    losses = (y_true - y_pred) ** 2
    return x, W, b, losses


def test_sigmoid_layer_mean_loss_equals_losses_backward_with_half_seed():
    _, W, b, losses = _sigmoid_layer()
    (losses.sum() / 2).backward(retain_graph=True)
    wg, bg = W.grad.numpy().copy(), b.grad.numpy().copy()
    W.grad, b.grad = None, None
    losses.backward(al.tensor([[0.5, 0.5]]))
    assert np.allclose(W.grad.numpy(), wg) and np.allclose(b.grad.numpy(), bg)


def test_sigmoid_layer_losses_backward_without_seed_raises():
    _, W, _, losses = _sigmoid_layer()
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs"):
        losses.backward()
    assert W.grad is None


def test_sigmoid_layer_2018_seed_shape_is_rejected_today():
    _, W, _, losses = _sigmoid_layer()
    with pytest.raises(RuntimeError, match=r"grad_output\[0\] has a shape of \(2,\) and output\[0\] "
                                           r"has a shape of \(1, 2\)"):
        losses.backward(al.FloatTensor([0.5, 0.5]))
    assert W.grad is None


def test_sigmoid_layer_masked_seeds_give_jacobian_rows_that_sum_to_the_gradient():
    _, W, _, losses = _sigmoid_layer()
    rows = []
    for seed in ([[1.0, 0.0]], [[0.0, 1.0]]):
        losses.backward(al.tensor(seed), retain_graph=True)
        rows.append(W.grad.numpy()[0].copy())
        W.grad.zero_()
    losses.sum().backward(retain_graph=True)
    assert np.allclose(rows[0] + rows[1], W.grad.numpy()[0])
    # the document's half seeds give half rows
    W.grad.zero_()
    losses.backward(al.tensor([[0.5, 0.0]]), retain_graph=True)
    assert np.allclose(W.grad.numpy()[0], rows[0] / 2)
