"""``al.nn.utils``, as ``torch.nn.utils``: clipping gradients before an optimizer step
(``clip_grad.py``), moving parameters to and from one flat vector
(``convert_parameters.py``), and ``rnn`` (packing sequences of different lengths for the
recurrent layers)."""
from . import rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["rnn", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters"]


from ... import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.nn.utils", __name__, "al.nn.utils")   # (names torch has: not_here.py)
