"""Devices: autograd_lab computes on the CPU, with NumPy, and nowhere else.

Code written for PyTorch carries device boilerplate even when it runs on a CPU::

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.ones(3, device=device).to(device)

All of it works here: ``al.device("cpu")``, ``device=`` on every factory, ``.to(device)``,
``.cpu()``, ``al.cuda.is_available()`` (False) and ``al.accelerator``.  Asking for any other
device is refused with torch's words (a CPU build of torch says the same) and ours.
"""
import sys
from types import ModuleType

from . import not_here

_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
          "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class device:
    """A device name, as torch spells it: ``device("cpu")``, ``device("cuda", 0)``,
    ``device("cuda:1")``.  Naming a GPU is allowed; putting a tensor there is not."""
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        if isinstance(type, int):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        name, _, number = str(type).partition(":")
        if name not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of device "
                               f"string: {type}")
        self.type = name
        self.index = int(number) if number else index

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


CPU = device("cpu")


def check(where):
    """The device a tensor may be made on or moved to: the CPU (None means the default,
    which is the CPU).  Anything else raises, in torch's words plus where we stand."""
    if where is None:
        return CPU
    d = where if isinstance(where, device) else device(where)
    if d.type != "cpu":
        raise AssertionError(f"Torch not compiled with CUDA enabled (autograd_lab runs on the CPU only, "
                             f"so there is no device '{d}'; use device='cpu' or leave device out)")
    return CPU


def set_default_device(device):
    """Accepted for the CPU (or None); any other device is refused (see :func:`check`)."""
    check(device)


def get_default_device():
    return CPU


def _no_seed(seed):
    """Seeding a GPU that is not there does nothing, as in torch."""


def _module(name, **functions):
    """A module of these functions, as torch's own (al.cuda is a module, as torch.cuda);
    torch's names it lacks say so (not_here.py)."""
    module = ModuleType(f"autograd_lab.{name}", f"torch.{name}, as it answers on a machine without a GPU")
    module.__dict__.update(functions)
    module.__getattr__ = not_here.module_getattr(f"torch.{name}", module.__name__, f"al.{name}")
    sys.modules[module.__name__] = module
    return module


cuda = _module("cuda", is_available=lambda: False, device_count=lambda: 0,
               manual_seed=_no_seed, manual_seed_all=_no_seed)
accelerator = _module("accelerator", is_available=lambda: False, current_accelerator=lambda: None,
                      device_count=lambda: 0)
