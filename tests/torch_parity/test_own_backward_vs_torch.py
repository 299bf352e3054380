"""The claims of the chapter "Your own backward" (book/05d_your_own_backward.ipynb), each
run on torch and on autograd_lab: what backward receives, what ctx offers, derivatives
twice (with tensor operations, with NumPy, with once_differentiable), vmap and
mark_dirty -- the same numbers, node names and error texts (up to the spelling of
``torch.`` and ``al.``)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402

LIBS = (al, torch)


def _same_text(ours, theirs):
    """Error (type, message) equal once torch's and autograd_lab's spellings agree."""
    def plain(err):
        return err[0], err[1] and err[1].replace("torch.", "al.")
    return plain(ours) == plain(theirs)


def _cube(lib, numpy=False, received=None):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, v):
            x, = ctx.saved_tensors
            if received is not None:
                received.append(v.tolist())
            if numpy:                 # leaves the graph: a constant
                return v * lib.tensor(3 * x.detach().numpy() ** 2)
            return v * 3 * x ** 2
    return Cube


def _once(lib):
    class CubeOnce(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, v):
            x, = ctx.saved_tensors
            return v * lib.tensor(3 * x.numpy() ** 2)
    return CubeOnce


def test_backward_receives_the_seed_and_returns_v_times_the_slope():
    seen = []
    for lib in LIBS:
        received = []
        x = lib.tensor([1., 2., -1.], requires_grad=True)
        y = _cube(lib, received=received).apply(x)
        y.backward(lib.tensor([1., 0.5, 2.]))
        seen.append((y.grad_fn.name(), received, x.grad.tolist()))
    assert seen[0] == seen[1] == ("CubeBackward", [[1., 0.5, 2.]], [3., 6., 6.])


def test_needs_input_grad_is_false_for_an_input_that_needs_none():
    seen = []
    for lib in LIBS:
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                ctx.save_for_backward(x, w)
                return x * w

            @staticmethod
            def backward(ctx, v):
                x, w = ctx.saved_tensors
                seen.append(ctx.needs_input_grad)
                return (v * w if ctx.needs_input_grad[0] else None,
                        (v * x).sum() if ctx.needs_input_grad[1] else None)
        w = lib.tensor(3., requires_grad=True)
        Scale.apply(lib.tensor([1., 2.]), w).sum().backward()
        seen.append(w.grad.item())
    assert seen == [(False, True), 3.0] * 2


def test_a_non_differentiable_output_requires_no_grad_and_its_seed_comes_as_zeros():
    seen = []
    for lib in LIBS:
        class CubeAndSlope(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                slope = 3 * x ** 2
                ctx.mark_non_differentiable(slope)
                ctx.save_for_backward(x)
                return x ** 3, slope

            @staticmethod
            def backward(ctx, v, v_slope):
                x, = ctx.saved_tensors
                seen.append(v_slope.tolist())
                return v * 3 * x ** 2
        x = lib.tensor([1., 2.], requires_grad=True)
        y, slope = CubeAndSlope.apply(x)
        (y.sum() + slope.sum()).backward()
        seen.append((y.requires_grad, slope.requires_grad, x.grad.tolist()))
    assert seen == [[0., 0.], (True, False, [3., 12.])] * 2


def _square(lib, on_ctx):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            if on_ctx:
                ctx.x = x
            else:
                ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, v):
            x = ctx.x if on_ctx else ctx.saved_tensors[0]
            return v * 2 * x
    return Square


@pytest.mark.parametrize("w, write, expected", [
    ([1., 2.], lambda x: x.mul_(3), [6., 12.]),          # the chapter's example
    ([2., 1.], lambda x: x.add_(1), [6., 4.]),           # its exercise 2
])
def test_a_tensor_kept_on_ctx_is_read_as_written_since_unchecked(w, write, expected):
    grads = []
    for lib in LIBS:
        leaf = lib.tensor(w, requires_grad=True)
        x = leaf * 1
        y = _square(lib, on_ctx=True).apply(x)
        write(x)
        y.sum().backward()
        grads.append(leaf.grad.tolist())
    assert grads == [expected, expected]


def test_a_saved_tensor_written_after_the_forward_is_refused_in_the_same_words():
    def run(lib):
        w = lib.tensor([1., 2.], requires_grad=True)
        x = w * 1
        y = _square(lib, on_ctx=False).apply(x)
        x.mul_(3)
        return lambda: y.sum().backward()
    ours, theirs = error_of(run(al)), error_of(run(torch))
    assert "which is output 0 of Mul, is at version 1; expected version 0" in ours[1]
    assert _same_text(ours, theirs)


def _second(lib, numpy, x, other=lambda x: x ** 2):
    x = lib.tensor(x, requires_grad=True)
    g, = lib.autograd.grad((_cube(lib, numpy).apply(x) + other(x)).sum(), x, create_graph=True)
    h, = lib.autograd.grad(g.sum(), x)
    return g.tolist(), h.tolist()


def test_a_backward_in_tensor_operations_differentiates_twice_and_passes_gradgradcheck():
    for lib in LIBS:
        assert _second(lib, False, [1., 2.]) == ([5., 16.], [8., 14.])
        x = lib.tensor([1., 2., -1.], dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradcheck(_cube(lib).apply, x)
        assert lib.autograd.gradgradcheck(_cube(lib).apply, x)


def test_a_numpy_backward_silently_drops_its_term_from_a_second_derivative():
    for lib in LIBS:
        assert _second(lib, True, [1., 2.]) == ([5., 16.], [2., 2.])
        # exercise 1: x^3 through NumPy plus x^2 * x in tensor operations: 6x, not 12x
        assert _second(lib, True, [1., 3.], other=lambda x: x ** 2 * x)[1] == [6., 18.]


def test_a_numpy_backward_alone_gives_a_first_derivative_that_cannot_be_differentiated():
    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        g, = lib.autograd.grad(_cube(lib, True).apply(x).sum(), x, create_graph=True)
        assert g.tolist() == [3., 12.] and not g.requires_grad
        return lambda: lib.autograd.grad(g.sum(), x)
    ours, theirs = error_of(run(al)), error_of(run(torch))
    assert ours == theirs == ("RuntimeError", "element 0 of tensors does not require grad and "
                                              "does not have a grad_fn")


def test_once_differentiable_puts_an_error_node_that_backward_reaches_and_grad_passes_by():
    seen = []
    for lib in LIBS:
        x = lib.tensor([1., 2.], requires_grad=True)
        g, = lib.autograd.grad((_once(lib).apply(x) * x).sum(), x, create_graph=True)
        names = [n.name() for n, _ in g.grad_fn.next_functions]
        err = error_of(lambda: g.sum().backward(retain_graph=True))
        h, = lib.autograd.grad(g.sum(), x)       # the Error node's term left out
        seen.append((g.tolist(), names, err, h.tolist(), x.grad))
    assert seen[0] == seen[1]
    assert seen[0][:4] == ([4., 32.], ["MulBackward0", "torch::autograd::Error"],
                           ("RuntimeError", "trying to differentiate twice a function that was "
                                            "marked with @once_differentiable"), [3., 12.])


def test_once_differentiable_given_a_plain_seed_returns_gradients_without_a_grad_fn():
    seen = []
    for lib in LIBS:
        x = lib.tensor([1., 2.], requires_grad=True)
        g, = lib.autograd.grad(_once(lib).apply(x).sum(), x, create_graph=True)
        seen.append((g.tolist(), g.grad_fn, g.requires_grad))
    assert seen == [([3., 12.], None, False)] * 2


def _cube2(lib, vmap_rule):
    class Cube2(lib.autograd.Function):
        generate_vmap_rule = vmap_rule

        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, v):
            x, = ctx.saved_tensors
            return v * 3 * x ** 2
    return Cube2


def test_vmap_refuses_a_function_without_a_vmap_rule_in_torchs_words():
    def run(lib):
        f = _cube2(lib, False)
        samples = lib.tensor([[1., 2.], [-1., 3.]])
        return lambda: lib.func.vmap(lib.func.grad(lambda x: f.apply(x).sum()))(samples)
    ours, theirs = error_of(run(al)), error_of(run(torch))
    assert ours == theirs and ours[1].startswith("You tried to vmap over Cube2")


def test_generate_vmap_rule_and_a_vmap_staticmethod_give_per_sample_results():
    seen = []
    for lib in LIBS:
        samples = lib.tensor([[1., 2.], [-1., 3.]])
        f = _cube2(lib, True)
        per_sample = lib.func.vmap(lib.func.grad(lambda x: f.apply(x).sum()))(samples)
        calls = []

        class Cube3(_cube2(lib, False)):
            @staticmethod
            def vmap(info, in_dims, x):
                calls.append((info.batch_size, in_dims))
                return Cube3.apply(x), in_dims[0]
        seen.append((per_sample.tolist(), lib.func.vmap(Cube3.apply)(samples).tolist(), calls))
    assert seen[0] == seen[1] == ([[3., 12.], [3., 27.]], [[1., 8.], [-1., 27.]], [(2, (0,))])


def _double_in_place(lib, marked, leaf=False):
    class Double_(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            if marked:
                ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, v):
            return 2 * v
    w = lib.tensor([1., 2.], requires_grad=True)
    if leaf:
        return lambda: Double_.apply(w)
    x = w * 1
    y = Double_.apply(x)
    (y * x).sum().backward()
    return y is x, x.grad_fn.name(), w.grad.tolist()


def test_mark_dirty_moves_the_inputs_history_and_forgetting_it_loses_a_factor():
    for lib in LIBS:
        assert _double_in_place(lib, True) == (True, "Double_Backward", [8., 16.])
        assert _double_in_place(lib, False) == (False, "MulBackward0", [6., 12.])


def test_mark_dirty_on_a_leaf_that_requires_grad_is_refused_in_torchs_words():
    ours = error_of(_double_in_place(al, True, leaf=True))
    theirs = error_of(_double_in_place(torch, True, leaf=True))
    assert ours == theirs == ("RuntimeError", "a leaf Variable that requires grad has been used "
                                              "in an in-place operation.")


def test_the_chapters_framework_tab_prints_what_torch_prints():
    x = torch.tensor([1., 2., -1.], requires_grad=True)
    g, = torch.autograd.grad(_cube(torch).apply(x).sum(), x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    ours = _second(al, False, [1., 2., -1.], other=lambda x: 0 * x)
    assert ours == (g.tolist(), h.tolist()) == ([3., 12., 3.], [6., 12., -6.])
    assert np.allclose(h.numpy(), 6 * np.array([1., 2., -1.]))


def test_saved_tensors_read_again_after_the_backward_freed_them_is_refused_in_torchs_words():
    def run(lib, retain):
        read = []

        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                read.append(ctx)
                return x ** 2

            @staticmethod
            def backward(ctx, v):
                x, = ctx.saved_tensors
                return v * 2 * x
        x = lib.tensor([1., 2.], requires_grad=True)
        y = Square.apply(x)
        y.sum().backward(retain_graph=retain)
        return error_of(lambda: y.grad_fn.saved_tensors if lib is torch else read[0].saved_tensors)
    assert run(al, True) == run(torch, True) == (None, None)
    ours, theirs = run(al, False), run(torch, False)
    assert ours == theirs and theirs[1].startswith("Trying to backward through the graph a second time")


def test_a_functions_node_shows_its_ctx_saved_tensors_and_needs_input_grad_as_torchs():
    seen = []
    for lib in LIBS:
        x, w = lib.tensor([1., 2.], requires_grad=True), lib.tensor([3., 4.])
        y = _square(lib, on_ctx=False).apply(x) * w
        node = y.grad_fn.next_functions[0][0]             # SquareBackward: the ctx
        seen.append((node.name(), node.needs_input_grad, [t.tolist() for t in node.saved_tensors],
                     error_of(lambda: y.grad_fn.saved_tensors)))
        y.sum().backward()
        seen.append(error_of(lambda: node.saved_tensors)[1][:45])
    assert seen[:2] == seen[2:]
    assert seen[0] == ("SquareBackward", (True,), [[1., 2.]],
                       ("AttributeError", "'MulBackward0' object has no attribute 'saved_tensors'"))
    assert seen[1] == "Trying to backward through the graph a second"
