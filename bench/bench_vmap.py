"""Per-sample gradients by vmap, measured against baselines in the same run (one thread).

    python bench/bench_vmap.py

The gradients of an MLP's loss (784 -> 128 relu -> 10, cross-entropy against one-hot
targets, float32) for each of 64 samples, one gradient per sample and parameter:

* ``vmap(grad(loss))``: one forward and one backward pass over the whole batch;
* a Python loop over the samples, ``grad(loss)`` once per sample (64 passes each way):
  the baseline.  Goal: vmap at least 10x faster;
* ``torch.func.vmap(torch.func.grad(loss))`` on the same numbers, when torch is
  installed.  Goal: vmap's time within 1.5x of torch.func's.

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
    tf = torch.nn.functional
    X, Y, params = torch.tensor(X), torch.tensor(Y), tuple(torch.tensor(p) for p in params)
    per_sample = torch.func.vmap(torch.func.grad(loss(tf), argnums=PARAMS), in_dims=IN_DIMS)
    return lambda: per_sample(*params, X, Y)


def main(turns=15):
    torch = optional("torch")
    if torch is not None:
        torch.set_num_threads(1)
    X, Y, params = data()
    vectorized, loop = ours(X, Y, params)
    a, b = vectorized(), loop()
    for u, v in zip(a, b):
        assert np.allclose(u._data, v._data, atol=1e-5), "vmap and the loop disagree"
    contestants = [("vmap(grad)", vectorized), ("loop of grad", loop)]
    if torch is not None:
        reference = theirs(torch, X, Y, params)
        for u, v in zip(a, reference()):
            assert np.allclose(u._data, v.numpy(), atol=1e-5), "vmap and torch.func disagree"
        contestants.append(("torch.func", reference))
    times = in_turns(contestants, turns)
    print(f"per-sample gradients: MLP {N_IN} -> {HIDDEN} -> {N_OUT}, {SAMPLES} samples, "
          f"median of {turns} turns (one thread)")
    for name, _ in contestants:
        print(f"  {name:<14} {np.median(times[name]) * 1e3:8.2f} ms")
    speedup = median_interval(turn_ratios(times, "loop of grad", "vmap(grad)"))
    print(f"  loop / vmap      {speedup[1]:6.1f}x  (95% interval {speedup[0]:.1f}-{speedup[2]:.1f}); "
          f"goal >= 10x: {verdict((1 / speedup[2], 1 / speedup[1], 1 / speedup[0]), 1 / 10)}")
    if torch is not None:
        slower = median_interval(turn_ratios(times, "vmap(grad)", "torch.func"))
        print(f"  vmap / torch     {slower[1]:6.2f}x  (95% interval {slower[0]:.2f}-{slower[2]:.2f}); "
              f"goal <= 1.5x: {verdict(slower, 1.5)}")
    else:
        print("  (torch is not installed: no comparison with torch.func)")


if __name__ == "__main__":
    main()
