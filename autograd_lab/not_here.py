"""When code asks autograd_lab for a torch name it does not have, the error says so.

    >>> al.nn.LSTM
    NotInAutogradLab: torch.nn.LSTM is not implemented in autograd_lab (al.nn has 24 of
    torch.nn's 178 public names: dir(al.nn) lists them)
    >>> al.nn.Lnear
    AttributeError: module 'autograd_lab.nn' has no attribute 'Lnear'. Did you mean: 'Linear'?

A name torch has (torch 2.13's public names, in ``torch_names.json`` beside this module,
written by ``tools/torch_usage.py names`` from the repository's usage/torch_api.json) but
autograd_lab lacks raises :class:`NotInAutogradLab`, naming it in torch's spelling.  A
name torch does not have either is a typo, and gets Python's usual AttributeError, with a
"Did you mean" where one of autograd_lab's names is close.  Covered: ``al.*``, ``al.nn``,
``al.nn.functional``, ``al.nn.init``, ``al.optim``, ``al.utils``, ``al.utils.data``,
``al.func``, ``al.autograd`` (and its ``functional``, ``forward_ad``, ``graph``),
``al.cuda``, ``al.backends``, ``al.amp``, ``al.accelerator``, ``al.distributions``,
``al.optim.lr_scheduler``, ``al.nn.utils`` (and its ``rnn``), ``al.random``; the
attributes of tensors, modules, optimizers and data loaders.

**Why the error is both an AttributeError and a NotImplementedError.**  Reading a missing
attribute must stay an AttributeError: ``hasattr(x, name)`` and ``getattr(x, name,
default)`` answer "no" only for AttributeError, and code asks them to probe what a
library has (``if hasattr(torch.backends, "mps")``; tools/torch_usage.py counts a name as
missing that way).  A NotImplementedError would leak out of those probes as a crash.  But
the learner reading the traceback should see that the name is not theirs to fix, and
``except NotImplementedError`` should catch it: so the class is a subclass of both, its
name says "not in autograd_lab", and its message names the torch function and where to see
what autograd_lab has instead.

The module-level ``__getattr__`` of each package module (PEP 562) asks :func:`error` only
when normal lookup fails, so names that exist cost nothing.  Tensor gets no
``__getattr__`` (CPython would read every attribute of every tensor more slowly): each
torch name it lacks is a stand-in on the class that raises when read (:class:`_Absent`),
left out of ``dir()``; a typo there gets Python's own AttributeError, whose printed
traceback adds the "Did you mean".
"""
import difflib
import dis
import functools
import json
import sys
from pathlib import Path

__all__ = ["NotInAutogradLab", "CannotImportFromAutogradLab"]


class NotInAutogradLab(AttributeError, NotImplementedError):
    """A name torch has and autograd_lab does not: an AttributeError (``hasattr`` says no)
    that is also a NotImplementedError, whose message says which."""


class CannotImportFromAutogradLab(ImportError, NotImplementedError):
    """The same, met by ``from autograd_lab.nn import LSTM``: Python turns every
    AttributeError there into its own "cannot import name" (losing the message), so the
    error is an ImportError from the start."""


# torch namespaces for work that autograd_lab, on NumPy and one CPU, does not do
ELSEWHERE = {
    "torch.cuda": "GPUs", "torch.backends": "GPUs and other accelerators",
    "torch.accelerator": "GPUs and other accelerators", "torch.amp": "mixed precision on GPUs",
    "torch.distributed": "training on several machines", "torch.multiprocessing": "worker processes",
    "torch.jit": "compiling models", "torch.compiler": "compiling models",
    "torch.profiler": "profiling kernels",
    "torch.nn.parallel": "several GPUs", "torch.mps": "Apple GPUs", "torch.xpu": "Intel GPUs",
}

# torch namespaces that work with other programs, and what to do here instead
OTHER_PROGRAMS = {
    "torch.utils.tensorboard": "it writes logs for TensorBoard, a program autograd_lab does not "
                               "use; print the numbers, or plot them with matplotlib",
}


@functools.cache
def torch_names():
    """{"modules": {namespace: [names]}, "members": {class: [names]}} of torch."""
    data = json.loads(Path(__file__).with_name("torch_names.json").read_text())
    return ({ns: frozenset(names) for ns, names in data["modules"].items()},
            {cls: frozenset(names) for cls, names in data["members"].items()})


def error(torch_ns, name, owner, have, label, kind="modules"):
    """The exception for ``name``, missing from ``owner`` (how Python names it: ``module
    'autograd_lab.nn'``, ``'Tensor' object``), which stands for torch's ``torch_ns`` (a
    module, or a class with ``kind="members"``); ``have``: the names it has; ``label``: how
    a reader spells it (``al.nn``)."""
    modules, members = torch_names()
    known = (modules if kind == "modules" else members).get(torch_ns, frozenset())
    if name in known and not name.startswith("_"):
        qualified = f"{torch_ns}.{name}"
        where = next((what for prefix, what in ELSEWHERE.items()
                      if qualified == prefix or qualified.startswith(prefix + ".")), None)
        other = next((why for prefix, why in OTHER_PROGRAMS.items()
                      if qualified == prefix or qualified.startswith(prefix + ".")), None)
        if where:
            reason = f"it is for {where}; autograd_lab computes with NumPy on one CPU"
        elif other:
            reason = other
        else:
            shared = len(known & set(have))
            reason = (f"{label} has {shared} of {torch_ns}'s {len(known)} public names: "
                      f"dir({label}) lists them")
        return NotInAutogradLab(f"{qualified} is not implemented in autograd_lab ({reason})")
    close = difflib.get_close_matches(name, [n for n in have if not n.startswith("_")], n=1, cutoff=0.75)
    hint = f". Did you mean: '{close[0]}'?" if close else ""
    # (the hint is in the message, for Jupyter, which prints no hints of Python's; ``obj``
    # lists no names, so that Python's own printer does not add its hint a second time)
    return AttributeError(f"{owner} has no attribute '{name}'{hint}", name=name, obj=_HINTED)


class _Hinted:
    def __dir__(self):
        return []


_HINTED = _Hinted()


def module_getattr(torch_ns, module_name, label):
    """A package module's ``__getattr__`` (PEP 562): the error for a name it lacks."""
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(f"module '{module_name}' has no attribute '{name}'")
        found = error(torch_ns, name, f"module '{module_name}'", dir(sys.modules[module_name]), label)
        if isinstance(found, NotInAutogradLab) and _importing():
            raise CannotImportFromAutogradLab(f"cannot import name '{name}' from '{module_name}': "
                                              f"{found}", name=module_name)
        raise found
    return __getattr__


def _importing():
    """Whether the code asking is a ``from ... import`` statement (its frame is at one)."""
    frame = sys._getframe(2)
    return frame is not None and dis.opname[frame.f_code.co_code[frame.f_lasti]] == "IMPORT_FROM"


def class_getattr(torch_cls, label):
    """A class's ``__getattr__`` (called only when normal lookup fails), for its instances."""
    def __getattr__(self, name):
        if name.startswith("_"):          # (private names and protocols: Python's own error)
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        raise error(torch_cls, name, f"'{type(self).__name__}' object", dir(type(self)), label,
                    kind="members")
    return __getattr__


class _Absent:
    """A name of torch's Tensor that Tensor lacks, on the class: reading it (from a tensor
    or from the class) raises NotInAutogradLab, so ``hasattr`` says no; ``dir()`` leaves
    it out (``hidden``: tensor.py).  On the class rather than in a ``__getattr__``, because
    CPython reads the attributes of a class with a ``__getattr__`` more slowly: a loop of
    small operations took about 5% more instructions (callgrind)."""
    hidden = True

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, cls=None):
        have = [n for n in dir(cls) if n != self.name]
        raise error("torch.Tensor", self.name, f"'{cls.__name__}' object", have, "al.Tensor",
                    kind="members")


def install(tensor, optimizer, data_loader):
    """Give tensors, optimizers and data loaders the errors for torch's names they lack
    (nn.Module's own ``__getattr__`` asks :func:`error`).  A method Tensor gets later
    (``install`` of tensor.py) takes the place of the name's stand-in."""
    for name in torch_names()[1]["torch.Tensor"]:
        if not name.startswith("_") and not any(name in k.__dict__ for k in tensor.__mro__):
            absent = _Absent()
            absent.__set_name__(tensor, name)
            setattr(tensor, name, absent)
    optimizer.__getattr__ = class_getattr("torch.optim.Optimizer", "al.optim.Optimizer")
    data_loader.__getattr__ = class_getattr("torch.utils.data.DataLoader", "al.utils.data.DataLoader")
