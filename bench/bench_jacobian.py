"""What a whole Jacobian costs, strategy by strategy, against baselines in the same run.

    python bench/bench_jacobian.py [--quick]

1. The 200×200 Jacobian of x ↦ tanh(W₃ tanh(W₂ tanh(W₁ x))) in float32, one thread:
   autograd_lab's row loop (200 backward walks), ``vectorize=True`` (one batched walk),
   forward mode (one batched pass, and one pass per input entry), and al.func's
   jacrev/jacfwd, beside torch.func.jacrev, torch.autograd.functional.jacobian (loop and
   vectorized) and HIPS autograd's jacobian when they are importable.
2. A tall Jacobian (2048 outputs × 32 inputs) and a wide one (32 × 2048): forward mode
   needs one tangent per input, reverse mode one seed per output, so each wins on its
   own side.

Every contestant has one go per turn, in a shuffled order (bench_engine's ``in_turns``);
a ratio is the median over the turns of the two times taken in the same turn.
"""
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import autograd_lab as al  # noqa: E402
from bench_engine import in_turns, turn_ratios  # noqa: E402  (bench/, the script's own folder)
from autograd_lab.autograd import functional as F  # noqa: E402

QUICK = "--quick" in sys.argv


def turns_for(runs, budget):
    """How many turns fit in ``budget`` seconds, from one timed call of each (at least 5)."""
    start = time.perf_counter()
    for fn in runs.values():
        fn()
    return max(5, min(60, int(budget / max(time.perf_counter() - start, 1e-9))))


def optional(name):
    try:
        return __import__(name)
    except ImportError:
        return None


torch = optional("torch")
hips = optional("autograd")
if torch is not None:
    torch.set_num_threads(1)
    import torch.autograd.functional  # noqa: E402,F401
    import torch.func  # noqa: E402,F401
if hips is not None:
    import autograd.numpy as hnp  # noqa: E402


def weights(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) / np.sqrt(s[1])).astype(np.float32) for s in shapes]


def implementations(Ws, x0):
    """name -> zero-argument callable computing the whole Jacobian."""
    al_W = [al.tensor(W) for W in Ws]
    al_x = al.tensor(x0)

    def f_al(x):
        for W in al_W:
            x = (W @ x).tanh()
        return x

    runs = {
        "autograd_lab row loop": lambda: F.jacobian(f_al, al_x),
        "autograd_lab vectorize=True": lambda: F.jacobian(f_al, al_x, vectorize=True),
        "autograd_lab forward, batched": lambda: F.jacobian(f_al, al_x, vectorize=True,
                                                            strategy="forward-mode"),
        "autograd_lab forward, per input": lambda: F.jacobian(f_al, al_x, strategy="forward-mode"),
        "al.func.jacrev": lambda: al.func.jacrev(f_al)(al_x),
        "al.func.jacfwd": lambda: al.func.jacfwd(f_al)(al_x),
    }
    if torch is not None:
        t_W = [torch.tensor(W) for W in Ws]
        t_x = torch.tensor(x0)

        def f_t(x):
            for W in t_W:
                x = torch.tanh(W @ x)
            return x

        runs["torch.func.jacrev"] = lambda: torch.func.jacrev(f_t)(t_x)
        runs["torch.func.jacfwd"] = lambda: torch.func.jacfwd(f_t)(t_x)
        runs["torch functional.jacobian"] = lambda: torch.autograd.functional.jacobian(f_t, t_x)
        runs["torch functional.jacobian vectorize"] = lambda: torch.autograd.functional.jacobian(
            f_t, t_x, vectorize=True)
    if hips is not None:
        def f_h(x):
            for W in Ws:
                x = hnp.tanh(W @ x)
            return x
        runs["HIPS autograd.jacobian"] = lambda: hips.jacobian(f_h)(x0)
    return runs


def check_agreement(runs):
    """Every implementation must give the same Jacobian before its time means anything."""
    reference = None
    for name, fn in runs.items():
        J = fn()
        J = J.detach().numpy() if hasattr(J, "detach") else np.asarray(J)
        if reference is None:
            reference = J
        elif not np.allclose(J, reference, rtol=1e-3, atol=1e-5):
            raise SystemExit(f"{name} disagrees with the row loop (max diff "
                             f"{np.max(np.abs(J - reference)):.3g})")


def table(title, runs, baselines, skip=()):
    """Every contestant's median time, and its ratio to each baseline: the median over the
    turns of (its time / the baseline's time in the same turn), so that a busy neighbour,
    who slows both alike, moves the ratio little."""
    print(f"\n{title}")
    runs = {name: fn for name, fn in runs.items() if name not in skip}
    times = in_turns(list(runs.items()), turns_for(runs, 3 if QUICK else 12))
    cols = [b for b in baselines if b in times]
    widths = [max(14, len(b) + 3) for b in cols]
    print(f"{'':38s}{'median ms':>11s}" + "".join(f"{'/ ' + b:>{w}s}" for b, w in zip(cols, widths)))
    for name in times:
        line = f"{name:38s}{1e3 * statistics.median(times[name]):11.3f}"
        for b, w in zip(cols, widths):
            line += f"{statistics.median(turn_ratios(times, name, b)):>{w - 1}.2f}x"
        print(line)
    return {name: 1e3 * statistics.median(t) for name, t in times.items()}


def main():
    print(f"numpy {np.__version__}; torch {getattr(torch, '__version__', 'not installed')}; "
          f"HIPS autograd {'installed' if hips else 'not installed'}; one thread")
    rng = np.random.default_rng(1)

    square = weights([(200, 200)] * 3)
    x0 = rng.standard_normal(200).astype(np.float32)
    runs = implementations(square, x0)
    check_agreement(runs)
    times = table("1. 200x200 Jacobian of tanh(W3 tanh(W2 tanh(W1 x))), float32",
                  runs, ["torch.func.jacrev", "autograd_lab row loop"])
    vec, loop = times["autograd_lab vectorize=True"], times["autograd_lab row loop"]
    print(f"\n   vectorize=True is {loop / vec:.1f}x faster than the row loop (goal: >= 5x)")
    if "torch.func.jacrev" in times:
        print(f"   vectorize=True / torch.func.jacrev = {vec / times['torch.func.jacrev']:.2f} "
              "(goal: <= 1.0)")

    for title, shapes, n_in in (("2. tall: 2048 outputs x 32 inputs", [(256, 32), (2048, 256)], 32),
                                ("3. wide: 32 outputs x 2048 inputs", [(256, 2048), (32, 256)], 2048)):
        Ws = weights(shapes, seed=2)
        x = rng.standard_normal(n_in).astype(np.float32)
        runs = implementations(Ws, x)
        # the per-entry loops of the long side take seconds and teach nothing new
        skip = {"autograd_lab row loop", "torch functional.jacobian"} if shapes[-1][0] > 1000 else \
            {"autograd_lab forward, per input"}
        check_agreement({k: v for k, v in runs.items() if k not in skip})
        times = table(title, runs, ["torch.func.jacrev", "autograd_lab vectorize=True"], skip=skip)
        fwd, rev = times["autograd_lab forward, batched"], times["autograd_lab vectorize=True"]
        winner = "forward" if fwd < rev else "reverse"
        print(f"\n   forward mode (batched) {fwd:.2f} ms vs reverse mode (batched) {rev:.2f} ms: "
              f"{winner} mode wins by {max(fwd, rev) / min(fwd, rev):.1f}x")


if __name__ == "__main__":
    main()
