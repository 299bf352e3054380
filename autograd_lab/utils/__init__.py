"""``al.utils``: as ``torch.utils``, the data loading tutorials train with (``data``)."""
from . import data

__all__ = ["data"]

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.utils", __name__, "al.utils")   # (names torch has: not_here.py)
