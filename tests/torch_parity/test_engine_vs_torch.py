"""The same cases through torch and autograd_lab: values, gradients, printed forms, errors."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import CASES, INPLACE_AFTER_FORWARD, error_of, iadd, make_inputs, setitem  # noqa: E402


def as_torch(t):
    return torch.tensor(t.detach().numpy(), requires_grad=t.requires_grad)


def run(lib_fn, inputs, g):
    y = lib_fn(*inputs)
    y.backward(g)
    return y, [x.grad for x in inputs]


@pytest.mark.parametrize("name, fn, shapes, kind", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(name, fn, shapes, kind):
    ours = make_inputs(shapes, kind)
    theirs = [as_torch(x) for x in ours]
    # the case functions use `al.` names; run them on torch through a name swap
    y_ours = fn(*ours)
    g = np.random.default_rng(2).normal(size=y_ours.shape)
    y_ours.backward(al.tensor(g))
    torch_fn = _torch_version(fn)
    y_theirs = torch_fn(*theirs)
    y_theirs.backward(torch.tensor(g))
    assert np.allclose(y_ours.detach().numpy(), y_theirs.detach().numpy())
    assert y_ours.grad_fn.name() == y_theirs.grad_fn.name()
    for a, b in zip(ours, theirs):
        assert np.allclose(a.grad.numpy(), b.grad.numpy(), equal_nan=True)



def _torch_version(fn):
    import types
    g = dict(fn.__globals__)
    g["al"] = _TorchAsAl()
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


class _TorchAsAl:
    def __getattr__(self, name):
        return {"float64": torch.float64}.get(name, getattr(torch, name))

    @property
    def nn(self):
        return torch.nn


@pytest.mark.parametrize("values", [[51.2, 512.0, 0.0512], [[0.1, 0.2], [0.3, 0.4]], [1e-5, 1.0],
                                    [1e9, 1.0], [1.0, 2.0], [0.0], [-1.5, 2.25, 1000.0],
                                    [float(v) for v in np.linspace(-3, 3, 37)], [[1.0, -2.0], [30.5, 4.0]]])
def test_printing_matches_torch(values):
    assert repr(al.tensor(values)) == repr(torch.tensor(values))


def test_printing_random_matrices_matches_torch():
    rng = np.random.default_rng(0)
    for shape in [(4, 30), (3, 3, 3), (1, 2), (1100,), (40, 40)]:
        a = rng.normal(size=shape).astype(np.float32)
        assert repr(al.tensor(a)) == repr(torch.tensor(a))


@pytest.mark.parametrize("make", [
    lambda lib: lib.mm(lib.ones(1, 3), lib.ones(2, 3)),
    lambda lib: lib.tensor([1, 2], requires_grad=True),
    lambda lib: lib.ones(2).sum().backward(),
    lambda lib: (lib.ones(2, requires_grad=True) * 2).backward(),
    lambda lib: lib.ones(6).view(4, 2),
    lambda lib: lib.dot(lib.ones(3), lib.ones(2)),
    lambda lib: lib.ones(3).item(),
    lambda lib: bool(lib.ones(3)),
    lambda lib: _backward_into_a_grad_of_shape(lib, 3),
    lambda lib: _backward_into_a_grad_of_shape(lib, 1),
])
def test_error_texts_start_with_torchs(make):
    ours, theirs = error_of(lambda: make(al)), error_of(lambda: make(torch))
    assert ours[0] == theirs[0]
    assert ours[1].startswith(theirs[1].split("\n")[0].replace("torch.Size([", "(").rstrip("."))


def _backward_into_a_grad_of_shape(lib, n):
    x = lib.ones(2, requires_grad=True)
    x.grad = lib.zeros(2)
    x.grad.data = lib.zeros(n)             # .grad now has another shape than x
    (x * 2).sum().backward()


def test_mismatch_error_matches_torch_up_to_the_shape_spelling():
    _, theirs = error_of(lambda: torch.autograd.grad(torch.outer(*(2 * [torch.ones(4, requires_grad=True)])),
                                                   torch.ones(4), grad_outputs=torch.ones(4)))
    x = al.ones(4, requires_grad=True)
    _, ours = error_of(lambda: al.autograd.grad(al.outer(x, x), x, grad_outputs=al.ones(4)))
    assert ours.startswith(theirs.replace("torch.Size([4])", "(4,)").replace("torch.Size([4, 4])", "(4, 4)"))


def test_second_derivative_matches_torch():
    v = np.array([0.3, -1.2, 2.0])
    x = al.tensor(v, requires_grad=True)
    (g,) = al.autograd.grad((x.sin() * x ** 2).sum(), x, create_graph=True)
    (h,) = al.autograd.grad(g.sum(), x)
    xt = torch.tensor(v, requires_grad=True)
    (gt,) = torch.autograd.grad((xt.sin() * xt ** 2).sum(), xt, create_graph=True)
    (ht,) = torch.autograd.grad(gt.sum(), xt)
    assert np.allclose(h.numpy(), ht.numpy())


@pytest.mark.parametrize("make", [
    lambda lib, a: a ** 2, lambda lib, a: 2 ** a, lambda lib, a: a + 1, lambda lib, a: a * 2,
    lambda lib, a: a / 2, lambda lib, a: a - 1, lambda lib, a: 1 - a, lambda lib, a: a * a,
    lambda lib, a: lib.where(a > 0, a, 0.0), lambda lib, a: lib.where(a > 0, 0.0, a),
    lambda lib, a: a.clamp(0, 1), lambda lib, a: lib.outer(a, a), lambda lib, a: a.sum(),
])
def test_next_functions_have_torchs_shape(make):
    def shape(lib):
        a = lib.ones(2, requires_grad=True)
        node = make(lib, a).grad_fn
        return node.name(), [None if n is None else n.name().split("::")[-1] for n, _ in node.next_functions]
    assert shape(al) == shape(torch)


@pytest.mark.parametrize("case, make, error", INPLACE_AFTER_FORWARD, ids=[c[0] for c in INPLACE_AFTER_FORWARD])
def test_in_place_change_after_the_forward_is_refused_where_torch_refuses_it(case, make, error):
    outcomes = []
    for lib in (torch, al):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        a = x * 2
        y, changed = make(a)
        with lib.no_grad():
            (y if isinstance(changed, str) else changed).add_(1)
        try:
            y.sum().backward()
            outcomes.append(x.grad.tolist())
        except RuntimeError as e:
            outcomes.append(str(e).replace("torch.", "al."))
    assert outcomes[0] == outcomes[1]
    assert (error is None) == isinstance(outcomes[0], list)
    assert error is None or error in outcomes[0]


# torch saves index tensors for these (IndexBackward0, MaxBackward0 along a dim), so a second
# walk is refused there; autograd_lab keeps the indices as parameters, which are never freed
SECOND_WALK_DIFFERS = {"index_repeat", "index_mask", "index_int_slice_list", "max_dim_values",
                       "min_dim_keepdim"}


@pytest.mark.parametrize("name, fn, shapes, kind", CASES, ids=[c[0] for c in CASES])
def test_a_second_backward_without_retain_graph_fails_where_torchs_does(name, fn, shapes, kind):
    outcomes = []
    for inputs, f in ((make_inputs(shapes, kind), fn),
                      ([as_torch(x) for x in make_inputs(shapes, kind)], _torch_version(fn))):
        y = f(*inputs).sum()
        y.backward()
        try:
            y.backward()
            outcomes.append("walked again")
        except RuntimeError as e:
            assert "backward through the graph a second time" in str(e)
            outcomes.append("refused")
    assert (outcomes[0] == outcomes[1]) != (name in SECOND_WALK_DIFFERS), outcomes


# keys that mix ints, slices, lists and masks: torch applies the ints first, NumPy would not
MIXED_KEYS = [
    (1, slice(None), [0, 2]), (slice(None), 1, [0, 2]), ([0, 1], 1, slice(None)), (1, [0, 2], 3),
    (1, slice(None), [True, False, True, False]), ([1, 0], slice(None), 2), (Ellipsis, 1, [0, 3]),
    (1, Ellipsis, [0, 0, 3]), ([0, 1], [2, 0], 1), (1, [[0, 1], [2, 2]], slice(1, 3)), (0, 2, [1, 1]),
]


@pytest.mark.parametrize("key", MIXED_KEYS, ids=[str(k) for k in MIXED_KEYS])
def test_mixed_index_keys_pick_and_route_gradients_as_torchs(key):
    base = np.arange(24.0).reshape(2, 3, 4)
    seed = None
    results = []
    for lib in (al, torch):
        x = lib.tensor(base, dtype=lib.float64, requires_grad=True)
        y = x[tuple(lib.tensor(k) if isinstance(k, list) else k for k in key)]
        if seed is None:
            seed = np.random.default_rng(0).normal(size=tuple(y.shape))
        y.backward(lib.tensor(seed))
        results.append((tuple(y.shape), y.detach().numpy(), x.grad.numpy()))
    (shape_a, y_a, g_a), (shape_t, y_t, g_t) = results
    assert shape_a == shape_t and np.allclose(y_a, y_t) and np.allclose(g_a, g_t)


REFUSED_LIKE_TORCH = {
    "one minus a bool tensor": lambda lib: 1 - lib.tensor([True, False]),
    "bool minus bool": lambda lib: lib.tensor([True]) - lib.tensor([False]),
    "bool minus a number": lambda lib: lib.tensor([True]).sub(1.0),
    "a number minus True": lambda lib: lib.tensor([1.0, 2.0]) - True,
    "True minus an integer tensor": lambda lib: True - lib.tensor([1, 2], dtype=lib.int8),
    "minus a bool tensor": lambda lib: -lib.tensor([True]),
    "relu of bools": lambda lib: lib.relu(lib.tensor([True])),
    "norm of integers": lambda lib: lib.tensor([3, 4]).norm(),
    "mean of integers": lambda lib: lib.tensor([3, 4]).mean(),
    "softmax of integers, not the last dim": lambda lib: lib.nn.functional.softmax(lib.ones(2, 3, dtype=lib.int64), 0),
    "softmax of an integer number": lambda lib: lib.softmax(lib.tensor(3), -1),
    "log_softmax of bools": lambda lib: lib.tensor([True, False]).log_softmax(0),
    "float & 1": lambda lib: lib.ones(2) & 1,
    "bool & np.True_ (a float to torch)": lambda lib: lib.tensor([True]) & np.True_,
    "int | 1.5": lambda lib: lib.tensor([1, 2]) | 1.5,
    "~float": lambda lib: ~lib.ones(2),
}


@pytest.mark.parametrize("case", list(REFUSED_LIKE_TORCH))
def test_bad_dtypes_are_refused_with_torchs_text(case):
    ours, theirs = error_of(lambda: REFUSED_LIKE_TORCH[case](al)), error_of(lambda: REFUSED_LIKE_TORCH[case](torch))
    assert theirs[0] is not None and ours[0] == theirs[0]
    assert ours[1] == theirs[1] or ours[1].startswith(theirs[1] + " ")    # perhaps with a hint


def test_squeeze_of_several_dims_matches_torch():
    for lib in (al, torch):
        x = lib.zeros(1, 2, 1, requires_grad=True)
        for dims, shape, name in (((0, 2), (2,), "SqueezeBackward2"), ([0, 1], (2, 1), "SqueezeBackward2"),
                                  (0, (2, 1), "SqueezeBackward1"), (None, (2,), "SqueezeBackward0")):
            y = x.squeeze() if dims is None else x.squeeze(dims)
            assert tuple(y.shape) == shape and y.grad_fn.name() == name


def _grads_of(lib, make_y, values):
    x = lib.tensor(values, requires_grad=True)
    make_y(lib, x).sum().backward()
    return x.grad


def _second_derivative(lib, f, values):
    x = lib.tensor(values, requires_grad=True)
    g, = lib.autograd.grad(f(x).sum(), x, create_graph=True)
    return lib.autograd.grad(g.sum(), x)[0]


def _seeded_grad(lib, f, values, seed):
    x = lib.tensor(values, requires_grad=True)
    y = f(x)
    return lib.autograd.grad(y, x, lib.full_like(y, seed) if isinstance(seed, float) else lib.tensor(seed))[0]


NAN, INF = float("nan"), float("inf")
CORNERS_LIKE_TORCH = {
    "relu's gradient at NaN": lambda lib: _grads_of(lib, lambda L, x: L.relu(x), [NAN, 1.0, -1.0]),
    "maximum's gradient at NaN": lambda lib: _grads_of(lib, lambda L, x: L.maximum(x, L.zeros(3)), [NAN, 1.0, 0.0]),
    "minimum's gradient at NaN": lambda lib: _grads_of(lib, lambda L, x: L.minimum(L.zeros(3), x), [NAN, -1.0, 0.0]),
    "max() over NaNs": lambda lib: _grads_of(lib, lambda L, x: x.max(), [NAN, 1.0, NAN]),
    "min() over a NaN": lambda lib: _grads_of(lib, lambda L, x: x.min(), [2.0, NAN, -1.0]),
    "amax of a NaN row": lambda lib: _grads_of(lib, lambda L, x: x.amax(1), [[NAN, 1.0], [3.0, 3.0]]),
    "max(dim) of a NaN row": lambda lib: _grads_of(lib, lambda L, x: x.max(1)[0], [[NAN, 1.0], [3.0, 3.0]]),
    "clamp at NaN": lambda lib: _grads_of(lib, lambda L, x: x.clamp(0.0, 2.0), [NAN, 1.0, 5.0]),
    "abs at NaN": lambda lib: _grads_of(lib, lambda L, x: x.abs(), [NAN, -1.0, 2.0]),
    "sign of NaN": lambda lib: lib.sign(lib.tensor([NAN, -2.0, 0.0, 3.0])),
    "sign of a bool": lambda lib: lib.tensor([True, False]).sign(),
    "integer powers, negative tensor exponents":
        lambda lib: lib.tensor([0, 1, -1, -1, 2, -2, 3]) ** lib.tensor([-1, -3, -3, -2, -1, -1, 2]),
    "a number to negative integer powers": lambda lib: 2 ** lib.tensor([3, -1]),
    "relu's second derivative": lambda lib: _second_derivative(lib, lib.relu, [1.0, -2.0]),
    "softmax over an empty dim": lambda lib: lib.nn.functional.softmax(lib.ones(2, 0), dim=1),
    "softmax of a number": lambda lib: lib.nn.functional.log_softmax(lib.tensor(2.0), dim=-1),
    "softmax of an empty integer tensor": lambda lib: lib.nn.functional.softmax(lib.ones(0, 3, dtype=lib.int64), 1),
    # a seed of inf or NaN: zeros stay exactly zero where the rule says zero
    "max()'s gradient, an inf seed": lambda lib: _seeded_grad(lib, lambda x: x.max(), [1.0, 3.0, 2.0], INF),
    "maximum's gradient, inf and NaN seeds": lambda lib: _seeded_grad(
        lib, lambda x: lib.maximum(x, lib.tensor([2.0, 1.0, 2.0])), [1.0, 3.0, 2.0], [INF, NAN, INF]),
    "minimum's gradient, inf and NaN seeds": lambda lib: _seeded_grad(
        lib, lambda x: lib.minimum(lib.tensor([2.0, 1.0, 2.0]), x), [1.0, 3.0, 2.0], [INF, NAN, INF]),
    "relu's second derivative, inf and NaN seeds": lambda lib: _seeded_grad(
        lib, lambda x: lib.autograd.grad(lib.relu(x).sum(), x, create_graph=True)[0], [1.0, -1.0, 2.0],
        [INF, INF, NAN]),
    "sign's gradient, inf seeds": lambda lib: _seeded_grad(lib, lambda x: x.sign(), [1.0, -1.0], [INF, NAN]),
    # forward mode at NaN
    "x.max()'s tangent at NaN": lambda lib: lib.func.jvp(lambda x: x.max(), (lib.tensor([NAN, 1.0, NAN]),),
                                                          (lib.tensor([1.0, 10.0, 100.0]),))[1],
    "maximum's tangent at NaN": lambda lib: lib.func.jvp(
        lib.maximum, (lib.tensor([NAN, 1.0, 3.0]), lib.tensor([0.0, NAN, 3.0])),
        (lib.tensor([1.0, 10.0, 100.0]), lib.tensor([2.0, 20.0, 200.0])))[1],
    "minimum's tangent at NaN": lambda lib: lib.func.jvp(
        lib.minimum, (lib.tensor([NAN, 1.0, 3.0]), lib.tensor([0.0, NAN, 3.0])),
        (lib.tensor([1.0, 10.0, 100.0]), lib.tensor([2.0, 20.0, 200.0])))[1],
}


def _int8(lib):
    return lib.tensor([1, 2], dtype=lib.int8)


def _uint8(lib):
    return lib.tensor([0, 255], dtype=lib.uint8)


# a Python int that an integer tensor's dtype cannot hold: arithmetic and comparisons
# wrap it around; where, clamp and ** refuse it (but an unsigned dtype takes -max..max)
NUMBERS_OUT_OF_RANGE = {
    "int8 + 300": lambda lib: _int8(lib) + 300,
    "300 - int8": lambda lib: 300 - _int8(lib),
    "int8 * 200": lambda lib: _int8(lib) * 200,
    "int16 * 40000": lambda lib: lib.tensor([1, 2], dtype=lib.int16) * 40000,
    "0-d int8 + 300": lambda lib: lib.tensor(3, dtype=lib.int8) + 300,
    "uint8 + -1": lambda lib: _uint8(lib) + (-1),
    "int8 / 300": lambda lib: _int8(lib) / 300,
    "300 / int8": lambda lib: 300 / _int8(lib),
    "300 ** int8": lambda lib: 300 ** _int8(lib),
    "int8 > 300": lambda lib: _int8(lib) > 300,
    "int8 < -200": lambda lib: _int8(lib) < -200,
    "uint8 == 511": lambda lib: _uint8(lib) == 511,
    "int8 & 300": lambda lib: _int8(lib) & 300,
    "int8 ** 300": lambda lib: _int8(lib) ** 300,
    "int64 ** 2**63": lambda lib: lib.tensor([1, 2]) ** 2 ** 63,
    "int64 + 2**63": lambda lib: lib.tensor([1, 2]) + 2 ** 63,
    "where(int8, 300)": lambda lib: lib.where(_int8(lib) > 1, _int8(lib), 300),
    "where(-129, int8)": lambda lib: lib.where(_int8(lib) > 1, -129, _int8(lib)),
    "where(uint8, -1)": lambda lib: lib.where(_uint8(lib) > 1, _uint8(lib), -1),
    "where(int8, 127)": lambda lib: lib.where(_int8(lib) > 1, _int8(lib), 127),
    "clamp(int8, max=128)": lambda lib: _int8(lib).clamp(max=128),
    "clamp(uint8, min=-1)": lambda lib: _uint8(lib).clamp(min=-1),
    "clamp(uint8, min=-256)": lambda lib: _uint8(lib).clamp(min=-256),
    "clamp(int8, -300, 1.5)": lambda lib: _int8(lib).clamp(-300, 1.5),
    # a NumPy integer is held to the same rules; a NumPy bool counts as a float in torch
    "where(int8, np.int64(300))": lambda lib: lib.where(_int8(lib) > 1, _int8(lib), np.int64(300)),
    "int8 ** np.int64(300)": lambda lib: _int8(lib) ** np.int64(300),
    "clamp(int8, max=np.int64(300))": lambda lib: _int8(lib).clamp(max=np.int64(300)),
    "clamp(int8, max=np.int64(100))": lambda lib: _int8(lib).clamp(max=np.int64(100)),
    "int8 + np.True_": lambda lib: _int8(lib) + np.True_,
    "float - np.True_": lambda lib: lib.tensor([1.0, 2.0]) - np.True_,
    # torch reads an int from 2**63 to 2**64 - 1 as uint64, which bools cannot promote
    # with, and refuses one beyond 64 bits whatever the tensor
    "int64 + (2**64 - 1)": lambda lib: lib.tensor([1, 2]) + (2 ** 64 - 1),
    "bool * 2**63": lambda lib: lib.tensor([True]) * 2 ** 63,
    "bool / 2**63": lambda lib: lib.tensor([True]) / 2 ** 63,
    "int64 + 2**64": lambda lib: lib.tensor([1, 2]) + 2 ** 64,
    "int8 + (-2**63 - 1)": lambda lib: _int8(lib) + (-2 ** 63 - 1),
    "int64 / 2**70": lambda lib: lib.tensor([1, 2]) / 2 ** 70,
    "int64 < 2**70": lambda lib: lib.tensor([1, 2]) < 2 ** 70,
    "float + 2**70": lambda lib: lib.tensor([1.0]) + 2 ** 70,
    "float ** 2**70": lambda lib: lib.tensor([1.0]) ** 2 ** 70,
    "int8 ** 2**64": lambda lib: _int8(lib) ** 2 ** 64,
    "where(float, 2**70)": lambda lib: lib.where(lib.tensor([True]), lib.tensor([1.0]), 2 ** 70),
    "clamp(float, max=2**70)": lambda lib: lib.tensor([1.0]).clamp(max=2 ** 70),
    "tensor(2**63)": lambda lib: lib.tensor(2 ** 63),
    "tensor(-2**63 - 1)": lambda lib: lib.tensor(-2 ** 63 - 1),
    "tensor([1, 2**63])": lambda lib: lib.tensor([1, 2 ** 63]),
    "tensor([-1, 2**63])": lambda lib: lib.tensor([-1, 2 ** 63]),
    "tensor([1.5, 2**70])": lambda lib: lib.tensor([1.5, 2 ** 70]),
    # numbers into an integer dtype must fit it, but NumPy arrays are cast (and wrap)
    "tensor([300], dtype=int8)": lambda lib: lib.tensor([300], dtype=lib.int8),
    "tensor([300.0], dtype=int8)": lambda lib: lib.tensor([300.0], dtype=lib.int8),
    "tensor([-255], dtype=uint8)": lambda lib: lib.tensor([-255], dtype=lib.uint8),
    "tensor([-0.5], dtype=uint8)": lambda lib: lib.tensor([-0.5], dtype=lib.uint8),
    "tensor([1.7, -2.5], dtype=int8)": lambda lib: lib.tensor([1.7, -2.5], dtype=lib.int8),
    "tensor([nan], dtype=int8)": lambda lib: lib.tensor([float("nan")], dtype=lib.int8),
    "tensor([1.5, 2**70], dtype=int8)": lambda lib: lib.tensor([1.5, 2 ** 70], dtype=lib.int8),
    "tensor([2**64], dtype=float32)": lambda lib: lib.tensor([2 ** 64], dtype=lib.float32),
    "tensor(np.array([300]), dtype=int8)": lambda lib: lib.tensor(np.array([300]), dtype=lib.int8),
    "tensor(np.int64(300), dtype=int8)": lambda lib: lib.tensor(np.int64(300), dtype=lib.int8),
    "tensor([-1, 1.5], dtype=uint8)": lambda lib: lib.tensor([-1, 1.5], dtype=lib.uint8),
    "tensor([2**62 + 1, 0.5], dtype=int64)": lambda lib: lib.tensor([2 ** 62 + 1, 0.5], dtype=lib.int64),
    "tensor([2**63 - 1, 0.5], dtype=int64)": lambda lib: lib.tensor([2 ** 63 - 1, 0.5], dtype=lib.int64),
    "tensor([2.0**63], dtype=int64)": lambda lib: lib.tensor([2.0 ** 63], dtype=lib.int64),
    "where(int32, 2**40)": lambda lib: lib.where(lib.tensor([True]), lib.tensor([1], dtype=lib.int32), 2 ** 40),
    "clamp(float32, max=np.float64(1.5))": lambda lib: lib.tensor([1.0, 2.0]).clamp(max=np.float64(1.5)),
    "clamp(float32, min=np.int64(2))": lambda lib: lib.tensor([1.0, 3.0]).clamp(min=np.int64(2)),
}


@pytest.mark.parametrize("case", list(NUMBERS_OUT_OF_RANGE))
def test_numbers_out_of_an_integer_dtypes_range_as_in_torch(case):
    ours, theirs = error_of(lambda: NUMBERS_OUT_OF_RANGE[case](al)), error_of(lambda: NUMBERS_OUT_OF_RANGE[case](torch))
    assert ours == theirs
    if theirs[0] is None:
        ours, theirs = NUMBERS_OUT_OF_RANGE[case](al), NUMBERS_OUT_OF_RANGE[case](torch)
        assert ours.numpy().dtype == theirs.numpy().dtype and ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("case", list(CORNERS_LIKE_TORCH))
def test_corner_values_and_gradients_match_torch(case):
    ours, theirs = (CORNERS_LIKE_TORCH[case](lib) for lib in (al, torch))
    assert ours.shape == tuple(theirs.shape) and ours.numpy().dtype == theirs.numpy().dtype
    assert np.array_equal(ours.numpy(), theirs.detach().numpy(), equal_nan=True)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 4)])
def test_T_on_a_tensor_that_is_not_a_matrix_warns_as_torch(shape):
    said = []
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x = lib.zeros(shape, requires_grad=True)
            y = x.T
        said.append([str(w.message).split(" (Triggered internally")[0].replace("torch.", "al.")
                     for w in caught])
        assert tuple(y.shape) == shape[::-1] and y is not x and y.grad_fn.name() == "PermuteBackward0"
    ours, theirs = said              # torch warns once per process: maybe not again here
    assert len(ours) == 1 and theirs in ([], ours)


SOFTMAX_LIKE_TORCH = {      # (values, gradient of a weighted sum); fused in torch: equal up to rounding
    "F.softmax, no dim, 3-d": lambda L, x: L.nn.functional.softmax(x),
    "F.log_softmax, no dim, 4-d": lambda L, x: L.nn.functional.log_softmax(x.reshape(2, 3, 2, 2)),
    "F.softmax, no dim, 1-d": lambda L, x: L.nn.functional.softmax(x.reshape(24)),
    "F.softmax, dtype": lambda L, x: L.nn.functional.softmax(x, dim=-1, dtype=L.float64),
    "softmax": lambda L, x: L.softmax(x, 1),
    "log_softmax, dtype": lambda L, x: L.log_softmax(x, -2, dtype=L.float64),
    "softmax, dtype given by position": lambda L, x: L.softmax(x, 0, L.float64),
    "Tensor.softmax": lambda L, x: x.softmax(-1),
    "Tensor.log_softmax, dtype": lambda L, x: x.log_softmax(1, L.float64),
}


@pytest.mark.parametrize("case", list(SOFTMAX_LIKE_TORCH))
def test_softmax_matches_torch_also_without_a_dim(case):
    data = np.random.default_rng(5).normal(size=(2, 3, 4)).astype(np.float32)
    results = []
    for lib in (al, torch):
        x = lib.tensor(data, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = SOFTMAX_LIKE_TORCH[case](lib, x)
        (y * lib.arange(y.numel()).reshape(y.shape)).sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy(), [str(w.message) for w in caught]))
    (y, g, said), (ty, tg, tsaid) = results
    assert y.dtype == ty.dtype and y.shape == ty.shape and said == tsaid
    assert np.allclose(y, ty, rtol=1e-5, atol=1e-6) and np.allclose(g, tg, rtol=1e-4, atol=1e-5)


def _written(lib, shape, key, value):
    t = lib.zeros(*shape)
    t[key(lib)] = value(lib) if callable(value) else value
    return t


def _u8(lib, *values):
    return lib.tensor(list(values), dtype=lib.uint8)


CAT_LIKE_TORCH = {         # shapes and dtypes of the result and of the gradients, or the error
    "an empty vector among matrices": lambda L: (L.ones(0, dtype=L.float64), L.ones(2, 3), L.ones(0)),
    "an empty vector, dim 1": lambda L: (L.ones(2, 3), L.ones(0), L.ones(2, 4), 1),
    "only empty vectors, any dim": lambda L: (L.ones(0), L.ones(0), 5),
    "an empty matrix and an empty vector": lambda L: (L.ones(0, 2), L.ones(0)),
    "sizes differ": lambda L: (L.ones(2, 3), L.ones(0), L.ones(2, 4)),
    "sizes differ, dim -1": lambda L: (L.ones(2, 3), L.ones(4, 3), -1),
    "dimensions differ": lambda L: (L.ones(0), L.ones(2, 3), L.ones(3)),
    "a number": lambda L: (L.ones(2, 3), L.tensor(1.0)),
    "dim out of range": lambda L: (L.ones(0), L.ones(2, 3), 2),
}


@pytest.mark.parametrize("case", list(CAT_LIKE_TORCH))
def test_cat_matches_torch_with_empty_vectors_and_mismatches(case):
    said = []
    for lib in (al, torch):
        *xs, dim = CAT_LIKE_TORCH[case](lib)
        if not isinstance(dim, int):
            xs, dim = xs + [dim], 0
        xs = [x.requires_grad_() for x in xs]
        try:
            y = lib.cat(xs, dim)
        except Exception as e:  # noqa: BLE001
            said.append(("error", type(e).__name__, str(e)))
            continue
        grads = lib.autograd.grad(y.sum(), xs)
        said.append(("result", tuple(y.shape), str(y.dtype).split(".")[1], [tuple(g.shape) for g in grads]))
    ours, theirs = said
    if theirs[0] == "error":        # the same error; ours may add the shapes: "... list (shapes ...)."
        assert ours[:2] == theirs[:2]
        assert ours[2] == theirs[2] or ours[2].startswith(theirs[2].rstrip(".") + " (shapes ")
    else:
        assert ours == theirs


MASKS_LIKE_TORCH = {      # reads and writes through masks: results, or error type and text
    "a 2-d mask too narrow": lambda lib: lib.zeros(2, 3)[lib.ones(2, 2, dtype=lib.bool)],
    "a mask after a slice": lambda lib: lib.zeros(2, 3)[1:, lib.ones(2, dtype=lib.bool)],
    "a mask after an int": lambda lib: lib.zeros(2, 3)[0, lib.ones(2, dtype=lib.bool)],
    "a mask after ...": lambda lib: lib.zeros(2, 3)[..., lib.ones(2, dtype=lib.bool)],
    "a mask after None": lambda lib: lib.zeros(2, 3)[None, lib.ones(3, dtype=lib.bool)],
    "a list as a mask": lambda lib: lib.zeros(3)[[True, False]],
    "writing through a wrong mask": lambda lib: _written(lib, (2, 3), lambda L: L.ones(3, dtype=L.bool), 1.0),
    "one value through a uint8 mask": lambda lib: _written(lib, (3,), lambda L: _u8(L, 0, 1, 1), 5.0),
    "one value, uint8 mask in a tuple": lambda lib: _written(lib, (3,), lambda L: (_u8(L, 0, 1, 1),), 5.0),
    "one value, uint8 mask after :": lambda lib: _written(lib, (2, 2), lambda L: (slice(None), _u8(L, 0, 1)), 5.0),
    "one value, uint8 mask and an int": lambda lib: _written(lib, (2, 2), lambda L: (_u8(L, 0, 1), 0),
                                                             lambda L: L.tensor([5.0])),
    "one value, a 0-d uint8 mask": lambda lib: _written(lib, (3,), lambda L: L.tensor(1, dtype=L.uint8), 5.0),
    "one value, uint8 mask of a wrong shape": lambda lib: _written(lib, (3,), lambda L: _u8(L, 1, 0), 5.0),
    "values through a uint8 mask": lambda lib: _written(lib, (3,), lambda L: _u8(L, 0, 1, 1),
                                                        lambda L: L.tensor([5.0, 6.0])),
    "one value, uint8 mask and a list": lambda lib: _written(lib, (2, 2), lambda L: (_u8(L, 0, 1), [0]), 5.0),
    "an integer tensor to a NumPy -1": lambda lib: lib.tensor([2, 1]) ** np.int64(-1),
}


@pytest.mark.parametrize("case", list(MASKS_LIKE_TORCH))
def test_masks_and_refusals_match_torch(case):
    outcomes = []
    for lib in (al, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")    # the uint8 deprecation warning, checked elsewhere
            try:
                outcomes.append(MASKS_LIKE_TORCH[case](lib).tolist())
            except (RuntimeError, IndexError) as e:
                outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]


def test_a_uint8_index_is_a_mask_as_in_torch():
    results = []
    for lib in (al, torch):
        x = lib.tensor([10.0, 20.0, 30.0], requires_grad=True)
        with pytest.warns(UserWarning, match="indexing with dtype .*uint8 is now deprecated"):
            y = x[lib.tensor([1, 0, 1], dtype=lib.uint8)]
            y.sum().backward()
        results.append((y.tolist(), x.grad.tolist()))
    assert results[0] == results[1]


def test_float16_softmax_equals_torchs():
    rng = np.random.default_rng(0)
    data, seed = (rng.normal(size=(4, 7)) * 3).astype(np.float16), rng.normal(size=(4, 7)).astype(np.float16)
    results = []
    for lib in (al, torch):
        x = lib.tensor(data, requires_grad=True)
        y = x.softmax(1)
        y.backward(lib.tensor(seed))
        results.append((y.detach().numpy(), x.grad.numpy()))
    (y, g), (ty, tg) = results
    assert y.dtype == g.dtype == tg.dtype == np.float16 and np.array_equal(y, ty)
    assert np.allclose(g, tg, rtol=1e-2, atol=1e-3)


def _idiv(x, v):
    x /= v
    return x


def _isub(x, v):
    x -= v
    return x


# in place: the out-of-place result (promotion, wrap-around, refusals) must fit the
# tensor's shape and dtype; and add/sub's alpha, in place or not
IN_PLACE = {
    "int8 += 300": lambda lib: iadd(_int8(lib), 300),
    "int8.add_(300)": lambda lib: _int8(lib).add_(300),
    "int8.mul_(300)": lambda lib: _int8(lib).mul_(300),
    "uint8 -= 3": lambda lib: _isub(_uint8(lib), 3),
    "int8 += an int64 tensor": lambda lib: iadd(_int8(lib), lib.tensor([100, 300])),
    "float32 += a float64 tensor": lambda lib: iadd(lib.ones(2), lib.tensor([1.5], dtype=lib.float64)),
    "a matrix += a row": lambda lib: iadd(lib.ones(2, 2), lib.tensor([1.0, 2.0])),
    "float.add_(1, alpha=2)": lambda lib: lib.ones(2).add_(1, alpha=2),
    "float.sub_(t, alpha=2)": lambda lib: lib.ones(2).sub_(lib.ones(2), alpha=2),
    "bool += True": lambda lib: iadd(lib.tensor([True, False]), True),
    "bool.add(bool, alpha=2)": lambda lib: lib.tensor([True]).add(lib.tensor([True]), alpha=2),
    "int8 += 1.5": lambda lib: iadd(_int8(lib), 1.5),
    "int8 /= 2": lambda lib: _idiv(_int8(lib), 2),
    "int64.div_(2)": lambda lib: lib.tensor([1, 2]).div_(2),
    "int8 += a float64 tensor": lambda lib: iadd(_int8(lib), lib.tensor([1.0], dtype=lib.float64)),
    "bool.add_(1)": lambda lib: lib.tensor([True]).add_(1),
    "float -= True": lambda lib: _isub(lib.ones(2), True),
    "float.sub_(True)": lambda lib: lib.ones(2).sub_(True),
    "float.sub(True, alpha=2)": lambda lib: lib.ones(2).sub(True, alpha=2),
    "int.add_(1, alpha=0.5)": lambda lib: lib.tensor([1, 2]).add_(1, alpha=0.5),
    "int.add(1, alpha=1.0)": lambda lib: lib.tensor([1, 2]).add(1, alpha=1.0),
    "a vector += a matrix": lambda lib: iadd(lib.ones(2), lib.ones(2, 2)),
    "a vector += a longer vector": lambda lib: iadd(lib.ones(2), lib.ones(3)),
    "float += 2**70": lambda lib: iadd(lib.ones(2), 2 ** 70),
    "an expanded tensor .add_(1)": lambda lib: lib.ones(1, 3).expand(2, 3).add_(1),
    "int.add(3, alpha=True)": lambda lib: lib.tensor([1, 2]).add(3, alpha=True),
    "float.add(3, alpha='a')": lambda lib: lib.ones(2).add(3, alpha="a"),
    "bool.add(True, alpha=2)": lambda lib: lib.tensor([True, False]).add(True, alpha=2),
    "bool.add_(True, alpha=2)": lambda lib: lib.tensor([True, False]).add_(True, alpha=2),
    "bool.add(bool, alpha=False)": lambda lib: lib.tensor([True, False]).add(lib.tensor([True, True]), alpha=False),
    "int.add(np.True_, alpha=2)": lambda lib: lib.tensor([1, 2]).add(np.True_, alpha=2),
    "float.add(2**63, alpha=2)": lambda lib: lib.ones(1).add(2 ** 63, alpha=2),
    "float.sub(2**70, alpha=0.5)": lambda lib: lib.ones(1).sub(2 ** 70, alpha=0.5),
}


@pytest.mark.parametrize("case", list(IN_PLACE))
def test_in_place_arithmetic_as_in_torch(case):
    ours, theirs = error_of(lambda: IN_PLACE[case](al)), error_of(lambda: IN_PLACE[case](torch))
    assert ours[0] == theirs[0]
    if theirs[0] is not None:
        assert ours[1] == theirs[1] or ours[1].startswith(theirs[1] + ". ")   # perhaps with a hint
    else:
        ours, theirs = IN_PLACE[case](al), IN_PLACE[case](torch)
        assert ours.numpy().dtype == theirs.numpy().dtype and ours.tolist() == theirs.tolist()


# -- in-place operations on tensors in a graph -----------------------------------------------
def _no_grad_view(L, t):
    with L.no_grad():
        return t[1:3]


def _stepped(L, x, make_loss):
    """A loss computed, then an optimizer-like step on x under no_grad, then the walk."""
    loss = make_loss(x)
    with L.no_grad():
        x -= 0.1
    return loss


def _data_write(L, x):
    y = x.exp()
    y.data.mul_(2)                           # .data has a counter of its own: nothing notices
    return y


def _retained(L, x):
    y = x * 2
    y.retain_grad()
    y.add_(1)                                # the retained gradient moves to the new y
    return y


def _second_walk(L, make):
    y = make()
    y.sum().backward()
    return y


def _with_views(L, x, w):
    y = x * 1
    v = y[:2]
    y.mul_(w)                                # v is a view of y: its history is y's new one
    return v


IN_PLACE_IN_A_GRAPH = {     # make(L, x, w) -> y; then y's numbers, node, version and the gradients
    "x * 2, then add_": lambda L, x, w: (x * 2).add_(1),
    "x * 2, then mul_ by w": lambda L, x, w: (x * 2).mul_(w),
    "exp, then mul_": lambda L, x, w: x.exp().mul_(2),
    "exp, then mul_ twice": lambda L, x, w: x.exp().mul_(2).mul_(3),
    "sin_ reads the old value": lambda L, x, w: (x * 1).sin_(),
    "y.mul_(y)": lambda L, x, w: (lambda y: y.mul_(y))(x * 1),
    "y.add_(y)": lambda L, x, w: (lambda y: y.add_(y))(x * 1),
    "relu_, then add_": lambda L, x, w: (x * 1).relu_().add_(1),
    "x ** 2, then add_": lambda L, x, w: (x ** 2).add_(1),
    "x / w, then add_": lambda L, x, w: (x / w).add_(1),
    "x ** w, then add_": lambda L, x, w: (x.abs() ** w).add_(1),
    "where, then a branch changes": lambda L, x, w: (lambda a: (L.where(a > 0, a, w), a.add_(1))[0])(x * 1),
    "where, then its condition changes": lambda L, x, w: (lambda c: (L.where(c, x, w), c.zero_())[0])(x > 0),
    "x * an int8 constant, then the constant changes": lambda L, x, w:
        (lambda c: (x * c, c.zero_())[0])(L.tensor([1, 2, 3, 4], dtype=L.int8)),
    "+= w": lambda L, x, w: iadd(x * 1, w),
    "y[y < 0] = 0": lambda L, x, w: (lambda y: setitem(y, y < 0, 0.0))(x * 1),
    "y[mask] = w": lambda L, x, w: (lambda y: setitem(y, y < 0, w))(x * 1),
    "y[indices] = w": lambda L, x, w: setitem(x * 1, L.tensor([0, 2]), w),
    "y[0] = 7": lambda L, x, w: setitem(x * 1, 0, 7.0),
    "y[1:3] = w": lambda L, x, w: setitem(x * 1, slice(1, 3), w),
    "y[...] = w": lambda L, x, w: setitem(x * 1, Ellipsis, w),
    "y[:] = a tensor": lambda L, x, w: setitem(x * 1, slice(None), x * w),
    "masked_fill_ with a number": lambda L, x, w: (lambda y: y.masked_fill_(y > 0, 2.0))(x * 1),
    "masked_fill_ with w": lambda L, x, w: (lambda y: y.masked_fill_(y > 0, w))(x * 1),
    "masked_fill": lambda L, x, w: x.masked_fill(x > 0, w),
    "fill_ with w": lambda L, x, w: (x * 1).fill_(w),
    "fill_ with a number": lambda L, x, w: (x * 1).fill_(3.0) * x,
    "zero_": lambda L, x, w: (x * 1).zero_() + x,
    "copy_ of a broadcast": lambda L, x, w: (x * 1).copy_(w * 2),
    "mul_ through a view": lambda L, x, w: (lambda y: (y[1:3].mul_(w), y)[1])(x * 1),
    "exp_ through a view": lambda L, x, w: (lambda y: (y[1:3].exp_(), y)[1])(x * 1),
    "setitem through a view of a view": lambda L, x, w: (lambda y: (setitem(y.reshape(2, 2)[1], 0, w), y)[1])(x * 1),
    "a view read after its base changed": _with_views,
    "writing into a plain buffer": lambda L, x, w: setitem(L.zeros(4, dtype=L.float64), 1, w * 5),
    "copy_ into a plain buffer": lambda L, x, w: L.zeros(4, dtype=L.float64).copy_(x * 3),
    "+= into a plain buffer": lambda L, x, w: iadd(L.zeros(4, dtype=L.float64), x),
    "detach() shares the version": lambda L, x, w: (lambda y: (y.detach().zero_(), y)[1])(x.exp()),
    ".data does not": lambda L, x, w: _data_write(L, x),
    "an optimizer step before the walk": lambda L, x, w: _stepped(L, w, lambda p: x * p ** 2),
    "an optimizer step, x * 3 saved nothing of x": lambda L, x, w: _stepped(L, w, lambda p: x * 3 + p),
    "retain_grad moves with an in-place op": lambda L, x, w: _retained(L, x),
    "a second walk through CopySlices": lambda L, x, w: _second_walk(L, lambda: setitem(x.clone(), 0, w)),
    "a second walk through fill_": lambda L, x, w: _second_walk(L, lambda: x.clone().fill_(w)),
    # refusals
    "add_ on a leaf": lambda L, x, w: x.add_(1),
    "add_ on a view of a leaf": lambda L, x, w: x[1:3].add_(1),
    "setitem on a leaf": lambda L, x, w: setitem(x, 0, 1.0),
    "a view made under no_grad": lambda L, x, w: _no_grad_view(L, x * 1).add_(1),
    "a view of a plain tensor made under no_grad, mul_ by w": lambda L, x, w: _no_grad_view(L, L.zeros(4)).mul_(w),
    "an expanded tensor": lambda L, x, w: (w * 1).expand(3).add_(1),
    "masked_fill_ with a float mask": lambda L, x, w: (x * 1).masked_fill_(x * 0, 1.0),
    "masked_fill_ with a vector": lambda L, x, w: (x * 1).masked_fill_(x > 0, x),
    "masked_fill_ with a mask that does not fit": lambda L, x, w: (x * 1).masked_fill_(L.ones(2, 4) > 0, 1.0),
    "fill_ with a vector": lambda L, x, w: (x * 1).fill_(x),
    "copy_ of a longer vector": lambda L, x, w: (x * 1).copy_(L.ones(5, dtype=L.float64)),
    "setitem of a vector that does not fit": lambda L, x, w: setitem(x * 1, slice(0, 2), x),
    "setitem of indices, values that do not fit": lambda L, x, w: setitem(x * 1, [0, 1], x[:3]),
    "setitem of indices, another dtype": lambda L, x, w: setitem(x * 1, [0, 1], w.float()),
    "setitem of indices, a constant of another dtype": lambda L, x, w: setitem(x * 1, [0, 1], L.tensor(2)),
    "setitem through a mask, a number of another dtype": lambda L, x, w: setitem(x * 1, x > 0, w.float()),
    "setitem of a list": lambda L, x, w: setitem(x * 1, 0, [1.0]),
    # reading numbers the same op writes: refused where the layouts differ
    "y[1:] += y[:-1]": lambda L, x, w: (lambda y: (iadd(y[1:], y[:-1]), y)[1])(x * 1),
    "m.add_(m.t())": lambda L, x, w: (lambda m: m.add_(m.t()))((x * 1).reshape(2, 2)),
    "y[[0, 1]] = y[1:3]": lambda L, x, w: (lambda y: setitem(y, [0, 1], y[1:3]))(x * 1),
    "y[1:].copy_(y[:-1])": lambda L, x, w: (lambda y: (y[1:].copy_(y[:-1]), y)[1])(x * 1),
    "y.mul_(y.reshape(2, 2).reshape(4))": lambda L, x, w: (lambda y: y.mul_(y.reshape(2, 2).reshape(4)))(x * 1),
    "m[0] = m[:, 0] (a layout with gaps)": lambda L, x, w: (lambda m: setitem(m, 0, m[:, 0]))((x * 1).reshape(2, 2)),
    "y[::2] += y[1::2]": lambda L, x, w: (lambda y: (iadd(y[::2], y[1::2]), y)[1])(x * 1),
}


def _outcome(L, case):
    """What a learner sees, or the error (torch's 'torch.' read as 'al.')."""
    x = L.tensor([1.0, -2.0, 3.0, -4.0], dtype=L.float64, requires_grad=True)
    w = L.tensor(0.5, dtype=L.float64, requires_grad=True)
    try:
        y = IN_PLACE_IN_A_GRAPH[case](L, x, w)
        seen = (y.tolist(), y.grad_fn.name().split("::")[-1], y._version, y.requires_grad)
        y.sum().backward()
        grads = [None if t.grad is None else t.grad.tolist() for t in (x, w)]
        if y.retains_grad:
            grads.append(y.grad.tolist())
        return seen + tuple(grads)
    except (RuntimeError, TypeError, IndexError) as e:
        return type(e).__name__, str(e).replace("torch.", "al.")


@pytest.mark.parametrize("case", list(IN_PLACE_IN_A_GRAPH))
def test_in_place_operations_in_a_graph_as_in_torch(case):
    ours, theirs = _outcome(al, case), _outcome(torch, case)
    if isinstance(theirs[1], str) and theirs[0] == "TypeError" and "received an invalid" in theirs[1]:
        ours, theirs = ours[:2], (theirs[0], theirs[1][:len(ours[1])])
    assert ours == theirs


# next_functions differ in one place: through a view, torch's CopySlices hides the node of
# the op that wrote the view and lists that node's other inputs; here that node is CopySlices'
# second input (the same gradients: tests above)
IN_PLACE_NODES = ["x * 2, then add_", "x * 2, then mul_ by w", "+= w", "y[y < 0] = 0", "y[mask] = w",
                  "y[indices] = w", "y[0] = 7", "y[1:3] = w", "y[...] = w", "masked_fill_ with a number",
                  "masked_fill_ with w", "fill_ with w", "copy_ of a broadcast", "setitem through a view of a view",
                  "writing into a plain buffer", "copy_ into a plain buffer", "+= into a plain buffer",
                  "a view read after its base changed"]


@pytest.mark.parametrize("case", IN_PLACE_NODES)
def test_in_place_nodes_have_torchs_next_functions(case):
    def shape(L):
        x = L.tensor([1.0, -2.0, 3.0, -4.0], dtype=L.float64, requires_grad=True)
        w = L.tensor(0.5, dtype=L.float64, requires_grad=True)
        node = IN_PLACE_IN_A_GRAPH[case](L, x, w).grad_fn
        return node.name(), [None if n is None else n.name() for n, _ in node.next_functions]
    assert shape(al) == shape(torch)


def _loop(L, step, iterations=3):
    """A training loop that carries its state h from one iteration to the next."""
    w = L.tensor([0.5, -0.3], requires_grad=True)
    h = L.zeros(2)
    seen = []
    for t in range(iterations):
        x_t = L.tensor([float(t), 1.0])
        try:
            h, loss = step(L, h, w, x_t)
            loss.backward()
        except RuntimeError as e:
            return seen + [f"iteration {t}: {e}"]
        seen.append([round(v, 5) for v in w.grad.tolist()])
    return seen


def _state(h, loss_of):
    return h, loss_of(h)


TRAINING_LOOPS = {      # (L, h, w, x_t) -> (new h, loss)
    "h = h * w + x": lambda L, h, w, x: _state(h * w + x, lambda h: h.sum()),
    "h = tanh(h * w + x)": lambda L, h, w, x: _state((h * w + x).tanh(), lambda h: h.sum()),
    "h = h + w * x": lambda L, h, w, x: _state(h + w * x, lambda h: h.sum()),
    "h = h + w (adds keep nothing)": lambda L, h, w, x: _state(h + w, lambda h: h.sum()),
    "h = sigmoid(h + w * x), loss h * h": lambda L, h, w, x: _state((h + w * x).sigmoid(), lambda h: (h * h).sum()),
    "h = relu(h * w + x)": lambda L, h, w, x: _state(L.relu(h * w + x), lambda h: h.sum()),
    "h = exp(h + w)": lambda L, h, w, x: _state((h + w).exp(), lambda h: h.sum()),
    "h = h * w + x, loss mean of squares": lambda L, h, w, x: _state(h * w + x, lambda h: (h ** 2).mean()),
    "h = h.detach() * w + x: the fix": lambda L, h, w, x: _state((h.detach() * w + x).tanh(), lambda h: h.sum()),
    "h *= w in place, then += x": lambda L, h, w, x: _state(iadd(h * 1, 0).mul_(w).add_(x), lambda h: h.sum()),
    "h[0] = w[0] * x[0], h carried": lambda L, h, w, x: _state(setitem(h.clone(), 0, w[0] * x[0] + h[1]),
                                                               lambda h: h.sum()),
}


@pytest.mark.parametrize("case", list(TRAINING_LOOPS))
def test_a_loop_carrying_its_graph_fails_at_the_second_backward_where_torch_does(case):
    ours, theirs = (_loop(L, TRAINING_LOOPS[case]) for L in (al, torch))
    assert ours == theirs


def test_under_anomaly_mode_the_hint_and_the_warning_are_torchs():
    said = []
    for L in (al, torch):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught, L.autograd.detect_anomaly(check_nan=False):
            warnings.simplefilter("always")      # (torch also warns that anomaly mode is slow)
            y = x.sigmoid()
            y.add_(1)
            error = error_of(lambda: y.sum().backward())
        warned = str(caught[-1].message)
        said.append((error[0], error[1].replace("torch.", "al."), warned.split("\n")[0], "y = x.sigmoid()" in warned))
    ours, theirs = said
    assert ours == theirs and ours[3]


@pytest.mark.parametrize("order", ["a * b", "b * a"])
def test_grads_are_written_in_the_order_they_arrive_as_in_torch(order):
    """Two .grad fields that cannot take their gradients: the error names the tensor
    whose gradient arrived first, as torch's AccumulateGrad nodes run in that order."""
    def first_refused(lib):
        a = lib.tensor([1., 2.], requires_grad=True)
        b = lib.tensor([3., 4.], requires_grad=True)
        f = (lambda: (a * b).sum()) if order == "a * b" else (lambda: (b * a).sum())
        f().backward()
        a.grad.data, b.grad.data = lib.zeros(3), lib.zeros(5)
        with pytest.raises(RuntimeError) as e:
            f().backward()
        return str(e.value).split(" at ")[0]
    assert first_refused(al) == first_refused(torch)
