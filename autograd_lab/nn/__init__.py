"""``al.nn``: the few torch.nn pieces the book uses (modules are thin callables)."""
from . import functional
from .modules import Linear, Module, MSELoss, Parameter, ReLU, Sequential, Sigmoid, Tanh

__all__ = ["functional", "Module", "Sigmoid", "Tanh", "ReLU", "Linear", "Sequential",
           "MSELoss", "Parameter"]
