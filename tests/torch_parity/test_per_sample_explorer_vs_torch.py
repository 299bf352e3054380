"""PerSampleExplorer against PyTorch: its rows are torch.func.vmap(torch.func.grad(...))'s
per-sample gradients, its picked row is torch's backward with the one-hot seed, and the
sum of its rows is W.grad after torch's losses.sum().backward() -- at the chapter's values
and at seeded random ones, after the reader's edits."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("matplotlib")
pytest.importorskip("ipywidgets")

from test_per_sample_explorer import explorer  # noqa: E402


def torch_numbers(ex):
    W = torch.tensor(ex.W.numpy())
    x, y = torch.tensor(ex.x.numpy()), torch.tensor(ex.y.numpy())
    b = torch.tensor(np.asarray(ex.spec["b"], dtype=np.float32))

    def one_loss(W, x_i, y_i, b_i):
        return ((y_i - torch.sigmoid(W @ x_i + b_i)) ** 2).sum()

    J = torch.func.vmap(torch.func.grad(one_loss), in_dims=(None, 0, 0, 0))(W, x, y, b)
    Wl = W.clone().requires_grad_(True)
    losses = (y.reshape(1, -1) - torch.sigmoid(Wl @ x.t() + b.reshape(1, -1))) ** 2
    seed = torch.zeros_like(losses)
    seed[0, ex.sample] = 1.0
    (row,) = torch.autograd.grad(losses, Wl, seed, retain_graph=True)
    losses.sum().backward()
    return J.reshape(len(y), -1).numpy(), row.reshape(-1).numpy(), Wl.grad.reshape(-1).numpy()


def assert_like_torch(ex):
    J, row, total = torch_numbers(ex)
    assert np.allclose(ex.J.numpy(), J, rtol=1e-5, atol=1e-7)
    assert np.allclose(ex.row.numpy(), row, rtol=1e-5, atol=1e-7)
    assert np.allclose(ex.total.numpy(), total, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("sample", range(4))
def test_the_chapters_rows_are_torch_funcs_per_sample_gradients(sample):
    assert_like_torch(explorer(sample))


def test_after_seeded_random_edits_the_rows_are_still_torchs():
    ex = explorer()
    rng = np.random.default_rng(11)
    for step in range(20):
        i = int(rng.integers(4))
        ex.sample = i
        ex.set_x(i, (rng.standard_normal(3) * 2).round(3).tolist())
        ex.set_y(i, float(rng.uniform(-1, 2)))
        if step % 5 == 0:
            ex.W = [(rng.standard_normal(3)).round(3).tolist()]
        assert ex.error is None
        assert_like_torch(ex)
