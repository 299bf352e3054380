"""backward() and autograd.grad(): accumulation, freeing, hooks, modes, errors."""
import gc
import re
import warnings
import weakref

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab import recording, saved

from op_cases import INPLACE_AFTER_FORWARD


def leaf(values, dtype=al.float64):
    return al.tensor(values, dtype=dtype, requires_grad=True)


# -- accumulation and what grad() leaves alone --------------------------------------------
def test_backward_accumulates_into_grad():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_grad_returns_gradients_and_leaves_dot_grad_alone():
    x = leaf([1.0, 2.0])
    x.grad = al.tensor([5.0, 5.0], dtype=al.float64)
    (g,) = al.autograd.grad((x * x).sum(), x)
    assert g.tolist() == [2.0, 4.0]
    assert x.grad.tolist() == [5.0, 5.0]


def test_grad_always_returns_a_tuple():
    x = leaf([1.0])
    assert isinstance(al.autograd.grad((x * 3).sum(), x), tuple)
    assert len(al.autograd.grad((x * 3).sum(), [x])) == 1


def test_accumulation_keeps_the_grad_tensor_identity():
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    g = x.grad
    (x * 3).sum().backward()
    assert g is x.grad and g.tolist() == [6.0, 6.0]


def test_new_grad_does_not_alias_the_seed():
    x = leaf([1.0, 2.0])
    seed = al.tensor([1.0, 1.0], dtype=al.float64)
    (x + 0).backward(seed)
    x.grad.zero_()
    assert seed.tolist() == [1.0, 1.0]


def test_non_leaf_grad_is_none_and_warns():
    x = leaf([1.0])
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None


def test_retain_grad_keeps_a_non_leaf_gradient():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.tolist() == [4.0, 8.0]


def test_grad_with_respect_to_an_intermediate_tensor():
    x = leaf([1.0, 2.0])
    y = x * 3
    z = (y * y).sum()
    (gy,) = al.autograd.grad(z, y, retain_graph=True)
    assert gy.tolist() == [6.0, 12.0]
    (gx,) = al.autograd.grad(z, x)
    assert gx.tolist() == [18.0, 36.0]


def test_backward_inputs_restricts_which_leaves_accumulate():
    x, w = leaf([1.0]), leaf([2.0])
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None and w.grad.tolist() == [1.0]


def test_several_uses_of_a_tensor_sum_their_gradients():
    x = leaf([3.0])
    y = x * x + x * 2 + x
    y.backward(al.tensor([1.0], dtype=al.float64))
    assert x.grad.tolist() == [2 * 3.0 + 2 + 1]


def test_diamond_graph():
    x = leaf([2.0])
    a, b = x * 3, x ** 2
    (a * b).sum().backward()
    assert x.grad.tolist() == [9 * 2.0 ** 2]     # d(3x^3)/dx


# -- freeing and retain_graph -----------------------------------------------------------
FREED = "Trying to backward through the graph a second time"


def test_second_backward_without_retain_graph_raises():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_graph_of_ops_that_save_nothing_can_be_walked_again():
    x = leaf([1.0, 2.0])
    y = (x + 1).sum()
    y.backward()
    y.backward()                          # torch allows it: AddBackward0 saves nothing
    assert x.grad.tolist() == [2.0, 2.0]


def test_retain_graph_keeps_saved_values():
    x = leaf([1.0])
    y = (x.exp()).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert np.allclose(x.grad.numpy(), 2 * np.e)


def test_grad_frees_the_graph_too():
    x = leaf([1.0])
    y = (x * x).sum()
    al.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match=FREED):
        al.autograd.grad(y, x)


def test_freed_node_asked_for_and_walked_through_raises_the_freed_error():
    # y is both an input of grad() and on the way to x: its freed rule must not run
    x = leaf([1.0, 2.0])
    y = x * x
    z = y.sum()
    z.backward()
    with pytest.raises(RuntimeError, match=FREED):
        al.autograd.grad(z, [y, x])
    assert x.grad.tolist() == [2.0, 4.0]


# -- second derivatives ---------------------------------------------------------------------
def test_create_graph_gives_second_derivatives():
    x = leaf([1.5, -2.0])
    y = (x ** 3).sum()
    (g,) = al.autograd.grad(y, x, create_graph=True)
    assert g.requires_grad and np.allclose(g.detach().numpy(), 3 * np.array([1.5, -2.0]) ** 2)
    (h,) = al.autograd.grad(g.sum(), x)
    assert np.allclose(h.numpy(), 6 * np.array([1.5, -2.0]))


def test_create_graph_through_sigmoid_matches_the_analytic_second_derivative():
    x = leaf([0.3])
    (g,) = al.autograd.grad(al.sigmoid(x).sum(), x, create_graph=True)
    (h,) = al.autograd.grad(g.sum(), x)
    s = 1 / (1 + np.exp(-0.3))
    assert np.allclose(h.numpy(), s * (1 - s) * (1 - 2 * s))


def test_backward_with_create_graph_makes_grad_differentiable():
    x = leaf([2.0])
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None
    (g2,) = al.autograd.grad(x.grad.sum(), x)
    assert g2.tolist() == [12.0]


# -- batched seeds --------------------------------------------------------------------------
def test_is_grads_batched_equals_one_grad_per_seed():
    al.manual_seed(1)
    W = al.randn(3, 4, dtype=al.float64)
    x = al.randn(4, dtype=al.float64, requires_grad=True)
    y = al.tanh(W @ x) * x[:3]
    seeds = al.randn(5, 3, dtype=al.float64)
    (batched,) = al.autograd.grad(y, x, seeds, is_grads_batched=True, retain_graph=True)
    assert batched.shape == (5, 4)
    for i in range(5):
        (one,) = al.autograd.grad(y, x, seeds[i], retain_graph=True)
        assert np.allclose(batched[i].numpy(), one.numpy())


def test_is_grads_batched_is_one_backward_pass():
    x = leaf([1.0, 2.0, 3.0])
    y = x.sin() * 2
    with al.autograd.count_passes() as c:
        al.autograd.grad(y, x, al.eye(3, dtype=al.float64), is_grads_batched=True)
    assert c.backward == 1


def test_is_grads_batched_checks_the_trailing_shape():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"grad_output\[0\] has a shape of \(3, 3\) and output\[0\] "
                                           r"has a shape of \(2,\)"):
        al.autograd.grad(x * 2, x, al.ones(3, 3), is_grads_batched=True)


# -- hooks, modes, detach -------------------------------------------------------------------
def test_hook_sees_the_gradient_flowing_into_a_tensor_and_can_replace_it():
    x = leaf([1.0, 2.0])
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    handle = x.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    assert seen == [[6.0, 12.0]]
    assert x.grad.tolist() == [180.0, 360.0]
    handle.remove()
    x.grad = None
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_hook_on_tensor_without_grad_is_refused():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        al.ones(2).register_hook(print)


def test_no_grad_records_nothing_and_works_as_decorator():
    x = leaf([1.0])
    with al.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None

    @al.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad
    assert (x * 2).requires_grad


def test_enable_grad_inside_no_grad():
    x = leaf([1.0])
    with al.no_grad():
        with al.enable_grad():
            assert (x * 2).requires_grad


def test_detach_cuts_the_graph_and_shares_memory():
    x = leaf([1.0, 2.0])
    d = (x * 2).detach()
    assert not d.requires_grad and d.grad_fn is None
    y = x * 2 + d
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    data = x.data
    data[0] = 7.0
    assert x.tolist()[0] == 7.0


def test_cond_records_only_the_branch_taken():
    x = leaf([2.0])
    out = al.cond(x.sum() > 0, lambda t: t * 3, lambda t: t.exp(), (x,))
    assert out.grad_fn.name() == "MulBackward0"
    out.sum().backward()
    assert x.grad.tolist() == [3.0]


def test_detect_anomaly_names_the_rule_that_made_nan():
    x = al.tensor([-1.0, 4.0], requires_grad=True)
    with al.autograd.detect_anomaly():
        z = al.where(x > 0, al.sqrt(x), 0.0)
        with pytest.raises(RuntimeError, match=r"^Function 'SqrtBackward0' returned nan values in its 0th output\.$"), \
                pytest.warns(UserWarning, match=r"^Error detected in SqrtBackward0. Traceback of forward call "
                                                r"that caused the error:\n(.|\n)*al.sqrt\(x\)"):
            z.sum().backward()
    assert x.grad is None


def test_nan_in_the_discarded_branch_poisons_the_gradient_without_anomaly_mode():
    x = al.tensor([-1.0, 4.0], requires_grad=True)
    al.where(x > 0, al.sqrt(x), 0.0).sum().backward()
    assert np.isnan(x.grad.numpy()[0]) and x.grad.tolist()[1] == 0.25


def test_double_where_fixes_the_nan():
    x = al.tensor([-1.0, 4.0], requires_grad=True)
    safe = al.where(x > 0, x, 1.0)
    al.where(x > 0, al.sqrt(safe), 0.0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.25]


# -- deep graphs ----------------------------------------------------------------------------
def test_backward_through_a_100000_op_chain():
    x = leaf([1.0, 2.0])
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


# -- user Functions -------------------------------------------------------------------------
class Cube(al.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2


def test_custom_function_is_a_named_node_the_engine_walks():
    x = leaf([2.0])
    y = Cube.apply(x)
    assert y.grad_fn.name() == "CubeBackward"
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    (y * 2).sum().backward()
    assert x.grad.tolist() == [24.0] and seen == [[2.0]]


def test_custom_function_second_derivative_through_create_graph():
    x = leaf([2.0])
    (g,) = al.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (h,) = al.autograd.grad(g.sum(), x)
    assert h.tolist() == [12.0]


class SavesItsOutput(al.autograd.Function):
    @staticmethod
    def forward(x):
        return x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


def test_a_saved_output_is_the_recorded_output_so_a_second_derivative_works():
    x = leaf([0.5])
    (g,) = al.autograd.grad(SavesItsOutput.apply(x).sum(), x, create_graph=True)
    assert g.grad_fn is not None and g.grad_fn.name() == "MulBackward0"
    assert np.isclose(al.autograd.grad(g.sum(), x)[0].item(), np.exp(0.5))
    assert al.autograd.gradgradcheck(SavesItsOutput.apply, al.tensor([0.3], dtype=al.float64, requires_grad=True))


class SplitSquare(al.autograd.Function):
    """Two outputs (x ** 2 and 2x), the second not differentiable; an optional scale."""
    @staticmethod
    def forward(ctx, x, scale=None):
        twice = 2 * x
        ctx.mark_non_differentiable(twice)
        ctx.save_for_backward(x)
        return x * x, twice

    @staticmethod
    def backward(ctx, g_square, g_twice):
        (x,) = ctx.saved_tensors
        assert ctx.needs_input_grad == (True,) and g_twice.tolist() == [0.0, 0.0]
        return 2 * x * g_square, None          # None for the scale that was not passed


def test_a_function_with_two_outputs_gets_a_gradient_for_each_and_none_for_an_unpassed_input():
    x = leaf([1.0, 3.0])
    square, twice = SplitSquare.apply(x)
    assert square.grad_fn.name() == "SplitSquareBackward" and not twice.requires_grad
    (square * 3).sum().backward()
    assert x.grad.tolist() == [6.0, 18.0]


def test_forward_ad_pushes_a_tangent_and_takes_it_back_at_the_end_of_the_level():
    fwAD = al.autograd.forward_ad
    tangent = al.tensor([1.0, 0.0])
    with fwAD.dual_level():
        y = fwAD.make_dual(al.tensor([2.0, 3.0]), tangent) ** 2
        assert fwAD.unpack_dual(y).tangent.tolist() == [4.0, 0.0]
        assert fwAD.unpack_dual(fwAD.make_dual(al.ones(2), tangent)).tangent is tangent
    assert fwAD.unpack_dual(y).tangent is None
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(al.ones(2), tangent)


def test_custom_function_is_counted_as_an_op():
    x = leaf([2.0])
    with al.autograd.count_passes() as c:
        Cube.apply(x)
    assert c.ops == 2      # the pow inside forward, and the CubeBackward node itself


def test_custom_function_returning_wrong_number_of_grads_is_an_error():
    class Bad(al.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        Bad.apply(x).sum().backward()
    assert x.grad is None


# -- after an error, nothing has changed -----------------------------------------------------
def _layer():
    W = leaf([[0.5, -1.0]])
    b = leaf([0.1])
    y = al.sigmoid(W @ al.tensor([[1.0], [2.0]], dtype=al.float64) + b)
    return W, b, y


@pytest.mark.parametrize("bad_call", [
    lambda y: y.backward(al.ones(3, dtype=al.float64)),                        # seed of the wrong shape
    lambda y: (y * al.tensor([1.0, 2.0], dtype=al.float64)).backward(),       # implicit seed of a non-scalar
    lambda y: al.autograd.grad(y.sum(), [al.ones(1, requires_grad=True)]),     # input not in the graph
    lambda y: al.autograd.grad(y.sum(), [al.ones(1)]),                          # input without grad
])
def test_a_failed_call_leaves_grads_and_graph_untouched(bad_call):
    W, b, y = _layer()
    W.grad = al.tensor([[7.0, 7.0]], dtype=al.float64)
    with pytest.raises(RuntimeError):
        bad_call(y)
    assert W.grad.tolist() == [[7.0, 7.0]] and b.grad is None
    y.sum().backward()                     # the graph was not freed by the failed call
    assert b.grad is not None


def test_an_error_inside_the_walk_leaves_grads_untouched_and_frees_the_nodes_that_ran():
    x = al.tensor([-1.0, 4.0], requires_grad=True)
    y = al.where(x > 0, al.sqrt(x), 0.0).sum()
    with al.autograd.detect_anomaly(), pytest.raises(RuntimeError, match="SqrtBackward0"), \
            pytest.warns(UserWarning, match="^Error detected in SqrtBackward0. No forward pass information"):
        y.backward()
    assert x.grad is None
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()                       # as in torch: the nodes that ran were freed


@pytest.mark.parametrize("grad_shape, create_graph, message", [
    ((3,), False, r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 0\. "),
    ((3,), True, r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 0\. "),
    ((1,), False, r"^output with shape \[1\] doesn't match the broadcast shape \[2\]\. "),   # in place
])
def test_a_grad_that_cannot_take_the_gradient_is_refused_before_any_grad_is_written(
        grad_shape, create_graph, message):
    # .grad.data = ... can give a .grad another shape; the clash shows only when the walk
    # is over and the gradients are being written: the earlier leaf must stay as it was
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    a.grad = al.ones(2, dtype=al.float64)
    b.grad = al.zeros(2, dtype=al.float64)
    b.grad.data = al.zeros(*grad_shape, dtype=al.float64)
    y = (a * b).sum()
    with pytest.raises(RuntimeError, match=message + r".*no \.grad was changed"):
        y.backward(create_graph=create_graph)
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [0.0] * grad_shape[0]
    b.grad = None                          # mended: but, as in torch, the walk freed each
    if create_graph:                       # node once its rules ran (a create_graph walk
        y.backward()                       # retains the graph)
        assert a.grad.tolist() == [4.0, 5.0] and b.grad.tolist() == [1.0, 2.0]
    else:
        with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
            y.backward()


def test_a_grad_of_a_broadcastable_shape_accumulates_as_in_torch():
    a = leaf([1.0, 2.0])
    a.grad = al.zeros(2, dtype=al.float64)
    a.grad.data = al.zeros(3, 2, dtype=al.float64)
    (a * 10).sum().backward()              # in place: into the bigger .grad
    assert a.grad.tolist() == [[10.0, 10.0]] * 3
    a.grad.data = al.zeros(1, dtype=al.float64)
    (a * 10).sum().backward(create_graph=True)      # out of place: .grad + gradient
    assert a.grad.tolist() == [10.0, 10.0]
    y = a * 1.0
    y.retain_grad()
    (y * 2).sum().backward(retain_graph=True)
    y.grad.data = al.zeros(1, dtype=al.float64)
    (y * 2).sum().backward(inputs=[y])     # a non-leaf's .grad: out of place too
    assert y.grad.tolist() == [2.0, 2.0]


def test_backward_inputs_retains_a_non_leafs_gradient_even_if_the_walk_fails():
    x = leaf([1.0, -1.0])
    y = x * 2
    s = y.sqrt().sum()
    with al.autograd.detect_anomaly(), pytest.raises(RuntimeError, match="SqrtBackward0"), \
            pytest.warns(UserWarning, match="^Error detected in SqrtBackward0"):
        s.backward(inputs=[x, y])
    assert y.retains_grad and x.grad is None and y.grad is None      # as torch
    z, n = x * 3, al.tensor([1.0, 2.0], dtype=al.float64)
    with pytest.raises(RuntimeError, match="^can't retain_grad on Tensor that has requires_grad=False$"):
        (z * n).sum().backward(inputs=[n, z])   # one by one, as torch: n refuses before z retains
    assert not z.retains_grad


def test_unused_input_error_and_allow_unused():
    x, unused = leaf([1.0]), leaf([2.0])
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match=r"^The differentiated Tensor at index 1 appears to not have been used "
                                           r"in the graph\. Set allow_unused=True if this is the desired behavior\.$"):
        al.autograd.grad(y, [x, unused], retain_graph=True)
    gx, gu = al.autograd.grad(y, [x, unused], allow_unused=True, retain_graph=True)
    assert gx.tolist() == [2.0] and gu is None
    gx, gu = al.autograd.grad(y, [x, unused], materialize_grads=True)
    assert gu.tolist() == [0.0]


def test_output_without_grad_fn_is_refused_with_torchs_text():
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a grad_fn$"):
        al.ones(2).sum().backward()


def test_trace_records_each_node_and_edge_in_walk_order():
    x = leaf([1.0, 2.0])
    with al.autograd.trace_backward() as trace:
        ((x * x).sum() * 3).backward()
    assert [s.name for s in trace.steps] == ["MulBackward0", "SumBackward0", "MulBackward0",
                                             "AccumulateGrad"]
    assert trace.steps[2].received.tolist() == [3.0, 3.0]
    assert [g.tolist() for _, _, g in trace.steps[2].sent] == [[3.0, 6.0], [3.0, 6.0]]
    assert "AccumulateGrad receives [ 6., 12.]" in str(trace)


def test_walk_runs_the_latest_recorded_node_first():
    x = leaf([1.0, 2.0])
    u = x.exp()                      # recorded first
    v = x.sin()                      # recorded second: its branch is walked first
    with al.autograd.trace_backward() as trace:
        (v + u).sum().backward()
    assert [s.name for s in trace.steps] == ["SumBackward0", "AddBackward0", "SinBackward0",
                                             "ExpBackward0", "AccumulateGrad"]
    seqs = [s.node.seq for s in trace.steps]
    assert seqs == sorted(seqs, reverse=True)
    # the leaf's node runs once, with both contributions already summed
    assert np.allclose(trace.steps[-1].received, np.exp([1.0, 2.0]) + np.cos([1.0, 2.0]))


def test_backward_with_inputs_leaves_a_leaf_output_that_is_not_an_input_alone():
    a, w = leaf([1.0, 2.0]), leaf([3.0])
    y = (w * 2).sum()
    al.autograd.backward([a, y], [al.ones_like(a), al.tensor(1.0)], inputs=[w])
    assert a.grad is None and w.grad.tolist() == [2.0]


def test_grad_to_an_intermediate_leaves_the_rest_of_the_graph_usable():
    x = leaf([1.0, 2.0])
    y = x.exp()
    z = (y * y).sum()
    (dz_dy,) = al.autograd.grad(z, y)          # the walk stops at y: y's node never ran
    (dz_dx,) = al.autograd.grad(y, x, dz_dy)   # so its saved values are still there (as in torch)
    assert np.allclose(dz_dx.numpy(), 2 * np.exp(2 * np.array([1.0, 2.0])))


def test_where_with_float_numbers_in_both_branches_is_float32_like_torch():
    assert al.where(al.tensor([True, False]), 1.0, 0.0).dtype == al.float32
    assert al.where(al.tensor([True, False]), 1, 0).dtype == al.int64


def test_nan_and_inf_are_computed_silently_like_torch():
    import subprocess
    import sys
    code = ("import autograd_lab as al\n"
            "x = al.tensor([0.0, 1.0], requires_grad=True)\n"
            "y = x * x.log() / x\n"
            "y.sum().backward()\n"
            "print(y.tolist(), x.grad.tolist())\n")
    # -W error turns any warning into a failure; autograd_lab must raise none
    run = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[nan, 0.0] [nan, 1.0]"


# -- in-place writes and saved values (torch's version counter) ------------------------------
MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"


def test_changing_a_saved_input_in_place_is_caught_at_backward():
    x = leaf([1.0, 2.0])
    c = al.tensor([3.0, 4.0], dtype=al.float64)
    y = x * c
    c += 1
    with pytest.raises(RuntimeError, match=MODIFIED + r": \[al.DoubleTensor \[2\]\] is at version 1; expected "
                                                      r"version 0 instead. Hint: "):
        y.sum().backward()
    assert x.grad is None


def test_changing_a_saved_output_through_detach_is_caught():
    x = leaf([1.0, 2.0])
    y = x.exp()
    y.detach().zero_()                       # detach shares memory and the version counter
    with pytest.raises(RuntimeError, match=MODIFIED + r": \[al.DoubleTensor \[2\]\], which is output 0 of Exp, "):
        y.sum().backward()


@pytest.mark.parametrize("case, make, error", INPLACE_AFTER_FORWARD, ids=[c[0] for c in INPLACE_AFTER_FORWARD])
def test_an_in_place_change_is_refused_only_where_a_rule_reads_the_value(case, make, error):
    x = leaf([1.0, 2.0])
    a = x * 2
    y, changed = make(a)
    with al.no_grad():
        (y if isinstance(changed, str) else changed).add_(1)
    if error is None:
        y.sum().backward()
        assert x.grad is not None
    else:
        with pytest.raises(RuntimeError, match=re.escape(f"{MODIFIED}: {error} is at version 1; expected version 0")):
            y.sum().backward()
        assert x.grad is None


def test_a_zero_dim_leaf_broadcast_into_a_sum_gets_a_zero_dim_gradient_that_accumulates():
    a = leaf([[1.0, 2.0], [3.0, 4.0]])
    b = leaf(2.0)
    y = (a + b).sum()                        # b's gradient is summed back to shape ()
    y.backward()
    y.backward()                             # add saves nothing: a second walk is allowed
    assert type(b.grad._data) is np.ndarray and b.grad.shape == () and b.grad.item() == 8.0


def test_changing_the_indices_max_returned_does_not_move_the_gradient():
    x = leaf([[1.0, 3.0, 2.0], [5.0, 4.0, 0.0]])
    values, indices = x.max(1)
    with al.no_grad():
        indices += 1                         # the node kept its own copy of the indices
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


def test_big_intermediates_no_rule_reads_are_freed_in_the_forward():
    x = leaf(np.ones((64, 128)))
    w = leaf(np.ones((128, 64)))
    z = x @ w                                # matmul's rules read x and w, not z
    h = (z + 1).sigmoid()                    # add reads nothing; sigmoid reads its output
    freed = weakref.ref(z._data)
    del z
    assert freed() is None                   # z's 4096 numbers went with the tensor
    node = h.grad_fn
    assert node.out is h._data               # sigmoid keeps what its rule reads
    assert saved.is_stand_in(node.next[0].out) and saved.is_stand_in(node.arrays[0])
    h.sum().backward()
    hv = h.detach().numpy()
    assert np.allclose(w.grad.numpy(), x.detach().numpy().T @ (hv * (1 - hv)))


@pytest.mark.parametrize("make, kept", [
    (lambda y: y * 1.0, False),              # mul's rule for y reads the other input only
    (lambda y: y + 1, False),                # add reads nothing
    (lambda y: al.where(y > 2, y, -y), False),   # where reads its condition only (saves=(0,))
    (lambda y: y * y.detach(), False),
    (lambda y: y.sin(), True),               # sin reads its input
    (lambda y: y * al.tensor(2.0, requires_grad=True), True),   # the other input's rule reads y
])
def test_an_intermediate_goes_with_the_users_last_reference_unless_a_rule_reads_it(make, kept):
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    z = make(y)
    alive = weakref.ref(y)
    del y
    assert (alive() is not None) is kept
    z.sum().backward()
    assert x.grad is not None and x.grad.shape == (3,)


def test_each_link_of_a_long_chain_is_one_object_for_the_garbage_collector():
    # the node, which is the list of its edges; its tuples of arrays and numbers are not
    # tracked.  (With a tuple of edges beside each node, the chain's recording took about
    # 12% longer, the collector's full passes visiting twice the objects: recording.Node)
    x = leaf([1.0, 2.0])
    gc.collect()
    before = len(gc.get_objects())
    y = x
    for _ in range(1000):
        y = y * 1.0
    gc.collect()
    assert 900 <= len(gc.get_objects()) - before < 1050
    assert y.grad_fn.next[0].name() == "MulBackward0" and y.grad_fn.next[1] is None
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_a_node_reads_its_fields_without___getattr__():
    # (a class with __getattr__ makes Python read every attribute of every node the slow
    # way: the backward walk was 0.4 us per node slower; grad_fn._saved_* are properties)
    assert "__getattr__" not in vars(recording.Node)
    y = leaf([1.0, 2.0]).exp()
    assert y.grad_fn._saved_result.tolist() == y.tolist()
    with pytest.raises(AttributeError, match="^'ExpBackward0' object has no attribute '_saved_self'$"):
        y.grad_fn._saved_self


def test_optimizer_step_under_no_grad_then_a_new_forward_is_fine():
    w = leaf([1.0, 2.0])
    for _ in range(2):
        (w * w).sum().backward()
        with al.no_grad():
            w -= 0.1 * w.grad
        w.grad = None
    assert np.allclose(w.detach().numpy(), [0.64, 1.28])


def test_writing_graph_values_into_a_plain_tensor_records_the_write_on_it():
    w = leaf([1.0, 2.0])
    acc = al.zeros(2, dtype=al.float64)
    same = acc
    acc += w * 3                             # in place, as torch: the buffer joins the graph
    assert acc is same and acc.grad_fn.name() == "AddBackward0" and not acc.is_leaf
    out = al.zeros(2, dtype=al.float64)
    out[0] = w[1] * 5
    buf = al.zeros(2, dtype=al.float64)
    buf.copy_(w * 7)
    assert repr(out.grad_fn) == "<CopySlices>" and repr(buf.grad_fn) == "<CopyBackwards>"
    (acc + out + buf).sum().backward()
    assert w.grad.tolist() == [10.0, 15.0]


def test_retained_grad_accumulates_like_a_leaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert y.grad.tolist() == [2.0, 2.0]


def test_hook_that_changes_the_dtype_is_refused():
    x = leaf([1.0, 2.0], dtype=al.float32)
    x.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match="has changed the type of value"):
        (x * 2).sum().backward()


def test_custom_backward_returning_a_lower_rank_gradient_is_an_invalid_gradient():
    class Collapse(al.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum()

    with pytest.raises(RuntimeError, match=r"returned an invalid gradient at index 0 - got \[\] but expected "
                                           r"shape compatible with \[2\]"):
        Collapse.apply(leaf([1.0, 2.0])).sum().backward()


def test_custom_backward_returning_a_gradient_of_another_shape_is_an_invalid_gradient():
    class Widen(al.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return al.ones(3, 4)

    x = leaf(np.ones((3, 5)))
    with pytest.raises(RuntimeError, match=r"returned an invalid gradient at index 0 - got \[3, 4\] but "
                                           r"expected shape compatible with \[3, 5\]"):
        Widen.apply(x).sum().backward()
    assert x.grad is None


def test_backward_arguments_are_checked_like_torch():
    x = leaf([1.0, 2.0])
    with pytest.raises(TypeError, match="gradient must be a Tensor"):
        (x * 2).backward([1.0, 1.0])
    with pytest.raises(RuntimeError, match="^`inputs` argument to `backward\\(\\)` cannot be empty.$"):
        (x * 2).sum().backward(inputs=[])
    with pytest.raises(RuntimeError, match="^grad requires non-empty inputs.$"):
        al.autograd.grad((x * 2).sum(), ())


@pytest.mark.parametrize("call", [
    lambda x: al.autograd.backward([al.tensor([1.0, 2.0]) * 2], inputs=[]),   # no grad_fn
    lambda x: al.autograd.backward(["not a tensor"], inputs=[]),
    lambda x: al.autograd.backward([(x * 2).sum()], [al.ones(3)], inputs=()),  # a bad seed
    lambda x: (x * 3).backward(inputs=[]),                                      # no seed
])
def test_empty_inputs_is_the_first_thing_backward_refuses(call):
    """As torch: an empty ``inputs=`` is named before anything about the tensors or seeds."""
    with pytest.raises(RuntimeError, match="^`inputs` argument to `backward\\(\\)` cannot be empty.$"):
        call(leaf([1.0, 2.0]))


def test_fewer_seeds_than_tensors_is_an_error_not_a_dropped_tensor():
    """backward([y, z], [v]) would otherwise send no seed to z (zip stops early): torch
    refuses it in these words, for grad() too, and no .grad is written."""
    x = leaf([1.0, 2.0])
    y = x * 2
    z = y * 3
    for call in (lambda: al.autograd.backward([y, z], [al.ones(2)], retain_graph=True),
                 lambda: al.autograd.grad([y, z], x, [al.ones(2)], retain_graph=True)):
        with pytest.raises(RuntimeError, match="^got 2 tensors and 1 gradients$"):
            call()
    assert x.grad is None
    al.autograd.backward([y, z], [al.ones(2), al.ones(2)])
    assert x.grad.tolist() == [8.0, 8.0]


def test_no_grad_works_as_a_bare_decorator():
    @al.no_grad
    def double(t):
        return t * 2
    assert not double(leaf([1.0])).requires_grad


# -- gradients handed to users are theirs: no aliasing between hooks, seeds and .grad ------------
def test_an_integer_index_is_a_view_whose_writes_reach_the_tensor_and_its_version():
    w = leaf([1.0, 2.0, 3.0])
    a = al.tensor([1.0, 2.0, 3.0], dtype=al.float64)
    y = (w * a).sum()                        # mul saved a
    with al.no_grad():
        a[1].mul_(100)                       # a[1] is a 0-d view of a, as in torch
    assert a.tolist() == [1.0, 200.0, 3.0]
    with pytest.raises(RuntimeError, match=MODIFIED + r": \[al.DoubleTensor \[3\]\] is at version 1"):
        y.backward()


def test_a_gradient_a_hook_saw_or_returned_does_not_become_the_leafs_grad():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(g))
    (x * 3).sum().backward()
    (x * 5).sum().backward()                 # accumulates in place into x.grad...
    assert seen[0].tolist() == [3.0, 3.0] and x.grad.tolist() == [8.0, 8.0]   # ...not into seen[0]
    y = leaf([1.0, 2.0])
    c = al.tensor([10.0, 20.0], dtype=al.float64)
    y.register_hook(lambda g: c)
    (y * 3).sum().backward()
    (y * 3).sum().backward()
    assert c.tolist() == [10.0, 20.0] and y.grad.tolist() == [20.0, 40.0]


def test_with_create_graph_a_leafs_grad_is_its_own_recorded_copy():
    x = leaf([1.0, 2.0])
    seed = al.tensor(2.0, dtype=al.float64)
    x.sum().backward(seed, create_graph=True)
    seed.add_(1)                             # the seed is the caller's
    assert x.grad.tolist() == [2.0, 2.0]
    (x * 3).sum().backward()                 # accumulating into it works (no read-only view)
    assert x.grad.tolist() == [5.0, 5.0]
    with al.no_grad():
        x.grad.zero_()
    z = leaf([1.0, 2.0])
    (z ** 2).sum().backward(create_graph=True)
    assert z.grad.grad_fn.name() == "torch::autograd::CopyBackwards" and z.grad.tolist() == [2.0, 4.0]   # as torch


def test_retain_grad_and_backward_inputs_count_the_gradient_once():
    y = leaf([1.0, 2.0]) * 2
    y.retain_grad()
    (y * 3).sum().backward(inputs=[y])
    assert y.grad.tolist() == [3.0, 3.0]


def test_a_zero_dim_leaf_used_twice_gets_a_zero_dim_array_gradient():
    x = leaf(2.0)
    (x * x).backward()                       # two gradients of shape () meet at the leaf
    (x * x).backward()
    assert type(x.grad._data) is np.ndarray and x.grad.item() == 8.0
    with al.no_grad():
        x.grad.zero_()
    assert x.grad.item() == 0.0


def test_grad_of_an_intermediate_is_what_arrived_before_its_hooks():
    x = leaf([1.0, 2.0])
    a = x * 2
    a.register_hook(lambda g: g * 100)       # changes what flows on to x, not what grad reports
    ga, gx = al.autograd.grad((a * a).sum(), [a, x])
    assert ga.tolist() == [4.0, 8.0] and gx.tolist() == [800.0, 1600.0]   # torch's numbers


def test_boolean_masks_and_empty_lists_index_even_a_zero_dim_tensor():
    x = leaf(2.0)
    x[x > 0].sum().backward()
    assert x.grad.item() == 1.0
    assert al.zeros(3)[[]].shape == (0,)


def test_replacing_data_after_the_forward_is_seen_by_the_backward_as_in_torch():
    for create_graph in (False, True):
        x = leaf([1.0, 2.0])
        w = leaf([1.0, 1.0])
        y = (w * x).sum()                    # mul saved x
        x.data = al.tensor([20.0, 40.0], dtype=al.float64)
        y.backward(create_graph=create_graph)
        assert w.grad.tolist() == [20.0, 40.0]


def test_a_parameter_updated_in_place_between_forward_and_backward_is_fine_where_torch_saved_nothing():
    lin = al.nn.Linear(2, 1)
    loss = lin(al.tensor([[1.0, 1.0]])).sum()
    with al.no_grad():
        lin.weight.mul_(0.5)                 # x @ weight.t(): mm saved x, not the weight
    loss.backward()
    assert lin.weight.grad.tolist() == [[1.0, 1.0]]
    x = leaf([1.0, 2.0])
    c = al.tensor([3.0, 4.0], dtype=al.float64)
    y = (x * c).sum()
    with al.no_grad():
        x.mul_(2)                            # mul kept x for c's rule, and c needs none
    y.backward()
    assert x.grad.tolist() == [3.0, 4.0]


def test_grad_of_an_intermediate_is_after_its_hooks_unless_the_walk_goes_on_through_it():
    x = leaf([1.0, 2.0])
    y = x * 3
    y.register_hook(lambda g: g * 10)
    assert al.autograd.grad((y * y).sum(), [y], retain_graph=True)[0].tolist() == [60.0, 120.0]
    gy, gx = al.autograd.grad((y * y).sum(), [y, x], retain_graph=True)
    assert gy.tolist() == [6.0, 12.0] and gx.tolist() == [180.0, 360.0]      # torch's numbers
    (y * y).sum().backward(inputs=[y])
    assert y.grad.tolist() == [60.0, 120.0]


def test_backward_with_create_graph_under_no_grad_still_records_the_grad():
    x = leaf([1.0, 2.0])
    y = (x ** 3).sum()
    with al.no_grad():
        y.backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.tolist() == [3.0, 12.0]     # as torch


def test_replacing_data_with_another_dtype_after_the_forward_is_seen_by_the_backward():
    x = al.tensor([1.0, 2.0], requires_grad=True)                 # float32, promoted to float64
    w = leaf([3.0, 4.0])
    y = (x * w).sum()
    x.data = al.tensor([10.0, 20.0])
    y.backward()
    assert w.grad.tolist() == [10.0, 20.0]
    with pytest.raises(RuntimeError, match="data set to a tensor that requires gradients must be floating point"):
        x.data = al.tensor([1, 2])


def test_squeeze_of_nothing_and_a_zero_dim_int_index_are_views():
    x = al.tensor([1.0, 2.0, 3.0])
    w = leaf([1.0, 1.0, 1.0])
    y = (x.double() * w).sum()
    x.squeeze().add_(10)                     # nothing to squeeze: still a view of x
    assert x.tolist() == [11.0, 12.0, 13.0]
    v = x[al.tensor(1)]
    v.add_(100)
    assert x.tolist() == [11.0, 112.0, 13.0] and v.grad_fn is None
    y.backward()                             # x.double() is a copy: nothing it saved changed
    assert w.grad.tolist() == [1.0, 2.0, 3.0]


def test_an_input_listed_twice_in_backward_inputs_counts_once_and_is_retained_after():
    x = leaf([1.0, 2.0])
    y = x * 2
    (y * y).sum().backward(inputs=[y, y], retain_graph=True)
    assert y.retains_grad and y.grad.tolist() == [4.0, 8.0]
    (y * y).sum().backward()                 # as torch: y keeps retaining its gradient
    assert y.grad.tolist() == [8.0, 16.0]


def test_view_as_refuses_to_copy_like_view():
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        al.arange(6.0).reshape(2, 3).t().view_as(al.zeros(6))


def test_a_plain_backward_adds_in_place_into_a_grad_recorded_by_create_graph_as_torch():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward(create_graph=True)
    g0 = x.grad
    (x * 3).sum().backward()
    assert x.grad is g0 and x.grad.tolist() == [5.0, 7.0] and x.grad.requires_grad
    assert al.autograd.grad(x.grad.sum(), x)[0].tolist() == [2.0, 2.0]     # torch's numbers


def test_backward_inputs_adds_into_a_non_leaf_grad_out_of_place_and_retains_even_unreached_ones():
    x = leaf([1.0, 2.0])
    y = x * 2
    out = (y * 3).sum()
    out.backward(inputs=[y], retain_graph=True)
    g0 = y.grad
    out.backward(inputs=[y])
    assert g0.tolist() == [3.0, 3.0] and y.grad.tolist() == [6.0, 6.0]
    z = x * 2
    (x * 3).sum().backward(inputs=[x, z])    # z receives nothing, but retains from now on
    assert z.retains_grad
    (z * 5).sum().backward()
    assert z.grad.tolist() == [5.0, 5.0]


def test_replacing_data_with_another_shape_after_the_forward_is_a_clear_error():
    x = leaf([1.0, 2.0, 3.0])
    z = (x * al.tensor([3.0, 4.0, 5.0], dtype=al.float64)).sum()
    x.data = al.tensor([7.0], dtype=al.float64)
    with pytest.raises(RuntimeError, match=r"input 0 of MulBackward0 had shape \(3,\) in the forward"):
        z.backward()
    assert x.grad is None


def test_grad_fn_hands_back_what_it_saved_under_torchs_names():
    x = leaf([1.0, 2.0])
    y = x.pow(2)
    assert y.grad_fn._saved_self is x and y.grad_fn._saved_exponent == 2
    e = x.exp()
    assert e.equal(e.grad_fn._saved_result) and e.grad_fn._saved_result is not e
    with pytest.raises(AttributeError, match="'ExpBackward0' object has no attribute '_saved_self'"):
        e.grad_fn._saved_self
    e.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        e.grad_fn._saved_result


def test_saved_tensors_hooks_see_every_saved_value_and_the_backward_uses_what_unpack_returns():
    packed = []
    x = leaf([1.0, 2.0])
    with al.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t.detach().numpy().copy(),
                                               lambda a: al.tensor(a)):
        y = (x * 3).sin()
    assert len(packed) == 1 and packed[0].tolist() == [3.0, 6.0]      # sin saves its input
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), 3 * np.cos([3.0, 6.0]))


def test_inference_mode_results_are_inference_tensors_that_a_graph_refuses():
    x = leaf([1.0, 2.0])
    with al.inference_mode():
        y = x * 2
    assert not y.requires_grad and y.is_inference() and not x.is_inference()
    with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved for backward"):
        x * y
