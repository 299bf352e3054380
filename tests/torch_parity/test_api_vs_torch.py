"""Every public name of autograd_lab has a PyTorch counterpart at the same place, except
the few teaching additions listed here (so the book's code runs under `import torch`)."""
import inspect

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to check autograd_lab's names against PyTorch's")

import autograd_lab as al  # noqa: E402
import autograd_lab.func  # noqa: E402,F401

# names autograd_lab adds for teaching, with where torch keeps the nearest thing
EXTRAS = {
    "autograd.count_passes": "no torch counterpart: counts passes for the book",
    "autograd.PassCounter": "no torch counterpart",
    "autograd.trace_backward": "no torch counterpart: records the backward walk",
    "autograd.Step": "no torch counterpart",
    "autograd.FunctionCtx": "torch.autograd.function.FunctionCtx",
    "autograd.GradcheckError": "torch.autograd.gradcheck.GradcheckError",
    "autograd.once_differentiable": "torch.autograd.function.once_differentiable",
    "autograd.is_anomaly_enabled": "torch.is_anomaly_enabled",
    "explain": "no torch counterpart: finds an error's entry on the book's page of errors",
}
NAMESPACES = ["", "autograd.", "autograd.functional.", "func.", "nn.", "nn.functional.", "nn.init.", "utils.data.",
              "random."]


def _public(module):
    names = getattr(module, "__all__", None) or dir(module)
    return sorted(n for n in names if not n.startswith("_") and not inspect.ismodule(getattr(module, n)))


def _resolve(root, path):
    for part in path.strip(".").split("."):
        if part:
            root = getattr(root, part)
    return root


@pytest.mark.parametrize("prefix", NAMESPACES)
def test_public_names_exist_in_torch_at_the_same_path(prefix):
    ours, theirs = _resolve(al, prefix), _resolve(torch, prefix)
    missing = [prefix + n for n in _public(ours) if not hasattr(theirs, n) and prefix + n not in EXTRAS]
    assert not missing, f"autograd_lab names with no torch counterpart: {missing}"


def test_every_tensor_method_exists_on_torch_tensors():
    missing = [n for n in dir(al.Tensor) if not n.startswith("_") and not hasattr(torch.Tensor, n)]
    assert not missing


def test_extras_point_at_real_torch_names_where_they_name_one():
    import importlib
    for note in EXTRAS.values():
        if note.startswith("torch."):
            module, _, name = note.rpartition(".")
            assert hasattr(importlib.import_module(module), name), note


@pytest.mark.parametrize("lib_dtype", ["float32", "float64", "float16"])
def test_finfo_prints_and_holds_what_torch_holds(lib_dtype):
    ours, theirs = al.finfo(getattr(al, lib_dtype)), torch.finfo(getattr(torch, lib_dtype))
    assert repr(ours) == repr(theirs)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(ours, field) == getattr(theirs, field), field


def test_iinfo_and_the_refusals_of_both_are_torchs():
    assert repr(al.iinfo(al.int8)) == repr(torch.iinfo(torch.int8))
    assert al.iinfo(al.int64).min == torch.iinfo(torch.int64).min
    for info, dtype in (("finfo", "int32"), ("iinfo", "float32")):
        texts = []
        for lib in (al, torch):
            with pytest.raises(TypeError) as e:
                getattr(lib, info)(getattr(lib, dtype))
            texts.append(str(e.value))
        assert texts[0] == texts[1]


@pytest.mark.parametrize("call", ["x.any()", "x.all()", "x.any(1)", "x.all(0)", "x.any(dim=0, keepdim=True)",
                                  "x.any(dim=(0, 1))", "lib.any(x, 1)", "lib.all(x)", "u.any()", "u.all(0)"])
def test_any_and_all_as_torch(call):
    def run(lib):
        x = lib.tensor([[1., 0.], [0., 0.]])
        u = lib.tensor([[1, 0], [2, 3]], dtype=lib.uint8)
        return eval(call, {"x": x, "u": u, "lib": lib})
    ours, theirs = run(al), run(torch)
    assert ours.numpy().tolist() == theirs.numpy().tolist()
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
