"""Rows of the rules table that recurrent layers and attention are built from, under the
names torch gives their nodes: a tensor taken apart along a dimension (``unbind``,
``unsafe_chunk``), an output transposed in place (``transpose_``), padded sequences packed
into one tensor of their steps (``pack_padded_sequence``), and the softmax that
scaled_dot_product_attention takes (a row of -inf, every position masked, gives zeros
rather than NaN, as torch's; nn.MultiheadAttention's plain softmax gives NaN there, as
torch's too).

Each is an earlier row's rules under another name: the first four pick entries, as
indexing does (their gradient puts it back where the entries came from); the last is
softmax's.  Their batch rules for vmap are those rows' too.
"""
import numpy as np

from . import batching, more_rules
from .batching import batch_rule
from .core.recording import Op, register
from .core.rules import index, index_forward, transpose

# x.unbind(dim): one node per slice (torch's one node has an output per slice)
unbind = Op("UnbindBackward0", index_forward, vjp=index.vjp, jvp=index.jvp, saves=False)
# x.unsafe_chunk(n, dim): chunk's pieces, which torch does not track as views of x
unsafe_split = Op("UnsafeSplitBackward0", index_forward, vjp=index.vjp, jvp=index.jvp, saves=False)
# x.transpose_(0, 1), as torch's RNN and GRU transpose their output when batch_first
transpose_ = Op("TransposeBackward1", transpose.forward, vjp=transpose.vjp, jvp=transpose.jvp, saves=False)
# pack_padded_sequence: the entries of a padded batch that hold steps, time step by time step
# (torch keeps the batch sizes for its backward: a second backward is refused, as there)
pack_padded = Op("PackPaddedSequenceBackward0", index_forward, vjp=index.vjp, jvp=index.jvp, saves="index")


def _safe_softmax_forward(x, dim):
    """softmax along ``dim``; where every entry is -inf (every position masked), zeros."""
    if x.size == 0:
        return np.array(x)
    top = np.amax(x, axis=dim, keepdims=True)
    e = np.exp(x - np.where(np.isneginf(top), 0, top))
    total = np.sum(e, axis=dim, keepdims=True)
    return np.where(total == 0, 0, e / total).astype(x.dtype, copy=False)


# its rules are softmax's, which read the output only: zero rows stay zero
safe_softmax = Op("SafeSoftmaxBackward0", _safe_softmax_forward, vjp=more_rules.softmax.vjp,
                  jvp=more_rules.softmax.jvp, saves="output")

register(globals())
batching.register(batch_rule(index), unbind, unsafe_split, pack_padded)
batching.register(batch_rule(transpose), transpose_)
batching.register(batch_rule(more_rules.softmax), safe_softmax)
