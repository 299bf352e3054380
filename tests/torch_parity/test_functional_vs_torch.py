"""The functional layer beside PyTorch's: same numbers, same nesting of tuples, same
shapes, same error texts (shapes printed as tuples), same gradcheck verdicts."""
import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the comparison with "
                                            "PyTorch's functional API is skipped (autograd_lab "
                                            "itself does not need torch)")
import torch.autograd.functional as TF  # noqa: E402
import torch.func as tfunc  # noqa: E402

import autograd_lab as al  # noqa: E402
from autograd_lab.autograd import functional as F  # noqa: E402

# torch.autograd.functional's vectorized paths call into torch.jit, which warns about itself
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")

rng = np.random.default_rng(7)
A = rng.normal(size=(3, 3))
W = rng.normal(size=(4, 3))
X = rng.normal(size=3)
Y = rng.normal(size=(2, 3))


def both(array):
    return al.tensor(array, dtype=al.float64), torch.tensor(array, dtype=torch.float64)


def same(ours, theirs):
    """Same nesting of tuples, same shapes, same numbers."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, al.Tensor), f"expected a tensor, got {type(ours).__name__}"
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                   rtol=1e-9, atol=1e-12)
        return
    # torch's forward-mode jacobian nests lists where its reverse mode nests tuples;
    # autograd_lab returns tuples from both
    assert isinstance(ours, tuple) and isinstance(theirs, (tuple, list)) and len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        same(o, t)


# one definition per function, written once for each library
FUNCTIONS = {
    "layer": (lambda lib: lambda x: lib.tanh(lib_tensor(lib, W) @ x), (X,)),
    "two_inputs_one_output": (lambda lib: lambda x, y: (x * y).sin().sum(0), (X, Y)),
    "tuple_outputs": (lambda lib: lambda x, y: (x.exp() * y, (x * x).sum()), (X, Y)),
    "quadratic": (lambda lib: lambda x: x @ (lib_tensor(lib, A) @ x), (X,)),
}


def lib_tensor(lib, array):
    return al.tensor(array, dtype=al.float64) if lib is al else torch.tensor(array, dtype=torch.float64)


def make(name):
    factory, arrays = FUNCTIONS[name]
    ours = [al.tensor(a, dtype=al.float64) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64) for a in arrays]
    return factory(al), factory(torch), ours, theirs


def args(inputs):
    return inputs[0] if len(inputs) == 1 else tuple(inputs)


JACOBIAN_OPTIONS = [{}, {"vectorize": True}, {"vectorize": True, "strategy": "forward-mode"}]


@pytest.mark.parametrize("options", JACOBIAN_OPTIONS, ids=["loop", "vectorized", "forward"])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_jacobian_matches_torch(name, options):
    f, g, ours, theirs = make(name)
    same(F.jacobian(f, args(ours), **options), TF.jacobian(g, args(theirs), **options))
    same(F.jacobian(f, tuple(ours), **options), TF.jacobian(g, tuple(theirs), **options))


@pytest.mark.parametrize("options", [{}, {"vectorize": True},
                                     {"vectorize": True, "outer_jacobian_strategy": "forward-mode"}],
                         ids=["loop", "vectorized", "forward-over-reverse"])
def test_hessian_matches_torch(options):
    for name in ("quadratic",):
        f, g, ours, theirs = make(name)
        same(F.hessian(f, ours[0], **options), TF.hessian(g, theirs[0], **options))
    h = lambda lib: lambda x, y: (x.sin() * y).sum()        # noqa: E731
    xo, xt = both(X)
    yo, yt = both(Y[0])
    same(F.hessian(h(al), (xo, yo), **options), TF.hessian(h(torch), (xt, yt), **options))


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_vjp_and_jvp_match_torch(name):
    f, g, ours, theirs = make(name)
    out_t = g(*theirs)
    outs_t = out_t if isinstance(out_t, tuple) else (out_t,)
    v_arrays = [rng.normal(size=tuple(o.shape)) for o in outs_t]
    v_o = tuple(al.tensor(a, dtype=al.float64) for a in v_arrays)
    v_t = tuple(torch.tensor(a, dtype=torch.float64) for a in v_arrays)
    if not isinstance(out_t, tuple):
        v_o, v_t = v_o[0], v_t[0]
    same(F.vjp(f, args(ours), v_o), TF.vjp(g, args(theirs), v_t))
    u_arrays = [rng.normal(size=a.shape) for a in FUNCTIONS[name][1]]
    u_o = args([al.tensor(a, dtype=al.float64) for a in u_arrays])
    u_t = args([torch.tensor(a, dtype=torch.float64) for a in u_arrays])
    same(F.jvp(f, args(ours), u_o), TF.jvp(g, args(theirs), u_t))
    # torch.func: true forward mode on both sides
    same(al.func.jvp(f, tuple(ours), u_o if isinstance(u_o, tuple) else (u_o,)),
         tfunc.jvp(g, tuple(theirs), u_t if isinstance(u_t, tuple) else (u_t,)))


def test_hvp_and_vhp_match_torch():
    f, g, ours, theirs = make("quadratic")
    vo, vt = both(rng.normal(size=3))
    same(F.hvp(f, ours[0], vo), TF.hvp(g, theirs[0], vt))
    same(F.vhp(f, ours[0], vo), TF.vhp(g, theirs[0], vt))


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_torch_func_transforms_match(name):
    f, g, ours, theirs = make(name)
    argnums = tuple(range(len(ours)))
    same(al.func.jacrev(f, argnums)(*ours), tfunc.jacrev(g, argnums)(*theirs))
    same(al.func.jacfwd(f, argnums)(*ours), tfunc.jacfwd(g, argnums)(*theirs))
    same(al.func.jacrev(f)(*ours), tfunc.jacrev(g)(*theirs))
    out_o, fn_o = al.func.vjp(f, *ours)
    out_t, fn_t = tfunc.vjp(g, *theirs)
    same(out_o, out_t)
    cot_t = tuple(torch.ones_like(o) for o in out_t) if isinstance(out_t, tuple) else torch.ones_like(out_t)
    cot_o = tuple(al.ones_like(o) for o in out_o) if isinstance(out_o, tuple) else al.ones_like(out_o)
    same(fn_o(cot_o), fn_t(cot_t))


def test_grad_and_hessian_transforms_match():
    f, g, ours, theirs = make("quadratic")
    same(al.func.grad(f)(ours[0]), tfunc.grad(g)(theirs[0]))
    same(al.func.hessian(f)(ours[0]), tfunc.hessian(g)(theirs[0]))
    h = lambda lib: lambda x, y: (x.sin() * y).sum()        # noqa: E731
    xo, xt = both(X)
    yo, yt = both(Y[0])
    same(al.func.grad(h(al), argnums=(0, 1))(xo, yo), tfunc.grad(h(torch), argnums=(0, 1))(xt, yt))


# -- error texts -------------------------------------------------------------------------------
def torch_text(err):
    """torch's message with torch.Size([3]) written as (3,), as autograd_lab prints shapes."""
    def size(m):
        dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
        return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
    return re.sub(r"torch\.Size\(\[([^\]]*)\]\)", size, str(err))


def raised(fn):
    try:
        fn()
    except Exception as e:          # noqa: BLE001 -- the point is to compare what was raised
        return type(e), e
    raise AssertionError("expected an error")


ERROR_CASES = {
    "list_inputs": lambda lib, T: lib.jacobian(lambda x: x, [1.0]),
    "float_in_tuple": lambda lib, T: lib.vjp(lambda x, y: x, (T([1.0]), 3.0), T([1.0])),
    "returns_int": lambda lib, T: lib.jacobian(lambda x: 3, T([1.0])),
    "returns_tuple_with_int": lambda lib, T: lib.hessian(lambda x: (x, 3), T([1.0])),
    "strict_independent": lambda lib, T: lib.jacobian(lambda x, y: x * 2, (T([1.0, 2.0]), T([1.0, 2.0])),
                                                      strict=True),
    "strict_no_grad": lambda lib, T: lib.vjp(lambda x: x.detach(), T([1.0]), T([1.0]), strict=True),
    "strict_vjp_unused": lambda lib, T: lib.vjp(lambda x, y: x, (T([1.0]), T([1.0])), T([1.0]), strict=True),
    "strict_linear_hessian": lambda lib, T: lib.hessian(lambda x: (x * 2).sum(), T([1.0, 2.0]), strict=True),
    "v_single_for_tuple": lambda lib, T: lib.vjp(lambda x: x * 2, T([1.0]), (T([1.0]), T([1.0]))),
    "v_tuple_too_short": lambda lib, T: lib.vjp(lambda x: (x, x), T([1.0]), (T([1.0]),)),
    "v_wrong_size": lambda lib, T: lib.vjp(lambda x: x * 2, T([1.0, 2.0, 3.0]), T([1.0, 2.0])),
    "v_entry_wrong_size": lambda lib, T: lib.jvp(lambda x, y: x, (T([1.0, 2.0]), T([1.0])),
                                                 (T([1.0]), T([1.0]))),
    "v_missing": lambda lib, T: lib.vjp(lambda x: x * 2, T([1.0, 2.0])),
    "jvp_v_missing": lambda lib, T: lib.jvp(lambda x: x * 2, T([1.0, 2.0])),
    "hessian_not_scalar": lambda lib, T: lib.hessian(lambda x: x * x, T([1.0, 2.0])),
    "vhp_tuple_output": lambda lib, T: lib.vhp(lambda x: (x.sum(), x.sum()), T([1.0]), T([1.0])),
    "vectorize_strict": lambda lib, T: lib.jacobian(lambda x: x, T([1.0]), vectorize=True, strict=True),
    "forward_strict": lambda lib, T: lib.jacobian(lambda x: x, T([1.0]), strategy="forward-mode",
                                                  strict=True),
    "forward_create_graph": lambda lib, T: lib.jacobian(lambda x: x, T([1.0]), strategy="forward-mode",
                                                        create_graph=True),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_error_texts_match_torch(case):
    make_error = ERROR_CASES[case]
    ours_type, ours = raised(lambda: make_error(F, lambda v: al.tensor(v, dtype=al.float64)))
    theirs_type, theirs = raised(lambda: make_error(TF, lambda v: torch.tensor(v, dtype=torch.float64)))
    assert str(ours) == torch_text(theirs)
    assert ours_type is theirs_type


def test_bad_strategy_is_a_value_error_here_and_an_assertion_in_torch_with_the_same_text():
    _, ours = raised(lambda: F.jacobian(lambda x: x, al.tensor([1.0]), strategy="sideways"))
    _, theirs = raised(lambda: TF.jacobian(lambda x: x, torch.tensor([1.0]), strategy="sideways"))
    assert str(ours) == str(theirs)


FUNC_ERRORS = {
    "primals_not_tuple": lambda fn, T: fn.jvp(lambda x: x, T([1.0]), T([1.0])),
    "tangent_size": lambda fn, T: fn.jvp(lambda x: x, (T([1.0, 2.0]),), (T([1.0]),)),
    "jvp_returns_int": lambda fn, T: fn.jvp(lambda x: 3, (T([1.0]),), (T([1.0]),)),
    "grad_not_scalar": lambda fn, T: fn.grad(lambda x: x * 2)(T([1.0, 2.0])),
    "grad_returns_int": lambda fn, T: fn.grad(lambda x: 3)(T([1.0])),
    "argnum_out_of_range": lambda fn, T: fn.grad(lambda x: x.sum(), argnums=1)(T([1.0])),
    "argnums_repeated": lambda fn, T: fn.grad(lambda x: x.sum(), argnums=(0, 0))(T([1.0])),
    "grad_of_float": lambda fn, T: fn.grad(lambda x: x)(3.0),
    "aux_missing": lambda fn, T: fn.grad(lambda x: x.sum(), has_aux=True)(T([1.0])),
    "aux_not_tensors": lambda fn, T: fn.jacrev(lambda x: (x, {"n": 7}), has_aux=True)(T([1.0])),
    "vjp_returns_int": lambda fn, T: fn.vjp(lambda x: 3, T([1.0])),
    "vjp_cotangent_structure": lambda fn, T: fn.vjp(lambda x: (x, x), T([1.0]))[1](T([1.0])),
}


@pytest.mark.parametrize("case", list(FUNC_ERRORS))
def test_func_error_texts_match_torch_func(case):
    make_error = FUNC_ERRORS[case]
    ours_type, ours = raised(lambda: make_error(al.func, lambda v: al.tensor(v, dtype=al.float64)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs_type, theirs = raised(lambda: make_error(tfunc, lambda v: torch.tensor(v, dtype=torch.float64)))
    assert ours_type is theirs_type
    if case == "tangent_size":     # same sentence, sizes as lists in both
        assert str(ours) == str(theirs)
    else:
        assert str(ours) == torch_text(theirs)


# -- gradcheck --------------------------------------------------------------------------------
def wrong_square(lib):
    """x², whose backward says 3x instead of 2x: a Function for either library."""
    class WrongSquare(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * g
    return WrongSquare


def test_gradcheck_verdicts_and_first_line_match_torch():
    xo = al.tensor([1.0, 2.0], dtype=al.float64, requires_grad=True)
    xt = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    assert al.autograd.gradcheck(lambda x: x.tanh() * x, (xo,)) == \
        torch.autograd.gradcheck(lambda x: x.tanh() * x, (xt,))
    assert al.autograd.gradgradcheck(lambda x: x.tanh() * x, (xo,)) == \
        torch.autograd.gradgradcheck(lambda x: x.tanh() * x, (xt,))
    _, ours = raised(lambda: al.autograd.gradcheck(wrong_square(al).apply, (xo,)))
    _, theirs = raised(lambda: torch.autograd.gradcheck(wrong_square(torch).apply, (xt,)))
    assert str(ours).splitlines()[0] == str(theirs).splitlines()[0]
    assert isinstance(theirs, RuntimeError) and isinstance(ours, RuntimeError)


def test_float32_message_is_torchs_warning_text():
    x32 = torch.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.autograd.gradcheck(lambda x: x * 2, (x32,), raise_exception=False)
    torch_message = next(str(w.message) for w in caught if "double precision" in str(w.message))
    _, ours = raised(lambda: al.autograd.gradcheck(lambda x: x * 2,
                                                   (al.tensor([1.0, 2.0], requires_grad=True),)))
    assert str(ours).startswith(torch_message.rstrip())
