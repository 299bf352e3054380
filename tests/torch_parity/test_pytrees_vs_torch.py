"""al.func's transforms on arguments that are dicts, tuples and lists of tensors (a model's
parameters, as torch.func's tutorials pass them): vjp, jvp, jacrev, jacfwd and hessian give
torch.func's numbers in torch.func's nest, alone and under vmap."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the comparison with "
                                            "torch.func is skipped")

import autograd_lab as al  # noqa: E402

rng = np.random.default_rng(21)
PARAMS = {"w": rng.normal(size=(3, 4)), "b": rng.normal(size=3), "extra": [rng.normal(size=2)]}
X = rng.normal(size=(5, 4))


def model(lib):
    def f(p, x):
        return (lib.tanh(x @ p["w"].T + p["b"]) * p["extra"][0].sum()).sum(-1)
    return f


def both(fn):
    """fn(lib, T, params, x) for autograd_lab and for torch, on the same numbers."""
    def tensors(lib):
        return {"w": lib.tensor(PARAMS["w"]), "b": lib.tensor(PARAMS["b"]),
                "extra": [lib.tensor(PARAMS["extra"][0])]}, lib.tensor(X)
    return fn(al, al.func, *tensors(al)), fn(torch, torch.func, *tensors(torch))


def assert_same_nest(ours, theirs):
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs)
        for k in theirs:
            assert_same_nest(ours[k], theirs[k])
    elif isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same_nest(a, b)
    else:
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-10)


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd", "hessian"])
def test_jacobians_of_a_dict_of_parameters_are_torchs(transform):
    assert_same_nest(*both(lambda lib, T, p, x: getattr(T, transform)(model(lib))(p, x[0])))


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_jacobians_per_sample_under_vmap_and_of_both_arguments_are_torchs(transform):
    assert_same_nest(*both(lambda lib, T, p, x: T.vmap(getattr(T, transform)(model(lib)), (None, 0))(p, x)))
    assert_same_nest(*both(lambda lib, T, p, x: getattr(T, transform)(model(lib), argnums=(0, 1))(p, x[:2])))


def test_vjp_and_jvp_of_a_dict_of_parameters_are_torchs():
    def run(lib, T, p, x):
        out, pullback = T.vjp(lambda q: model(lib)(q, x), p)
        grads = pullback(lib.ones_like(out))
        _, tangent = T.jvp(lambda q: model(lib)(q, x), (p,), grads)
        return out, grads, tangent
    assert_same_nest(*both(run))


@pytest.mark.parametrize("tangent", [
    lambda p: {"w": p["w"]},                       # a key missing
    lambda p: {"b": p["b"], "w": p["w"]},          # the keys in another order: torch refuses too
    lambda p: {"w": p["w"], "c": p["b"]},          # another key
    lambda p: (p["w"], p["b"]),                    # a tuple for a dict
], ids=["missing", "reordered", "renamed", "tuple"])
def test_tangents_must_have_the_primals_nest(tangent):
    p = {"w": al.tensor(PARAMS["w"]), "b": al.tensor(PARAMS["b"])}
    tp = {k: torch.tensor(v.numpy()) for k, v in p.items()}
    with pytest.raises(RuntimeError, match="Expected primals and tangents to have the same python structure"):
        torch.func.jvp(lambda q: q["w"].sum() + q["b"].sum(), (tp,), (tangent(tp),))
    with pytest.raises(RuntimeError, match="Expected primals and tangents to have the same python structure"):
        al.func.jvp(lambda q: q["w"].sum() + q["b"].sum(), (p,), (tangent(p),))


@pytest.mark.parametrize("call", [
    lambda lib, T, p, x: T.jacrev(model(lib), argnums=(0, 0))(p, x[0]),
    lambda lib, T, p, x: T.jacfwd(model(lib), argnums=[0])(p, x[0]),
    lambda lib, T, p, x: T.jacrev(lambda q, v: [model(lib)(q, v)], has_aux=True)(p, x[0]),
], ids=["argnums twice", "argnums a list", "has_aux without a pair"])
def test_refusals_with_a_dict_argument_are_torchs(call):
    def error(lib, T):
        try:
            both_args = ({"w": lib.tensor(PARAMS["w"]), "b": lib.tensor(PARAMS["b"]),
                          "extra": [lib.tensor(PARAMS["extra"][0])]}, lib.tensor(X))
            call(lib, T, *both_args)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
        return None
    want = error(torch, torch.func)
    assert want is not None and error(al, al.func) == want


def test_jacfwd_per_sample_of_weights_vmap_does_not_map_is_torchs():
    """vmap(jacfwd(f), (None, None, 0)): the weights are the same for every sample, the
    function reads the batched sample: one Jacobian per sample."""
    def run(lib, T, p, x):
        return T.vmap(T.jacfwd(lambda w, b, v: lib.tanh(v @ w.T + b), argnums=(0, 1)),
                      (None, None, 0))(p["w"], p["b"], x)
    assert_same_nest(*both(run))
