"""Padding, resizing and pixel shuffles against torch: F.pad in its four modes, F.interpolate
in its modes (sizes and scale factors, align_corners, float32 arithmetic as torch's), the
pixel shuffles -- values, gradients, second derivatives, grad_fn names, vmap, torch's
refusals in its words, and the layers' printed forms."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402
from test_conv_family_vs_torch import agree, run_both  # noqa: E402

gradcheck, gradgradcheck = al.autograd.gradcheck, al.autograd.gradgradcheck

PADS = [   # (input shape, pad)
    ((2, 3, 5), (1, 2)), ((3, 5), (2, 0)), ((1, 2, 4, 5), (1, 2, 3, 0)), ((2, 4, 5), (2, 1, 1, 3)),
    ((1, 1, 3, 4, 5), (1, 1, 2, 0, 1, 2)), ((1, 3, 4, 4), (-1, 2, 1, -2)),
]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pad", PADS, ids=[f"{s}{p}" for s, p in PADS])
def test_pad_matches_torch_in_values_gradients_and_grad_fn(mode, shape, pad):
    x = np.random.default_rng(len(shape)).standard_normal(shape)
    run_both(lambda lib, t: lib.nn.functional.pad(t, pad, mode), [x])


def test_pad_fills_with_a_value_and_crops_where_negative_as_torch():
    x = np.arange(12.0).reshape(3, 4)
    for pad, value in (((1, -2), 7.5), ((-1, -1, 2, 0), None), ((0, 0, -3, 1), -1.0)):
        run_both(lambda lib, t: lib.nn.functional.pad(t, pad, value=value), [x])
    ints = al.nn.functional.pad(al.tensor([[1, 2]]), (1, 1), value=1.5)
    assert ints.tolist() == torch.nn.functional.pad(torch.tensor([[1, 2]]), (1, 1), value=1.5).tolist()


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_passes_gradcheck_forward_mode_and_second_derivatives(mode):
    x = al.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 4)), requires_grad=True)
    f = lambda t: al.nn.functional.pad(t, (2, 1, 1, 2), mode) ** 2    # noqa: E731
    assert gradcheck(f, [x], check_forward_ad=True, check_batched_grad=True, check_batched_forward_grad=True)
    assert gradgradcheck(f, [x], check_fwd_over_rev=True)


def test_the_gradients_of_pads_are_named_as_torchs():
    names = []
    for lib in (al, torch):
        x = lib.tensor(np.random.default_rng(0).standard_normal((1, 2, 4, 4)), requires_grad=True)
        for mode in ("reflect", "replicate", "constant"):
            g, = lib.autograd.grad((lib.nn.functional.pad(x, (1, 2, 2, 1), mode) ** 2).sum(), x, create_graph=True)
            names.append(g.grad_fn.name())
    assert names[:3] == names[3:]


def test_a_reflected_pad_reads_its_input_at_the_backward_as_torchs():
    """torch's reflection_pad saves its input: writing into it before the backward is refused;
    a replicated pad's input too; a constant pad saves nothing."""
    for lib in (al, torch):
        for mode, refused in (("reflect", True), ("replicate", True), ("constant", False)):
            x = lib.ones(1, 1, 3, 3, requires_grad=True)
            y = x * 2
            z = lib.nn.functional.pad(y, (1, 1, 1, 1), mode)
            y.add_(1)
            assert ("modified by an inplace operation" in (error_of(z.sum().backward)[1] or "")) == refused


RESIZES = [   # (input shape, mode, size, scale_factor, align_corners)
    ((2, 3, 5), "nearest", None, 2, None), ((1, 2, 7), "nearest", 3, None, None),
    ((1, 2, 4, 5), "nearest", (7, 3), None, None), ((1, 1, 5, 6), "nearest", None, 1.7, None),
    ((1, 1, 2, 3, 3), "nearest", None, (2, 1, 1.5), None), ((1, 2, 4, 5), "nearest-exact", (6, 9), None, None),
    ((2, 3, 5), "linear", None, 2.5, False), ((2, 3, 5), "linear", 8, None, True), ((1, 2, 6), "linear", 4, None, False),
    ((1, 2, 4, 5), "bilinear", None, 2, False), ((1, 2, 4, 5), "bilinear", (7, 3), None, True),
    ((2, 1, 6, 7), "bilinear", None, 0.6, False), ((1, 2, 3, 4), "bilinear", (1, 1), None, True),
    ((1, 2, 4, 5), "bicubic", None, 2, False), ((1, 1, 5, 4), "bicubic", (3, 7), None, True),
    ((1, 1, 3, 4, 2), "trilinear", None, 2, False), ((1, 1, 3, 4, 2), "trilinear", (2, 5, 3), None, True),
    ((1, 2, 6, 7), "area", (3, 2), None, None), ((2, 3, 7), "area", 3, None, None),
    ((1, 1, 4, 4, 6), "area", None, 0.5, None),
]


@pytest.mark.parametrize("shape, mode, size, scale, corners", RESIZES,
                         ids=[f"{r[1]}{r[0]}{r[2] or r[3]}{'-corners' if r[4] else ''}" for r in RESIZES])
def test_interpolate_matches_torch_in_values_gradients_and_grad_fn(shape, mode, size, scale, corners):
    x = np.random.default_rng(0).standard_normal(shape)
    run_both(lambda lib, t: lib.nn.functional.interpolate(t, size, scale, mode, corners), [x])


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic"])
@pytest.mark.parametrize("scale", [0.3, 1.1, 2.5, 3.0, 17 / 7])
def test_interpolate_in_float32_picks_torchs_entries(mode, scale):
    """torch computes the source positions in float32 for float32 images: the same
    neighbours are picked, and the same weights, where float64 would differ."""
    x = np.random.default_rng(1).standard_normal((1, 2, 13, 11)).astype(np.float32)
    corners = None if "nearest" in mode else False
    ours = al.nn.functional.interpolate(al.tensor(x), scale_factor=scale, mode=mode, align_corners=corners)
    theirs = torch.nn.functional.interpolate(torch.tensor(x), scale_factor=scale, mode=mode, align_corners=corners)
    assert ours.dtype == al.float32 and tuple(ours.shape) == tuple(theirs.shape)
    assert np.allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)


def test_interpolate_recomputes_its_scale_factor_when_asked_as_torch():
    x = np.random.default_rng(2).standard_normal((1, 1, 5, 7))
    for recompute in (None, True):
        run_both(lambda lib, t: lib.nn.functional.interpolate(t, scale_factor=1.3, mode="bilinear",
                                                              recompute_scale_factor=recompute), [x])


@pytest.mark.parametrize("mode, shape", [("nearest", (1, 1, 3, 3)), ("bilinear", (1, 2, 3, 3)),
                                         ("bicubic", (1, 1, 3, 2)), ("linear", (1, 2, 4)),
                                         ("trilinear", (1, 1, 2, 2, 3))])
def test_interpolate_passes_gradcheck_and_names_its_gradient_as_torch(mode, shape):
    x = al.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
    f = lambda t: al.nn.functional.interpolate(t, scale_factor=2, mode=mode) ** 2    # noqa: E731
    assert gradcheck(f, [x], check_forward_ad=True, check_batched_grad=True)
    assert gradgradcheck(f, [x], check_fwd_over_rev=True)
    names = []
    for lib in (al, torch):
        t = lib.tensor(np.ones(shape), requires_grad=True)
        y = lib.nn.functional.interpolate(t, scale_factor=2, mode=mode)
        g, = lib.autograd.grad((y ** 2).sum(), t, create_graph=True)
        names.append(g.grad_fn.name())
    assert names[0] == names[1]


def test_vmap_over_pad_interpolate_and_pixel_shuffle_matches_torch():
    x = np.random.default_rng(3).standard_normal((3, 4, 3, 3))
    outs = []
    for lib in (al, torch):
        F = lib.nn.functional

        def f(t):
            up = F.interpolate(t.unsqueeze(0), scale_factor=2, mode="bilinear", align_corners=True)
            return F.pixel_shuffle(F.pad(up, (1, 0, 0, 1), "reflect"), 2).sum(0)
        outs.append(lib.vmap(f)(lib.tensor(x)).numpy())
    assert outs[0].shape == outs[1].shape and np.allclose(*outs)


@pytest.mark.parametrize("r, shape", [(2, (1, 8, 2, 3)), (3, (9, 2, 2)), (1, (2, 3, 4, 4))])
def test_pixel_shuffle_and_unshuffle_match_torch(r, shape):
    x = np.random.default_rng(r).standard_normal(shape)
    assert run_both(lambda lib, t: lib.nn.functional.pixel_shuffle(t, r), [x]) == "PixelShuffleBackward0"
    up = x.reshape(shape[:-3] + (shape[-3] // (r * r), shape[-2] * r, shape[-1] * r))
    assert run_both(lambda lib, t: lib.nn.functional.pixel_unshuffle(t, r), [up]) == "PixelUnshuffleBackward0"
    t = al.tensor(x)
    assert np.array_equal(al.nn.functional.pixel_unshuffle(al.nn.functional.pixel_shuffle(t, r), r).numpy(), x)


def test_the_deprecated_upsample_names_warn_as_torch_and_resize():
    x = np.random.default_rng(0).standard_normal((1, 1, 2, 3))
    for name in ("upsample", "upsample_nearest", "upsample_bilinear"):
        texts = []
        for lib in (al, torch):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                y = getattr(lib.nn.functional, name)(lib.tensor(x), scale_factor=2)
            texts.append((str(caught[0].message), y.numpy()))
        assert texts[0][0] == texts[1][0] and np.allclose(texts[0][1], texts[1][1])


REFUSED = {
    "pad, an odd length": lambda L: L.nn.functional.pad(L.ones(2, 3), (1,)),
    "pad, too long": lambda L: L.nn.functional.pad(L.ones(2, 3), (1, 1, 1, 1, 1, 1)),
    "pad, a float": lambda L: L.nn.functional.pad(L.ones(1, 3), (1.5, 1)),
    "reflect, too big": lambda L: L.nn.functional.pad(L.ones(1, 1, 3, 3), (3, 3, 0, 0), mode="reflect"),
    "reflect, too big in height": lambda L: L.nn.functional.pad(L.ones(1, 1, 3, 3), (0, 0, 3, 3), mode="reflect"),
    "reflect, a value": lambda L: L.nn.functional.pad(L.ones(1, 1, 3, 3), (1, 1, 1, 1), mode="reflect", value=1.0),
    "reflect, two sides of a 2-d input": lambda L: L.nn.functional.pad(L.ones(3, 3), (1, 1, 1, 1), mode="reflect"),
    "reflect, a 1-d input": lambda L: L.nn.functional.pad(L.ones(3), (1, 1), mode="reflect"),
    "reflect, three sides of a 4-d input": lambda L: L.nn.functional.pad(L.ones(1, 1, 3, 3), (1, 1, 1, 1, 1, 1),
                                                                         mode="reflect"),
    "reflect, bools": lambda L: L.nn.functional.pad(L.ones(1, 2, 3, dtype=L.bool), (1, 1), mode="reflect"),
    "replicate, a 6-d input": lambda L: L.nn.functional.pad(L.ones(1, 1, 1, 1, 3, 3), (1, 1), mode="replicate"),
    "replicate, an empty channel": lambda L: L.nn.functional.pad(L.ones(1, 0, 3), (1, 1), mode="replicate"),
    "circular, wrapping twice": lambda L: L.nn.functional.pad(L.ones(1, 1, 3, 3), (4, 1, 1, 1), mode="circular"),
    "a padding mode": lambda L: L.nn.functional.pad(L.ones(1, 1, 3, 3), (1, 1), mode="mirror"),
    "constant, cropping it all": lambda L: L.nn.functional.pad(L.ones(1, 3), (-3, -1)),
    "interpolate, size and scale": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3), 4, 2),
    "interpolate, neither": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3)),
    "interpolate, sizes": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3), (4, 4)),
    "interpolate, scales": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3, 3), scale_factor=(2, 2, 2)),
    "interpolate, corners of nearest": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3), 4, align_corners=True),
    "interpolate, bilinear of 3-d": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3), 4, mode="bilinear"),
    "interpolate, linear of 4-d": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3, 3), 4, mode="linear"),
    "interpolate, trilinear of 4-d": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3, 3), 4, mode="trilinear"),
    "interpolate, a 2-d input": lambda L: L.nn.functional.interpolate(L.ones(3, 3), 4),
    "interpolate, bicubic of 3-d": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3), 4, mode="bicubic"),
    "interpolate, a mode": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3), 4, mode="cubic"),
    "interpolate, a float size": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3), (4.0,)),
    "interpolate, recompute with a size": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3), 4,
                                                                                recompute_scale_factor=True),
    "interpolate, antialias of 3-d": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3), 4, mode="linear",
                                                                           antialias=True),
    "interpolate, to nothing": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 3, 3), scale_factor=0.2),
    "interpolate, integers": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2, 2, dtype=L.int64), 3),
    "interpolate, integers in 1-d": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2, dtype=L.int32), 3),
    "interpolate, bools, bilinear": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2, 2, dtype=L.bool), 3,
                                                                          mode="bilinear"),
    "interpolate, integers, bicubic": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2, 2, dtype=L.int64), 3,
                                                                            mode="bicubic"),
    "interpolate, integers, trilinear": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 1, 2, 2, dtype=L.int64),
                                                                              3, mode="trilinear"),
    "pixel_shuffle, a 2-d input": lambda L: L.nn.functional.pixel_shuffle(L.ones(4, 4), 2),
    "pixel_shuffle, channels": lambda L: L.nn.functional.pixel_shuffle(L.ones(1, 5, 2, 2), 2),
    "pixel_shuffle, factor 0": lambda L: L.nn.functional.pixel_shuffle(L.ones(1, 4, 2, 2), 0),
    "pixel_unshuffle, height": lambda L: L.nn.functional.pixel_unshuffle(L.ones(1, 1, 5, 4), 2),
    "pixel_unshuffle, width": lambda L: L.nn.functional.pixel_unshuffle(L.ones(1, 1, 4, 5), 2),
    "pixel_unshuffle, factor 0": lambda L: L.nn.functional.pixel_unshuffle(L.ones(1, 1, 4, 4), 0),
    "ReflectionPad2d, a 2-d input": lambda L: L.nn.ReflectionPad2d(1)(L.ones(3, 3)),
    "ZeroPad2d, a 1-d input": lambda L: L.nn.ZeroPad2d(1)(L.ones(3)),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_resampling_refuses_what_torch_refuses_in_its_words(case):
    ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and ours == theirs


def test_bytes_resize_by_nearest_neighbour_as_torch_and_are_refused_in_words_otherwise():
    x = np.arange(12, dtype=np.uint8).reshape(1, 1, 3, 4)
    ours = al.nn.functional.interpolate(al.tensor(x), scale_factor=1.5)
    assert ours.dtype == al.uint8
    assert ours.tolist() == torch.nn.functional.interpolate(torch.tensor(x), scale_factor=1.5).tolist()
    kind, text = error_of(lambda: al.nn.functional.interpolate(al.tensor(x), scale_factor=2, mode="bilinear"))
    assert kind == "NotImplementedError" and "nearest neighbour only" in text


def test_antialiasing_is_refused_in_words():
    kind, text = error_of(lambda: al.nn.functional.interpolate(al.ones(1, 1, 4, 4), 2, mode="bilinear",
                                                                antialias=True))
    assert kind == "NotImplementedError" and "antialias=True" in text and "not implemented in autograd_lab" in text


MODULES = {
    "ZeroPad2d": lambda nn: nn.ZeroPad2d(2),
    "ZeroPad2d, four": lambda nn: nn.ZeroPad2d((1, 2, 3, 4)),
    "ZeroPad1d": lambda nn: nn.ZeroPad1d(1),
    "ConstantPad3d": lambda nn: nn.ConstantPad3d(1, 3.5),
    "ConstantPad1d": lambda nn: nn.ConstantPad1d((2, 1), -1),
    "ReflectionPad2d": lambda nn: nn.ReflectionPad2d(1),
    "ReflectionPad1d": lambda nn: nn.ReflectionPad1d((1, 2)),
    "ReplicationPad2d": lambda nn: nn.ReplicationPad2d((1, 0, 2, 1)),
    "ReplicationPad3d": lambda nn: nn.ReplicationPad3d(1),
    "CircularPad2d": lambda nn: nn.CircularPad2d(1),
    "Upsample": lambda nn: nn.Upsample(scale_factor=2),
    "Upsample, size": lambda nn: nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
    "Upsample, scales": lambda nn: nn.Upsample(scale_factor=(2, 3), mode="bicubic"),
    "UpsamplingNearest2d": lambda nn: nn.UpsamplingNearest2d(scale_factor=2),
    "UpsamplingBilinear2d": lambda nn: nn.UpsamplingBilinear2d(size=4),
    "PixelShuffle": lambda nn: nn.PixelShuffle(2),
    "PixelUnshuffle": lambda nn: nn.PixelUnshuffle(3),
    "a CycleGAN block": lambda nn: nn.Sequential(nn.ReflectionPad2d(3), nn.Conv2d(3, 8, 7), nn.ReLU(True),
                                                 nn.Upsample(scale_factor=2), nn.ReplicationPad2d(1)),
}


@pytest.mark.parametrize("case", list(MODULES))
def test_the_layers_print_as_torchs_and_compute_the_same(case):
    ours, theirs = MODULES[case](al.nn), MODULES[case](torch.nn)
    assert repr(ours) == repr(theirs)
    if "huffle" in case:
        return
    ours.load_state_dict({k: al.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    shape = (1, 3, 5) if case.endswith("1d") else (1, 3, 4, 5, 6) if case.endswith("3d") else (1, 3, 4, 5)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    agree(ours(al.tensor(x)), theirs(torch.tensor(x)), 1e-5)


# -- grid sampling and affine grids ------------------------------------------------------------------
GRIDS = [(mode, padding, corners) for mode in ("bilinear", "nearest") for padding in ("zeros", "border", "reflection")
         for corners in (False, True)]


@pytest.mark.parametrize("mode, padding, corners", GRIDS)
def test_grid_sample_matches_torch_in_values_gradients_and_grad_fn(mode, padding, corners):
    rng = np.random.default_rng(len(mode) + len(padding) + corners)
    x, grid = rng.standard_normal((2, 3, 4, 5)), rng.uniform(-1.4, 1.4, (2, 3, 6, 2))    # (some places outside)
    assert run_both(lambda lib, a, g: lib.nn.functional.grid_sample(a, g, mode, padding, corners),
                    [x, grid]) == "GridSampler2DBackward0"


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_differentiates_twice_as_torch(padding):
    """The grid's gradient, recorded, differentiated again: the same second derivatives as
    torch's (in the input and in the grid)."""
    rng = np.random.default_rng(7)
    x, grid, v = rng.standard_normal((1, 2, 3, 4)), rng.uniform(-1.2, 1.2, (1, 2, 3, 2)), rng.standard_normal((1, 2, 3, 2))
    results = []
    for lib in (al, torch):
        a, g = lib.tensor(x, requires_grad=True), lib.tensor(grid, requires_grad=True)
        y = lib.nn.functional.grid_sample(a, g, padding_mode=padding, align_corners=False)
        dx, dg = lib.autograd.grad((y * y).sum(), (a, g), create_graph=True)
        results.append([t.detach().numpy() for t in lib.autograd.grad((dg * lib.tensor(v)).sum() + (dx ** 2).sum(),
                                                                      (a, g))])
    for ours, theirs in zip(*results):
        assert np.allclose(ours, theirs)


def test_grid_sample_passes_gradcheck_and_forward_mode():
    rng = np.random.default_rng(8)
    x = al.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    grid = al.tensor(rng.uniform(-0.9, 0.9, (1, 2, 2, 2)), requires_grad=True)
    f = lambda a, g: al.nn.functional.grid_sample(a, g, align_corners=True)    # noqa: E731
    assert al.autograd.gradcheck(f, (x, grid), check_forward_ad=True, check_batched_grad=True)
    assert al.autograd.gradgradcheck(f, (x, grid))


@pytest.mark.parametrize("corners", [False, True])
def test_affine_grid_and_a_spatial_transformer_match_torch(corners):
    rng = np.random.default_rng(9)
    theta, x = rng.standard_normal((2, 2, 3)) * 0.5, rng.standard_normal((2, 1, 4, 5))
    assert run_both(lambda lib, t: lib.nn.functional.affine_grid(t, (2, 1, 3, 4), align_corners=corners),
                    [theta]) == "AffineGridGeneratorBackward0"
    run_both(lambda lib, t, a: lib.nn.functional.grid_sample(
        a, lib.nn.functional.affine_grid(t, tuple(a.shape), align_corners=corners), align_corners=corners),
        [theta, x])


def test_per_sample_gradients_of_a_spatial_transformer_by_vmap_match_torch():
    rng = np.random.default_rng(10)
    theta, x = rng.standard_normal((3, 1, 2, 3)) * 0.5, rng.standard_normal((3, 1, 2, 4, 4))
    outs = []
    for lib in (al, torch):
        F = lib.nn.functional

        def loss(t, a):
            return (F.grid_sample(a, F.affine_grid(t, tuple(a.shape), align_corners=False), align_corners=False)
                    ** 2).sum()
        outs.append([g.numpy() for g in lib.func.vmap(lib.func.grad(loss, argnums=(0, 1)))(lib.tensor(theta),
                                                                                           lib.tensor(x))])
    for a, b in zip(*outs):
        assert a.shape == b.shape and np.allclose(a, b)


def test_grid_sample_and_affine_grid_warn_of_align_corners_as_torch():
    texts = []
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))
            lib.nn.functional.affine_grid(lib.tensor([[[1.0, 0, 0], [0, 1, 0]]]), (1, 1, 2, 2))
            lib.nn.functional.affine_grid(lib.tensor([[[1.0, 0, 0], [0, 1, 0]]]), (1, 1, 1, 2), align_corners=True)
        texts.append([str(w.message) for w in caught])
    assert texts[0] == texts[1] and len(texts[0]) == 3


GRID_REFUSED = {
    "grid_sample, a mode": lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 5), L.zeros(1, 3, 3, 2), "cubic",
                                                                 align_corners=False),
    "grid_sample, a padding mode": lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 5), L.zeros(1, 3, 3, 2),
                                                                         padding_mode="wrap", align_corners=False),
    "grid_sample, the grid's last size": lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 5), L.zeros(1, 3, 3, 3),
                                                                               align_corners=False),
    "grid_sample, batch sizes": lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 5), L.zeros(2, 3, 3, 2),
                                                                      align_corners=False),
    "grid_sample, a 3-d input": lambda L: L.nn.functional.grid_sample(L.ones(2, 4, 5), L.zeros(2, 3, 2),
                                                                      align_corners=False),
    "grid_sample, a 3-d grid": lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 5), L.zeros(1, 3, 2),
                                                                     align_corners=False),
    "grid_sample, dtypes": lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 5), L.zeros(1, 3, 3, 2).double(),
                                                                 align_corners=False),
    "grid_sample, an empty image": lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 0, 5), L.zeros(1, 3, 3, 2),
                                                                         align_corners=False),
    "grid_sample, integers": lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 5, dtype=L.int64),
                                                                   L.zeros(1, 3, 3, 2, dtype=L.int64),
                                                                   align_corners=False),
    "grid_sample, bicubic volumes": lambda L: L.nn.functional.grid_sample(L.ones(1, 1, 2, 2, 2), L.zeros(1, 1, 1, 1, 3),
                                                                          mode="bicubic", align_corners=False),
    "affine_grid, a 3-d size": lambda L: L.nn.functional.affine_grid(L.zeros(1, 2, 3), (1, 2, 4), align_corners=False),
    "affine_grid, theta's shape": lambda L: L.nn.functional.affine_grid(L.zeros(1, 3, 3), (1, 2, 4, 5),
                                                                        align_corners=False),
    "affine_grid, batch sizes": lambda L: L.nn.functional.affine_grid(L.zeros(2, 2, 3), (1, 2, 4, 5),
                                                                      align_corners=False),
    "affine_grid, integers": lambda L: L.nn.functional.affine_grid(L.zeros(1, 2, 3, dtype=L.int64), (1, 2, 4, 5),
                                                                   align_corners=False),
    "affine_grid, an empty size": lambda L: L.nn.functional.affine_grid(L.zeros(1, 2, 3), (1, 2, 0, 5),
                                                                        align_corners=False),
}


@pytest.mark.parametrize("case", list(GRID_REFUSED))
def test_grid_sampling_refuses_what_torch_refuses_in_its_words(case):
    ours, theirs = error_of(lambda: GRID_REFUSED[case](al)), error_of(lambda: GRID_REFUSED[case](torch))
    assert theirs[0] is not None and ours == (theirs[0], theirs[1].replace("torch.int64", "al.int64"))


@pytest.mark.parametrize("call", [
    lambda: al.nn.functional.grid_sample(al.ones(1, 1, 2, 2), al.zeros(1, 1, 1, 2), "bicubic", align_corners=False),
    lambda: al.nn.functional.grid_sample(al.ones(1, 1, 2, 2, 2), al.zeros(1, 1, 1, 1, 3), align_corners=False),
    lambda: al.nn.functional.affine_grid(al.zeros(1, 3, 4), (1, 1, 2, 2, 2), align_corners=False)])
def test_bicubic_and_volumetric_grid_sampling_are_refused_in_words(call):
    kind, text = error_of(call)
    assert kind == "NotImplementedError" and "is not implemented in autograd_lab" in text


@pytest.mark.parametrize("shape, pad", [((3, 2, 5), (1, 2)), ((3, 1, 3, 4), (2, -1, 1, 3)),
                                        ((3, 1, 2, 3, 4), (1, 1, 2, 0, -1, 1))])
def test_circular_padding_under_vmap_matches_torch(shape, pad):
    """(Inside vmap, where in-place writes do not batch, the circular padding is written
    out of place: the same numbers.)"""
    x = np.random.default_rng(4).standard_normal(shape)
    ours = al.vmap(lambda t: al.nn.functional.pad(t, pad, "circular"))(al.tensor(x))
    theirs = torch.func.vmap(lambda t: torch.nn.functional.pad(t, pad, "circular"))(torch.tensor(x))
    assert tuple(ours.shape) == tuple(theirs.shape) and np.allclose(ours.numpy(), theirs.numpy())


def test_a_circular_padding_beyond_what_cropping_leaves_is_refused_in_words():
    """torch checks the padding against the input before cropping, then reads memory it
    never wrote; autograd_lab says what is wrong."""
    kind, text = error_of(lambda: al.nn.functional.pad(al.ones(1, 1, 2, 4), (1, 1, -1, 2), "circular"))
    assert kind == "RuntimeError" and "wraps around more than once the 1 entries" in text


@pytest.mark.parametrize("dims", [(0, 0), (0, None), (None, 0)])
def test_grid_sample_under_vmap_matches_torch(dims):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 2, 4, 5, 6) if dims[0] == 0 else (2, 4, 5, 6))     # (N 2 images of 4 channels)
    grid = rng.uniform(-1.1, 1.1, (3, 2, 3, 2, 2) if dims[1] == 0 else (2, 3, 2, 2))
    outs = []
    for lib in (al, torch):
        f = lambda a, g: lib.nn.functional.grid_sample(a, g, padding_mode="border", align_corners=False)  # noqa: E731
        outs.append(lib.vmap(f, in_dims=dims)(lib.tensor(x), lib.tensor(grid)).numpy())
    assert outs[0].shape == outs[1].shape and np.allclose(*outs)
