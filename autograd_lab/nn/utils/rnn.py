"""``al.nn.utils.rnn``, as torch's: a batch of sequences of different lengths, padded to
one length (``pad_sequence``) or packed into the steps that exist (``PackedSequence``,
``pack_padded_sequence``, ``pack_sequence``), which the recurrent layers accept and run
step by step over the sequences still going; and back (``pad_packed_sequence``).

A packed sequence lists, time step after time step, the entries of the sequences that
have that step: sequences sorted longest first, ``batch_sizes[t]`` of them at step t.
Packing is one row (``sequence_rules.pack_padded``); unpacking writes the packed steps
into padding, as torch does (its node is a CopySlices).
"""
from collections import namedtuple
from collections.abc import Iterable

import numpy as np

from ... import creation, sequence_rules
from ...core import dtypes
from ...core.checks import tensor_of, wrap_dim
from ...core.tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """The steps of a batch of sequences, packed (see the module's docstring): ``data``
    (steps, *), ``batch_sizes`` (how many sequences have each step), and the order the
    sequences were sorted into (``sorted_indices``) and its inverse, or None when they came
    sorted.  Made by pack_padded_sequence and pack_sequence, not by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:                   # PackedSequence((data, batch_sizes), ...)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else type(self)(data, self.batch_sizes, self.sorted_indices,
                                                         self.unsorted_indices)

    def cpu(self):
        return self

    def double(self):
        return self.to(dtype=dtypes.float64)

    def float(self):
        return self.to(dtype=dtypes.float32)

    def half(self):
        return self.to(dtype=dtypes.float16)

    def long(self):
        return self.to(dtype=dtypes.int64)

    def int(self):
        return self.to(dtype=dtypes.int32)

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None for None)."""
    if permutation is None:
        return None
    order = np.empty_like(permutation._data)
    order[permutation._data] = np.arange(permutation.numel())
    return creation.tensor(order)


def _lengths_of(lengths):
    if isinstance(lengths, Tensor):
        return lengths.to(dtypes.int64)
    return creation.tensor(np.asarray(lengths, dtype=np.int64))


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) -- (B, T, *) with ``batch_first`` -- of sequences of
    ``lengths``: sorted longest first, or sorted here (``enforce_sorted=False``, and
    unsorted again by pad_packed_sequence and the recurrent layers' hidden states)."""
    lengths = _lengths_of(lengths)
    sorted_indices = None
    if not enforce_sorted:
        numbers = lengths._data
        order = np.argsort(-numbers, kind="stable")     # longest first, ties in their order
        lengths, sorted_indices = creation.tensor(numbers[order]), creation.tensor(order)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack(input, lengths._data, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pack(input, lengths, batch_first):
    """torch's checks, then the packed steps: one row picking, step after step, the
    entries of the sequences that have it."""
    batch_dim = 0 if batch_first else 1
    steps_dim = 1 - batch_dim
    if input.ndim < 2:
        wrap_dim(1, input.ndim)                           # torch's IndexError
    batch = input.shape[batch_dim]
    if lengths.ndim != 1 or lengths.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.size} "
                           f"(batch_size={batch})")
    if (lengths <= 0).any():
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if (np.diff(lengths) > 0).any():
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                           "this requirement if you do not need ONNX exportability.")
    if lengths[0] > input.shape[steps_dim]:              # (torch reads past the end of the input)
        raise RuntimeError(f"autograd_lab: a sequence's length ({lengths[0]}) is longer than the padded "
                           f"sequences ({input.shape[steps_dim]} steps)")
    batch_sizes = (lengths[None, :] > np.arange(lengths[0])[:, None]).sum(1)
    steps = np.repeat(np.arange(len(batch_sizes)), batch_sizes)
    rows = np.concatenate([np.arange(n) for n in batch_sizes])
    key = (rows, steps) if batch_first else (steps, rows)
    return sequence_rules.pack_padded(input, key=key), creation.tensor(batch_sizes.astype(np.int64))


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch a packed sequence came from, (T, B, *) or (B, T, *), and the
    sequences' lengths; ``total_length`` pads to that many steps."""
    data, batch_sizes = sequence.data, sequence.batch_sizes._data
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    batch = int(batch_sizes[0])
    out = creation.full((steps, batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    offset, start = 0, 0
    for t in range(len(batch_sizes) + 1):      # each run of steps of one batch size, written at once
        size = int(batch_sizes[t]) if t < len(batch_sizes) else 0
        if t and size != int(batch_sizes[t - 1]):
            n, run = int(batch_sizes[t - 1]), t - start
            out[start:t, :n] = data[offset:offset + run * n].view(run, n, *data.shape[1:])
            offset, start = offset + run * n, t
    lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(1)
    if batch_first:
        out = out.transpose(0, 1)
    lengths = creation.tensor(lengths.astype(np.int64))
    if sequence.unsorted_indices is not None:
        return (out.index_select(0 if batch_first else 1, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices])
    return out, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Sequences (L_i, *) padded with ``padding_value`` to the longest, in one tensor
    (T, B, *) or (B, T, *); ``padding_side="left"`` pads before them."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    sequences = [tensor_of(s) for s in sequences]
    longest = max(s.shape[0] if s.ndim else 0 for s in sequences)
    rest = tuple(sequences[0].shape[1:])
    shape = (len(sequences), longest) + rest if batch_first else (longest, len(sequences)) + rest
    out = creation.full(shape, padding_value, dtype=sequences[0].dtype)
    for i, s in enumerate(sequences):
        steps = slice(0, s.shape[0]) if padding_side == "right" else slice(longest - s.shape[0], longest)
        if batch_first:
            out[i, steps] = s
        else:
            out[steps, i] = s
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The sequences of a padded batch, each cut to its length (by a mask, as torch), as a
    list.  (torch transposes a time-first batch in place, recording TransposeBackward1;
    here the batch given is left as it was, the same node recorded on a transposed copy.)"""
    if not batch_first:
        padded_sequences = sequence_rules.transpose_(padded_sequences, dim0=-padded_sequences.ndim,
                                                     dim1=1 - padded_sequences.ndim)
    steps = np.arange(padded_sequences.shape[1])
    return [seq[creation.tensor(steps < n)] for seq, n in zip(padded_sequences, lengths._data.tolist())]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences (L_i, *): pad_sequence, then pack_padded_sequence."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a packed sequence holds."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


from ... import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.nn.utils.rnn", __name__, "al.nn.utils.rnn")   # (names torch has: not_here.py)
