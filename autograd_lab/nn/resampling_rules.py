"""Rows of the rules table for the layers that move pixels: padding (with a constant, by
reflection, by replication), resizing (F.interpolate's nearest, linear, bilinear, bicubic
and trilinear modes) and the pixel shuffles.  (They live beside ``layer_rules.py``, built
on the same :class:`~autograd_lab.core.recording.Op`.)

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
from ..core import rules
from ..core.checks import tensor_of
from ..core.recording import Op, name_by_call, register
from ..core.tensor import Tensor
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


def _kind_name(kind, names):
    """The one of ``names`` that is the layer ``kind`` names (ReflectionPad2D, ...): a row
    standing for several of torch's layers has their names."""
    return next(n for n in names if n.startswith(kind + "Backward"))


def _pad_name(args, p):
    return _kind_name(p["kind"], ("ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0",
                                  "ReplicationPad1DBackward0", "ReplicationPad2DBackward0",
                                  "ReplicationPad3DBackward0"))


def _pad_gradient_name(args, p):
    return _kind_name(p["kind"], (
        "ReflectionPad1DBackwardBackward0", "ReflectionPad2DBackwardBackward0", "ReflectionPad3DBackwardBackward0",
        "ReplicationPad1DBackwardBackward0", "ReplicationPad2DBackwardBackward0", "ReplicationPad3DBackwardBackward0"))


def _resize_name(args, p):
    return _kind_name(p["kind"], (
        "UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0", "UpsampleNearest3DBackward0",
        "UpsampleNearestExact1DBackward0", "UpsampleNearestExact2DBackward0", "UpsampleNearestExact3DBackward0",
        "UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0", "UpsampleBicubic2DBackward0",
        "UpsampleTrilinear3DBackward0"))


def _resize_gradient_name(args, p):
    return _kind_name(p["kind"], (
        "UpsampleNearest1DBackwardBackward0", "UpsampleNearest2DBackwardBackward0",
        "UpsampleNearest3DBackwardBackward0",
        "UpsampleNearestExact1DBackwardBackward0", "UpsampleNearestExact2DBackwardBackward0",
        "UpsampleNearestExact3DBackwardBackward0", "UpsampleLinear1DBackwardBackward0",
        "UpsampleBilinear2DBackwardBackward0", "UpsampleBicubic2DBackwardBackward0",
        "UpsampleTrilinear3DBackwardBackward0"))


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


# a permutation of the entries: each is the other's inverse, and so its adjoint (two layers
# of their own, unlike adjoint_pair's backward: the gradient arriving at either is its g)
pixel_shuffle = Op("PixelShuffleBackward0", lambda x, *, r: _shuffle(x, r),
                   vjp=(lambda g, y, x, *, r: pixel_unshuffle(g, r=r),),
                   jvp=(lambda t, y, x, *, r: pixel_shuffle(t, r=r),), saves=False)
pixel_unshuffle = Op("PixelUnshuffleBackward0", lambda x, *, r: _unshuffle(x, r),
                     vjp=(lambda g, y, x, *, r: pixel_shuffle(g, r=r),),
                     jvp=(lambda t, y, x, *, r: pixel_unshuffle(t, r=r),), saves=False)


# -- grid sampling: each output pixel reads the input at a place the grid gives -----------------
def grid_places(g, size, padding, corners):
    """Where grid coordinates g (in [-1, 1]) fall along a dimension of ``size`` pixels, and
    how fast they move with g: (place, slope), numbers.  The padding folds places outside
    back in: "border" clips them (slope 0 outside), "reflection" mirrors them at the edges
    (slope flipped on every mirror image), as torch's grid sampler does."""
    place = ((g + 1) / 2) * (size - 1) if corners else ((g + 1) * size - 1) / 2
    slope = np.full(np.shape(g), (size - 1) / 2 if corners else size / 2, dtype=np.result_type(g, np.float32))
    if padding == "reflection":
        low, high = (0, 2 * (size - 1)) if corners else (-1, 2 * size - 1)
        if low == high:
            place, slope = np.zeros_like(place), slope * 0
        else:
            low, span = low / 2, (high - low) / 2
            offset = place - low
            slope = slope * np.where(offset < 0, -1, 1)
            offset = np.abs(offset)
            extra, odd = np.fmod(offset, span), np.floor(offset / span) % 2 == 1
            place, slope = np.where(odd, span - extra + low, extra + low), slope * np.where(odd, -1, 1)
    if padding in ("border", "reflection"):
        slope = slope * ((place > 0) & (place < size - 1))
        place = np.clip(place, 0, size - 1)
    return place.astype(slope.dtype, copy=False), slope


def grid_taps(grid, *, image, mode, padding, corners):
    """The taps of a grid sample of an input whose images are ``image`` = (C, H, W): for
    each input pixel an output pixel reads, (key into the input (N, C, H, W), weight,
    d weight / d x place, d weight / d y place), the weights (N, Ho, Wo) computed with the
    grid's own operations (tensors when the grid is one, so that a recorded gradient
    differentiates again); and the places' slopes (x, y)."""
    C, H, W = image
    numbers = grid._data if isinstance(grid, Tensor) else grid
    (px, sx), (py, sy) = grid_places(numbers[..., 0], W, padding, corners), grid_places(numbers[..., 1], H, padding,
                                                                                        corners)
    N = numbers.shape[0]
    batch, channel = np.arange(N).reshape(N, 1, 1, 1), np.arange(C).reshape(1, C, 1, 1)

    def tap(xi, yi):
        """(key, inside): the pixel at (yi, xi), and 1 where it is in the image (else 0)."""
        inside = ((xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)).astype(numbers.dtype)
        return (batch, channel, np.clip(yi, 0, H - 1)[:, None], np.clip(xi, 0, W - 1)[:, None]), inside
    if mode == "nearest":                               # (torch rounds half to even)
        key, inside = tap(np.rint(px).astype(np.int64), np.rint(py).astype(np.int64))
        zero = np.zeros(numbers.shape[:-1], numbers.dtype)
        return [(key, inside, zero, zero)], (sx, sy)
    x0, y0 = np.floor(px), np.floor(py)
    # where each place is past x0 and y0, as the grid's functions: g * slope + a number
    fx = grid[..., 0] * sx + (px - numbers[..., 0] * sx - x0)
    fy = grid[..., 1] * sy + (py - numbers[..., 1] * sy - y0)
    taps = []
    for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):     # the four pixels around the place
        key, inside = tap((x0 + dx).astype(np.int64), (y0 + dy).astype(np.int64))
        wx, wy = (fx if dx else 1 - fx), (fy if dy else 1 - fy)
        taps.append((key, wx * wy * inside, (1 if dx else -1) * wy * inside, (1 if dy else -1) * wx * inside))
    return taps, (sx, sy)


def _taps_of(x, grid, p):
    return grid_taps(grid, image=tuple(x.shape[-3:]), **p)


def _grid_sample_forward(x, grid, **p):
    taps, _ = _taps_of(x, grid, p)
    return sum(x[(Ellipsis,) + key] * w[:, None] for key, w, _, _ in taps)


def _to_input(g, y, x, grid, **p):
    """The input's gradient: each output's gradient added back, weighted, at its taps."""
    taps, _ = _taps_of(x, grid, p)
    lead = g.ndim - y.ndim
    return sum(rules.scatter(g * w[:, None], shape=tuple(x.shape), key=key, lead=lead) for key, w, _, _ in taps)


def _to_grid(g, y, x, grid, **p):
    """The grid's gradient: how the sampled numbers change as each place moves along x and
    along y, times how the places move with the grid (the slopes)."""
    taps, (sx, sy) = _taps_of(x, grid, p)
    along_x = sum(rules.sum(g * rules.index(x, key=key) * dx[:, None], -3) for key, _, dx, _ in taps)
    along_y = sum(rules.sum(g * rules.index(x, key=key) * dy[:, None], -3) for key, _, _, dy in taps)
    return rules.stack(along_x * sx, along_y * sy, dim=-1)


def _grid_tangent(t, y, x, grid, **p):
    """The output's tangent as the grid's tangent t moves the places."""
    taps, (sx, sy) = _taps_of(x, grid, p)
    mx, my = t[..., 0] * sx, t[..., 1] * sy
    return sum(rules.index(x, key=key) * rules.unsqueeze(mx * dx + my * dy, -3) for key, _, dx, dy in taps)


# linear in the input; in the grid, bilinear interpolation is piecewise bilinear (its
# second derivatives come from the same taps, recorded)
grid_sample = Op("GridSampler2DBackward0", _grid_sample_forward,
                 vjp=(_to_input, _to_grid),
                 jvp=(lambda t, y, x, grid, **p: grid_sample(t, grid, **p), _grid_tangent),
                 saves="inputs")


def _batch_grid_sample(op, n, x, grid, **p):
    """The batch folded into the images' N: input and grid each get every batch dimension."""
    sizes = np.broadcast_shapes(x.shape[:n], grid.shape[:n])
    x, grid = (a if a.shape[:n] == sizes else rules.expand(a, shape=sizes + a.shape[n:]) for a in (x, grid))
    images = x.shape[n]
    x, grid = (rules.reshape(a, shape=(-1,) + a.shape[n + 1:]) for a in (x, grid))
    out = op(x, grid, **p)
    return rules.reshape(out, shape=sizes + (images,) + out.shape[1:])


# -- affine grids: the places an affine map of the plane sends each output pixel to ------------
def _affine_forward(theta, *, base):
    """Each pixel's (x, y, 1) of ``base`` (H, W, 3) times thetaᵀ (..., N, 3, 2)."""
    H, W, _ = base.shape
    out = base.reshape(H * W, 3) @ np.swapaxes(theta, -1, -2)
    return out.reshape(out.shape[:-2] + (H, W, 2))


def _affine_vjp(g, y, theta, *, base):
    """gᵀ base, per image: each theta entry's share of every place it moved."""
    rows = rules.reshape(g, shape=g.shape[:-3] + (-1, 2))
    return rules.matmul(rules.transpose(rows, -1, -2), tensor_of(base.reshape(-1, 3)))


affine_grid = Op("AffineGridGeneratorBackward0", _affine_forward,
                 vjp=(_affine_vjp,),
                 jvp=(lambda t, y, theta, *, base: affine_grid(t, base=base),),
                 saves=False)


name_by_call({index_pad: _pad_name, index_pad_backward: _pad_gradient_name, resize: _resize_name,
              resize_backward: _resize_gradient_name})
register(globals())
batching.register(in_front, constant_pad, index_pad, index_pad_backward, resize, resize_backward,
                  pixel_shuffle, pixel_unshuffle, affine_grid)
batching.register(_batch_grid_sample, grid_sample)
