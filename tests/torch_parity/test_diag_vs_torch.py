"""al.diag and Tensor.diag beside torch's: values and dtypes for every offset (on the
matrix, off it, integers, empty), grad_fn names, gradients and tangents (the rules are
each other's VJP), and torch's refusals word for word."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the comparison with "
                                            "torch.diag is skipped")
import torch.func as tfunc  # noqa: E402

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402

rng = np.random.default_rng(13)
INPUTS = [rng.normal(size=3), rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), np.arange(5),
          np.zeros(0), np.zeros((2, 0))]


@pytest.mark.parametrize("array", INPUTS, ids=lambda a: "x".join(map(str, a.shape)) + str(a.dtype))
@pytest.mark.parametrize("offset", [0, 1, -1, 3, -5])
def test_values_dtypes_and_grad_fn_names_are_torchs(array, offset):
    ours, theirs = al.diag(al.tensor(array), offset), torch.diag(torch.tensor(array), offset)
    assert ours.dtype.is_floating_point == theirs.dtype.is_floating_point
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    if array.dtype.kind == "f":
        a, t = al.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
        assert a.diag(offset).grad_fn.name() == t.diag(offset).grad_fn.name()


@pytest.mark.parametrize("array", INPUTS[:3], ids=["vector", "tall", "wide"])
@pytest.mark.parametrize("offset", [0, 2, -1])
def test_jacobians_both_ways_and_second_derivatives_are_torchs(array, offset):
    f = lambda x: x.diag(offset)
    want = tfunc.jacrev(f)(torch.tensor(array))
    for transform in (al.func.jacrev, al.func.jacfwd):
        np.testing.assert_array_equal(transform(f)(al.tensor(array)).numpy(), want.numpy())
    g = lambda x: (x.diag(offset) ** 3).sum()
    np.testing.assert_allclose(al.func.hessian(g)(al.tensor(array)).numpy(),
                               tfunc.hessian(g)(torch.tensor(array)).numpy(), rtol=1e-12)


@pytest.mark.parametrize("make", [
    lambda lib: lib.diag(lib.ones(2, 2, 2)),
    lambda lib: lib.diag(lib.tensor(3.0)),
    lambda lib: lib.ones(2, 2, 2).diag(),
    lambda lib: lib.diag(lib.ones(3), 1.5),
    lambda lib: lib.diag(lib.ones(3), True),
    lambda lib: lib.ones(3).diag(1.5),
    lambda lib: lib.ones(3).diag("a"),
    lambda lib: lib.diag([1.0, 2.0]),
    lambda lib: lib.diag(lib.ones(3), dim=1),
], ids=["3-d", "0-d", "method 3-d", "float offset", "bool offset", "method float offset",
        "method str offset", "a list", "no such keyword"])
def test_refusals_are_torchs(make):
    assert error_of(lambda: make(al)) == error_of(lambda: make(torch))
