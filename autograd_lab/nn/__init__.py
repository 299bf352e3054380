"""``al.nn``: the torch.nn pieces tutorials train with -- modules (layers, activations,
losses) in ``modules.py``, the functions behind them in ``functional.py``."""
from . import functional
from .modules import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, Flatten, Identity, Linear, LogSoftmax,
                      Module, MSELoss, NLLLoss, Parameter, ReLU, Sequential, Sigmoid, Softmax, Tanh)

__all__ = ["functional", "Module", "Parameter", "Linear", "Flatten", "Identity", "Sequential", "ReLU",
           "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "MSELoss", "BCELoss", "BCEWithLogitsLoss",
           "NLLLoss", "CrossEntropyLoss"]
