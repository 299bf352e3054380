"""al.func.vmap on its own: the same numbers as a loop over the samples, one pass for the
whole batch, the per-sample fallback and its warning, chunk_size, randomness, and what
it refuses."""
import functools
import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab import func, rules, rulebook
from autograd_lab import batching
from autograd_lab.core.modes import state
from autograd_lab.core.recording import Op


def loop(f, *xs):
    return al.stack([f(*[x[i] for x in xs]) for i in range(xs[0].shape[0])])


def mlp(W1, W2, x):
    return ((x @ W1).tanh() @ W2).softmax(-1)


def test_vmap_equals_a_loop_over_the_samples_and_is_one_pass():
    al.manual_seed(0)
    W1, W2, X = al.randn(5, 4), al.randn(4, 3), al.randn(6, 5)
    per_sample = func.vmap(mlp, in_dims=(None, None, 0))
    with al.autograd.count_passes() as passes:
        ys = per_sample(W1, W2, X)
    assert np.allclose(ys.numpy(), loop(lambda x: mlp(W1, W2, x), X).numpy(), atol=1e-6)
    assert passes.forward == 0 and passes.backward == 0      # no transform: plain ops, 6 at once
    grads = func.vmap(func.grad(lambda W1, x: mlp(W1, W2, x)[0]), in_dims=(None, 0))
    with al.autograd.count_passes() as passes:
        g = grads(W1, X)
    assert passes.forward == 1 and passes.backward == 1
    one = func.grad(lambda W1, x: mlp(W1, W2, x)[0])
    assert np.allclose(g.numpy(), loop(lambda x: one(W1, x), X).numpy(), atol=1e-6)


@pytest.fixture
def fresh_warnings(monkeypatch):
    """The fallback warns once per op in a process: forget what other tests saw."""
    monkeypatch.setattr(batching, "_warned", set())


def test_an_op_without_a_batch_rule_runs_once_per_sample_and_says_so_once(fresh_warnings):
    flip = Op("FlipBackward0", lambda x: np.flip(x, -1).copy())     # a row with no batch rule
    al.manual_seed(1)
    X = al.randn(4, 2, 3)
    with pytest.warns(UserWarning, match="batching rule for FlipBackward0"):
        ys = func.vmap(flip)(X)
    assert np.allclose(ys.numpy(), loop(flip, X).numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")                        # the second time: no warning
        func.vmap(flip)(X)


def test_a_function_that_reads_numbers_runs_once_per_sample(fresh_warnings):
    """cross_entropy with label smoothing reads its class indices in Python: batched
    targets, one call each."""
    al.manual_seed(2)
    X, T = al.randn(4, 2, 3), al.tensor([[2, 0], [1, 1], [0, 2], [2, 2]])
    f = functools.partial(al.nn.functional.cross_entropy, label_smoothing=0.1)
    with pytest.warns(UserWarning, match="batching rule for cross_entropy"):
        ys = func.vmap(f)(X, T)
    assert np.allclose(ys.numpy(), loop(f, X, T).numpy())


def test_losses_and_max_dim_with_class_indices_run_on_the_whole_batch(fresh_warnings):
    """nll_loss, cross_entropy and max(dim) check and pick on the physical batch: no
    per-sample loop, no warning."""
    al.manual_seed(2)
    X, T = al.randn(4, 2, 3), al.tensor([[2, 0], [1, 1], [0, 2], [2, -100]])
    F = al.nn.functional
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f in (F.cross_entropy, F.nll_loss, functools.partial(F.nll_loss, reduction="none")):
            assert np.allclose(func.vmap(f)(X, T).numpy(), loop(f, X, T).numpy(), equal_nan=True)
        values, indices = func.vmap(lambda x: x.max(1))(X)
        P = func.vmap(F.sigmoid)(X)
        bce = func.vmap(F.binary_cross_entropy)(P, P.detach() * 0 + 0.5)
    assert np.array_equal(indices.numpy(), X.numpy().argmax(2))
    assert np.array_equal(values.numpy(), X.numpy().max(2))
    assert np.allclose(bce.numpy(), loop(F.binary_cross_entropy, P, P * 0 + 0.5).numpy())
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        func.vmap(F.nll_loss)(X, T.clamp(min=0) + 1)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        func.vmap(F.binary_cross_entropy)(X, P)


def test_chunk_size_gives_the_same_numbers():
    al.manual_seed(2)
    X, Y = al.randn(7, 3), al.randn(3, 7)
    f = lambda x, y: (x * y.exp(), x.sum())      # noqa: E731
    whole = func.vmap(f, in_dims=(0, 1), out_dims=(1, 0))(X, Y)
    chunked = func.vmap(f, in_dims=(0, 1), out_dims=(1, 0), chunk_size=3)(X, Y)
    for a, b in zip(whole, chunked):
        assert a.shape == b.shape and np.allclose(a.numpy(), b.numpy())


def test_randomness_same_and_different():
    X = al.zeros(5, 3)
    al.manual_seed(3)
    same = func.vmap(lambda x: x + al.randn(3), randomness="same")(X)
    al.manual_seed(3)
    different = func.vmap(lambda x: x + al.randn(3), randomness="different")(X)
    assert np.allclose(same.numpy(), same.numpy()[0])             # every row the same draw
    assert not np.allclose(different.numpy(), different.numpy()[0])
    with pytest.raises(RuntimeError, match="randomness error mode"):
        func.vmap(lambda x: x + al.rand(3))(X)


def test_nested_vmap_is_an_outer_product_of_batches():
    a, b = al.arange(3.0), al.arange(4.0)
    table = func.vmap(func.vmap(lambda u, v: u * v + v, in_dims=(None, 0)), in_dims=(0, None))(a, b)
    assert np.array_equal(table.numpy(), np.outer(np.arange(3.0), np.arange(4.0)) + np.arange(4.0))


def test_what_vmap_refuses_and_that_it_leaves_no_state_behind():
    X = al.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"does not batch this write to a batched tensor \(x\[key\] = v\)"):
        func.vmap(lambda x: x.__setitem__(0, 1.0))(X)
    with pytest.raises(RuntimeError, match=r"calling \.item\(\)"):
        func.vmap(lambda x: x.sum().item())(X)
    with pytest.raises(RuntimeError, match="reads the numbers of a batched tensor"):
        func.vmap(lambda x: al.tensor(x.numpy()))(X)
    assert state.batching is None
    assert np.array_equal((X * 2).numpy(), np.full((2, 3), 2.0))


def test_a_batched_tensor_shows_one_sample_and_its_batch():
    seen = {}

    def f(x):
        seen["shape"], seen["repr"] = x.shape, repr(x)
        return x

    func.vmap(f)(al.ones(2, 3))
    assert seen["shape"] == (3,)
    assert seen["repr"].startswith("BatchedTensor(lvl=")


def test_the_rules_table_has_a_batching_column():
    rules = {r.name: r for r in rulebook.rules()}
    assert rules["add"].batch == "broadcast"
    assert rules["sum"].batch == "reduction"
    assert rules["nll_loss"].batch == "batch_nll"
    assert "lead=lead + n" in rules["index"].batch
    assert "batch" in rulebook.markdown().splitlines()[0]
