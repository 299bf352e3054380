"""nn's building blocks against torch: the activations, normalization layers, embedding,
channel dropout, cosine similarity and lazy Linear -- values, gradients, second
derivatives, grad_fn names, forward-mode tangents, printed forms, state_dict keys, running
statistics over training steps, and the errors torch raises, word for word."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402

rng = np.random.default_rng(0)
X = rng.normal(size=(4, 3, 5)) * 2          # values on both sides of every kink, a few far out
X[0, 0, :2] = [25.0, -30.0]


# (function of the library L and the input x) -- torch and autograd_lab must agree on all
ACTIVATIONS = {
    "leaky_relu": lambda L, x: L.nn.functional.leaky_relu(x),
    "leaky_relu, slope 0.2": lambda L, x: L.nn.functional.leaky_relu(x, negative_slope=0.2),
    "gelu": lambda L, x: L.nn.functional.gelu(x),
    "gelu, tanh": lambda L, x: L.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda L, x: L.nn.functional.silu(x),
    "elu": lambda L, x: L.nn.functional.elu(x),
    "elu, alpha 0.3": lambda L, x: L.nn.functional.elu(x, alpha=0.3),
    "selu": lambda L, x: L.nn.functional.selu(x),
    "celu": lambda L, x: L.nn.functional.celu(x, alpha=2.0),
    "softplus": lambda L, x: L.nn.functional.softplus(x),
    "softplus, beta and threshold": lambda L, x: L.nn.functional.softplus(x, beta=2, threshold=3),
    "hardtanh": lambda L, x: L.nn.functional.hardtanh(x, -0.5, 2.0),
    "relu6": lambda L, x: L.nn.functional.relu6(x * 3),
    "logsigmoid": lambda L, x: L.nn.functional.logsigmoid(x),
    "mish": lambda L, x: L.nn.functional.mish(x),
    "softsign": lambda L, x: L.nn.functional.softsign(x),
    "tanhshrink": lambda L, x: L.nn.functional.tanhshrink(x),
    "prelu, one slope": lambda L, x: L.nn.functional.prelu(x, L.tensor([0.25], dtype=x.dtype)),
    "prelu, a slope per channel": lambda L, x: L.nn.functional.prelu(x, L.tensor([0.1, -0.2, 0.3], dtype=x.dtype)),
    "normalize": lambda L, x: L.nn.functional.normalize(x, dim=1),
    "normalize, last dim": lambda L, x: L.nn.functional.normalize(x, dim=-1, eps=0.5),
    "cosine_similarity": lambda L, x: L.nn.functional.cosine_similarity(x, x[[3, 2, 1, 0]], dim=1),
    "cosine_similarity, broadcast": lambda L, x: L.nn.functional.cosine_similarity(x, x[0], dim=-1),
    "layer_norm": lambda L, x: L.nn.functional.layer_norm(x, (5,)),
    "layer_norm, two dims, weight and bias": lambda L, x: L.nn.functional.layer_norm(
        x, (3, 5), L.linspace(0.5, 2, 15, dtype=x.dtype).reshape(3, 5), L.linspace(-1, 1, 15, dtype=x.dtype).reshape(3, 5)),
    "rms_norm": lambda L, x: L.nn.functional.rms_norm(x, (5,), L.linspace(0.5, 2, 5, dtype=x.dtype)),
    "group_norm": lambda L, x: L.nn.functional.group_norm(x.reshape(2, 6, 5), 3, L.linspace(0.5, 2, 6, dtype=x.dtype),
                                                          L.linspace(-1, 1, 6, dtype=x.dtype)),
    "batch_norm, training": lambda L, x: L.nn.functional.batch_norm(
        x, None, None, L.tensor([1.0, 2.0, 0.5], dtype=x.dtype), L.tensor([0.1, 0.0, -0.3], dtype=x.dtype),
        training=True),
    "batch_norm, running statistics": lambda L, x: L.nn.functional.batch_norm(
        x, L.tensor([0.1, -0.2, 0.3], dtype=x.dtype), L.tensor([0.5, 2.0, 1.5], dtype=x.dtype),
        L.tensor([1.0, 2.0, 0.5], dtype=x.dtype)),
    "instance_norm": lambda L, x: L.nn.functional.instance_norm(x, weight=L.tensor([1.0, 2.0, 0.5], dtype=x.dtype)),
}


def _on(lib, fn, values, dtype):
    x = lib.tensor(values, dtype=dtype, requires_grad=True)
    y = fn(lib, x)
    seed = lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)), dtype=dtype)
    g, = lib.autograd.grad(y, x, seed, create_graph=True)
    # (a gradient that does not depend on x -- prelu's, batch norm's in eval mode -- is a
    # constant here, with no graph: its derivative is zero; torch records its backward
    # kernel anyway and gives the zeros)
    h = lib.autograd.grad((g * g).sum(), x, allow_unused=True)[0] if g.requires_grad else None
    h = lib.zeros_like(x) if h is None else h
    return y.detach().numpy(), g.detach().numpy(), h.numpy(), y.grad_fn.name()


@pytest.mark.parametrize("case", list(ACTIVATIONS))
def test_functions_match_torch_in_value_gradient_second_derivative_and_grad_fn(case):
    ours = _on(al, ACTIVATIONS[case], X, al.float64)
    theirs = _on(torch, ACTIVATIONS[case], X, torch.float64)
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    assert ours[3] == theirs[3]


@pytest.mark.parametrize("case", ["gelu", "silu", "layer_norm", "batch_norm, training", "group_norm", "softplus"])
def test_functions_in_float32_stay_float32_and_match_torch(case):
    ours = ACTIVATIONS[case](al, al.tensor(X, dtype=al.float32))
    theirs = ACTIVATIONS[case](torch, torch.tensor(X, dtype=torch.float32))
    assert ours.dtype == al.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", ["gelu", "elu", "layer_norm, two dims, weight and bias", "batch_norm, training",
                                  "group_norm", "prelu, a slope per channel"])
def test_functions_push_tangents_as_torchs_forward_ad(case):
    tangents = []
    for lib in (al, torch):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(lib.tensor(X), lib.tensor(np.sin(X)))
            tangents.append(fwAD.unpack_dual(ACTIVATIONS[case](lib, x)).tangent.numpy())
    np.testing.assert_allclose(*tangents, rtol=1e-7, atol=1e-9)


def test_in_place_activations_are_recorded_under_torchs_in_place_names():
    names = []
    for lib in (al, torch):
        F = lib.nn.functional
        x = lib.tensor(X[0], requires_grad=True)
        outs = [F.leaky_relu(x * 1, 0.2, inplace=True), F.elu(x * 1, inplace=True), F.relu(x * 1, inplace=True),
                F.silu(x * 1, inplace=True)]
        grads = lib.autograd.grad(sum(o.sum() for o in outs), x)
        names.append(([o.grad_fn.name() for o in outs], grads[0].numpy()))
    assert names[0][0] == names[1][0] == ["LeakyReluBackward1", "EluBackward1", "ReluBackward0", "SiluBackward0"]
    np.testing.assert_allclose(names[0][1], names[1][1])


REFUSED = {
    "gelu of integers": lambda L: L.nn.functional.gelu(L.tensor([1, -2])),
    "silu of integers": lambda L: L.nn.functional.silu(L.tensor([1, -2])),
    "elu of integers": lambda L: L.nn.functional.elu(L.tensor([1, -2])),
    "softplus of integers": lambda L: L.nn.functional.softplus(L.tensor([1, -2])),
    "leaky_relu of integers": lambda L: L.nn.functional.leaky_relu(L.tensor([1, -2])),
    "layer_norm of integers": lambda L: L.nn.functional.layer_norm(L.tensor([1, -2]), (2,)),
    "gelu, an unknown approximation": lambda L: L.nn.functional.gelu(L.ones(2), approximate="fast"),
    "leaky_relu in place on a leaf": lambda L: L.nn.functional.leaky_relu(L.ones(2, requires_grad=True),
                                                                          inplace=True),
    "in-place leaky_relu's backward with a negative slope": lambda L: L.nn.functional.leaky_relu(
        L.ones(2, requires_grad=True) * 1, -0.5, inplace=True).sum().backward(),
    "hardtanh, min above max": lambda L: L.nn.functional.hardtanh(L.ones(2), 1.0, -1.0),
    "prelu, too many slopes": lambda L: L.nn.functional.prelu(L.ones(2, 3), L.ones(2)),
    "prelu, a 2-D weight": lambda L: L.nn.functional.prelu(L.ones(2, 3, 4), L.ones(1, 3)),
    "prelu, slopes for a 1-D input": lambda L: L.nn.functional.prelu(L.ones(3), L.ones(3)),
    "prelu, dtypes differ": lambda L: L.nn.functional.prelu(L.tensor([1, 2]), L.tensor([0.25])),
    "layer_norm, a shape that is not the input's last": lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (4,)),
    "layer_norm, a weight of another shape": lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (3,), L.ones(4)),
    "layer_norm, a bias of another shape": lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (3,), None, L.ones(4)),
    "layer_norm, an int for the shape": lambda L: L.nn.functional.layer_norm(L.ones(2, 3), 3),
    "group_norm, channels not divisible": lambda L: L.nn.functional.group_norm(L.ones(2, 3, 4), 2),
    "group_norm, a weight per wrong channels": lambda L: L.nn.functional.group_norm(L.ones(2, 4, 4), 2, L.ones(3)),
    "group_norm of a vector": lambda L: L.nn.functional.group_norm(L.ones(4), 2),
    "group_norm, one value per group": lambda L: L.nn.functional.group_norm(L.ones(1, 4), 4),
    "batch_norm, one value per channel": lambda L: L.nn.functional.batch_norm(L.ones(1, 3), None, None, training=True),
    "batch_norm, running stats of another size": lambda L: L.nn.functional.batch_norm(
        L.ones(2, 3), L.zeros(4), L.ones(4), training=True),
    "batch_norm, eval without running stats": lambda L: L.nn.functional.batch_norm(L.ones(2, 3), None, None),
    "batch_norm, a weight of another size": lambda L: L.nn.functional.batch_norm(
        L.ones(2, 3), L.zeros(3), L.ones(3), L.ones(4)),
    "batch_norm of a vector": lambda L: L.nn.functional.batch_norm(L.ones(3), L.zeros(3), L.ones(3)),
    "instance_norm, one position": lambda L: L.nn.functional.instance_norm(L.ones(2, 3, 1)),
    "embedding, an index past the end": lambda L: L.nn.functional.embedding(L.tensor([1, 10]), L.ones(10, 3)),
    "embedding, a negative index": lambda L: L.nn.functional.embedding(L.tensor([-1]), L.ones(10, 3)),
    "embedding, float indices": lambda L: L.nn.functional.embedding(L.tensor([1.0]), L.ones(10, 3)),
    "embedding, padding_idx past the end": lambda L: L.nn.functional.embedding(L.tensor([1]), L.ones(10, 3),
                                                                               padding_idx=10),
    "embedding, padding_idx before the start": lambda L: L.nn.functional.embedding(L.tensor([1]), L.ones(10, 3),
                                                                                   padding_idx=-11),
    "cosine_similarity, shapes that do not broadcast": lambda L: L.nn.functional.cosine_similarity(
        L.ones(2, 3), L.ones(4, 3)),
    "cosine_similarity, a dim out of range": lambda L: L.nn.functional.cosine_similarity(L.ones(2, 3), L.ones(3),
                                                                                        dim=2),
    "cosine_similarity of integers": lambda L: L.nn.functional.cosine_similarity(L.tensor([1, 2]), L.tensor([1, 2]),
                                                                                dim=0),
    "normalize, a dim out of range": lambda L: L.nn.functional.normalize(L.ones(2, 3), dim=2),
    "dropout2d, p above 1": lambda L: L.nn.functional.dropout2d(L.ones(2, 3, 4, 4), 1.5),
    "dropout1d of a 4-D input": lambda L: L.nn.functional.dropout1d(L.ones(3, 4, 5, 6)),
    "BatchNorm2d of a 3-D input": lambda L: L.nn.BatchNorm2d(3)(L.ones(2, 3, 4)),
    "BatchNorm1d of a 4-D input": lambda L: L.nn.BatchNorm1d(3)(L.ones(2, 3, 4, 4)),
    "InstanceNorm2d of a 2-D input": lambda L: L.nn.InstanceNorm2d(3)(L.ones(2, 3)),
    "InstanceNorm1d, affine, channels differ": lambda L: L.nn.InstanceNorm1d(4, affine=True)(L.ones(2, 3, 5)),
    "GroupNorm, channels not divisible": lambda L: L.nn.GroupNorm(2, 3),
    "Embedding, padding_idx past the end": lambda L: L.nn.Embedding(5, 2, padding_idx=5),
    "Embedding.from_pretrained of a vector": lambda L: L.nn.Embedding.from_pretrained(L.ones(3)),
    "LazyLinear, the shape of its weight before a call": lambda L: L.nn.LazyLinear(3).weight.shape,
    "Hardtanh, max not above min": lambda L: L.nn.Hardtanh(1.0, 1.0),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_bad_input_is_refused_in_torchs_words(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and ours == theirs


def test_an_uninitialized_parameter_refuses_arithmetic_with_torchs_error():
    ours = error_of(lambda: al.nn.LazyLinear(3).weight + 1)
    theirs = error_of(lambda: torch.nn.LazyLinear(3).weight + 1)
    assert ours[0] == theirs[0] == "ValueError"
    assert ours[1].replace("add", "") == theirs[1].replace("<method 'add' of 'torch._C.TensorBase' objects>", "")


# -- modules: printed forms and state_dict keys ---------------------------------------------
MODULES = [
    lambda nn: nn.LeakyReLU(), lambda nn: nn.LeakyReLU(0.2, inplace=True), lambda nn: nn.GELU(),
    lambda nn: nn.GELU("tanh"), lambda nn: nn.SiLU(), lambda nn: nn.SiLU(inplace=True), lambda nn: nn.ELU(),
    lambda nn: nn.ELU(0.5, True), lambda nn: nn.CELU(2.0), lambda nn: nn.SELU(), lambda nn: nn.Softplus(),
    lambda nn: nn.Softplus(2, 10), lambda nn: nn.PReLU(), lambda nn: nn.PReLU(3, 0.1), lambda nn: nn.Hardtanh(),
    lambda nn: nn.Hardtanh(-2.0, 2.0, True), lambda nn: nn.ReLU6(), lambda nn: nn.ReLU6(True), lambda nn: nn.Mish(),
    lambda nn: nn.LogSigmoid(), lambda nn: nn.Softsign(), lambda nn: nn.Tanhshrink(), lambda nn: nn.Dropout1d(),
    lambda nn: nn.Dropout2d(), lambda nn: nn.Dropout2d(0.2, True), lambda nn: nn.Dropout3d(0.1),
    lambda nn: nn.CosineSimilarity(), lambda nn: nn.CosineSimilarity(dim=0, eps=1e-6), lambda nn: nn.PairwiseDistance(),
    lambda nn: nn.BatchNorm1d(3), lambda nn: nn.BatchNorm2d(3, momentum=None, affine=False),
    lambda nn: nn.BatchNorm1d(3, bias=False), lambda nn: nn.BatchNorm3d(4, eps=1e-3, track_running_stats=False),
    lambda nn: nn.LayerNorm(3), lambda nn: nn.LayerNorm((3, 4), elementwise_affine=False),
    lambda nn: nn.LayerNorm([5], bias=False), lambda nn: nn.GroupNorm(2, 4), lambda nn: nn.GroupNorm(1, 3, affine=False),
    lambda nn: nn.InstanceNorm1d(3), lambda nn: nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
    lambda nn: nn.RMSNorm(3), lambda nn: nn.RMSNorm([2, 3], eps=1e-6, elementwise_affine=False),
    lambda nn: nn.Embedding(10, 3), lambda nn: nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=3,
                                                            scale_grad_by_freq=True),
    lambda nn: nn.LazyLinear(3), lambda nn: nn.LazyLinear(2, bias=False),
    lambda nn: nn.Sequential(nn.Linear(2, 4), nn.BatchNorm1d(4), nn.LeakyReLU(0.1), nn.Dropout(0.2),
                             nn.Linear(4, 1)),
]


@pytest.mark.parametrize("make", MODULES, ids=range(len(MODULES)))
def test_modules_print_and_name_their_state_as_torchs(make):
    ours, theirs = make(al.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape) if not isinstance(v, al.nn.UninitializedParameter) else None)
            for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape) if not isinstance(v, torch.nn.UninitializedParameter) else None)
         for k, v in theirs.state_dict().items()]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]


def _copied(ours, theirs):
    """torch's module given autograd_lab's parameters and buffers (the same numbers)."""
    with torch.no_grad():
        for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            b.copy_(torch.tensor(a.numpy()))
    return theirs


BATCH_NORMS = {
    "BatchNorm1d on (N, C)": (lambda nn: nn.BatchNorm1d(3), (6, 3)),
    "BatchNorm1d on (N, C, L)": (lambda nn: nn.BatchNorm1d(3, momentum=0.3), (4, 3, 5)),
    "BatchNorm2d": (lambda nn: nn.BatchNorm2d(3), (2, 3, 4, 4)),
    "BatchNorm2d, cumulative average": (lambda nn: nn.BatchNorm2d(3, momentum=None), (2, 3, 3, 2)),
    "BatchNorm2d, no affine": (lambda nn: nn.BatchNorm2d(3, affine=False), (2, 3, 3, 3)),
    "BatchNorm1d, no running stats": (lambda nn: nn.BatchNorm1d(3, track_running_stats=False), (5, 3)),
    "BatchNorm3d": (lambda nn: nn.BatchNorm3d(2), (2, 2, 3, 2, 2)),
    "InstanceNorm1d": (lambda nn: nn.InstanceNorm1d(3), (2, 3, 6)),
    "InstanceNorm2d, unbatched": (lambda nn: nn.InstanceNorm2d(3, affine=True), (3, 4, 4)),
    "InstanceNorm2d, tracking running stats": (lambda nn: nn.InstanceNorm2d(3, track_running_stats=True),
                                               (2, 3, 4, 4)),
    "LayerNorm": (lambda nn: nn.LayerNorm(5), (4, 3, 5)),
    "GroupNorm": (lambda nn: nn.GroupNorm(2, 4), (3, 4, 5)),
    "RMSNorm": (lambda nn: nn.RMSNorm(5), (4, 5)),
}


@pytest.mark.parametrize("case", list(BATCH_NORMS))
def test_normalization_layers_train_and_evaluate_as_torchs(case):
    """Three training steps (the running statistics follow the batches), then eval mode:
    outputs, gradients of input and parameters, running statistics and the batch count."""
    make, shape = BATCH_NORMS[case]
    ours = make(al.nn).double()
    theirs = _copied(ours, make(torch.nn).double())
    data = np.random.default_rng(1)
    for step in range(4):
        if step == 3:
            ours.eval(), theirs.eval()
        values = data.normal(size=shape) * (step + 1) + step
        got = []
        for lib, module in ((al, ours), (torch, theirs)):
            x = lib.tensor(values, requires_grad=True)
            y = module(x)
            (y * lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))).sum().backward()
            got.append((y.detach().numpy(), x.grad.numpy(), [p.grad.numpy() for p in module.parameters()],
                        [b.numpy() for b in module.buffers()], y.grad_fn.name()))
        (y, gx, gp, bufs, name), (ty, tgx, tgp, tbufs, tname) = got
        np.testing.assert_allclose(y, ty, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(gx, tgx, rtol=1e-8, atol=1e-10)
        for a, b in zip(gp + bufs, tgp + tbufs, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)
        assert name == tname
        for module in (ours, theirs):
            module.zero_grad()


def test_batch_norm_in_float32_tracks_the_same_running_statistics_as_torchs():
    ours = al.nn.BatchNorm2d(4)
    theirs = torch.nn.BatchNorm2d(4)
    data = np.random.default_rng(2)
    for _ in range(5):
        x = data.normal(size=(8, 4, 5, 5)).astype(np.float32) * 3 + 1
        y, ty = ours(al.tensor(x)), theirs(torch.tensor(x))
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    assert ours.running_mean.dtype == al.float32 and ours.num_batches_tracked.item() == 5
    np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-5)
    np.testing.assert_allclose(ours.running_mean.numpy(), theirs.running_mean.numpy(), rtol=1e-5, atol=1e-6)


def test_embedding_adds_up_the_gradient_of_a_row_looked_up_twice_and_none_for_padding():
    idx = [[1, 2, 1], [0, 4, 1]]
    results = []
    for lib in (al, torch):
        for kwargs in ({}, {"padding_idx": 1}, {"scale_grad_by_freq": True}, {"padding_idx": 0, "scale_grad_by_freq": True}):
            w = lib.tensor(np.arange(15.0).reshape(5, 3), requires_grad=True)
            y = lib.nn.functional.embedding(lib.tensor(idx), w, **kwargs)
            seed = lib.tensor(np.sin(np.arange(18.0)).reshape(2, 3, 3), requires_grad=True)
            g, = lib.autograd.grad(y, w, seed, create_graph=True)
            gg, = lib.autograd.grad((g * g).sum(), seed)
            results.append((y.detach().numpy(), g.detach().numpy(), gg.numpy(), y.grad_fn.name(), g.grad_fn.name()))
    for ours, theirs in zip(results[:4], results[4:]):
        for a, b in zip(ours[:3], theirs[:3]):
            np.testing.assert_allclose(a, b)
        assert ours[3:] == theirs[3:]
    assert results[0][1][1].tolist() == list(np.sin(np.arange(18.0)).reshape(6, 3)[[0, 2, 5]].sum(0))


def test_embedding_module_pads_renormalizes_and_loads_pretrained_as_torch():
    weights = np.random.default_rng(3).normal(size=(6, 4)) * 2
    seen = []
    for lib in (al, torch):
        lib.manual_seed(0)
        padded = lib.nn.Embedding(6, 4, padding_idx=2)
        frozen = lib.nn.Embedding.from_pretrained(lib.tensor(weights))
        free = lib.nn.Embedding.from_pretrained(lib.tensor(weights), freeze=False, max_norm=1.5)
        out = free(lib.tensor([[0, 3], [3, 5]]))
        seen.append((padded.weight[2].tolist(), padded.weight.requires_grad, frozen.weight.requires_grad,
                     frozen(lib.tensor([4, 0])).tolist(), out.detach().numpy(), free.weight.detach().numpy(),
                     repr(frozen), repr(free)))
    ours, theirs = seen
    assert ours[:4] == theirs[:4] and ours[6:] == theirs[6:]
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-6)
    np.testing.assert_allclose(ours[5], theirs[5], rtol=1e-6)     # the rows looked up, scaled in place


def test_dropout2d_zeroes_whole_channels_and_scales_the_rest():
    al.manual_seed(0)
    x = al.ones(8, 16, 3, 3, requires_grad=True)
    y = al.nn.Dropout2d(0.25)(x)
    per_channel = y.detach().numpy().reshape(8, 16, 9)
    assert np.allclose(np.unique(per_channel), [0.0, 1 / 0.75])
    assert all(len(set(c)) == 1 for c in per_channel.reshape(-1, 9).tolist())   # a channel: all or nothing
    assert 0.1 < (per_channel == 0).mean() < 0.4
    assert y.grad_fn.name() == "MulBackward0"
    model = al.nn.Dropout2d(0.5).eval()
    assert model(x) is x and al.nn.functional.dropout2d(x, 0.0) is x and al.nn.functional.dropout(x, 0.0) is x


@pytest.mark.parametrize("name, ndim", [("dropout2d", 3), ("dropout2d", 5), ("dropout3d", 2)])
def test_channel_dropout_warns_of_unusual_inputs_as_torch(name, ndim):
    said = []
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(lib.nn.functional, name)(lib.ones(*(3,) * ndim), 0.5)
        said.append([str(w.message) for w in caught])
    assert said[0] == said[1] and said[0]


def test_lazy_linear_reads_its_input_size_and_becomes_a_linear_as_torchs():
    seen = []
    for lib in (al, torch):
        lazy = lib.nn.LazyLinear(3)
        before = (repr(lazy), repr(lazy.weight), isinstance(lazy.weight, lib.nn.Parameter), lazy.in_features)
        optimizer = lib.optim.SGD(lazy.parameters(), lr=0.1)
        lazy(lib.ones(2, 5)).sum().backward()
        optimizer.step()
        seen.append((before, type(lazy).__name__, repr(lazy), tuple(lazy.weight.shape), tuple(lazy.bias.shape),
                     type(lazy.weight) is type(lib.nn.Linear(1, 1).weight), len(lazy._forward_pre_hooks)))
    assert seen[0] == seen[1]


def test_lazy_linear_draws_torchs_initialisation_bounds():
    al.manual_seed(0)
    layer = al.nn.LazyLinear(200)
    layer(al.ones(1, 50))
    bound = 1 / np.sqrt(50)
    w = layer.weight.detach().numpy()
    assert 0.95 * bound < np.abs(w).max() <= bound and abs(w.mean()) < 0.01
