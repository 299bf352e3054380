"""Rows of the rules table for nn's activations beyond relu, sigmoid and tanh: leaky_relu,
gelu, silu, elu (and selu, its scaled form), softplus, hardtanh, log_sigmoid, mish and
prelu.  (They live beside ``rules.py``, built on the same
:class:`~autograd_lab.core.recording.Op`.)

Each is elementwise, so each rule is one expression in ``g`` that serves as VJP and JVP
(``rules.symmetric``), and under ``al.vmap`` each batches by broadcasting.  As in torch,
the gradient of leaky_relu, gelu, elu, softplus and hardtanh is a row of its own (its
``...BackwardBackward0``): recorded under ``create_graph``, it is what a second
derivative differentiates, with rules of its own that reach the third.
"""
import math

import numpy as np

from .. import batching
from ..batching import broadcast
from ..core.recording import Op, register
from ..core.rules import exp, log1p, sigmoid, symmetric, tanh, where


def _zeros(like):
    """Exact zeros shaped like ``like``: the part of a gradient that does not depend on an
    input (never recorded)."""
    data = getattr(like, "_data", like)
    return np.zeros(np.shape(data), np.asarray(data).dtype)


# -- leaky_relu: x where x > 0, else slope * x -----------------------------------------------
def _leaky_relu_backward_forward(g, x, slope):
    return np.where(x > 0, g, g * slope)


leaky_relu_backward = Op("LeakyReluBackwardBackward0", _leaky_relu_backward_forward,
                         **symmetric(lambda gg, out, g, x, slope: leaky_relu_backward(gg, x, slope=slope),
                                     lambda gg, out, g, x, slope: _zeros(gg)),
                         promote=True, saves=(1,))

leaky_relu = Op("LeakyReluBackward0", lambda x, slope: np.where(x > 0, x, x * slope),
                **symmetric(lambda g, y, x, slope: leaky_relu_backward(g, x, slope=slope)),
                saves="inputs")

# x.leaky_relu_(): the same numbers, written over x; its rule reads the output (whose sign
# is x's when the slope is positive: torch refuses a negative slope at the backward)
leaky_relu_inplace = Op("LeakyReluBackward1", leaky_relu.forward,
                        **symmetric(lambda g, y, x, slope: leaky_relu_backward(g, _positive_slope(y, slope),
                                                                               slope=slope)),
                        saves="output")


def _positive_slope(y, slope):
    if slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
            "supported. This is caused by calling in-place forward function with a negative slope, please "
            "call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you "
            "do require supporting in-place leakRelu backward calculation with negative slope")
    return y


# -- gelu: x Φ(x), Φ the standard normal's distribution function (or its tanh approximation) --
_erf = np.frompyfunc(math.erf, 1, 1)        # (NumPy has no erf; math.erf is exact to the bit)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_CUBIC = 0.044715


def _normal_cdf(x):
    return (0.5 * (1 + _erf(x / math.sqrt(2)).astype(np.float64))).astype(x.dtype, copy=False)


def _gelu_forward(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + _CUBIC * x ** 3)))
    return x * _normal_cdf(x)


def _gelu_slope(x, approximate):
    """d gelu / dx, in NumPy (the gradient row's forward)."""
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + _CUBIC * x ** 3)
        t = np.tanh(inner)
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * _CUBIC * x * x)
    return _normal_cdf(x) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _gelu_curvature(x, approximate):
    """d² gelu / dx², written with the table's rows (so it differentiates once more)."""
    if approximate == "tanh":
        u1 = _SQRT_2_OVER_PI * (1 + 3 * _CUBIC * x * x)
        t = tanh(_SQRT_2_OVER_PI * (x + _CUBIC * x * x * x))
        sech2 = 1 - t * t
        return sech2 * u1 + 0.5 * x * sech2 * (_SQRT_2_OVER_PI * 6 * _CUBIC * x - 2 * t * u1 * u1)
    return exp(-0.5 * x * x) * (2 - x * x) / math.sqrt(2 * math.pi)


gelu_backward = Op("GeluBackwardBackward0", lambda g, x, approximate: g * _gelu_slope(x, approximate),
                   **symmetric(lambda gg, out, g, x, approximate: gelu_backward(gg, x, approximate=approximate),
                               lambda gg, out, g, x, approximate: gg * g * _gelu_curvature(x, approximate)),
                   promote=True, saves="inputs")

gelu = Op("GeluBackward0", _gelu_forward,
          **symmetric(lambda g, y, x, approximate: gelu_backward(g, x, approximate=approximate)),
          saves="inputs")


# -- silu: x sigmoid(x); its gradient is written with the table's rows, as torch's is -------
silu = Op("SiluBackward0", lambda x: x / (1 + np.exp(-x)),
          **symmetric(lambda g, y, x: g * _silu_slope(x)),
          saves="inputs")


def _silu_slope(x):
    s = sigmoid(x)
    return s * (1 + x * (1 - s))


# -- elu (selu is elu with torch's two constants): scale x where x > 0, else
#    scale alpha (exp(input_scale x) - 1) ------------------------------------------------------
def _elu_forward(x, alpha, scale, input_scale):
    return np.where(x > 0, x * scale, np.expm1(x * input_scale) * (alpha * scale))


def _elu_backward_forward(g, x, alpha, scale, input_scale, is_result):
    """g times elu's slope at x, or (is_result) read from the output y = elu(x)."""
    if is_result:
        return np.where(x > 0, g * scale, g * input_scale * (x + alpha * scale))
    return np.where(x > 0, g * scale, g * (input_scale * alpha * scale) * np.exp(x * input_scale))


def _elu_backward_x(gg, g, x, alpha, scale, input_scale, is_result):
    """How the gradient row's output moves with its second input (x, or y if is_result)."""
    if is_result:
        return where(x > 0, 0.0, gg * g * input_scale)
    return where(x > 0, 0.0, gg * g * (input_scale * input_scale * alpha * scale) * exp(x * input_scale))


elu_backward = Op("EluBackwardBackward0", _elu_backward_forward,
                  **symmetric(lambda gg, out, g, x, alpha, scale, input_scale, is_result:
                              elu_backward(gg, x, alpha=alpha, scale=scale, input_scale=input_scale,
                                           is_result=is_result),
                              lambda gg, out, g, x, alpha, scale, input_scale, is_result:
                              _elu_backward_x(gg, g, x, alpha, scale, input_scale, is_result)),
                  promote=True, saves="inputs")

elu = Op("EluBackward0", _elu_forward,
         **symmetric(lambda g, y, x, alpha, scale, input_scale:
                     elu_backward(g, x, alpha=alpha, scale=scale, input_scale=input_scale, is_result=False)),
         saves="inputs")

# x.elu_(): its rule reads the output, as torch's EluBackward1 does
elu_inplace = Op("EluBackward1", _elu_forward,
                 **symmetric(lambda g, y, x, alpha, scale, input_scale:
                             elu_backward(g, y, alpha=alpha, scale=scale, input_scale=input_scale, is_result=True)),
                 saves="output")


# celu is elu with input_scale = 1 / alpha, under torch's own names
celu = Op("CeluBackward0", _elu_forward, vjp=elu.vjp, jvp=elu.jvp, saves="inputs")
celu_inplace = Op("CeluBackward1", _elu_forward, vjp=elu_inplace.vjp, jvp=elu_inplace.jvp, saves="output")


# -- softplus: log(1 + exp(beta x)) / beta, and x itself where beta x > threshold -------------
def _softplus_forward(x, beta, threshold):
    bx = x * beta
    return np.where(bx > threshold, x, np.log1p(np.exp(bx)) / beta)


def _softplus_backward_forward(g, x, beta, threshold):
    bx = x * beta
    return np.where(bx > threshold, g, g / (1 + np.exp(-bx)))


def _softplus_backward_x(gg, g, x, beta, threshold):
    s = sigmoid(x * beta)
    return where(x * beta > threshold, 0.0, gg * g * beta * s * (1 - s))


softplus_backward = Op("SoftplusBackwardBackward0", _softplus_backward_forward,
                       **symmetric(lambda gg, out, g, x, beta, threshold:
                                   softplus_backward(gg, x, beta=beta, threshold=threshold),
                                   lambda gg, out, g, x, beta, threshold:
                                   _softplus_backward_x(gg, g, x, beta, threshold)),
                       promote=True, saves="inputs")

softplus = Op("SoftplusBackward0", _softplus_forward,
              **symmetric(lambda g, y, x, beta, threshold: softplus_backward(g, x, beta=beta, threshold=threshold)),
              saves="inputs")


# -- hardtanh (and relu6): x clipped to [min_val, max_val] -------------------------------------
def _hardtanh_backward_forward(g, x, min_val, max_val):
    return np.where((x > min_val) & (x < max_val), g, np.zeros((), g.dtype))


hardtanh_backward = Op("HardtanhBackwardBackward0", _hardtanh_backward_forward,
                       **symmetric(lambda gg, out, g, x, min_val, max_val:
                                   hardtanh_backward(gg, x, min_val=min_val, max_val=max_val),
                                   lambda gg, out, g, x, min_val, max_val: _zeros(gg)),
                       promote=True, saves=(1,))

hardtanh = Op("HardtanhBackward0", lambda x, min_val, max_val: np.clip(x, min_val, max_val),
              **symmetric(lambda g, y, x, min_val, max_val:
                          hardtanh_backward(g, x, min_val=min_val, max_val=max_val)),
              saves="inputs")


# -- log_sigmoid: log(sigmoid(x)) = -softplus(-x), without overflow ---------------------------
log_sigmoid = Op("LogSigmoidBackward0", lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))),
                 **symmetric(lambda g, y, x: g * sigmoid(-x)),
                 saves="inputs")


# -- mish: x tanh(softplus(x)) --------------------------------------------------------------------
def _mish_slope(x):
    t = tanh(log1p(exp(x)))
    return t + x * sigmoid(x) * (1 - t * t)


mish = Op("MishBackward0", lambda x: x * np.tanh(np.logaddexp(0, x)),
          **symmetric(lambda g, y, x: g * _mish_slope(x)),
          saves="inputs")


# -- prelu: x where x > 0, else weight * x (the weight broadcast over the channels) -----------
prelu = Op("PreluKernelBackward0", lambda x, w: np.where(x > 0, x, w * x),
           vjp=(lambda g, y, x, w: where(x > 0, g, w * g),
                lambda g, y, x, w: where(x > 0, 0.0, x * g)),
           jvp=(lambda t, y, x, w: where(x > 0, t, w * t),
                lambda t, y, x, w: where(x > 0, 0.0, x * t)),
           promote=True, saves="inputs")


register(globals())
# -- their batch rules (al.vmap): elementwise, the batch broadcasts --------------------------------
batching.register(broadcast, leaky_relu, leaky_relu_backward, leaky_relu_inplace, gelu, gelu_backward, silu,
                  elu, elu_backward, elu_inplace, celu, celu_inplace, softplus, softplus_backward, hardtanh, hardtanh_backward,
                  log_sigmoid, mish, prelu)
