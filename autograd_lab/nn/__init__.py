"""``al.nn``: the torch.nn pieces tutorials train with -- modules (layers, activations,
losses) in ``modules.py``, the functions behind them in ``functional.py``, the rules of
linear, convolution and pooling layers in ``layer_rules.py``, of the losses in ``loss_rules.py``,
initialisations in ``init.py``; convolutions and poolings of any dimension
(``convolution.py``), padding, resizing and grid sampling (``resampling*.py``), recurrent
layers (``recurrent.py``, ``utils/rnn.py``), attention and the Transformer
(``attention.py``)."""
from . import functional, init
from .modules import (AdaptiveAvgPool2d, AvgPool2d, BCELoss, BCEWithLogitsLoss, Conv2d, CrossEntropyLoss,
                      Dropout, Flatten, Identity, L1Loss, Linear, LogSoftmax, MaxPool2d, Module, MSELoss,
                      NLLLoss, Parameter, ReLU, Sequential, Sigmoid, Softmax, Tanh)
# the convolution family, resampling, recurrent layers and attention (issue 48)
from .modules import (AdaptiveAvgPool1d, AdaptiveAvgPool3d, AvgPool1d, Conv1d, Conv3d, ConvTranspose1d,
                      ConvTranspose2d, ConvTranspose3d, MaxPool1d)
from .recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .attention import (MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
                        TransformerEncoder, TransformerEncoderLayer)
from . import utils
from .resampling_layers import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d,
                                ConstantPad3d, PixelShuffle, PixelUnshuffle, ReflectionPad1d, ReflectionPad2d,
                                ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, Upsample,
                                UpsamplingBilinear2d, UpsamplingNearest2d, ZeroPad1d, ZeroPad2d, ZeroPad3d)

__all__ = ["functional", "init", "Module", "Parameter", "Linear", "Conv2d", "MaxPool2d", "AvgPool2d",
           "AdaptiveAvgPool2d", "Dropout", "Flatten", "Identity", "Sequential", "ReLU", "Sigmoid", "Tanh",
           "Softmax", "LogSoftmax", "MSELoss", "L1Loss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss",
           "CrossEntropyLoss"]
__all__ += ["Conv1d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "MaxPool1d", "AvgPool1d",
            "AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
            "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "PixelShuffle", "PixelUnshuffle", "ReflectionPad1d",
            "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
            "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
            "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "utils",
            "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
            "TransformerDecoderLayer"]
