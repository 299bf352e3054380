"""Convolution, pooling and the layers around them against torch: values, gradients and
indices on seeded random shapes, strides, paddings, dilations and groups; the grad_fn
names torch records; second derivatives, forward mode and batched seeds (gradcheck in
float64); torch's refusals in its words; the modules' printed forms and first weights."""
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402

gradcheck, gradgradcheck = al.autograd.gradcheck, al.autograd.gradgradcheck


def _both(values, requires_grad=True):
    return al.tensor(values, requires_grad=requires_grad), torch.tensor(values, requires_grad=requires_grad)


def _agree(ours, theirs, tol=1e-6):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert np.allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def _conv_case(seed):
    """A random convolution: (input shape, weight shape, bias?, stride, padding, dilation, groups)."""
    rng = np.random.default_rng(seed)
    groups = int(rng.choice([1, 2, 3]))
    c, o = groups * int(rng.integers(1, 3)), groups * int(rng.integers(1, 3))
    kernel = tuple(int(k) for k in rng.integers(1, 4, 2))
    stride, dilation = tuple(int(s) for s in rng.integers(1, 3, 2)), tuple(int(d) for d in rng.integers(1, 3, 2))
    padding = ["same", "valid", int(rng.integers(0, 3)), tuple(int(p) for p in rng.integers(0, 3, 2))][seed % 4]
    if padding == "same":
        stride = (1, 1)
    size = tuple(int(n) for n in rng.integers(5, 9, 2))
    batch = () if seed % 5 == 0 else (int(rng.integers(1, 3)),)
    return rng, batch + (c,) + size, (o, c // groups) + kernel, seed % 3 != 0, stride, padding, dilation, groups


@pytest.mark.parametrize("seed", range(16))
def test_conv2d_matches_torch_in_value_gradients_and_grad_fn(seed):
    rng, x_shape, w_shape, bias, stride, padding, dilation, groups = _conv_case(seed)
    x, tx = _both(rng.standard_normal(x_shape))
    w, tw = _both(rng.standard_normal(w_shape))
    b, tb = _both(rng.standard_normal(w_shape[0])) if bias else (None, None)
    y = al.nn.functional.conv2d(x, w, b, stride, padding, dilation, groups)
    ty = torch.nn.functional.conv2d(tx, tw, tb, stride, padding, dilation, groups)
    _agree(y, ty)
    assert y.grad_fn.name() == ty.grad_fn.name()              # ConvolutionBackward0 (unbatched: Squeeze)
    seed_values = rng.standard_normal(tuple(ty.shape))
    y.backward(al.tensor(seed_values))
    ty.backward(torch.tensor(seed_values))
    for ours, theirs in ((x, tx), (w, tw), (b, tb)):
        if ours is not None:
            _agree(ours.grad, theirs.grad)


def test_same_padding_of_an_uneven_total_warns_as_torch():
    with pytest.warns(UserWarning, match="even kernel lengths and odd dilation") as ours:
        al.nn.functional.conv2d(al.ones(1, 1, 4, 4), al.ones(1, 1, 2, 2), padding="same")
    assert ours[0].filename == __file__


def test_conv2d_in_float32_and_int64_as_torch():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 3, 6, 6)).astype(np.float32), rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    y = al.nn.functional.conv2d(al.tensor(x), al.tensor(w), stride=2, padding=1)
    ty = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), stride=2, padding=1)
    assert y.dtype == al.float32
    _agree(y, ty, 1e-5)
    xi, wi = rng.integers(-5, 5, (1, 2, 4, 4)), rng.integers(-5, 5, (3, 2, 2, 2))
    yi = al.nn.functional.conv2d(al.tensor(xi), al.tensor(wi))
    assert yi.dtype == al.int64
    assert yi.tolist() == torch.nn.functional.conv2d(torch.tensor(xi), torch.tensor(wi)).tolist()


POOLS = {   # name: (call with lib's functional F, input x, and a random generator)
    "max_pool2d": lambda F, x, r: F.max_pool2d(x, *_pool_args(r, dilated=True), return_indices=True),
    "avg_pool2d": lambda F, x, r: F.avg_pool2d(x, *_pool_args(r)[:3], bool(r.integers(2)), bool(r.integers(2)),
                                               [None, 2][int(r.integers(2))]),
    "adaptive_avg_pool2d": lambda F, x, r: F.adaptive_avg_pool2d(x, (int(r.integers(1, 6)),
                                                                     [None, int(r.integers(1, 7))][int(r.integers(2))])),
}


def _pool_args(r, dilated=False):
    """kernel_size, stride, padding (at most half the kernel), dilation, ceil_mode."""
    kernel = tuple(int(k) for k in r.integers(1, 4, 2))
    padding = tuple(int(r.integers(0, k // 2 + 1)) for k in kernel)
    dilation = tuple(int(d) for d in r.integers(1, 3, 2)) if dilated else 1
    return kernel, tuple(int(s) for s in r.integers(1, 3, 2)), padding, dilation, bool(r.integers(2))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("pool", list(POOLS))
def test_pooling_matches_torch_in_values_indices_gradients_and_grad_fn(pool, seed):
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 3)), 2, int(rng.integers(5, 9)), int(rng.integers(5, 9)))[seed % 2:]
    values = rng.standard_normal(shape)
    if seed % 3 == 0:
        values = np.round(values)                 # ties: the first maximum wins, as in torch
    results = []
    for lib in (al, torch):
        x = lib.tensor(values, requires_grad=True)
        out = POOLS[pool](lib.nn.functional, x, np.random.default_rng(seed))
        y, indices = out if isinstance(out, tuple) else (out, None)
        y.backward(lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape))))
        results.append((y, indices, x.grad, y.grad_fn.name()))
    (y, i, g, name), (ty, ti, tg, tname) = results
    _agree(y, ty)
    _agree(g, tg)
    assert name == tname
    assert i is None or (i.dtype == al.int64 and i.tolist() == ti.tolist())


def test_max_pool2d_picks_as_torch_among_nans_and_infinities():
    nan, inf = float("nan"), float("inf")
    values = np.array([[[[1, nan, 3, -inf], [nan, -inf, 2, -inf], [0, 1, nan, -inf], [-inf, -inf, -inf, -inf]]]])
    for args in ((2, 1), (3, 2, 1), (2, 2, 1, 1, True)):
        y, i = al.nn.functional.max_pool2d(al.tensor(values), *args, return_indices=True)
        ty, ti = torch.nn.functional.max_pool2d(torch.tensor(values), *args, return_indices=True)
        assert i.tolist() == ti.tolist()
        assert np.array_equal(y.numpy(), ty.numpy(), equal_nan=True)


def test_pooling_on_integers_as_torch():
    x = np.arange(-12, 13).reshape(1, 1, 5, 5)
    for pool in ("max_pool2d", "avg_pool2d"):
        ours = getattr(al.nn.functional, pool)(al.tensor(x), 2, 2, 1)
        theirs = getattr(torch.nn.functional, pool)(torch.tensor(x), 2, 2, 1)
        assert ours.dtype == al.int64 and ours.tolist() == theirs.tolist()


def test_adaptive_avg_pool2d_to_one_is_a_mean_as_in_torch():
    x, tx = _both(np.random.default_rng(0).standard_normal((2, 3, 4, 5)))
    y, ty = al.nn.functional.adaptive_avg_pool2d(x, 1), torch.nn.functional.adaptive_avg_pool2d(tx, 1)
    _agree(y, ty)
    assert y.grad_fn.name() == ty.grad_fn.name() == "MeanBackward1"


DERIVATIVES = {   # name: (function of float64 tensors, input shapes); max pooling on distinct values
    "conv2d, stride, padding, dilation, groups": (
        lambda x, w, b: al.nn.functional.conv2d(x, w, b, (2, 1), (1, 2), (1, 2), 2), [(1, 4, 3, 5), (4, 2, 2, 2), (4,)]),
    "conv2d, same padding (uneven)": (
        lambda x, w: al.nn.functional.conv2d(x, w, None, 1, "same", (1, 3), 1), [(1, 1, 3, 4), (2, 1, 2, 2)]),
    "conv2d, unbatched": (lambda x, w: al.nn.functional.conv2d(x, w, groups=2), [(2, 3, 4), (2, 1, 2, 2)]),
    "max_pool2d, ceil_mode": (
        lambda x: al.nn.functional.max_pool2d(x, (3, 2), (2, 1), 1, (1, 2), ceil_mode=True), [(1, 2, 5, 6)]),
    "avg_pool2d, count_include_pad=False": (
        lambda x: al.nn.functional.avg_pool2d(x, 3, 2, 1, True, False), [(1, 2, 5, 5)]),
    "avg_pool2d, divisor_override": (
        lambda x: al.nn.functional.avg_pool2d(x, 2, 1, divisor_override=3), [(2, 3, 4)]),
    "adaptive_avg_pool2d": (lambda x: al.nn.functional.adaptive_avg_pool2d(x, (3, 4)), [(1, 2, 5, 6)]),
    "linear on a batch": (al.nn.functional.linear, [(2, 3, 4), (2, 4), (2,)]),
}


@pytest.mark.parametrize("case", list(DERIVATIVES))
def test_layers_pass_gradcheck_forward_mode_batched_and_second_derivatives(case):
    f, shapes = DERIVATIVES[case]
    rng = np.random.default_rng(3)
    inputs = [al.tensor(rng.permutation(int(np.prod(s))).reshape(s) / 7.0 if "max" in case else
                        rng.standard_normal(s), requires_grad=True) for s in shapes]
    assert gradcheck(f, inputs, check_forward_ad=True, check_batched_grad=True,
                     check_batched_forward_grad=True)
    assert gradgradcheck(f, inputs, check_fwd_over_rev=True, check_batched_grad=True)


def test_double_backward_nodes_are_named_as_torchs():
    names = []
    for lib in (al, torch):
        F = lib.nn.functional
        x = lib.tensor(np.random.default_rng(0).standard_normal((1, 2, 4, 4)), requires_grad=True)
        w = lib.tensor(np.ones((2, 2, 2, 2)), requires_grad=True)
        for y in (F.conv2d(x, w), F.max_pool2d(x, 2), F.avg_pool2d(x, 2), F.adaptive_avg_pool2d(x, 3)):
            g, = lib.autograd.grad(y.sum(), x, create_graph=True)
            names.append(g.grad_fn.name())
    assert names[:4] == names[4:]


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
def test_linear_records_as_torch(shape):
    x, tx = _both(np.random.default_rng(0).standard_normal(shape))
    w, tw = _both(np.ones((2, 4)))
    b, tb = _both(np.arange(2.0))
    y, ty = al.nn.functional.linear(x, w, b), torch.nn.functional.linear(tx, tw, tb)
    _agree(y, ty)
    chain = [(y.grad_fn, ty.grad_fn)]
    while chain[-1][0].next_functions and chain[-1][0].name() != "AddmmBackward0":
        chain.append((chain[-1][0].next_functions[0][0], chain[-1][1].next_functions[0][0]))
    assert [a.name() for a, _ in chain] == [t.name() for _, t in chain]
    addmm, taddmm = chain[-1]
    assert [n.name() if n else None for n, _ in addmm.next_functions] == \
        [n.name() if n else None for n, _ in taddmm.next_functions]


def test_a_frozen_layers_weight_may_change_in_place_before_backward_as_in_torch():
    for lib in (al, torch):
        layer = lib.nn.Linear(3, 2)
        layer.weight.requires_grad_(False)
        x = lib.ones(4, 3, requires_grad=True)
        y = layer(x).sum()
        with lib.no_grad():
            layer.bias.mul_(2)                            # never saved: fine
        y.backward()
        with lib.no_grad():
            layer.weight.mul_(2)
        y2 = layer(x).sum()
        with lib.no_grad():
            layer.weight.add_(1)                      # saved for x's gradient: refused
        assert "modified by an inplace operation" in error_of(y2.backward)[1]


def test_max_pooling_saves_its_indices_as_torch():
    """The node keeps the input and the indices it returns (torch's self and result1): a
    write to the returned indices before the backward is refused, never a gradient moved."""
    for lib in (al, torch):
        x = lib.ones(1, 1, 4, 4, requires_grad=True)
        packed = []
        with lib.autograd.graph.saved_tensors_hooks(lambda v: packed.append(v) or v, lambda v: v):
            y, index = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
        assert [tuple(p.shape) for p in packed] == [(1, 1, 4, 4), (1, 1, 2, 2)]
        y, index = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
        index.add_(1)
        assert "modified by an inplace operation" in error_of(y.sum().backward)[1]


def test_dropout_zeroes_and_scales_in_training_and_passes_through_in_eval():
    al.manual_seed(0)
    x = al.ones(1000, requires_grad=True)
    y = al.nn.functional.dropout(x, 0.25)
    kept = y.detach().numpy() != 0
    assert y.grad_fn.name() == "MulBackward0" and 0.65 < kept.mean() < 0.85
    assert np.allclose(y.detach().numpy()[kept], 1 / 0.75)
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), y.detach().numpy())
    layer = al.nn.Dropout(0.5).eval()
    assert layer(x) is x and al.nn.functional.dropout(x, 1.0).sum().item() == 0


REFUSED = {
    "conv2d, a 2-d input": lambda L: L.nn.functional.conv2d(L.ones(3, 8), L.ones(4, 3, 3, 3)),
    "conv2d, a 5-d input": lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 8, 8), L.ones(4, 3, 3, 3)),
    "conv2d, channels": lambda L: L.nn.functional.conv2d(L.ones(2, 3, 8, 8), L.ones(4, 2, 3, 3)),
    "conv2d, groups and channels": lambda L: L.nn.functional.conv2d(L.ones(2, 3, 8, 8), L.ones(4, 3, 3, 3), groups=2),
    "conv2d, groups and weight": lambda L: L.nn.functional.conv2d(L.ones(2, 3, 8, 8), L.ones(4, 1, 3, 3), groups=3),
    "conv2d, a 3-d weight": lambda L: L.nn.functional.conv2d(L.ones(2, 3, 8, 8), L.ones(4, 3, 3)),
    "conv2d, kernel too big": lambda L: L.nn.functional.conv2d(L.ones(2, 3, 8, 8), L.ones(4, 3, 9, 9)),
    "conv2d, dtypes": lambda L: L.nn.functional.conv2d(L.ones(1, 3, 8, 8, dtype=L.float64), L.ones(4, 3, 3, 3)),
    "conv2d, bias dtype": lambda L: L.nn.functional.conv2d(L.ones(1, 3, 8, 8), L.ones(4, 3, 3, 3),
                                                           L.ones(4, dtype=L.float64)),
    "conv2d, bias size": lambda L: L.nn.functional.conv2d(L.ones(1, 3, 8, 8), L.ones(4, 3, 3, 3), L.ones(5)),
    "conv2d, stride 0": lambda L: L.nn.functional.conv2d(L.ones(1, 3, 8, 8), L.ones(4, 3, 3, 3), stride=0),
    "conv2d, three strides": lambda L: L.nn.functional.conv2d(L.ones(1, 3, 8, 8), L.ones(4, 3, 3, 3), stride=(1, 2, 3)),
    "conv2d, negative padding": lambda L: L.nn.functional.conv2d(L.ones(1, 3, 8, 8), L.ones(4, 3, 3, 3), padding=-1),
    "conv2d, dilation 0": lambda L: L.nn.functional.conv2d(L.ones(2, 3, 8, 8), L.ones(4, 3, 3, 3), dilation=0),
    "conv2d, dilation 0, one image": lambda L: L.nn.functional.conv2d(L.ones(3, 8, 8), L.ones(4, 3, 3, 3),
                                                                      dilation=(1, 0)),
    "conv2d, groups 0": lambda L: L.nn.functional.conv2d(L.ones(1, 3, 8, 8), L.ones(4, 3, 3, 3), groups=0),
    "conv2d, same and strided": lambda L: L.nn.functional.conv2d(L.ones(1, 3, 8, 8), L.ones(4, 3, 3, 3),
                                                                 stride=2, padding="same"),
    "conv2d, a padding string": lambda L: L.nn.functional.conv2d(L.ones(1, 3, 8, 8), L.ones(4, 3, 3, 3), padding="full"),
    "conv2d, bools": lambda L: L.nn.functional.conv2d(L.ones(1, 3, 8, 8, dtype=L.bool), L.ones(4, 3, 3, 3, dtype=L.bool)),
    "max_pool2d, a 2-d input": lambda L: L.nn.functional.max_pool2d(L.ones(8, 8), 2),
    "max_pool2d, padding over half": lambda L: L.nn.functional.max_pool2d(L.ones(1, 1, 8, 8), 3, padding=2),
    "max_pool2d, padding over half a kernel": lambda L: L.nn.functional.max_pool2d(L.ones(1, 1, 8, 8), (2, 3), 1, 2, 2),
    "max_pool2d, output too small": lambda L: L.nn.functional.max_pool2d(L.ones(1, 3, 8, 8), 9),
    "max_pool2d, kernel 0": lambda L: L.nn.functional.max_pool2d(L.ones(1, 1, 8, 8), 0, 1),
    "max_pool2d, stride 0": lambda L: L.nn.functional.max_pool2d(L.ones(1, 1, 8, 8), 2, 0),
    "max_pool2d, dilation 0": lambda L: L.nn.functional.max_pool2d(L.ones(1, 1, 8, 8), 2, dilation=0),
    "max_pool2d, negative padding": lambda L: L.nn.functional.max_pool2d(L.ones(1, 1, 8, 8), 2, padding=-1),
    "max_pool2d, three kernel sizes": lambda L: L.nn.functional.max_pool2d(L.ones(1, 1, 8, 8), (2, 2, 2)),
    "max_pool2d, bools": lambda L: L.nn.functional.max_pool2d(L.ones(1, 1, 8, 8, dtype=L.bool), 2),
    "avg_pool2d, a 2-d input": lambda L: L.nn.functional.avg_pool2d(L.ones(8, 8), 2),
    "avg_pool2d, divisor 0": lambda L: L.nn.functional.avg_pool2d(L.ones(1, 1, 8, 8), 2, divisor_override=0),
    "avg_pool2d, output too small": lambda L: L.nn.functional.avg_pool2d(L.ones(1, 5, 5), 6),
    "adaptive_avg_pool2d, a 2-d input": lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(8, 8), 2),
    "adaptive_avg_pool2d, three sizes": lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(1, 8, 8), (1, 2, 3)),
    "adaptive_avg_pool2d, three sizes, 4-d": lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(1, 1, 8, 8),
                                                                                           (1, 2, 3)),
    "adaptive_avg_pool2d, a negative size": lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(1, 8, 8), -1),
    "adaptive_avg_pool2d, integers": lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(1, 8, 8, dtype=L.int64), 2),
    "dropout, p above 1": lambda L: L.nn.functional.dropout(L.ones(3), 1.5),
    "Dropout, p above 1": lambda L: L.nn.Dropout(2),
    "Conv2d, in_channels and groups": lambda L: L.nn.Conv2d(3, 4, 3, groups=2),
    "Conv2d, out_channels and groups": lambda L: L.nn.Conv2d(4, 3, 3, groups=2),
    "Conv2d, same and strided": lambda L: L.nn.Conv2d(4, 4, 3, stride=2, padding="same"),
    "Conv2d, a padding string": lambda L: L.nn.Conv2d(4, 4, 3, padding="full"),
    "Conv2d, a padding mode": lambda L: L.nn.Conv2d(4, 4, 3, padding_mode="mirror"),
    "l1_loss, shapes that do not broadcast": lambda L: L.nn.functional.l1_loss(L.ones(2, 3), L.ones(2)),
}


def _sets_sorted(error):
    """An error's text with any printed set of strings in sorted order: torch prints a set
    literal, whose order a process's string hashes decide."""
    kind, text = error
    return kind, re.sub(r"\{('[^{}]*')\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", text)


@pytest.mark.parametrize("case", list(REFUSED))
def test_layers_refuse_what_torch_refuses_in_its_words(case):
    ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and _sets_sorted(ours) == _sets_sorted(theirs)


MODULES = {
    "Conv2d": lambda nn: nn.Conv2d(1, 6, 5),
    "Conv2d, options": lambda nn: nn.Conv2d(2, 4, (3, 5), stride=(2, 1), padding=(1, 2), dilation=2, groups=2,
                                            bias=False),
    "Conv2d, same": lambda nn: nn.Conv2d(2, 4, 3, padding="same"),
    "MaxPool2d": lambda nn: nn.MaxPool2d(2),
    "MaxPool2d, options": lambda nn: nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2, return_indices=True,
                                                  ceil_mode=True),
    "AvgPool2d": lambda nn: nn.AvgPool2d(3, 1, 1, True, False, 2),
    "AdaptiveAvgPool2d": lambda nn: nn.AdaptiveAvgPool2d((2, None)),
    "Dropout": lambda nn: nn.Dropout(0.2, inplace=True),
    "L1Loss": lambda nn: nn.L1Loss(reduction="sum"),
    "a LeNet": lambda nn: nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                                        nn.Dropout(), nn.Linear(6 * 14 * 14, 10)),
}


@pytest.mark.parametrize("case", list(MODULES))
def test_layers_print_and_hold_parameters_as_torchs(case):
    ours, theirs = MODULES[case](al.nn), MODULES[case](torch.nn)
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]


def test_conv2d_draws_its_first_weights_as_torch_does():
    al.manual_seed(0)
    layer = al.nn.Conv2d(4, 6, (3, 2), groups=2)
    bound = 1 / np.sqrt(2 * 3 * 2)                    # kaiming_uniform_(a=√5): 1/√fan_in
    for p in (layer.weight, layer.bias):
        values = p.detach().numpy()
        assert p.dtype == al.float32 and np.all(np.abs(values) <= bound) and values.std() > bound / 3
    al.manual_seed(0)
    drawn = (al.rand(6, 2, 3, 2) * (2 * bound) - bound).numpy()   # weight first, from the package's generator
    assert np.array_equal(layer.weight.detach().numpy(), drawn)
    assert al.nn.Conv2d(1, 1, 1, bias=False).bias is None


def test_an_empty_batch_and_float16_pass_through_as_in_torch():
    for make in (lambda L, x: L.nn.functional.conv2d(x, L.ones(3, 2, 3, 3, dtype=x.dtype)),
                 lambda L, x: L.nn.functional.max_pool2d(x, 2), lambda L, x: L.nn.functional.avg_pool2d(x, 2),
                 lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 4)):
        for shape, dtype in (((0, 2, 6, 6), "float32"), ((1, 2, 6, 6), "float16")):
            ours, theirs = (make(L, L.ones(*shape, dtype=getattr(L, dtype), requires_grad=True)) for L in (al, torch))
            assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype)[3:] == str(theirs.dtype)[6:]
