"""al.func.vmap over the layer rows (nn/layer_rules.py) against torch.func.vmap: convolution
with a batch of images, of weights, of biases, or all of them; pooling; linear -- values
and per-sample gradients on seeded random cases, each vectorized (no per-sample
fallback); the adjoint rows under vmap against a loop; and the per-sample gradients of
the CNN of PyTorch's per-sample-gradients tutorial."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402
from autograd_lab import func  # noqa: E402
from autograd_lab import batching  # noqa: E402
from autograd_lab.nn import layer_rules  # noqa: E402

B = 3


@pytest.fixture(autouse=True)
def no_fallback(monkeypatch):
    """Every case here must be vectorized: the per-sample fallback's warning is an error
    (and forgotten between tests, so that each test would see it)."""
    monkeypatch.setattr(batching, "_warned", set())
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")
        yield


def close(a, b, atol=1e-10):
    return a.shape == tuple(b.shape) and np.allclose(a.detach().numpy(), b.detach().numpy(), atol=atol)


def arrays(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def conv(F, x, w, b):
    return F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)


# (name, function of one sample, sample shapes of the inputs, in_dims)
CASES = [
    ("conv2d, a batch of images", conv, [(1, 4, 7, 6), (6, 2, 3, 2), (6,)], (0, None, None)),
    ("conv2d, images without N", lambda F, x, w, b: F.conv2d(x, w, b, padding="same"),
     [(4, 5, 5), (3, 4, 3, 3), (3,)], (0, None, None)),
    ("conv2d, a batch of weights", conv, [(2, 4, 7, 6), (6, 2, 3, 2), (6,)], (None, 0, None)),
    ("conv2d, a batch of biases", conv, [(2, 4, 7, 6), (6, 2, 3, 2), (6,)], (None, None, 0)),
    ("conv2d, all batched", conv, [(2, 4, 7, 6), (6, 2, 3, 2), (6,)], (0, 0, 0)),
    ("conv2d, images and weights", lambda F, x, w, b: F.conv2d(x, w, None, stride=2),
     [(2, 3, 6, 6), (4, 3, 3, 3), (4,)], (0, 0, None)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 3, 2, 1), [(2, 3, 7, 6)], (0,)),
    ("max_pool2d, ceil_mode, dilation", lambda F, x: F.max_pool2d(x, 2, 2, 0, 2, True),
     [(3, 7, 6)], (0,)),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
     [(2, 3, 7, 6)], (0,)),
    ("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x, (3, 2)), [(2, 3, 7, 5)], (0,)),
    ("linear, a batch of rows", lambda F, x, w, b: F.linear(x, w, b), [(2, 5), (4, 5), (4,)],
     (0, None, None)),
    ("linear, all batched", lambda F, x, w, b: F.linear(x, w, b), [(2, 5), (4, 5), (4,)], (0, 0, 0)),
    ("linear, a batch of weights", lambda F, x, w, b: F.linear(x, w, b), [(2, 5), (4, 5), (4,)],
     (None, 0, None)),
]


def inputs(shapes, dims, seed):
    shapes = [s if d is None else (B,) + s for s, d in zip(shapes, dims)]
    return arrays(shapes, seed)


@pytest.mark.parametrize("name, fn, shapes, dims", CASES, ids=[c[0] for c in CASES])
def test_layers_under_vmap_match_torch_in_values_and_gradients(name, fn, shapes, dims):
    xs = inputs(shapes, dims, seed=len(name))
    ours = func.vmap(lambda *a: fn(al.nn.functional, *a), in_dims=dims)(*map(al.tensor, xs))
    theirs = torch.vmap(lambda *a: fn(torch.nn.functional, *a), in_dims=dims)(*map(torch.tensor, xs))
    assert close(ours, theirs)
    # per-sample gradients with respect to every input, through grad inside vmap
    argnums = tuple(range(len(xs)))
    seed = arrays([tuple(theirs.shape[1:])], seed=1)[0]

    def loss(F, tensor):
        return lambda *a: (fn(F, *a) * tensor(seed)).sum()
    ours = func.vmap(func.grad(loss(al.nn.functional, al.tensor), argnums), in_dims=dims)(
        *map(al.tensor, xs))
    theirs = torch.func.vmap(torch.func.grad(loss(torch.nn.functional, torch.tensor), argnums),
                             in_dims=dims)(*map(torch.tensor, xs))
    for a, b in zip(ours, theirs):
        assert close(a, b)


def test_vmap_of_vmap_over_images_and_weights_matches_torch():
    """Two levels: the images batched by the outer vmap, the weights by the inner one."""
    x, w, b = arrays([(2, 1, 3, 6, 5), (4, 6, 1, 3, 3), (6,)], seed=3)

    def nested(lib_F, vm):
        one = lambda x, w: lib_F.conv2d(x, w, None, padding=1, groups=3).tanh()   # noqa: E731
        return vm(vm(one, in_dims=(None, 0)), in_dims=(0, None))
    ours = nested(al.nn.functional, func.vmap)(al.tensor(x), al.tensor(w))
    theirs = nested(torch.nn.functional, torch.func.vmap)(torch.tensor(x), torch.tensor(w))
    assert close(ours, theirs)


def test_second_derivatives_and_forward_mode_through_the_layers_under_vmap_match_torch():
    """A gradient penalty per sample (grad of a grad through conv and max pooling) and a
    jvp through conv and average pooling, inside vmap."""
    x, w = arrays([(B, 2, 5, 5), (4, 2, 3, 3)], seed=7)

    def penalty(F, T):
        def inner(x, w):
            return (F.max_pool2d(F.conv2d(x.unsqueeze(0), w, padding=1), 2).tanh() ** 2).sum()

        def outer(x, w):
            return (T.grad(inner, argnums=1)(x, w) ** 2).sum()
        return T.vmap(T.grad(outer, argnums=(0, 1)), in_dims=(0, None))
    ours = penalty(al.nn.functional, func)(al.tensor(x), al.tensor(w))
    theirs = penalty(torch.nn.functional, torch.func)(torch.tensor(x), torch.tensor(w))
    for a, b in zip(ours, theirs):
        assert close(a, b)

    def tangents(F, T, tensor):
        f = lambda x: F.avg_pool2d(F.conv2d(x, tensor(w), padding=1), 2)    # noqa: E731
        return T.vmap(lambda x, tx: T.jvp(f, (x,), (tx,))[1])
    ours = tangents(al.nn.functional, func, al.tensor)(al.tensor(x), al.tensor(2 * x))
    theirs = tangents(torch.nn.functional, torch.func, torch.tensor)(torch.tensor(x), torch.tensor(2 * x))
    assert close(ours, theirs)


LOSSES = {
    "nll_loss, mean, ignore_index": lambda L, x, t: L.nn.functional.nll_loss(x.log_softmax(1), t),
    "nll_loss, weights": lambda L, x, t: L.nn.functional.nll_loss(
        x.log_softmax(1), t, weight=L.tensor([1.0, 2.0, 0.5, 3.0], dtype=L.float64)),
    "nll_loss, sum": lambda L, x, t: L.nn.functional.nll_loss(x.log_softmax(1), t, reduction="sum"),
    "nll_loss, none": lambda L, x, t: L.nn.functional.nll_loss(x.log_softmax(1), t, reduction="none").sum(),
    "cross_entropy, one sample": lambda L, x, t: L.nn.functional.cross_entropy(x[0], t[1].clamp(min=0)),
    "max(dim) and min(dim)": lambda L, x, t: x.max(1)[0].sum() + x.min(0, keepdim=True)[0].sum(),
    "binary_cross_entropy": lambda L, x, t: L.nn.functional.binary_cross_entropy(x.sigmoid(), x * 0 + 0.25),
}


@pytest.mark.parametrize("name", list(LOSSES))
def test_losses_with_class_indices_under_vmap_match_torch(name):
    """Integer labels batched: values and per-sample gradients, no per-sample loop."""
    x = arrays([(B, 3, 4)], seed=8)[0]
    t = np.random.default_rng(9).integers(0, 4, (B, 3))
    t[0, 1] = -100
    fn = LOSSES[name]
    ours = func.vmap(func.grad_and_value(lambda x, t: fn(al, x, t)))(al.tensor(x), al.tensor(t))
    theirs = torch.func.vmap(torch.func.grad_and_value(lambda x, t: fn(torch, x, t)))(
        torch.tensor(x), torch.tensor(t))
    for a, b in zip(ours, theirs):
        assert close(a, b)


def loop(f, *xs):
    return al.stack([f(*[x[i] for x in xs]) for i in range(xs[0].shape[0])])


def test_the_adjoint_rows_under_vmap_match_a_loop():
    """The rows of the backward (and of the backward's backward) batch too: each called on
    a batch equals one call per sample."""
    x, w, g = (al.tensor(a) for a in arrays([(B, 2, 4, 7, 6), (B, 6, 2, 3, 2), (B, 2, 6, 4, 6)], 4))
    geo = layer_rules.Geometry((2, 1), ((1, 1), (1, 1)), (1, 2), 2, (7, 6), (3, 2))
    rows = [(lambda g, w: layer_rules.convolution_input_grad(g, w, geo=geo), (g, w)),
            (lambda g, w: layer_rules.convolution_input_grad(g, w, geo=geo), (g, w[0])),
            (lambda x, g: layer_rules.convolution_weight_grad(x, g, geo=geo), (x, g)),
            (lambda x, g: layer_rules.convolution_weight_grad(x, g, geo=geo), (x[0], g))]
    pool = layer_rules.Geometry((2, 2), ((1, 1), (1, 1)), (1, 1), 1, (7, 6), (3, 3))
    index = func.vmap(lambda x: layer_rules.max_pool_index(x, geo=pool))(x)
    gp = al.tensor(arrays([(B, 2, 4, 4, 3)], 5)[0])
    divisor = np.full((4, 3), 9.0)
    rows += [(lambda g, x, i: layer_rules.max_pool2d_backward(g, x, i, size=(7, 6)), (gp, x, index)),
             (lambda g, x: layer_rules.avg_pool2d_backward(g, x, geo=pool, divisor=divisor), (gp, x))]
    for f, args in rows:
        dims = tuple(0 if a.ndim == 5 else None for a in args)
        batched = func.vmap(f, in_dims=dims)(*args)
        each = al.stack([f(*[a[i] if d == 0 else a for a, d in zip(args, dims)]) for i in range(B)])
        assert np.allclose(batched.numpy(), each.numpy(), atol=1e-12)


def tutorial_cnn(lib):
    """The CNN of PyTorch's per-sample-gradients tutorial, made small (8 and 16 channels
    rather than 32 and 64, images of 12 x 12)."""
    nn, F = lib.nn, lib.nn.functional

    class SimpleCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 8, 3, 1)
            self.conv2 = nn.Conv2d(8, 16, 3, 1)
            self.fc1 = nn.Linear(16 * 4 * 4, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = F.relu(self.conv2(x))
            x = F.max_pool2d(x, 2)
            x = x.flatten(1)
            x = F.relu(self.fc1(x))
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)
    return SimpleCNN()


def per_sample_grads(lib, T, model, data, targets):
    """The tutorial's recipe: functional_call of the model on a batch of one sample,
    grad of its loss, vmap over the samples."""
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        batch, targets = sample.unsqueeze(0), target.unsqueeze(0)
        predictions = T.functional_call(model, (params, buffers), (batch,))
        return lib.nn.functional.nll_loss(predictions, targets)
    return T.vmap(T.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)


def test_per_sample_gradients_of_torchs_tutorial_cnn_equal_torchs_with_no_loop(recwarn):
    torch.manual_seed(0)
    theirs_model = tutorial_cnn(torch)
    ours_model = tutorial_cnn(al)
    ours_model.load_state_dict({k: al.tensor(v.detach().numpy()) for k, v in
                                theirs_model.state_dict().items()})
    rng = np.random.default_rng(6)
    data = rng.standard_normal((16, 1, 12, 12)).astype(np.float32)
    targets = rng.integers(0, 10, 16)
    theirs = per_sample_grads(torch, torch.func, theirs_model, torch.tensor(data), torch.tensor(targets))
    ours = per_sample_grads(al, func, ours_model, al.tensor(data), al.tensor(targets))
    assert list(ours) == list(theirs)
    for name in theirs:
        assert close(ours[name], theirs[name], atol=1e-6), name
    assert not [w for w in recwarn if "performance drop" in str(w.message)]
