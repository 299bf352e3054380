"""Hooks on graph nodes and after .grad is written, without torch: what the walk calls
(nothing, where nothing is hooked), what hooks may keep, what an error leaves, and the
saved values allow_mutation_on_saved_tensors copies."""
from pathlib import Path

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab import engine, watch


def leaf(values):
    return al.tensor(values, dtype=al.float64, requires_grad=True)


def test_a_plain_backward_calls_nothing_in_watch(monkeypatch):
    def refuse(*args):
        raise AssertionError("watch.py was called for a graph without hooks")
    for name in ("arrive", "run_node", "accumulated"):
        monkeypatch.setattr(watch, name, refuse)
    x = leaf([1.0, 2.0])
    y = (x * 3).exp()
    h = y.grad_fn.register_prehook(lambda go: None)     # registered, then removed: nothing left
    h.remove()
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), 3 * np.exp([3.0, 6.0]))


def test_only_the_hooked_node_goes_through_run_node(monkeypatch):
    ran = []
    real = watch.run_node
    monkeypatch.setattr(watch, "run_node", lambda node, *a: ran.append(node.name()) or real(node, *a))
    x = leaf([1.0, 2.0])
    y = (x * 3).exp().sin()
    y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: None)
    y.sum().backward()
    assert ran == ["ExpBackward0"]


def test_a_gradient_a_node_hook_saw_does_not_become_a_grad():
    x = leaf([1.0, 2.0])
    y = x.exp()
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append(gi[0]))
    acc = y.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: seen.append(go[0]))
    y.sum().backward()
    for t in seen:
        t.zero_()                                       # the user writes what the hooks kept
    assert np.allclose(x.grad.numpy(), np.exp([1.0, 2.0]))


def test_an_input_used_twice_gets_one_entry_per_use_in_grad_inputs():
    x = leaf([1.0, 2.0])
    y = x * x
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append([g.tolist() for g in gi]) or (gi[0] * 0, gi[1]))
    y.sum().backward()
    assert seen == [[[1.0, 2.0], [1.0, 2.0]]]
    assert x.grad.tolist() == [1.0, 2.0]              # the first use's share replaced by zero


def test_a_hook_that_raises_leaves_every_grad_as_it_was():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x * w).sum().backward()
    y = (x * w).exp()
    y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: 1 / 0)   # MulBackward0
    with pytest.raises(ZeroDivisionError):
        y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0] and w.grad.tolist() == [1.0, 2.0]


def test_post_accumulate_grad_hooks_run_after_every_grad_is_written():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append((t.grad.tolist(), w.grad.tolist())))
    (x * w).sum().backward()
    assert seen == [([3.0, 4.0], [1.0, 2.0])]          # w's .grad too: the commit wrote both


def test_handles_remove_their_own_hook_and_say_so_in_with_blocks():
    x = leaf([1.0, 2.0])
    y = x * 2
    handles = [y.grad_fn.register_prehook(lambda go: (go[0] * 10,)) for _ in range(2)]
    assert handles[0].id < handles[1].id
    with y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None)) as h:
        assert isinstance(h, watch.RemovableHandle)
    handles[0].remove()
    y.sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]
    hooks = y.grad_fn.hooks
    handles[1].remove()
    assert not hooks and not hooks.post


def test_a_nodes_metadata_is_its_own_dict_kept_while_it_lives():
    x = leaf([1.0])
    y, z = x * 2, x * 3
    y.grad_fn.metadata["step"] = 7
    assert y.grad_fn.metadata == {"step": 7} and z.grad_fn.metadata == {}
    acc = y.grad_fn.next_functions[0][0]
    acc.metadata["name"] = "x"
    assert z.grad_fn.next_functions[0][0].metadata == {"name": "x"}   # the same leaf's node


def test_a_backward_with_create_graph_goes_through_the_copies_allow_mutation_keeps():
    with al.autograd.graph.allow_mutation_on_saved_tensors() as saved:
        x = leaf([1.0, 2.0])
        y = x ** 3                                      # saves x
        (g,) = al.autograd.grad(y.sum(), x, create_graph=True)
        g.sum().backward()
        assert saved.saved                              # the copies, while the block lasts
    assert np.allclose(g.detach().numpy(), [3.0, 12.0])
    assert np.allclose(x.grad.numpy(), [6.0, 12.0])     # d(3 x^2)/dx: through the copy of x
    assert not saved.saved                              # let go of at the end


def test_allow_mutation_lets_a_saved_value_be_written_and_differentiates_the_old_one():
    with al.autograd.graph.allow_mutation_on_saved_tensors():
        a = leaf([[0.5, 1.0], [2.0, 3.0]])
        b = a.clone()
        out = (b ** 2).sum()                            # pow saves b ...
        b.sin_()                                        # ... which is written over
        e = (a * 1).exp()                               # exp saves its output ...
        e.mul_(2)                                       # ... written over too
        (out + e.sum()).backward()
    a0 = np.array([[0.5, 1.0], [2.0, 3.0]])
    assert np.allclose(a.grad.numpy(), 2 * a0 + 2 * np.exp(a0))    # (e = 2 exp(a) after mul_)
    assert np.allclose(b.detach().numpy(), np.sin(a0))


def test_allow_mutation_lets_go_of_a_copy_with_its_graph():
    with al.autograd.graph.allow_mutation_on_saved_tensors() as saved:
        x = leaf([1.0, 2.0])
        out = (x.clone() ** 2).sum()
        kept = len(saved.saved)
        out.backward()
        del out
        assert kept == 1 and len(saved.saved) == 0


def test_allow_mutation_refuses_a_backward_after_the_block_and_a_block_inside_another():
    with al.autograd.graph.allow_mutation_on_saved_tensors():
        out = (leaf([0.5, 1.0]).clone() ** 2).sum()
    with pytest.raises(AssertionError, match="Trying to backward outside of the "
                                             "'allow_mutation_on_saved_tensors' context"):
        out.backward()
    with al.autograd.graph.allow_mutation_on_saved_tensors():
        with pytest.raises(RuntimeError, match="contexts cannot be nested"):
            with al.autograd.graph.allow_mutation_on_saved_tensors():
                pass
        x = leaf([2.0])
        (x.clone() ** 2).sum().backward()               # the outer block still works
    assert x.grad.tolist() == [4.0]


def test_multi_grad_hook_counts_only_the_tensors_the_walk_reaches():
    a, b = leaf([1.0]), leaf([2.0])
    c = a * 2
    calls = []
    al.autograd.graph.register_multi_grad_hook((a, b, c), lambda grads: calls.append(
        [None if g is None else g.tolist() for g in grads]))
    c.sum().backward()                                  # b is not in this graph
    assert calls == [[[2.0], None, [1.0]]]


def test_reachable_is_every_node_below_the_roots():
    x = leaf([1.0])
    y = (x * 2).exp()
    nodes = engine.reachable([y.grad_fn])
    assert {n.name().split("::")[-1] for n in nodes} == {"ExpBackward0", "MulBackward0", "AccumulateGrad"}


def test_anomaly_modes_forward_traceback_shows_the_users_lines_and_none_of_the_package():
    x = al.tensor([0., 4.], requires_grad=True)
    with pytest.warns(UserWarning) as caught, al.autograd.detect_anomaly():
        y = al.where(x > 0, x.sqrt(), 0.)
        with pytest.raises(RuntimeError, match="'SqrtBackward0' returned nan values"), \
                np.errstate(invalid="ignore", divide="ignore"):       # (0 / 0 is the point)
            y.sum().backward()
    text = "\n".join(str(w.message) for w in caught)
    assert "y = al.where(x > 0, x.sqrt(), 0.)" in text
    package = Path(al.__file__).parent
    assert str(package) not in text, text
