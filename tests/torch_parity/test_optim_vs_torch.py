"""Optimizers, learning-rate schedulers and the helpers around a training step against torch:
AdamW, RMSprop and Adagrad take torch's steps; an optimizer's state_dict has torch's
structure and, loaded into a fresh optimizer, continues torch's run; param groups behave
as torch's; each scheduler sets torch's rates over many steps (and saves torch's state);
gradient clipping, parameter vectors and the init schemes."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402


def _model(L, seed=1):
    data = np.random.default_rng(seed)
    model = L.nn.Sequential(L.nn.Linear(4, 5), L.nn.Tanh(), L.nn.Linear(5, 3))
    with L.no_grad():
        for p in model.parameters():
            p.copy_(L.tensor(data.uniform(-0.5, 0.5, tuple(p.shape)), dtype=L.float32))
    X = L.tensor(data.normal(size=(8, 4)), dtype=L.float32)
    y = L.tensor(data.integers(0, 3, 8))
    return model, X, y


def _train(L, model, X, y, optimizer, steps, scheduler=None):
    losses = []
    for step in range(steps):
        optimizer.zero_grad(set_to_none=step % 2 == 0)
        loss = L.nn.functional.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        losses.append(loss.item())
    return losses


OPTIMIZERS = {
    "AdamW": lambda L, p: L.optim.AdamW(p, lr=0.01),
    "AdamW, amsgrad, betas": lambda L, p: L.optim.AdamW(p, lr=0.02, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True),
    "RMSprop": lambda L, p: L.optim.RMSprop(p, lr=0.01),
    "RMSprop, centered, momentum, weight decay": lambda L, p: L.optim.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5,
                                                                             centered=True, weight_decay=0.01),
    "RMSprop, maximize": lambda L, p: L.optim.RMSprop(p, lr=0.005, maximize=True),
    "Adagrad": lambda L, p: L.optim.Adagrad(p, lr=0.1),
    "Adagrad, decay and initial accumulator": lambda L, p: L.optim.Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.01,
                                                                          initial_accumulator_value=0.1),
    "SGD with momentum, two groups": lambda L, p: L.optim.SGD([{"params": p[:2], "lr": 0.3}, {"params": p[2:]}],
                                                               lr=0.1, momentum=0.5),
    "Adam, named parameters": lambda L, p: L.optim.Adam([(f"p{i}", t) for i, t in enumerate(p)], lr=0.01),
}


@pytest.mark.parametrize("case", list(OPTIMIZERS))
def test_optimizers_take_torchs_steps_and_print_as_torchs(case):
    runs = []
    for lib in (al, torch):
        model, X, y = _model(lib)
        optimizer = OPTIMIZERS[case](lib, list(model.parameters()))
        losses = _train(lib, model, X, y, optimizer, 15)
        runs.append((losses, [p.detach().numpy() for p in model.parameters()], repr(optimizer)))
    (losses, params, text), (t_losses, t_params, t_text) = runs
    np.testing.assert_allclose(losses, t_losses, atol=2e-6)
    for a, b in zip(params, t_params):
        np.testing.assert_allclose(a, b, atol=2e-6)
    assert text == t_text


def _structure(value):
    """A state_dict with its tensors as (dtype, shape) and step counts as numbers: what
    must agree exactly."""
    if isinstance(value, dict):
        return {k: _structure(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_structure(v) for v in value)
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return (str(value.dtype).split(".")[-1], tuple(value.shape)) + ((value.item(),) if value.ndim == 0 else ())
    return value


@pytest.mark.parametrize("case", ["AdamW, amsgrad, betas", "RMSprop, centered, momentum, weight decay", "Adagrad",
                                  "SGD with momentum, two groups", "Adam, named parameters"])
def test_a_state_dict_has_torchs_structure_and_resumes_torchs_run(case):
    runs = []
    for lib in (al, torch):
        model, X, y = _model(lib)
        optimizer = OPTIMIZERS[case](lib, list(model.parameters()))
        _train(lib, model, X, y, optimizer, 6)
        saved = optimizer.state_dict()
        fresh = OPTIMIZERS[case](lib, list(model.parameters()))
        with lib.no_grad():                                     # another start, then the saved state
            for group in fresh.param_groups:
                group["lr"] = 123.0
        fresh.load_state_dict(saved)
        losses = _train(lib, model, X, y, fresh, 6)
        state = fresh.state_dict()
        runs.append((_structure(saved), losses, [p.detach().numpy() for p in model.parameters()],
                     [{k: v for k, v in g.items() if k != "params"} for g in fresh.param_groups],
                     [np.asarray(t.numpy()) for s in state["state"].values() for t in s.values()
                      if hasattr(t, "numpy")]))
    ours, theirs = runs
    assert ours[0] == theirs[0] and ours[3] == theirs[3]
    np.testing.assert_allclose(ours[1], theirs[1], atol=2e-6)
    for a, b in zip(ours[2] + ours[4], theirs[2] + theirs[4], strict=True):
        np.testing.assert_allclose(a, b, atol=2e-6)


def test_sgd_without_momentum_keeps_no_state_and_adagrad_keeps_it_from_the_start():
    for lib in (al, torch):
        w = lib.ones(2, requires_grad=True)
        sgd, adagrad = lib.optim.SGD([w], lr=0.1), lib.optim.Adagrad([w], lr=0.1)
        (w * w).sum().backward()
        sgd.step()
        assert sgd.state_dict()["state"] == {}
        assert list(adagrad.state_dict()["state"][0]) == ["step", "sum"]


def test_param_groups_are_the_dicts_given_filled_with_the_defaults_as_in_torch():
    def groups(L):
        a, b, c = (L.ones(2, requires_grad=True) for _ in range(3))
        first = {"params": [a], "lr": 0.5}
        optimizer = L.optim.SGD([first], lr=0.1, momentum=0.9)
        optimizer.add_param_group({"params": b, "weight_decay": 0.1})
        return (first is optimizer.param_groups[0], [list(g) for g in optimizer.param_groups],
                optimizer.state_dict()["param_groups"], repr(optimizer),
                error_of(lambda: optimizer.add_param_group({"params": [a]})),
                error_of(lambda: optimizer.add_param_group({"params": {c}})),
                error_of(lambda: optimizer.add_param_group([c])),
                error_of(lambda: optimizer.add_param_group({"params": [1.0]})),
                error_of(lambda: optimizer.add_param_group({"params": [("name", c)]})))
    ours, theirs = groups(al), groups(torch)
    assert ours[0] and theirs[0]
    assert ours[1:] == theirs[1:]


LOAD_REFUSALS = {
    "another number of groups": lambda L, opt, state: opt.load_state_dict(
        {"state": {}, "param_groups": state["param_groups"] * 2}),
    "a group of another size": lambda L, opt, state: opt.load_state_dict(
        {"state": {}, "param_groups": [dict(state["param_groups"][0], params=[0])]}),
}


@pytest.mark.parametrize("case", list(LOAD_REFUSALS))
def test_load_state_dict_refuses_a_state_of_another_shape_in_torchs_words(case):
    def attempt(L):
        w, v = L.ones(2, requires_grad=True), L.ones(3, requires_grad=True)
        opt = L.optim.Adam([w, v])
        LOAD_REFUSALS[case](L, opt, opt.state_dict())
    ours, theirs = error_of(lambda: attempt(al)), error_of(lambda: attempt(torch))
    assert theirs[0] is not None and ours == theirs


REFUSED = {
    "RMSprop, a negative alpha": lambda L: L.optim.RMSprop([L.ones(1, requires_grad=True)], alpha=-1),
    "RMSprop, a negative momentum": lambda L: L.optim.RMSprop([L.ones(1, requires_grad=True)], momentum=-1),
    "AdamW, a negative learning rate": lambda L: L.optim.AdamW([L.ones(1, requires_grad=True)], lr=-0.1),
    "AdamW, a beta of 1": lambda L: L.optim.AdamW([L.ones(1, requires_grad=True)], betas=(0.9, 1.0)),
    "Adagrad, a negative lr_decay": lambda L: L.optim.Adagrad([L.ones(1, requires_grad=True)], lr_decay=-1),
    "a scheduler of something else": lambda L: L.optim.lr_scheduler.StepLR("optimizer", 3),
    "ReduceLROnPlateau, a factor of 1": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_sgd(L), factor=1.0),
    "ReduceLROnPlateau, an unknown mode": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_sgd(L), mode="up"),
    "ReduceLROnPlateau, verbose (gone from torch)": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_sgd(L),
                                                                                                   verbose=True),
    "LambdaLR, lambdas for other groups": lambda L: L.optim.lr_scheduler.LambdaLR(_sgd(L), [lambda e: 1, lambda e: 2]),
    "a scheduler resumed without initial_lr": lambda L: L.optim.lr_scheduler.StepLR(_sgd(L), 3, last_epoch=4),
    "OneCycleLR without a length": lambda L: L.optim.lr_scheduler.OneCycleLR(_sgd(L), 0.1),
    "OneCycleLR stepped past its end": lambda L: _step(L.optim.lr_scheduler.OneCycleLR(_sgd(L), 0.1, total_steps=3), 4),
    "OneCycleLR, pct_start above 1": lambda L: L.optim.lr_scheduler.OneCycleLR(_sgd(L), 0.1, total_steps=3,
                                                                              pct_start=1.5),
    "CosineAnnealingWarmRestarts, T_0 of 0": lambda L: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(_sgd(L), 0),
    "LinearLR, a start factor of 0": lambda L: L.optim.lr_scheduler.LinearLR(_sgd(L), start_factor=0),
    "SequentialLR, milestones that do not fit": lambda L: L.optim.lr_scheduler.SequentialLR(
        _sgd(L), [L.optim.lr_scheduler.ExponentialLR(_sgd(L), 0.9)], [3]),
}


def _sgd(L):
    return L.optim.SGD([L.ones(1, requires_grad=True)], lr=0.1, momentum=0.9)


def _step(scheduler, n):
    for _ in range(n):
        scheduler.step()


@pytest.mark.parametrize("case", list(REFUSED))
def test_optimizers_and_schedulers_refuse_what_torch_refuses_in_its_words(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and ours == theirs


# -- schedulers ------------------------------------------------------------------------------
class Warmup:
    """A schedule as an object (its state is saved in a state_dict, unlike a function's)."""

    def __init__(self, steps):
        self.steps = steps

    def __call__(self, epoch):
        return min(1.0, (epoch + 1) / self.steps)


SCHEDULERS = {
    "LambdaLR": lambda S, o: S.LambdaLR(o, lambda epoch: 0.95 ** epoch),
    "LambdaLR, an object, one per group": lambda S, o: S.LambdaLR(o, [Warmup(5), lambda e: 1 / (1 + e)]),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, lambda epoch: 0.97),
    "StepLR": lambda S, o: S.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.3),
    "ConstantLR": lambda S, o: S.ConstantLR(o, factor=0.25, total_iters=6),
    "LinearLR": lambda S, o: S.LinearLR(o, start_factor=0.1, total_iters=10),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, gamma=0.93),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, T_max=9, eta_min=0.001),
    "CosineAnnealingLR, past T_max": lambda S, o: S.CosineAnnealingLR(o, T_max=4),
    "CosineAnnealingWarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=0.01),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=61),
    "OneCycleLR, three phases, linear": lambda S, o: S.OneCycleLR(o, max_lr=0.8, epochs=6, steps_per_epoch=11,
                                                                  three_phase=True, anneal_strategy="linear"),
    "SequentialLR": lambda S, o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.2, total_iters=5),
                                                    S.CosineAnnealingLR(o, T_max=20)], milestones=[5]),
}


def _comparable(state):
    """A scheduler's state_dict, with its optimizer-independent parts as plain values."""
    return {k: (_comparable(v) if isinstance(v, dict) else
                [_comparable(s) if isinstance(s, dict) else s for s in v] if isinstance(v, list) else v)
            for k, v in state.items()}


@pytest.mark.parametrize("case", list(SCHEDULERS))
def test_schedulers_set_torchs_rates_over_sixty_steps_and_save_torchs_state(case):
    runs = []
    for lib in (al, torch):
        w, v = lib.ones(1, requires_grad=True), lib.ones(1, requires_grad=True)
        optimizer = lib.optim.SGD([{"params": [w]}, {"params": [v], "lr": 0.05}], lr=0.1, momentum=0.9)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scheduler = SCHEDULERS[case](lib.optim.lr_scheduler, optimizer)
            rates, momenta = [], []
            for _ in range(60):
                optimizer.step()
                scheduler.step()
                rates.append(scheduler.get_last_lr())
                momenta.append([g["momentum"] for g in optimizer.param_groups])
        runs.append((rates, momenta, scheduler.last_epoch, _comparable(scheduler.state_dict()),
                     [g["lr"] for g in optimizer.param_groups], sorted(optimizer.param_groups[0])))
    (rates, momenta, last, state, lrs, keys), (t_rates, t_momenta, t_last, t_state, t_lrs, t_keys) = runs
    np.testing.assert_allclose(rates, t_rates, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(momenta, t_momenta, rtol=1e-12)
    assert last == t_last and lrs == pytest.approx(t_lrs, rel=1e-12) and keys == t_keys
    assert state.keys() == t_state.keys()
    for key in state:
        if key != "_schedulers":
            assert state[key] == pytest.approx(t_state[key], rel=1e-12) if isinstance(state[key], float) else \
                state[key] == t_state[key], key


def test_reduce_lr_on_plateau_waits_out_its_patience_and_cooldown_as_torchs():
    metrics = [1.0, 0.9, 0.91, 0.92, 0.93, 0.95, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 0.4, 0.41, 0.42, 0.43, 0.44]
    runs = []
    for lib in (al, torch):
        for kwargs in ({"patience": 2}, {"mode": "max", "factor": 0.5, "patience": 1, "cooldown": 2},
                       {"threshold": 0.05, "threshold_mode": "abs", "patience": 0, "min_lr": [0.01, 0.02]}):
            optimizer = lib.optim.SGD([{"params": [lib.ones(1, requires_grad=True)]},
                                       {"params": [lib.ones(1, requires_grad=True)]}], lr=0.1)
            scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **kwargs)
            rates = []
            for m in metrics:
                scheduler.step(lib.tensor(m))
                rates.append(scheduler.get_last_lr())
            runs.append((rates, scheduler.state_dict(), scheduler.num_bad_epochs, scheduler.best))
    for ours, theirs in zip(runs[:3], runs[3:]):
        assert ours == theirs


def test_a_scheduler_stepped_before_the_optimizer_warns_as_torchs():
    said = []
    for lib in (al, torch):
        optimizer = _sgd(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler.step()
            scheduler.step(5)
            scheduler.get_lr()
        said.append(([str(w.message) for w in caught], scheduler.get_last_lr(), scheduler.last_epoch))
    assert said[0] == said[1] and len(said[0][0]) == 3


def test_a_scheduler_state_dict_round_trip_resumes_torchs_schedule():
    runs = []
    for lib in (al, torch):
        optimizer = _sgd(lib)
        S = lib.optim.lr_scheduler
        first = S.OneCycleLR(optimizer, max_lr=1.0, total_steps=40)
        for _ in range(13):
            optimizer.step()
            first.step()
        saved, opt_saved = first.state_dict(), optimizer.state_dict()
        optimizer2 = _sgd(lib)
        second = S.OneCycleLR(optimizer2, max_lr=1.0, total_steps=40)
        optimizer2.load_state_dict(opt_saved)
        second.load_state_dict(saved)
        rates = []
        for _ in range(20):
            optimizer2.step()
            second.step()
            rates.append(second.get_last_lr()[0])
        runs.append(rates)
    np.testing.assert_allclose(*runs, rtol=1e-12)


# -- around a step: clipping, parameter vectors, initialisation -------------------------------------
@pytest.mark.parametrize("norm_type", [2.0, 1, "inf", 3.0])
def test_clip_grad_norm_scales_the_gradients_and_returns_torchs_norm(norm_type):
    got = []
    for lib in (al, torch):
        params = [lib.ones(3, requires_grad=True), lib.ones(2, 2, requires_grad=True), lib.ones(1, requires_grad=True)]
        params[0].grad = lib.tensor([3.0, -4.0, 1.0])
        params[1].grad = lib.tensor([[0.5, 2.0], [-1.0, 0.25]])
        total = lib.nn.utils.clip_grad_norm_(params, max_norm=1.5, norm_type=norm_type)
        got.append((total.item(), total.dtype == lib.float32, [p.grad if p.grad is None else p.grad.tolist()
                                                                for p in params]))
    assert got[0][0] == pytest.approx(got[1][0], rel=1e-6) and got[0][1] and got[1][1]
    for a, b in zip(got[0][2], got[1][2]):
        assert a == b if a is None else np.allclose(a, b, rtol=1e-6)


def test_clip_grad_value_and_parameter_vectors_are_torchs():
    got = []
    for lib in (al, torch):
        model = lib.nn.Linear(3, 2)
        with lib.no_grad():
            model.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
            model.bias.copy_(lib.tensor([7.0, 8.0]))
        model(lib.tensor([[1.0, -2.0, 3.0]])).sum().backward()
        lib.nn.utils.clip_grad_value_(model.parameters(), clip_value=1.5)
        vector = lib.nn.utils.parameters_to_vector(model.parameters())
        lib.nn.utils.vector_to_parameters(vector * 2, model.parameters())
        got.append(([p.grad.tolist() for p in model.parameters()], vector.tolist(), vector.grad_fn.name(),
                    [p.tolist() for p in model.parameters()], error_of(lambda: lib.nn.utils.vector_to_parameters(
                        [1.0], model.parameters())),
                    lib.nn.utils.clip_grad_norm_([], 1.0).item()))
    assert got[0] == got[1]


def test_clip_grad_norm_refuses_a_non_finite_norm_when_asked_and_warns_of_an_empty_generator():
    said = []
    for lib in (al, torch):
        p = lib.ones(2, requires_grad=True)
        p.grad = lib.tensor([float("inf"), 1.0])
        refused = error_of(lambda: lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.utils.clip_grad_norm_((q for q in []), 1.0)
        said.append((refused, [str(w.message) for w in caught]))
    assert said[0] == said[1]


def test_orthogonal_init_gives_orthonormal_rows_or_columns_scaled_by_the_gain():
    al.manual_seed(0)
    for shape in [(4, 6), (6, 4), (3, 2, 2)]:
        w = al.nn.init.orthogonal_(al.empty(*shape), gain=2.0)
        m = w.numpy().reshape(shape[0], -1)
        product = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
        assert np.allclose(product, 4 * np.eye(min(m.shape)), atol=1e-5)
    assert error_of(lambda: al.nn.init.orthogonal_(al.empty(3))) == \
        error_of(lambda: torch.nn.init.orthogonal_(torch.empty(3)))


def test_more_init_schemes_fill_tensors_as_torchs():
    al.manual_seed(0)
    t = al.nn.init.trunc_normal_(al.empty(20000), mean=0.5, std=2.0, a=-1.0, b=1.5).numpy()
    # the truncated normal's mean: 0.5 + 2 (φ(-0.75) - φ(0.5)) / (Φ(0.5) - Φ(-0.75)) = 0.2806
    assert t.min() >= -1.0 and t.max() <= 1.5 and abs(t.mean() - 0.2806) < 0.02
    for scheme, shape in [("eye_", (3, 4)), ("dirac_", (4, 2, 3, 3)), ("ones_", (2, 3)), ("zeros_", (2, 3))]:
        ours = getattr(al.nn.init, scheme)(al.empty(*shape)).numpy()
        theirs = getattr(torch.nn.init, scheme)(torch.empty(*shape)).numpy()
        assert np.array_equal(ours, theirs), scheme
    said = []
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.init.xavier_uniform(lib.empty(3, 3))
        said.append([(w.category.__name__, str(w.message)) for w in caught])
    assert said[0] == said[1]
