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
}
NAMESPACES = ["", "autograd.", "autograd.functional.", "func.", "nn.", "nn.functional."]


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
