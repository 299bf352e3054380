"""Convolution and pooling, as ``al.nn.functional`` has them (conv1d, conv2d, conv3d, their
transposes, max, average and adaptive pooling): torch's checks of the arguments, in its
order and words, then a row of ``layer_rules.py``."""
import warnings

import numpy as np

from ..core import dtypes, modes
from ..core.checks import wrap_dim as _wrap_dim
from . import layer_rules


def _pair(value, name, dims=2, fn=None):
    """An int or a sequence of ``dims`` ints, as a tuple of ``dims``; torch's words if not."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = tuple(value) * dims
        if len(value) != dims:
            if fn is not None:
                raise RuntimeError(fn)
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {dims} values to "
                               f"match the convolution dimensions, but got {name}={list(value)}")
        return tuple(int(v) for v in value)
    return (int(value),) * dims


def _size_text(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A 1-D convolution (cross-correlation, as torch): input (N, C, L) or (C, L), weight
    (O, C / groups, k); padding a number, "valid" or "same"."""
    return _convolution("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A 2-D convolution (cross-correlation, as torch): input (N, C, H, W) or (C, H, W),
    weight (O, C / groups, kh, kw); padding a number, a pair, "valid" or "same"."""
    return _convolution("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A 3-D convolution: input (N, C, D, H, W) or (C, D, H, W), weight (O, C / groups,
    kd, kh, kw)."""
    return _convolution("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transposed 1-D convolution: conv1d's gradient with respect to its input, as a
    layer; weight (C_in, C_out / groups, k)."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding,
                           groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transposed 2-D convolution (sometimes called a deconvolution): each input pixel
    adds a copy of the kernel, scaled by it, to the output, ``stride`` apart -- conv2d's
    gradient with respect to its input, as a layer; weight (C_in, C_out / groups, kh, kw)."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding,
                           groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transposed 3-D convolution; weight (C_in, C_out / groups, kd, kh, kw)."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding,
                           groups, dilation)


def _check_dims(name, dims, input):
    """torch's check of the input's dimensions: one image (C, H, W) or a batch."""
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {name}, but got "
                           f"input of size: {_size_text(input.shape)}")


def _spatial(value, name, dims, weight, input):
    """stride, dilation, ...: one int per spatial dimension, checked against the weight's
    dimensions in torch's words (a single value stretches to the weight's)."""
    values = _pair(value, name, dims)
    spatial = weight.ndim - 2
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if spatial != dims:
        if dims > 1:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {spatial} values to "
                               f"match the convolution dimensions, but got {name}={list(values)}")
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{_size_text(weight.shape)}, but got {input.ndim}-dimensional input of size "
                           f"{_size_text(input.shape)} instead")
    return values


def _convolution(name, dims, input, weight, bias, stride, padding, dilation, groups, _depth=4):
    _check_dims(name, dims, input)
    if input.ndim == dims + 1:         # one image: a batch of one, recorded as torch records it
        return _convolution(name, dims, input.unsqueeze(0), weight, bias, stride, padding, dilation, groups,
                            _depth + 1).squeeze(0)
    stride = _spatial(stride, "stride", dims, weight, input)
    dilation = _pair(dilation, "dilation", dims)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        if input.shape[0] == 1:                          # (torch takes another path for one image,
            shown = (1,) * (dims == 1) + dilation        #  in two dimensions at least)
            raise RuntimeError(f"dilation should be greater than zero, but got {list(shown)}")
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    pads = _conv_padding(padding, stride, dilation, weight.shape[2:], _depth)
    _conv_checks(name, input, weight, bias, groups, pads, dilation)
    geo = layer_rules.Geometry(stride, pads, dilation, groups, tuple(input.shape[2:]), tuple(weight.shape[2:]))
    return layer_rules.convolution(input, weight, bias, geo=geo)


def _conv_padding(padding, stride, dilation, kernel, stacklevel):
    """((before, after), ...) per spatial dimension.  "same" pads d (k - 1) in all, the odd
    one at the end, as torch does (and warns, naming the line ``stacklevel`` frames up)."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * len(kernel)
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [d * (k - 1) for d, k in zip(dilation, kernel)]
        if any(t % 2 for t in total):
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                          "zero-padded copy of the input be created", UserWarning, stacklevel=stacklevel)
        return tuple((t // 2, t - t // 2) for t in total)
    pads = _pair(padding, "padding", len(kernel))
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in pads)


_NO_BOOL_KERNEL = {"conv1d": "slow_conv2d_cpu", "conv2d": "slow_conv2d_cpu", "conv3d": "compute_columns3d",
                   "conv_transpose1d": "slow_conv_transpose2d_out_cpu",
                   "conv_transpose2d": "slow_conv_transpose2d_out_cpu",
                   "conv_transpose3d": "slow_conv_transpose3d_out_cpu"}


def _bias_type_error(input, bias):
    return RuntimeError(f"Input type ({dtypes.cpp_type_name(input._data.dtype)}) and bias type "
                        f"({dtypes.cpp_type_name(bias._data.dtype)}) should be the same")


def _conv_checks(name, input, weight, bias, groups, pads, dilation, transposed=False):
    """torch's checks of dtypes and sizes, in its order and words."""
    kinds = {input._data.dtype, weight._data.dtype}
    if np.dtype(bool) in kinds:
        raise NotImplementedError(f"\"{_NO_BOOL_KERNEL[name]}\" not implemented for 'Bool'")
    bias_differs = bias is not None and bias._data.dtype != input._data.dtype
    if bias_differs and not transposed:       # torch's convolution compares the bias first
        raise _bias_type_error(input, bias)
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(input._data.dtype)} but found "
                           f"{dtypes.scalar_type_name(weight._data.dtype)}")
    if bias_differs:
        raise _bias_type_error(input, bias)
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{_size_text(weight.shape)}] instead")
    out_channels = weight.shape[1] * groups if transposed else weight.shape[0]
    channels = weight.shape[0] if transposed else weight.shape[1] * groups
    weight_text = f"weight of size {_size_text(weight.shape)}"
    if input.shape[1] != channels:
        given = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(f"Given {given}, {weight_text}, expected input{_size_text(input.shape)} to have "
                           f"{channels} channels, but got {input.shape[1]} channels instead")
    if bias is not None and tuple(bias.shape) != (out_channels,):
        raise RuntimeError(f"Given {'transposed=1, ' * transposed}{weight_text}, expected bias to be 1-dimensional "
                           f"with {out_channels} elements, but got bias of size {_size_text(bias.shape)} instead")
    if transposed:
        return
    padded = [n + a + b for n, (a, b) in zip(input.shape[2:], pads)]
    kernel = [d * (k - 1) + 1 for d, k in zip(dilation, weight.shape[2:])]
    if any(k > n for k, n in zip(kernel, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual "
                           "input size")


def _conv_transpose(name, dims, input, weight, bias, stride, padding, output_padding, groups, dilation):
    _check_dims(name, dims, input)
    if input.ndim == dims + 1:
        return _conv_transpose(name, dims, input.unsqueeze(0), weight, bias, stride, padding, output_padding,
                               groups, dilation).squeeze(0)
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    stride = _spatial(stride, "stride", dims, weight, input)
    pads, extra = _pair(padding, "padding", dims), _pair(output_padding, "output_padding", dims)
    dilation = _pair(dilation, "dilation", dims)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    if any(e < 0 for e in extra):
        raise RuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    _conv_checks(name, input, weight, bias, groups, None, dilation, transposed=True)
    kernel, sizes = tuple(weight.shape[2:]), tuple(input.shape[2:])
    if any(e >= s and e >= d for e, s, d in zip(extra, stride, dilation)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " +
                           _per_axis(dims, output_padding=extra, stride=stride, dilation=dilation))
    out = tuple((n - 1) * s - 2 * p + d * (k - 1) + 1 for n, s, p, d, k in zip(sizes, stride, pads, dilation, kernel))
    out = tuple(o + e for o, e in zip(out, extra))
    if min(out) < 1:
        as_2d = (1,) * (dims == 1)                        # (torch checks 1-d as 2-d, one row high)
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, as_2d + sizes))}). Calculated "
                           f"output size per channel: ({' x '.join(map(str, as_2d + out))}). Output size is too small")
    geo = layer_rules.Geometry(stride, tuple((p, p - e) for p, e in zip(pads, extra)), dilation, groups, out, kernel)
    return layer_rules.conv_transpose(input, weight, bias, geo=geo)


def _per_axis(dims, **values):
    """"output_padding_height: 0 output_padding_width: 2 stride_height: 1 ...", as torch
    lists them (1-d as 2-d: a height of no padding, stride 1 and dilation 1)."""
    axes = ("depth", "height", "width")[-max(dims, 2):]
    return " ".join(f"{what}_{axis}: {v}" for what, vs in values.items()
                    for axis, v in zip(axes, (int(what != "output_padding"),) * (dims == 1) + vs))


def _pool_geometry(name, input, kernel_size, stride, padding, dilation, ceil_mode):
    """torch's checks of a pooling's arguments and input, in its order and words; the
    Geometry of its windows (the right and bottom padding grow to hold ceil_mode's last
    window)."""
    kernel = _pair(kernel_size, "kernel_size", fn=f"{name}: kernel_size must either be a single int, or a "
                                                   "tuple of two ints")
    stride = kernel if stride is None or stride == [] or stride == () else _pair(
        stride, "stride", fn=f"{name}: stride must either be omitted, a single int, or a tuple of two ints")
    pad = _pair(padding, "padding", fn=f"{name}: padding must either be a single int, or a tuple of two ints")
    dilation = _pair(dilation, "dilation", fn=f"{name}: dilation must be either a single int, or a tuple of "
                                              "two ints")
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
    sizes = input.shape[-2:] if input.ndim >= 2 else ()
    out = []
    for n, k, s, p, d in zip(sizes, kernel, stride, pad, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
        o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
        out.append(o - 1 if ceil_mode and (o - 1) * s >= n + p else o)
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilation[0]} "
                           f"dilationW: {dilation[1]}")
    if input.ndim not in (3, 4) or 0 in input.shape[-3:]:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if pad[0] > kernel[0] // 2 or pad[1] > kernel[1] // 2:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {pad[1]}, "
                           f"padH = {pad[0]}, kW = {kernel[1]}, kH = {kernel[0]}")
    if min(out) < 1:
        c, h, w = input.shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out[0]}x{out[1]}). "
                           "Output size is too small")
    pads = tuple((p, max(p, (o - 1) * s + d * (k - 1) + 1 - n - p))
                 for n, k, s, p, d, o in zip(sizes, kernel, stride, pad, dilation, out))
    return layer_rules.Geometry(stride, pads, dilation, 1, tuple(sizes), kernel)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest entry of each window; with ``return_indices``, also where it is (h * W + w
    in the input's plane), as torch."""
    geo = _pool_geometry("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)
    index = layer_rules.max_pool_index(input, geo=geo)
    out = layer_rules.max_pool2d(input, index, size=geo.size)
    return (out, index) if return_indices else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window: divided by the window's size, padding included (or not:
    ``count_include_pad=False``), or by ``divisor_override``."""
    if input.ndim < 3:
        _wrap_dim(-3, input.ndim)                    # torch's IndexError
    geo = _pool_geometry("avg_pool2d", input, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        divisor = divisor_override
    else:
        h, w = (_window_counts(n, o, k, s, p, count_include_pad) for n, o, k, s, p in
                zip(geo.size, _outputs(geo), geo.kernel, geo.stride, (pad[0] for pad in geo.padding)))
        divisor = np.outer(h, w)
    if input.is_floating_point():
        divisor = np.asarray(divisor, input._data.dtype)
    return layer_rules.avg_pool2d(input, geo=geo, divisor=divisor)


def _outputs(geo):
    return [(n + a + b - d * (k - 1) - 1) // s + 1 for n, (a, b), k, s, d in
            zip(geo.size, geo.padding, geo.kernel, geo.stride, geo.dilation)]


def _window_counts(n, out, k, s, p, count_include_pad):
    """How many entries each window along one axis averages: up to the padding's end, or
    (count_include_pad=False) the input's entries only."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, n + p)
    if count_include_pad:
        return end - start
    return np.minimum(end, n) - np.maximum(start, 0)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of sequences (N, C, L) to ``output_size`` entries: adaptive_avg_pool2d
    on a plane one row high, as torch records it (an unsqueeze, the pooling, a squeeze)."""
    sizes = _one_int("adaptive_avg_pool1d", "output_size", output_size, none="tuple of ints")
    _dims_2_to_3("adaptive_avg_pool1d", input)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, sizes[0])).squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a given output size (None: the input's), each window from
    floor(i n / out) to ceil((i + 1) n / out) as torch; to size 1, the mean."""
    return _adaptive_avg_pool("adaptive_avg_pool2d", 2, input, output_size)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of volumes (N, C, D, H, W) to a given output size."""
    return _adaptive_avg_pool("adaptive_avg_pool3d", 3, input, output_size)


def _adaptive_avg_pool(name, d, input, output_size):
    if isinstance(output_size, (list, tuple)):            # torch's checks, in its order
        if input.ndim <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        sizes = [n if o is None else int(o) for o, n in zip(output_size, input.shape[-len(output_size):])]
    else:
        sizes = [int(output_size)] * d
    if len(sizes) != d:
        raise RuntimeError(f"{name}: output_size must be {d}")
    if min(sizes) < 0:
        shown = f"{sizes[0]}, {sizes[1]}" if d == 2 else f"{sizes[0]}, {sizes[1]},{sizes[2]}"   # (torch's spacing)
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{shown}}}")
    if sizes == [1] * d:                                   # torch takes the mean: MeanBackward1
        return input.mean(tuple(range(-1, -d - 1, -1)), keepdim=True)
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"{name}(): Expected {d + 1}D or {d + 2}D tensor, but got {_size_text(input.shape)}")
    if not input.is_floating_point():
        kernel = name + "_cpu" * (d == 3)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(input._data.dtype)}'")
    dtype = input._data.dtype
    mats = tuple(layer_rules.adaptive_weights(n, o, dtype) for n, o in zip(input.shape[-d:], sizes))
    return layer_rules.adaptive_avg_pool(input, mats=mats)


# -- pooling in one dimension: the two-dimensional pooling of a plane one row high --------------
def _dims_2_to_3(name, input):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {name})")


def _one_int(name, what, value, none=None):
    """A 1-d pooling's argument: an int or a sequence of one, as torch's check1d says."""
    if value is None and none is not None:
        raise TypeError(f"{name}(): argument '{what}' (position 2) must be {none}, not NoneType")
    values = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    if len(values) != 1:
        raise RuntimeError(f"{name}() argument '{what}' should contain one int (got {len(values)})")
    return values


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """The mean of each window of a sequence (N, C, L), as avg_pool2d on a plane one row high."""
    _dims_2_to_3("avg_pool1d", input)
    kernel = _one_int("avg_pool1d", "kernel_size", kernel_size)
    stride = kernel if stride is None or stride == [] or stride == () else _one_int("avg_pool1d", "stride", stride)
    pad = _one_int("avg_pool1d", "padding", padding)
    return avg_pool2d(input.unsqueeze(-2), (1,) + kernel, (1,) + stride, (0,) + pad, ceil_mode,
                      count_include_pad).squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest entry of each window of a sequence (N, C, L), as max_pool2d on a plane one
    row high (with ``return_indices``, the positions along L)."""
    if return_indices or input.requires_grad and modes.is_grad_enabled():     # torch's two paths
        _dims_2_to_3("max_pool1d", input)
        kernel = _one_int("max_pool1d", "kernel_size", kernel_size)
        stride = kernel if stride is None or stride == [] or stride == () else _one_int("max_pool1d", "stride",
                                                                                      stride)
        pad, dilation = _one_int("max_pool1d", "padding", padding), _one_int("max_pool1d", "dilation", dilation)
    else:
        kernel, stride, pad, dilation = _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    out = max_pool2d(input.unsqueeze(-2), (1,) + kernel, (1,) + stride, (0,) + pad, (1,) + dilation, ceil_mode,
                     return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """torch's checks of max_pool1d on an input that needs no gradient, in its words."""
    if input.ndim not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    as_list = lambda v: tuple(v) if isinstance(v, (list, tuple)) else (v,)    # noqa: E731
    kernel, pad, dilation = as_list(kernel_size), as_list(padding), as_list(dilation)
    stride = () if stride is None else as_list(stride)
    for what, values, how in (("kernel_size", kernel, "an int, list of ints or tuple of ints"),
                              ("stride", stride, "None, an int, list of ints, or tuple of ints"),
                              ("padding", pad, "an int, list of ints, or tuple of ints"),
                              ("dilation", dilation, "an int, list of ints or tuple of ints")):
        if len(values) != 1 and not (what == "stride" and not values):
            raise RuntimeError(f"max_pool1d() {what} must be {how} of size 1 but got size {len(values)}")
    stride = stride or kernel
    if kernel[0] <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {kernel[0]}")
    if stride[0] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {stride[0]}")
    if pad[0] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {pad[0]}")
    if pad[0] > kernel[0] // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={pad[0]} "
                           f"and kernel_size={kernel[0]}")
    if dilation[0] <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dilation[0]}")
    n = input.shape[-1]
    out = (n + 2 * pad[0] - dilation[0] * (kernel[0] - 1) - 1 + (stride[0] - 1 if ceil_mode else 0)) // stride[0] + 1
    if ceil_mode and (out - 1) * stride[0] >= n + pad[0]:
        out -= 1
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    return kernel, stride, pad, dilation
