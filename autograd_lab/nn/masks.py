"""Attention masks as torch's attention reads them: a bool mask (True: not attended to)
becomes an additive one, -inf where True and 0 elsewhere (torch's _canonical_mask); a float
mask is added as it is; and a mask's sizes are checked against the attention's."""
import warnings

import numpy as np

from ..core import dtypes
from ..core.checks import tensor_of as _t


def additive(mask, name, dtype, other=None, other_name=""):
    """A mask as attention adds it: bool (True: masked out) becomes -inf where True and 0
    elsewhere; a float mask as it is (torch's _canonical_mask, with its warning when the
    two masks' types differ)."""
    if mask is None:
        return None
    if mask.dtype != dtypes.bool_ and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and mask.dtype != other:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=4)
    if mask.is_floating_point():
        return mask
    return _t(np.where(mask._data, -np.inf, 0.0).astype(dtypes.to_numpy(dtype)))


def sized(mask, two, three):
    """An attention mask checked against its expected sizes, as (1 or N heads, L, S)."""
    if mask.ndim == 2:
        if tuple(mask.shape) != two:
            raise RuntimeError(f"The shape of the 2D attn_mask is torch.Size({list(mask.shape)}), but should be {two}.")
        return mask.unsqueeze(0)
    if mask.ndim == 3:
        if tuple(mask.shape) != three:
            raise RuntimeError(f"The shape of the 3D attn_mask is torch.Size({list(mask.shape)}), but should be "
                               f"{three}.")
        return mask
    raise RuntimeError(f"attn_mask's dimension {mask.ndim} is not supported")
