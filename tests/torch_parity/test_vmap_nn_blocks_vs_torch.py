"""al.func.vmap over nn's building blocks against torch.func.vmap: per-sample gradients
through functional_call of models with layer norm, group norm, batch norm (eval mode, or
without running statistics), embeddings and the activations -- each vectorized, no
per-sample fallback --; a batch of weights; batch norm's refusal to update running
statistics from inside vmap, in torch's words; and Jacobians and Hessians through them."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402
from autograd_lab import batching  # noqa: E402

from op_cases import error_of  # noqa: E402

B = 4


@pytest.fixture(autouse=True)
def no_fallback(monkeypatch):
    """Every case here must be vectorized: the per-sample fallback's warning is an error."""
    monkeypatch.setattr(batching, "_warned", set())
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")
        yield


def _same_weights(ours, theirs):
    with torch.no_grad():
        for (_, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            b.copy_(torch.tensor(a.numpy()))
    return theirs


MODELS = {
    "LayerNorm and GELU": (lambda nn: nn.Sequential(nn.Linear(5, 6), nn.LayerNorm(6), nn.GELU(), nn.Linear(6, 3)),
                           (5,), "float"),
    "GroupNorm, SiLU, PReLU": (lambda nn: nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.GroupNorm(2, 4), nn.SiLU(),
                                                        nn.PReLU(4), nn.Flatten(), nn.Linear(4 * 16, 3)),
                               (2, 4, 4), "float"),
    "BatchNorm in eval mode": (lambda nn: nn.Sequential(nn.Linear(5, 6), nn.BatchNorm1d(6), nn.LeakyReLU(0.1),
                                                        nn.Linear(6, 3)).eval(), (5,), "float"),
    "BatchNorm without running statistics": (lambda nn: nn.Sequential(
        nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3, track_running_stats=False), nn.ELU(), nn.Flatten(),
        nn.Linear(12, 3)), (2, 4, 4), "float"),
    "Embedding, mean over tokens": (lambda nn: nn.Sequential(nn.Embedding(10, 4, padding_idx=0), nn.Softplus(),
                                                             nn.Flatten(), nn.Linear(12, 3)), (3,), "tokens"),
}


def _inputs(kind, shape, lib):
    data = np.random.default_rng(0)
    if kind == "tokens":
        x = data.integers(0, 10, (B,) + shape)
        x[0, 0] = 0
        return lib.tensor(x), lib.tensor(data.integers(0, 3, B))
    return lib.tensor(data.normal(size=(B,) + shape)), lib.tensor(data.integers(0, 3, B))


@pytest.mark.parametrize("case", list(MODELS))
def test_per_sample_gradients_through_functional_call_match_torchs(case):
    make, shape, kind = MODELS[case]
    al.manual_seed(0)
    ours = make(al.nn).double()
    theirs = _same_weights(ours, make(torch.nn).double())
    results = []
    for lib, model in ((al, ours), (torch, theirs)):
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}
        x, y = _inputs(kind, shape, lib)

        def loss(params, x, y):
            out = lib.func.functional_call(model, (params, buffers), (x.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(out, y.unsqueeze(0))
        grads = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
        results.append({k: g.detach().numpy() for k, g in grads.items()})
    assert results[0].keys() == results[1].keys()
    for k in results[0]:
        assert results[0][k].shape[0] == B
        np.testing.assert_allclose(results[0][k], results[1][k], rtol=1e-7, atol=1e-10, err_msg=k)


FUNCTIONS = {   # (function of the library and one sample's inputs, sample shapes, in_dims)
    "layer_norm, a batch of weights": (lambda L, x, w, b: L.nn.functional.layer_norm(x, (3,), w, b),
                                       [(2, 3), (3,), (3,)], (0, 0, 0)),
    "layer_norm, one weight": (lambda L, x, w, b: L.nn.functional.layer_norm(x, (3,), w, b),
                               [(2, 3), (3,), (3,)], (0, None, None)),
    "batch_norm per sample": (lambda L, x, w, b: L.nn.functional.batch_norm(x, None, None, w, b, training=True),
                              [(5, 3), (3,), (3,)], (0, 0, None)),
    "batch_norm with batched running statistics": (
        lambda L, x, m, v: L.nn.functional.batch_norm(x, m.detach(), v.exp().detach()), [(5, 3), (3,), (3,)],
        (0, 0, 0)),
    "group_norm": (lambda L, x, w: L.nn.functional.group_norm(x, 2, w), [(3, 4, 2), (4,)], (0, 0)),
    "embedding, a batch of tables": (lambda L, w: L.nn.functional.embedding(L.tensor([[1, 3], [3, 0]]), w),
                                     [(5, 2)], (0,)),
    "prelu, a batch of slopes": (lambda L, x, a: L.nn.functional.prelu(x, a), [(2, 3, 2), (3,)], (0, 0)),
    "cosine_similarity": (lambda L, a, b: L.nn.functional.cosine_similarity(a, b, dim=-1), [(3, 4), (4,)], (0, None)),
}


@pytest.mark.parametrize("case", list(FUNCTIONS))
def test_functions_under_vmap_match_torch_in_values_and_per_sample_gradients(case):
    fn, shapes, dims = FUNCTIONS[case]
    data = np.random.default_rng(1)
    arrays = [data.normal(size=s if d is None else (B,) + s) for s, d in zip(shapes, dims)]
    got = []
    for lib in (al, torch):
        xs = [lib.tensor(a) for a in arrays]
        y = lib.func.vmap(lambda *a: fn(lib, *a), in_dims=dims)(*xs)
        w = lib.tensor(np.cos(np.arange(int(np.prod(tuple(y.shape[1:]))))).reshape(tuple(y.shape[1:])))
        grads = lib.func.vmap(lib.func.grad(lambda *a: (fn(lib, *a) * w).sum(), tuple(range(len(xs)))),
                              in_dims=dims)(*xs)
        got.append((y.numpy(), [g.numpy() for g in grads]))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-9, atol=1e-12)
    for a, b in zip(got[0][1], got[1][1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-11)


def test_batch_norm_with_running_statistics_in_training_mode_is_refused_under_vmap_as_torch():
    def attempt(L):
        bn = L.nn.BatchNorm1d(3)
        params = {k: v.detach() for k, v in bn.named_parameters()}
        return L.func.vmap(lambda p, x: L.func.functional_call(bn, p, (x,)), in_dims=(None, 0))(params,
                                                                                             L.ones(B, 5, 3))
    ours, theirs = error_of(lambda: attempt(al)), error_of(lambda: attempt(torch))
    assert theirs[0] == "RuntimeError" and ours == theirs
    assert error_of(lambda: al.func.vmap(al.nn.BatchNorm1d(3))(al.ones(B, 5, 3))) == \
        error_of(lambda: torch.func.vmap(torch.nn.BatchNorm1d(3))(torch.ones(B, 5, 3)))


def test_running_statistics_that_require_grad_are_refused_in_torchs_words():
    def attempt(L):
        return L.nn.functional.batch_norm(L.ones(2, 3), L.zeros(3, requires_grad=True), L.ones(3))
    assert error_of(lambda: attempt(al)) == error_of(lambda: attempt(torch))


def test_jacobians_and_hessians_through_layer_norm_and_gelu_match_torchs():
    x = np.random.default_rng(2).normal(size=(2, 4))
    got = []
    for lib in (al, torch):
        w = lib.tensor(np.linspace(0.5, 1.5, 4))

        def f(t):
            return lib.nn.functional.gelu(lib.nn.functional.layer_norm(t, (4,), w)).sum(-1)
        got.append((lib.func.jacrev(f)(lib.tensor(x)).numpy(), lib.func.jacfwd(f)(lib.tensor(x)).numpy(),
                    lib.func.hessian(lambda t: f(t).sum())(lib.tensor(x)).numpy()))
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-11)
