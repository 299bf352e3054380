"""Settings for GPUs and speed (autograd_lab/hardware.py) answer as a CPU-only torch 2.13
answers them: values, settable flags, warnings, refusals in torch's words -- and where
torch would compute differently (autocast on the CPU), refused in ours."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402
from op_cases import error_of  # noqa: E402


def _said(lib, f):
    """(result or error, warnings' texts) of f(lib), torch's names read as ours."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = ("ok", f(lib))
        except Exception as e:  # noqa: BLE001
            out = (type(e).__name__, str(e).split(" (autograd_lab runs")[0])
    texts = [str(w.message).split(" (Triggered internally at")[0] for w in caught
             if "jit" not in str(w.message) and w.category is not RuntimeWarning]   # (NumPy's overflow)
    return out, texts


QUERIES = {
    "cudnn flags": lambda L: (L.backends.cudnn.deterministic, L.backends.cudnn.benchmark,
                              L.backends.cudnn.enabled, L.backends.cudnn.allow_tf32,
                              L.backends.cudnn.is_available(), L.backends.cudnn.version()),
    "cudnn flags can be set": lambda L: (setattr(L.backends.cudnn, "deterministic", True),
                                         setattr(L.backends.cudnn, "benchmark", True),
                                         L.backends.cudnn.deterministic, L.backends.cudnn.benchmark,
                                         setattr(L.backends.cudnn, "deterministic", False),
                                         setattr(L.backends.cudnn, "benchmark", False)),
    "mps": lambda L: (L.backends.mps.is_available(), L.backends.mps.is_built()),
    "cuda backend": lambda L: (L.backends.cuda.is_built(), L.backends.cuda.matmul.allow_tf32),
    "cuda memory": lambda L: (L.cuda.empty_cache(), L.cuda.memory_allocated(),
                              L.cuda.max_memory_allocated(), L.cuda.is_bf16_supported()),
    "cuda.synchronize": lambda L: L.cuda.synchronize(),
    "cuda.current_device": lambda L: L.cuda.current_device(),
    "cuda.get_device_name": lambda L: L.cuda.get_device_name(0),
    "cuda.get_device_capability": lambda L: L.cuda.get_device_capability(),
    "matmul precision": lambda L: (L.get_float32_matmul_precision(), L.set_float32_matmul_precision("high"),
                                   L.get_float32_matmul_precision(), L.set_float32_matmul_precision("max"),
                                   L.get_float32_matmul_precision(),
                                   L.set_float32_matmul_precision("highest")),
    "determinism": lambda L: (L.are_deterministic_algorithms_enabled(),
                              L.use_deterministic_algorithms(True, warn_only=True),
                              L.are_deterministic_algorithms_enabled(),
                              L.is_deterministic_algorithms_warn_only_enabled(),
                              L.use_deterministic_algorithms(False)),
    "determinism needs a bool": lambda L: L.use_deterministic_algorithms("yes"),
    "threads": lambda L: (L.set_num_threads(2), L.get_num_threads()),
    "threads must be positive": lambda L: L.set_num_threads(0),
    "tensor devices": lambda L: (L.ones(2).get_device(), L.ones(2).is_pinned()),
    "pin_memory": lambda L: L.ones(2).pin_memory(),
    "autocast cuda": lambda L: _under(L, L.autocast("cuda")),
    "amp.autocast cuda": lambda L: _under(L, L.amp.autocast(device_type="cuda")),
    "cuda.amp.autocast": lambda L: _under(L, L.cuda.amp.autocast()),
    "autocast disabled on the cpu": lambda L: _under(L, L.autocast("cpu", enabled=False)),
    "autocast cpu float64": lambda L: _under(L, L.autocast("cpu", dtype=L.float64)),
    "autocast of no device": lambda L: L.autocast("tpu"),
    "autocast as a decorator": lambda L: L.autocast("cuda")(lambda: (L.ones(2, 2) @ L.ones(2, 2)).tolist())(),
    "grad scaler on cuda": lambda L: _scaler(L, L.amp.GradScaler("cuda")),
    "cuda.amp.GradScaler": lambda L: _scaler(L, L.cuda.amp.GradScaler()),
    "grad scaler on the cpu": lambda L: _scaler(L, L.amp.GradScaler("cpu")),
    "grad scaler skips a step with inf": lambda L: _scaler(L, L.amp.GradScaler("cpu", init_scale=2.0 ** 127)),
    "grad scaler past float32": lambda L: _scaler(L, L.amp.GradScaler("cpu", init_scale=2.0 ** 130)),
    "cuda's legacy types can be named": lambda L: (repr(L.cuda.FloatTensor), repr(L.cuda.LongTensor),
                                                   isinstance(L.zeros(2), L.cuda.FloatTensor),
                                                   isinstance(L.zeros(2, dtype=L.long), L.cuda.LongTensor)),
    "a cuda legacy type makes no tensor": lambda L: L.cuda.FloatTensor(3),
    "DataParallel without a GPU": lambda L: _data_parallel(L, L.nn.DataParallel(L.nn.Linear(2, 1))),
    "DataParallel asked for GPU 0": lambda L: _data_parallel(L, L.nn.DataParallel(L.nn.Linear(2, 1),
                                                                                  device_ids=[0])),
}


def _data_parallel(L, model):
    """What a course sees of its wrapped model: the printed form, the state dict's keys, the
    devices, and the numbers and gradients of the model inside."""
    with L.no_grad():
        model.module.weight.copy_(L.tensor([[0.5, -1.0]]))
        model.module.bias.fill_(0.25)
    y = model(L.tensor([[1.0, 2.0], [3.0, 4.0]]))
    y.sum().backward()
    return (str(model), list(model.state_dict()), model.device_ids, y.tolist(), y.grad_fn.name(),
            model.module.weight.grad.tolist(), [n for n, _ in model.named_parameters()])


def _under(L, context):
    with context:
        y = L.ones(2, 2) @ L.ones(2, 2)
    return str(y.dtype).split(".")[-1], y.tolist()


def _scaler(L, scaler):
    x = L.tensor([1.0, -2.0], requires_grad=True)
    opt = L.optim.SGD([x], lr=0.1)
    said = []
    for _ in range(2):
        opt.zero_grad()
        loss = scaler.scale((x * x).sum())
        loss.backward()
        said.append((loss.item(), x.grad.tolist()))
        scaler.step(opt)
        scaler.update()
        said.append((x.tolist(), scaler.get_scale()))
    return said, scaler.is_enabled(), scaler.state_dict(), error_of(lambda: scaler.step(opt))


@pytest.mark.parametrize("case", list(QUERIES))
def test_a_setting_for_gpus_or_speed_answers_as_a_cpu_only_torch(case):
    ours, theirs = _said(al, QUERIES[case]), _said(torch, QUERIES[case])
    assert ours == theirs


def test_autocast_on_the_cpu_is_refused_in_words_where_torch_would_compute_in_bfloat16():
    with torch.autocast("cpu"):
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.bfloat16
    for dtype in (None, al.float16):
        with pytest.raises(NotImplementedError, match=r"^autocast on the CPU is not implemented in "
                                                      r"autograd_lab: torch would compute"):
            with al.autocast("cpu", dtype=dtype):
                pass


def test_compile_gives_the_model_back_as_a_call_and_as_a_decorator():
    """(torch's would compile, which takes seconds: the numbers are the same.)"""
    model = al.nn.Linear(2, 1)
    assert al.compile(model) is model and al.compile(mode="max-autotune")(model) is model
    assert np.allclose(al.compile(model)(al.ones(1, 2)).tolist(), model(al.ones(1, 2)).tolist())


def test_casting_to_a_cuda_legacy_type_is_refused_as_a_cpu_only_torch_refuses_it():
    for lib in (torch, al):
        with pytest.raises(RuntimeError, match=r"^Cannot initialize CUDA without ATen_cuda library"):
            lib.zeros(2).type(lib.cuda.FloatTensor)


def test_choosing_a_gpu_is_refused_in_words_where_torch_fails_on_its_own_internals():
    """torch 2.13 without CUDA raises an AttributeError naming its C extension's missing
    function; autograd_lab says what is missing instead."""
    for f in (lambda L: L.cuda.set_device(0), lambda L: L.cuda.reset_peak_memory_stats()):
        with pytest.raises(AttributeError, match=r"^module 'torch._C' has no attribute '_cuda_"):
            f(torch)
        with pytest.raises(AssertionError, match=r"^Torch not compiled with CUDA enabled \(autograd_lab "
                                                 r"runs on the CPU only"):
            f(al)
