"""``nn.DataParallel``, as torch builds it on a machine without a GPU.

Course code wraps its model so that it trains on every GPU it finds:
``model = nn.DataParallel(model)``.  With no GPU, torch keeps the model as the wrapper's
one sub-module, ``module``, remembers no devices (``device_ids`` is ``[]``, whatever was
asked) and calls the model itself on each input.  autograd_lab does the same, so such code
runs unchanged: the numbers are the model's own, the state dict's keys start with
``module.`` and the printed form shows the wrapper, as torch's do.
"""
from .modules import Module


class DataParallel(Module):
    """``DataParallel(module, device_ids=None, output_device=None, dim=0)``: ``module``
    called on the inputs (no GPU, so nothing to split them over)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
