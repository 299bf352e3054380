"""The layers that pad, resize or shuffle pixels, as torch.nn has them: each holds its
settings, prints them as torch prints them, and calls ``F.pad``, ``F.interpolate`` or
``F.pixel_shuffle`` (``resampling.py``)."""
from .modules import Module
from . import functional as F


# -- padding ----------------------------------------------------------------------------------
def _amounts(padding, dims):
    """padding=2 as (2, 2) for one dimension, (2, 2, 2, 2) for two, ...; a sequence as given."""
    return tuple(padding) if isinstance(padding, (list, tuple)) else (padding,) * (2 * dims)


class _Pad(Module):
    """A padding layer: ``padding`` (left, right, top, bottom, front, back) or one int for all,
    added with F.pad's ``mode``."""
    dims, mode = 2, "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _amounts(padding, self.dims)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPad(_Pad):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _ZeroPad(_ConstantPad):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


def _padding_layer(name, base, dims, mode="constant"):
    return type(name, (base,), {"dims": dims, "mode": mode, "__module__": __name__,
                                "__doc__": f"F.pad(input, padding, {mode!r}) over the last {dims} dimension(s)."})


ConstantPad1d, ConstantPad2d, ConstantPad3d = (_padding_layer(f"ConstantPad{d}d", _ConstantPad, d) for d in (1, 2, 3))
ZeroPad1d, ZeroPad2d, ZeroPad3d = (_padding_layer(f"ZeroPad{d}d", _ZeroPad, d) for d in (1, 2, 3))
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (_padding_layer(f"ReflectionPad{d}d", _Pad, d, "reflect")
                                                     for d in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (_padding_layer(f"ReplicationPad{d}d", _Pad, d, "replicate")
                                                        for d in (1, 2, 3))
CircularPad1d, CircularPad2d, CircularPad3d = (_padding_layer(f"CircularPad{d}d", _Pad, d, "circular")
                                               for d in (1, 2, 3))


# -- resizing ---------------------------------------------------------------------------------
class Upsample(Module):
    """F.interpolate with the settings given here: a ``size`` or a ``scale_factor``, and a
    ``mode`` ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area",
    "nearest-exact")."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


# -- pixel shuffles -----------------------------------------------------------------------------
class PixelShuffle(Module):
    """(N, C r², H, W) -> (N, C, H r, W r): the rearrangement of sub-pixel convolution."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(N, C, H r, W r) -> (N, C r², H, W), the inverse of PixelShuffle."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "Upsample",
           "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle"]
