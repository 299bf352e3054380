"""The most memory one backward holds, with saved values freed at the commit (after the
whole walk: a walk with ``retain_graph=True`` holds as much until its end) against freed
node by node as the walk goes (as torch frees them, and autograd_lab now).  Bytes, not time: the numbers are the same on every machine.

    python bench/bench_memory.py

Counted by ``al.autograd.graph.count_saved``: the saved values the graph keeps (leaves
left out: they are their owners') plus the gradients on their way between nodes, after
each node ran.  The model is book/05c's MLP: three blocks of two hidden layers of 256
(Linear then ReLU), inputs of 32, outputs of 10, batch 128, float32, mean squared
error; also with each block checkpointed.
"""
import autograd_lab as al
from autograd_lab.utils.checkpoint import checkpoint

WIDTHS = (32, 256, 256, 256, 256, 256, 256, 10)
BATCH = 128
BLOCK = 2                             # hidden layers per block: blocks 0, 1, 2


def mlp(widths=WIDTHS, batch=BATCH, seed=0):
    """The layers of the MLP, a batch of inputs and of targets (seeded)."""
    al.manual_seed(seed)
    layers = [al.nn.Linear(a, b) for a, b in zip(widths, widths[1:])]
    return layers, al.randn(batch, widths[0]), al.randn(batch, widths[-1])


def loss_of(layers, x, y, checkpointed=()):
    """Mean squared error of the MLP: blocks of two hidden layers (each Linear then ReLU),
    then a Linear; the blocks whose index is in ``checkpointed`` run under
    al.utils.checkpoint."""
    h = x
    for b in range(0, len(layers) - 1, BLOCK):
        def block(h, run=layers[b:b + BLOCK]):
            for layer in run:
                h = al.relu(layer(h))
            return h
        h = checkpoint(block, h, use_reentrant=False) if b // BLOCK in checkpointed else block(h)
    return al.nn.functional.mse_loss(layers[-1](h), y)


def measure(free=True, checkpointed=()):
    """(saved bytes after the forward, the peak during the backward) of one step."""
    layers, x, y = mlp()
    with al.autograd.graph.count_saved() as saved:
        loss = loss_of(layers, x, y, checkpointed)
        kept = saved.now
        loss.backward(retain_graph=not free)    # (retained: nothing freed during the walk)
    return kept, saved.peak


if __name__ == "__main__":
    for free in (False, True):
        for ck in ((), (0, 1, 2)):
            kept, peak = measure(free, ck)
            print(f"free as it walks={free!s:5}  checkpointed={ck!s:12}  "
                  f"saved after forward {kept:9,} B  peak in backward {peak:9,} B")
