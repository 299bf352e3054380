"""``al.nn``: the torch.nn pieces tutorials train with -- modules (layers, activations,
losses) in ``modules.py``, the functions behind them in ``functional.py``, the rules of
linear, convolution and pooling layers in ``layer_rules.py``, of the losses in ``loss_rules.py``,
initialisations in ``init.py``; the building blocks beyond them (activations,
normalization, embedding, containers, hooks, lazy layers) each in a module named for
them, ``utils`` (gradient clipping; ``utils/rnn.py``: packed sequences); convolutions and poolings of
any dimension (``convolution.py``), padding, resizing and grid sampling
(``resampling*.py``), recurrent layers (``recurrent.py``), attention and the
Transformer (``attention.py``), DataParallel as a machine without a GPU has it
(``data_parallel.py``)."""
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

# -- building blocks: activations, normalization, embedding, containers, channel dropout,
#    similarity, lazy layers (activation.py, normalization.py, embedding.py, containers.py,
#    dropout.py, distance.py, lazy.py), and nn.utils (gradient clipping, parameter vectors)
from . import utils  # noqa: E402
from .activation import (CELU, ELU, GELU, SELU, Hardtanh, LeakyReLU, LogSigmoid, Mish, PReLU,  # noqa: E402
                         ReLU6, SiLU, Softplus, Softsign, Tanhshrink)
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList  # noqa: E402
from .distance import CosineSimilarity, PairwiseDistance  # noqa: E402
from .dropout import Dropout1d, Dropout2d, Dropout3d  # noqa: E402
from .embedding import Embedding  # noqa: E402
from .lazy import LazyLinear, UninitializedParameter  # noqa: E402
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d,  # noqa: E402
                            InstanceNorm2d, InstanceNorm3d, LayerNorm, RMSNorm)

__all__ += ["utils", "LeakyReLU", "GELU", "SiLU", "Mish", "SELU", "ELU", "CELU", "Softplus", "Hardtanh", "ReLU6",
            "LogSigmoid", "Softsign", "Tanhshrink", "PReLU", "ModuleList", "ModuleDict", "ParameterList",
            "ParameterDict", "CosineSimilarity", "PairwiseDistance", "Dropout1d", "Dropout2d", "Dropout3d",
            "Embedding", "LazyLinear", "UninitializedParameter", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
            "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LayerNorm", "GroupNorm", "RMSNorm"]

__all__ += ["Conv1d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "MaxPool1d", "AvgPool1d",
            "AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
            "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "PixelShuffle", "PixelUnshuffle", "ReflectionPad1d",
            "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
            "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
            "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
            "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
            "TransformerDecoderLayer"]

# nn.DataParallel as a machine without a GPU has it (the model itself, wrapped)
from .data_parallel import DataParallel  # noqa: E402

__all__ += ["DataParallel"]

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.nn", __name__, "al.nn")   # (names torch has: not_here.py)
