"""Factories and devices against torch: the values of ranges, torch's ways of giving a
shape, device boilerplate, and the errors of each."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402

RANGES = [("arange", (-8, 8, 0.1)), ("arange", (0, 1, 0.1)), ("arange", (-3, 3, 0.01)),
          ("arange", (1.5, 2000.7, 0.37)), ("arange", (10, 0, -0.3)), ("arange", (-0.7, 0.7, 0.1)),
          ("arange", (0, 30000, 0.3)), ("arange", (5,)), ("arange", (2.5,)), ("arange", (0, 10, 3)),
          ("linspace", (-3.14159, 3.14159, 7)), ("linspace", (-np.pi, np.pi, 2000)),
          ("linspace", (0, 1, 11)), ("linspace", (0.1, 7.3, 33)), ("linspace", (3, -2, 10)),
          ("linspace", (1, 10, 1)), ("linspace", (0, 1, 0))]


@pytest.mark.parametrize("name, args", RANGES, ids=[f"{n}{a}" for n, a in RANGES])
@pytest.mark.parametrize("dtype", [None, "float64"])
def test_ranges_hold_torchs_values_to_the_last_bit(name, args, dtype):
    ours = getattr(al, name)(*args, dtype=None if dtype is None else al.float64).numpy()
    theirs = getattr(torch, name)(*args, dtype=None if dtype is None else torch.float64).numpy()
    assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)


def test_relu_of_arange_has_torchs_gradient_where_arange_crosses_zero():
    grads = []
    for lib in (al, torch):
        x = lib.arange(-8, 8, 0.1, requires_grad=True)
        lib.relu(x).sum().backward()
        grads.append(x.grad.numpy())
    assert grads[0][80] == 1.0 and np.array_equal(grads[0], grads[1])


REFUSED = {
    "arange with step 0": lambda L: L.arange(0, 10, 0),
    "arange against its step": lambda L: L.arange(10, 0, 1),
    "arange to infinity": lambda L: L.arange(0, float("inf"), 1),
    "linspace of -1 steps": lambda L: L.linspace(0, 1, -1),
    "a float in a size": lambda L: L.zeros((2.0, 3)),
    "a negative size": lambda L: L.randn(-1),
    "size twice": lambda L: L.zeros(2, size=(3,)),
    "a device that is not one": lambda L: L.device("gpu"),
    "an accelerator by number": lambda L: L.zeros(2, device=0),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_bad_factory_arguments_are_refused_with_torchs_text(case):
    ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and ours == theirs


@pytest.mark.parametrize("make", [
    lambda L: L.zeros(2, device="cuda"), lambda L: L.ones(2).to("cuda"), lambda L: L.ones(2).cuda(),
    lambda L: L.randn(2, 3, device=L.device("cuda", 0)), lambda L: L.arange(3, device="cuda:1"),
    lambda L: L.tensor([1.0], device="cuda"), lambda L: L.zeros_like(L.ones(2), device="cuda"),
])
def test_asking_for_a_gpu_raises_torchs_assertion_and_says_we_run_on_the_cpu(make):
    ours, theirs = error_of(lambda: make(al)), error_of(lambda: make(torch))
    assert ours[0] == theirs[0] == "AssertionError"
    assert ours[1].startswith(theirs[1] + " (autograd_lab runs on the CPU only")


def test_device_boilerplate_runs_and_prints_as_torchs():
    said = []
    for lib in (al, torch):
        device = lib.device("cuda" if lib.cuda.is_available() else "cpu")
        lib.set_default_device("cpu")
        x = lib.ones(2, 3, device=device).to(device).cpu()
        y = lib.full((2,), 1.5, device=device).to(device, lib.float64)
        z = x.to(y)                                   # another tensor's dtype
        said.append((repr(device), str(device), repr(lib.device("cuda:1")), str(x.device), x.device == device,
                     x.device.type, x.is_cuda, repr(y.to("cpu")).replace("torch.", "al."), z.dtype == lib.float64,
                     lib.cuda.is_available(), lib.cuda.device_count(), lib.accelerator.is_available(),
                     lib.accelerator.current_accelerator(), repr(lib.get_default_device()),
                     lib.device("cpu") == "cpu", lib.device("cpu", 0).index))
    assert said[0] == said[1]


@pytest.mark.parametrize("make", [
    lambda L: L.randn(2, 3), lambda L: L.randn((2, 3)), lambda L: L.randn([2, 3]), lambda L: L.randn(size=(2, 3)),
    lambda L: L.rand(size=[4]), lambda L: L.zeros(size=(1, 2)), lambda L: L.randn(()),
    lambda L: L.randint(10, (3,)), lambda L: L.randint(2, 10, size=(2, 2)), lambda L: L.randperm(5),
    lambda L: L.normal(0, 1, (2, 3)), lambda L: L.normal(0.0, 0.01, size=(2, 1), requires_grad=True),
    lambda L: L.normal(L.zeros(3, dtype=L.float64), 1.0),
    lambda L: L.randn(2, generator=L.Generator().manual_seed(3), dtype=L.float64, requires_grad=True),
    lambda L: L.randn_like(L.ones(2, dtype=L.float64)), lambda L: L.empty(3, device="cpu"),
])
def test_factories_take_torchs_signatures(make):
    ours, theirs = make(al), make(torch)
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype)[3:] == str(theirs.dtype)[6:]
    assert ours.requires_grad == theirs.requires_grad


def test_a_generator_of_ones_own_repeats_and_keeps_its_stream_apart():
    for lib in (al, torch):
        g = lib.Generator().manual_seed(42)
        a = lib.randn(3, generator=g)
        lib.manual_seed(0)
        assert lib.randn(3, generator=lib.Generator().manual_seed(42)).tolist() == a.tolist()
        assert g.initial_seed() == 42 and lib.manual_seed(5).initial_seed() == 5


MADE = {   # tensors the factories make, which in-place methods then write
    "arange": lambda L: L.arange(-1, 1, 0.25), "arange of ints": lambda L: L.arange(6),
    "linspace": lambda L: L.linspace(-1, 1, 7), "full": lambda L: L.full((2, 3), 1.5),
    "zeros": lambda L: L.zeros(2, 3, device="cpu"), "ones": lambda L: L.ones(4, dtype=L.float64),
    "eye": lambda L: L.eye(3), "empty, then fill_": lambda L: L.empty(3).fill_(2.0),
    "zeros_like": lambda L: L.zeros_like(L.ones(2, 2)), "randperm": lambda L: L.randperm(5).zero_(),
    "normal": lambda L: L.normal(0.0, 1.0, (3,)).zero_(),    # (the generators differ: zero_ first)
    "to a device and a dtype": lambda L: L.ones(3).to("cpu", L.float64),
}


@pytest.mark.parametrize("case", list(MADE))
def test_in_place_methods_write_into_what_the_factories_make_as_in_torch(case):
    said = []
    for lib in (al, torch):
        t = MADE[case](lib)
        t.mul_(3).add_(1)
        t[0] = 5
        t.clamp_(max=4)
        if t.is_floating_point():
            t.exp_().sub_(1)
        said.append((np.round(t.numpy(), 5).tolist(), str(t.dtype).split(".")[1], t._version))
    assert said[0] == said[1]


@pytest.mark.parametrize("case", ["arange", "linspace", "full", "ones", "eye"])
def test_a_factorys_tensor_that_requires_grad_is_written_in_place_through_its_graph_as_in_torch(case):
    said = []
    for lib in (al, torch):
        x = MADE[case](lib).requires_grad_()
        y = x * 1
        y.sin_()
        y[0] = 0.5
        y.mul_(x)
        y.sum().backward()
        said.append((np.round(y.detach().numpy(), 5).tolist(), y.grad_fn.name(), np.round(x.grad.numpy(), 5).tolist()))
    assert said[0] == said[1]
