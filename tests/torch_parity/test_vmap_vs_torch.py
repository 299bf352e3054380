"""al.func.vmap against torch.func.vmap: every op case with a batch rule (values, and
gradients through grad), nested in_dims and out_dims, the transforms composed with it,
torch's error words, and the per-sample gradients of a small MLP."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402
from autograd_lab import batching, func  # noqa: E402

from op_cases import CASES, error_of  # noqa: E402
from test_engine_vs_torch import _torch_version as torch_version  # noqa: E402

B = 3

# cases vmap does not batch here, and why: a data-dependent shape (torch refuses it too),
# autograd.grad inside the function, or an in-place write (the cases after movedim, but
# the last).  (max(dim), sort, gather, binary_cross_entropy and cross_entropy check or
# read their numbers on the whole batch at once: no per-sample loop.)
SKIP = {"index_mask", "relu_gradient", "einsum_diagonal_gradient"}
BATCHED = [c for c in CASES[:[n for n, *_ in CASES].index("movedim") + 1] + CASES[-1:]
           if c[0] not in SKIP]
# torch has no batch rule for the gradients of these (aten::masked_scatter, unfold_backward):
# its per-sample fallback warns; autograd_lab's rules are batched, and must not warn
TORCH_FALLS_BACK = {"masked_select", "unfold", "unfold_step"}


def batch_inputs(shapes, kind, seed=0):
    """Inputs with a batch of B in front (shape () gets a batch too), drawn as op_cases does."""
    rng = np.random.default_rng(seed)
    out = []
    for i, shape in enumerate(shapes):
        if kind == "pos":
            v = rng.uniform(0.5, 2.0, (B,) + shape)
        elif kind == "apart":
            n = B * int(np.prod(shape))
            v = ((rng.permutation(n) - n / 2 + 0.25 + 0.1 * i) * 0.37).reshape((B,) + shape)
        else:
            v = rng.normal(size=(B,) + shape)
        out.append(v)
    return out


def close(a, b):
    a = a.detach().numpy() if isinstance(a, al.Tensor) else a
    return np.allclose(a, b.detach().numpy(), equal_nan=True, atol=1e-10)


@pytest.fixture
def vectorized(monkeypatch):
    """The fallback's warnings forgotten before the test, so that it would see one (the
    test makes it an error: every op here has a batch rule)."""
    monkeypatch.setattr(batching, "_warned", set())


@pytest.mark.parametrize("name, fn, shapes, kind", BATCHED, ids=[c[0] for c in BATCHED])
def test_every_batched_op_matches_torch_values_and_gradients(name, fn, shapes, kind, vectorized):
    arrays = batch_inputs(shapes, kind)
    ours = [al.tensor(a, dtype=al.float64) for a in arrays]
    theirs = [torch.tensor(a) for a in arrays]
    tfn = torch_version(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)        # torch's .T deprecation
        warnings.filterwarnings("error", message="There is a performance drop")
        y = func.vmap(fn)(*ours)
        ty = torch.func.vmap(tfn)(*theirs)
    assert y.shape == tuple(ty.shape) and close(y, ty)
    # gradients, one per sample: vmap(grad(sum of a fixed weighting of the output))
    w = np.random.default_rng(1).normal(size=tuple(ty.shape[1:]))
    argnums = tuple(range(len(shapes)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.filterwarnings("error", message="There is a performance drop")
        gs = func.vmap(func.grad(lambda *a: (fn(*a) * al.tensor(w)).sum(), argnums))(*ours)
        if name in TORCH_FALLS_BACK:
            warnings.simplefilter("ignore", UserWarning)
        tgs = torch.func.vmap(torch.func.grad(lambda *a: (tfn(*a) * torch.tensor(w)).sum(),
                                              argnums))(*theirs)
    for g, tg in zip(gs, tgs):
        assert g.shape == tuple(tg.shape) and close(g, tg)


@pytest.mark.parametrize("name, fn, shapes, kind", BATCHED[:12], ids=[c[0] for c in BATCHED[:12]])
def test_an_unbatched_input_broadcasts_as_torch(name, fn, shapes, kind):
    """in_dims None for the last input: the same tensor for every sample."""
    arrays = batch_inputs(shapes, kind)
    arrays[-1] = arrays[-1][0]
    dims = (0,) * (len(shapes) - 1) + (None,)
    if dims == (None,):
        dims = 0
        arrays[-1] = batch_inputs(shapes, kind)[-1]
    y = func.vmap(fn, in_dims=dims)(*[al.tensor(a, dtype=al.float64) for a in arrays])
    ty = torch.func.vmap(torch_version(fn), in_dims=dims)(*[torch.tensor(a) for a in arrays])
    assert close(y, ty)


def _picking_cases():
    """(name, function of one sample, input arrays, in_dims): gather, sort and the two
    diagonals of al.diag, their batch elsewhere than in front, an index batched or not."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(B, 3, 4))
    i = rng.integers(0, 4, (3, 2))
    ib = rng.integers(0, 3, (B, 2, 4))
    gather = lambda x, i: x.gather(1, i)            # noqa: E731
    return [
        ("gather, the index shared", gather, [x, i], (0, None)),
        ("gather, only the index batched", gather, [x[0], np.moveaxis(rng.integers(0, 4, (B, 3, 2)), 0, 1)],
         (None, 1)),
        ("gather along 0, both batched elsewhere", lambda x, i: x.gather(0, i),
         [np.moveaxis(x, 0, 2), ib], (2, 0)),
        ("sort, descending, batch in the middle", lambda x: x.sort(0, descending=True),
         [np.moveaxis(x, 0, 1)], 1),
        ("sort, stable, ties", lambda x: x.sort(dim=-1, stable=True), [np.round(x * 2) / 2], 0),
        ("diag_put above", lambda v: v.diag(1), [x[:, 0]], 0),
        ("diag_put below, batch last", lambda v: v.diag(-2), [x[:, 0].T], 1),
        ("diag_take", lambda m: m.diag(), [np.moveaxis(x, 0, 1)], 1),
        ("diag_take above, batch last", lambda m: m.diag(2), [np.moveaxis(x, 0, 2)], 2),
    ]


@pytest.mark.parametrize("case", range(len(_picking_cases())),
                         ids=[c[0] for c in _picking_cases()])
def test_gather_sort_and_diagonals_batch_as_torch(case, vectorized):
    """Each has a batch rule (no per-sample loop, no warning): values, indices and the
    gradients through grad match torch.func.vmap's."""
    name, fn, arrays, dims = _picking_cases()[case]
    ours = [al.tensor(a) for a in arrays]
    theirs = [torch.tensor(a) for a in arrays]

    def values(x, *rest):
        out = fn(x, *rest)
        return out[0] if isinstance(out, tuple) else out

    def loss(x, *rest):
        return (values(x, *rest) ** 2).sum()

    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")
        y, ty = func.vmap(fn, in_dims=dims)(*ours), torch.func.vmap(fn, in_dims=dims)(*theirs)
        g = func.vmap(func.grad(loss), in_dims=dims)(*ours)
        tg = torch.func.vmap(torch.func.grad(loss), in_dims=dims)(*theirs)
    for a, b in zip(y if isinstance(y, tuple) else (y,), ty if isinstance(ty, tuple) else (ty,)):
        assert a.shape == tuple(b.shape) and close(a, b)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]   # (sort's indices: int64)
    assert g.shape == tuple(tg.shape) and close(g, tg)


def test_nested_in_dims_and_out_dims_match_torch():
    rng = np.random.default_rng(3)
    x, y, z = rng.normal(size=(4, 2)), rng.normal(size=(5, 3, 2)), rng.normal(size=(3,))

    def f(pair, c):
        a, b = pair
        return a.sum() * b + c[0], (a * 2, b.mean())

    ours = func.vmap(f, in_dims=((1, 2), None), out_dims=(1, (0, 0)))(
        (al.tensor(x), al.tensor(y)), al.tensor(z))
    theirs = torch.func.vmap(f, in_dims=((1, 2), None), out_dims=(1, (0, 0)))(
        (torch.tensor(x), torch.tensor(y)), torch.tensor(z))
    for a, b in zip([ours[0], *ours[1]], [theirs[0], *theirs[1]]):
        assert a.shape == tuple(b.shape) and close(a, b)


def test_vmap_of_vmap_with_out_dims_matches_torch():
    x = np.random.default_rng(4).normal(size=(2, 3, 4))
    f = lambda v: v.exp() / v.sum()   # noqa: E731
    ours = func.vmap(func.vmap(f, in_dims=1, out_dims=1), in_dims=2, out_dims=-1)(al.tensor(x))
    theirs = torch.func.vmap(torch.func.vmap(f, in_dims=1, out_dims=1), in_dims=2,
                             out_dims=-1)(torch.tensor(x))
    assert ours.shape == tuple(theirs.shape) and close(ours, theirs)


def _sample_fn(lib):
    return lambda v: (v.sin() * v.sum()).tanh()


@pytest.mark.parametrize("transform", ["grad", "jacrev", "jacfwd", "hessian", "jvp", "vjp",
                                       "grad_and_value"])
def test_transforms_inside_vmap_match_torch(transform):
    x = np.random.default_rng(5).normal(size=(4, 3))
    results = []
    for lib, T in ((al, func), (torch, torch.func)):
        f = _sample_fn(lib)
        X = lib.tensor(x)
        if transform in ("grad", "hessian", "grad_and_value"):
            out = T.vmap(getattr(T, transform)(lambda v: f(v).sum()))(X)
        elif transform in ("jacrev", "jacfwd"):
            out = T.vmap(getattr(T, transform)(f))(X)
        elif transform == "jvp":
            out = T.vmap(lambda v, t: T.jvp(f, (v,), (t,)))(X, X.cos())
        else:
            out = T.vmap(lambda v, c: T.vjp(f, v)[1](c)[0])(X, X.exp())
        results.append(out if isinstance(out, tuple) else (out,))
    for a, b in zip(*results):
        assert a.shape == tuple(b.shape) and close(a, b)


@pytest.mark.parametrize("transform", ["grad", "jacrev", "jacfwd", "jvp"])
def test_transforms_of_vmap_match_torch(transform):
    x = np.random.default_rng(6).normal(size=(4, 3))
    w = np.random.default_rng(7).normal(size=(3,))
    results = []
    for lib, T in ((al, func), (torch, torch.func)):
        X, W = lib.tensor(x), lib.tensor(w)
        batch = lambda W: T.vmap(lambda v: (v * W).sin().sum(), in_dims=(0,))(X)   # noqa: E731
        if transform == "grad":
            out = T.grad(lambda W: batch(W).sum())(W)
        elif transform == "jvp":
            out = T.jvp(batch, (W,), (W.exp(),))[1]
        else:
            out = getattr(T, transform)(batch)(W)
        results.append(out)
    assert results[0].shape == tuple(results[1].shape) and close(*results)


def _flat(t):
    return [u for e in t for u in _flat(e)] if isinstance(t, (tuple, list)) else [t]


@pytest.mark.parametrize("case", ["grad with aux and two argnums", "jacrev of two argnums",
                                  "an output the same for every sample", "a negative in_dim",
                                  "vmap of vmap of grad", "jvp with aux", "hessian of vmap",
                                  "forward over reverse inside vmap",
                                  "forward over reverse of vmap"])
def test_more_compositions_match_torch(case):
    x = np.random.default_rng(0).normal(size=(4, 3))
    w = np.random.default_rng(1).normal(size=(3,))
    results = []
    for lib, T in ((al, func), (torch, torch.func)):
        X, W = lib.tensor(x), lib.tensor(w)
        results.append({
            "grad with aux and two argnums": lambda: T.vmap(T.grad(
                lambda v, W: ((v * W).sin().sum(), v.cos()), argnums=(0, 1), has_aux=True),
                in_dims=(0, None))(X, W),
            "jacrev of two argnums": lambda: T.vmap(T.jacrev(
                lambda v, W: (v * W).sin(), argnums=(0, 1)), in_dims=(0, None))(X, W),
            "an output the same for every sample": lambda: T.vmap(lambda v: W * 2)(X),
            "a negative in_dim": lambda: T.vmap(lambda v: v.sum(), in_dims=-1)(X),
            "vmap of vmap of grad": lambda: T.vmap(T.vmap(T.grad(
                lambda a, b: (a * b).sin()), in_dims=(0, None)), in_dims=(None, 0))(X[0], X[:, 1]),
            "jvp with aux": lambda: T.vmap(lambda v: T.jvp(
                lambda u: (u.exp(), u.sum()), (v,), (v,), has_aux=True))(X),
            "hessian of vmap": lambda: T.hessian(
                lambda W: T.vmap(lambda v: (v * W).sin().sum())(X).sum())(W),
            "forward over reverse inside vmap": lambda: T.vmap(T.jacfwd(T.jacrev(
                lambda v: (v.sin() * v.sum()).sum())))(X),
            "forward over reverse of vmap": lambda: T.jacfwd(T.jacrev(
                lambda W: T.vmap(lambda v: (v * W).sin().sum())(X).sum()))(W),
        }[case]())
    ours, theirs = _flat(results[0]), _flat(results[1])
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == tuple(b.shape) and close(a, b)


def test_vmap_over_a_vjp_is_one_batched_backward_and_matches_torch():
    x = np.random.default_rng(8).normal(size=(3,))
    seeds = np.eye(3)
    f = lambda v: v.exp() * v.sum()   # noqa: E731
    _, pull = func.vjp(f, al.tensor(x))
    with al.autograd.count_passes() as passes:
        rows = func.vmap(pull)(al.tensor(seeds))
    _, tpull = torch.func.vjp(f, torch.tensor(x))
    assert close(rows[0], torch.func.vmap(tpull)(torch.tensor(seeds))[0])
    assert passes.backward == 1


def test_per_sample_gradients_of_a_small_mlp_equal_torchs():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(8, 5))
    Y = np.eye(3)[rng.integers(0, 3, 8)]
    params = [rng.normal(size=(5, 4)), rng.normal(size=(4,)), rng.normal(size=(4, 3)),
              rng.normal(size=(3,))]

    def loss(F):
        def one(W1, b1, W2, b2, x, y):
            return -(F.log_softmax((x @ W1 + b1).relu() @ W2 + b2, -1) * y).sum()
        return one
    dims = (None,) * 4 + (0, 0)
    ours = func.vmap(func.grad(loss(al.nn.functional), (0, 1, 2, 3)), in_dims=dims)(
        *[al.tensor(p) for p in params], al.tensor(X), al.tensor(Y))
    theirs = torch.func.vmap(torch.func.grad(loss(torch.nn.functional), (0, 1, 2, 3)), in_dims=dims)(
        *[torch.tensor(p) for p in params], torch.tensor(X), torch.tensor(Y))
    for a, b in zip(ours, theirs):
        assert a.shape == tuple(b.shape) and close(a, b)


def test_per_sample_gradients_with_class_labels_as_torchs_tutorial():
    """cross_entropy of a batch of one (the sample unsqueezed), integer labels batched:
    the labels are checked on the whole batch, and no op runs once per sample."""
    rng = np.random.default_rng(10)
    X, labels, W = rng.normal(size=(4, 5)), rng.integers(0, 3, 4), rng.normal(size=(5, 3))
    results = []
    for lib, T in ((al, func), (torch, torch.func)):
        def loss(W, x, y):
            return lib.nn.functional.cross_entropy((x @ W).unsqueeze(0), y.unsqueeze(0))
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            results.append(T.vmap(T.grad(loss), in_dims=(None, 0, 0))(
                lib.tensor(W), lib.tensor(X), lib.tensor(labels)))
        assert not [w for w in seen if "performance drop" in str(w.message)]
    assert close(*results)


def _errors(lib, T):
    x = lib.ones(3, 2)
    return {
        "sizes differ": lambda: T.vmap(lambda a, b: a + b)(x, lib.ones(4, 2)),
        "in_dim out of range": lambda: T.vmap(lambda a: a, in_dims=2)(x),
        "in_dims structure": lambda: T.vmap(lambda a, b: a, in_dims=(0,))(x, x),
        "in_dims type": lambda: T.vmap(lambda a: a, in_dims=[0])(x),
        "in_dim on a number": lambda: T.vmap(lambda a, n: a, in_dims=(0, 0))(x, 2.0),
        "nothing to map": lambda: T.vmap(lambda a: a, in_dims=None)(x),
        "no inputs": lambda: T.vmap(lambda: x)(),
        "out_dims structure": lambda: T.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(x),
        "out_dims type": lambda: T.vmap(lambda a: a, out_dims="x")(x),
        "out_dim None on a batched output": lambda: T.vmap(lambda a: a, out_dims=None)(x),
        "a number returned": lambda: T.vmap(lambda a: 1.0)(x),
        "randomness": lambda: T.vmap(lambda a: a + lib.randn(2))(x),
        "randomness value": lambda: T.vmap(lambda a: a, randomness="maybe")(x),
        "chunk_size": lambda: T.vmap(lambda a: a, chunk_size=0)(x),
        "item": lambda: T.vmap(lambda a: a.sum().item())(x),
        "control flow": lambda: T.vmap(lambda a: a if a.sum() > 0 else -a)(x),
        "grad of a vector": lambda: T.vmap(T.grad(lambda a: a * 2))(x),
    }


@pytest.mark.parametrize("case", list(_errors(al, func)))
def test_errors_in_torchs_words(case):
    ours = error_of(_errors(al, func)[case])
    theirs = error_of(_errors(torch, torch.func)[case])
    assert ours[0] == theirs[0] and ours[1] is not None
    # torch prints a pytree's structure as a TreeSpec; the words around it are the same
    words = theirs[1].split("TreeSpec")[0].split(" in_dims has structure")[0]
    assert ours[1].startswith(words.split("<lambda>")[0]), (ours[1], theirs[1])
