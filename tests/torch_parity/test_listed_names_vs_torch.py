"""Names of the usage list (usage/, issue 48) that no other comparison with torch reached:
view_as, nelement, is_tensor, is_grad_enabled and set_grad_enabled, as_tensor (no copy
where none is needed), empty_like, uniform_ (a tensor's and nn.init's), a custom
Optimizer subclass, cuda.manual_seed_all.  Values, gradients, grad_fn names, printed forms
and errors, as torch 2.13 gives them."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402
from op_cases import error_of  # noqa: E402


def _dtype(t):
    return str(t.dtype).split(".")[-1]


def _view_as(L):
    x = L.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    y = x.view_as(L.zeros(3, 2))
    (y * L.tensor([[1.], [2.], [3.]])).sum().backward()
    return y.tolist(), y.grad_fn.name(), x.grad.tolist()


def _grad_switch(L):
    x = L.ones(2, requires_grad=True)
    said = [L.is_grad_enabled()]
    with L.set_grad_enabled(False):
        said.append((L.is_grad_enabled(), (x * 2).requires_grad))
    said.append(L.is_grad_enabled())
    L.set_grad_enabled(False)                       # (as a function, till set back)
    said.append(((x * 2).requires_grad, L.is_grad_enabled()))
    L.set_grad_enabled(True)
    said.append(((x * 2).requires_grad, L.is_grad_enabled()))
    return said


def _as_tensor(L):
    x = L.ones(2, requires_grad=True)
    same = L.as_tensor(x)
    wider = L.as_tensor(x, dtype=L.float64)
    shared, copied, ints = np.arange(3.0), np.arange(3.0), np.array([1, 2], dtype=np.int32)
    t_shared, t_copied, t_ints = L.as_tensor(shared), L.as_tensor(copied, dtype=L.float32), L.as_tensor(ints)
    shared[0] = copied[0] = ints[0] = 9           # (a view of the array sees the write)
    return (same is x, wider.grad_fn.name(), _dtype(wider), t_shared.tolist(), _dtype(t_shared),
            t_copied.tolist(), t_ints.tolist(), _dtype(t_ints), L.as_tensor([1.5, 2]).tolist(),
            _dtype(L.as_tensor(np.float64(2.5))))


def _empty_like(L):
    x = L.ones(2, 3, requires_grad=True)
    e, f = L.empty_like(x), L.empty_like(x, dtype=L.int64, requires_grad=False)
    return tuple(e.shape), _dtype(e), e.requires_grad, e.grad_fn, _dtype(f)


def _uniform(L, fill):
    """(where the numbers fall, and whether the tensor itself came back): the draws are
    the library's own."""
    w = L.zeros(2000)
    out = fill(L, w)
    return (out is w, bool((w >= -2).all()), bool((w < 3).all()), float(w.min()) < -1.9,
            float(w.max()) > 2.9, abs(float(w.mean()) - 0.5) < 0.15)


def _custom_optimizer(L):
    class MySGD(L.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))

        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        with L.no_grad():
                            p -= group["lr"] * p.grad

    p = L.tensor([1., -2.], requires_grad=True)
    opt = MySGD([p], lr=0.25)
    (p * p).sum().backward()
    opt.step()
    opt.zero_grad()
    return (p.tolist(), p.grad, opt.defaults, opt.state_dict()["param_groups"], repr(opt),
            isinstance(opt, L.optim.Optimizer))


CASES = {
    "view_as": _view_as,
    "view_as of another size": lambda L: error_of(lambda: L.ones(2, 3).view_as(L.zeros(4))),
    "nelement": lambda L: (L.ones(2, 3).nelement(), L.zeros(0, 3).nelement(), L.tensor(1.).nelement()),
    "is_tensor": lambda L: (L.is_tensor(L.ones(1)), L.is_tensor([1.0]), L.is_tensor(np.zeros(2)),
                            L.is_tensor(L.nn.Parameter(L.ones(1)))),
    "set_grad_enabled and is_grad_enabled": _grad_switch,
    "as_tensor copies only where it must": _as_tensor,
    "as_tensor of strings": lambda L: error_of(lambda: L.as_tensor(np.array(["a"])))[0],
    "empty_like": _empty_like,
    "uniform_": lambda L: _uniform(L, lambda L, w: w.uniform_(-2, 3)),
    "nn.init.uniform_": lambda L: _uniform(L, lambda L, w: L.nn.init.uniform_(w, a=-2.0, b=3.0)),
    "uniform_ of a leaf that requires grad": lambda L: error_of(lambda: L.zeros(2, requires_grad=True).uniform_()),
    "nn.init.uniform_ of a parameter": lambda L: (lambda w: (L.nn.init.uniform_(w) is w, w.grad_fn,
                                                            w.requires_grad))(L.nn.Linear(2, 2).weight),
    "a custom Optimizer": _custom_optimizer,
    "an Optimizer without parameters": lambda L: error_of(lambda: L.optim.SGD([], lr=0.1)),
    "cuda.manual_seed_all": lambda L: (L.cuda.manual_seed_all(0), L.cuda.manual_seed(0)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_listed_name_answers_as_torch(case):
    assert CASES[case](al) == CASES[case](torch)
