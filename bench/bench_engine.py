"""Engine overhead, measured against baselines in the same run (one thread).

    python bench/bench_engine.py

1. Per-op overhead: a 1,000-step chain ``y = y * 1.0001 + 0.001`` on a 4-element float32
   tensor, forward + backward, reported in microseconds per operation (2,000 operations),
   beside PyTorch, HIPS autograd and MyGrad when they are importable.
   Then deep chains ``y = y * 1.0`` of 1,000 and 100,000 operations against PyTorch: a
   long graph is many Python objects, which Python's garbage collector walks again and
   again while the forward builds them (the user's collector settings are left as they are).
2. One training step of an MLP (batch 256, 784 -> 256 sigmoid -> 10, mean squared error,
   float32), forward + backward, against the same step written by hand in NumPy; then the
   same step on tiny arrays, which isolates the engine's own Python bookkeeping.  Beside
   them, a calibration: the same step on the least a Python tape can be
   (``_minimal_tape.py``: no checks, none of torch's semantics), the floor for any
   engine written in Python on this machine.  Then the commonest training step, the same
   MLP with ReLU and cross-entropy against class labels, against its hand-written NumPy.
   Goal for both: at most 1.10x hand-written NumPy, and no slower than PyTorch.
3. In place against out of place: the same MLP step with its bias additions, sigmoid,
   target subtraction and SGD update written in place (``h.add_(b1).sigmoid_()``, ...,
   ``p -= lr * p.grad``), against the step written out of place, on the same arrays.
   Goal: the in-place step costs no more than the out-of-place one.  On big arrays an
   in-place op computes straight into the tensor's memory, where its out-of-place form
   fills a new array.  Then, to show what recording a write costs: both steps on tiny
   arrays, and a 1,000-step chain of ``y.mul_(1.0001).add_(0.001)`` against
   ``y = y * 1.0001 + 0.001`` (per operation).  There the arithmetic costs nothing, so
   an in-place op costs its out-of-place form plus its bookkeeping: the version, the
   node moved onto the tensor.  PyTorch pays that too, in C++.  PyTorch's ratios are
   printed beside ours when it is installed.

Every contestant of a part has one go per turn, in a shuffled order (see ``in_turns``), and
each ratio is the median over the turns of (this contestant's time / the baseline's time
in the same turn): two calls made moments apart see the same load on the machine, so a
busy neighbour moves both.  The times printed beside the ratios are each contestant's
median time, so they need not divide to the ratio exactly.  The MLP part gives every ratio
a 95% interval (a seeded bootstrap over the turns), calls the goal met or missed only when
the interval says so, and times the hand-written step against itself: the instrument's own
noise, printed beside the verdict it has to carry.
"""
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import random  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import autograd_lab as al  # noqa: E402
import _minimal_tape as minimal_tape  # noqa: E402  (bench/, the script's own folder)


def in_turns(contestants, turns, seed=0):
    """{name: [seconds of its call in each turn]}.  In every turn each contestant has its
    go, in an order shuffled anew (seeded) so that no one always follows the same
    neighbour: one call untimed, then one timed -- warm, as in a training loop, where the
    same step has just run."""
    order, rng = list(contestants), random.Random(seed)
    times = {name: [] for name, _ in contestants}
    for _ in range(turns):
        rng.shuffle(order)
        for name, fn in order:
            fn()
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def turn_ratios(times, name, base):
    """This contestant's time over the baseline's, turn by turn."""
    return [a / b for a, b in zip(times[name], times[base])]


def median_interval(values, resamples=2000, seed=0):
    """(low, median, high): the median and a 95% bootstrap interval around it -- how far
    the median might move were the turns run again."""
    values = np.asarray(values)
    picks = np.random.default_rng(seed).integers(0, len(values), size=(resamples, len(values)))
    low, high = np.percentile(np.median(values[picks], axis=1), [2.5, 97.5])
    return float(low), float(np.median(values)), float(high)


def verdict(interval, goal):
    low, mid, high = interval
    if high <= goal:
        return "meets"
    if low > goal:
        return "misses"
    return "too close to call at this noise"


def optional(name):
    try:
        return __import__(name)
    except ImportError:
        return None


# -- 1. per-op overhead ---------------------------------------------------------------------
STEPS = 1000
OPS = 2 * STEPS


def chain(lib):
    """The chain on an engine with torch's API: autograd_lab or torch itself."""
    def run():
        x = lib.ones(4, requires_grad=True)
        y = x
        for _ in range(STEPS):
            y = y * 1.0001 + 0.001
        y.sum().backward()
        return x.grad
    return run


def deep_chain(lib, n):
    """y = y * 1.0, n times, then one backward: the cost of a long graph."""
    def run():
        x = lib.ones(4, requires_grad=True)
        y = x
        for _ in range(n):
            y = y * 1.0
        y.sum().backward()
        return x.grad
    return run


def chain_numpy():
    """The same arithmetic without any autograd: the floor any engine sits on."""
    y = np.ones(4, np.float32)
    for _ in range(STEPS):
        y = y * 1.0001 + 0.001
    g = np.ones(4, np.float32)
    for _ in range(STEPS):
        g = g * 1.0001
    return g


def chain_hips(autograd):
    anp = __import__("autograd.numpy", fromlist=["numpy"])

    def f(x):
        y = x
        for _ in range(STEPS):
            y = y * 1.0001 + 0.001
        return anp.sum(y)
    g = autograd.grad(f)
    return lambda: g(np.ones(4, np.float32))


def chain_mygrad(mygrad):
    def run():
        x = mygrad.tensor(np.ones(4, np.float32))
        y = x
        for _ in range(STEPS):
            y = y * 1.0001 + 0.001
        mygrad.sum(y).backward()
        return x.grad
    return run


# -- 2. MLP step ---------------------------------------------------------------------------
def mlp_data(batch=256, n_in=784, hidden=256, n_out=10):
    rng = np.random.default_rng(0)
    f32 = np.float32
    X = rng.normal(size=(batch, n_in)).astype(f32)
    Y = rng.normal(size=(batch, n_out)).astype(f32)
    W1 = (rng.normal(size=(n_in, hidden)) * 0.05).astype(f32)
    b1 = np.zeros(hidden, f32)
    W2 = (rng.normal(size=(hidden, n_out)) * 0.05).astype(f32)
    b2 = np.zeros(n_out, f32)
    return X, Y, W1, b1, W2, b2


def mlp_numpy(X, Y, W1, b1, W2, b2):
    def step():
        h = 1 / (1 + np.exp(-(X @ W1 + b1)))
        out = h @ W2 + b2
        diff = out - Y
        loss = (diff * diff).mean()
        d_out = diff * (2 / diff.size)
        dW2, db2 = h.T @ d_out, d_out.sum(0)
        d_z = (d_out @ W2.T) * h * (1 - h)
        dW1, db1 = X.T @ d_z, d_z.sum(0)
        return loss, dW1, db1, dW2, db2
    return step


def labels_of(Y):
    """Class labels for the cross-entropy step: the largest target of each row."""
    return Y.argmax(1)


def mlp_ce_numpy(X, Y, W1, b1, W2, b2):
    """ReLU and cross-entropy (log-softmax, then the mean of the picked -log p), by hand."""
    labels, rows = labels_of(Y), np.arange(len(Y))

    def step():
        z = X @ W1 + b1
        h = np.maximum(z, 0)
        logits = h @ W2 + b2
        shifted = logits - logits.max(1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        loss = -logp[rows, labels].mean()
        d_logits = np.exp(logp)
        d_logits[rows, labels] -= 1
        d_logits /= len(labels)
        dW2, db2 = h.T @ d_logits, d_logits.sum(0)
        d_z = (d_logits @ W2.T) * (z > 0)
        dW1, db1 = X.T @ d_z, d_z.sum(0)
        return loss, dW1, db1, dW2, db2
    return step


# every contestant reads the same input buffers (from_numpy shares memory): where an array
# sits in memory moves a 1 ms matmul by tens of microseconds, which is not what we measure
def mlp(lib, X, Y, W1, b1, W2, b2):
    """The step on an engine with torch's API: autograd_lab or torch itself."""
    X, Y = lib.from_numpy(X), lib.from_numpy(Y)
    params = [lib.from_numpy(p).requires_grad_() for p in (W1, b1, W2, b2)]
    W1, b1, W2, b2 = params

    def step():
        for p in params:
            p.grad = None
        h = lib.sigmoid(X @ W1 + b1)
        loss = ((h @ W2 + b2 - Y) ** 2).mean()
        loss.backward()
        return loss, W1.grad, b1.grad, W2.grad, b2.grad
    return step


def mlp_ce(lib, X, Y, W1, b1, W2, b2):
    """The ReLU + cross-entropy step on an engine with torch's API."""
    X, labels = lib.from_numpy(X), lib.from_numpy(labels_of(Y))
    params = [lib.from_numpy(p).requires_grad_() for p in (W1, b1, W2, b2)]
    W1, b1, W2, b2 = params

    def step():
        for p in params:
            p.grad = None
        logits = lib.relu(X @ W1 + b1) @ W2 + b2
        loss = lib.nn.functional.cross_entropy(logits, labels)
        loss.backward()
        return loss, W1.grad, b1.grad, W2.grad, b2.grad
    return step


# -- 3. in place against out of place ------------------------------------------------------
LR = 0.01


def mlp_step(lib, X, Y, W1, b1, W2, b2, in_place):
    """Part 2's step plus an SGD update, written in place or out of place (the update of the
    out-of-place form makes new parameter tensors, as a functional optimizer does)."""
    X, Y = lib.from_numpy(X), lib.from_numpy(Y)
    params = [lib.from_numpy(p.copy()).requires_grad_() for p in (W1, b1, W2, b2)]

    def step():
        W1, b1, W2, b2 = params
        if in_place:
            h = X @ W1
            h.add_(b1).sigmoid_()
            out = h @ W2
            out.add_(b2).sub_(Y)
        else:
            h = (X @ W1 + b1).sigmoid()
            out = h @ W2 + b2 - Y
        loss = (out ** 2).mean()
        loss.backward()
        with lib.no_grad():
            for i, p in enumerate(params):
                if in_place:
                    p -= LR * p.grad
                    p.grad = None
                else:
                    params[i] = (p - LR * p.grad).requires_grad_()
        return loss
    return step


def chain_in_place(lib, n=4, steps=STEPS):
    """Part 1's chain, written in place (on x * 1: a leaf that requires grad refuses)."""
    def run():
        x = lib.ones(n, requires_grad=True)
        y = x * 1
        for _ in range(steps):
            y.mul_(1.0001).add_(0.001)
        y.sum().backward()
        return x.grad
    return run


def in_place_part(torch):
    libs = [("autograd_lab", al)] + ([(f"PyTorch {torch.__version__}", torch)] if torch is not None else [])
    for title, data, turns, goal in (("batch 256, 784 -> 256 -> 10", mlp_data(), 300, True),
                                     ("2 x 8 inputs (bookkeeping)", mlp_data(batch=2, n_in=8, hidden=4, n_out=3),
                                      1000, False)):
        for name, lib in libs:
            ins, outs = mlp_step(lib, *data, in_place=True), mlp_step(lib, *data, in_place=False)
            for _ in range(3):            # same numbers first, step after step
                assert np.allclose(float(ins().detach()), float(outs().detach()), rtol=1e-5)
            times = in_turns([("in place", ins), ("out of place", outs)], turns=turns)
            low, mid, high = median_interval(turn_ratios(times, "in place", "out of place"))
            print(f"   {title:28s} {name:20s} in place {statistics.median(times['in place']) * 1e3:7.3f} ms, "
                  f"out of place {statistics.median(times['out of place']) * 1e3:7.3f} ms: "
                  f"{mid:5.3f}x (95% interval {low:.3f}-{high:.3f})" +
                  (f" -> goal: {verdict((low, mid, high), 1.0)}" if goal and lib is al else ""))
    for name, lib in libs:
        times = in_turns([("in place", chain_in_place(lib)), ("out of place", chain(lib))], turns=40)
        low, mid, high = median_interval(turn_ratios(times, "in place", "out of place"))
        print(f"   {'chain, per operation':28s} {name:20s} in place {statistics.median(times['in place']) / OPS * 1e6:6.2f} us, "
              f"out of place {statistics.median(times['out of place']) / OPS * 1e6:6.2f} us: "
              f"{mid:5.3f}x (95% interval {low:.3f}-{high:.3f})")


def mlp_goals(intervals, again, torch):
    """The MLP steps' goals: at most 1.10x hand-written NumPy, and no slower than PyTorch."""
    ours, aa = intervals["autograd_lab"], intervals[again]
    print(f"   goal: at most 1.10x hand-written -> {verdict(ours, 1.10)} ({ours[1]:.3f}x, "
          f"{ours[0]:.3f}-{ours[2]:.3f}); the instrument: the hand-written step against itself "
          f"reads {aa[1]:.3f}x, {aa[0]:.3f}-{aa[2]:.3f}")
    if torch is not None:
        theirs = intervals[f"PyTorch {torch.__version__}"]
        print(f"   goal: no slower than PyTorch -> {'meets' if ours[1] <= theirs[1] else 'misses'} "
              f"(autograd_lab {ours[1]:.3f}x, PyTorch {theirs[1]:.3f}x hand-written)")


def main():
    torch, hips, mygrad = optional("torch"), optional("autograd"), optional("mygrad")
    if torch is not None:
        torch.set_num_threads(1)

    print("1. Per-op overhead: 1,000-step chain y = y * 1.0001 + 0.001, 4 float32, forward + backward")
    rows = [("autograd_lab", chain(al)), ("NumPy, no autograd (floor)", chain_numpy)]
    if torch is not None:
        rows.append((f"PyTorch {torch.__version__}", chain(torch)))
    if hips is not None:
        rows.append(("HIPS autograd", chain_hips(hips)))
    if mygrad is not None:
        rows.append((f"MyGrad {mygrad.__version__}", chain_mygrad(mygrad)))
    times = in_turns(rows, turns=25)
    for name, _ in rows:
        us = statistics.median(times[name]) / OPS * 1e6
        ratio = statistics.median(turn_ratios(times, "autograd_lab", name))
        print(f"   {name:32s} {us:7.2f} us/op" + (f"   autograd_lab / this = {ratio:5.2f}x" if name != "autograd_lab" else ""))
    if torch is not None:
        ratio = statistics.median(turn_ratios(times, "autograd_lab", f"PyTorch {torch.__version__}"))
        print(f"   goal: no more than PyTorch per op -> {'meets' if ratio <= 1 else 'misses'}")
    else:
        print("   (install torch==2.13.0 to compare with PyTorch)")
    if torch is not None:
        for n, turns in ((1000, 40), (100_000, 5)):
            times = in_turns([("autograd_lab", deep_chain(al, n)), ("torch", deep_chain(torch, n))], turns=turns)
            ratios = turn_ratios(times, "autograd_lab", "torch")
            ratio = statistics.median(ratios)
            print(f"   deep chain y = y * 1.0, {n:>7,} ops: autograd_lab {statistics.median(times['autograd_lab']):6.3f} s, "
                  f"PyTorch {statistics.median(times['torch']):6.3f} s, ratio {ratio:4.2f}x (turns "
                  f"{min(ratios):.2f}-{max(ratios):.2f}); goal at most 1.0x -> {'meets' if ratio <= 1 else 'misses'}")

    print("\n2. MLP step: batch 256, 784 -> 256 sigmoid -> 10, MSE, float32, forward + backward")
    data = mlp_data()
    reference = mlp_numpy(*data)
    ours_step = mlp(al, *data)
    tape_step = minimal_tape.mlp(*data)
    # same numbers first: a benchmark of a wrong answer is worthless
    for r, o, t in zip(reference(), ours_step(), tape_step()):
        assert np.allclose(np.asarray(r), o.detach().numpy(), rtol=1e-3, atol=1e-5)
        assert np.allclose(np.asarray(r), t, rtol=1e-3, atol=1e-5)
    base, again = "hand-written NumPy", "hand-written NumPy, again"
    steps = [(base, reference), (again, mlp_numpy(*data)), ("autograd_lab", ours_step),
             ("minimal Python tape (calibration)", tape_step)]
    if torch is not None:
        steps.append((f"PyTorch {torch.__version__}", mlp(torch, *data)))
    times = in_turns(steps, turns=150)
    print(f"   {base:34s} {statistics.median(times[base]) * 1e3:7.2f} ms   (the baseline)")
    intervals = {name: median_interval(turn_ratios(times, name, base)) for name, _ in steps[1:]}
    for name, (low, mid, high) in intervals.items():
        print(f"   {name:34s} {statistics.median(times[name]) * 1e3:7.2f} ms   / hand-written = "
              f"{mid:5.3f}x (95% interval {low:.3f}-{high:.3f})")
    mlp_goals(intervals, again, torch)

    # where the difference comes from: the same step on tiny arrays costs next to nothing in
    # NumPy, so what is left is the engine's Python bookkeeping (recording, the walk)
    tiny = mlp_data(batch=2, n_in=8, hidden=4, n_out=3)
    small = in_turns([(base, mlp_numpy(*tiny)), ("autograd_lab", mlp(al, *tiny)),
                      ("tape", minimal_tape.mlp(*tiny))], turns=2000)

    def extra(times, name):           # median over the turns of (its time - hand-written's)
        return statistics.median(a - b for a, b in zip(times[name], times[base])) * 1e6
    print(f"   difference per step {extra(times, 'autograd_lab'):.0f} us; the same graph on 2 x 8 inputs, "
          f"where the arithmetic costs next to nothing: autograd_lab's bookkeeping "
          f"{extra(small, 'autograd_lab'):.0f} us, the minimal tape's {extra(small, 'tape'):.0f} us")

    print("\n   The same MLP with ReLU and cross-entropy against class labels, forward + backward")
    reference, ours_step = mlp_ce_numpy(*data), mlp_ce(al, *data)
    for r, o in zip(reference(), ours_step()):
        assert np.allclose(np.asarray(r), o.detach().numpy(), rtol=1e-3, atol=1e-5)
    steps = [(base, reference), (again, mlp_ce_numpy(*data)), ("autograd_lab", ours_step)]
    if torch is not None:
        steps.append((f"PyTorch {torch.__version__}", mlp_ce(torch, *data)))
    times = in_turns(steps, turns=150)
    print(f"   ReLU + cross-entropy: {base:22s} {statistics.median(times[base]) * 1e3:7.2f} ms   (the baseline)")
    intervals = {name: median_interval(turn_ratios(times, name, base)) for name, _ in steps[1:]}
    for name, (low, mid, high) in intervals.items():
        print(f"   ReLU + cross-entropy: {name:22s} {statistics.median(times[name]) * 1e3:7.2f} ms   / hand-written = "
              f"{mid:5.3f}x (95% interval {low:.3f}-{high:.3f})")
    mlp_goals(intervals, again, torch)

    print("\n3. In place / out of place, forward + backward + SGD update (goal: the step at batch 256, "
          "no more than 1.0x)")
    in_place_part(torch)


if __name__ == "__main__":
    main()
