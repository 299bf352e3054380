"""Every operation of the rules table, checked against finite differences (float64),
with broadcasting in every direction and with a batch of seeds."""
import sys
import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab import rulebook, rules, saved

from op_cases import CASES, make_inputs, refused

IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, fn, shapes, kind", CASES, ids=IDS)
def test_vjp_matches_finite_differences(name, fn, shapes, kind):
    eps = 1e-3 if "float32" in name else 1e-6     # a float32 detour cannot resolve 1e-6 steps
    assert al.autograd.gradcheck(fn, make_inputs(shapes, kind), eps=eps, atol=1e-5, rtol=1e-3)


SECOND_ORDER = [c for c in CASES if c[0] not in ("amax", "amax_dim", "index_mask",
                                                 "amin", "max_min_all")]
SECOND_ORDER_NAMES = {c[0] for c in SECOND_ORDER}


@pytest.mark.parametrize("name, fn, shapes, kind", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_rules_are_differentiable_again(name, fn, shapes, kind):
    eps = 1e-3 if "float32" in name else 1e-6
    assert al.autograd.gradgradcheck(fn, make_inputs(shapes, kind), eps=eps, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("name, fn, shapes, kind", CASES, ids=IDS)
def test_rules_read_only_what_their_op_saves(name, fn, shapes, kind, monkeypatch):
    """A node replaces the big values its rules do not read (``Op.saves``) by stand-ins of
    zeros.  With the size limit at 0 every such value is a stand-in, and the inputs arrive
    as intermediates (x * 1), so a rule reading a value its op does not save fails here,
    and so does a tangent lost with a shed input (forward mode while nodes are recorded)."""
    eps = 1e-3 if "float32" in name else 1e-6
    via = lambda *xs: fn(*[x * 1.0 for x in xs])           # noqa: E731
    inputs = make_inputs(shapes, kind)
    tangents = tuple(al.ones_like(x) for x in inputs)
    _, kept = al.func.jvp(via, tuple(inputs), tangents)     # inputs require grad: nodes are
    monkeypatch.setattr(saved, "KEEP_BELOW", 0)             # recorded while tangents flow
    _, shed = al.func.jvp(via, tuple(inputs), tangents)
    assert np.allclose(shed.numpy(), kept.numpy(), equal_nan=True)
    assert al.autograd.gradcheck(via, inputs, eps=eps, atol=1e-5, rtol=1e-3)
    if name in SECOND_ORDER_NAMES:
        assert al.autograd.gradgradcheck(via, inputs, eps=eps, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("name, fn, shapes, kind", CASES, ids=IDS)
def test_batched_seeds_equal_one_backward_per_seed(name, fn, shapes, kind):
    inputs = make_inputs(shapes, kind)
    y = fn(*inputs)
    rng = np.random.default_rng(1)
    seeds = al.tensor(rng.normal(size=(4,) + y.shape), dtype=al.float64)
    batched = al.autograd.grad(y, inputs, seeds, is_grads_batched=True, retain_graph=True)
    for k in range(4):
        single = al.autograd.grad(y, inputs, seeds[k], retain_graph=True)
        for b, s, x in zip(batched, single, inputs):
            assert b.shape == (4,) + x.shape
            assert np.allclose(b.numpy()[k], s.numpy())


def test_every_differentiable_op_in_the_table_has_a_case():
    covered = set()
    for _, fn, shapes, kind in CASES:
        inputs = make_inputs(shapes, kind)
        y = fn(*inputs)
        stack = [y.grad_fn]
        while stack:
            node = stack.pop()
            if node is not None and node.op is not None:
                covered.add(node.op)
                stack.extend(node.next)
    differentiable = {op for op in rulebook.table().values() if op.differentiable}
    internal = {rules.sum_to, rules.scatter, rules.grad_copy}   # reached only inside the engine
    missing = {name for name, op in rulebook.table().items()
               if op in differentiable - covered - internal - refused(differentiable)}
    assert not missing, f"ops without a gradient test: {sorted(missing)}"


def test_sum_to_and_scatter_rules_hold_under_create_graph():
    x = al.tensor(np.arange(6.0).reshape(2, 3), dtype=al.float64, requires_grad=True)
    assert al.autograd.gradcheck(lambda t: rules.sum_to(t, (1, 3)), [x])
    assert al.autograd.gradcheck(lambda t: rules.scatter(t, (4, 3), (slice(1, 3),)), [x])


def test_where_sends_no_gradient_to_the_condition_and_routes_by_mask():
    cond = al.tensor([True, False, True])
    a = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = al.tensor([4.0, 5.0, 6.0], requires_grad=True)
    out = al.where(cond, a, b)
    # like torch, the condition has no slot in next_functions: only a and b do
    assert [n.variable for n, _ in out.grad_fn.next_functions] == [a, b]
    out.backward(al.tensor([10.0, 20.0, 30.0]))
    assert a.grad.tolist() == [10.0, 0.0, 30.0] and b.grad.tolist() == [0.0, 20.0, 0.0]


def test_where_broadcast_branch_gets_its_gradient_summed_back_to_its_shape():
    x = al.tensor([[1.0, -1.0], [2.0, -2.0]], requires_grad=True)
    row = al.tensor([10.0, 20.0], requires_grad=True)
    scalar = al.tensor(5.0, requires_grad=True)
    al.where(x > 0, row, scalar).sum().backward()
    assert row.grad.tolist() == [2.0, 0.0] and scalar.grad.tolist() == 2.0


def test_piecewise_constant_ops_have_zero_gradient():
    x = al.tensor([0.3, 1.7], requires_grad=True)
    (x.round() + x.floor() + x.ceil() + x.sign()).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_maximum_splits_ties_evenly_like_torch():
    a = al.tensor([1.0, 2.0], requires_grad=True)
    b = al.tensor([1.0, 3.0], requires_grad=True)
    al.maximum(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.0] and b.grad.tolist() == [0.5, 1.0]


def test_relu_and_clamp_gradients_at_the_kink_follow_torch():
    x = al.tensor([0.0, 1.0], requires_grad=True)
    al.relu(x).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]
    y = al.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y.clamp(0.0, 1.0).sum().backward()
    assert y.grad.tolist() == [1.0, 1.0, 0.0]


def test_relus_gradient_is_recorded_so_its_second_derivative_is_zero():
    x = al.tensor([1.0, -2.0, 0.25], requires_grad=True)
    g, = al.autograd.grad(al.relu(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "ThresholdBackwardBackward0" and g.tolist() == [1.0, 0.0, 1.0]
    assert al.autograd.grad(g.sum(), x)[0].tolist() == [0.0, 0.0, 0.0]


NAN = float("nan")


def test_nan_inputs_get_torchs_gradients():
    x = al.tensor([NAN, 1.0, -1.0], requires_grad=True)
    al.relu(x).sum().backward()               # relu passes NaN on, and its gradient
    assert x.grad.tolist() == [1.0, 1.0, 0.0]
    a = al.tensor([NAN, 1.0, 2.0], requires_grad=True)
    b = al.tensor([0.0, NAN, 2.0], requires_grad=True)
    al.minimum(a, b).sum().backward()         # NaN compares false both ways: both get it all
    assert a.grad.tolist() == [1.0, 1.0, 0.5] and b.grad.tolist() == [1.0, 1.0, 0.5]
    x = al.tensor([NAN, 1.0, NAN], requires_grad=True)
    x.max().backward()                        # x.max() is NaN: its NaN entries share the gradient
    assert x.grad.tolist() == [0.5, 0.0, 0.5]
    x = al.tensor([[NAN, 1.0], [3.0, 4.0]], requires_grad=True)
    x.amax(1).sum().backward()                # amax's NaN row gets NaN, as in torch
    assert np.isnan(x.grad.numpy()[0]).all() and x.grad.tolist()[1] == [0.0, 1.0]
    assert al.sign(al.tensor([NAN, -2.0, 0.0])).tolist() == [0.0, -1.0, 0.0]
    assert al.sign(al.tensor(NAN)).item() == 0.0
    assert al.sign(al.tensor([True, False])).tolist() == [True, False]   # NumPy has no sign of a bool


def test_a_zero_gradient_stays_zero_under_an_inf_or_nan_seed():
    INF = float("inf")
    x = al.tensor([1.0, 3.0, 2.0], requires_grad=True)
    assert al.autograd.grad(x.max(), x, al.tensor(INF))[0].tolist() == [0.0, INF, 0.0]
    other = al.tensor([2.0, 1.0, 2.0])
    assert al.autograd.grad(al.maximum(x, other), x, al.tensor([INF, 1.0, INF]))[0].tolist() == [0.0, 1.0, INF / 2]
    assert al.autograd.grad(al.minimum(other, x), x, al.tensor([1.0, INF, 2.0]))[0].tolist() == [1.0, 0.0, 1.0]
    assert al.autograd.grad(x.sign(), x, al.tensor([INF, NAN, 1.0]))[0].tolist() == [0.0, 0.0, 0.0]
    x = al.tensor([1.0, -1.0], requires_grad=True)
    assert al.autograd.grad(al.relu(x), x, al.tensor([NAN, INF]))[0].tolist()[1] == 0.0
    g, = al.autograd.grad(al.relu(x).sum(), x, create_graph=True)
    assert al.autograd.grad(g, x, al.tensor([INF, NAN]))[0].tolist() == [0.0, 0.0]


def test_forward_mode_at_nan_follows_torchs_forward_rules():
    t = al.func.jvp(lambda x: x.max(), (al.tensor([NAN, 1.0, NAN]),), (al.tensor([1.0, 10.0, 100.0]),))[1]
    assert np.isnan(t.item())                 # no NaN tie-break going forward
    t = al.func.jvp(al.maximum, (al.tensor([NAN, 1.0]), al.tensor([0.0, NAN])),
                    (al.tensor([1.0, 10.0]), al.tensor([2.0, 20.0])))[1]
    assert t.tolist() == [2.0, 20.0]          # at a NaN, only the second input's tangent


def test_integer_powers_with_negative_exponent_tensors_round_toward_zero():
    base = al.tensor([0, 1, -1, -1, 2, -2, 3])
    exponent = al.tensor([-1, -3, -3, -2, -1, -1, 2])
    assert (base ** exponent).tolist() == [0, 1, -1, 1, 0, 0, 9]
    assert (2 ** al.tensor([3, -1])).tolist() == [8, 0]
    for refused in (lambda: al.tensor([2]) ** -1, lambda: al.tensor([2]).pow(-1), lambda: al.pow(al.tensor(2), -1),
                    lambda: al.tensor([2]) ** np.int64(-1)):
        with pytest.raises(RuntimeError, match="^Integers to negative integer powers are not allowed.$"):
            refused()
    assert (al.tensor([2.0]) ** -1).tolist() == [0.5]


def test_a_uint8_index_is_a_mask_with_torchs_warning():
    x = al.tensor([10.0, 20.0, 30.0], requires_grad=True)
    with pytest.warns(UserWarning, match="indexing with dtype al.uint8 is now deprecated") as caught:
        y = x[al.tensor([1, 0, 1], dtype=al.uint8)]
    assert caught[0].filename == __file__     # the warning names the user's line
    assert y.tolist() == [10.0, 30.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]
    z = al.zeros(3)
    with pytest.warns(UserWarning):
        z[al.tensor([0, 1, 1], dtype=al.uint8)] = al.tensor([5.0, 6.0])
    assert z.tolist() == [0.0, 5.0, 6.0]
    for value in (5.0, al.tensor(5.0), al.tensor([5.0])):   # one value: torch's masked_fill_ refuses
        with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got "
                                               "mask with dtype unsigned char$"), warnings.catch_warnings():
            warnings.simplefilter("error")     # (and warns nothing, as it reads no uint8 mask)
            z[al.tensor([0, 1, 1], dtype=al.uint8)] = value
    assert z.tolist() == [0.0, 5.0, 6.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")         # a 0-d uint8 mask: no warning, as in torch
        assert x[al.tensor(1, dtype=al.uint8)].shape == (1, 3)


def test_a_mask_of_the_wrong_shape_is_refused_in_torchs_words():
    z = al.zeros(2, 3)
    with pytest.raises(IndexError, match=r"^The shape of the mask \[2\] at index 0 does not match the shape "
                                         r"of the indexed tensor \[1, 3\] at index 1$"):
        z[1:, al.ones(2, dtype=al.bool)]      # as torch, the slice applies first
    with pytest.raises(IndexError, match=r"^The shape of the mask \[3\] at index 0 does not match the shape "
                                         r"of the indexed tensor \[2, 3\] at index 0$"):
        z[al.ones(3, dtype=al.bool)] = 1.0
    assert z.tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_float16_softmax_is_computed_in_float32_and_rounded_once(name):
    x = (np.random.default_rng(0).normal(size=(4, 7)) * 3).astype(np.float16)
    exact = x.astype(np.float64) - x.max(1, keepdims=True)
    exact = exact - np.log(np.exp(exact).sum(1, keepdims=True))
    exact = np.exp(exact) if name == "softmax" else exact
    y = getattr(al.tensor(x), name)(1)
    assert y.dtype == al.float16
    # within half a float16 step of the exact value: rounded once (torch's log_softmax in
    # float16 is up to 6 steps off on these numbers; its softmax is rounded once, as here)
    steps = np.abs(y.numpy() - exact) / np.spacing(y.numpy()).astype(np.float64)
    assert steps.max() <= 0.5 + 1e-3


def test_softmax_over_an_empty_dim_is_empty_and_a_number_is_its_own_softmax():
    F = al.nn.functional
    for f in (F.softmax, F.log_softmax):
        assert f(al.ones(2, 0), dim=1).shape == (2, 0)
        with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of "
                                             r"\[-2, 1\], but got 2\)$"):
            f(al.ones(2, 3), dim=2)
    assert F.softmax(al.tensor(2.0), dim=-1).item() == 1.0
    assert F.log_softmax(al.tensor(2.0), dim=0).item() == 0.0


def test_softmax_of_integers_needs_a_dtype_but_an_empty_tensor_is_returned_as_it_is():
    n = al.tensor([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(NotImplementedError, match=r'^"softmax_kernel_impl" not implemented for \'Long\' '
                                                  r"\(pass dtype=al.float32"):
        al.softmax(n, 0)
    with pytest.raises(NotImplementedError, match=r'^"log_softmax_lastdim_kernel_impl" not implemented '
                                                  r"for \'Bool\'"):
        (n > 2).log_softmax(-1)
    assert np.allclose(n.softmax(1, al.float32).sum(1).numpy(), 1.0)
    empty = al.nn.functional.softmax(al.ones(0, 3, dtype=al.int64), dim=1)
    assert empty.shape == (0, 3) and empty.dtype == al.int64
    x = al.ones(2, 0, requires_grad=True)
    x.log_softmax(0).sum().backward()
    assert x.grad.shape == (2, 0)


def test_softmax_without_a_dim_warns_and_picks_torchs_dim():
    F = al.nn.functional
    x = al.tensor(np.random.default_rng(0).normal(size=(2, 3, 4)))
    with pytest.warns(UserWarning, match=r"^Implicit dimension choice for softmax has been deprecated") as w:
        y = F.softmax(x)                          # 3-d: torch picks dim 0, not the last one
    assert w[0].filename == __file__
    assert np.allclose(y.numpy(), F.softmax(x, dim=0).numpy())
    with pytest.warns(UserWarning, match="log_softmax"):
        assert np.allclose(F.log_softmax(x[0]).numpy(), F.log_softmax(x[0], dim=1).numpy())   # 2-d: dim 1

    def library_helper(t):                        # names its caller's line, as torch's _stacklevel does
        return F.softmax(t, None, 4)
    with pytest.warns(UserWarning) as w:
        line = sys._getframe().f_lineno + 1
        library_helper(x)
    assert (w[0].filename, w[0].lineno) == (__file__, line)
    with pytest.raises(TypeError):
        al.softmax(x)                             # torch.softmax has no default dim
    assert al.log_softmax(x.float(), 2, dtype=al.float64).dtype == al.float64
    assert np.allclose(al.softmax(x, -1).sum(-1).numpy(), 1.0)


def test_cat_passes_over_empty_vectors_and_refuses_mismatches_in_torchs_words():
    x = al.ones(0, dtype=al.float64, requires_grad=True)
    y = al.arange(6.0).reshape(2, 3).requires_grad_()
    z = al.cat([x, y, x])                     # an empty vector adds nothing, but counts for the dtype
    assert z.shape == (2, 3) and z.dtype == al.float64
    (z * y.detach()).sum().backward()
    assert x.grad.shape == (0,) and y.grad.tolist() == y.tolist()
    assert al.autograd.grad(al.cat([x, y]), x, al.ones(5, 2, 3), is_grads_batched=True)[0].shape == (5, 0)
    assert al.func.jvp(lambda a, b: al.cat([a, b], dim=1), (x.detach(), y.detach()),
                       (al.ones(0, dtype=al.float64), al.ones(2, 3)))[1].shape == (2, 3)
    assert al.autograd.gradcheck(lambda a, b: al.cat([a, b, a], dim=1), [x, y.double()])
    assert al.cat([al.ones(0), al.ones(0)], dim=3).shape == (0,)      # only empty vectors: any dim
    with pytest.raises(RuntimeError, match=r"^Sizes of tensors must match except in dimension 1\. Expected "
                                           r"size 2 but got size 4 for tensor number 2 in the list "
                                           r"\(shapes \(2, 3\) and \(4, 3\)\)\.$"):
        al.cat([y, x, al.ones(4, 3)], dim=-1)
    with pytest.raises(RuntimeError, match=r"^Tensors must have same number of dimensions: got 2 and 1$"):
        al.cat([y, al.ones(3)])
    with pytest.raises(RuntimeError, match=r"^zero-dimensional tensor \(at position 1\) cannot be concatenated$"):
        al.cat([y, al.tensor(1.0)])


# torch 2.13's texts (it warns once per process, so tests/torch_parity/test_engine_vs_torch.py cannot
# always compare them live); "torch.arange" becomes "al.arange"
T_OF_A_NUMBER = "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
T_OF_OTHER_SHAPES = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                     "deprecated and it will throw an error in a future release. Consider `x.mT` to "
                     "transpose batches of matrices or `x.permute(*al.arange(x.ndim - 1, -1, -1))` to "
                     "reverse the dimensions of a tensor.")


@pytest.mark.parametrize("shape, text", [((), T_OF_A_NUMBER), ((3,), T_OF_OTHER_SHAPES),
                                         ((2, 3, 4), T_OF_OTHER_SHAPES)])
def test_T_of_a_tensor_that_is_not_a_matrix_is_a_view_and_warns_at_the_users_line(shape, text):
    x = al.zeros(shape, requires_grad=True)
    with pytest.warns(UserWarning) as w:
        y = x.T
    assert [str(m.message) for m in w] == [text] and w[0].filename == __file__
    assert y.shape == shape[::-1] and y is not x and y.grad_fn.name() == "PermuteBackward0"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert al.zeros(2, 3).T.shape == (3, 2)


def test_sqrt_and_norm_at_zero_match_torch():
    x = al.tensor([0.0], requires_grad=True)
    x.sqrt().sum().backward()
    assert x.grad.tolist() == [float("inf")]
    z = al.zeros(3, requires_grad=True)
    z.norm().backward()
    assert z.grad.tolist() == [0.0, 0.0, 0.0]
