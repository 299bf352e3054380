"""``F.pad``, ``F.interpolate`` (and the older ``F.upsample`` names), ``F.pixel_shuffle``,
``F.pixel_unshuffle``, ``F.grid_sample`` and ``F.affine_grid``, with torch's signatures and
checks; ``al.nn.functional`` holds them.
Each works out which entries of the input every output entry reads (and with what
weights), in torch's arithmetic, and calls a row of ``resampling_rules.py``."""
import math
import warnings

import numpy as np

from ..core import dtypes
from .. import creation, functions
from ..batching import is_batched
from . import convolution, resampling_rules

_NON_CONSTANT = ("Supported combinations for non-constant padding:\n"
                 "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                 "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                 "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
_MODES = {"reflect": "Reflection", "replicate": "Replication", "circular": "Circular"}


# -- padding ----------------------------------------------------------------------------------
def pad(input, pad, mode="constant", value=None):
    """Pad the last dimensions of ``input``: ``pad`` lists (before, after) amounts from the
    last dimension backwards, (left, right, top, bottom, ...).  "constant" fills with
    ``value`` (0) and crops where an amount is negative; "reflect" mirrors the input
    without repeating its edge, "replicate" repeats the edge, "circular" wraps around."""
    for i, p in enumerate(pad):
        if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of "
                            f"type {type(p).__name__} at pos {i}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    pairs = tuple((int(pad[k]), int(pad[k + 1])) for k in range(len(pad) - 2, -1, -2))   # first dim first
    if mode == "constant":
        for (a, b), n in zip(pairs, input.shape[input.ndim - len(pairs):]):
            if n + min(a, 0) + min(b, 0) < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        return resampling_rules.constant_pad(input, pads=pairs, value=0 if value is None else value)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    d = len(pairs)
    if not (d in (1, 2, 3) and input.ndim in (d + 1, d + 2)):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                                  + _NON_CONSTANT)
    if mode == "circular":
        return _circular(input, pairs)
    _check_index_pad(mode, input, pairs)
    sizes = tuple(input.shape[-d:])
    taps = tuple(_padding_taps(mode, n, a, b) for n, (a, b) in zip(sizes, pairs))
    return resampling_rules.index_pad(input, taps=taps, sizes=sizes, kind=f"{_MODES[mode]}Pad{d}D")


def _check_index_pad(mode, input, pairs):
    """torch's checks of a reflected or replicated padding, in its order and words."""
    d = len(pairs)
    name = f"{_MODES[mode].lower()}_pad{d}d"
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
    dims = {1: "2D or 3D", 2: "3D or 4D", 3: "4D or 5D"}[d]
    if 0 in input.shape[input.ndim - d - 1:]:
        raise RuntimeError(f"Expected {dims} (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    if mode == "reflect":
        for k, ((a, b), n) in enumerate(zip(reversed(pairs), reversed(input.shape))):
            if a >= n or b >= n:
                raise RuntimeError(f"Argument #{4 + 2 * k}: Padding size should be less than the corresponding "
                                   f"input dimension, but got: padding ({a}, {b}) at dimension "
                                   f"{input.ndim - 1 - k} of input {list(input.shape)}")
    for (a, b), n in zip(pairs, input.shape[input.ndim - d:]):
        if n + a + b < 1:
            raise RuntimeError(f"input (H: {n}) is too small. Calculated output H: {n + a + b}")


def _padding_taps(mode, n, before, after):
    """Which input entry each of the n + before + after output entries copies."""
    i = np.arange(-before, n + after)
    if mode == "reflect":
        i = np.abs(i)
        i = np.where(i > n - 1, 2 * (n - 1) - i, i)
    else:
        i = np.clip(i, 0, n - 1)
    return i[None, :], None


def _circular(input, pairs):
    """Circular padding written as torch writes it: the input copied into the middle of a
    new tensor, then each side's padding copied from the other end of that tensor, one
    dimension after another (so its node is a CopySlices)."""
    d = len(pairs)
    for (a, b), n in zip(pairs, input.shape[input.ndim - d:]):
        if a > n or b > n:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if max(a, b) > n + min(a, 0) + min(b, 0):     # (torch would read memory it never wrote)
            raise RuntimeError(f"autograd_lab: a circular padding of {max(a, b)} wraps around more than once the "
                               f"{n + min(a, 0) + min(b, 0)} entries a negative padding leaves")
    if is_batched(input):                    # (inside vmap, where writes do not batch: out of place)
        return _wrapped(input, pairs)
    sizes = tuple(n + a + b for (a, b), n in zip(pairs, input.shape[input.ndim - d:]))
    out = creation.empty(*input.shape[:input.ndim - d], *sizes, dtype=input.dtype)
    out[(Ellipsis,) + tuple(slice(max(a, 0), s - max(b, 0)) for (a, b), s in zip(pairs, sizes))] = \
        input[(Ellipsis,) + tuple(slice(max(-a, 0), n - max(-b, 0)) for (a, b), n in
                                  zip(pairs, input.shape[input.ndim - d:]))]
    for k in reversed(range(d)):              # the last dimension first, as torch
        (a, b), s, dim = pairs[k], sizes[k], out.ndim - d + k
        if a > 0:
            out.narrow(dim, 0, a).copy_(out.narrow(dim, s - a - max(b, 0), a))
        if b > 0:
            out.narrow(dim, s - b, b).copy_(out.narrow(dim, max(a, 0), b))
    return out


def _wrapped(input, pairs):
    """Circular padding out of place, one dimension after another: the input cropped where
    a padding is negative, then the end of it put before it and its start after it."""
    out, d = input, len(pairs)
    for k, (a, b) in enumerate(pairs):
        dim = out.ndim - d + k
        n = out.shape[dim]
        out = out.narrow(dim, max(-a, 0), n + min(a, 0) + min(b, 0))
        n = out.shape[dim]
        parts = [out.narrow(dim, n - a, a)] * (a > 0) + [out] + [out.narrow(dim, 0, b)] * (b > 0)
        out = functions.cat(parts, dim) if len(parts) > 1 else out
    return out


# -- resizing ---------------------------------------------------------------------------------
_RESIZE = {"nearest": "UpsampleNearest{d}D", "nearest-exact": "UpsampleNearestExact{d}D",
           "linear": "UpsampleLinear1D", "bilinear": "UpsampleBilinear2D", "bicubic": "UpsampleBicubic2D",
           "trilinear": "UpsampleTrilinear3D"}
_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dimensions of ``input`` (N, C, ...) to ``size``, or by
    ``scale_factor``: "nearest" (and "nearest-exact") copy the nearest entry, "linear",
    "bilinear" and "trilinear" blend the two nearest along each dimension, "bicubic" four,
    "area" averages (adaptive average pooling).  ``align_corners=True`` maps the corner
    entries onto each other; False (the default) maps the pixels' outer edges."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear "
                             "| bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    d = input.ndim - 2
    sizes, scales = _output_size(input, size, scale_factor, recompute_scale_factor, mode, d)
    if antialias:
        if not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                             "4-D tensor as input")
        raise NotImplementedError("antialias=True (interpolate's low-pass filter before downsampling) is not "
                                  "implemented in autograd_lab")
    if mode == "area" and input.ndim in (3, 4, 5):
        return _adaptive(input, sizes)
    if mode in _RESIZE and input.ndim in (3, 4, 5) and _NEEDS.get(mode, input.ndim) == input.ndim:
        return _resize(input, sizes, scales, mode, align_corners)
    if mode in _NEEDS and input.ndim in (3, 4, 5) and mode != "bicubic":
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_NEEDS[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
                              "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                              f"nearest-exact (got {mode})")


def _output_size(input, size, scale_factor, recompute_scale_factor, mode, d):
    """(output sizes, the scale factors the kernel reads or None), as torch works them out."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != d:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 "(o1, o2, ...,oK) format.")
            if not all(isinstance(s, (int, np.integer)) for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(s) for s in size]}")
            sizes = [int(s) for s in size]
        else:
            sizes = [int(size)] * d
        scales = None
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != d:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of "
                                 f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                                 "and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * d
        sizes = [int(math.floor(n * s)) for n, s in zip(input.shape[2:], scales)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = None
    return sizes, scales


def _adaptive(input, sizes):
    """mode="area": adaptive average pooling to the output size."""
    pool = (convolution.adaptive_avg_pool1d, convolution.adaptive_avg_pool2d, convolution.adaptive_avg_pool3d)
    return pool[input.ndim - 3](input, sizes[0] if input.ndim == 3 else sizes)


def _resize(input, sizes, scales, mode, align_corners):
    d = input.ndim - 2
    kind = _RESIZE[mode].format(d=d)
    dtype = input._data.dtype
    if dtype.kind != "f" and dtype != np.uint8:
        kernel = ("upsample_nearest2d_channels_last" if "nearest" in mode and d == 2 else
                  "compute_indices_weights_nearest" if "nearest" in mode else
                  "upsample_bilinear2d_channels_last" if mode == "bilinear" else
                  "compute_indices_weights_cubic" if mode == "bicubic" else "compute_indices_weights_linear")
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(dtype)}'")
    if dtype == np.uint8 and "nearest" not in mode:
        raise NotImplementedError(f"autograd_lab's interpolate resizes uint8 images by nearest neighbour only, not "
                                  f"mode='{mode}' (torch rounds its own way there); convert them to float first")
    for n, m in zip(input.shape[2:], sizes):
        if n <= 0 or m <= 0:
            raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                               f"({_sizes(input.shape[2:])}) output ({_sizes(sizes)})")
    exact = np.float64 if dtype == np.float64 else np.float32     # torch's arithmetic
    taps = tuple(_resize_taps(mode, n, m, None if scales is None else scales[i], align_corners, exact)
                 for i, (n, m) in enumerate(zip(input.shape[2:], sizes)))
    taps = tuple((j, None if w is None else w.astype(dtype)) for j, w in taps)
    return resampling_rules.resize(input, taps=taps, sizes=tuple(input.shape[2:]), kind=kind)


def _sizes(values):
    """(H: 3, W: 4), as torch names the sizes it checks."""
    return ", ".join(f"{axis}: {n}" for axis, n in zip("DHW"[-len(values):], values))


def _resize_taps(mode, n, m, scale, align_corners, exact):
    """(index, weight) of the entries output entry o = 0 ... m-1 reads along a dimension of
    n entries, computed as torch's CPU kernels compute them (in float32 for float32 data)."""
    o = np.arange(m)
    if mode in ("nearest", "nearest-exact"):
        ratio = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(n) / np.float32(m)
        if mode == "nearest":
            if m == n:
                return o[None, :], None
            if m == 2 * n:
                return (o >> 1)[None, :], None
            source = np.floor(o.astype(np.float32) * ratio)
        else:
            source = np.floor(((o + 0.5) * np.float64(ratio)).astype(np.float32))
        return np.minimum(source.astype(np.int64), n - 1)[None, :], None
    if align_corners:
        ratio = exact(n - 1) / exact(m - 1) if m > 1 else exact(0)
        source = ratio * o.astype(exact)
    else:
        ratio = exact(1.0 / scale) if scale is not None and scale > 0 else exact(n) / exact(m)
        source = ratio * (o.astype(exact) + exact(0.5)) - exact(0.5)
    if mode == "bicubic":
        first = np.floor(source).astype(np.int64)
        t = source - first
        index = np.clip(first[None, :] + np.arange(-1, 3)[:, None], 0, n - 1)
        return index, _cubic_weights(t.astype(exact))
    source = np.maximum(source, exact(0))
    first = np.minimum(np.floor(source).astype(np.int64), n - 1)
    t = np.clip(source - first, 0, 1).astype(exact)
    second = first + (first < n - 1)
    return np.stack([first, second]), np.stack([1 - t, t])


def _cubic_weights(t, A=-0.75):
    """The four weights of Keys' cubic convolution (A = -0.75, as torch) at offset t."""
    near = lambda x: ((A + 2) * x - (A + 3)) * x * x + 1                # noqa: E731  (|x| <= 1)
    far = lambda x: ((A * x - 5 * A) * x + 8 * A) * x - 4 * A           # noqa: E731  (1 < |x| < 2)
    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)])


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """The older name of :func:`interpolate`, which torch deprecates (with a warning)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- pixel shuffles -----------------------------------------------------------------------------
def pixel_shuffle(input, upscale_factor):
    """(*, C r², H, W) -> (*, C, H r, W r): sub-pixel convolution's rearrangement."""
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if input.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}")
    return resampling_rules.pixel_shuffle(input, r=r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r², H, W), the inverse of :func:`pixel_shuffle`."""
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for name, axis in (("height", -2), ("width", -1)):
        if input.shape[axis] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({axis})={input.shape[axis]} is not divisible by {r}")
    return resampling_rules.pixel_unshuffle(input, r=r)


# -- sampling at the places a grid gives ---------------------------------------------------------
_CORNERS = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
            "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
            "details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Output pixel (h, w) of image n reads the input at the place grid[n, h, w] gives, in
    coordinates from -1 (the first pixel's edge, or its centre with ``align_corners``) to
    1: blending the four pixels around it ("bilinear") or taking the nearest; places
    outside read zeros, the border's pixel ("border") or the image mirrored
    ("reflection").  Differentiable in the input and in the grid."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_CORNERS, stacklevel=2)
        align_corners = False
    sizes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.ndim != grid.ndim:
        raise RuntimeError(f"grid_sampler(): expected {input.ndim}D input and grid with same number of dimensions, "
                           f"but got {sizes}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but got "
                           f"grid with sizes {list(grid.shape)}")
    for d in range(2, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {d} being empty")
    if mode == "bicubic" and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(input._data.dtype)} but found "
                           f"{dtypes.scalar_type_name(grid._data.dtype)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"grid_sampler_2d_cpu_kernel_impl\" not implemented for "
                                  f"'{dtypes.scalar_type_name(input._data.dtype)}'")
    if input.ndim != 4 or mode == "bicubic":
        raise NotImplementedError(f"grid_sample of {'volumes (5-D inputs)' if input.ndim == 5 else 'mode=bicubic'} "
                                  "is not implemented in autograd_lab (bilinear and nearest sampling of images are)")
    return resampling_rules.grid_sample(input, grid, mode=mode, padding=padding_mode, corners=align_corners)


def affine_grid(theta, size, align_corners=None):
    """The grid (N, H, W, 2) that grid_sample needs to apply the affine maps theta (N, 2, 3)
    to images of ``size`` (N, C, H, W): each output pixel's coordinates (x, y, 1) times
    thetaᵀ.  (Spatial transformer networks learn theta.)"""
    if align_corners is None:
        warnings.warn(_CORNERS, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"torch.Size({list(theta.shape)}).")
    elif len(size) == 5:
        raise NotImplementedError("affine_grid of 3-D affine maps (5-D sizes) is not implemented in autograd_lab")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(size[-2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation of "
                      "affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, 3] but got: "
                           f"[{theta.shape[0]}, 3].")
    dtype = theta._data.dtype
    xs, ys = (_steps(n, align_corners, dtype) for n in (size[3], size[2]))
    base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], np.ones((), dtype)), -1)
    return resampling_rules.affine_grid(theta, base=base)


def _steps(n, align_corners, dtype):
    """The centres (or, aligned, the corners) of n pixels in coordinates from -1 to 1."""
    if n <= 1:
        return np.zeros(n, dtype)
    steps = np.linspace(-1, 1, n, dtype=dtype)
    return steps if align_corners else steps * ((n - 1) / n)


__all__ = ["pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
           "pixel_unshuffle", "grid_sample", "affine_grid"]
