"""Parameters as one flat vector and back, as torch.nn.utils has them."""
from ...functions import cat
from ...core.tensor import Tensor


def parameters_to_vector(parameters):
    """Every parameter flattened and joined into one vector (recorded: CatBackward0)."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Slices of ``vec`` put in the parameters' place, each viewed in its parameter's shape
    (the parameters' ``.data`` is replaced)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    start = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[start:start + n].view_as(p).data
        start += n
