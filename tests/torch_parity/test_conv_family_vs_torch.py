"""The rest of the convolution family against torch: conv1d and conv3d, the transposed
convolutions, padding modes, one-dimensional and adaptive pooling -- values, gradients,
second derivatives, grad_fn names, vmap, torch's refusals in its words, and the layers'
printed forms, parameters and state_dict (torch's weights loaded into ours)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402
from test_conv_vs_torch import _sets_sorted  # noqa: E402

gradcheck, gradgradcheck = al.autograd.gradcheck, al.autograd.gradgradcheck


def agree(ours, theirs, tol=1e-6):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert np.allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def both(values, requires_grad=True):
    return al.tensor(values, requires_grad=requires_grad), torch.tensor(values, requires_grad=requires_grad)


def run_both(call, arrays, seed=0):
    """``call(lib, *tensors)`` in both libraries on float64 copies of ``arrays``: the outputs,
    the inputs' gradients for a random seed, and the grad_fn names."""
    results = []
    for lib in (al, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = call(lib, *xs)
        g = np.random.default_rng(seed).standard_normal(tuple(y.shape))
        y.backward(lib.tensor(g))
        results.append((y, [x.grad for x in xs], y.grad_fn.name()))
    (y, grads, name), (ty, tgrads, tname) = results
    agree(y, ty)
    for a, b in zip(grads, tgrads):
        agree(a, b)
    assert name == tname
    return name


def _case(seed, dims, transposed):
    """A random convolution of ``dims`` spatial dimensions: shapes and arguments."""
    rng = np.random.default_rng(seed)
    groups = int(rng.choice([1, 2]))
    cin, cout = groups * int(rng.integers(1, 3)), groups * int(rng.integers(1, 3))
    kernel = tuple(int(k) for k in rng.integers(1, 4, dims))
    stride = tuple(int(s) for s in rng.integers(1, 3, dims))
    dilation = tuple(int(d) for d in rng.integers(1, 3, dims))
    size = tuple(int(n) for n in rng.integers(5, 7 if dims < 3 else 6, dims))
    batch = () if seed % 4 == 0 else (int(rng.integers(1, 3)),)
    x = rng.standard_normal(batch + (cin,) + size)
    if transposed:
        padding = tuple(int(rng.integers(0, k)) for k in kernel)
        extra = tuple(int(rng.integers(0, max(s, d))) for s, d in zip(stride, dilation))
        w = rng.standard_normal((cin, cout // groups) + kernel)
        return x, w, rng.standard_normal(cout), dict(stride=stride, padding=padding, output_padding=extra,
                                                     groups=groups, dilation=dilation)
    padding = ["same", "valid", int(rng.integers(0, 3)), tuple(int(p) for p in rng.integers(0, 3, dims))][seed % 4]
    if padding == "same":
        stride = (1,) * dims
    w = rng.standard_normal((cout, cin // groups) + kernel)
    return x, w, rng.standard_normal(cout), dict(stride=stride, padding=padding, dilation=dilation, groups=groups)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("name", ["conv1d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"])
def test_convolutions_match_torch_in_values_gradients_and_grad_fn(name, seed):
    dims = int(name[-2])
    x, w, b, kwargs = _case(seed, dims, name.startswith("conv_transpose"))
    with_bias = seed % 3 != 0
    arrays = [x, w, b] if with_bias else [x, w]
    name_seen = run_both(lambda lib, *t: getattr(lib.nn.functional, name)(t[0], t[1], t[2] if with_bias else None,
                                                                          **kwargs), arrays, seed)
    assert name_seen == ("SqueezeBackward1" if x.ndim == dims + 1 else "ConvolutionBackward0")


DERIVATIVES = {
    "conv1d, stride, padding, dilation, groups": (
        lambda x, w, b: al.nn.functional.conv1d(x, w, b, 2, 1, 2, 2), [(1, 4, 7), (4, 2, 3), (4,)]),
    "conv3d": (lambda x, w: al.nn.functional.conv3d(x, w, None, (1, 2, 1), 1), [(1, 1, 3, 4, 3), (2, 1, 2, 2, 2)]),
    "conv_transpose2d, output_padding, groups": (
        lambda x, w, b: al.nn.functional.conv_transpose2d(x, w, b, 2, 1, 1, 2), [(1, 4, 3, 3), (4, 1, 3, 2), (2,)]),
    "conv_transpose1d, dilation": (
        lambda x, w: al.nn.functional.conv_transpose1d(x, w, None, 1, 1, 1, 1, 2), [(2, 2, 4), (2, 3, 3)]),
    "conv_transpose3d": (lambda x, w: al.nn.functional.conv_transpose3d(x, w, stride=2), [(1, 2, 2, 2, 2),
                                                                                          (2, 1, 2, 1, 2)]),
}


@pytest.mark.parametrize("case", list(DERIVATIVES))
def test_convolutions_pass_gradcheck_forward_mode_batched_and_second_derivatives(case):
    f, shapes = DERIVATIVES[case]
    rng = np.random.default_rng(5)
    inputs = [al.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    assert gradcheck(f, inputs, check_forward_ad=True, check_batched_grad=True, check_batched_forward_grad=True)
    assert gradgradcheck(f, inputs, check_fwd_over_rev=True, check_batched_grad=True)


def test_a_transposed_convolutions_gradients_are_named_as_torchs():
    names = []
    for lib in (al, torch):
        x = lib.tensor(np.random.default_rng(0).standard_normal((1, 3, 4, 4)), requires_grad=True)
        w = lib.tensor(np.ones((3, 2, 3, 3)), requires_grad=True)
        y = lib.nn.functional.conv_transpose2d(x, w, stride=2, output_padding=1)
        gx, gw = lib.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        names.append([y.grad_fn.name(), gx.grad_fn.name(), gw.grad_fn.name()])
    assert names[0] == names[1] == ["ConvolutionBackward0"] + ["ConvolutionBackwardBackward0"] * 2


def test_a_transposed_convolution_is_the_gradient_of_a_convolution():
    """conv_transpose2d(g, w) is what backward gives x for conv2d(x, w) with gradient g."""
    rng = np.random.default_rng(2)
    x = al.tensor(rng.standard_normal((1, 2, 7, 6)), requires_grad=True)
    w = al.tensor(rng.standard_normal((3, 2, 3, 2)))
    y = al.nn.functional.conv2d(x, w, stride=2, padding=1, dilation=(1, 2))
    g = al.tensor(rng.standard_normal(y.shape))
    y.backward(g)
    up = al.nn.functional.conv_transpose2d(g, w, stride=2, padding=1, output_padding=(0, 1), dilation=(1, 2))
    assert up.shape == x.shape and np.allclose(up.numpy(), x.grad.numpy())


def test_vmap_of_per_sample_gradients_through_conv1d_and_conv_transpose2d_matches_torch():
    rng = np.random.default_rng(0)
    x1, w1 = rng.standard_normal((3, 2, 6)), rng.standard_normal((4, 2, 3))
    x2, w2 = rng.standard_normal((3, 2, 3, 3)), rng.standard_normal((2, 3, 2, 2))
    outs = []
    for lib in (al, torch):
        F = lib.nn.functional

        def loss(w_1, w_2, a, b):
            y = F.conv1d(a.unsqueeze(0), w_1, padding=1).tanh().sum()
            return y + (F.conv_transpose2d(b.unsqueeze(0), w_2, stride=2) ** 2).sum()
        grads = lib.func.vmap(lib.func.grad(loss, argnums=(0, 1)), in_dims=(None, None, 0, 0))(
            lib.tensor(w1), lib.tensor(w2), lib.tensor(x1), lib.tensor(x2))
        outs.append([g.detach().numpy() for g in grads])
    for a, b in zip(*outs):
        assert a.shape == b.shape and np.allclose(a, b)


REFUSED = {
    "conv1d, a 1-d input": lambda L: L.nn.functional.conv1d(L.ones(8), L.ones(4, 3, 3)),
    "conv1d, a 4-d input": lambda L: L.nn.functional.conv1d(L.ones(1, 3, 8, 8), L.ones(4, 3, 3)),
    "conv1d, channels": lambda L: L.nn.functional.conv1d(L.ones(2, 3, 8), L.ones(4, 2, 3)),
    "conv1d, kernel too big": lambda L: L.nn.functional.conv1d(L.ones(2, 3, 8), L.ones(4, 3, 9)),
    "conv1d, a 4-d weight": lambda L: L.nn.functional.conv1d(L.ones(2, 3, 8), L.ones(4, 3, 3, 3)),
    "conv1d, a 2-d weight": lambda L: L.nn.functional.conv1d(L.ones(2, 3, 8), L.ones(4, 3)),
    "conv1d, two strides": lambda L: L.nn.functional.conv1d(L.ones(2, 3, 8), L.ones(4, 3, 3), stride=(1, 2)),
    "conv1d, bools": lambda L: L.nn.functional.conv1d(L.ones(2, 3, 8, dtype=L.bool), L.ones(4, 3, 3, dtype=L.bool)),
    "conv1d, dtypes": lambda L: L.nn.functional.conv1d(L.ones(2, 3, 8, dtype=L.float64), L.ones(4, 3, 3)),
    "conv1d, same and strided": lambda L: L.nn.functional.conv1d(L.ones(2, 3, 8), L.ones(4, 3, 3), stride=2,
                                                                 padding="same"),
    "conv1d, dilation 0": lambda L: L.nn.functional.conv1d(L.ones(2, 3, 8), L.ones(4, 3, 3), dilation=0),
    "conv1d, dilation 0, one sequence": lambda L: L.nn.functional.conv1d(L.ones(3, 8), L.ones(4, 3, 3), dilation=0),
    "conv3d, a 3-d input": lambda L: L.nn.functional.conv3d(L.ones(3, 8, 8), L.ones(4, 3, 3, 3, 3)),
    "conv3d, kernel too big": lambda L: L.nn.functional.conv3d(L.ones(1, 3, 8, 8, 8), L.ones(4, 3, 9, 3, 3)),
    "conv3d, bools": lambda L: L.nn.functional.conv3d(L.ones(1, 3, 8, 8, 8, dtype=L.bool),
                                                      L.ones(4, 3, 3, 3, 3, dtype=L.bool)),
    "conv3d, channels": lambda L: L.nn.functional.conv3d(L.ones(1, 3, 8, 8, 8), L.ones(4, 2, 3, 3, 3)),
    "conv3d, a 4-d weight": lambda L: L.nn.functional.conv3d(L.ones(2, 3, 8, 8, 8), L.ones(4, 3, 3, 3)),
    "conv3d, dilation 0, one volume": lambda L: L.nn.functional.conv3d(L.ones(3, 8, 8, 8), L.ones(4, 3, 3, 3, 3),
                                                                       dilation=0),
    "conv_transpose2d, a 2-d input": lambda L: L.nn.functional.conv_transpose2d(L.ones(8, 8), L.ones(3, 4, 3, 3)),
    "conv_transpose2d, channels": lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 2, 5, 5), L.ones(3, 4, 3, 3)),
    "conv_transpose2d, groups": lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 3, 5, 5), L.ones(3, 4, 3, 3),
                                                                           groups=2),
    "conv_transpose2d, output_padding": lambda L: L.nn.functional.conv_transpose2d(
        L.ones(1, 3, 5, 5), L.ones(3, 4, 3, 3), stride=2, output_padding=2),
    "conv_transpose1d, output_padding": lambda L: L.nn.functional.conv_transpose1d(
        L.ones(1, 3, 5), L.ones(3, 4, 3), stride=2, output_padding=2),
    "conv_transpose3d, output_padding": lambda L: L.nn.functional.conv_transpose3d(
        L.ones(1, 3, 5, 5, 5), L.ones(3, 4, 3, 3, 3), stride=2, output_padding=2),
    "conv_transpose2d, a padding string": lambda L: L.nn.functional.conv_transpose2d(
        L.ones(1, 3, 5, 5), L.ones(3, 4, 3, 3), padding="same"),
    "conv_transpose2d, bias size": lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 3, 5, 5), L.ones(3, 4, 3, 3),
                                                                              L.ones(3)),
    "conv_transpose2d, output too small": lambda L: L.nn.functional.conv_transpose2d(
        L.ones(1, 3, 1, 1), L.ones(3, 4, 1, 1), padding=2),
    "conv_transpose1d, output too small": lambda L: L.nn.functional.conv_transpose1d(
        L.ones(1, 3, 1), L.ones(3, 4, 1), padding=2),
    "conv_transpose2d, stride 0": lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 3, 5, 5), L.ones(3, 4, 3, 3),
                                                                             stride=0),
    "conv_transpose2d, negative padding": lambda L: L.nn.functional.conv_transpose2d(
        L.ones(1, 3, 5, 5), L.ones(3, 4, 3, 3), padding=-1),
    "conv_transpose2d, negative output_padding": lambda L: L.nn.functional.conv_transpose2d(
        L.ones(1, 3, 5, 5), L.ones(3, 4, 3, 3), output_padding=-1),
    "conv_transpose2d, groups 0": lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 3, 5, 5), L.ones(3, 4, 3, 3),
                                                                             groups=0),
    "conv_transpose2d, dtypes": lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 3, 5, 5, dtype=L.float64),
                                                                           L.ones(3, 4, 3, 3)),
    "conv_transpose2d, bools": lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 3, 5, 5, dtype=L.bool),
                                                                          L.ones(3, 4, 3, 3, dtype=L.bool)),
    "conv_transpose3d, bools": lambda L: L.nn.functional.conv_transpose3d(L.ones(1, 3, 5, 5, 5, dtype=L.bool),
                                                                          L.ones(3, 4, 3, 3, 3, dtype=L.bool)),
    "ConvTranspose2d, a padding mode": lambda L: L.nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"),
    "Conv1d, a padding mode": lambda L: L.nn.Conv1d(3, 4, 3, padding_mode="mirror"),
    "ConvTranspose2d, groups": lambda L: L.nn.ConvTranspose2d(3, 4, 3, groups=2),
    "ConvTranspose2d, an output size out of reach": lambda L: L.nn.ConvTranspose2d(3, 4, 3, stride=2)(
        L.ones(1, 3, 5, 5), output_size=(20, 20)),
    "ConvTranspose2d, an output size of three": lambda L: L.nn.ConvTranspose2d(3, 4, 3, stride=2)(
        L.ones(1, 3, 5, 5), output_size=(11, 11, 11)),
    "adaptive_avg_pool1d, a 1-d input": lambda L: L.nn.functional.adaptive_avg_pool1d(L.ones(5), 2),
    "adaptive_avg_pool1d, two sizes": lambda L: L.nn.functional.adaptive_avg_pool1d(L.ones(1, 5), (2, 2)),
    "adaptive_avg_pool1d, a negative size": lambda L: L.nn.functional.adaptive_avg_pool1d(L.ones(1, 5), -1),
    "adaptive_avg_pool1d, integers": lambda L: L.nn.functional.adaptive_avg_pool1d(L.ones(1, 5, dtype=L.int64), 2),
    "adaptive_avg_pool3d, a 3-d input": lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(4, 4, 4), 2),
    "adaptive_avg_pool3d, a negative size": lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(1, 4, 4, 4), -1),
    "adaptive_avg_pool3d, two sizes": lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(1, 4, 4, 4), (2, 2)),
    "adaptive_avg_pool3d, integers": lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(1, 4, 4, 4, dtype=L.int64),
                                                                                   2),
    "avg_pool1d, a 1-d input": lambda L: L.nn.functional.avg_pool1d(L.ones(5), 2),
    "avg_pool1d, two kernel sizes": lambda L: L.nn.functional.avg_pool1d(L.ones(1, 1, 5), (2, 2)),
    "avg_pool1d, two strides": lambda L: L.nn.functional.avg_pool1d(L.ones(1, 1, 5), 2, (1, 1)),
    "avg_pool1d, padding over half": lambda L: L.nn.functional.avg_pool1d(L.ones(1, 1, 5), 2, 1, 2),
    "avg_pool1d, output too small": lambda L: L.nn.functional.avg_pool1d(L.ones(1, 1, 5), 6),
    "avg_pool1d, kernel 0": lambda L: L.nn.functional.avg_pool1d(L.ones(1, 1, 5), 0),
    "max_pool1d, a 1-d input": lambda L: L.nn.functional.max_pool1d(L.ones(5), 2),
    "max_pool1d, two kernel sizes": lambda L: L.nn.functional.max_pool1d(L.ones(1, 1, 5), (2, 2)),
    "max_pool1d, output too small": lambda L: L.nn.functional.max_pool1d(L.ones(1, 1, 5), 6),
    "max_pool1d, padding over half": lambda L: L.nn.functional.max_pool1d(L.ones(1, 1, 5), 2, 1, 2),
    "max_pool1d, dilation 0": lambda L: L.nn.functional.max_pool1d(L.ones(1, 1, 5), 2, dilation=0),
    "max_pool1d, stride 0": lambda L: L.nn.functional.max_pool1d(L.ones(1, 1, 5), 2, 0),
    "max_pool1d with indices, a 4-d input": lambda L: L.nn.functional.max_pool1d(L.ones(1, 1, 5, 5), 2,
                                                                                 return_indices=True),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_the_family_refuses_what_torch_refuses_in_its_words(case):
    ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and _sets_sorted(ours) == _sets_sorted(theirs)


MODULES = {
    "Conv1d": lambda nn: nn.Conv1d(2, 4, 3),
    "Conv1d, options": lambda nn: nn.Conv1d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False),
    "Conv1d, same, reflect": lambda nn: nn.Conv1d(2, 3, 4, padding="same", padding_mode="reflect"),
    "Conv2d, replicate": lambda nn: nn.Conv2d(2, 3, (3, 2), padding=(1, 2), padding_mode="replicate"),
    "Conv2d, circular": lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular"),
    "Conv3d": lambda nn: nn.Conv3d(1, 2, (2, 3, 2), stride=(1, 2, 1), padding=1),
    "ConvTranspose1d": lambda nn: nn.ConvTranspose1d(2, 4, 3, stride=2, output_padding=1),
    "ConvTranspose2d": lambda nn: nn.ConvTranspose2d(4, 2, 4, stride=2, padding=1, bias=False),
    "ConvTranspose2d, options": lambda nn: nn.ConvTranspose2d(4, 6, (3, 2), (2, 1), (1, 0), (1, 0), 2, True, (1, 2)),
    "ConvTranspose3d": lambda nn: nn.ConvTranspose3d(2, 2, 2, stride=2),
    "MaxPool1d": lambda nn: nn.MaxPool1d(3, 2, 1, 2, True, True),
    "AvgPool1d": lambda nn: nn.AvgPool1d(3, 2, 1, True, False),
    "AdaptiveAvgPool1d": lambda nn: nn.AdaptiveAvgPool1d(3),
    "AdaptiveAvgPool3d": lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)),
    "a DCGAN generator": lambda nn: nn.Sequential(nn.ConvTranspose2d(8, 4, 4, 1, 0, bias=False), nn.ReLU(True),
                                                  nn.ConvTranspose2d(4, 1, 4, 2, 1, bias=False), nn.Tanh()),
}


@pytest.mark.parametrize("case", list(MODULES))
def test_the_layers_print_and_hold_parameters_as_torchs(case):
    ours, theirs = MODULES[case](al.nn), MODULES[case](torch.nn)
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(t.shape)) for n, t in ours.state_dict().items()] == \
        [(n, tuple(t.shape)) for n, t in theirs.state_dict().items()]


def load_torchs(ours, theirs):
    """torch's parameters copied into ours, through the state_dict."""
    ours.load_state_dict({k: al.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours


LAYERS = {   # name: (make the layer, input shape, forward keyword arguments)
    "Conv1d, same, reflect": (MODULES["Conv1d, same, reflect"], (2, 2, 7), {}),
    "Conv2d, replicate": (MODULES["Conv2d, replicate"], (1, 2, 5, 6), {}),
    "Conv2d, circular": (MODULES["Conv2d, circular"], (2, 5, 5), {}),
    "Conv3d": (MODULES["Conv3d"], (1, 1, 4, 5, 4), {}),
    "ConvTranspose2d, options": (MODULES["ConvTranspose2d, options"], (1, 4, 3, 3), {}),
    "ConvTranspose2d, output_size": (lambda nn: nn.ConvTranspose2d(3, 2, 3, stride=2), (1, 3, 4, 4),
                                     {"output_size": (1, 2, 10, 9)}),
    "ConvTranspose1d, unbatched": (MODULES["ConvTranspose1d"], (2, 5), {}),
    "a DCGAN generator": (MODULES["a DCGAN generator"], (2, 8, 1, 1), {}),
    "MaxPool1d": (MODULES["MaxPool1d"], (2, 3, 9), {}),
    "AvgPool1d": (MODULES["AvgPool1d"], (3, 8), {}),
    "AdaptiveAvgPool1d": (MODULES["AdaptiveAvgPool1d"], (2, 2, 7), {}),
    "AdaptiveAvgPool3d": (MODULES["AdaptiveAvgPool3d"], (1, 2, 5, 4, 6), {}),
}


@pytest.mark.parametrize("case", list(LAYERS))
def test_the_layers_compute_as_torchs_with_torchs_weights(case):
    make, shape, kwargs = LAYERS[case]
    torch.manual_seed(0)
    theirs = make(torch.nn).double()
    ours = load_torchs(make(al.nn).double(), theirs)
    x = np.random.default_rng(1).standard_normal(shape)
    results = []
    for lib, layer in ((al, ours), (torch, theirs)):
        xt = lib.tensor(x, requires_grad=True)
        out = layer(xt, **kwargs)
        y = out[0] if isinstance(out, tuple) else out
        (y * y).sum().backward()
        results.append((out, xt.grad, [p.grad for p in layer.parameters()], y.grad_fn.name()))
    (out, g, pg, name), (tout, tg, tpg, tname) = results
    for a, b in zip(out if isinstance(out, tuple) else (out,), tout if isinstance(tout, tuple) else (tout,)):
        agree(a, b)
    agree(g, tg)
    for a, b in zip(pg, tpg):
        agree(a, b)
    assert name == tname


@pytest.mark.parametrize("make", [lambda nn: nn.Conv1d(4, 6, 3, groups=2), lambda nn: nn.Conv3d(2, 3, (1, 2, 3)),
                                  lambda nn: nn.ConvTranspose2d(4, 6, (3, 2), groups=2)])
def test_the_layers_draw_their_first_weights_as_torch_does(make):
    """kaiming_uniform_(a=√5): uniform in ±1/√fan_in, fan_in = weight.shape[1] x the kernel's
    size (for a transposed convolution, its out_channels / groups), bias the same."""
    al.manual_seed(0)
    layer = make(al.nn)
    fan_in = layer.weight.shape[1] * int(np.prod(layer.kernel_size))
    for p in (layer.weight, layer.bias):
        values = p.detach().numpy()
        assert p.dtype == al.float32 and np.abs(values).max() <= 1 / np.sqrt(fan_in)
        assert values.std() > 1 / np.sqrt(fan_in) / 3
    assert tuple(layer.weight.shape) == tuple(make(torch.nn).weight.shape)


POOLS = {
    "max_pool1d": lambda F, x: F.max_pool1d(x, 3, 2, 1, 2, True),
    "max_pool1d, indices": lambda F, x: F.max_pool1d(x, 2, return_indices=True)[0],
    "avg_pool1d": lambda F, x: F.avg_pool1d(x, 3, 2, 1, True, False),
    "adaptive_avg_pool1d": lambda F, x: F.adaptive_avg_pool1d(x, 4),
    "adaptive_avg_pool1d to one": lambda F, x: F.adaptive_avg_pool1d(x, 1),
    "adaptive_avg_pool3d": lambda F, x: F.adaptive_avg_pool3d(x.reshape(1, 2, 3, 3, 3)[..., :2], (2, 3, None)),
    "adaptive_avg_pool3d to one": lambda F, x: F.adaptive_avg_pool3d(x.reshape(2, 3, 3, 3), 1),
}


@pytest.mark.parametrize("case", list(POOLS))
def test_one_and_three_dimensional_pooling_match_torch(case):
    x = np.random.default_rng(3).permutation(54).reshape(2, 3, 9) / 5.0
    run_both(lambda lib, t: POOLS[case](lib.nn.functional, t), [x])


def test_max_pool1d_returns_torchs_indices_along_the_sequence():
    x = np.array([[[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]]])
    ours = al.nn.functional.max_pool1d(al.tensor(x), 3, 2, return_indices=True)
    theirs = torch.nn.functional.max_pool1d(torch.tensor(x), 3, 2, return_indices=True)
    assert ours[1].tolist() == theirs[1].tolist() == [[[2, 4, 5]]] and ours[0].tolist() == theirs[0].tolist()


def test_adaptive_pooling_in_three_dimensions_names_its_gradient_as_torch():
    names = []
    for lib in (al, torch):
        x = lib.tensor(np.random.default_rng(0).standard_normal((1, 2, 4, 5, 6)), requires_grad=True)
        y = lib.nn.functional.adaptive_avg_pool3d(x, 2)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        names.append((y.grad_fn.name(), g.grad_fn.name()))
    assert names[0] == names[1] == ("AdaptiveAvgPool3DBackward0", "AdaptiveAvgPool3DBackwardBackward0")


def test_a_transposed_convolution_too_small_with_output_padding_is_refused_in_torchs_words():
    for make in (lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 3, 1, 2), L.ones(3, 4, 1, 1), stride=2,
                                                            padding=(2, 1), output_padding=(1, 1)),
                 lambda L: L.nn.functional.conv_transpose3d(L.ones(1, 1, 1, 1, 1), L.ones(1, 1, 1, 1, 1), stride=2,
                                                            padding=1, output_padding=(1, 0, 1))):
        ours, theirs = error_of(lambda: make(al)), error_of(lambda: make(torch))
        assert theirs[0] is not None and ours == theirs
