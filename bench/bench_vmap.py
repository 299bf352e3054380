"""Per-sample gradients by vmap, measured against baselines in the same run (one thread).

    python bench/bench_vmap.py

The gradients of an MLP's loss (784 -> 128 relu -> 10, cross-entropy against one-hot
targets, float32) for each of 64 samples, one gradient per sample and parameter:

* ``vmap(grad(loss))``: one forward and one backward pass over the whole batch;
* a Python loop over the samples, ``grad(loss)`` once per sample (64 passes each way):
  the baseline.  Goal: vmap at least 10x faster;
* ``torch.func.vmap(torch.func.grad(loss))`` on the same numbers, when torch is
  installed.  Goal: vmap's time within 1.5x of torch.func's.

Then the same three for a small CNN, the recipe of PyTorch's per-sample-gradients
tutorial (conv 1 -> 8 -> 16 channels of 3 x 3, relu, max pooling, linear 2304 -> 32 -> 10,
log_softmax and nll_loss against integer labels; ``functional_call`` on a batch of one
sample), 32 images of 28 x 28.

Three more lines put the MLP's goal in proportion.  ``floor`` is NumPy writing the answer
alone (the per-sample gradients' numbers, 25 MB, into new memory, no model): loop / floor
is the most loop / vmap can read on this machine, and vmap / floor is what vmap spends
beyond it.  With torch installed, torch's own loop of ``torch.func.grad`` is measured
against ``torch.func.vmap``: the same question asked of torch.

Most of vmap's time on the MLP is writing the per-sample gradients of the first layer
(64 x 784 x 128 numbers, 25 MB: one outer product per sample, a memory-bound write that
torch.func does too); the loop's is Python: about 40 operations recorded and walked per
sample.  The ratios therefore move with the machine's memory bandwidth and load.

Each ratio is the median over turns of the two times measured moments apart in the same
turn, with a 95% bootstrap interval (see ``bench_engine.in_turns``): the machine is
shared and noisy, and a busy neighbour slows both contestants of a turn alike.
"""
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import sys  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import autograd_lab as al  # noqa: E402
from autograd_lab import func  # noqa: E402
from autograd_lab.nn import functional as F  # noqa: E402
from bench_engine import in_turns, median_interval, optional, turn_ratios, verdict  # noqa: E402

SAMPLES, N_IN, HIDDEN, N_OUT = 64, 784, 128, 10
PARAMS, IN_DIMS = (0, 1, 2, 3), (None, None, None, None, 0, 0)   # gradients for W1, b1, W2, b2


def data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((SAMPLES, N_IN)).astype(np.float32)
    Y = np.eye(N_OUT, dtype=np.float32)[rng.integers(0, N_OUT, SAMPLES)]
    params = [(rng.standard_normal((N_IN, HIDDEN)) / np.sqrt(N_IN)).astype(np.float32),
              np.zeros(HIDDEN, np.float32),
              (rng.standard_normal((HIDDEN, N_OUT)) / np.sqrt(HIDDEN)).astype(np.float32),
              np.zeros(N_OUT, np.float32)]
    return X, Y, params


def loss(lib_F):
    """One sample's loss, the same text for both libraries."""
    def one(W1, b1, W2, b2, x, y):
        logits = (x @ W1 + b1).relu() @ W2 + b2
        return -(lib_F.log_softmax(logits, -1) * y).sum()
    return one


def ours(X, Y, params):
    X, Y, params = al.tensor(X), al.tensor(Y), tuple(al.tensor(p) for p in params)
    per_sample = func.vmap(func.grad(loss(F), argnums=PARAMS), in_dims=IN_DIMS)
    one = func.grad(loss(F), argnums=PARAMS)

    def vectorized():
        return per_sample(*params, X, Y)

    def loop():
        rows = [one(*params, X[i], Y[i]) for i in range(SAMPLES)]
        return [al.stack([r[k] for r in rows]) for k in range(len(params))]
    return vectorized, loop


def theirs(torch, X, Y, params):
    """torch.func.vmap(grad), and torch's own loop of torch.func.grad over the samples."""
    tf = torch.nn.functional
    X, Y, params = torch.tensor(X), torch.tensor(Y), tuple(torch.tensor(p) for p in params)
    per_sample = torch.func.vmap(torch.func.grad(loss(tf), argnums=PARAMS), in_dims=IN_DIMS)
    one = torch.func.grad(loss(tf), argnums=PARAMS)

    def loop():
        rows = [one(*params, X[i], Y[i]) for i in range(SAMPLES)]
        return [torch.stack([r[k] for r in rows]) for k in range(len(params))]
    return (lambda: per_sample(*params, X, Y)), loop


def floor(X):
    """Only writing the answer, the floor under any vmap: the 64 per-sample gradients of
    each parameter as NumPy writes them into new memory (an outer product per sample for
    each weight, from made-up output gradients of the right shapes), no model at all."""
    rng = np.random.default_rng(1)
    g1, g2 = (rng.standard_normal((SAMPLES, n)).astype(np.float32) for n in (HIDDEN, N_OUT))
    h = rng.standard_normal((SAMPLES, HIDDEN)).astype(np.float32)
    return lambda: (np.einsum("si,sj->sij", X, g1), g1.copy(),
                    np.einsum("si,sj->sij", h, g2), g2.copy())


def compare(title, contestants, turns, torch, goals=True):
    """Time the contestants in turns; print the times and the ratios (with the issue's
    verdicts when ``goals``: they are set for the MLP only)."""
    times = in_turns(contestants, turns)
    print(f"{title}, median of {turns} turns (one thread)")
    for name, _ in contestants:
        print(f"  {name:<14} {np.median(times[name]) * 1e3:8.2f} ms")
    speedup = median_interval(turn_ratios(times, "loop of grad", "vmap(grad)"))
    print(f"  loop / vmap      {speedup[1]:6.1f}x  (95% interval {speedup[0]:.1f}-{speedup[2]:.1f})"
          + (f"; goal >= 10x: {verdict((1 / speedup[2], 1 / speedup[1], 1 / speedup[0]), 1 / 10)}"
             if goals else ""))
    if torch is not None:
        slower = median_interval(turn_ratios(times, "vmap(grad)", "torch.func"))
        print(f"  vmap / torch     {slower[1]:6.2f}x  (95% interval {slower[0]:.2f}-{slower[2]:.2f})"
              + (f"; goal <= 1.5x: {verdict(slower, 1.5)}" if goals else ""))
    else:
        print("  (torch is not installed: no comparison with torch.func)")
    lines = (("loop of grad", "floor", "loop / floor    {:7.1f}x  (the most loop / vmap can read here: "
                                       "any vmap writes the answer)"),
             ("vmap(grad)", "floor", "vmap / floor    {:7.1f}x  (what vmap spends beyond writing "
                                     "the answer)"),
             ("torch loop", "torch.func", "torch's loop / torch.func {:.1f}x  (the same question "
                                          "asked of torch)"))
    for top, base, text in lines:
        if top in times and base in times:
            print("  " + text.format(median_interval(turn_ratios(times, top, base))[1]))

def checked(ours_fns, reference, agree):
    """The contestants, once their answers agree (vmap with the loop, and with torch)."""
    vectorized, loop = ours_fns
    a = vectorized()
    agree(a, loop(), "vmap and the loop disagree")
    contestants = [("vmap(grad)", vectorized), ("loop of grad", loop)]
    if reference is not None:
        agree(a, reference(), "vmap and torch.func disagree")
        contestants.append(("torch.func", reference))
    return contestants


def _agree(a, b, message):
    for u, v in zip(a, b):
        assert np.allclose(u._data, v._data if isinstance(v, al.Tensor) else v.numpy(), atol=1e-5), message


def _agree_dicts(a, b, message):
    _agree([a[k] for k in a], [b[k] for k in a], message)


# -- the CNN of torch's per-sample-gradients tutorial, made small --------------------------
CNN_SAMPLES = 32


def cnn(lib):
    nn, Fn = lib.nn, lib.nn.functional

    class SimpleCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(1, 8, 3, 1), nn.Conv2d(8, 16, 3, 1)
            self.fc1, self.fc2 = nn.Linear(16 * 12 * 12, 32), nn.Linear(32, 10)

        def forward(self, x):
            x = Fn.max_pool2d(Fn.relu(self.conv2(Fn.relu(self.conv1(x)))), 2)
            x = Fn.relu(self.fc1(x.flatten(1)))
            return Fn.log_softmax(self.fc2(x), dim=1)
    return SimpleCNN()


def cnn_recipe(lib, T, model):
    """per_sample(data, targets), and one_sample(x, y): the tutorial's functional_call of
    the model on a batch of one, its loss's gradient."""
    params = {k: v.detach() for k, v in model.named_parameters()}

    def compute_loss(params, sample, target):
        out = T.functional_call(model, params, (sample.unsqueeze(0),))
        return lib.nn.functional.nll_loss(out, target.unsqueeze(0))
    per_sample = T.vmap(T.grad(compute_loss), in_dims=(None, 0, 0))
    one = T.grad(compute_loss)
    return (lambda X, Y: per_sample(params, X, Y)), (lambda x, y: one(params, x, y))


def cnn_contestants(torch):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((CNN_SAMPLES, 1, 28, 28)).astype(np.float32)
    Y = rng.integers(0, 10, CNN_SAMPLES)
    al.manual_seed(0)
    model = cnn(al)
    per_sample, one = cnn_recipe(al, func, model)
    Xa, Ya = al.tensor(X), al.tensor(Y)

    def loop():
        rows = [one(Xa[i], Ya[i]) for i in range(CNN_SAMPLES)]
        return {k: al.stack([r[k] for r in rows]) for k in rows[0]}
    reference = None
    if torch is not None:
        twin = cnn(torch)
        twin.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
        theirs, _ = cnn_recipe(torch, torch.func, twin)
        Xt, Yt = torch.tensor(X), torch.tensor(Y)
        reference = lambda: theirs(Xt, Yt)          # noqa: E731
    return checked((lambda: per_sample(Xa, Ya), loop), reference, _agree_dicts)


def main(turns=15):
    torch = optional("torch")
    if torch is not None:
        torch.set_num_threads(1)
    X, Y, params = data()
    reference, torch_loop = theirs(torch, X, Y, params) if torch is not None else (None, None)
    contestants = checked(ours(X, Y, params), reference, _agree)
    contestants.append(("floor", floor(X)))
    if torch_loop is not None:
        _agree(contestants[0][1](), torch_loop(), "torch's loop and vmap disagree")
        contestants.append(("torch loop", torch_loop))
    compare(f"per-sample gradients: MLP {N_IN} -> {HIDDEN} -> {N_OUT}, {SAMPLES} samples",
            contestants, turns, torch)
    compare(f"per-sample gradients: the tutorial's CNN (small), {CNN_SAMPLES} images 1 x 28 x 28",
            cnn_contestants(torch), turns, torch, goals=False)


if __name__ == "__main__":
    main()
