"""al.autograd.functional: every way of building a Jacobian gives the same matrix, for
every differentiable operation of the rules table and for compositions; Hessians; the
pass counts the Jacobian chapter quotes; the documents' Jacobians; torch's errors."""
import numpy as np
import pytest

import autograd_lab as al
from autograd_lab import rules, rulebook
from autograd_lab.autograd import functional as F
from autograd_lab.autograd.gradcheck import numerical_jacobian

from op_cases import CASES, make_inputs, refused
from sigmoid_layer import layer_inputs

# Cases beyond the per-op table, aimed at where a batch of seeds or tangents meets
# broadcasting, matmul's 1-D and batched forms, and the rules used only inside others.
EXTRA = [
    # a tangent batch of 2 meeting a broadcast dimension of 2 must not be mistaken for it
    ("mul_batch_meets_broadcast", lambda a, b: a * b, [(2,), (2, 2)], None),
    ("add_scalar_number_left", lambda a: 3.0 + a * a, [(2, 2)], None),
    ("div_broadcast_denominator", lambda a, b: a / b, [(2, 3), (2, 1)], "pos"),
    ("where_row_branch", lambda a, b: al.where(b > 0, a, b), [(3,), (3, 3)], "apart"),
    ("maximum_row", lambda a, b: al.maximum(a, b), [(3,), (3, 3)], "apart"),
    ("expand_new_dims", lambda a: a.expand(3, 3), [(3,)], None),
    ("expand_keep_dim", lambda a: a.expand(2, -1, 3), [(4, 1)], None),
    ("matmul_vector_batched_matrix", lambda a, b: a @ b, [(3,), (2, 3, 4)], None),
    ("matmul_batched_matrix_vector", lambda a, b: a @ b, [(2, 4, 3), (3,)], None),
    ("matmul_matrix_batched_matrix", lambda a, b: a @ b, [(4, 3), (2, 3, 2)], None),
    ("sum_to", lambda a: rules.sum_to(a, (1, 3)), [(2, 3)], None),
    ("scatter", lambda a: rules.scatter(a, (4, 3), (slice(1, 3),)), [(2, 3)], None),
    ("grad_copy", lambda a: rules.grad_copy(a * a), [(2, 3)], None),
    ("index_then_cat", lambda a: al.cat([a[1:], a[:1] * 2], dim=0), [(3, 2)], None),
    ("stack_last_dim", lambda a, b: al.stack([a, b * a], dim=-1), [(2, 3), (3,)], None),
    ("mean_keepdim_broadcast", lambda a: a - a.mean(1, keepdim=True), [(2, 3)], None),
    ("tanh_mlp", lambda x, W1, W2: (W2 @ (W1 @ x).tanh()).sigmoid(), [(3,), (4, 3), (2, 4)], None),
    ("tuple_outputs", lambda a, b: (a * b, (a - b).sum(), a.exp()), [(2, 3), (3,)], None),
    ("log_softmax", lambda a: al.nn.functional.log_softmax(a, dim=0), [(4,)], None),
]
ALL = CASES + EXTRA
IDS = [c[0] for c in ALL]
NO_FINITE_DIFFERENCES = {"to_float32_and_back"}     # a float32 round trip: too coarse to nudge


def grid(J, out_tuple, n_in):
    """J[i][j] as numpy arrays, from a Jacobian computed with a tuple of inputs."""
    rows = J if out_tuple else (J,)
    out = []
    for row in rows:
        assert isinstance(row, tuple) and len(row) == n_in
        out.append([r.detach().numpy() for r in row])
    return out


def assert_same(a, b, **tol):
    for ra, rb in zip(a, b, strict=True):
        for x, y in zip(ra, rb, strict=True):
            assert x.shape == y.shape
            np.testing.assert_allclose(x, y, **(tol or dict(rtol=1e-10, atol=1e-12)))


@pytest.mark.parametrize("name, fn, shapes, kind", ALL, ids=IDS)
def test_reverse_loop_vectorized_forward_mode_and_finite_differences_agree(name, fn, shapes, kind):
    inputs = tuple(make_inputs(shapes, kind))
    out = fn(*inputs)
    out_tuple = isinstance(out, tuple)
    outs = out if out_tuple else (out,)
    n = len(inputs)

    loop = grid(F.jacobian(fn, inputs), out_tuple, n)
    for (o, row) in zip(outs, loop):
        for x, J in zip(inputs, row):
            assert J.shape == o.shape + x.shape
    assert_same(loop, grid(F.jacobian(fn, inputs, vectorize=True), out_tuple, n))
    assert_same(loop, grid(F.jacobian(fn, inputs, vectorize=True, strategy="forward-mode"),
                           out_tuple, n))
    assert_same(loop, grid(F.jacobian(fn, inputs, strategy="forward-mode"), out_tuple, n))
    argnums = tuple(range(n))
    assert_same(loop, grid(al.func.jacrev(fn, argnums)(*inputs), out_tuple, n))
    assert_same(loop, grid(al.func.jacfwd(fn, argnums)(*inputs), out_tuple, n))
    if name not in NO_FINITE_DIFFERENCES:
        numeric = numerical_jacobian(fn, inputs, list(range(n)), eps=1e-6)
        for row, nrow in zip(loop, numeric, strict=True):
            for J, N in zip(row, nrow, strict=True):
                np.testing.assert_allclose(J.reshape(N.shape), N, rtol=1e-3, atol=1e-5)


def test_every_differentiable_op_in_the_table_is_in_a_jacobian_case():
    reached = set()
    for _, fn, shapes, kind in ALL:
        outs = fn(*make_inputs(shapes, kind))
        stack = [o.grad_fn for o in (outs if isinstance(outs, tuple) else (outs,))]
        while stack:
            node = stack.pop()
            if node is not None and node.op is not None:
                reached.add(node.op)
                stack.extend(node.next)
    missing = sorted(name for name, op in rulebook.table().items()
                     if op.differentiable and op not in reached and op not in refused([op]))
    assert not missing, f"ops no Jacobian test reaches: {missing}"


# -- shapes and tuples, as torch lays them out -------------------------------------------------
def _pair():
    x = al.tensor([1.0, 2.0, 3.0], dtype=al.float64)
    y = al.tensor([[0.5, -1.0]], dtype=al.float64)
    return x, y


def test_single_input_single_output_gives_a_tensor_of_shape_out_plus_in():
    x = al.tensor([[1.0, 2.0], [3.0, 4.0]])
    J = F.jacobian(lambda x: x.sum(0), x)
    assert isinstance(J, al.Tensor) and J.shape == (2, 2, 2)
    assert J.tolist() == [[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]]


def test_tuple_of_inputs_gives_a_tuple_even_of_length_one():
    x, _ = _pair()
    J = F.jacobian(lambda x: x * 2, (x,))
    assert isinstance(J, tuple) and len(J) == 1 and J[0].shape == (3, 3)


def test_tuple_outputs_and_tuple_inputs_nest_output_first():
    x, y = _pair()
    J = F.jacobian(lambda x, y: (x.sum() * y, x * 3), (x, y))
    assert [[j.shape for j in row] for row in J] == [[(1, 2, 3), (1, 2, 1, 2)],
                                                    [(3, 3), (3, 1, 2)]]
    assert J[1][1].tolist() == np.zeros((3, 1, 2)).tolist()          # x * 3 ignores y
    assert J[0][1].numpy()[0, :, 0, :].tolist() == [[6.0, 0.0], [0.0, 6.0]]   # d(sum(x) y)/dy


def test_tuple_output_single_input_gives_one_jacobian_per_output():
    x, _ = _pair()
    J = F.jacobian(lambda x: (x.sum(), x ** 2), x)
    assert isinstance(J, tuple) and [j.shape for j in J] == [(3,), (3, 3)]
    assert J[1].numpy().diagonal().tolist() == [2.0, 4.0, 6.0]


def test_jacobian_leaves_the_callers_tensors_alone():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    J = F.jacobian(lambda x: x.exp(), x)
    assert x.grad is None and not J.requires_grad and J.grad_fn is None


def test_output_independent_of_an_input_gives_zeros_in_every_strategy():
    x, y = _pair()
    for kw in ({}, {"vectorize": True}, {"vectorize": True, "strategy": "forward-mode"},
               {"strategy": "forward-mode"}):
        J = F.jacobian(lambda x, y: x * 2, (x, y), **kw)
        assert J[1].shape == (3, 1, 2) and not np.any(J[1].numpy())


def test_a_constant_output_gives_a_zero_jacobian():
    x, _ = _pair()
    for kw in ({}, {"vectorize": True}, {"strategy": "forward-mode", "vectorize": True}):
        J = F.jacobian(lambda x: al.ones(2, dtype=al.float64), x, **kw)
        assert J.shape == (2, 3) and not np.any(J.numpy())


def test_create_graph_gives_a_jacobian_that_can_be_differentiated_again():
    x = al.tensor([0.3, -0.2], dtype=al.float64, requires_grad=True)
    for vectorize in (False, True):
        J = F.jacobian(lambda x: x ** 3, x, create_graph=True, vectorize=vectorize)
        assert J.requires_grad
        (g,) = al.autograd.grad(J.sum(), x)      # d/dx sum(diag(3x²)) = 6x
        assert np.allclose(g.numpy(), 6 * x.detach().numpy())


# -- the pass counts the chapter quotes ----------------------------------------------------------
W5x3 = al.tensor(np.arange(15.0).reshape(5, 3) / 10, dtype=al.float64)


def wide_to_tall(x):            # R³ → R⁵, two operations
    return W5x3 @ x.tanh()


def passes(fn):
    with al.autograd.count_passes() as c:
        fn()
    return c.as_dict()


X3 = al.tensor([0.1, 0.2, 0.3], dtype=al.float64)


@pytest.mark.parametrize("kw, expected", [
    ({}, dict(forward=1, backward=5, jvp=0, ops=2)),                     # one walk per output entry
    ({"vectorize": True}, dict(forward=1, backward=1, jvp=0, ops=2)),    # all seeds, one walk
    ({"vectorize": True, "strategy": "forward-mode"}, dict(forward=1, backward=0, jvp=1, ops=2)),
    ({"strategy": "forward-mode"}, dict(forward=3, backward=0, jvp=3, ops=6)),   # one per input
], ids=["row-loop", "vectorized", "forward-batched", "forward-loop"])
def test_jacobian_takes_exactly_the_passes_its_strategy_promises(kw, expected):
    assert passes(lambda: F.jacobian(wide_to_tall, X3, **kw)) == expected


def test_each_product_takes_its_passes():
    v5 = al.ones(5, dtype=al.float64)
    v3 = al.ones(3, dtype=al.float64)
    scalar = lambda x: (x ** 3).sum()        # noqa: E731
    assert passes(lambda: F.vjp(wide_to_tall, X3, v5)) == dict(forward=1, backward=1, jvp=0, ops=2)
    # the double-backward trick: a recorded backward, then a backward through it
    assert passes(lambda: F.jvp(wide_to_tall, X3, v3))["backward"] == 2
    assert passes(lambda: F.vhp(scalar, X3, v3))["backward"] == 2
    assert passes(lambda: F.hvp(scalar, X3, v3))["backward"] == 3


@pytest.mark.parametrize("kw, expected", [
    ({}, dict(forward=1, backward=4, jvp=0)),             # 1 recorded gradient + 3 rows
    ({"vectorize": True}, dict(forward=1, backward=2, jvp=0)),
    ({"vectorize": True, "outer_jacobian_strategy": "forward-mode"}, dict(forward=1, backward=1, jvp=1)),
    ({"outer_jacobian_strategy": "forward-mode"}, dict(forward=3, backward=3, jvp=3)),
], ids=["row-loop", "vectorized", "forward-over-reverse", "forward-over-reverse-loop"])
def test_hessian_takes_exactly_the_passes_of_its_outer_strategy(kw, expected):
    counts = passes(lambda: F.hessian(lambda x: (x.tanh() ** 2).sum(), X3, **kw))
    counts.pop("ops")
    assert counts == expected


def test_counters_nest_and_count_only_inside_their_block():
    with al.autograd.count_passes() as outer:
        F.jacobian(wide_to_tall, X3)
        with al.autograd.count_passes() as inner:
            F.jacobian(wide_to_tall, X3, vectorize=True)
    F.jacobian(wide_to_tall, X3)
    assert (inner.forward, inner.backward) == (1, 1)
    assert (outer.forward, outer.backward) == (2, 6)


# -- Hessians ------------------------------------------------------------------------------------
HESSIAN_WAYS = [
    lambda f, x: F.hessian(f, x),
    lambda f, x: F.hessian(f, x, vectorize=True),
    lambda f, x: F.hessian(f, x, vectorize=True, outer_jacobian_strategy="forward-mode"),
    lambda f, x: F.hessian(f, x, outer_jacobian_strategy="forward-mode"),
    lambda f, x: al.func.hessian(f)(x),
    lambda f, x: al.func.jacfwd(al.func.jacrev(f))(x),
    lambda f, x: al.func.jacrev(al.func.jacrev(f))(x),
]
WAY_IDS = ["loop", "vectorized", "fwd-over-rev", "fwd-over-rev-loop", "func.hessian",
           "jacfwd(jacrev)", "jacrev(jacrev)"]


@pytest.mark.parametrize("way", HESSIAN_WAYS, ids=WAY_IDS)
def test_hessian_of_sum_of_cubes_is_diag_6x(way):
    x = al.tensor([1.0, -2.0, 0.5], dtype=al.float64)
    H = way(lambda x: (x ** 3).sum(), x)
    assert H.shape == (3, 3)
    assert np.allclose(H.numpy(), np.diag([6.0, -12.0, 3.0]))


@pytest.mark.parametrize("way", HESSIAN_WAYS, ids=WAY_IDS)
def test_hessian_of_quadratic_form_is_A_plus_A_transposed(way):
    A = al.tensor([[1.0, 2.0, 0.0], [-1.0, 3.0, 4.0], [0.5, 0.0, -2.0]], dtype=al.float64)
    x = al.tensor([0.3, -0.1, 0.7], dtype=al.float64)
    H = way(lambda x: x @ (A @ x), x)
    assert np.allclose(H.numpy(), A.numpy() + A.numpy().T)


@pytest.mark.parametrize("way", HESSIAN_WAYS, ids=WAY_IDS)
def test_hessian_of_a_composition_is_symmetric_and_matches_finite_differences(way):
    W = al.tensor([[0.2, -0.4, 0.1], [0.7, 0.3, -0.5]], dtype=al.float64)

    def f(x):
        return (W @ x).tanh().sum() * x.norm() + (x.sigmoid() * x.sin()).sum()

    x = al.tensor([0.4, -0.3, 0.9], dtype=al.float64)
    H = way(f, x).numpy()
    assert np.allclose(H, H.T, atol=1e-12)

    def grad_of(x):
        return al.func.grad(f)(x)
    numeric = numerical_jacobian(grad_of, (al.tensor(x.numpy(), dtype=al.float64,
                                                     requires_grad=True),), [0], eps=1e-6)[0][0]
    assert np.allclose(H, numeric, rtol=1e-5, atol=1e-7)


def test_hessian_with_two_inputs_nests_input_by_input():
    x = al.tensor([1.0, 2.0], dtype=al.float64)
    y = al.tensor([3.0, 4.0], dtype=al.float64)
    H = F.hessian(lambda x, y: (x * y).sum() + (x ** 2).sum() * 0.5, (x, y))
    assert np.allclose(H[0][0].numpy(), np.eye(2)) and np.allclose(H[1][1].numpy(), 0)
    assert np.allclose(H[0][1].numpy(), np.eye(2)) and np.allclose(H[1][0].numpy(), np.eye(2))


def test_hvp_and_vhp_equal_hessian_times_v():
    A = np.array([[2.0, 1.0], [0.0, 3.0]])
    At = al.tensor(A, dtype=al.float64)
    x = al.tensor([0.5, -1.0], dtype=al.float64)
    v = al.tensor([1.0, 2.0], dtype=al.float64)

    def f(x):
        return x @ (At @ x) + (x ** 4).sum()

    H = A + A.T + np.diag(12 * x.numpy() ** 2)
    value, hv = F.hvp(f, x, v)
    _, vh = F.vhp(f, x, v)
    assert np.isclose(value.item(), f(x).item())
    assert np.allclose(hv.numpy(), H @ v.numpy()) and np.allclose(vh.numpy(), v.numpy() @ H)


# -- vjp and jvp ---------------------------------------------------------------------------------
def test_vjp_with_a_one_hot_v_is_a_row_and_jvp_with_a_one_hot_v_a_column():
    x = al.tensor([1.0, 2.0, 3.0], dtype=al.float64)
    J = F.jacobian(wide_to_tall, x).numpy()
    for i in range(5):
        e = np.zeros(5)
        e[i] = 1
        _, row = F.vjp(wide_to_tall, x, al.tensor(e, dtype=al.float64))
        assert np.allclose(row.numpy(), J[i])
    for j in range(3):
        e = np.zeros(3)
        e[j] = 1
        _, col = F.jvp(wide_to_tall, x, al.tensor(e, dtype=al.float64))
        assert np.allclose(col.numpy(), J[:, j])


def test_vjp_returns_the_output_and_the_inputs_structure():
    x, y = _pair()
    out, (gx, gy) = F.vjp(lambda x, y: (x * y.sum()), (x, y), al.ones(3, dtype=al.float64))
    assert out.tolist() == [-0.5, -1.0, -1.5]
    assert gx.tolist() == [-0.5, -0.5, -0.5] and gy.tolist() == [[6.0, 6.0]]


def test_vjp_without_v_works_for_a_one_element_output():
    x = al.tensor([1.0, 2.0])
    out, g = F.vjp(lambda x: (x * x).sum(), x)
    assert out.item() == 5.0 and g.tolist() == [2.0, 4.0]


def test_vjp_create_graph_keeps_results_differentiable():
    x = al.tensor([1.0, 2.0], dtype=al.float64, requires_grad=True)
    out, g = F.vjp(lambda x: (x ** 3).sum(), x, create_graph=True)
    assert out.requires_grad and g.requires_grad
    (gg,) = al.autograd.grad(g.sum(), x)
    assert gg.tolist() == [6.0, 12.0]


def test_jvp_of_a_tuple_output_gives_a_tuple():
    x = al.tensor([1.0, 2.0], dtype=al.float64)
    out, jv = F.jvp(lambda x: (x * 2, x.sum()), x, al.tensor([1.0, 1.0], dtype=al.float64))
    assert isinstance(out, tuple) and [t.tolist() for t in jv] == [[2.0, 2.0], 2.0]


# -- the documents' Jacobians --------------------------------------------------------------------
def _sigmoid_layer_parts():
    x, y_true, W, b = layer_inputs(seed=3)

    def losses(W):
        return (y_true - al.nn.Sigmoid()(al.mm(W, al.transpose(x, 0, 1)) + b)) ** 2
    return W, losses


def test_sigmoid_layer_jacobian_rows_are_the_one_hot_seed_gradients():
    W, losses = _sigmoid_layer_parts()
    J = F.jacobian(losses, W)                       # d losses (1x2) / d W (1x3)
    assert J.shape == (1, 2, 1, 3)
    out = losses(W)
    for k, seed in enumerate(([[1.0, 0.0]], [[0.0, 1.0]])):
        W.grad = None
        out.backward(al.tensor(seed), retain_graph=True)
        assert np.allclose(J.numpy()[0, k], W.grad.numpy())
    # the document's ½ seeds give half of these rows, and the rows sum to grad(sum(losses))
    W.grad = None
    out.sum().backward()
    assert np.allclose(J.numpy()[0].sum(0), W.grad.numpy())
    for kw in ({"vectorize": True}, {"strategy": "forward-mode", "vectorize": True}):
        assert np.allclose(F.jacobian(losses, W, **kw).numpy(), J.numpy(), atol=1e-7)


def test_outer_jacobian_is_4x4x4_and_ones_contract_it_to_20s():
    x = al.tensor([1.0, 2.0, 3.0, 4.0])
    J = F.jacobian(lambda x: al.outer(x, x), x)
    assert J.shape == (4, 4, 4)
    eye = np.eye(4)
    expected = eye[:, None, :] * x.numpy()[None, :, None] + x.numpy()[:, None, None] * eye[None, :, :]
    assert np.allclose(J.numpy(), expected)        # dy[j,k]/dx[i] = δij x[k] + x[j] δik
    assert np.tensordot(np.ones((4, 4)), J.numpy(), axes=2).tolist() == [20.0, 20.0, 20.0, 20.0]
    assert F.vjp(lambda x: al.outer(x, x), x, al.ones(4, 4))[1].tolist() == [20.0] * 4


# -- errors: torch's texts -----------------------------------------------------------------------
def test_inputs_that_are_not_tensors_raise_torchs_type_error():
    with pytest.raises(TypeError, match=r"^The inputs given to jacobian must be either a Tensor or "
                                        r"a tuple of Tensors but the given inputs has type "
                                        r"<class 'list'>\.$"):
        F.jacobian(lambda x: x, [1.0])
    x = al.tensor([1.0])
    with pytest.raises(TypeError, match=r"but the value at index 1 has type <class 'float'>\.$"):
        F.vjp(lambda x, y: x, (x, 3.0), x)


def test_a_function_returning_a_non_tensor_raises_torchs_type_error():
    x = al.tensor([1.0])
    with pytest.raises(TypeError, match=r"^The outputs of the user-provided function given to "
                                        r"jacobian must be either a Tensor or a tuple of Tensors "
                                        r"but the given outputs of the user-provided function has "
                                        r"type <class 'int'>\.$"):
        F.jacobian(lambda x: 3, x)
    with pytest.raises(TypeError, match=r"given to hvp must be .* but the value at index 1 has "
                                        r"type <class 'int'>\.$"):
        F.hvp(lambda x: (x, 3), x, x)


def test_strict_mode_rejects_an_output_independent_of_an_input():
    x = al.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^Output 0 of the user-provided function is "
                                           r"independent of input 1\. This is not allowed in "
                                           r"strict mode\.$"):
        F.jacobian(lambda x, y: x * 2, (x, x), strict=True)
    with pytest.raises(RuntimeError, match=r"^The output of the user-provided function is "
                                           r"independent of input 1\. This is not allowed in "
                                           r"strict mode\.$"):
        F.vjp(lambda x, y: x * 2, (x, x), x, strict=True)
    with pytest.raises(RuntimeError, match=r"^Output 0 of the user-provided function does not "
                                           r"require gradients\."):
        F.jacobian(lambda x: x.detach(), x, strict=True)
    with pytest.raises(RuntimeError, match=r"^While computing the hessian, found that the jacobian "
                                           r"of the user-provided function with respect to input 0 "
                                           r"is independent of the input\."):
        F.hessian(lambda x: (x * 2).sum(), x, strict=True)


def test_v_of_the_wrong_length_or_shape_raises_torchs_text():
    x = al.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"^The given v should contain a single Tensor\.$"):
        F.vjp(lambda x: x * 2, x, (x, x))
    with pytest.raises(RuntimeError, match=r"^v is a tuple of invalid length: should be 2 but got 1\.$"):
        F.vjp(lambda x: (x * 2, x), x, (x,))
    with pytest.raises(RuntimeError, match=r"^v has invalid size: should be \(3,\) but got \(2,\)\.$"):
        F.vjp(lambda x: x * 2, x, al.ones(2))
    with pytest.raises(RuntimeError, match=r"^Entry 0 in v has invalid size: should be \(3,\) but "
                                           r"got \(2,\)\.$"):
        F.jvp(lambda x, y: x * y, (x, x), (al.ones(2), x))
    with pytest.raises(RuntimeError, match=r"^The vector v can only be None if the user-provided "
                                           r"function returns a single Tensor with a single element\.$"):
        F.vjp(lambda x: x * 2, x)
    with pytest.raises(RuntimeError, match=r"^The vector v can only be None if the input to the "
                                           r"user-provided function is a single Tensor with a "
                                           r"single element\.$"):
        F.hvp(lambda x: x.sum(), x)


def test_option_combinations_torch_refuses_raise_its_errors():
    x = al.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"`strict=True` and `vectorized=True` are not supported"):
        F.jacobian(lambda x: x * 2, x, vectorize=True, strict=True)
    with pytest.raises(RuntimeError, match=r'`strict=True` and `strategy="forward-mode"` are not '
                                           r'supported together'):
        F.jacobian(lambda x: x * 2, x, strategy="forward-mode", strict=True)
    with pytest.raises(NotImplementedError, match=r'`create_graph=True` and `strategy="forward-mode"`'):
        F.jacobian(lambda x: x * 2, x, strategy="forward-mode", create_graph=True)
    with pytest.raises(ValueError, match=r'^Expected strategy to be either "forward-mode" or '
                                         r'"reverse-mode"\. Hint:'):
        F.jacobian(lambda x: x * 2, x, strategy="sideways")


def test_hessian_of_a_non_scalar_function_raises():
    x = al.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^The Tensor returned by the function given to hessian "
                                           r"should contain a single element$"):
        F.hessian(lambda x: x * x, x)
    with pytest.raises(RuntimeError, match=r"^The function given to vhp should return a single Tensor$"):
        F.vhp(lambda x: (x.sum(), x.sum()), x, x)
