"""Tutorial code runs as written: each snippet of tutorial_snippets.py is run unmodified,
with ``torch`` bound to PyTorch and to autograd_lab, and what it prints must agree (the
same text, numbers equal to 4 significant digits).  Random numbers would differ, so the
PyTorch run draws its random tensors -- nn.Linear and nn.Conv2d their first weights,
Tensor.normal_/uniform_ their numbers, torch.multinomial its draws, a shuffling DataLoader its orders -- from
autograd_lab's generator (see _TorchDrawingOurNumbers): the comparison is of the
libraries, not of their generators."""
import builtins
import contextlib
import io
import random
import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to run tutorial code through both libraries")

import autograd_lab as al  # noqa: E402

from tutorial_snippets import SNIPPETS  # noqa: E402


def _to_al(x):
    return al.tensor(x.detach().numpy()) if isinstance(x, torch.Tensor) else x


def _drawn(name):
    """torch.<name>, its numbers drawn by autograd_lab's generator."""
    def draw(*args, dtype=None, device=None, requires_grad=False, **kwargs):
        t = torch.from_numpy(getattr(al, name)(*map(_to_al, args), **kwargs).numpy().copy())
        t = t if dtype is None else t.to(dtype)
        return t.requires_grad_() if requires_grad else t
    return draw


def _our_uniform(module, fan_in):
    """The first weights autograd_lab's layers draw (weight, then bias, in ±1/√fan_in)."""
    with torch.no_grad():
        for p in (module.weight, module.bias):
            if p is not None:
                bound = 1 / fan_in ** 0.5
                p.copy_(torch.from_numpy((al.rand(*p.shape) * (2 * bound) - bound).numpy()))


class _OurLinear(torch.nn.Linear):
    def reset_parameters(self):
        _our_uniform(self, self.in_features)


class _OurConv2d(torch.nn.Conv2d):
    def reset_parameters(self):
        _our_uniform(self, self.in_channels // self.groups * self.kernel_size[0] * self.kernel_size[1])


class _OurRandomSampler(torch.utils.data.RandomSampler):
    def __iter__(self):
        return iter(al.randperm(len(self.data_source)).tolist())


class _OurDataLoader(torch.utils.data.DataLoader):
    def __init__(self, dataset, batch_size=1, shuffle=None, *args, **kwargs):
        if shuffle:
            kwargs["sampler"] = _OurRandomSampler(dataset)
        super().__init__(dataset, batch_size, None, *args, **kwargs)


for _cls, _name in ((_OurLinear, "Linear"), (_OurConv2d, "Conv2d"), (_OurDataLoader, "DataLoader")):
    _cls.__name__ = _cls.__qualname__ = _name                   # (it prints as torch's)


@contextlib.contextmanager
def _tensors_refilled_by_us():
    """torch.Tensor.normal_ and uniform_ draw from autograd_lab's generator, for a while."""
    saved = torch.Tensor.normal_, torch.Tensor.uniform_

    def normal_(self, mean=0, std=1, *, generator=None):
        with torch.no_grad():
            return self.copy_(torch.from_numpy(al.normal(mean, std, tuple(self.shape)).numpy()))

    def uniform_(self, from_=0, to=1, *, generator=None):
        with torch.no_grad():
            return self.copy_(torch.from_numpy((al.rand(*self.shape) * (to - from_) + from_).numpy()))
    torch.Tensor.normal_, torch.Tensor.uniform_ = normal_, uniform_
    try:
        yield
    finally:
        torch.Tensor.normal_, torch.Tensor.uniform_ = saved


class _Namespace:
    def __init__(self, module, **overrides):
        self._module, self._overrides = module, overrides

    def __getattr__(self, name):
        return self._overrides[name] if name in self._overrides else getattr(self._module, name)


_DRAWN = {name: _drawn(name) for name in ("randn", "rand", "randint", "randn_like", "rand_like", "normal",
                                          "randperm", "multinomial")}
_TorchDrawingOurNumbers = _Namespace(torch, manual_seed=al.manual_seed, Generator=al.Generator,
                                     nn=_Namespace(torch.nn, Linear=_OurLinear, Conv2d=_OurConv2d),
                                     utils=_Namespace(torch.utils, data=_Namespace(torch.utils.data,
                                                                                   DataLoader=_OurDataLoader)),
                                     **_DRAWN)


def run(code, lib):
    """What the snippet prints, with `import torch` (and torch.x.y) giving ``lib``."""
    bound = al if lib is al else _TorchDrawingOurNumbers

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "torch" or name.startswith("torch."):
            return bound if not fromlist or name == "torch" else _resolve(bound, name)
        return builtins.__import__(name, globals, locals, fromlist, level)
    al.manual_seed(0)
    random.seed(0)
    out = io.StringIO()
    namespace = {"__builtins__": dict(vars(builtins), __import__=importer), "__name__": "snippet"}
    refilled = _tensors_refilled_by_us() if lib is torch else contextlib.nullcontext()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(), refilled:
        warnings.simplefilter("ignore")
        exec(compile(code, "<snippet>", "exec"), namespace)
    return out.getvalue()


def _resolve(root, dotted):
    for part in dotted.split(".")[1:]:
        root = getattr(root, part)
    return root


_NUMBER = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")


def _normalized(text):
    """Printed forms that differ by design: dtype and Size spellings, object addresses."""
    text = re.sub(r"torch\.Size\(\[([^\]]*)\]\)", lambda m: f"({m.group(1)}{',' if ',' not in m.group(1) and m.group(1) else ''})", text)
    text = re.sub(r" object at 0x[0-9a-f]+", "", text)
    text = re.sub(r"<torch\.autograd\.function\.(\w+)>", r"<\1>", text)
    return text.replace("torch.", "al.")


def agree(ours, theirs):
    a, b = _normalized(ours), _normalized(theirs)
    if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
        return False
    x, y = (np.array([float(v) for v in _NUMBER.findall(t)]) for t in (a, b))
    return np.allclose(x, y, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_tutorial_snippet_runs_and_agrees_with_torch(name):
    theirs = run(SNIPPETS[name], torch)
    ours = run(SNIPPETS[name], al)
    assert theirs and agree(ours, theirs), f"\n--- autograd_lab\n{ours}\n--- torch\n{theirs}"
