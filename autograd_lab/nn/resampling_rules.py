"""Rows of the rules table for the layers that move pixels: padding (with a constant, by
reflection, by replication), resizing (F.interpolate's nearest, linear, bilinear, bicubic
and trilinear modes) and the pixel shuffles.  (They live beside ``layer_rules.py``, built
on the same :class:`~autograd_lab.recording.Op`.)

Padding with a constant is one row, whose gradient is the same row with the padding
negated (a negative padding crops).  The others are linear maps that act on each spatial
dimension separately: output entry i of a dimension is a weighted sum of a few input
entries along it, its *taps* -- one for reflected or replicated padding and for the
nearest neighbour, two for linear interpolation, four for bicubic.  A map is given by its
taps, per dimension: ``(index, weight)``, each of shape (taps, output size), the weight
None where every tap counts once.  The map and its adjoint (which adds each output's
gradient back at its taps) are a pair of rows, each the other's derivative (as a
pooling's, ``layer_rules.linear_pair``); torch names the pair after the layer.

Every rule reads the last dimensions only, so a batch of seeds or tangents in front rides
along, and so does vmap's batch: each row's batch rule is the row itself.
"""
import numpy as np

from .. import batching
from ..recording import Op, name_by_call, register
from .layer_rules import in_front, linear_pair


# -- a constant: zeros (or ``value``) around the input; a negative padding crops ------------
def _constant_pad(x, pads, value=0):
    """x with ``pads`` ((before, after) for each of its last dimensions, in order) added,
    filled with ``value``; a negative amount crops that side."""
    d = len(pads)
    x = x[(Ellipsis,) + tuple(slice(max(-a, 0), n - max(-b, 0)) for (a, b), n in zip(pads, x.shape[x.ndim - d:]))]
    widths = [(0, 0)] * (x.ndim - d) + [(max(a, 0), max(b, 0)) for a, b in pads]
    return np.pad(x, widths, constant_values=value)


def _negated(pads):
    return tuple((-a, -b) for a, b in pads)


constant_pad = Op("ConstantPadNdBackward0", _constant_pad,
                  vjp=(lambda g, y, x, pads, value=0: constant_pad(g, pads=_negated(pads)),),
                  jvp=(lambda t, y, x, pads, value=0: constant_pad(t, pads=pads),),
                  saves=False)


# -- maps given by their taps, one dimension after another --------------------------------------
def gather_taps(x, *, taps, sizes=None):
    """Each of x's last ``len(taps)`` dimensions replaced by the weighted sums its taps say
    (``sizes``, the input's sizes, is the adjoint's: unused here)."""
    d = len(taps)
    for i, (index, weight) in enumerate(taps):
        axis = x.ndim - d + i
        if weight is None:
            x = np.take(x, index[0], axis=axis)
            continue
        along = (-1,) + (1,) * (d - 1 - i)             # a weight per entry of that axis
        x = sum(np.take(x, j, axis=axis) * w.reshape(along) for j, w in zip(index, weight))
    return x


def spread_taps(g, *, taps, sizes):
    """The adjoint of :func:`gather_taps`: each output's gradient added back, weighted, at
    its taps, into an input of ``sizes`` -- the last dimension first."""
    d = len(taps)
    for i in reversed(range(d)):
        index, weight = taps[i]
        moved = np.moveaxis(g, g.ndim - d + i, -1)
        out = np.zeros(moved.shape[:-1] + (sizes[i],), g.dtype)
        for k, j in enumerate(index):
            np.add.at(out, (Ellipsis, j), moved if weight is None else moved * weight[k])
        g = np.moveaxis(out, -1, g.ndim - d + i)
    return g


def _torch_name(args, p):
    """torch's name for the layer the taps stand for, ``kind`` + Backward0: one of
    ReflectionPad1DBackward0, ReflectionPad2DBackward0, ReflectionPad3DBackward0,
    ReplicationPad1DBackward0, ReplicationPad2DBackward0, ReplicationPad3DBackward0,
    UpsampleNearest1DBackward0, UpsampleNearest2DBackward0, UpsampleNearest3DBackward0,
    UpsampleNearestExact1DBackward0, UpsampleNearestExact2DBackward0,
    UpsampleNearestExact3DBackward0, UpsampleLinear1DBackward0, UpsampleBilinear2DBackward0,
    UpsampleBicubic2DBackward0, UpsampleTrilinear3DBackward0."""
    return p["kind"] + "Backward0"


def _torch_name_of_gradient(args, p):
    """The name of the node the gradient of those layers records: ``kind`` +
    BackwardBackward0 (ReflectionPad2DBackwardBackward0, ...)."""
    return p["kind"] + "BackwardBackward0"


def adjoint_pair(name, forward, adjoint_name, adjoint):
    """Rows for a map linear in its one input and for its adjoint, each the other's VJP.
    (A pooling's pair, ``layer_rules.linear_pair``, also hands the adjoint the input, as
    torch's backward of a pooling reads it; torch's backward of these reads sizes only.)"""
    there = Op(name, forward,
               vjp=(lambda g, y, x, **p: back(g, **p),),
               jvp=(lambda t, y, x, **p: there(t, **p),),
               saves=False)
    back = Op(adjoint_name, adjoint,
              vjp=(lambda gg, y, g, **p: there(gg, **p),),
              jvp=(lambda t, y, g, **p: back(t, **p),),
              saves=False)
    return there, back


# the reflected and replicated paddings, whose backward torch writes reading the input
# (so a write into the input before the backward is refused), and the resizes (which
# read only sizes); ``kind`` says which layer, for the names
index_pad, index_pad_backward = linear_pair(
    "ReflectionPad2DBackward0", lambda x, *, taps, sizes, kind: gather_taps(x, taps=taps),
    lambda g, *, taps, sizes, kind: spread_taps(g, taps=taps, sizes=sizes), "inputs")
resize, resize_backward = adjoint_pair(
    "UpsampleBilinear2DBackward0", lambda x, *, taps, sizes, kind: gather_taps(x, taps=taps),
    "UpsampleBilinear2DBackwardBackward0", lambda g, *, taps, sizes, kind: spread_taps(g, taps=taps, sizes=sizes))


# -- pixel shuffles: channels into space and back ----------------------------------------------
def _shuffle(x, r):
    """(..., C r², H, W) -> (..., C, H r, W r): each group of r² channels tiles an r x r block."""
    *lead, c, h, w = x.shape
    blocks = x.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    blocks = blocks.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return blocks.reshape(*lead, c // (r * r), h * r, w * r)


def _unshuffle(x, r):
    """(..., C, H r, W r) -> (..., C r², H, W), the inverse of :func:`_shuffle`."""
    *lead, c, h, w = x.shape
    blocks = x.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    blocks = blocks.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return blocks.reshape(*lead, c * r * r, h // r, w // r)


# a permutation of the entries: each is the other's inverse, and so its adjoint
pixel_shuffle, pixel_unshuffle = adjoint_pair("PixelShuffleBackward0", lambda x, *, r: _shuffle(x, r),
                                              "PixelUnshuffleBackward0", lambda x, *, r: _unshuffle(x, r))


name_by_call({index_pad: _torch_name, resize: _torch_name,
              index_pad_backward: _torch_name_of_gradient, resize_backward: _torch_name_of_gradient})
register(globals())
batching.register(in_front, constant_pad, index_pad, index_pad_backward, resize, resize_backward,
                  pixel_shuffle, pixel_unshuffle)
