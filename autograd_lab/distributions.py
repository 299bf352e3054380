"""``al.distributions``, as ``torch.distributions``: probability distributions with
parameters that may require grad -- Normal, Uniform, Bernoulli, Categorical,
MultivariateNormal, Independent -- and ``kl_divergence`` between two of a kind.

A distribution has a ``batch_shape`` (independent copies, one per entry of its
parameters) and an ``event_shape`` (the shape of one draw: () for a number, (k,) for a
vector).  ``log_prob(value)`` and ``entropy()`` are written with the package's operations,
so they are recorded and differentiate (policy gradients: ``-(log_prob * reward)``);
``rsample()`` draws with the reparameterization trick (``loc + eps * scale``), so a
gradient flows to the parameters, while ``sample()`` draws without recording.  Draws come
from the package's generator (``al.manual_seed``): reproducible, not torch's numbers.

Arguments are checked as torch checks them (``validate_args``, on by default): a
parameter outside its constraint, or a value outside the support, is refused in torch's
words.
"""
import math
import numbers

import numpy as np

from . import creation, functions
from .core import dtypes, modes
from .core.checks import broadcast_mismatch, tensor_of
from .nn import functional as F
from .core.tensor import Tensor

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "MultivariateNormal", "Independent",
           "kl_divergence", "register_kl", "constraints"]


# -- constraints: what a parameter or a value may be (checked, and printed in messages) -----------
class Constraint:
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__[1:]}()"


class _Real(Constraint):
    def check(self, value):
        return value == value                          # (not NaN)


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        return f"HalfOpenInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        v = value._data if isinstance(value, Tensor) else np.asarray(value)
        return (v % 1 == 0) & (self.lower_bound <= v) & (v <= self.upper_bound)

    def __repr__(self):
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return functions.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _IndependentReal(_Real):
    """real_vector: every entry of the last dimension real."""
    event_dim = 1

    def check(self, value):
        return functions.all(value == value, dim=-1)

    def __repr__(self):
        return "IndependentConstraint(Real(), 1)"


class _PositiveDefinite(Constraint):
    event_dim = 2

    def check(self, value):
        m = value._data if isinstance(value, Tensor) else np.asarray(value)
        symmetric = np.isclose(m, np.swapaxes(m, -1, -2), atol=1e-6).all((-1, -2))
        ok = np.zeros(m.shape[:-2], bool)
        for i in np.ndindex(*m.shape[:-2]):
            try:
                np.linalg.cholesky(m[i])
                ok[i] = symmetric[i]
            except np.linalg.LinAlgError:
                pass
        return ok


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        m = value._data if isinstance(value, Tensor) else np.asarray(value)
        return (np.triu(m, 1) == 0).all((-1, -2)) & (np.diagonal(m, 0, -2, -1) > 0).all(-1)


class constraints:
    """The constraints torch.distributions.constraints names, as far as these distributions use them."""
    Constraint = Constraint
    real = _Real()
    real_vector = _IndependentReal()
    positive = _GreaterThan(0.0)
    unit_interval = _Interval(0.0, 1.0)
    boolean = _Boolean()
    simplex = _Simplex()
    positive_definite = _PositiveDefinite()
    lower_cholesky = _LowerCholesky()
    greater_than = _GreaterThan
    less_than = _LessThan
    interval = _Interval
    half_open_interval = _HalfOpenInterval
    integer_interval = _IntegerInterval


def _all_true(mask):
    return bool(np.all(mask._data if isinstance(mask, Tensor) else mask))


def _size(shape):
    return f"torch.Size({list(shape)})"


def broadcast_all(*values):
    """The values as tensors of one broadcast shape (numbers in the default float dtype,
    or in the tensors' dtype)."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    dtype = tensors[0].dtype if tensors else dtypes.float32
    values = [v if isinstance(v, Tensor) else creation.tensor(float(v), dtype=dtype) for v in values]
    shape = values[0].shape
    for v in values[1:]:
        mismatch = broadcast_mismatch(shape, v.shape)
        if mismatch:
            raise RuntimeError(mismatch)
        shape = np.broadcast_shapes(shape, v.shape)
    return [v if v.shape == shape else v.expand(*shape) for v in values]


class Distribution:
    """The base: shapes, argument checks, and what every distribution answers."""
    has_rsample = False
    has_enumerate_support = False
    _validate_args = True
    arg_constraints = {}

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape, self._event_shape = tuple(batch_shape), tuple(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None), _Lazy):
                    continue                          # (the other parametrization: not given)
                value = getattr(self, param)
                if not _all_true(constraint.check(value)):
                    raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self)} does not implement mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self)} does not implement variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A draw of shape sample_shape + batch_shape + event_shape, not recorded."""
        with modes.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError

    def log_prob(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=()):
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def _validate_sample(self, value):
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = value.ndim - len(self._event_shape)
        if tuple(value.shape[start:]) != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {_size(value.shape)} vs "
                             f"{_size(self._event_shape)}.")
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(value.shape), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {_size(value.shape)} vs "
                                 f"{_size(expected)}.")
        support = self.support
        if not _all_true(support.check(value)):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{k}: {self.__dict__[k] if self.__dict__[k].numel() == 1 else _size(self.__dict__[k].shape)}"
                         for k in names)
        return f"{type(self).__name__}({args})"


class _Lazy:
    """A parameter computed from the other parametrization on first use, then kept
    (Categorical's probs from its logits, say), as torch's lazy_property."""

    def __init__(self, compute):
        self.compute, self.__doc__ = compute, compute.__doc__

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        with modes.enable_grad():
            value = self.compute(obj)
        obj.__dict__[self.name] = value
        return value


def _logsumexp(x, dim):
    """log Σ exp(x) along ``dim`` (kept), shifted by the maximum so nothing overflows."""
    top = x.detach().amax(dim, keepdim=True)
    top = functions.where(top.isinf(), tensor_of(np.zeros((), x._data.dtype)), top)
    return (x - top).exp().sum(dim, keepdim=True).log() + top


def _clamped_probs(probs):
    eps = float(np.finfo(probs._data.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


# -- Normal and Uniform ---------------------------------------------------------------------------
class Normal(Distribution):
    """The normal distribution of mean ``loc`` and standard deviation ``scale``."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        shape = () if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number) else self.loc.shape
        super().__init__(shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.loc + creation.randn(*shape, dtype=self.loc.dtype) * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()


class Uniform(Distribution):
    """The uniform distribution on [low, high)."""
    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        shape = () if isinstance(low, numbers.Number) and isinstance(high, numbers.Number) else self.low.shape
        super().__init__(shape, validate_args=validate_args)

    def __repr__(self):
        parts = [f"{k}: {v if v.numel() == 1 else _size(v.shape)}" for k, v in (("low", self.low), ("high", self.high))]
        return f"Uniform({', '.join(parts)})"

    @property
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return self.high * np.nan

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.low + creation.rand(*shape, dtype=self.low.dtype) * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value).to(self.low.dtype) * (self.high > value).to(self.low.dtype)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value):
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def entropy(self):
        return (self.high - self.low).log()


# -- Bernoulli and Categorical --------------------------------------------------------------------
def _one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class Bernoulli(Distribution):
    """1 with probability ``probs`` (or sigmoid(``logits``)), else 0."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        value, = broadcast_all(given)
        self.__dict__["probs" if probs is not None else "logits"] = value
        super().__init__(() if isinstance(given, numbers.Number) else value.shape, validate_args=validate_args)

    @_Lazy
    def logits(self):
        p = _clamped_probs(self.probs)
        return p.log() - (-p).log1p()

    @_Lazy
    def probs(self):
        return self.logits.sigmoid()

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return functions.where(self.probs == 0.5, tensor_of(np.array(np.nan, mode._data.dtype)), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with modes.no_grad():
            probs = self.probs.expand(*shape)
            return (creation.rand(*shape, dtype=probs.dtype) < probs).to(probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = creation.arange(2, dtype=self.probs.dtype if "probs" in self.__dict__ else self.logits.dtype)
        values = values.view(2, *((1,) * len(self._batch_shape)))
        return values.expand(2, *self._batch_shape) if expand else values


class Categorical(Distribution):
    """One of 0 .. K-1, with the probabilities of the last dimension of ``probs``
    (normalized to sum to 1) or softmax(``logits``)."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.__dict__["probs"] = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.__dict__["logits"] = logits - _logsumexp(logits, -1)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.shape[-1]
        super().__init__(self._param.shape[:-1] if self._param.ndim > 1 else (), validate_args=validate_args)

    @_Lazy
    def logits(self):
        return _clamped_probs(self.probs).log()

    @_Lazy
    def probs(self):
        return F.softmax(self.logits, dim=-1)

    @property
    def param_shape(self):
        return self._param.shape

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return creation.full(self._extended_shape(), np.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return creation.full(self._extended_shape(), np.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        """Indices drawn by their probabilities (int64), by inverting each row's
        cumulative sum at a uniform draw."""
        sample_shape = tuple(sample_shape)
        count = math.prod(sample_shape)
        probs = self.probs.detach()._data.reshape(-1, self._num_events).astype(np.float64)
        cumulative = np.cumsum(probs, -1)
        u = creation.rand(count, probs.shape[0], dtype=dtypes.float64)._data * cumulative[:, -1]
        drawn = np.minimum((u[..., None] >= cumulative).sum(-1), self._num_events - 1)
        return creation.tensor(drawn.reshape(self._extended_shape(sample_shape)), dtype=dtypes.int64)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        shape = np.broadcast_shapes(value.shape, self.logits.shape)
        value = value.expand(*shape)[..., :1]
        log_pmf = self.logits.expand(*shape)
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        low = float(np.finfo(self.logits._data.dtype).min)
        logits = self.logits.clamp(min=low)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = creation.arange(self._num_events).view(-1, *((1,) * len(self._batch_shape)))
        return values.expand(-1, *self._batch_shape) if expand else values


# -- MultivariateNormal: a vector's normal distribution, by its covariance ------------------------
class MultivariateNormal(Distribution):
    """The normal distribution of vectors with mean ``loc`` and a covariance given as the
    matrix, its inverse (``precision_matrix``) or its Cholesky factor (``scale_tril``).

    The gradient flows to ``loc`` and to the value; autograd_lab has no differentiable
    Cholesky decomposition, so a covariance (or precision, or scale_tril) that requires
    grad is refused."""
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix), ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        (name, matrix), = given
        if matrix.ndim < 2:
            raise ValueError(f"{name} must be at least two-dimensional, with optional leading batch dimensions")
        if matrix.requires_grad:
            raise NotImplementedError(
                f"autograd_lab's MultivariateNormal differentiates with respect to loc and the value, not {name}: "
                f"autograd_lab has no differentiable Cholesky decomposition (pass {name}.detach())")
        batch = tuple(np.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1]))
        self.__dict__[name] = matrix.expand(*(batch + tuple(matrix.shape[-2:])))
        self.loc = loc.expand(*(batch + (-1,)))
        super().__init__(batch, loc.shape[-1:], validate_args=validate_args)
        m = matrix._data.astype(np.float64)
        factor = m if name == "scale_tril" else np.linalg.cholesky(m if name == "covariance_matrix" else np.linalg.inv(m))
        dtype = matrix._data.dtype
        self._unbroadcasted_scale_tril = tensor_of(factor.astype(dtype))
        self._whiten = tensor_of(np.linalg.inv(factor).astype(dtype))          # L⁻¹: a constant
        self._half_log_det = tensor_of(np.log(np.diagonal(factor, 0, -2, -1)).sum(-1).astype(dtype))

    @_Lazy
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(*(self._batch_shape + self._event_shape * 2))

    @_Lazy
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(*(self._batch_shape + self._event_shape * 2))

    @_Lazy
    def precision_matrix(self):
        inv = self._whiten
        return (inv.mT @ inv).expand(*(self._batch_shape + self._event_shape * 2))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(*(self._batch_shape + self._event_shape))

    def rsample(self, sample_shape=()):
        eps = creation.randn(*self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (self._whiten @ (value - self.loc).unsqueeze(-1)).squeeze(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + (z * z).sum(-1)) - self._half_log_det

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det
        return h if not self._batch_shape else h.expand(*self._batch_shape)


# -- Independent: some batch dimensions taken as event dimensions -------------------------------
class Independent(Distribution):
    """``base_distribution`` with its last ``reinterpreted_batch_ndims`` batch dimensions
    taken as one event: log_prob and entropy summed over them."""
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n = reinterpreted_batch_ndims
        batch = base_distribution.batch_shape
        if n > len(batch):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual {n} "
                             f"vs {len(batch)}")
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, n
        super().__init__(batch[:len(batch) - n], batch[len(batch) - n:] + base_distribution.event_shape,
                         validate_args=validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        return self.base_dist.support

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def _summed(self, value):
        n = self.reinterpreted_batch_ndims
        return value.sum(tuple(range(-n, 0))) if n else value

    def log_prob(self, value):
        return self._summed(self.base_dist.log_prob(value))

    def entropy(self):
        return self._summed(self.base_dist.entropy())

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"


# -- KL divergence ---------------------------------------------------------------------------------
_KL = {}


def register_kl(type_p, type_q):
    """Decorator: the function computing KL(p || q) for distributions of these types."""
    def register(fn):
        _KL[type_p, type_q] = fn
        return fn
    return register


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p - log q], by the formula registered for the two types."""
    for (tp, tq), fn in _KL.items():
        if type(p) is tp and type(q) is tq:
            return fn(p, q)
    raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                              f"{type(q).__name__}")


def _set_where(t, mask, value):
    return functions.where(mask, tensor_of(np.array(value, t._data.dtype)), t)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _set_where(t, (q.probs == 0).expand(*t.shape), np.inf)
    t = _set_where(t, (p.probs == 0).expand(*t.shape), 0.0)
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = _set_where(_set_where(t1, q.probs == 0, np.inf), p.probs == 0, 0.0)
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = _set_where(_set_where(t2, q.probs == 1, np.inf), p.probs == 1, 0.0)
    return t1 + t2


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return p._summed(kl_divergence(p.base_dist, q.base_dist))


from . import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.distributions", __name__, "al.distributions")   # (names torch has: not_here.py)
