"""What a graph keeps alive, measured in torch and in autograd_lab the same way: the bytes
of saved values, counted by torch's own saved_tensors_hooks (a holder per saved value,
counted until torch drops it), against al.autograd.graph.count_saved; and
torch.utils.checkpoint (non-reentrant) against al.utils.checkpoint: values, gradients,
runs of the block, bytes kept, warnings and errors."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402
import autograd_lab.utils.checkpoint  # noqa: E402,F401
import torch.utils.checkpoint  # noqa: E402,F401

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_memory  # noqa: E402

LIBS = (al, torch)


class TorchSaved:
    """Bytes of the values torch's graph saves, made by some operation (the storages of
    ``owned`` tensors, the parameters and data, are left out), each storage once, from
    the moment torch saves it until torch lets it go (the holder dies)."""

    def __init__(self, owned):
        self.owned = {t.untyped_storage().data_ptr() for t in owned}
        self.alive = {}                 # storage -> [holders, bytes]
        self.hooks = torch.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)

    def pack(self, t):
        ptr = t.untyped_storage().data_ptr()
        if ptr in self.owned:
            return t
        return _Holder(self, t, ptr)

    @staticmethod
    def unpack(h):
        return h.t if isinstance(h, _Holder) else h

    @property
    def now(self):
        return sum(n for _, n in self.alive.values())


class _Holder:
    def __init__(self, count, t, ptr):
        self.count, self.t, self.ptr = count, t, ptr
        count.alive.setdefault(ptr, [0, t.untyped_storage().nbytes()])[0] += 1

    def __del__(self):
        entry = self.count.alive[self.ptr]
        entry[0] -= 1
        if not entry[0]:
            del self.count.alive[self.ptr]


def torch_mlp():
    """bench_memory's MLP in torch, with autograd_lab's parameters and data."""
    layers, x, y = bench_memory.mlp()
    t_layers = []
    for layer in layers:
        t = torch.nn.Linear(*layer.weight.shape[::-1])
        with torch.no_grad():
            t.weight.copy_(torch.from_numpy(layer.weight.detach().numpy()))
            t.bias.copy_(torch.from_numpy(layer.bias.detach().numpy()))
        t_layers.append(t)
    return (layers, x, y), (t_layers, torch.from_numpy(x.numpy()), torch.from_numpy(y.numpy()))


def torch_loss(layers, x, y, checkpointed=()):
    h = x
    for b in range(0, len(layers) - 1, bench_memory.BLOCK):
        def block(h, run=layers[b:b + bench_memory.BLOCK]):
            for layer in run:
                h = torch.relu(layer(h))
            return h
        h = (torch.utils.checkpoint.checkpoint(block, h, use_reentrant=False)
             if b // bench_memory.BLOCK in checkpointed else block(h))
    return torch.nn.functional.mse_loss(layers[-1](h), y)


def owned(layers, x, y):
    return [p for layer in layers for p in layer.parameters()] + [x, y]


def test_the_mlp_saves_as_many_bytes_in_torch():
    (layers, x, y), (t_layers, tx, ty) = torch_mlp()
    counted = TorchSaved(owned(t_layers, tx, ty))
    with counted.hooks:
        t_loss = torch_loss(t_layers, tx, ty)
    with al.autograd.graph.count_saved() as saved:
        loss = bench_memory.loss_of(layers, x, y)
        assert saved.now == counted.now == 791_552
    assert abs(loss.item() - t_loss.item()) < 1e-5


def test_torch_frees_each_node_s_values_as_its_walk_goes_and_so_does_autograd_lab():
    (layers, x, y), (t_layers, tx, ty) = torch_mlp()
    counted = TorchSaved(owned(t_layers, tx, ty))
    with counted.hooks:
        t_loss = torch_loss(t_layers, tx, ty)
    seen = []                         # torch's count as each node is about to run

    def watch(node):
        if node is not None and node not in watched:
            watched.add(node)
            node.register_prehook(lambda grads: seen.append(counted.now))
            for child, _ in node.next_functions:
                watch(child)
    watched = set()
    watch(t_loss.grad_fn)
    t_loss.backward()
    seen.append(counted.now)
    with al.autograd.graph.count_saved() as saved:
        loss = bench_memory.loss_of(layers, x, y)
        before = saved.now
        loss.backward()
    ours = [before] + [now for _, now, held in saved.timeline if held]

    def steps(values):                # the distinct counts, in order
        return [v for k, v in enumerate(values) if k == 0 or v != values[k - 1]]
    # mse_loss lets go of its input (5,120 bytes), then each ReLU of its output in turn
    assert steps(ours) == steps(seen) == [791_552, 786_432] + [131_072 * k for k in range(5, -1, -1)]


@pytest.mark.parametrize("blocks", [(0,), (0, 1, 2)])
def test_checkpointed_blocks_keep_as_many_bytes_and_give_torch_s_gradients(blocks):
    (layers, x, y), (t_layers, tx, ty) = torch_mlp()
    counted = TorchSaved(owned(t_layers, tx, ty))
    kept_inputs = []                  # torch keeps each block's input beside its graph
    real = torch.utils.checkpoint.checkpoint

    def noting(fn, h, **kw):
        if h.grad_fn is not None:
            kept_inputs.append(h)
        return real(fn, h, **kw)
    torch.utils.checkpoint.checkpoint = noting
    try:
        with counted.hooks:
            t_loss = torch_loss(t_layers, tx, ty, blocks)
    finally:
        torch.utils.checkpoint.checkpoint = real
    extra = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in kept_inputs}
    torch_bytes = counted.now + sum(n for p, n in extra.items() if p not in counted.alive)
    with al.autograd.graph.count_saved() as saved:
        loss = bench_memory.loss_of(layers, x, y, blocks)
        assert saved.now == torch_bytes
    t_loss.backward()
    loss.backward()
    for ours, theirs in zip(layers, t_layers):
        np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(),
                                   rtol=1e-4, atol=1e-6)


def test_a_block_runs_twice_in_both_and_stops_early_at_its_last_saved_value():
    def run(lib):
        calls = []

        def block(t):
            calls.append("sin")
            s = t.sin()
            calls.append("exp")
            return s.exp()            # exp saves its output: the last value the block saves
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
        y.sum().backward()
        return calls, np.round(x.grad.numpy(), 5).tolist(), np.round(y.detach().numpy(), 5).tolist()
    assert run(al) == run(torch)


def test_the_warning_without_use_reentrant_is_torch_s():
    def warned(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                lib.utils.checkpoint.checkpoint(lambda t: t.sin(), lib.ones(2, requires_grad=True))
            except NotImplementedError:
                pass                  # (autograd_lab has no reentrant form: it says so)
        return [str(w.message) for w in caught if "use_reentrant" in str(w.message)]
    assert warned(al) == warned(torch) and len(warned(al)) == 1


def test_the_warning_of_checkpoint_sequential_without_use_reentrant_is_torch_s():
    def warned(lib):
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 2))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                lib.utils.checkpoint.checkpoint_sequential(model, 2, lib.ones(1, 2))
            except NotImplementedError:
                pass
        return [str(w.message) for w in caught if "use_reentrant" in str(w.message)][:1]
    assert warned(al) == warned(torch) and len(warned(al)) == 1


@pytest.mark.parametrize("call", [
    lambda lib: lib.utils.checkpoint.checkpoint(lambda t: t, lib.ones(2), use_reentrant=True, scale=2),
    lambda lib: lib.utils.checkpoint.checkpoint_sequential([lambda t: t], 1, lib.ones(2),
                                                           use_reentrant=False, scale=2),
    lambda lib: lib.utils.checkpoint.checkpoint(lambda t: t, lib.ones(2), use_reentrant=False,
                                                determinism_check="strict"),
])
def test_checkpoint_refuses_bad_arguments_in_torch_s_words(call):
    def error(lib):
        with pytest.raises(ValueError) as e:
            call(lib)
        return str(e.value)
    assert error(al) == error(torch)


def test_a_block_that_saves_less_when_run_again_is_refused_in_torch_s_words():
    def error(lib):
        first = [True]

        def block(t):
            if first and first.pop():
                return (t.exp() * t).sin()
            return (t * 2).sin()
        x = lib.ones(3, requires_grad=True)
        loss = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=False).sum()
        with pytest.raises(RuntimeError) as e:
            loss.backward()
        return type(e.value).__name__, str(e.value).split("\n\nTip")[0].strip()
    assert error(al) == error(torch)


def test_a_float16_pack_hook_keeps_as_many_bytes_in_torch():
    (layers, x, y), (t_layers, tx, ty) = torch_mlp()
    copies = []                       # torch: the half-size copies its pack hook made, alive

    def pack(t):
        half = t.to(torch.float16)
        copies.append(half)
        return half
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t.to(torch.float32)):
        torch_loss(t_layers, tx, ty).backward()
    with al.autograd.graph.count_saved() as saved:
        with al.autograd.graph.saved_tensors_hooks(lambda t: t.to(al.float16),
                                                   lambda t: t.to(al.float32)):
            loss = bench_memory.loss_of(layers, x, y)
        assert saved.now == sum(c.untyped_storage().nbytes() for c in copies)
        loss.backward()
    np.testing.assert_allclose(layers[0].weight.grad.numpy(), t_layers[0].weight.grad.numpy(),
                               rtol=1e-3, atol=1e-4)
