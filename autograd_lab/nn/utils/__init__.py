"""``al.nn.utils``: ``rnn`` (packing sequences of different lengths for the recurrent
layers)."""
from . import rnn

__all__ = ["rnn"]
