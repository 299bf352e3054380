"""``al.optim``: the optimizers tutorials train with, as torch.optim has them -- the base
class (``optimizer.py``: parameter groups, state, state_dict), the algorithms (SGD,
Adam, AdamW, RMSprop, Adagrad: ``algorithms.py``) and the learning-rate schedulers
(``lr_scheduler.py``)."""
from . import lr_scheduler
from .algorithms import SGD, Adagrad, Adam, AdamW, RMSprop
from .optimizer import Optimizer

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.optim", __name__, "al.optim")   # (names torch has: not_here.py)
