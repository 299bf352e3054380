"""Nested forward mode beside torch.func's: jacfwd(jacfwd(f)), a jvp of a jvp, hessian
(forward over reverse, as torch.func computes it) and jacfwd(jacrev(f)) give torch's
numbers and shapes, on fixed and seeded random functions; mixing al.func's levels with
forward_ad's is refused in torch's words."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the comparison with "
                                            "torch.func's nested forward mode is skipped")
import torch.autograd.forward_ad as tfwAD  # noqa: E402
import torch.func as tfunc  # noqa: E402

import autograd_lab as al  # noqa: E402
import autograd_lab.autograd.forward_ad as fwAD  # noqa: E402
from autograd_lab.core.modes import state  # noqa: E402

rng = np.random.default_rng(35)
W = rng.normal(size=(3, 4))
B = rng.normal(size=4)
X = rng.normal(size=3)
Y = rng.normal(size=(2, 3))


def const(lib, array):
    return lib.tensor(array, dtype=lib.float64)


# one definition per function, written once for both libraries: x -> a scalar
SCALAR = {
    "sin_exp": lambda lib: lambda x: (x.sin() * x.exp() * x).sum(),
    "layer": lambda lib: lambda x: ((x @ const(lib, W) + const(lib, B)).tanh() ** 2).sum(),
    "ratio": lambda lib: lambda x: (x.sigmoid() / (1 + x * x)).mean() + (x ** 3).sum(),
    "norm_log": lambda lib: lambda x: (x * x + 1).log().sum() * x.norm(),
    "select": lambda lib: lambda x: lib.where(x > 0, x ** 2, x.cos()).sum() + x.max(),
    "reshape": lambda lib: lambda x: (x.reshape(3, 1) * x.reshape(1, 3)).exp().sum(),
}

# x -> a vector: the second derivative is a 3-d tensor
VECTOR = {
    "outer": lambda lib: lambda x: (x.reshape(3, 1) * x).sin().sum(0),
    "matmul": lambda lib: lambda x: (x @ const(lib, W)).tanh() * x.sum(),
    "cat": lambda lib: lambda x: lib.cat([x.exp(), (x * x)[:2], x.sqrt().abs()]),
}


def same(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            same(o, t)
        return
    assert isinstance(ours, al.Tensor) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def run(transform, make, *arrays):
    """The same transform of the same function in both libraries."""
    ours = transform(al.func, make(al))(*[const(al, a) for a in arrays])
    theirs = transform(tfunc, make(torch))(*[const(torch, a) for a in arrays])
    same(ours, theirs)
    assert state.forward_level == 0


TRANSFORMS = {
    "jacfwd(jacfwd)": lambda F, f: F.jacfwd(F.jacfwd(f)),
    "jacfwd(jacrev)": lambda F, f: F.jacfwd(F.jacrev(f)),
    "jacrev(jacrev)": lambda F, f: F.jacrev(F.jacrev(f)),
}


@pytest.mark.parametrize("name", list(SCALAR))
@pytest.mark.parametrize("how", list(TRANSFORMS))
def test_second_derivatives_of_a_scalar_function_are_torchs(name, how):
    run(TRANSFORMS[how], SCALAR[name], X)


@pytest.mark.parametrize("name", list(SCALAR))
def test_hessian_is_torchs_and_computed_forward_over_reverse(name):
    run(lambda F, f: F.hessian(f), SCALAR[name], X)
    with al.autograd.count_passes() as c:
        al.func.hessian(SCALAR[name](al))(const(al, X))
    assert (c.forward, c.backward, c.jvp) == (1, 1, 1)     # one pass each: jacfwd(jacrev(f))


@pytest.mark.parametrize("name", list(VECTOR))
def test_jacfwd_of_jacfwd_of_a_vector_function_is_torchs(name):
    run(lambda F, f: F.jacfwd(F.jacfwd(f)), VECTOR[name], X)


def test_three_levels_of_forward_mode_and_forward_over_forward_over_reverse():
    run(lambda F, f: F.jacfwd(F.jacfwd(F.jacfwd(f))), SCALAR["sin_exp"], X)
    run(lambda F, f: F.jacfwd(F.hessian(f)), SCALAR["layer"], X)


def test_jacfwd_of_jacfwd_with_two_arguments_and_argnums():
    make = lambda lib: lambda x, y: ((y @ x).sin() * (y * x.exp()).sum(1)).sum()
    run(lambda F, f: F.jacfwd(F.jacfwd(f, argnums=(0, 1)), argnums=1), make, X, Y)
    run(lambda F, f: F.hessian(f, argnums=(0, 1)), make, X, Y)


@pytest.mark.parametrize("seed", range(4))
def test_jvp_of_a_jvp_on_seeded_random_directions_is_torchs(seed):
    r = np.random.default_rng(seed)
    x, u, v = r.normal(size=3), r.normal(size=3), r.normal(size=3)
    body = VECTOR["matmul"]

    def outer(F, lib):
        f = body(lib)
        inner = lambda p: F.jvp(f, (p,), (const(lib, v) * p.cos(),))    # v depends on p
        return F.jvp(inner, (const(lib, x),), (const(lib, u),))

    same(outer(al.func, al), outer(tfunc, torch))
    assert state.forward_level == 0


@pytest.mark.parametrize("seed", range(3))
def test_hessian_of_a_seeded_random_two_layer_function_is_torchs(seed):
    r = np.random.default_rng(100 + seed)
    w1, w2, x = r.normal(size=(3, 5)), r.normal(size=5), r.normal(size=3)
    make = lambda lib: lambda x: ((x @ const(lib, w1)).tanh() @ const(lib, w2)).sigmoid()
    run(lambda F, f: F.hessian(f), make, x)
    run(lambda F, f: F.jacfwd(F.jacfwd(f)), make, x)


def test_has_aux_through_nested_forward_levels_is_torchs():
    make = lambda lib: lambda x: ((x ** 3).sum(), x * 2)

    def take(F, lib):
        return F.jacfwd(lambda x: F.jacfwd(make(lib), has_aux=True)(x)[0])(const(lib, X))
    same(take(al.func, al), take(tfunc, torch))


def test_a_jvp_inside_forward_ad_and_forward_ad_inside_a_jvp_are_refused_as_in_torch():
    def errors(F, ad, lib):
        x = const(lib, X)
        texts = []
        with ad.dual_level():
            d = ad.make_dual(x, x)
            try:
                F.jvp(lambda z: z * 2, (d,), (x,))
            except RuntimeError as e:
                texts.append(str(e))

        def inside(z):
            with ad.dual_level():
                return z * 2
        try:
            F.jvp(inside, (x,), (x,))
        except RuntimeError as e:
            texts.append(str(e))
        return texts
    ours = errors(al.func, fwAD, al)
    assert ours == errors(tfunc, tfwAD, torch) and len(ours) == 2
    assert state.forward_level == 0 and state.dual_tensors is None
