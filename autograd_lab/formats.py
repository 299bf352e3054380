"""Memory formats: the order in which a tensor's numbers lie in memory.

Row by row (``al.contiguous_format``, what a new tensor has), or with the channels last
(``al.channels_last``: an N, C, H, W tensor whose numbers lie as N, H, W, C), or as the
input's (``al.preserve_format``).  NumPy can hold any of these layouts (an array of any
strides), and keeps them through its operations, as torch does; ``x.to(memory_format=)``,
``x.contiguous(memory_format=)``, ``al.empty(..., memory_format=)`` and the ``*_like``
factories lay numbers out so (storage.py, creation.py).
"""
import numpy as np


class memory_format:
    """How a 4-d (or 5-d) tensor's numbers are laid out: row by row
    (``al.contiguous_format``), or with the channels last (``al.channels_last``: N, H, W, C
    in memory for an N, C, H, W tensor), or as the input was (``al.preserve_format``)."""

    def __init__(self, name, order=None):
        self.name, self.order = name, order

    def __repr__(self):
        return f"al.{self.name}"

    def check(self, ndim):
        if self.order is not None and len(self.order) != ndim:
            raise RuntimeError(f"required rank {len(self.order)} tensor to use {self.name} format")


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last", (0, 2, 3, 1))
channels_last_3d = memory_format("channels_last_3d", (0, 2, 3, 4, 1))


def laid_out(array, fmt):
    """``array``'s numbers laid out in memory format ``fmt`` (a copy unless they are
    already; NumPy keeps a strided layout through its operations, as torch does)."""
    if fmt is None or fmt is preserve_format:
        return array
    if fmt is contiguous_format:
        return np.ascontiguousarray(array)
    fmt.check(array.ndim)
    order = fmt.order
    return np.ascontiguousarray(array.transpose(order)).transpose(np.argsort(order))


def is_laid_out(array, fmt):
    if fmt is None or fmt is contiguous_format:
        return array.flags.c_contiguous
    if fmt.order is None or len(fmt.order) != array.ndim:
        return False
    return array.transpose(fmt.order).flags.c_contiguous
