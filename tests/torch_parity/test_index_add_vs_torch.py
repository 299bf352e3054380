"""x.index_add(dim, index, source, alpha=...), index_add_ and al.index_add against torch:
values (positions named twice add up), gradients and second derivatives, grad_fn names
and versions, vmap, and torch's refusals word for word."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402
from op_cases import error_of  # noqa: E402


def _both(make):
    return make(al), make(torch)


def test_positions_named_twice_add_up_and_gradients_are_torchs():
    def make(lib):
        x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        s = lib.tensor(np.linspace(-1, 1, 9).reshape(3, 3), requires_grad=True)
        i = lib.tensor([3, 0, 3])
        y = x.index_add(1, i, s, alpha=2.5)
        w = lib.tensor(np.arange(12.0).reshape(3, 4) % 5)
        gx, gs = lib.autograd.grad((y * y * w).sum(), (x, s), create_graph=True)
        hs, = lib.autograd.grad(gs.sum(), s)
        return y.tolist(), y.grad_fn.name(), gx.tolist(), gs.tolist(), hs.tolist()
    ours, theirs = _both(make)
    assert ours == theirs
    assert ours[1] == "IndexAddBackward0"


def test_index_add_in_place_records_index_add_and_counts_a_version():
    def make(lib):
        x = lib.zeros(3, 2, requires_grad=True)
        y = x * 1
        y.index_add_(0, lib.tensor([1, 1]), lib.ones(2, 2))
        y.sum().backward()
        return (y.tolist(), y.grad_fn.name(), y._version, x.grad.tolist(),
                lib.index_add(lib.zeros(3), 0, lib.tensor([2]), lib.tensor([5.0])).tolist(),
                error_of(lambda: x.index_add_(0, lib.tensor([0]), lib.ones(1, 2))))
    assert _both(make)[0] == _both(make)[1]


@pytest.mark.parametrize("call", [
    lambda lib, x: x.index_add(0, lib.tensor([0.0, 2.0]), lib.ones(2, 4)),
    lambda lib, x: x.index_add(0, lib.tensor([[0, 2]]), lib.ones(2, 4)),
    lambda lib, x: x.index_add(0, lib.tensor([0, 1, 2]), lib.ones(2, 4)),
    lambda lib, x: x.index_add(0, lib.tensor([0, 2]), lib.ones(2, 3)),
    lambda lib, x: x.index_add(0, lib.tensor([0, 2]), lib.ones(2, 4, dtype=lib.float64)),
    lambda lib, x: x.index_add(0, lib.tensor([0, 5]), lib.ones(2, 4)),
    lambda lib, x: x.index_add(0, lib.tensor([0, -1]), lib.ones(2, 4)),
    lambda lib, x: x.index_add(2, lib.tensor([0, 2]), lib.ones(2, 4)),
    lambda lib, x: x.index_add(0, [0, 2], lib.ones(2, 4)),
], ids=["float index", "2-d index", "count", "shape", "dtype", "past the end", "negative", "dim",
        "list index"])
def test_bad_arguments_are_refused_in_torchs_words(call):
    ours = error_of(lambda: call(al, al.zeros(3, 4)))
    theirs = error_of(lambda: call(torch, torch.zeros(3, 4)))
    assert ours == theirs and ours[0] is not None


def test_index_add_under_vmap_and_jacobians_batches_as_torch():
    def make(lib):
        F, i = lib.func, lib.tensor([0, 2])
        X, S = lib.arange(24.0).reshape(2, 3, 4), lib.ones(2, 2, 4)
        x = lib.zeros(3, 4)
        return (F.vmap(lambda a, b: a.index_add(0, i, b))(X, S).tolist(),
                F.vmap(lambda b: x.index_add(0, i, b, alpha=2))(S).tolist(),
                F.vmap(lambda a: (a * 1).index_add_(1, lib.tensor([3]), lib.ones(3, 1)))(X).tolist(),
                F.jacrev(lambda b: x.index_add(0, i, b))(S[0]).sum().item(),
                F.jacfwd(lambda b: x.index_add(0, i, b))(S[0]).sum().item())
    ours, theirs = _both(make)
    assert ours == theirs
