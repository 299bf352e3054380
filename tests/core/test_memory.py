"""What a graph keeps alive (book/05c): count_saved's bytes, freeing as the walk goes,
saved_tensors_hooks that keep less, and al.utils.checkpoint."""
import sys
import warnings
from pathlib import Path

import pytest

import autograd_lab as al
from autograd_lab.not_here import NotInAutogradLab
from autograd_lab.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_memory  # noqa: E402

ACT = 128 * 256 * 4                   # one hidden activation of the MLP: 128 x 256 float32


def small_mlp():
    al.manual_seed(0)
    l1, l2 = al.nn.Linear(8, 16), al.nn.Linear(16, 4)
    return l1, l2, al.randn(5, 8)


def test_count_saved_counts_what_the_rules_read_once_and_leaves_out_the_leaves():
    l1, l2, x = small_mlp()
    with al.autograd.graph.count_saved() as saved:
        h = al.relu(l1(x))            # relu keeps its output h (5 x 16 float32: 320 bytes);
        y = l2(h)                     # addmm keeps h too (counted once) and W: a leaf
        assert saved.now == 320
        loss = (y ** 2).sum()         # pow keeps y: 5 x 4 float32
        assert saved.now == 320 + 80 and saved.nodes == 7   # t, addmm, relu, t, addmm, pow, sum
        loss.backward()
        assert saved.now == 0 and saved.nodes == 7      # freed, still alive through loss


def test_the_mlp_keeps_one_activation_per_hidden_layer():
    layers, x, y = bench_memory.mlp()
    with al.autograd.graph.count_saved() as saved:
        loss = bench_memory.loss_of(layers, x, y)
        assert loss.grad_fn is not None and saved.now == 6 * ACT + 128 * 10 * 4      # and mse_loss keeps its input


def test_freeing_as_the_walk_goes_lowers_the_peak_of_the_backward():
    kept_commit, at_commit = bench_memory.measure(free=False)
    kept, as_it_walks = bench_memory.measure(free=True)
    assert kept == kept_commit == 791_552
    assert (at_commit, as_it_walks) == (1_184_768, 1_048_576)


def test_each_node_lets_go_once_its_rules_ran_unless_the_graph_is_retained():
    l1, l2, x = small_mlp()
    with al.autograd.graph.count_saved() as saved:
        loss = (l2(al.relu(l1(x))) ** 2).sum()
        loss.backward()
        walk = [(name, now) for name, now, _ in saved.timeline[7:]]
    assert walk == [("SumBackward0", 400), ("PowBackward0", 320), ("AddmmBackward0", 320),
                    ("TBackward0", 320), ("ReluBackward0", 0), ("AddmmBackward0", 0),
                    ("TBackward0", 0)]       # (after each node ran: h goes with relu)
    with al.autograd.graph.count_saved() as saved:
        loss = (l2(al.relu(l1(x))) ** 2).sum()
        loss.backward(retain_graph=True)
        assert saved.now == 400
        loss.backward()
        assert saved.now == 0


def test_total_loss_plus_loss_keeps_every_step_s_graph_and_item_keeps_none():
    l1, l2, x = small_mlp()
    with al.autograd.graph.count_saved() as saved:
        total = 0
        for _ in range(3):
            loss = (l2(al.relu(l1(x))) ** 2).sum()
            loss.backward()
            total += loss             # the graph of every step hangs on total
        assert saved.nodes == 3 * 7 + 3 and saved.now == 0   # and three additions
    with al.autograd.graph.count_saved() as saved:
        total = 0.0
        for _ in range(3):
            loss = (l2(al.relu(l1(x))) ** 2).sum()
            loss.backward()
            total += loss.item()
        del loss
        assert saved.nodes == 0


def test_without_backward_total_loss_keeps_every_step_s_saved_values():
    l1, l2, x = small_mlp()
    with al.autograd.graph.count_saved() as saved:
        total = 0
        for step in range(3):
            total = total + (l2(al.relu(l1(x))) ** 2).sum()
            assert saved.now == (step + 1) * 400


def test_a_float16_pack_hook_halves_the_bytes_and_the_gradient_stays_close():
    l1, l2, x = small_mlp()
    loss = (l2(al.relu(l1(x))) ** 2).sum()
    loss.backward()
    exact = l1.weight.grad.clone()
    l1.weight.grad = None
    with al.autograd.graph.count_saved() as saved:
        with al.autograd.graph.saved_tensors_hooks(lambda t: t.to(al.float16),
                                                   lambda t: t.to(al.float32)):
            loss = (l2(al.relu(l1(x))) ** 2).sum()
        # half-size copies of x (80), of h twice (relu and addmm each pack it: 2 x 160),
        # of l2's weight as addmm saves it (w.t(): 128) and of y (40): the graph keeps
        # more than the 400 bytes it kept of h and y, as leaves and their views are copied
        assert saved.now == 80 + 2 * 160 + 128 + 40 == 568
        loss.backward()
    assert al.allclose(l1.weight.grad, exact, rtol=1e-2, atol=1e-2)
    assert not al.equal(l1.weight.grad, exact)         # but float16 rounded the values


def test_a_pack_hook_that_keeps_the_values_elsewhere_leaves_nothing_in_the_graph():
    l1, l2, x = small_mlp()
    store = {}

    def pack(t):                      # a stand-in for "move to the CPU": a dict outside
        store[len(store)] = t.detach().numpy().copy()
        return len(store) - 1

    with al.autograd.graph.count_saved() as saved:
        with al.autograd.graph.saved_tensors_hooks(pack, lambda k: al.from_numpy(store.pop(k))):
            loss = (l2(al.relu(l1(x))) ** 2).sum()
        assert saved.now == 0 and len(store) == 5       # x, h (relu, addmm), w.t(), y
        loss.backward()
    assert store == {} and l1.weight.grad.shape == (16, 8)


def _runs_of(block):
    calls = []

    def counted(*args):
        calls.append(1)
        return block(*args)
    return counted, calls


@pytest.mark.parametrize("blocks", [(), (0,), (0, 1, 2)])
def test_checkpoint_gives_the_same_gradients_and_runs_each_block_once_more(blocks):
    layers, x, y = bench_memory.mlp()
    bench_memory.loss_of(layers, x, y).backward()
    plain = [p.grad.clone() for layer in layers for p in layer.parameters()]
    for layer in layers:
        layer.zero_grad(set_to_none=True)
    bench_memory.loss_of(layers, x, y, blocks).backward()
    for a, b in zip(plain, [p.grad for layer in layers for p in layer.parameters()]):
        assert al.allclose(a, b, rtol=1e-5, atol=1e-6)


def test_checkpoint_keeps_only_the_block_s_input_and_runs_it_again_in_the_backward():
    l1, l2, x = small_mlp()
    block, calls = _runs_of(lambda t: l2(al.relu(l1(t))))
    h0 = x * 1.0                      # an input some operation made (a leaf is not counted)
    with al.autograd.graph.count_saved() as saved:
        y = checkpoint(block, h0, use_reentrant=False)
        assert saved.now == 0 and len(calls) == 1       # h0 is kept: made outside the count
        loss = (y ** 2).sum()
        assert saved.now == 80
        loss.backward()
    assert len(calls) == 2 and l1.weight.grad.shape == (16, 8)


def test_checkpoint_runs_the_block_again_for_each_retained_backward():
    l1, l2, x = small_mlp()
    block, calls = _runs_of(lambda t: l2(al.relu(l1(t))))
    loss = (checkpoint(block, x, use_reentrant=False) ** 2).sum()
    loss.backward(retain_graph=True)
    first = l1.weight.grad.clone()
    loss.backward()
    assert len(calls) == 3 and al.allclose(l1.weight.grad, 2 * first)


def test_checkpoint_under_no_grad_just_runs_the_block():
    l1, l2, x = small_mlp()
    block, calls = _runs_of(lambda t: l2(al.relu(l1(t))))
    with al.no_grad():
        y = checkpoint(block, x, use_reentrant=False)
    assert y.grad_fn is None and len(calls) == 1


def test_checkpoint_replays_the_random_generator_so_dropout_draws_the_same_mask():
    al.manual_seed(1)
    x = al.ones(200, requires_grad=True)
    y = checkpoint(lambda t: al.nn.functional.dropout(t, 0.5) * t, x, use_reentrant=False)
    y.sum().backward()
    kept = (y > 0).to(al.float32)
    assert al.equal(x.grad, 2 * 2 * kept)        # d(dropout(t) * t)/dt = 2 * 2 t at kept entries


def test_checkpoint_sequential_gives_the_plain_gradients():
    al.manual_seed(0)
    model = al.nn.Sequential(al.nn.Linear(4, 8), al.nn.ReLU(), al.nn.Linear(8, 8), al.nn.ReLU(),
                             al.nn.Linear(8, 2))
    x = al.randn(3, 4)
    model(x).sum().backward()
    plain = model[0].weight.grad.clone()
    model.zero_grad()
    checkpoint_sequential(model, 2, x, use_reentrant=False).sum().backward()
    assert al.allclose(model[0].weight.grad, plain)


def test_checkpoint_without_use_reentrant_warns_in_torch_s_words_then_says_what_is_missing():
    with pytest.warns(UserWarning, match="^torch.utils.checkpoint: the use_reentrant parameter "
                      "should be passed explicitly"), \
            pytest.raises(NotInAutogradLab, match="pass use_reentrant=False"):
        checkpoint(al.sin, al.ones(2, requires_grad=True))
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: scale$"):
        checkpoint(al.sin, al.ones(2), use_reentrant=True, scale=2)
    with pytest.raises(NotInAutogradLab, match="context_fn and debug are not implemented"):
        checkpoint(al.sin, al.ones(2), use_reentrant=False, debug=True)


def test_a_block_that_saves_less_the_second_time_is_refused_in_torch_s_words():
    x = al.ones(3, requires_grad=True)
    first = [True]

    def block(t):
        if first.pop() if first else False:
            return (t.exp() * t).sin()            # saves exp's output, t, and mul's output
        return (t * 2).sin()                      # saves one
    loss = checkpoint(block, x, use_reentrant=False).sum()
    with pytest.raises(CheckpointError, match="^torch.utils.checkpoint: A different number of "
                       "tensors was saved during the original forward and recomputation.\n"
                       "Number of tensors saved during forward: 4\n"
                       "Number of tensors saved during recomputation: 1."):
        loss.backward()


def test_count_saved_in_the_timeline_shows_the_block_coming_back_in_the_backward():
    layers, x, y = bench_memory.mlp()
    with al.autograd.graph.count_saved() as saved:
        loss = bench_memory.loss_of(layers, x, y, (1,))
        kept_after_forward = saved.now
        loss.backward()
    # block 1 keeps its input (block 0's output, kept anyway) and nothing inside: its
    # first ReLU's output goes; its second's is the last block's input, kept anyway
    assert kept_after_forward == 5 * ACT + 128 * 10 * 4
    during = [now for name, now, held in saved.timeline if held]
    # the block comes back in the backward, when the blocks after it are freed already
    assert max(during) == 5 * ACT and saved.now == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bench_memory.measure(True, (0, 1, 2)) == (398_336, 786_432)
