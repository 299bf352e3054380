"""Custom Functions and forward_ad as PyTorch's tutorials write them ("Double Backward
with Custom Functions", "Extending PyTorch", "Forward-mode Automatic Differentiation"),
run on torch and on autograd_lab: the same numbers, names and refusals."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402


def _exp(lib):
    class Exp(lib.autograd.Function):          # saves its own output
        @staticmethod
        def forward(ctx, x):
            result = lib.exp(x)
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_out):
            result, = ctx.saved_tensors
            return result * grad_out
    return Exp


def _sinh(lib):
    class Sinh(lib.autograd.Function):         # three outputs, so that backward is recorded
        @staticmethod
        def forward(ctx, x):
            expx, expnegx = lib.exp(x), lib.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, grad_out, grad_exp, grad_negexp):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            grad_input += grad_exp * expx
            grad_input -= grad_negexp * expnegx
            return grad_input
    return lambda x: Sinh.apply(x)[0]


def _linear(lib):
    class LinearFunction(lib.autograd.Function):   # PyTorch 2's form, an optional bias
        @staticmethod
        def forward(input, weight, bias=None):
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)
            ctx.has_bias = len(inputs) == 3

        @staticmethod
        def backward(ctx, grad_output):
            saved = ctx.saved_tensors
            input, weight = saved[:2]
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if ctx.has_bias and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias  # (a None for a bias not passed)
    return LinearFunction


def _cube(lib):
    class MyCube(lib.autograd.Function):       # a second output that is not differentiable
        @staticmethod
        def forward(x):
            return x ** 3, 3 * x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_non_differentiable(output[1])
            ctx.save_for_backward(inputs[0], output[1])

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            return grad_output * dx + grad_dx * 6 * x
    return MyCube


def _both(case):
    return case(al), case(torch)


def _x(lib, shape=(3, 3)):
    return lib.tensor(np.linspace(0.1, 0.9, int(np.prod(shape))).reshape(shape), dtype=lib.float64,
                      requires_grad=True)


def test_a_function_saving_its_output_has_a_second_derivative_as_in_torch():
    results = []
    for lib in (al, torch):
        Exp = _exp(lib)
        x = _x(lib, ())
        g, = lib.autograd.grad(Exp.apply(x), x, create_graph=True)
        h, = lib.autograd.grad(g, x)
        results.append((g.grad_fn is not None, h.item(), lib.autograd.gradgradcheck(Exp.apply, x)))
    assert results[0] == results[1] and results[0][0] and np.isclose(results[0][1], np.exp(0.1))


def test_a_function_with_several_outputs_gets_one_gradient_per_output():
    results = []
    for lib in (al, torch):
        sinh = _sinh(lib)
        x = _x(lib)
        g, = lib.autograd.grad(sinh(x).sum(), x, create_graph=True)
        results.append((sinh(x).grad_fn.name(), g.detach().numpy(), lib.autograd.gradcheck(sinh, x),
                        lib.autograd.gradgradcheck(sinh, x)))
    (name, g, *checks), (t_name, t_g, *t_checks) = results
    assert name == t_name == "SinhBackward" and np.allclose(g, np.cosh(np.linspace(0.1, 0.9, 9).reshape(3, 3)))
    assert np.allclose(g, t_g) and checks == t_checks == [True, True]


@pytest.mark.parametrize("with_bias", [False, True])
def test_setup_context_and_none_for_an_optional_input_not_passed(with_bias):
    grads = []
    for lib in (al, torch):
        rng = np.random.default_rng(0)
        inputs = [lib.tensor(rng.normal(size=s), requires_grad=True) for s in ((5, 4), (3, 4), (3,))]
        inputs = inputs if with_bias else inputs[:2]
        assert lib.autograd.gradcheck(_linear(lib).apply, tuple(inputs))
        _linear(lib).apply(*inputs).sum().backward()
        grads.append([x.grad.numpy() for x in inputs])
    assert all(np.allclose(a, b) for a, b in zip(*grads))


def test_a_non_differentiable_output_gets_zeros_as_its_gradient():
    results = []
    for lib in (al, torch):
        x = _x(lib, (2,))
        y, dx = _cube(lib).apply(x)
        (y.sum() + dx.sum()).backward()
        results.append((y.grad_fn.name(), dx.requires_grad, dx.grad_fn, x.grad.tolist(),
                        lib.autograd.gradcheck(lambda x: _cube(lib).apply(x)[0], x)))
    assert results[0] == results[1]


def test_once_differentiable_gives_gradients_that_cannot_be_differentiated_again():
    results = []
    for lib in (al, torch):
        class Once(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g
        x = _x(lib, (2,))
        g, = lib.autograd.grad(Once.apply(x).sum(), x, create_graph=True)
        results.append((g.requires_grad, g.grad_fn, g.tolist(), error_of(lambda: g.sum().backward())))
    assert results[0] == results[1]


def _returns(lib, grads, n_inputs=1):
    class Returns(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, *rest):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return grads(g)
    x = lib.ones(2, requires_grad=True)
    return lambda: Returns.apply(x, *([3.0] * (n_inputs - 1))).sum().backward()


@pytest.mark.parametrize("grads, n_inputs", [
    (lambda g: (g, g), 1), (lambda g: g, 2), (lambda g: (g, g), 2), (lambda g: (g, None), 1),
    (lambda g: (g, None, None), 2),
])
def test_the_number_of_gradients_a_backward_returns_is_checked_as_in_torch(grads, n_inputs):
    ours, theirs = error_of(_returns(al, grads, n_inputs)), error_of(_returns(torch, grads, n_inputs))
    assert ours == theirs


def test_forward_ad_follows_the_tutorial():
    results = []
    for lib in (al, torch):
        fwAD = lib.autograd.forward_ad
        primal = lib.tensor(np.arange(12.0).reshape(3, 4) / 10, dtype=lib.float32)
        tangent = lib.ones(3, 4)
        with fwAD.dual_level():
            dual = fwAD.make_dual(primal, tangent)
            same = fwAD.unpack_dual(dual).tangent is tangent
            copied = fwAD.unpack_dual(fwAD.make_dual(primal, tangent.T.T.clone().T.T)).tangent is not tangent
            out = dual ** 2 + lib.sin(dual)
            jvp = fwAD.unpack_dual(out).tangent
            unpacked = fwAD.unpack_dual(out)
            errors = [error_of(lambda: fwAD.make_dual(dual, tangent)), error_of(lambda: fwAD.dual_level().__enter__()),
                      error_of(lambda: fwAD.make_dual(primal, lib.ones(3))),
                      error_of(lambda: fwAD.make_dual(lib.ones(2, dtype=lib.int64), lib.ones(2)))]
        results.append((same, copied, jvp.numpy(), type(unpacked).__name__, unpacked._fields,
                        fwAD.unpack_dual(out).tangent, errors, error_of(lambda: fwAD.make_dual(primal, tangent))))
    (*ours, jvp, name, fields, after, errors, outside), (*theirs, t_jvp, t_name, t_fields, t_after, t_errors, t_outside) = results
    assert ours == theirs == [True, True] and np.allclose(jvp, t_jvp) and (name, fields) == (t_name, t_fields)
    assert after is None and t_after is None and outside == t_outside
    assert errors == [(kind, text.replace("torch.", "al.")) for kind, text in t_errors]


def test_a_custom_jvp_is_used_by_forward_ad_and_gradcheck():
    results = []
    for lib in (al, torch):
        class Fn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, foo):
                ctx.result = lib.exp(foo)
                return ctx.result

            @staticmethod
            def jvp(ctx, gI):
                return gI * ctx.result
        fwAD = lib.autograd.forward_ad
        primal = _x(lib, (4,))
        with fwAD.dual_level():
            jvp = fwAD.unpack_dual(Fn.apply(fwAD.make_dual(primal, lib.ones(4, dtype=lib.float64)))).tangent
        ok = lib.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True, check_backward_ad=False,
                                    check_undefined_grad=False, check_batched_grad=False)
        results.append((jvp.detach().numpy(), ok))
    assert np.allclose(results[0][0], results[1][0]) and results[0][1] is results[1][1] is True


SAVED_FIELDS = {   # (make y from x and w, the fields to read)
    "mul": (lambda x, w: x * w, ["_saved_self", "_saved_other"]),
    "exp": (lambda x, w: x.exp(), ["_saved_result"]),
    "pow of a number": (lambda x, w: x ** 2, ["_saved_self", "_saved_exponent"]),
    "sin": (lambda x, w: x.sin(), ["_saved_self"]),
    "relu": (lambda x, w: x.relu(), ["_saved_result"]),
    "sigmoid": (lambda x, w: x.sigmoid(), ["_saved_result"]),
    "clamp": (lambda x, w: x.clamp(0.5, 2.0), ["_saved_self", "_saved_min", "_saved_max"]),
    "div": (lambda x, w: x / w, ["_saved_self", "_saved_other"]),
    "mean over a dim": (lambda x, w: x.reshape(1, 3).mean(1), ["_saved_keepdim"]),
}


@pytest.mark.parametrize("case", list(SAVED_FIELDS))
def test_grad_fn_shows_its_saved_values_under_torchs_names(case):
    make, fields = SAVED_FIELDS[case]
    said = []
    for lib in (al, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = lib.tensor([2.0, 0.5, 1.0], requires_grad=True) * 1
        y = make(x, w)
        values = [getattr(y.grad_fn, f) for f in fields]
        said.append([(np.round(v.tolist(), 5).tolist(), v is x, v is y, v.equal(y)) if isinstance(v, lib.Tensor) else
                     (tuple(v) if isinstance(v, tuple) else v) for v in values])
        said[-1].append(error_of(lambda: y.grad_fn._saved_weight))      # a field of other nodes
        y.sum().backward()
        said[-1].append(error_of(lambda: getattr(y.grad_fn, fields[0]))[0])
    assert said[0] == said[1]


def _rounded(t):
    return np.round(t.tolist(), 5).tolist()


def test_saved_tensors_hooks_pack_and_unpack_what_torch_saves_in_its_order():
    said = []
    for lib in (al, torch):
        seen = []
        a = lib.ones(3, requires_grad=True)
        b = lib.ones(3, requires_grad=True) * 2
        with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append(("pack", _rounded(t))) or t * 1,
                                                    lambda t: seen.append(("unpack", _rounded(t))) or t):
            y = a * b
            z = y.exp()
        (z.sum() + y.sum()).backward()
        said.append((seen, _rounded(a.grad)))
    assert said[0] == said[1]


WRITES = {   # an in-place op on y = x * 1: what torch saves is the old y (a copy) or y itself
    "sin_ saves the old value": lambda y, w: y.sin_(),
    "exp_ saves its output, y itself": lambda y, w: y.exp_(),
    "mul_ saves the other, then the old value": lambda y, w: y.mul_(w),
    "pow_ saves the exponent, the old value, then y": lambda y, w: y.pow_(w),
    "div_ then sigmoid_": lambda y, w: y.div_(w).sigmoid_(),
    "clamp_ through a view": lambda y, w: y[1:].clamp_(max=1.5),
}


@pytest.mark.parametrize("case", list(WRITES))
def test_saved_tensors_hooks_see_what_torch_saves_around_an_in_place_write(case):
    said = []
    for lib in (al, torch):
        seen = []
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        w = lib.tensor([2.0, 0.5, 1.5], requires_grad=True)

        def pack(t):                      # the tensor itself is kept: if it were y before the
            seen.append((_rounded(t), t._version, t is y))     # write, the backward would read
            return t                      # what the write left there
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = x * 1
            WRITES[case](y, w)
        y.sum().backward()
        said.append((seen, _rounded(x.grad), _rounded(w.grad) if w.grad is not None else None))
    assert said[0] == said[1]


def test_grad_fn_hands_back_what_an_in_place_write_left_as_torch_does():
    said = []
    for lib in (al, torch):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        y = x * 1
        y.sin_()
        old = y.grad_fn._saved_self               # the copy of y from before sin_
        z = x * 1
        z.exp_()
        result = z.grad_fn._saved_result          # z as exp_ left it
        said.append((_rounded(old), old is y, old._version, _rounded(result), result.equal(z), result._version))
        z.add_(1)                                 # now exp's output is written over
        said.append(str(error_of(lambda: z.grad_fn.next_functions[0][0]._saved_result)).replace("torch.", "al."))
        h = x * 1
        s = h.sin()
        h.add_(1)
        said.append(str(error_of(lambda: s.grad_fn._saved_self)).replace("torch.", "al."))
    assert said[:3] == said[3:] and "is at version 2; expected version 1" in said[1]


def test_an_inference_tensor_is_written_in_place_only_inside_inference_mode_as_in_torch():
    said = []   # (torch writes the numbers before it refuses; autograd_lab refuses first)
    for lib in (al, torch):
        with lib.inference_mode():
            t = lib.ones(3)
            t.mul_(2)
        said.append((t.tolist(), error_of(lambda: t.add_(1)), error_of(lambda: t.__setitem__(0, 5.0))))
    assert said[0] == said[1]


def test_inference_mode_makes_inference_tensors_that_autograd_refuses_in_torchs_words():
    said = []
    for lib in (al, torch):
        x = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            y = x * 2
            made = lib.zeros(2)
        with lib.inference_mode(False):
            z = x * 2
        said.append((y.requires_grad, y.is_inference(), made.is_inference(), z.requires_grad, z.is_inference(),
                     error_of(lambda: (y * x).sum().backward()), lib.is_inference_mode_enabled()))
    kind, message = said[1][5]
    said[1] = said[1][:5] + ((kind, message.replace("torch.", "al.")),) + said[1][6:]   # (its fix names al's modes)
    assert said[0] == said[1]


@pytest.mark.parametrize("returned", ["saved input", "input times one", "the gradient"])
def test_a_grad_never_shares_memory_with_a_tensor_backward_returned(returned):
    """backward may return a tensor the user still holds (here, the saved input itself):
    torch's .grad is then a copy, so zeroing the .grad leaves the input as it was; a
    gradient backward computed or was given is taken as it is, with the same numbers."""
    def make(lib):
        class Echo(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return {"saved input": x, "input times one": x * 1, "the gradient": g}[returned]
        return Echo

    results = []
    for lib in (al, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        make(lib).apply(x).sum().backward()
        grad = x.grad.tolist()
        with lib.no_grad():
            x.grad.zero_()
        results.append((grad, x.tolist()))
    assert results[0] == results[1]
