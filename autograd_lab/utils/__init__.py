"""``al.utils``: as ``torch.utils``, the data loading tutorials train with (``data``)."""
from . import data

__all__ = ["data"]
