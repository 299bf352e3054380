"""gradcheck and gradgradcheck: they pass correct derivatives, and each kind of wrong
derivative fails with a message that says where and by how much."""
import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import GradcheckError, gradcheck, gradgradcheck


def f64(values, requires_grad=True):
    return al.tensor(values, dtype=al.float64, requires_grad=requires_grad)


# -- hand-written operations with planted mistakes -------------------------------------------
class Square(al.autograd.Function):
    """x², with a correct backward and a correct jvp."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)            # (jvp sees only these, as in torch)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return 2 * x * t


class SquareWrongBackward(Square):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * g                   # should be 2x


class SquareWrongJvp(Square):
    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return x * t                       # should be 2x


class SumIgnoringSeed(al.autograd.Function):
    """x.sum() whose backward returns ones whatever the seed: right for seed 1 only."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sum()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return al.ones_like(x)


class DoubleReadingANumber(al.autograd.Function):
    """2x whose backward reads a number out of its gradient (.item()): right for one
    seed, but a batch of seeds goes through vmap, which cannot batch .item()."""

    @staticmethod
    def forward(ctx, x):
        return 2 * x

    @staticmethod
    def backward(ctx, g):
        return 2 * g * (g.sum().item() * 0 + 1)


class Drifting(al.autograd.Function):
    """2x whose backward changes a little on every call (not reentrant)."""
    calls = 0

    @staticmethod
    def forward(ctx, x):
        return 2 * x

    @staticmethod
    def backward(ctx, g):
        Drifting.calls += 1
        return 2 * g * (1 + 1e-9 * Drifting.calls)


class SquareFlatSecondDerivative(al.autograd.Function):
    """x² whose backward detaches x: first derivative right, second derivative lost."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x.detach() * g


# -- passing ------------------------------------------------------------------------------------
def test_gradcheck_passes_a_composition_of_ops_with_two_inputs_and_broadcasting():
    x, w = f64([[0.5, -1.0, 2.0]]), f64([[0.1], [0.3]])
    assert gradcheck(lambda x, w: (x * w).tanh().sum(0) + x.exp(), (x, w)) is True


def test_gradcheck_passes_tuple_outputs_and_non_tensor_inputs():
    x = f64([1.0, 2.0, 3.0])
    assert gradcheck(lambda x, k: (x ** k, x.sin().sum()), (x, 3))


def test_gradcheck_passes_a_function_that_returns_its_input():
    # the output shares memory with the input being nudged: the check must copy it
    assert gradcheck(lambda x: x, (f64([1.0, 2.0]),))
    assert gradcheck(lambda x: x.reshape(2, 1), (f64([1.0, 2.0]),))


def test_gradcheck_takes_a_bare_tensor_for_inputs():
    assert gradcheck(lambda x: x.sigmoid(), f64([0.2, -0.4]))


def test_gradcheck_checks_only_inputs_that_require_grad():
    x, c = f64([1.0, 2.0]), f64([5.0, 7.0], requires_grad=False)
    assert gradcheck(lambda x, c: x * c, (x, c))
    assert c.grad is None and x.grad is None


def test_gradcheck_accepts_a_correct_hand_written_function_in_all_modes():
    x = f64([0.5, -1.5, 2.0])
    assert gradcheck(Square.apply, (x,), check_batched_grad=True, check_forward_ad=True,
                     check_batched_forward_grad=True)
    assert gradcheck(Square.apply, (x,), fast_mode=True)


def test_gradcheck_leaves_the_inputs_exactly_as_they_were():
    x = f64([0.1, 0.2, 0.3])
    before = x.detach().numpy().copy()
    gradcheck(lambda x: x.exp(), (x,))
    assert np.array_equal(x.detach().numpy(), before)


def test_gradgradcheck_passes_second_derivatives_of_smooth_ops():
    x, y = f64([0.3, -0.7]), f64([1.2, 0.4])
    assert gradgradcheck(lambda x, y: (x * y).sin() + x.exp() * y ** 2, (x, y))


def test_gradgradcheck_uses_given_grad_outputs():
    x = f64([0.3, -0.7])
    v = f64([1.0, -2.0])
    assert gradgradcheck(lambda x: x ** 3, (x,), (v,))


def test_no_differentiable_output_passes_when_the_function_is_constant():
    x = f64([1.0, 2.0])
    assert gradcheck(lambda x: x > 0, (x,))


# -- failing, with the message -------------------------------------------------------------------
def test_float32_input_is_refused_with_torchs_text():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(GradcheckError, match=r"^Input #0 requires gradient and is not a double "
                       r"precision floating point or complex\. This check will likely fail if all "
                       r"the inputs are not of double precision floating point or complex\."):
        gradcheck(lambda x: x * 2, (x,))


def test_float32_input_is_refused_even_without_raise_exception():
    x = f64([1.0]), al.tensor([1.0], requires_grad=True)
    with pytest.raises(GradcheckError, match=r"Input #1 requires gradient"):
        gradcheck(lambda a, b: a * b, x, raise_exception=False)


def test_no_input_requiring_grad_is_a_value_error():
    with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to require "
                                         "gradient, but none of them have requires_grad=True."):
        gradcheck(lambda x: x * 2, (f64([1.0], requires_grad=False),))


def test_wrong_backward_fails_with_both_jacobians_side_by_side_and_the_differing_entries():
    x = f64([1.0, 2.0])
    with pytest.raises(GradcheckError) as info:
        gradcheck(SquareWrongBackward.apply, (x,))
    lines = str(info.value).splitlines()
    assert lines[0] == "Jacobian mismatch for output 0 with respect to input 0,"
    assert lines[1] == ("rows: the 2 entries of the output (shape (2,)); columns: the 2 entries "
                        "of the input (shape (2,))")
    assert lines[2].split() == ["numerical", "analytical"]
    # numerical 2x = diag(2, 4) beside the planted 3x = diag(3, 6)
    assert lines[3].split() == ["[[2.0000,", "0.0000],", "[[3.0000,", "0.0000],"]
    assert lines[4].split() == ["[0.0000,", "4.0000]]", "[0.0000,", "6.0000]]"]
    assert lines[5] == ("2 of 4 entries differ by more than atol + rtol * |numerical| "
                        "(atol=1e-05, rtol=0.001):")
    assert lines[6].startswith("  J[0, 0]  output (0,), input (0,): numerical 2")
    assert lines[6].endswith("analytical 3")
    assert lines[7].startswith("  J[1, 1]  output (1,), input (1,): numerical 4")
    assert lines[7].endswith("analytical 6")
    assert len(lines) == 8


def test_mismatch_names_the_output_and_input_by_position_and_their_entries():
    x, y = f64([1.0, 2.0]), f64([[1.0], [3.0]])
    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda x, y: (x + y, SquareWrongBackward.apply(y)), (x, y))
    text = str(info.value)
    assert text.startswith("Jacobian mismatch for output 1 with respect to input 1,")
    assert "output (1, 0), input (1, 0): numerical 6" in text


def test_wrong_backward_returns_false_without_raise_exception():
    assert gradcheck(SquareWrongBackward.apply, (f64([1.0, 2.0]),), raise_exception=False) is False


def test_long_lists_of_differing_entries_are_cut_after_ten():
    x = f64(np.arange(1.0, 13.0))
    with pytest.raises(GradcheckError) as info:
        gradcheck(SquareWrongBackward.apply, (x,))
    text = str(info.value)
    assert "12 of 144 entries differ" in text
    assert text.endswith("  ... and 2 more")


def test_wrong_jvp_fails_the_forward_mode_check():
    x = f64([1.0, 2.0])
    assert gradcheck(SquareWrongJvp.apply, (x,))            # reverse mode alone is right
    with pytest.raises(GradcheckError, match=r"^Jacobian computed with forward mode mismatch for "
                                             r"output 0 with respect to input 0,"):
        gradcheck(SquareWrongJvp.apply, (x,), check_forward_ad=True)


def test_backward_that_ignores_the_seed_is_caught():
    x = f64([1.0, 2.0, 3.0])
    with pytest.raises(GradcheckError, match="^backward not multiplied by grad_output$"):
        gradcheck(SumIgnoringSeed.apply, (x,))


def test_backward_that_cannot_take_a_batch_of_seeds_fails_check_batched_grad_only():
    """torch sends a batch of seeds through a Function's backward under vmap (each call
    sees one seed), so a backward that reads a number from its gradient fails there."""
    x = f64([1.0, 2.0, 3.0])
    assert gradcheck(DoubleReadingANumber.apply, (x,))
    with pytest.raises(GradcheckError) as info:
        gradcheck(DoubleReadingANumber.apply, (x,), check_batched_grad=True)
    assert str(info.value).startswith("While computing batched gradients, got: vmap: It looks like "
                                      "you're calling .item() on a Tensor.")


def test_non_reentrant_backward_is_reported():
    x = f64([1.0, 2.0])
    with pytest.raises(GradcheckError, match=r"^Backward is not reentrant, i\.e\., running "
                                             r"backward with same input and grad_output multiple "
                                             r"times gives different values"):
        gradcheck(Drifting.apply, (x,))
    assert gradcheck(Drifting.apply, (x,), nondet_tol=1e-6)


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable():
    x = f64([1.0, 2.0])
    assert gradcheck(SquareFlatSecondDerivative.apply, (x,))
    with pytest.raises(GradcheckError, match=r"^Jacobian mismatch for output 0 with respect to "
                                             r"input 0,"):
        gradgradcheck(SquareFlatSecondDerivative.apply, (x,))


def test_fast_mode_fails_a_wrong_backward_with_the_full_message():
    with pytest.raises(GradcheckError, match=r"^Jacobian mismatch for output 0 with respect to input 0,"):
        gradcheck(SquareWrongBackward.apply, (f64([1.0, 2.0]),), fast_mode=True)


def test_output_shape_that_changes_under_the_nudge_is_an_error():
    def jumpy(x):
        return x if float(x.sum()) < 3.0 else x.reshape(1, 2)

    with pytest.raises(GradcheckError, match=r"Expected `func` to return outputs with the same "
                                             r"shape when inputs are perturbed on index 0 by 1e-06, "
                                             r"but got: shapes \(2,\) and \(1, 2\)\."):
        gradcheck(jumpy, (f64([1.0, 2.0 - 5e-7]),))


def test_a_function_returning_a_number_is_a_clear_error():
    with pytest.raises(GradcheckError, match="must return a Tensor or a tuple of Tensors, but it "
                                             "returned a float"):
        gradcheck(lambda x: 3.0, (f64([1.0]),))


def test_float32_finite_differences_really_are_too_coarse():
    # why double precision is required: the same check in float32 would be noise
    x = np.array([0.3, 0.7], dtype=np.float32)
    eps = np.float32(1e-6)
    numeric = (np.tanh(x + eps) - np.tanh(x - eps)) / (2 * eps)
    exact = 1 - np.tanh(x.astype(np.float64)) ** 2
    assert np.max(np.abs(numeric - exact)) > 1e-3 * np.max(exact)
