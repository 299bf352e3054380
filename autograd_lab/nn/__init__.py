"""``al.nn``: the torch.nn pieces tutorials train with -- modules (layers, activations,
losses) in ``modules.py``, the functions behind them in ``functional.py``, the rules of
linear, convolution and pooling layers in ``layer_rules.py``, of the losses in ``loss_rules.py``,
initialisations in ``init.py``."""
from . import functional, init
from .modules import (AdaptiveAvgPool2d, AvgPool2d, BCELoss, BCEWithLogitsLoss, Conv2d, CrossEntropyLoss,
                      Dropout, Flatten, Identity, L1Loss, Linear, LogSoftmax, MaxPool2d, Module, MSELoss,
                      NLLLoss, Parameter, ReLU, Sequential, Sigmoid, Softmax, Tanh)

__all__ = ["functional", "init", "Module", "Parameter", "Linear", "Conv2d", "MaxPool2d", "AvgPool2d",
           "AdaptiveAvgPool2d", "Dropout", "Flatten", "Identity", "Sequential", "ReLU", "Sigmoid", "Tanh",
           "Softmax", "LogSoftmax", "MSELoss", "L1Loss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss",
           "CrossEntropyLoss"]

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.nn", __name__, "al.nn")   # (names torch has: not_here.py)
