"""al.func: true forward mode (tangents pushed by the JVP rules, no backward pass) and
the torch.func-style transforms built on forward and reverse mode."""
from collections import OrderedDict

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.core.modes import state


def f64(values, requires_grad=False):
    return al.tensor(values, dtype=al.float64, requires_grad=requires_grad)


def passes(fn):
    with al.autograd.count_passes() as c:
        result = fn()
    return c.as_dict(), result


# -- jvp: forward mode -----------------------------------------------------------------------
def test_jvp_is_one_forward_pass_and_no_backward_pass():
    x, v = f64([0.5, 1.0, 2.0]), f64([1.0, 0.0, -1.0])
    counts, (y, jv) = passes(lambda: al.func.jvp(lambda x: x.sin() * x, (x,), (v,)))
    assert counts == dict(forward=1, backward=0, jvp=1, ops=2)
    xs = x.numpy()
    assert np.allclose(y.numpy(), np.sin(xs) * xs)
    assert np.allclose(jv.numpy(), (np.cos(xs) * xs + np.sin(xs)) * v.numpy())


def test_jvp_records_no_graph_and_leaves_the_inputs_without_tangents():
    x = f64([1.0, 2.0], requires_grad=True)
    y, jv = al.func.jvp(lambda x: x * 3, (x,), (f64([1.0, 1.0]),))
    assert y.grad_fn is None and jv.grad_fn is None and jv.tolist() == [3.0, 3.0]
    assert x._tangent is None and x.grad is None and state.forward_level == 0


def test_jvp_of_two_inputs_adds_their_directional_derivatives():
    x, y = f64([1.0, 2.0]), f64([3.0, 5.0])
    _, jv = al.func.jvp(lambda x, y: x * y, (x, y), (f64([1.0, 0.0]), f64([0.0, 1.0])))
    assert jv.tolist() == [3.0, 2.0]                 # y0 * dx0 + x1 * dy1


def test_jvp_with_tuple_output_and_aux():
    x = f64([1.0, 2.0])
    (a, b), (ta, tb), aux = al.func.jvp(lambda x: ((x * 2, x.sum()), {"x": x}), (x,),
                                        (f64([1.0, 1.0]),), has_aux=True)
    assert a.tolist() == [2.0, 4.0] and b.item() == 3.0
    assert ta.tolist() == [2.0, 2.0] and tb.item() == 2.0 and aux["x"].tolist() == [1.0, 2.0]


def test_jvp_of_an_output_the_tangent_never_reaches_is_zero():
    x = f64([1.0, 2.0])
    _, jv = al.func.jvp(lambda x: al.ones(3, dtype=al.float64), (x,), (f64([1.0, 1.0]),))
    assert jv.tolist() == [0.0, 0.0, 0.0]


def test_jvp_uses_a_custom_functions_jvp_rule():
    class Cube(al.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])      # jvp sees only these, as in torch

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * t

    _, jv = al.func.jvp(Cube.apply, (f64([1.0, 2.0]),), (f64([1.0, 1.0]),))
    assert jv.tolist() == [3.0, 12.0]


def test_a_function_without_setup_context_is_refused_by_the_transforms_as_in_torch():
    class Cube(al.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x ** 3

        @staticmethod
        def jvp(ctx, t):
            return t

    with pytest.raises(RuntimeError, match="it must override the setup_context staticmethod"):
        al.func.jvp(Cube.apply, (f64([1.0, 2.0]),), (f64([1.0, 1.0]),))


def test_jvp_equals_the_double_backward_trick_of_autograd_functional():
    W = f64([[0.3, -0.2], [0.5, 0.1], [1.0, 2.0]])
    x, v = f64([0.7, -0.4]), f64([2.0, 1.0])
    f = lambda x: (W @ x).tanh() * x.sum()           # noqa: E731
    _, forward = al.func.jvp(f, (x,), (v,))
    _, trick = al.autograd.functional.jvp(f, x, v)
    assert np.allclose(forward.numpy(), trick.numpy())


def test_jvp_restores_the_forward_level_when_the_function_raises():
    with pytest.raises(ZeroDivisionError):
        al.func.jvp(lambda x: 1 / 0, (f64([1.0]),), (f64([1.0]),))
    assert state.forward_level == 0


def test_nested_forward_mode_gives_second_derivatives():
    x = f64([1.0, 2.0])
    inner = lambda y: al.func.jvp(lambda z: z ** 3, (y,), (f64([1.0, 0.0]),))[1]
    _, jj = al.func.jvp(inner, (x,), (f64([1.0, 0.0]),))
    assert jj.tolist() == [6.0, 0.0]                    # d2/dx0^2 of x0^3 = 6 x0
    assert al.func.jacfwd(al.func.jacfwd(lambda x: x ** 3))(x).tolist() == [
        [[6.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 12.0]]]
    assert state.forward_level == 0


def test_array_tangent_helpers_refuse_to_run_inside_a_forward_level():
    x = f64([1.0, 2.0])
    jac = lambda y: al.autograd.functional.jacobian(lambda z: z ** 2, y, vectorize=True,
                                                    strategy="forward-mode")
    with pytest.raises(RuntimeError, match=r"^autograd\.functional's forward-mode jacobian and "
                                           r"gradcheck's forward mode push plain arrays"):
        al.func.jvp(jac, (x,), (x,))
    assert state.forward_level == 0


def test_an_in_place_write_to_a_tensor_carrying_a_nested_tangent_is_refused():
    def inner(y):
        def f(z):
            z = z * 1.0
            z.mul_(z)
            return z
        return al.func.jvp(f, (y,), (f64([1.0, 1.0]),))[1]
    with pytest.raises(RuntimeError, match="an in-place write changed a tensor that carries a "
                                           "tangent of a nested forward-mode level"):
        al.func.jvp(inner, (f64([1.0, 2.0]),), (f64([1.0, 0.0]),))
    assert state.forward_level == 0


class _Square(al.autograd.Function):
    """x², its jvp, in the form torch's transforms take (setup_context, a vmap rule)."""
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_forward(inputs[0])

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return 2 * x * t


def test_a_custom_function_inside_nested_forward_levels_is_refused_not_zeroed():
    from autograd_lab import forward_mode

    x = f64([1.0, 2.0])
    assert al.func.jacfwd(_Square.apply)(x).tolist() == [[2.0, 0.0], [0.0, 4.0]]
    with pytest.raises(RuntimeError, match="^_Square: a forward-mode transform of a forward-mode "
                                           "transform .* torch runs its jvp staticmethod at the inner"):
        al.func.jacfwd(al.func.jacfwd(_Square.apply))(x)
    assert state.forward_level == 0 and forward_mode.stack == []


def test_reverse_over_forward_raises_instead_of_returning_zeros():
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^Reverse mode over forward mode .* is not supported"):
        al.func.jacrev(al.func.jacfwd(lambda x: x ** 3))(x)


def test_jvp_argument_errors_use_torch_func_texts():
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^jvp\(f, primals, tangents\): Expected primals to be "
                                           r"a tuple\. E\.g\. it should be valid to call f\(\*primals\)\.$"):
        al.func.jvp(lambda x: x, x, x)
    with pytest.raises(RuntimeError, match=r"Expected primals and tangents to have the same python "
                                           r"structure"):
        al.func.jvp(lambda x: x, (x,), (x, x))
    with pytest.raises(RuntimeError, match=r"^Trying to set a forward gradient that has a "
                                           r"different size than that of the original Tensor, this "
                                           r"is not supported\. Tensor is of size \[2\] while the "
                                           r"given forward gradient is of size \[3\]\.$"):
        al.func.jvp(lambda x: x, (x,), (f64([1.0, 2.0, 3.0]),))
    with pytest.raises(RuntimeError, match=r"expected f\(\*primals\) to return only tensors, got "
                                           r"unsupported type <class 'int'>"):
        al.func.jvp(lambda x: 3, (x,), (x,))
    with pytest.raises(RuntimeError, match=r"Expected primals to only contain Tensors, got "
                                           r"<class 'float'>"):
        al.func.jvp(lambda x: x, (3.0,), (1.0,))


# -- vjp, grad --------------------------------------------------------------------------------
def test_vjp_returns_a_function_that_walks_the_recorded_graph_each_call():
    x = f64([1.0, 2.0, 3.0])
    counts, (y, vjp_fn) = passes(lambda: al.func.vjp(lambda x: x ** 2, x))
    assert counts["forward"] == 1 and counts["backward"] == 0
    for seed in ([1.0, 0.0, 0.0], [0.0, 1.0, 1.0]):
        counts, (g,) = passes(lambda: vjp_fn(f64(seed)))
        assert counts == dict(forward=0, backward=1, jvp=0, ops=0)
        assert g.tolist() == (2 * x.numpy() * np.array(seed)).tolist()
    assert y.grad_fn is None


def test_vjp_of_two_primals_and_tuple_outputs():
    x, y = f64([1.0, 2.0]), f64([3.0])
    out, vjp_fn = al.func.vjp(lambda x, y: (x * y, y.sum()), x, y)
    assert out[0].tolist() == [3.0, 6.0] and out[1].item() == 3.0
    gx, gy = vjp_fn((f64([1.0, 1.0]), f64(2.0)))
    assert gx.tolist() == [3.0, 3.0] and gy.tolist() == [5.0]        # x0 + x1 + 2


def test_vjp_cotangent_structure_must_match_the_output():
    _, vjp_fn = al.func.vjp(lambda x: (x, x), f64([1.0]))
    with pytest.raises(RuntimeError, match=r"^Expected pytree structure of cotangents to be the "
                                           r"same as pytree structure of outputs to the function\. "
                                           r"cotangents: \*, primal output: \(\*, \*\)$"):
        vjp_fn(f64([1.0]))


def test_grad_of_a_scalar_function_with_argnums_and_aux():
    x, y = f64([1.0, 2.0]), f64([3.0, 4.0])
    f = lambda x, y: (x * y).sum()        # noqa: E731
    assert al.func.grad(f)(x, y).tolist() == [3.0, 4.0]
    gx, gy = al.func.grad(f, argnums=(0, 1))(x, y)
    assert gx.tolist() == [3.0, 4.0] and gy.tolist() == [1.0, 2.0]
    g, aux = al.func.grad(lambda x: ((x ** 2).sum(), x * 3), has_aux=True)(x)
    assert g.tolist() == [2.0, 4.0] and aux.tolist() == [3.0, 6.0]
    (g, value) = al.func.grad_and_value(lambda x: (x ** 2).sum())(x)
    assert value.item() == 5.0


def test_grad_of_grad_is_the_second_derivative():
    x = f64(0.5)
    d2 = al.func.grad(al.func.grad(lambda x: x ** 4))(x)
    assert np.isclose(d2.item(), 12 * 0.5 ** 2)


def test_grad_errors_use_torch_func_texts():
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^grad_and_value\(f\)\(\*args\): Expected f\(\*args\) "
                                           r"to return a scalar Tensor, got tensor with 1 dims\. "
                                           r"Maybe you wanted to use the vjp or jacrev APIs instead\?$"):
        al.func.grad(lambda x: x * 2)(x)
    with pytest.raises(RuntimeError, match=r"^Got argnum=1, but only 1 positional inputs$"):
        al.func.grad(lambda x: x.sum(), argnums=1)(x)
    with pytest.raises(RuntimeError, match=r"^argnums elements must be unique, got \(0, 0\)$"):
        al.func.grad(lambda x: x.sum(), argnums=(0, 0))(x)
    with pytest.raises(ValueError, match=r"^Thing passed to transform API must be Tensor, got "
                                         r"<class 'float'>$"):
        al.func.grad(lambda x: x)(3.0)
    with pytest.raises(RuntimeError, match=r"output of function f should be a tuple: \(output, aux\) "
                                           r"if has_aux is True"):
        al.func.grad(lambda x: x.sum(), has_aux=True)(x)


# -- Jacobians and Hessians -------------------------------------------------------------------
W = f64([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])


def layer(x):
    return (W @ x).sigmoid()


def test_jacrev_is_one_forward_and_one_batched_backward():
    x = f64([0.1, 0.2, 0.3])
    counts, J = passes(lambda: al.func.jacrev(layer)(x))
    assert (counts["forward"], counts["backward"], counts["jvp"]) == (1, 1, 0)
    s = layer(x).numpy()
    assert np.allclose(J.numpy(), (s * (1 - s))[:, None] * W.numpy())


def test_jacfwd_is_one_forward_pass_carrying_all_tangents():
    x = f64([0.1, 0.2, 0.3])
    counts, J = passes(lambda: al.func.jacfwd(layer)(x))
    assert counts == dict(forward=1, backward=0, jvp=1, ops=2)
    assert np.allclose(J.numpy(), al.func.jacrev(layer)(x).numpy())


def test_jacobians_with_argnums_tuple_nest_per_argument():
    x, w = f64([1.0, 2.0]), f64([3.0, 4.0, 5.0])
    f = lambda x, w: al.outer(x, w)      # noqa: E731
    for transform in (al.func.jacrev, al.func.jacfwd):
        Jx, Jw = transform(f, argnums=(0, 1))(x, w)
        assert Jx.shape == (2, 3, 2) and Jw.shape == (2, 3, 3)
        assert Jx.numpy()[1, 2].tolist() == [0.0, 5.0]          # d(x1 w2)/dx = [0, w2]
        assert Jw.numpy()[1, 2].tolist() == [0.0, 0.0, 2.0]     # d(x1 w2)/dw = [0, 0, x1]


def test_jacobian_transforms_accept_tuple_outputs_and_aux():
    x = f64([1.0, 2.0])
    for transform in (al.func.jacrev, al.func.jacfwd):
        (Ja, Jb), aux = transform(lambda x: ((x * x, x.sum()), (x.sum(),)), has_aux=True)(x)
        assert Ja.tolist() == [[2.0, 0.0], [0.0, 4.0]] and Jb.tolist() == [1.0, 1.0]
        assert aux[0].item() == 3.0


AUX_TRANSFORMS = {
    "vjp": lambda f, x: al.func.vjp(f, x, has_aux=True)[2],
    "grad": lambda f, x: al.func.grad(lambda x: (f(x)[0].sum(), f(x)[1]), has_aux=True)(x)[1],
    "jacrev": lambda f, x: al.func.jacrev(f, has_aux=True)(x)[1],
    "jacfwd": lambda f, x: al.func.jacfwd(f, has_aux=True)(x)[1],
    "jvp": lambda f, x: al.func.jvp(f, (x,), (al.ones_like(x),), has_aux=True)[2],
}


@pytest.mark.parametrize("transform", list(AUX_TRANSFORMS))
def test_aux_comes_back_detached_in_its_own_structure(transform):
    x = f64([1.0, 2.0])
    aux = AUX_TRANSFORMS[transform](
        lambda x: (x * x, OrderedDict(a=[x * 3, x.reshape(1, -1).max(0)], b=x.sin())), x)
    assert type(aux) is OrderedDict and list(aux) == ["a", "b"]
    assert aux["a"][0].tolist() == [3.0, 6.0] and aux["a"][1].values.tolist() == [1.0, 2.0]
    assert not aux["a"][0].requires_grad and aux["b"].grad_fn is None     # as torch.func unwraps it
    assert aux["a"][1].values.grad_fn is None and aux["a"][1].indices.tolist() == [0, 0]


@pytest.mark.parametrize("transform", list(AUX_TRANSFORMS))
@pytest.mark.parametrize("odd", [7, None])
def test_aux_holding_something_else_than_tensors_is_refused_as_in_torch(transform, odd):
    with pytest.raises(RuntimeError, match=f"Expected tensors, got unsupported type <class '{type(odd).__name__}'>"):
        AUX_TRANSFORMS[transform](lambda x: (x * x, (x, odd)), f64([1.0, 2.0]))


def test_hessian_is_forward_over_reverse_as_in_torch_func():
    A = f64([[2.0, 1.0], [1.0, 3.0]])
    x = f64([0.5, -0.5])
    counts, H = passes(lambda: al.func.hessian(lambda x: 0.5 * x @ (A @ x))(x))
    assert (counts["forward"], counts["backward"], counts["jvp"]) == (1, 1, 1)
    assert H.tolist() == A.tolist()


def test_forward_over_reverse_hessian_counts_one_of_each():
    x = f64([0.5, -0.5, 1.5])
    counts, H = passes(lambda: al.func.jacfwd(al.func.jacrev(lambda x: (x.tanh() ** 3).sum()))(x))
    assert (counts["forward"], counts["backward"], counts["jvp"]) == (1, 1, 1)
    t = np.tanh(x.numpy())
    d = 3 * t ** 2 * (1 - t ** 2)                       # first derivative per entry
    dd = 6 * t * (1 - t ** 2) ** 2 - 6 * t ** 3 * (1 - t ** 2)
    assert np.allclose(H.numpy(), np.diag(dd)) and np.allclose(al.func.grad(
        lambda x: (x.tanh() ** 3).sum())(x).numpy(), d)


def test_transforms_leave_the_callers_tensors_untouched():
    x = f64([1.0, 2.0], requires_grad=True)
    al.func.jacrev(lambda x: x ** 2)(x)
    al.func.jacfwd(lambda x: x ** 2)(x)
    al.func.grad(lambda x: (x ** 2).sum())(x)
    assert x.grad is None and x._tangent is None


def test_transforms_of_a_tensor_that_requires_grad_stay_differentiable():
    # torch.func lets an outer autograd differentiate through a transform
    x = f64([1.0, 2.0], requires_grad=True)
    g = al.func.grad(lambda x: (x ** 3).sum())(x)
    (gg,) = al.autograd.grad(g.sum(), x)
    assert gg.tolist() == [6.0, 12.0]
