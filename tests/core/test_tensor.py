"""Tensors: creation, dtypes and promotion, printing, attributes, errors -- as torch does."""
import numpy as np
import pytest

import autograd_lab as al


# -- creation and dtypes ----------------------------------------------------------------------
@pytest.mark.parametrize("data, dtype", [([1.0, 2.0], al.float32), ([1, 2], al.int64),
                                         ([True, False], al.bool), (3.0, al.float32),
                                         (np.array([1.0]), al.float64),
                                         (np.array([1], dtype=np.int32), al.int32)])
def test_tensor_infers_dtype_like_torch(data, dtype):
    assert al.tensor(data).dtype == dtype


def test_explicit_dtype_and_float64_support():
    t = al.tensor([1, 2], dtype=al.float64, requires_grad=True)
    assert t.dtype == al.float64 and repr(t) == "tensor([1., 2.], dtype=al.float64, requires_grad=True)"


def test_integer_tensors_cannot_require_grad():
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients"):
        al.tensor([1, 2], requires_grad=True)


def test_legacy_constructors():
    assert al.Tensor([[1, 2]]).dtype == al.float32
    assert al.Tensor(2, 3).shape == (2, 3)
    v = al.autograd.Variable(al.FloatTensor([1.0]), requires_grad=True)
    assert v.requires_grad and v.is_leaf


def test_creation_functions():
    assert al.zeros(2, 3).shape == (2, 3) and al.ones((2,)).tolist() == [1.0, 1.0]
    assert al.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert al.arange(3).tolist() == [0, 1, 2] and al.arange(3).dtype == al.int64
    assert al.arange(0.0, 1.0, 0.5).tolist() == [0.0, 0.5]
    assert al.linspace(0, 1, 3).tolist() == [0.0, 0.5, 1.0]
    x = al.ones(2, dtype=al.float64)
    assert al.zeros_like(x).dtype == al.float64 and al.ones_like(x).tolist() == [1.0, 1.0]


def test_manual_seed_makes_random_numbers_repeat():
    al.manual_seed(7)
    a, b = al.randn(3), al.rand(2)
    al.manual_seed(7)
    assert al.randn(3).tolist() == a.tolist() and al.rand(2).tolist() == b.tolist()
    assert a.dtype == al.float32


@pytest.mark.parametrize("a, b, expected", [
    (al.tensor([1, 2]), 1.5, al.float32),                         # int tensor * float -> default float
    (al.tensor([1, 2]), al.tensor([1.0]), al.float32),             # int64 * float32 -> float32
    (al.ones(2), al.tensor(2.0, dtype=al.float64), al.float32),    # zero-dim doesn't promote in category
    (al.ones(2), al.ones(2, dtype=al.float64), al.float64),
    (al.tensor([True]), 2, al.int64),
])
def test_mixed_dtypes_promote_like_torch(a, b, expected):
    assert (a * b).dtype == expected


def test_comparisons_give_bool_tensors_that_never_require_grad():
    x = al.tensor([1.0, 3.0], requires_grad=True)
    for m in (x > 2, x >= 2, x < 2, x <= 2, x == 3, x != 3):
        assert m.dtype == al.bool and not m.requires_grad
    assert ((x > 0) & (x < 2)).tolist() == [True, False]


# -- printing ---------------------------------------------------------------------------------
@pytest.mark.parametrize("t, text", [
    (al.tensor([51.2, 512.0, 0.0512]), "tensor([5.1200e+01, 5.1200e+02, 5.1200e-02])"),
    (al.tensor([[0.1, 0.2, 0.3], [0.4, 0.6, 0.8]]), "tensor([[0.1000, 0.2000, 0.3000],\n        [0.4000, 0.6000, 0.8000]])"),
    (al.tensor([1, 2]), "tensor([1, 2])"),
    (al.tensor([True]), "tensor([True])"),
    (al.tensor(3.0), "tensor(3.)"),
    (al.tensor([1, 2], dtype=al.int32), "tensor([1, 2], dtype=al.int32)"),
    (al.zeros(0, 3), "tensor([], size=(0, 3))"),
    (al.tensor([]), "tensor([])"),
    (al.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (al.tensor([float("nan"), 1.0, float("inf")]), "tensor([nan, 1., inf])"),
    (al.tensor([1e9, 1.0]), "tensor([1.0000e+09, 1.0000e+00])"),
    (al.arange(2000.0), "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])"),
])
def test_prints_like_torch(t, text):
    assert repr(t) == text


def test_wide_matrix_wraps_at_80_columns_like_torch():
    row = [-0.2626, 0.5923, 0.8125, 0.9248, -0.8884, -0.5030, 0.6338, 0.1005, 0.6427, 1.5381]
    text = repr(al.tensor([row]))
    assert text == ("tensor([[-0.2626,  0.5923,  0.8125,  0.9248, -0.8884, -0.5030,  0.6338,  0.1005,\n"
                    "          0.6427,  1.5381]])")


def test_grad_fn_names_and_next_functions_print_without_addresses():
    a = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    names = {
        "a*2": (a * 2, "MulBackward0"), "1-a": (1 - a, "RsubBackward1"), "a-a": (a - a, "SubBackward0"),
        "a.T": (al.ones(2, 3, requires_grad=True).T, "PermuteBackward0"), "a[0]": (a[0], "SelectBackward0"),
        "a[1:]": (a[1:], "SliceBackward0"), "a[[0,1]]": (a[[0, 1]], "IndexBackward0"),
        "norm": (a.norm(), "LinalgVectorNormBackward0"), "2**a": (2 ** a, "PowBackward2"),
        "a**a": (a ** a, "PowBackward1"), "a**2": (a ** 2, "PowBackward0"), "view": (a.view(3, 1), "ViewBackward0"),
        "sum0": (a.sum(0), "SumBackward1"), "sum": (a.sum(), "SumBackward0"), "mean": (a.mean(), "MeanBackward0"),
        "clamp": (a.clamp(0, 1), "ClampBackward1"), "outer": (al.outer(a, a), "MulBackward0"),
        "dot": (al.matmul(a, a), "DotBackward0"), "unsq": (a.unsqueeze(0), "UnsqueezeBackward0"),
        "cat": (al.cat([a, a]), "CatBackward0"), "stack": (al.stack([a, a]), "StackBackward0"),
        "max": (al.maximum(a, a), "MaximumBackward0"), "where": (al.where(a > 1, a, 0.0), "WhereBackward0"),
        "relu": (al.relu(a), "ReluBackward0"), "t": (al.ones(2, 3, requires_grad=True).t(), "TBackward0"),
        "exp": (a.exp(), "ExpBackward0"), "transpose": (al.ones(2, 3, requires_grad=True).transpose(0, 1), "TransposeBackward0"),
        "abs": (a.abs(), "AbsBackward0"), "sigmoid": (a.sigmoid(), "SigmoidBackward0"), "tanh": (a.tanh(), "TanhBackward0"),
        "mm": (al.mm(a.view(1, 3), al.ones(3, 1)), "MmBackward0"), "div": (a / 2, "DivBackward0"),
    }
    for key, (t, name) in names.items():
        assert t.grad_fn.name() == name, key
        assert f"grad_fn=<{name}>" in repr(t)
    y = a * 2
    assert repr(y.grad_fn.next_functions) == "((<AccumulateGrad>, 0), (None, 0))"
    assert y.grad_fn.next_functions[0][0].variable is a


# -- attributes and conversions -----------------------------------------------------------------
def test_attributes():
    x = al.ones(2, 3, requires_grad=True)
    assert x.shape == (2, 3) and x.ndim == 2 and x.T.shape == (3, 2) and x.is_leaf
    y = x * 2
    assert not y.is_leaf and y.requires_grad and y.data.grad_fn is None
    assert len(x) == 2 and x.numel() == 6


def test_item_float_bool_follow_torch_rules():
    assert al.tensor([2.5]).item() == 2.5 and float(al.tensor(2.5)) == 2.5 and int(al.tensor(3)) == 3
    with pytest.raises(RuntimeError, match="^a Tensor with 3 elements cannot be converted to Scalar$"):
        al.ones(3).item()
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(al.ones(3))
    with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
        float(al.ones(3))
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(al.tensor(1.0))


def test_numpy_of_a_tensor_that_requires_grad_is_refused():
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        al.ones(2, requires_grad=True).numpy()


def test_grad_assignment_is_checked():
    x = al.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"attempting to assign a gradient of size '\[2\]' to a tensor of size '\[3\]'"):
        x.grad = al.ones(2)
    x.grad = al.ones(3)
    x.grad = None
    assert x.grad is None


def test_in_place_on_a_leaf_that_requires_grad_is_refused_but_allowed_under_no_grad():
    w = al.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place operation.$"):
        w.add_(1)
    assert w.tolist() == [1.0, 1.0]
    with al.no_grad():
        w -= 0.5
    assert w.tolist() == [0.5, 0.5] and w.is_leaf and w.requires_grad


# -- shapes and indexing ------------------------------------------------------------------------
def test_broadcasting_error_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\) "
                                           r"at non-singleton dimension 0\. Shapes \(3,\) and \(2,\)"):
        al.ones(3) + al.ones(2)


def test_mm_shape_error_is_torchs():
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(1x3 and 2x3\)$"):
        al.mm(al.ones(1, 3), al.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"^inconsistent tensor size, expected tensor \[3\] and src \[2\]"):
        al.dot(al.ones(3), al.ones(2))
    with pytest.raises(RuntimeError, match=r"^shape '\[4, 2\]' is invalid for input of size 6$"):
        al.ones(6).view(4, 2)


def test_indexing_is_differentiable_and_repeated_indices_add_up():
    x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x[[0, 0, 2]].sum() + x[1:].sum() + x[x > 2].sum()
    y.backward()
    assert x.grad.tolist() == [2.0, 1.0, 3.0]


def test_setitem_writes_a_plain_tensor_and_is_recorded_inside_a_graph():
    j = al.zeros(2, 3)
    j[0, :] = al.tensor([1.0, 2.0, 3.0])
    assert j.tolist()[0] == [1.0, 2.0, 3.0] and j._version == 1 and j.grad_fn is None
    x = al.ones(2, requires_grad=True)
    y = x * 2
    y[0] = 5.0                               # y[0] is a view: torch records CopySlices
    y.sum().backward()
    assert y.tolist() == [5.0, 2.0] and repr(y.grad_fn) == "<CopySlices>" and x.grad.tolist() == [0.0, 2.0]


def test_where_with_branches_that_do_not_broadcast_names_them_like_torch():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\) "
                                           r"at non-singleton dimension 0"):
        al.where(al.tensor([True, False, True]), al.ones(3), al.ones(2))


def test_repeated_list_indices_inside_a_tuple_add_up():
    a = al.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    (a[0, [1, 1]].sum() + a[:, [2, 0, 2]].sum()).backward()
    assert a.grad.tolist() == [[1.0, 2.0, 2.0], [1.0, 0.0, 2.0]]


def test_max_over_a_dim_sends_the_gradient_to_the_returned_index_even_on_ties():
    x = al.tensor([[4.0, 4.0], [1.0, 3.0]], requires_grad=True)
    values, indices = x.max(1)
    values.sum().backward()
    assert indices.tolist() == [0, 1] and x.grad.tolist() == [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize("make", [lambda: al.tensor([1, 2]) / 2, lambda: al.tensor([1, 2]).exp(),
                                  lambda: al.tensor([True]).sin(), lambda: al.tensor([1, 2]).clamp(min=0.5),
                                  lambda: al.tensor([1, 2]).sqrt()])
def test_float_results_from_integer_and_bool_inputs_are_float32(make):
    assert make().dtype == al.float32


def test_shape_arguments_are_checked_with_torchs_texts():
    x = al.ones(2, 3)
    with pytest.raises(RuntimeError, match="input.dim\\(\\) = 2 is not equal to len\\(dims\\) = 1"):
        x.permute(0)
    with pytest.raises(RuntimeError, match="^permute\\(\\): duplicate dims are not allowed.$"):
        x.permute(0, 0)
    with pytest.raises(RuntimeError, match="the number of sizes provided \\(1\\) must be greater or equal"):
        x.expand(3)
    with pytest.raises(RuntimeError, match="isn't allowed in a leading, non-existing dimension 0"):
        al.ones(3).expand(-1, 3)
    with pytest.raises(RuntimeError, match="^dim 0 appears multiple times in the list of dims$"):
        x.mean((0, 0))
    with pytest.raises(IndexError, match="^Dimension out of range \\(expected to be in range of \\[-2, 1\\], but got 2\\)$"):
        x.sum(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.squeeze(5)
    with pytest.raises(RuntimeError, match="^The size of tensor a \\(5\\) must match the size of tensor b \\(4\\)"):
        al.ones(5, 2, 3) @ al.ones(4, 3, 2)
    with pytest.raises(RuntimeError, match="^Integers to negative integer powers are not allowed.$"):
        al.tensor([1, 2]) ** -1


def test_zero_dim_tensors_accept_dims_minus_one_and_zero():
    t = al.tensor(2.0, requires_grad=True)
    t.sum(-1).backward()
    assert t.grad.item() == 1.0 and t.mean(0).item() == 2.0 and t.transpose(0, -1).item() == 2.0
    assert t[t > 0].tolist() == [2.0]


def test_empty_mean_has_an_empty_gradient():
    x = al.zeros(0, requires_grad=True)
    x.mean().backward()
    assert x.grad.shape == (0,)


def test_small_printing_details_match_torch():
    assert repr(al.tensor([], dtype=al.int64)) == "tensor([], dtype=al.int64)"
    assert f"{al.tensor(3.0)}" == "3.0"
    a = al.ones(2, requires_grad=True)
    assert [n is None for n, _ in (2 * a).grad_fn.next_functions] == [False, True]
    assert (2 / a).grad_fn.name() == "MulBackward0" and a[None].grad_fn.name() == "UnsqueezeBackward0"
    with pytest.raises(TypeError, match="Variable data has to be a tensor"):
        a.data = [5.0, 6.0]


def test_integer_dtypes_promote_as_in_torch():
    a = al.tensor([1], dtype=al.uint8) + al.tensor([-2], dtype=al.int8)
    assert a.dtype == al.int16 and a.tolist() == [-1]


def test_a_number_out_of_an_integer_dtypes_range_wraps_in_arithmetic_as_in_torch():
    x = al.tensor([1, 2], dtype=al.int8)
    assert (x + 300).tolist() == [45, 46] and (x + 300).dtype == al.int8     # 300 is 44 in int8
    assert (x < -200).tolist() == [True, True]                               # -200 is 56
    assert (x / 300).dtype == al.float32 and np.allclose((x / 300).numpy(), [1 / 300, 2 / 300])
    assert al.tensor([0, 255], dtype=al.uint8).clamp(min=-1).tolist() == [255, 255]   # -1 is 255


@pytest.mark.parametrize("make", [lambda x: al.where(x > 1, x, 300), lambda x: x.clamp(max=128),
                                  lambda x: x ** 300])
def test_where_clamp_and_pow_refuse_a_number_the_dtype_cannot_hold(make):
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int8_t without overflow$"):
        make(al.tensor([1, 2], dtype=al.int8))


def test_in_place_arithmetic_wraps_and_refuses_a_result_the_dtype_cannot_hold():
    x = al.tensor([1, 2], dtype=al.int8)
    x += 300
    assert x.tolist() == [45, 46] and x.dtype == al.int8
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Char$"):
        x /= 2
    with pytest.raises(RuntimeError, match=r"^output with shape \[2\] doesn't match the broadcast shape \[2, 2\]$"):
        x.add_(al.ones(2, 2, dtype=al.int8))
    assert x.tolist() == [45, 46]


def test_ints_beyond_64_bits_are_refused_and_2_to_the_63_is_unsigned():
    with pytest.raises(OverflowError, match="^int too big to convert$"):
        al.ones(2) + 2 ** 70
    with pytest.raises(RuntimeError, match="^Promotion for uint16, uint32, uint64 types is not supported"):
        al.tensor([True]) * 2 ** 63
    assert (al.tensor([1]) + 2 ** 63).tolist() == [-2 ** 63 + 1]    # int64 wraps it
    with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
        al.tensor([-1, 2 ** 63])
    assert al.tensor([0.5, 2 ** 70]).dtype == al.float32


def test_numbers_into_an_integer_dtype_must_fit_and_are_read_one_by_one():
    assert al.tensor([2 ** 62 + 1, 0.5], dtype=al.int64).tolist() == [2 ** 62 + 1, 0]   # no float64 rounding
    assert al.tensor([-1, 1.5], dtype=al.uint8).tolist() == [255, 1]      # an int -1 wraps, a float -1.0 would not


@pytest.mark.parametrize("data, dtype", [([300], al.int8), ([300.0], al.int8), ([float("nan")], al.int8),
                                         ([-0.5], al.uint8)])
def test_a_number_an_integer_dtype_cannot_hold_is_refused_at_creation(data, dtype):
    with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {dtype.name} without overflow$"):
        al.tensor(data, dtype=dtype)


def test_reducing_over_no_listed_dims_reduces_over_all_of_them():
    assert al.ones(2, 3).sum(dim=()).item() == 6.0 and al.ones(2, 3).mean(dim=[]).item() == 1.0


def test_clamp_of_an_integer_tensor_with_integer_bounds():
    assert al.tensor([1, 5]).clamp(2, 3).tolist() == [2, 3]
    assert al.tensor([1, 5]).clamp(max=3).tolist() == [1, 3]


def test_view_refuses_to_copy_where_reshape_copies():
    x = al.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"^view size is not compatible with input tensor's size and stride"):
        x.t().view(6)
    assert x.t().reshape(6).shape == (6,)
    v = x.view(3, 2)                         # a real view: writes reach x
    v[0, 0] = 5.0
    assert x.tolist()[0][0] == 5.0


def test_an_int_before_a_list_index_is_applied_first_as_in_torch():
    x = al.arange(24.0).reshape(2, 3, 4)
    y = x[1, :, [0, 2]]                      # NumPy alone would give shape (2, 3)
    assert y.shape == (3, 2) and y.tolist() == [[12.0, 14.0], [16.0, 18.0], [20.0, 22.0]]


def test_bool_tensors_are_refused_by_minus_and_relu_and_integers_by_norm():
    with pytest.raises(RuntimeError, match=r"^Subtraction, the `-` operator, with a bool tensor is not supported"):
        1 - al.tensor([True, False])
    with pytest.raises(RuntimeError, match=r"^Negation, the `-` operator, on a bool tensor"):
        -al.tensor([True])
    with pytest.raises(RuntimeError, match=r"^Boolean inputs not supported for relu$"):
        al.relu(al.tensor([True]))
    with pytest.raises(RuntimeError, match=r"Expected a floating point or complex tensor as input. Got Long$"):
        al.tensor([3, 4]).norm()


def test_squeeze_takes_several_dims_and_drops_only_those_of_size_one():
    x = al.zeros(1, 2, 1)
    assert x.squeeze((0, 2)).shape == (2,) and x.squeeze([0, 1]).shape == (2, 1)


def test_arange_computes_each_entry_from_the_start_not_by_adding_steps_in_float32():
    x = al.arange(-8, 8, 0.1)
    assert x[80].item() == np.float32(4.440892098500626e-16) and abs(x[-1].item() - 7.9) < 1e-6
    assert al.arange(0, 1, 0.1, dtype=al.float64).tolist()[3] == 0.30000000000000004


def test_devices_are_the_cpu_and_asking_for_a_gpu_says_so():
    x = al.ones(2, device=al.device("cpu")).to("cpu").cpu()
    assert str(x.device) == "cpu" and repr(x.device) == "device(type='cpu')" and not al.cuda.is_available()
    with pytest.raises(AssertionError, match=r"^Torch not compiled with CUDA enabled \(autograd_lab runs on the CPU"):
        x.to("cuda")
    with pytest.raises(AssertionError, match="no device 'mps'"):
        al.zeros(2, device="mps")


def test_factories_take_a_size_three_ways_and_a_generator():
    g = al.Generator().manual_seed(1)
    a = al.randn(2, 3, generator=g)
    assert al.randn(size=(2, 3), generator=al.Generator().manual_seed(1)).tolist() == a.tolist()
    assert al.rand((2, 3)).shape == al.zeros([2, 3]).shape == (2, 3)
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type float at pos 0"):
        al.ones(2.0)


def test_any_and_all_reduce_to_bool_and_keep_nothing_for_the_backward():
    x = al.tensor([[1., 0.], [0., 0.]], requires_grad=True)
    assert x.any().item() is True and x.all().item() is False
    assert x.any(1).tolist() == [True, False] and al.all(x > -1, dim=0).tolist() == [True, True]
    assert x.any(1).grad_fn is None and x.any(1).dtype == al.bool


def test_finfo_gives_the_limits_a_mask_fills_with():
    info = al.finfo(al.float32)
    assert info.min == -3.4028234663852886e+38 and info.eps == 2.0 ** -23 and info.bits == 32
    assert al.finfo().dtype == "float32" and al.finfo(al.float16).max == 65504.0
    assert al.iinfo(al.uint8).max == 255
