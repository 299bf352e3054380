"""Property-based: for any pair of broadcastable shapes, each input's gradient has the
input's own shape and equals the seed summed over the broadcast axes."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd_lab as al


def sum_to(g, shape):
    """Reference: sum g over the axes broadcasting added or stretched."""
    while g.ndim > len(shape):
        g = g.sum(0)
    for i, n in enumerate(shape):
        if n == 1 and g.shape[i] != 1:
            g = g.sum(i, keepdims=True)
    return g


OPS = {
    "add": (lambda a, b: a + b, lambda g, a, b: (g, g)),
    "sub": (lambda a, b: a - b, lambda g, a, b: (g, -g)),
    "mul": (lambda a, b: a * b, lambda g, a, b: (g * b, g * a)),
    "where": (lambda a, b: al.where(a > b, a, b) if isinstance(a, al.Tensor) else np.where(a > b, a, b),
              lambda g, a, b: (np.where(a > b, g, 0), np.where(a > b, 0, g))),
}


@settings(max_examples=60, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       op=st.sampled_from(sorted(OPS)), seed=st.integers(0, 2 ** 16))
def test_gradient_of_a_broadcast_input_is_summed_back_to_its_shape(shapes, op, seed):
    sa, sb = shapes.input_shapes
    rng = np.random.default_rng(seed)
    a_np, b_np = rng.normal(size=sa), rng.normal(size=sb)
    a = al.tensor(a_np, requires_grad=True)
    b = al.tensor(b_np, requires_grad=True)
    forward, reference = OPS[op]
    y = forward(a, b)
    assert y.shape == tuple(shapes.result_shape)
    g = rng.normal(size=y.shape)
    y.backward(al.tensor(g))
    ga, gb = reference(g, np.broadcast_to(a_np, y.shape), np.broadcast_to(b_np, y.shape))
    assert a.grad.shape == tuple(sa) and b.grad.shape == tuple(sb)
    assert np.allclose(a.grad.numpy(), sum_to(np.asarray(ga), sa))
    assert np.allclose(b.grad.numpy(), sum_to(np.asarray(gb), sb))


@settings(max_examples=40, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       batch=st.integers(1, 4), seed=st.integers(0, 2 ** 16))
def test_batched_broadcast_gradients_keep_the_batch_dimension(shapes, batch, seed):
    sa, sb = shapes.input_shapes
    rng = np.random.default_rng(seed)
    a = al.tensor(rng.normal(size=sa), requires_grad=True)
    b = al.tensor(rng.normal(size=sb), requires_grad=True)
    y = a * b
    seeds = al.tensor(rng.normal(size=(batch,) + y.shape))
    ga, gb = al.autograd.grad(y, [a, b], seeds, is_grads_batched=True, retain_graph=True)
    assert ga.shape == (batch,) + tuple(sa) and gb.shape == (batch,) + tuple(sb)
    for k in range(batch):
        one_a, one_b = al.autograd.grad(y, [a, b], seeds[k], retain_graph=True)
        assert np.allclose(ga.numpy()[k], one_a.numpy()) and np.allclose(gb.numpy()[k], one_b.numpy())
