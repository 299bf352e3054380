"""Training pieces against torch: losses (values, gradients, second derivatives, options,
refusals), modules (printed forms, parameters, indexing) and optimizers (the same steps)."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402

rng = np.random.default_rng(0)
LOGITS, PROBS = rng.normal(size=(4, 3)), rng.uniform(0.05, 0.95, size=(4, 3))
LABELS, BITS = rng.integers(0, 3, 4), rng.integers(0, 2, (4, 3)).astype(float)
SOFT = rng.dirichlet(np.ones(3), 4)
LOSSES = {   # (make the loss from lib and the input x, input values)
    "mse_loss": (lambda L, x: L.nn.functional.mse_loss(x, L.tensor(PROBS)), LOGITS),
    "mse_loss, sum": (lambda L, x: L.nn.functional.mse_loss(x, L.tensor(PROBS), reduction="sum"), LOGITS),
    "mse_loss, weight": (lambda L, x: L.nn.functional.mse_loss(x, L.tensor(PROBS), weight=L.tensor(BITS)), LOGITS),
    "binary_cross_entropy": (lambda L, x: L.nn.functional.binary_cross_entropy(x, L.tensor(BITS)), PROBS),
    "binary_cross_entropy, weight, none": (lambda L, x: L.nn.functional.binary_cross_entropy(
        x, L.tensor(BITS), weight=L.tensor([1.0, 2.0, 0.5], dtype=L.float64), reduction="none"), PROBS),
    "binary_cross_entropy_with_logits": (lambda L, x: L.nn.functional.binary_cross_entropy_with_logits(
        x, L.tensor(BITS)), LOGITS),
    "binary_cross_entropy_with_logits, pos_weight": (lambda L, x: L.nn.functional.binary_cross_entropy_with_logits(
        x, L.tensor(BITS), pos_weight=L.tensor([1.0, 3.0, 0.5], dtype=L.float64)), LOGITS * 5),
    "cross_entropy": (lambda L, x: L.nn.functional.cross_entropy(x, L.tensor(LABELS)), LOGITS),
    "cross_entropy, weight, sum": (lambda L, x: L.nn.functional.cross_entropy(
        x, L.tensor(LABELS), weight=L.tensor([0.2, 1.0, 3.0], dtype=L.float64), reduction="sum"), LOGITS),
    "cross_entropy, ignore_index": (lambda L, x: L.nn.functional.cross_entropy(
        x, L.tensor(LABELS), ignore_index=int(LABELS[0])), LOGITS),
    "cross_entropy, label_smoothing": (lambda L, x: L.nn.functional.cross_entropy(
        x, L.tensor(LABELS), label_smoothing=0.1), LOGITS),
    "cross_entropy, probabilities": (lambda L, x: L.nn.functional.cross_entropy(x, L.tensor(SOFT)), LOGITS),
    "cross_entropy, one sample": (lambda L, x: L.nn.functional.cross_entropy(x[0], L.tensor(LABELS[0])), LOGITS),
    "cross_entropy, a class per pixel": (lambda L, x: L.nn.functional.cross_entropy(
        x.reshape(2, 3, 2), L.tensor(LABELS.reshape(2, 2))), LOGITS),
    "nll_loss, none": (lambda L, x: L.nn.functional.nll_loss(x.log_softmax(1), L.tensor(LABELS), reduction="none"),
                       LOGITS),
    "CrossEntropyLoss": (lambda L, x: L.nn.CrossEntropyLoss()(x, L.tensor(LABELS)), LOGITS),
    "BCELoss": (lambda L, x: L.nn.BCELoss()(x, L.tensor(BITS)), PROBS),
    "BCEWithLogitsLoss": (lambda L, x: L.nn.BCEWithLogitsLoss(reduction="sum")(x, L.tensor(BITS)), LOGITS),
    "MSELoss": (lambda L, x: L.nn.MSELoss()(x, L.tensor(PROBS)), LOGITS),
    "NLLLoss": (lambda L, x: L.nn.NLLLoss()(L.nn.LogSoftmax(dim=1)(x), L.tensor(LABELS)), LOGITS),
}


@pytest.mark.parametrize("case", list(LOSSES))
def test_losses_match_torch_in_value_gradient_and_second_derivative(case):
    make, values = LOSSES[case]
    results = []
    for lib in (al, torch):
        x = lib.tensor(values, requires_grad=True)
        loss = make(lib, x)
        seed = lib.tensor(np.linspace(0.5, 1.5, loss.numel()).reshape(tuple(loss.shape)))
        g, = lib.autograd.grad(loss, x, seed, create_graph=True)
        h, = lib.autograd.grad((g * g).sum(), x)
        results.append((loss.detach().numpy(), g.detach().numpy(), h.numpy(), loss.grad_fn.name()))
        assert lib.autograd.gradcheck(lambda x: make(lib, x), (x,))
    (v, g, h, name), (tv, tg, th, tname) = results
    assert np.allclose(v, tv) and np.allclose(g, tg) and np.allclose(h, th)
    assert name == tname or case.startswith("cross_entropy, ") and "indices" not in case


@pytest.mark.parametrize("case", ["mse_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                                  "cross_entropy"])
def test_losses_push_tangents_as_torchs_forward_ad(case):
    make, values = LOSSES[case]
    tangents = []
    for lib in (al, torch):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(lib.tensor(values), lib.tensor(np.cos(values)))
            tangents.append(fwAD.unpack_dual(make(lib, x)).tangent.numpy())
    assert np.allclose(*tangents)


REFUSED = {
    "a class out of range": lambda L: L.nn.functional.cross_entropy(L.zeros(3, 4), L.tensor([0, 1, 5])),
    "a negative class": lambda L: L.nn.functional.cross_entropy(L.zeros(3, 4), L.tensor([0, 1, -1])),
    "batch sizes differ": lambda L: L.nn.functional.cross_entropy(L.zeros(3, 4), L.tensor([0, 1])),
    "int32 classes": lambda L: L.nn.functional.cross_entropy(L.zeros(3, 4), L.tensor([0, 1, 2], dtype=L.int32)),
    "float classes for nll_loss": lambda L: L.nn.functional.nll_loss(L.zeros(3, 4), L.tensor([0.0, 1, 2])),
    "a reduction that is not one": lambda L: L.nn.functional.cross_entropy(L.zeros(3, 4), L.tensor([0, 1, 2]),
                                                                           reduction="avg"),
    "label_smoothing above 1": lambda L: L.nn.functional.cross_entropy(L.zeros(3, 4), L.tensor([0, 1, 2]),
                                                                       label_smoothing=1.5),
    "a probability above 1": lambda L: L.nn.functional.binary_cross_entropy(L.tensor([0.5, 1.2]), L.tensor([1.0, 0.0])),
    "BCE targets of another size": lambda L: L.nn.functional.binary_cross_entropy(L.tensor([0.5, 0.2]),
                                                                                  L.tensor([[1.0, 0.0]])),
    "BCE with logits, targets of another size": lambda L: L.nn.functional.binary_cross_entropy_with_logits(
        L.tensor([0.5, 0.2]), L.tensor([[1.0, 0.0]])),
    "SGD, a negative learning rate": lambda L: L.optim.SGD([L.ones(1, requires_grad=True)], lr=-1),
    "SGD, Nesterov without momentum": lambda L: L.optim.SGD([L.ones(1, requires_grad=True)], lr=0.1, nesterov=True),
    "Adam, a beta of 1": lambda L: L.optim.Adam([L.ones(1, requires_grad=True)], betas=(1.0, 0.9)),
    "Adam, a negative eps": lambda L: L.optim.Adam([L.ones(1, requires_grad=True)], eps=-1),
    "an empty parameter list": lambda L: L.optim.SGD([], lr=0.1),
    "a tensor for params": lambda L: L.optim.Adam(L.ones(2, requires_grad=True)),
    "a non-leaf to optimize": lambda L: L.optim.SGD([L.ones(1, requires_grad=True) * 2], lr=0.1),
    "a module without forward": lambda L: L.nn.Module()(1),
    "a parameter before __init__": lambda L: _assign_too_early(L),
}


def _assign_too_early(L):
    class Early(L.nn.Module):
        def __init__(self):
            self.w = L.nn.Parameter(L.ones(2))
    Early()


@pytest.mark.parametrize("case", list(REFUSED))
def test_training_pieces_refuse_what_torch_refuses_in_its_words(case):
    ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and ours == theirs


def test_mse_loss_broadcasts_targets_of_another_size_with_torchs_warning():
    said = []
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = lib.nn.functional.mse_loss(lib.tensor([[0.5], [0.2]]), lib.tensor([1.0, 0.0]))
        said.append((round(loss.item(), 6), [str(w.message) for w in caught]))
    assert said[0] == said[1]


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss"])
def test_a_loss_broadcasts_its_sides_before_it_promotes_as_torch(loss):
    """torch broadcasts input and target first: a 0-dim float64 target then counts in full,
    and the loss is float64 (a 0-dim tensor alone would not promote a float32 input)."""
    said = []
    for lib in (al, torch):
        x = lib.tensor([0.5, -1.0, 2.0, 4.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = getattr(lib.nn.functional, loss)(x, lib.tensor(1.5, dtype=lib.float64))
        out.backward()
        said.append((str(out.dtype).split(".")[-1], round(out.item(), 6), out.grad_fn.name(),
                     str(x.grad.dtype).split(".")[-1], x.grad.tolist()))
    assert said[0] == said[1]


def test_bce_with_logits_writes_its_loss_in_the_targets_dtype_as_torch():
    said = []
    for L in (al, torch):
        x = L.tensor([[-2.0, -0.4, 0.8], [1.2, 2.0, 0.0]], dtype=L.float64, requires_grad=True)
        t = L.tensor([[0.0, 0.2, 0.4], [0.6, 0.8, 1.0]], dtype=L.float32, requires_grad=True)
        for options in ({}, {"reduction": "none"}, {"pos_weight": L.full((3,), 2.0)}):
            loss = L.nn.functional.binary_cross_entropy_with_logits(x, t, **options)
            x.grad = t.grad = None
            loss.sum().backward()
            said.append((str(loss.dtype).split(".")[-1], round(loss.sum().item(), 4), str(x.grad.dtype),
                         str(t.grad.dtype), np.round(x.grad.numpy(), 4).tolist()))
        said.append(str(L.nn.functional.binary_cross_entropy_with_logits(t, x.detach()).dtype))
    half = len(said) // 2
    assert [str(s).replace("torch.", "al.") for s in said[half:]] == [str(s) for s in said[:half]]


def _network(L):
    class NeuralNetwork(L.nn.Module):       # "Build the Neural Network", smaller
        def __init__(self):
            super().__init__()
            self.flatten = L.nn.Flatten()
            self.stack = L.nn.Sequential(L.nn.Linear(6, 5), L.nn.ReLU(), L.nn.Linear(5, 3, bias=False),
                                         L.nn.Softmax(dim=1))

        def forward(self, x):
            return self.stack(self.flatten(x))
    return NeuralNetwork()


def test_modules_print_and_list_their_parameters_as_torchs():
    said = []
    for lib in (al, torch):
        model = _network(lib).to("cpu")
        model.eval()
        flags = [m.training for m in model.modules()]
        model.train()
        said.append((repr(model), [(n, tuple(p.shape)) for n, p in model.named_parameters()],
                     [type(m).__name__ for m in model.stack], repr(model.stack[0]), len(model.stack),
                     repr(model.stack[1:3]), [n for n, _ in model.named_children()], flags,
                     isinstance(model.stack[0].weight, lib.nn.Parameter), isinstance(lib.ones(1), lib.nn.Parameter),
                     repr(lib.nn.Parameter(lib.ones(2))), repr(lib.nn.Identity()), repr(lib.nn.ReLU(inplace=True)),
                     tuple(model(lib.ones(2, 2, 3)).shape), model.double().stack[0].weight.dtype == lib.float64))
    assert said[0] == said[1]


OPTIMIZERS = {
    "SGD": lambda L, p: L.optim.SGD(p, lr=0.1),
    "SGD, momentum and weight decay": lambda L, p: L.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=1e-2),
    "SGD, Nesterov, maximize": lambda L, p: L.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, maximize=True),
    "SGD, dampening": lambda L, p: L.optim.SGD(p, lr=0.05, momentum=0.5, dampening=0.3),
    "Adam": lambda L, p: L.optim.Adam(p, lr=0.01),
    "Adam, weight decay, amsgrad": lambda L, p: L.optim.Adam(p, lr=0.01, weight_decay=0.1, amsgrad=True),
    "Adam, decoupled weight decay": lambda L, p: L.optim.Adam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
    "param groups": lambda L, p: L.optim.SGD([{"params": p[:2], "lr": 0.3}, {"params": p[2:]}], lr=0.1, momentum=0.5),
}


@pytest.mark.parametrize("case", list(OPTIMIZERS))
def test_optimizers_take_torchs_steps(case):
    runs = []
    for lib in (al, torch):
        data = np.random.default_rng(1)
        X, y = lib.tensor(data.normal(size=(8, 4)), dtype=lib.float32), lib.tensor(data.integers(0, 3, 8))
        model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 3))
        with lib.no_grad():
            for p in model.parameters():
                p.copy_(lib.tensor(data.uniform(-0.5, 0.5, tuple(p.shape)), dtype=lib.float32))
        optimizer = OPTIMIZERS[case](lib, list(model.parameters()))
        losses = []
        for step in range(15):
            optimizer.zero_grad(set_to_none=step % 2 == 0)
            loss = lib.nn.functional.cross_entropy(model(X), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        runs.append((losses, [p.detach().numpy() for p in model.parameters()], repr(optimizer)))
    (losses, params, text), (t_losses, t_params, t_text) = runs
    assert np.allclose(losses, t_losses, atol=1e-6) and all(np.allclose(a, b, atol=1e-6) for a, b in zip(params, t_params))
    assert text == t_text


def test_zero_grad_sets_to_none_or_to_zeros_as_torch():
    for lib in (al, torch):
        w = lib.ones(2, requires_grad=True)
        optimizer = lib.optim.SGD([w], lr=0.1)
        (w * 3).sum().backward()
        optimizer.zero_grad(set_to_none=False)
        assert w.grad.tolist() == [0.0, 0.0]
        optimizer.zero_grad()
        assert w.grad is None


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_loss_matches_torch_in_value_gradient_and_grad_fn(reduction):
    """(Its second derivative is zero: torch gives a ZeroTensor, which has no NumPy form.)"""
    rng = np.random.default_rng(0)
    values, t = rng.standard_normal((2, 3, 4))
    results = []
    for lib in (al, torch):
        x = lib.tensor(values, requires_grad=True)
        loss = lib.nn.L1Loss(reduction=reduction)(x, lib.tensor(t))
        loss.sum().backward()
        results.append((loss.detach().numpy(), x.grad.numpy(), loss.grad_fn.name()))
    (v, g, name), (tv, tg, tname) = results
    assert np.allclose(v, tv) and np.allclose(g, tg) and name == tname


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_weighted_l1_loss_matches_torch(reduction):
    rng = np.random.default_rng(1)
    x, t, w = rng.standard_normal((3, 2, 3))
    ours, theirs = (L.nn.functional.l1_loss(L.tensor(x), L.tensor(t), reduction=reduction, weight=L.tensor(w ** 2))
                    for L in (al, torch))
    assert np.allclose(ours.numpy(), theirs.numpy())


# -- state_dict and load_state_dict ---------------------------------------------------------------
def _net(nn):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2))
            self.head = nn.Linear(2 * 3 * 3, 3)
            self.register_buffer("scale", nn.Parameter(nn.Linear(1, 1).weight.detach()[0] * 0 + 2).detach())
            self.register_buffer("scratch", nn.Linear(1, 1).weight.detach()[0], persistent=False)

        def forward(self, x):
            return self.head(self.features(x).flatten(1)) * self.scale
    return Net()


def test_state_dict_names_and_orders_parameters_and_buffers_as_torch():
    ours, theirs = _net(al.nn).state_dict(), _net(torch.nn).state_dict()
    assert type(ours).__name__ == "OrderedDict"
    assert [(k, tuple(v.shape)) for k, v in ours.items()] == [(k, tuple(v.shape)) for k, v in theirs.items()]
    assert ours._metadata == theirs._metadata
    assert not any(v.requires_grad for v in ours.values())
    assert all(v.requires_grad for k, v in _net(al.nn).state_dict(keep_vars=True).items() if k != "scale")
    assert list(_net(al.nn).state_dict(prefix="model.")) == list(_net(torch.nn).state_dict(prefix="model."))


def test_a_state_dict_round_trip_reproduces_torchs_model():
    theirs, ours = _net(torch.nn), _net(al.nn)
    weights = ours.head.weight
    loaded = ours.load_state_dict({k: al.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert repr(loaded) == "<All keys matched successfully>" and loaded.missing_keys == []
    assert ours.head.weight is weights                     # copied into the same parameters
    x = np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32)
    assert np.allclose(ours(al.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(), atol=1e-6)
    again = _net(al.nn)
    again.load_state_dict(ours.state_dict())
    assert np.array_equal(again(al.tensor(x)).detach().numpy(), ours(al.tensor(x)).detach().numpy())


def test_a_state_dict_shares_memory_and_assign_replaces_parameters_as_torch():
    for lib in (al, torch):
        layer = lib.nn.Linear(2, 1)
        saved = layer.state_dict()
        with lib.no_grad():
            layer.weight.mul_(0)
        assert saved["weight"].abs().sum().item() == 0     # (detached, not copied)
        new = {"weight": lib.ones(1, 2), "bias": lib.zeros(1)}
        layer.load_state_dict(new, assign=True)
        assert isinstance(layer.weight, lib.nn.Parameter) and layer.weight.requires_grad
        assert layer.weight.tolist() == [[1.0, 1.0]]


def _wrong_state(L, change):
    net = _net(L.nn)
    state = dict(net.state_dict())
    change(state, L)
    return net.load_state_dict(state)


LOAD_CASES = {
    "a missing key": lambda s, L: s.pop("head.bias"),
    "an unexpected key": lambda s, L: s.update({"head.extra": L.zeros(1), "other": L.zeros(1)}),
    "a size mismatch": lambda s, L: s.update({"features.0.weight": L.zeros(2, 1, 2, 2)}),
    "all three": lambda s, L: (s.pop("scale"), s.update({"x": L.zeros(1), "head.weight": L.zeros(1)})),
    "not a tensor": lambda s, L: s.update({"head.bias": [0.0, 0.0, 0.0]}),
}


@pytest.mark.parametrize("case", list(LOAD_CASES))
def test_load_state_dict_refuses_with_torchs_words(case):
    ours = error_of(lambda: _wrong_state(al, LOAD_CASES[case]))
    theirs = error_of(lambda: _wrong_state(torch, LOAD_CASES[case]))
    assert theirs[0] is not None and ours == theirs


def test_load_state_dict_not_strict_returns_the_keys_as_torch():
    def load(L):
        net = _net(L.nn)
        state = dict(net.state_dict())
        state.pop("head.bias")
        state["features.9.weight"] = L.zeros(1)
        return net.load_state_dict(state, strict=False)
    assert repr(load(al)) == repr(load(torch))
    assert error_of(lambda: al.nn.Linear(1, 1).load_state_dict([1])) == \
        error_of(lambda: torch.nn.Linear(1, 1).load_state_dict([1]))


BUFFER_REFUSALS = {
    "a name taken": lambda L, m: m.register_buffer("lin", L.zeros(1)),
    "a dotted name": lambda L, m: m.register_buffer("a.b", L.zeros(1)),
    "an empty name": lambda L, m: m.register_buffer("", L.zeros(1)),
    "not a tensor": lambda L, m: m.register_buffer("z", 3),
    "assigning a number": lambda L, m: setattr(m, "running", 3),
}


@pytest.mark.parametrize("case", list(BUFFER_REFUSALS))
def test_buffers_refuse_as_torch(case):
    def attempt(L):
        m = L.nn.Module()
        m.lin = L.nn.Linear(1, 1)
        m.register_buffer("running", L.zeros(2))
        BUFFER_REFUSALS[case](L, m)
    ours, theirs = error_of(lambda: attempt(al)), error_of(lambda: attempt(torch))
    assert theirs[0] is not None and ours == theirs


def test_buffers_are_listed_moved_and_reassigned_as_torchs():
    for lib in (al, torch):
        net = _net(lib.nn)
        assert [n for n, _ in net.named_buffers()] == ["scale", "scratch"]
        net.scale = lib.ones(1)
        assert net.scale.tolist() == [1.0] and "scale" in dict(net.named_buffers())
        net.double()
        assert all(b.dtype == lib.float64 for b in net.buffers())
        del net.scale
        assert "scale" not in net.state_dict()


# -- nn.init -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("scheme, bound_or_std", [
    ("xavier_uniform_", lambda fi, fo: np.sqrt(6 / (fi + fo))),
    ("kaiming_uniform_", lambda fi, fo: np.sqrt(2) * np.sqrt(3 / fi)),
    ("xavier_normal_", lambda fi, fo: np.sqrt(2 / (fi + fo))),
    ("kaiming_normal_", lambda fi, fo: np.sqrt(2) / np.sqrt(fi)),
])
def test_init_schemes_scale_as_torchs(scheme, bound_or_std):
    al.manual_seed(0)
    w = al.nn.Parameter(al.empty(64, 16, 3, 3))
    assert getattr(al.nn.init, scheme)(w) is w and w.grad_fn is None and w.requires_grad
    expected = bound_or_std(16 * 9, 64 * 9)
    values = w.detach().numpy()
    if "uniform" in scheme:
        assert np.abs(values).max() <= expected and np.abs(values).max() > 0.95 * expected
    else:
        assert abs(values.std() / expected - 1) < 0.05


def test_init_gains_and_refusals_are_torchs():
    for args in [("relu",), ("tanh",), ("leaky_relu",), ("leaky_relu", 0.2), ("selu",), ("conv2d",), ("sigmoid",)]:
        assert al.nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    for call in [lambda L: L.nn.init.xavier_uniform_(L.zeros(3)),
                 lambda L: L.nn.init.kaiming_uniform_(L.zeros(3, 3), mode="x"),
                 lambda L: L.nn.init.calculate_gain("foo"),
                 lambda L: L.nn.init.calculate_gain("leaky_relu", "a")]:
        assert error_of(lambda: call(al)) == error_of(lambda: call(torch))
    w = al.ones(2, 2)
    assert al.nn.init.zeros_(w).tolist() == [[0, 0], [0, 0]] and al.nn.init.constant_(w, 3)[0, 0].item() == 3
