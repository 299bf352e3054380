"""What each speed trick in the core buys, measured with and without it in the same run.

    python bench/bench_tricks.py

A trick stays in the core only if it pays at least 5% on one of the cases it is for.
Each is switched off here for the length of its own measurement (a patch of the module
that holds it, undone after), and its case runs in turns against itself with the trick
on (see bench_engine.in_turns); the ratio is the median over the turns of (time without
the trick / time with it), with a 95% interval:

- **writing into memory** (``Op(into=...)``, ``inplace.may_write_into``, ``versions.forward_into``): an in-place op on
  a big tensor computes into the tensor's own array.  Case: the in-place MLP step at
  batch 256 (bench_engine part 3).
- **taking the new array** (``inplace`` reads ``sys.getrefcount``): an in-place write whose
  result array no one else holds becomes the tensor's array, where a copy would fill the
  old one.  Case: the in-place MLP step on tiny arrays, and the in-place chain.
- **handing gradients over** (``Plan.owned``): a rule's fresh array becomes ``.grad`` as it
  is, where a copy would be made.  Case: the MLP step at batch 256 (part 2).
- **letting go of what no rule reads** (``saved.shed``): a node keeps an input its
  rules never read as its array (or a stand-in), not as the tensor, so a long chain is
  not a chain of live tensors.  Case: the deep chain.
- **one tuple per link** (``saved.shed``'s usual case): where a chain's link keeps
  nothing of its input but the array, that tuple is the one of its arrays, not a copy:
  one object fewer per link to allocate, and for the collector to visit.  Case: the deep
  chain.

Tricks that were measured and removed, as they paid less than 5%: a path of the walk that
delivered a leaf's gradient without a turn of its own (see bench/before_after.py against
the commit before the core's rewrite), and attach making its tensor without calling
``Tensor._make`` (2% on the 100,000-link chain).

Two tricks cannot be switched off by a patch, so they were measured with
``bench/before_after.py`` against the commit before them (3aec546), and the deep chain of
part 1 of bench_engine.py shows what they buy:

- **a node is the list of its edges** (``recording.Node``): one object per link of a graph
  for the garbage collector's full passes to visit, not a node and a tuple.  It saves only
  1.6% of the instructions, but the collector's passes are memory-bound: recording the
  100,000-link chain takes about 12% less time (0.43 s against 0.38 s, best of five, same
  run).  tests/core/test_backward.py holds each link at one object for the collector.
- **a node's ``__dict__`` made only where needed** (``saved.release``): a walk clears
  ``packed`` only on a node that has it, where setting it on every node made each a
  ``__dict__``: the 100,000-link chain's backward takes about 8% less time.
"""
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import contextlib  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402
from unittest import mock  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import bench_engine as be  # noqa: E402  (its cases, turns and intervals)
from bench_engine import al  # noqa: E402
from autograd_lab import engine, inplace, recording, saved  # noqa: E402


def without_writing_into_memory():
    return mock.patch.object(inplace, "may_write_into", lambda t, args, kwargs: False)


def without_taking_the_array():
    no_one_else = types.SimpleNamespace(getrefcount=lambda a: 1 << 30)    # "someone holds it"
    return mock.patch.object(inplace, "sys", no_one_else)


def without_handing_over():
    def owned(self, g):
        return g if isinstance(g, al.Tensor) else al.Tensor._make(np.array(g, copy=True))
    return mock.patch.object(engine.Plan, "owned", owned)


def without_shedding():
    return mock.patch.object(recording, "shed", lambda node, unread: None)


def without_one_tuple():
    """shed, keeping a link's input in a tuple of its own (a copy of its arrays' tuple)."""
    def shed(node, unread):
        args = node.args
        if unread == 1 and len(args) == 2 and args[0]._data.size < saved.KEEP_BELOW:
            node.args = (args[0]._data, args[1])
        else:
            real_shed(node, unread)
    real_shed = recording.shed
    return mock.patch.object(recording, "shed", shed)


def switched(fn, patch):
    """fn, run with the trick switched off for the length of each call."""
    def run():
        with patch():
            return fn()
    return run


def with_patch_cost(fn):
    """fn inside an empty ``with``: the 'with' side pays the same context cost."""
    def run():
        with contextlib.nullcontext():
            return fn()
    return run


def big_relu_in_place(n=1_000_000, steps=10):
    """relu_ (an op that cannot compute into memory) on a big tensor, under no_grad: each
    write's result is a new array, taken or copied back."""
    def run():
        y = al.ones(n)
        with al.no_grad():
            for _ in range(steps):
                y.relu_()
        return y
    return run


def big_int_add_in_place(n=2_000_000, steps=10):
    """add_ on a big int64 tensor (only floats compute into memory)."""
    def run():
        y = al.zeros(n, dtype=al.int64)
        for _ in range(steps):
            y.add_(1)
        return y
    return run


CASES = [
    ("writing into memory", "in-place MLP step, batch 256",
     lambda: be.mlp_step(al, *be.mlp_data(), in_place=True), without_writing_into_memory, 200),
    ("writing into memory", "in-place chain on 1,000,000 numbers",
     lambda: be.chain_in_place(al, 1_000_000, 10), without_writing_into_memory, 40),
    ("taking the new array", "in-place chain on 1,000,000 numbers",
     lambda: be.chain_in_place(al, 1_000_000, 10), without_taking_the_array, 40),
    ("taking the new array", "relu_ on 1,000,000 numbers",
     big_relu_in_place, without_taking_the_array, 40),
    ("taking the new array", "add_ on 2,000,000 int64",
     big_int_add_in_place, without_taking_the_array, 40),
    ("taking the new array", "in-place MLP step, batch 256",
     lambda: be.mlp_step(al, *be.mlp_data(), in_place=True), without_taking_the_array, 200),
    ("taking the new array", "in-place MLP step, 2 x 8 inputs",
     lambda: be.mlp_step(al, *be.mlp_data(batch=2, n_in=8, hidden=4, n_out=3), in_place=True),
     without_taking_the_array, 1000),
    ("handing gradients over", "MLP step, batch 256",
     lambda: be.mlp(al, *be.mlp_data()), without_handing_over, 200),
    ("handing gradients over", "MLP step, batch 1",
     lambda: be.mlp(al, *be.mlp_data(batch=1)), without_handing_over, 1000),
    ("letting go of what no rule reads", "deep chain, 20,000 operations",
     lambda: be.deep_chain(al, 20_000), without_shedding, 30),
    ("one tuple per link", "deep chain, 100,000 operations",
     lambda: be.deep_chain(al, 100_000), without_one_tuple, 10),
]


def main():
    print(__doc__.split("\n\n")[0].strip().splitlines()[0])
    print(f"NumPy {np.__version__}; ratio = time without the trick / time with it (above 1.05: it pays)\n")
    for trick, case, make, patch, turns in CASES:
        on, off = make(), make()
        times = be.in_turns([("with", with_patch_cost(on)), ("without", switched(off, patch))], turns=turns)
        low, mid, high = be.median_interval(be.turn_ratios(times, "without", "with"))
        pays = "pays" if low > 1.05 else "does not pay" if high < 1.05 else "too close to call"
        print(f"   {trick:34s} {case:34s} without/with {mid:5.3f}x (95% {low:.3f}-{high:.3f}) -> {pays}")


if __name__ == "__main__":
    main()
