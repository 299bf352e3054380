"""``al.random`` (torch.random): the default generator's seed and state, and drawing from
categories (``al.multinomial``, ``x.random_``).

The numbers come from NumPy's PCG64 generator behind ``al.manual_seed`` (creation.py):
the same seed gives the same numbers run after run, though not the numbers torch draws.
A generator's state is NumPy's, kept in a uint8 tensor (``get_rng_state``), so it can be
saved and restored.
"""
import contextlib
import json

import numpy as np

from . import batching
from .core import dtypes
from .creation import default_generator, manual_seed  # noqa: F401  (torch.random's names)
from .core.tensor import Tensor, install

# torch.random's names (al.multinomial and x.random_ are torch's top-level and Tensor's)
__all__ = ["default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]


def seed():
    """Reseed the default generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state, as a uint8 tensor (for set_rng_state)."""
    return state_of(default_generator)


def set_rng_state(new_state):
    restore(default_generator, new_state)


def state_of(generator):
    text = json.dumps({"seed": generator._seed, "state": generator._rng.bit_generator.state})
    return Tensor._make(np.frombuffer(text.encode(), np.uint8).copy())


def restore(generator, new_state):
    if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
        raise TypeError(f"expected a uint8 tensor from get_rng_state(), got {type(new_state).__name__}")
    saved = json.loads(new_state._data.tobytes().decode())
    generator.manual_seed(saved["seed"])
    generator._rng.bit_generator.state = saved["state"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, **kwargs):
    """Draw inside the block, then put the default generator back as it was."""
    saved = get_rng_state() if enabled else None
    try:
        yield
    finally:
        if enabled:
            set_rng_state(saved)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Category indices drawn with probability proportional to the weights in ``input``
    (a vector, or one row of weights per draw); without ``replacement`` each category at
    most once."""
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if batching.is_batched(input):        # a draw per sample: vmap's randomness decides
        batching.random_shape(())
    if not input.is_floating_point():
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{dtypes.scalar_type_name(input._data.dtype)}")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n = input.shape[-1]
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    weights = batching.numbers(input).astype(np.float64)
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = weights.reshape(-1, n)
    totals = rows.sum(-1)
    if (totals <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator)
    if replacement:
        drawn = np.stack([rng.choice(n, size=num_samples, p=row / total) for row, total in zip(rows, totals)])
    else:                                 # each category races an exponential clock at its weight's
        race = rows / rng.exponential(size=rows.shape)     # rate: the first k to finish, in order (a
        drawn = np.argsort(-race, axis=-1, kind="stable")[:, :num_samples]   # weight of 0 comes last,
        #                                   lowest index first, as in torch)
    result = Tensor._make(drawn.reshape(weights.shape[:-1] + (num_samples,)).astype(np.int64))
    result = batching.wrap(result, batching.levels_of(input))
    if out is not None:
        from .spellings import write_out
        return write_out(out, result)
    return result


def _rng(generator):
    """The NumPy generator behind ``generator`` (the default one if None)."""
    return (generator or default_generator)._rng


class RandomMethods:
    def multinomial(self, num_samples, replacement=False, *, generator=None):
        return multinomial(self, num_samples, replacement, generator=generator)

    def random_(self, from_=0, to=None, *, generator=None):
        """Fill with whole numbers drawn uniformly from [from_, to) (from [0, to) given
        one bound; without bounds, from 0 up to the largest whole number the dtype holds
        exactly, as torch)."""
        if to is None and from_ != 0:
            from_, to = 0, from_
        if to is None:
            to = _exact_top(self._data.dtype)
        if from_ >= to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
        rng = _rng(generator)
        drawn = rng.integers(int(from_), int(to), self.shape, dtype=np.int64, endpoint=False)
        return self.copy_(Tensor._make(drawn.astype(self._data.dtype)))


def _exact_top(np_dtype):
    """torch's default upper bound of random_: 2**mantissa bits + 1 for floats, the
    largest value + 1 for integers, 2 for bools."""
    if np_dtype == np.bool_:
        return 2
    if np_dtype.kind == "f":
        return 2 ** (np.finfo(np_dtype).nmant + 1) + 1
    return int(np.iinfo(np_dtype).max) + 1


install(RandomMethods)


from . import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.random", __name__, "al.random")   # (names torch has: not_here.py)
