"""``al.utils``: as ``torch.utils``, the data loading tutorials train with (``data``), and
checkpointing, which keeps less for the backward by running blocks again (``checkpoint``)."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.utils", __name__, "al.utils")   # (names torch has: not_here.py)
