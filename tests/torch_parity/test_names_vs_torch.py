"""A name autograd_lab shares with torch is the same kind of thing there: a function or a
class where torch's is callable (``al.vmap(f)(x)``, as ``torch.vmap(f)(x)``), a module
where torch's is one (``al.cuda``, ``al.func``), a value where torch's is a value
(``al.float32``) -- at the top level and among Tensor's attributes."""
import inspect

import pytest

torch = pytest.importorskip("torch")

import autograd_lab as al  # noqa: E402
import autograd_lab.func  # noqa: E402,F401  (al.func loads when first asked for)


def kind(obj):
    return "a module" if inspect.ismodule(obj) else "callable" if callable(obj) else "a value"


def shared(ours, theirs, names):
    return sorted(n for n in names if hasattr(theirs, n) and hasattr(ours, n))


def test_every_top_level_name_torch_also_has_is_the_same_kind_of_thing():
    names = shared(al, torch, (n for n in dir(al) if not n.startswith("_")))
    assert len(names) > 150
    differ = [f"al.{n} is {kind(getattr(al, n))}, torch.{n} {kind(getattr(torch, n))}"
              for n in names if kind(getattr(al, n)) != kind(getattr(torch, n))]
    assert not differ, "\n".join(differ)


def test_vmap_is_a_function_at_the_top_level_as_in_torch():
    x = al.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert al.vmap is al.func.vmap
    assert al.vmap(lambda row: row.sum())(x).tolist() == torch.vmap(lambda row: row.sum())(
        torch.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist() == [3.0, 7.0]


def test_every_tensor_attribute_torch_also_has_is_the_same_kind_of_thing():
    builtin = set(dir(object))
    names = shared(al.Tensor, torch.Tensor, (n for n in dir(al.Tensor) if n not in builtin))
    assert len(names) > 180
    differ = [f"Tensor.{n} is {kind(getattr(al.Tensor, n))} here, {kind(getattr(torch.Tensor, n))} in torch"
              for n in names if kind(getattr(al.Tensor, n)) != kind(getattr(torch.Tensor, n))]
    assert not differ, "\n".join(differ)
