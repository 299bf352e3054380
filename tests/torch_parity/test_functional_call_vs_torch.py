"""al.func.functional_call and stack_module_state beside torch.func's: the same outputs,
the same per-sample gradients of a model (PyTorch's per-sample-gradients tutorial,
written with grad over a dict of parameters), the module's own parameters back after
the call (also when it raises), and torch's error texts."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the comparison with "
                                            "torch.func.functional_call is skipped")
import torch.func as tfunc  # noqa: E402

import autograd_lab as al  # noqa: E402

rng = np.random.default_rng(35)
SAMPLES = rng.normal(size=(5, 3))
TARGETS = rng.normal(size=(5, 2))


def models():
    """The same two-layer model in both libraries (torch's weights copied into ours)."""
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    ours = al.nn.Sequential(al.nn.Linear(3, 4), al.nn.Tanh(), al.nn.Linear(4, 2))
    for name, p in list(theirs.named_parameters()):
        setattr(ours[int(name[0])], name.split(".")[1],
                al.nn.Parameter(al.tensor(p.detach().numpy(), dtype=al.float64)))
    return ours, theirs


def as_lib(lib, array):
    return lib.tensor(array, dtype=lib.float64)


def other_params(model, lib):
    """Parameters other than the model's own: each a seeded random tensor of its shape."""
    r = np.random.default_rng(1)
    return {k: as_lib(lib, r.normal(size=tuple(v.shape))) for k, v in model.named_parameters()}


def close(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_the_output_is_torchs_and_the_module_keeps_its_parameters():
    ours, theirs = models()
    before = dict(ours.named_parameters())
    for args in [as_lib(al, SAMPLES), (as_lib(al, SAMPLES),)]:
        got = al.func.functional_call(ours, other_params(ours, al), args)
        close(got, tfunc.functional_call(theirs, other_params(theirs, torch), as_lib(torch, SAMPLES)))
    assert all(p is before[k] for k, p in ours.named_parameters())
    close(ours(as_lib(al, SAMPLES)), theirs(as_lib(torch, SAMPLES)))


def test_a_tuple_of_dicts_and_kwargs_are_torchs():
    class Scaled(al.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = al.nn.Linear(3, 2)

        def forward(self, x, scale=1.0):
            return self.lin(x) * scale
    m = Scaled()
    w, b = al.ones(2, 3, dtype=al.float64), al.zeros(2, dtype=al.float64)
    got = al.func.functional_call(m, ({"lin.weight": w}, {"lin.bias": b}), (as_lib(al, SAMPLES),),
                                  {"scale": 3.0})
    close(got, torch.tensor(SAMPLES).sum(1, keepdim=True).expand(5, 2) * 3)


def per_sample_grads(F, lib, model, params):
    """PyTorch's per-sample-gradients tutorial: grad of a loss of the parameters, one
    sample at a time (the tutorial batches the samples with vmap: the same numbers)."""
    def loss(params, sample, target):
        prediction = F.functional_call(model, params, (sample.unsqueeze(0),))
        return lib.nn.functional.mse_loss(prediction, target.unsqueeze(0))
    each = [F.grad(loss)(params, as_lib(lib, s), as_lib(lib, t)) for s, t in zip(SAMPLES, TARGETS)]
    return {k: lib.stack([g[k] for g in each]) for k in each[0]}


def test_per_sample_gradients_of_a_module_are_torchs():
    ours, theirs = models()
    got = per_sample_grads(al.func, al, ours, {k: v.detach() for k, v in ours.named_parameters()})
    want = per_sample_grads(tfunc, torch, theirs, {k: v.detach() for k, v in theirs.named_parameters()})
    assert list(got) == list(want)
    for k in want:
        close(got[k], want[k])


def test_grad_over_a_dict_a_tuple_and_a_list_keeps_their_shape():
    x = {"a": as_lib(al, [1.0, 2.0]), "b": (as_lib(al, [3.0]), [as_lib(al, [4.0])])}
    g = al.func.grad(lambda p: (p["a"] ** 2).sum() + (p["b"][0] * p["b"][1][0]).sum())(x)
    assert g["a"].tolist() == [2.0, 4.0] and g["b"][0].tolist() == [4.0] and g["b"][1][0].tolist() == [3.0]
    assert isinstance(g["b"], tuple) and isinstance(g["b"][1], list)


def test_stack_module_state_is_torchs():
    pairs = [models() for _ in range(3)]
    params, buffers = al.func.stack_module_state([o for o, _ in pairs])
    tparams, tbuffers = tfunc.stack_module_state([t for _, t in pairs])
    assert list(params) == list(tparams) and buffers == {} == tbuffers
    for k in tparams:
        close(params[k], tparams[k])
        assert params[k].is_leaf and params[k].requires_grad
    assert al.func.functional_call(pairs[0][0], {k: v[0] for k, v in params.items()},
                                   as_lib(al, SAMPLES)).shape == (5, 2)


def error(call):
    with pytest.raises(Exception) as info:
        call()
    return type(info.value).__name__, str(info.value)


def test_the_errors_are_torchs():
    ours, theirs = models()
    for lib, F, model in [(al, al.func, ours), (torch, tfunc, theirs)]:
        x = as_lib(lib, SAMPLES)
        p = other_params(model, lib)
        cases = [lambda: F.functional_call(model, {"0.weight": p["0.weight"]}, x, strict=True),
                 lambda: F.functional_call(model, {**p, "foo": x}, x, strict=True),
                 lambda: F.functional_call(model, ({"0.bias": p["0.bias"]}, p), x),
                 lambda: F.functional_call(model, 3, x),
                 lambda: F.functional_call(model, [p, 3], x),
                 lambda: F.functional_call(model, {"0.weight": 3}, x),
                 lambda: F.functional_call(model, {"5.weight": x}, x),
                 lambda: F.functional_call(model, p, x, {"foo": 1}),
                 lambda: F.stack_module_state([]),
                 lambda: F.grad(lambda q: q["a"].sum())({"a": x, "b": 3})]
        got = [error(c) for c in cases]
        if lib is al:
            mine = got
    # (torch names its own classes: Sequential.forward(), torch.nn.Module)
    assert mine == [(t, m.replace("Sequential.forward()", "Sequential.forward()")) for t, m in got]


def test_the_modules_parameters_come_back_when_the_call_raises():
    class Boom(al.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = al.nn.Linear(2, 2)

        def forward(self, x):
            raise ValueError("boom")
    m = Boom()
    w = m.lin.weight
    with pytest.raises(ValueError, match="boom"):
        al.func.functional_call(m, {"lin.weight": al.zeros(2, 2), "extra": al.ones(1)}, (al.ones(2),))
    assert m.lin.weight is w and not hasattr(m, "extra")
    with pytest.raises(TypeError, match=r"^3 is not an instance of torch\.Tensor$"):
        al.func.functional_call(m, {"lin.bias": al.zeros(2), "lin.weight": 3}, (al.ones(2),))
    assert m.lin.weight is w and m.lin.bias is not None and m.lin.bias.shape == (2,)


def test_tied_weights_as_torch_ties_them():
    def tied(nn, dtype):
        class Tied(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(2, 2, bias=False, dtype=dtype)
                self.b = nn.Linear(2, 2, bias=False, dtype=dtype)
                self.b.weight = self.a.weight

            def forward(self, x):
                return self.b(self.a(x))
        return Tied()
    results = []
    for lib, F in [(al, al.func), (torch, tfunc)]:
        m = tied(lib.nn, lib.float64)
        x, eye = as_lib(lib, [1.0, 2.0]), as_lib(lib, np.eye(2))
        results.append((F.functional_call(m, {"a.weight": eye * 2}, x).tolist(),
                        F.functional_call(m, {"a.weight": eye * 2}, x, tie_weights=False)[0].item() != 4.0,
                        error(lambda: F.functional_call(m, {"a.weight": eye, "b.weight": eye * 2}, x)),
                        F.functional_call(m, {"a.weight": eye, "b.weight": eye * 2}, x,
                                          tie_weights=False).tolist()))
    assert results[0] == results[1]


def test_the_per_sample_gradients_tutorial_runs_as_written_with_vmap():
    """PyTorch's tutorial, line for line (the two-layer model for its CNN): vmap over
    grad of a loss calling functional_call(model, (params, buffers), (batch,))."""
    if not hasattr(al.func, "vmap") or not hasattr(al.nn.Module, "named_buffers"):
        pytest.skip("needs al.func.vmap and Module.named_buffers (other branches of issue 35)")

    pair = models()

    def run(lib, F):
        model = pair[0] if lib is al else pair[1]
        data, targets = as_lib(lib, SAMPLES), lib.tensor([0, 1, 1, 0, 1])

        def loss_fn(predictions, targets):
            return lib.nn.functional.nll_loss(predictions.log_softmax(-1), targets)

        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def compute_loss(params, buffers, sample, target):
            batch = sample.unsqueeze(0)
            targets = target.unsqueeze(0)
            predictions = F.functional_call(model, (params, buffers), (batch,))
            return loss_fn(predictions, targets)

        ft_compute_grad = F.grad(compute_loss)
        ft_compute_sample_grad = F.vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
        return ft_compute_sample_grad(params, buffers, data, targets)

    ours, theirs = run(al, al.func), run(torch, tfunc)
    assert list(ours) == list(theirs)
    for k in theirs:
        close(ours[k], theirs[k])
