"""Global switches and counters that recording and the walk read: grad mode, anomaly
detection, forward-mode levels, saved-tensor hooks, in-place write counts and the pass
counter.  All of it is global state, read by the
recording step in ``recording.py`` and by the walk; none of it is thread-local."""
import functools


class _State:
    # every switch is a slot, so that reading one (recording reads several at every
    # operation) is a fixed offset, not a look in a dict and then in the class
    __slots__ = ("grad_enabled", "anomaly", "check_nan", "forward_level", "dual_tensors", "inference",
                 "inference_made", "saved_hooks", "writing", "into", "counters", "writes", "swapped",
                 "batching")

    def __init__(self):
        self.grad_enabled = True
        self.anomaly = False      # detect_anomaly: nodes keep where they were recorded
        self.check_nan = True     # ... and backward checks every gradient for NaN
        self.forward_level = 0    # how many forward-mode levels are live (al.func.jvp, fwAD.dual_level)
        self.dual_tensors = None  # inside forward_ad.dual_level: the tensors given tangents, to take them back
        self.inference = False    # inside inference_mode: results are marked as inference tensors
        self.inference_made = False   # some inference tensor exists: recording checks its inputs
        self.saved_hooks = ()     # autograd.graph.saved_tensors_hooks: (pack, unpack) pairs, innermost last
        self.writing = None       # the tensor an in-place method is about to write (saved.pack)
        self.into = None          # ... or its array, for its op to compute into (versions.writes_into)
        self.counters = ()        # active PassCounter objects
        self.writes = 0           # in-place writes to any tensor so far (saved-value checks)
        self.swapped = -1         # writes when `x.data = ...` last replaced an array
        self.batching = None      # inside al.vmap: the function that runs an op on batched inputs


state = _State()


class _GradModeContext:
    """Base for no_grad / enable_grad: a context manager that is also a decorator, with
    or without parentheses (``@al.no_grad()`` and ``@al.no_grad``)."""
    mode = None

    def __new__(cls, func=None):
        self = super().__new__(cls)
        if func is not None and callable(func):
            return self(func)
        return self

    def __enter__(self):
        self._prev = state.grad_enabled
        state.grad_enabled = self.mode

    def __exit__(self, *exc):
        state.grad_enabled = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Operations inside record no graph: results have ``requires_grad=False``."""
    mode = False


class enable_grad(_GradModeContext):
    """Turn recording back on inside a ``no_grad`` block."""
    mode = True


class inference_mode(_GradModeContext):
    """``no_grad``, and the tensors made inside are inference tensors (``is_inference()``):
    they can never join a recorded graph, which torch refuses in its words."""

    def __new__(cls, mode=True):
        if callable(mode):                # @al.inference_mode without parentheses
            return cls()(mode)
        return object.__new__(cls)

    def __init__(self, mode=True):
        self.on = bool(mode)

    def __enter__(self):
        self._prev = state.grad_enabled, state.inference
        if self.on:
            state.grad_enabled, state.inference = False, True

    def __exit__(self, *exc):
        state.grad_enabled, state.inference = self._prev
        return False


def is_inference_mode_enabled():
    return state.inference


def made_in_inference_mode(t):
    """A tensor made inside inference_mode (by an operation or a factory) is an inference
    tensor: no graph may save it, which recording checks from now on."""
    t._inference = state.inference_made = True


class set_grad_enabled(_GradModeContext):
    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode):
        self.mode = bool(mode)
        self._prev = state.grad_enabled
        state.grad_enabled = self.mode   # like torch, it takes effect when called

    def __enter__(self):
        pass

    def __call__(self, func):
        state.grad_enabled = self._prev
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)
        return wrapper


def is_grad_enabled():
    return state.grad_enabled


class detect_anomaly:
    """Inside this block every node remembers the line of the forward that recorded it,
    and a backward that fails in a node shows that line (a warning before the error); with
    ``check_nan`` the engine also checks every gradient a backward rule returns and raises,
    naming the rule, at the first NaN."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self._prev = state.anomaly, state.check_nan
        state.anomaly, state.check_nan = True, self.check_nan

    def __exit__(self, *exc):
        state.anomaly, state.check_nan = self._prev
        return False


def set_detect_anomaly(mode, check_nan=True):
    state.anomaly, state.check_nan = bool(mode), bool(check_nan)


def is_anomaly_enabled():
    return state.anomaly


class PassCounter:
    """Counts what a computation costs, in passes and primitive operations.

    >>> with al.autograd.count_passes() as c:
    ...     J = al.autograd.functional.jacobian(f, x)
    >>> c.backward            # one backward pass per output element
    - ``forward``: evaluations of the user's function by the functional layer;
    - ``backward``: walks of the graph (``backward`` or ``grad`` calls; a batched
      ``grad`` is one walk);
    - ``jvp``: forward-mode passes (each pushes one tangent, or one batch of them);
    - ``ops``: primitive operations evaluated on tensors (forward and recorded backward).
    """

    def __init__(self):
        self.forward = self.backward = self.jvp = self.ops = 0

    def __enter__(self):
        state.counters = state.counters + (self,)
        return self

    def __exit__(self, *exc):
        state.counters = tuple(c for c in state.counters if c is not self)
        return False

    def as_dict(self):
        return {"forward": self.forward, "backward": self.backward, "jvp": self.jvp, "ops": self.ops}

    def __repr__(self):
        return (f"PassCounter(forward={self.forward}, backward={self.backward}, "
                f"jvp={self.jvp}, ops={self.ops})")


count_passes = PassCounter


def count(kind):
    for c in state.counters:
        setattr(c, kind, getattr(c, kind) + 1)
