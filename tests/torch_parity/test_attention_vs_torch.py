"""Attention against torch: F.scaled_dot_product_attention (masks, causal, scale, dropout,
a fully masked row), nn.MultiheadAttention with torch's weights (self- and cross-attention,
batch_first, masks, bias_kv, zero attention, separate key and value sizes, unbatched
input), and the Transformer's layers in eval mode -- outputs, gradients, grad_fn names,
second derivatives, initialisation, printed forms, state_dict and torch's refusals."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

from op_cases import error_of  # noqa: E402
from test_conv_family_vs_torch import agree  # noqa: E402
from test_recurrent_vs_torch import compare, graph_of  # noqa: E402

rng = np.random.default_rng(0)


def math_path():
    """torch's reference implementation of attention: on a CPU, torch runs 4-d inputs
    through a fused kernel (ScaledDotProductFlashAttentionForCpuBackward0), same numbers."""
    return sdpa_kernel(SDPBackend.MATH)


SDPA = [   # (shapes of q, k, v, keyword arguments)
    ((3, 4), (5, 4), (5, 2), {}),
    ((2, 3, 4), (2, 5, 4), (2, 5, 6), {"scale": 0.7}),
    ((2, 2, 3, 4), (2, 2, 3, 4), (2, 2, 3, 4), {"is_causal": True}),
    ((2, 3, 4), (2, 3, 4), (2, 3, 4), {"attn_mask": rng.random((3, 3)) > 0.4}),
    ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4), {"attn_mask": rng.standard_normal((2, 1, 3, 5))}),
    ((1, 3, 4), (1, 3, 4), (1, 3, 4), {"scale": -0.5}),
    ((2, 3, 4), (2, 5, 4), (2, 5, 4), {"is_causal": True}),             # L < S: the top-left triangle
    ((2, 3, 4), (2, 3, 4), (2, 3, 4), {"attn_mask": np.array([[True, False, False], [False, False, False],
                                                              [True, True, True]])}),   # a row fully masked
]


@pytest.mark.parametrize("shapes", range(len(SDPA)))
def test_scaled_dot_product_attention_matches_torchs_reference(shapes):
    *sizes, kwargs = SDPA[shapes]
    arrays = [rng.standard_normal(s) for s in sizes]
    results = []
    for lib in (al, torch):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
        kw = {key: lib.tensor(val) if isinstance(val, np.ndarray) else val for key, val in kwargs.items()}
        with math_path():
            y = lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
        (y * lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))).sum().backward()
        results.append((y, [q.grad, k.grad, v.grad], y.grad_fn.name()))
    (y, grads, name), (ty, tgrads, tname) = results
    agree(y, ty, 1e-10)
    for a, b in zip(grads, tgrads):
        agree(a, b, 1e-10)
    assert name == tname
    assert not np.isnan(y.detach().numpy()).any()              # (a fully masked row: zeros, not NaN)


def test_attention_passes_gradcheck_and_second_derivatives():
    q, k, v = (al.tensor(rng.standard_normal((2, 3, 2)), requires_grad=True) for _ in range(3))
    mask = al.tensor(rng.standard_normal((3, 3)))
    f = lambda q, k, v: al.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)   # noqa: E731
    assert al.autograd.gradcheck(f, (q, k, v), check_forward_ad=True, check_batched_grad=True)
    assert al.autograd.gradgradcheck(f, (q, k, v))


def test_attention_dropout_drops_whole_weights_and_rescales_the_rest():
    """dropout_p: each attention weight zeroed with probability p, the others scaled by
    1 / (1 - p) (the random draws are the package's, not torch's)."""
    al.manual_seed(0)
    q = al.zeros(1, 400, 2)                      # equal scores: every weight is 1/400
    v = al.ones(1, 400, 1)
    y = al.nn.functional.scaled_dot_product_attention(q, q, v, dropout_p=0.25).detach().numpy()
    assert np.allclose(y.mean(), 1.0, atol=0.05) and y.std() > 0.01
    assert np.allclose(al.nn.functional.scaled_dot_product_attention(q, q, v, dropout_p=1.0).numpy(), 0)


def _mha(embed=4, heads=2, **kwargs):
    return lambda nn: nn.MultiheadAttention(embed, heads, **kwargs)


X = rng.standard_normal((3, 2, 4))              # (L, N, E)
MEMORY = rng.standard_normal((5, 2, 4))
MASKS = {
    "key_padding_mask": np.array([[False, False, True, False, True], [False, True, False, False, False]]),
    "attn_mask": rng.standard_normal((3, 5)),
    "attn_mask, bool, per head": rng.random((4, 3, 5)) > 0.7,
}

MHA = {   # name: (make, call(layer, *inputs), inputs)
    "self-attention": (_mha(), lambda m, x: m(x, x, x), [X]),
    "cross-attention, key is value": (_mha(), lambda m, x, y: m(x, y, y), [X, MEMORY]),
    "three inputs": (_mha(), lambda m, x, y, z: m(x, y, z), [X, MEMORY, MEMORY * 2]),
    "batch_first": (_mha(batch_first=True), lambda m, x: m(x, x, x), [X.transpose(1, 0, 2).copy()]),
    "no weights": (_mha(), lambda m, x, y: m(x, y, y, need_weights=False), [X, MEMORY]),
    "weights per head": (_mha(), lambda m, x: m(x, x, x, average_attn_weights=False), [X]),
    "no bias": (_mha(bias=False), lambda m, x: m(x, x, x), [X]),
    "kdim and vdim": (_mha(kdim=3, vdim=5), lambda m, x, y, z: m(x, y, z),
                      [X, rng.standard_normal((5, 2, 3)), rng.standard_normal((5, 2, 5))]),
    "bias_kv and zero attention": (_mha(add_bias_kv=True, add_zero_attn=True),
                                   lambda m, x, y: m(x, y, y, key_padding_mask=MASK("key_padding_mask")),
                                   [X, MEMORY]),
    "masks": (_mha(), lambda m, x, y: m(x, y, y, key_padding_mask=MASK("key_padding_mask"),
                                        attn_mask=MASK("attn_mask")), [X, MEMORY]),
    "masks, no weights": (_mha(), lambda m, x, y: m(x, y, y, need_weights=False,
                                                    attn_mask=MASK("attn_mask, bool, per head")), [X, MEMORY]),
    "causal, no weights": (_mha(), lambda m, x: m(x, x, x, need_weights=False, is_causal=True,
                                                  attn_mask=CAUSAL(x)), [X]),
    "unbatched": (_mha(), lambda m, x, y: m(x, y, y, key_padding_mask=MASK("key_padding_mask")[0]),
                  [X[:, 0], MEMORY[:, 0]]),
    "one head of four": (_mha(4, 1), lambda m, x: m(x, x, x), [X]),
}


def MASK(name):
    """A mask of MASKS as the library at hand's tensor (the one whose layer is running)."""
    return _LIB[0].tensor(MASKS[name])


def CAUSAL(x):
    return _LIB[0].nn.Transformer.generate_square_subsequent_mask(x.shape[0], dtype=x.dtype)


_LIB = [al]


@pytest.mark.parametrize("case", list(MHA))
def test_multihead_attention_matches_torch_with_torchs_weights(case):
    make, call, inputs = MHA[case]

    def run(layer, *xs):
        _LIB[0] = al if isinstance(xs[0], al.Tensor) else torch
        with math_path():
            out, weights = call(layer, *xs)
        return (out,) if weights is None else (out, weights)
    compare(make, inputs, run, graphs=False)
    for lib in (al, torch):                           # the outputs' grad_fn names
        torch.manual_seed(0)
        layer = make(lib.nn).double()
        xs = [lib.tensor(a, requires_grad=True) for a in inputs]
        _LIB[0] = lib
        with math_path():
            out, weights = call(layer, *xs)
        if lib is al:
            names = (out.grad_fn.name(), weights is None or weights.grad_fn.name())
        else:
            assert names == (out.grad_fn.name(), weights is None or weights.grad_fn.name())


def test_multihead_attention_in_eval_mode_drops_nothing_and_in_training_drops():
    al.manual_seed(0)
    layer = al.nn.MultiheadAttention(4, 2, dropout=0.5).double()
    x = al.tensor(X)
    train = layer(x, x, x)[1].detach().numpy()
    eval_ = layer.eval()(x, x, x)[1].detach().numpy()
    assert np.allclose(eval_.sum(-1), 1) and not np.allclose(train, eval_)


def test_multihead_attention_draws_its_weights_as_torch_does():
    """Xavier-uniform in_proj_weight (bound √(6 / (E + 3E))), zero biases, out_proj as a
    Linear's weights, Xavier-normal bias_k and bias_v."""
    al.manual_seed(0)
    layer = al.nn.MultiheadAttention(8, 2, add_bias_kv=True)
    w = layer.in_proj_weight.detach().numpy()
    bound = np.sqrt(6 / (8 + 24))
    assert np.abs(w).max() <= bound and w.std() > bound / 3
    assert not layer.in_proj_bias.detach().numpy().any() and not layer.out_proj.bias.detach().numpy().any()
    assert np.abs(layer.out_proj.weight.detach().numpy()).max() <= 1 / np.sqrt(8)
    assert layer.bias_k.shape == (1, 1, 8) and layer.bias_k.detach().numpy().std() > 0


MODULES = {
    "MultiheadAttention": _mha(8, 2),
    "MultiheadAttention, options": _mha(8, 4, dropout=0.1, bias=False, add_bias_kv=True, kdim=3, vdim=5,
                                        batch_first=True),
}


@pytest.mark.parametrize("case", list(MODULES))
def test_attention_layers_print_and_hold_parameters_as_torchs(case):
    ours, theirs = MODULES[case](al.nn), MODULES[case](torch.nn)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]


REFUSED = {
    "sdpa, dtypes": lambda L: L.nn.functional.scaled_dot_product_attention(L.ones(2, 3, 4), L.ones(2, 3, 4).double(),
                                                                           L.ones(2, 3, 4)),
    "sdpa, vectors": lambda L: L.nn.functional.scaled_dot_product_attention(L.ones(4), L.ones(4), L.ones(4)),
    "sdpa, mask and causal": lambda L: L.nn.functional.scaled_dot_product_attention(
        L.ones(2, 3, 4), L.ones(2, 3, 4), L.ones(2, 3, 4), attn_mask=L.ones(3, 3), is_causal=True),
    "sdpa, an integer mask": lambda L: L.nn.functional.scaled_dot_product_attention(
        L.ones(2, 3, 4), L.ones(2, 3, 4), L.ones(2, 3, 4), attn_mask=L.ones(3, 3, dtype=L.int64)),
    "sdpa, a double mask": lambda L: L.nn.functional.scaled_dot_product_attention(
        L.ones(2, 3, 4), L.ones(2, 3, 4), L.ones(2, 3, 4), attn_mask=L.ones(3, 3, dtype=L.float64)),
    "sdpa, dropout 1.5": lambda L: L.nn.functional.scaled_dot_product_attention(
        L.ones(2, 3, 4), L.ones(2, 3, 4), L.ones(2, 3, 4), dropout_p=1.5),
    "sdpa, integers": lambda L: L.nn.functional.scaled_dot_product_attention(
        *(L.ones(2, 3, 4, dtype=L.int64) for _ in range(3))),
    "MultiheadAttention, heads": lambda L: L.nn.MultiheadAttention(5, 2),
    "MultiheadAttention, no heads": lambda L: L.nn.MultiheadAttention(4, 0),
    "MultiheadAttention, a 4-d query": lambda L: L.nn.MultiheadAttention(4, 2)(*(L.ones(1, 3, 2, 4),) * 3),
    "MultiheadAttention, a 2-d key": lambda L: L.nn.MultiheadAttention(4, 2)(L.ones(3, 2, 4), L.ones(3, 4),
                                                                             L.ones(3, 4)),
    "MultiheadAttention, embedding": lambda L: L.nn.MultiheadAttention(4, 2)(*(L.ones(3, 2, 5),) * 3),
    "MultiheadAttention, key and value": lambda L: L.nn.MultiheadAttention(4, 2)(L.ones(3, 2, 4), L.ones(5, 2, 4),
                                                                                 L.ones(4, 2, 4)),
    "MultiheadAttention, a 2-d mask's shape": lambda L: L.nn.MultiheadAttention(4, 2)(
        *(L.ones(3, 2, 4),) * 3, attn_mask=L.ones(3, 4)),
    "MultiheadAttention, a 3-d mask's shape": lambda L: L.nn.MultiheadAttention(4, 2)(
        *(L.ones(3, 2, 4),) * 3, attn_mask=L.ones(2, 3, 3)),
    "MultiheadAttention, a 4-d mask": lambda L: L.nn.MultiheadAttention(4, 2)(
        *(L.ones(3, 2, 4),) * 3, attn_mask=L.ones(1, 2, 3, 3)),
    "MultiheadAttention, an integer mask": lambda L: L.nn.MultiheadAttention(4, 2)(
        *(L.ones(3, 2, 4),) * 3, attn_mask=L.ones(3, 3, dtype=L.int64)),
    "MultiheadAttention, the padding mask's batch": lambda L: L.nn.MultiheadAttention(4, 2)(
        *(L.ones(3, 2, 4),) * 3, key_padding_mask=L.ones(3, 3, dtype=L.bool)),
    "MultiheadAttention, a 3-d padding mask": lambda L: L.nn.MultiheadAttention(4, 2)(
        *(L.ones(3, 2, 4),) * 3, key_padding_mask=L.ones(2, 3, 1, dtype=L.bool)),
    "MultiheadAttention, causal without a mask": lambda L: L.nn.MultiheadAttention(4, 2)(
        *(L.ones(3, 2, 4),) * 3, is_causal=True),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_attention_refuses_what_torch_refuses_in_its_words(case):
    ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and ours == theirs


def test_masks_of_mismatched_types_warn_as_torch():
    texts = []
    for lib in (al, torch):
        layer = lib.nn.MultiheadAttention(4, 2)
        x = lib.ones(3, 2, 4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer(x, x, x, key_padding_mask=lib.zeros(2, 3, dtype=lib.bool), attn_mask=lib.zeros(3, 3))
        texts.append([str(w.message) for w in caught])
    assert texts[0] == texts[1] and texts[0]


# -- the Transformer's layers (they hold LayerNorm and ModuleList, from al.nn) -----------------------
def _has(name):
    try:
        return getattr(al.nn, name) is not None
    except Exception:     # noqa: BLE001  (a missing name may say so in its own words)
        return False


needs_layer_norm = pytest.mark.skipif(not (_has("LayerNorm") and _has("ModuleList")),
                                      reason="the Transformer's layers need al.nn.LayerNorm and al.nn.ModuleList")

TRANSFORMERS = {   # name: (make, call(layer, *inputs), inputs)
    "encoder layer": (lambda nn: nn.TransformerEncoderLayer(4, 2, 8), lambda m, x: m(x), [X]),
    "encoder layer, norm first, gelu, batch_first": (
        lambda nn: nn.TransformerEncoderLayer(4, 2, 8, activation="gelu", norm_first=True, batch_first=True),
        lambda m, x: m(x), [X.transpose(1, 0, 2).copy()]),
    "encoder layer, masks": (lambda nn: nn.TransformerEncoderLayer(4, 2, 6),
                             lambda m, x: m(x, src_mask=CAUSAL(x), src_key_padding_mask=MASK("key_padding_mask")[:, :3]),
                             [X]),
    "encoder": (lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8), 2, nn.LayerNorm(4)),
                lambda m, x: m(x, mask=CAUSAL(x)), [X]),
    "decoder layer": (lambda nn: nn.TransformerDecoderLayer(4, 2, 8),
                      lambda m, x, y: m(x, y, tgt_mask=CAUSAL(x), tgt_is_causal=True), [X, MEMORY]),
    "decoder, norm first": (lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, 8, norm_first=True), 2),
                            lambda m, x, y: m(x, y, memory_key_padding_mask=MASK("key_padding_mask")), [X, MEMORY]),
    "transformer": (lambda nn: nn.Transformer(4, 2, 1, 2, 8),
                    lambda m, x, y: m(y, x, tgt_mask=CAUSAL(x)), [X, MEMORY]),
}


@needs_layer_norm
@pytest.mark.parametrize("case", list(TRANSFORMERS))
def test_transformer_layers_match_torch_in_eval_mode_with_torchs_weights(case):
    make, call, inputs = TRANSFORMERS[case]

    def run(layer, *xs):
        _LIB[0] = al if isinstance(xs[0], al.Tensor) else torch
        with math_path():
            return call(layer.eval(), *xs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")              # (torch's nested-tensor note: tested below)
        compare(make, inputs, run, graphs=False)


@needs_layer_norm
@pytest.mark.parametrize("case", list(TRANSFORMERS))
def test_transformer_layers_print_and_hold_parameters_as_torchs(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = TRANSFORMERS[case][0](al.nn), TRANSFORMERS[case][0](torch.nn)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]


@needs_layer_norm
def test_an_encoders_copies_of_its_layer_start_equal_and_train_apart():
    layer = al.nn.TransformerEncoderLayer(4, 2, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = al.nn.TransformerEncoder(layer, 2)
    first, second = encoder.layers[0], encoder.layers[1]
    assert np.array_equal(first.linear1.weight.detach().numpy(), second.linear1.weight.detach().numpy())
    assert first.linear1.weight is not second.linear1.weight is not layer.linear1.weight
    with al.no_grad():
        first.linear1.weight.add_(1)
    assert not np.array_equal(first.linear1.weight.detach().numpy(), second.linear1.weight.detach().numpy())


@needs_layer_norm
def test_an_encoder_warns_as_torch_that_its_nested_tensor_path_is_off():
    texts = []
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 2, 8), 2)
        texts.append([str(w.message) for w in caught])
    assert texts[0] == texts[1] and "enable_nested_tensor is True" in texts[0][0]


def test_the_square_subsequent_mask_is_torchs():
    ours = al.nn.Transformer.generate_square_subsequent_mask(4)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert ours.dtype == al.float32 and ours.tolist() == theirs.tolist()


@needs_layer_norm
def test_a_transformers_activation_must_be_relu_or_gelu_as_torchs():
    assert error_of(lambda: al.nn.TransformerEncoderLayer(4, 2, activation="tanh")) == \
        error_of(lambda: torch.nn.TransformerEncoderLayer(4, 2, activation="tanh"))


def test_graph_of_attention_ends_as_torchs():
    """The output's node and the weights' (the graph inside differs where torch calls bmm
    and baddbmm: autograd_lab's matmul records one node for a batch of products)."""
    names = []
    for lib in (al, torch):
        torch.manual_seed(0)
        layer = lib.nn.MultiheadAttention(4, 2).double()
        x = lib.tensor(X, requires_grad=True)
        out, weights = layer(x, x, x)
        names.append((graph_of(out)[-1][0], graph_of(weights)[-1][0]))
    assert names[0] == names[1] == ("ViewBackward0", "MeanBackward1")


def test_attention_under_vmap_equals_one_sample_at_a_time():
    """Each row attention is built from has a batch rule: vmap over samples equals a loop
    (and its per-sample gradients equal each sample's own)."""
    q, k, v = (al.tensor(rng.standard_normal((4, 2, 3, 2))) for _ in range(3))
    f = lambda q, k, v: al.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)   # noqa: E731
    batched = al.vmap(f)(q, k, v)
    assert np.allclose(batched.numpy(), al.stack([f(q[i], k[i], v[i]) for i in range(4)]).numpy())
    al.manual_seed(0)
    layer = al.nn.MultiheadAttention(2, 1).double()
    params = {n: p.detach() for n, p in layer.named_parameters()}
    loss = lambda p, x: al.func.functional_call(layer, p, (x, x, x))[0].tanh().sum()   # noqa: E731
    grads = al.vmap(al.func.grad(loss), in_dims=(None, 0))(params, q)
    for i in range(4):
        one = al.func.grad(loss)(params, q[i])
        assert all(np.allclose(grads[n].numpy()[i], one[n].numpy()) for n in params)


def test_a_query_with_every_key_masked_is_nan_in_multihead_attention_and_zero_in_sdpa():
    """Chapter 02b's claim: nn.MultiheadAttention still gives NaN for a query whose every
    key is masked (PyTorch issue #41508), in torch 2.13 as here; the fused
    scaled_dot_product_attention gives that row zeros."""
    x = rng.standard_normal((1, 3, 4))
    for lib in (al, torch):
        lib.manual_seed(0)
        attention = lib.nn.MultiheadAttention(4, 1, batch_first=True)
        out, _ = attention(*[lib.tensor(x, dtype=lib.float32)] * 3,
                           key_padding_mask=lib.tensor([[True, True, True]]))
        assert np.isnan(out.detach().numpy()).all(), lib.__name__
        q = lib.tensor(x, dtype=lib.float32)
        row = lib.nn.functional.scaled_dot_product_attention(
            q, q, q, attn_mask=lib.zeros(3, 3, dtype=lib.bool))
        assert (row.detach().numpy() == 0).all(), lib.__name__
