"""Channel dropout modules, as torch.nn has them: Dropout1d, Dropout2d and Dropout3d zero
whole channels (one draw per sample and channel) while training and pass the input
through in eval mode.  (Dropout, entry by entry, is in ``modules.py``.)"""
from . import functional as F
from .modules import Dropout


class Dropout1d(Dropout):
    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


__all__ = ["Dropout1d", "Dropout2d", "Dropout3d"]
