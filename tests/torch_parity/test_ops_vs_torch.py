"""The operations and aliases learners bring from torch code (issue 36), each run in both
libraries: the same value, dtype, shape, requires_grad, is_leaf and grad_fn name, or the
same exception type and message (up to the spelling of `torch.` and `al.`)."""
import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

# setup, then one expression; `L` is the library, x / m / b / s are made by SETUP
SETUP = ("x = L.tensor([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype=L.float64, requires_grad=True)\n"
         "m = x * 1\n"
         "v = L.tensor([0.5, -1.0, 2.0], dtype=L.float64, requires_grad=True)\n"
         "s = L.tensor(3.0, requires_grad=True) * 1\n"
         "i = L.tensor([[2, 0, 1], [1, 1, 0]])\n"
         "b = L.ones(2, 3, 4, dtype=L.float64, requires_grad=True)\n")

CASES = [
    # tensors inside al.tensor([...]): one number each, their dtype promoted with the rest
    "L.tensor([L.tensor([2.])])", "L.tensor([L.tensor([2., 3.])])", "L.tensor([i])",
    "L.tensor([L.tensor(2., dtype=L.float64), 1])", "L.tensor([L.tensor(2, dtype=L.int32)])",
    "L.tensor([[s.detach(), 1.0], [2, 3]])", "L.tensor([L.tensor([])])",
    # casts to integers and bools: new leaves that do not require grad
    "x.long()", "x.to(L.int64)", "x.bool()", "x.int()", "x.double()", "x.type(L.FloatTensor)",
    "x.type('torch.DoubleTensor')", "x.type()", "i.type()", "x.bool().type()", "x.type(L.LongTensor)",
    "L.FloatTensor([[1, 2]])", "L.LongTensor([1.5])", "isinstance(x, L.DoubleTensor)",
    "isinstance(x, L.FloatTensor)", "repr(L.FloatTensor)", "x.type('float')",
    # views where torch makes them
    "s.t()", "v.t()", "m.t()", "m.squeeze(0)", "m.squeeze((0, 1))", "s.squeeze(0)", "s.transpose(0, -1)",
    "m[None].t()", "b.squeeze(-1)",
    # grad_fn names of indexing, matmul and reshape
    "m[0]", "m[:, 1]", "m[0, 1]", "m[0:1]", "m[:]", "m[:, :]", "m[...]", "m[None]", "m[:, None]",
    "m[0, None]", "m[None, 0]", "m[..., None]", "m[1:, ::2]", "m[[0, 1]]",
    "v @ m.T", "m @ v", "v @ v", "m @ m.T", "b @ v.reshape(3, 1)[:, 0].repeat(4, 1).T[0]",
    "v @ b.transpose(1, 2).mT", "b @ b.mT", "m @ b", "m[:1] @ b[:, :, :1]", "x.detach() @ b", "m @ b[..., :1]", "m[None] @ b", "m[None] @ b[..., :1]", "m[None] @ b[:1]",
    "m[None].detach() @ b",
    "m.T.reshape(6)", "m.reshape(6)", "m.T.reshape(3, 2)", "m.T.flatten()", "m.T.view(3, 2)",
    "m.T.view(6)", "m.view(3, 2)",
    # softmax and log_softmax: rows of their own, which read their output
    "L.softmax(m, 1)", "m.log_softmax(0)", "L.softmax(s, 0)", "L.nn.functional.softmax(m, dim=-1)",
    "L.softmax(L.ones(0, 3, requires_grad=True), 0)",
    "(lambda y: (y.mul_(2), y.sum().backward()))(L.softmax(x, 1))",
    "(lambda y: (y.mul_(2), y.sum().backward()))(x.log_softmax(1))",
    # maximum / minimum take tensors only; max(a, b) is maximum
    "L.maximum(m, 0.5)", "m.minimum(2)", "L.maximum(2.0, m)", "L.max(m, v)", "L.min(m, v)", "m.max(v)",
    # reductions over nothing
    "L.ones(0, 3).amax(0)", "L.ones(0, 3).max(0)", "L.ones(0, 3).max()", "L.ones(0, 3).argmax(0)",
    "L.ones(0, 3).argmax()", "L.ones(0, 3).min(0)", "L.ones(0, 3).amin()", "L.ones(0, 3).amax(1)",
    "L.ones(0, 3).argmin(1)",
    # bools, where torch has no kernel
    "(m > 0).abs()", "(m > 0).floor()", "(m > 0).round()", "(m > 0).argmax()", "(v > 0) @ (v > 0)",
    "(m > 0) ** (m > 0)", "(m > 0) @ (v > 0)",
    # clamp with tensor bounds (which get gradients)
    "m.clamp(L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64))", "m.clamp(min=v)",
    "m.clamp(v, 1.0)", "m.clamp_min(0.5)", "m.clamp_max(v)", "L.clamp_min(m, v)", "L.clamp_min(i, 1)", "i.clamp_min(0.5)",
    # aliases
    "L.subtract(m, 1)", "L.subtract(m, v, alpha=2)", "L.multiply(m, v)", "L.divide(m, 2)",
    "L.true_divide(i, 2)", "L.negative(m)", "L.absolute(m)", "L.greater(m, v)", "L.less(m, 0)",
    "L.greater_equal(m, v)", "L.less_equal(m, v)", "L.not_equal(m, v)", "m.eq(v)", "m.ne(0.5)",
    "m.gt(0)", "m.lt(v)", "m.ge(0)", "m.le(v)", "L.gt(m, 0)", "L.clip(m, -1, 1)", "m.subtract(v)",
    "m.multiply(2)", "m.divide(v)", "m.true_divide(2)", "m.absolute()", "m.negative()",
    "m.greater(v)", "m.not_equal(v)",
    # more ops
    "repr(m.detach().sort())", "repr(m.detach().max(0))", "repr(L.min(m.detach(), 1, True))", "m.sort()", "m.sort(0, descending=True)", "L.sort(m, dim=1, stable=True)", "L.sort(s)",
    "L.tensor([2, 1, 2, 1]).sort(stable=True)", "L.tensor([2., float('nan'), 1.]).sort(descending=True)",
    "m.gather(1, i)", "L.gather(m, 0, i[:1])", "m.gather(0, i.float())", "m.gather(0, i[0])",
    "m.gather(0, i + 5)",
    "m.index_select(1, L.tensor([2, 0, 2]))", "L.index_select(m, 0, L.tensor([1]))",
    "m.index_select(0, L.tensor([[0]]))", "m.index_select(0, L.tensor([7]))",
    "m.narrow(1, 1, 2)", "L.narrow(m, 0, 1, 1)", "m.narrow(1, 2, 2)", "m.select(1, -1)",
    "L.select(m, 0, 1)", "m.select(0, 2)",
    "m.split(2, 1)", "m.split([1, 2], 1)", "L.split(m, 1)", "m.split([1, 1], 1)", "m.split(0)",
    "m.chunk(2, 1)", "L.chunk(m, 3)", "m.chunk(0)", "b.chunk(3, -1)",
    "m.repeat(2, 1)", "m.repeat(1, 2, 2)", "m.repeat(2)", "s.repeat(3)",
    "b.movedim(0, 2)", "L.movedim(b, (0, 1), (2, 0))", "L.moveaxis(b, -1, 0)", "b.swapaxes(0, 2)",
    "L.swapdims(b, 1, 2)", "m.square()", "L.square(i)", "m.rsqrt()", "L.rsqrt(i)",
    "m.where(m > 0, v)", "m.where(m > 0, 0.0)", "m.mv(v)", "L.mv(m, v)", "m.contiguous()",
    "m.T.contiguous()", "m.T.contiguous().view(6)", "L.amin(m, 1)", "L.flatten(b, 1)",
    "L.masked_fill(m, m > 0, 0.0)", "L.eq(m, v)", "L.ne(m, v)", "L.ge(m, v)", "L.le(m, v)",
    "L.lt(m, v)", "L.logical_xor(m, v > 0)", "m.logical_xor(i)",
    # overlapping writes, as torch refuses them (or not)
    "(lambda w: w.__setitem__((slice(None), L.tensor([0, 1, 2])), w))(m * 1)",
    "(lambda w: (w.__setitem__((slice(None), 0), w[:, 1]), w)[1])(m * 1)",
    "(lambda w: w.__setitem__(L.tensor([1, 0]), w))(m * 1)",
    # views of 0-d tensors, written in place
    "(lambda y: (y[None].relu_(), y))(s * -1)",
    "(lambda y: (y.transpose(0, -1).mul_(2), y)[1])(s * 1)",
    "(lambda y: (y.reshape(-1).masked_fill_(y.reshape(-1) > 0, 0.5), y)[1])(s * 1)",
    # whole writes give x a gradient of zeros that depend on nothing; gather keeps its input
    "(lambda y: (y.zero_(), L.autograd.grad(y.cos().sum(), x, create_graph=True)))(x * 2)",
    "(lambda y: (y.fill_(2.0), L.autograd.grad(y.sum(), x, create_graph=True)))(x * 2)",
    "(lambda y: (y.copy_(v), L.autograd.grad((y * x).sum(), x, create_graph=True)))(x * 2)",
    "(lambda y: (lambda z: (y.mul_(2), z.sum().backward()))(y.gather(0, i)))(x * 1)",
    # cat of an empty vector under create_graph
    "L.autograd.grad(L.cat([v * 1, L.zeros(0, dtype=L.float64)]).sum(), v, create_graph=True)",
    "L.autograd.grad(L.cat([v * 1, L.zeros(0, dtype=L.float64, requires_grad=True)]).sum(), v, "
    "create_graph=True)",
]


def _outcome(lib, expr, setup=SETUP):
    env = {"L": lib}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(setup, env)
        try:
            return _described(eval(expr, env), lib)
        except Exception as e:
            text = str(e).split("\n")[0]
            return ("raised", type(e).__name__, re.sub(r"\b(torch|al)\.", "", text))


def _described(r, lib):
    if isinstance(r, (tuple, list)):
        return [type(r).__name__] + [_described(x, lib) for x in r]
    if not isinstance(r, lib.Tensor):
        return re.sub(r"\b(torch|al)\.", "", repr(r)) if isinstance(r, (str, type)) else repr(r)
    node = r.grad_fn
    return (r.detach().numpy().tolist(), str(r.dtype).split(".")[-1], tuple(r.shape), r.requires_grad,
            r.is_leaf, node.name() if node is not None else None)


@pytest.mark.parametrize("expr", CASES)
def test_behaves_as_in_torch(expr):
    ours, theirs = _outcome(al, expr), _outcome(torch, expr)
    assert _same(ours, theirs), f"\nautograd_lab: {ours}\ntorch:        {theirs}"


def _same(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == 6 == len(b) and a[0] != "raised":
        return a[1:] == b[1:] and np.allclose(np.array(a[0], float), np.array(b[0], float), equal_nan=True)
    return a == b


def test_the_growing_loop_of_a_course_notebook_keeps_one_dimension():
    """`x = torch.tensor([x])` in a loop: a tensor of one number each time, never deeper."""
    for lib in (al, torch):
        x = lib.tensor([1.0])
        for _ in range(70):
            x = lib.tensor([x])
        assert tuple(x.shape) == (1,)
