"""``from msc import nn``: MindSpore's ``mindspore.nn`` names (Cell, containers, layers)."""

from msc.frontend.api.cell import Cell, CellList, SequentialCell
from msc.frontend.api.activations import *  # noqa: F401,F403
from msc.frontend.api.activations import __all__ as _activations_all
from msc.frontend.api.conv_layers import *  # noqa: F401,F403
from msc.frontend.api.conv_layers import __all__ as _conv_layers_all
from msc.frontend.api.layers import (
    GELU,
    Dense,
    Dropout,
    Flatten,
    HSwish,
    Identity,
    LogSoftmax,
    ReLU,
    ReLU6,
    Sigmoid,
    Softmax,
    Tanh,
    get_activation,
)
from msc.frontend.api.loss import (
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    LossBase,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    SoftmaxCrossEntropyWithLogits,
)
from msc.frontend.api.optim import SGD, Adam, AdamWeightDecay, Momentum, Optimizer
from msc.frontend.api.train import ForwardValueAndGrad, TrainOneStepCell, WithLossCell

__all__ = [
    "Cell", "CellList", "SequentialCell",
    "Dense", "LayerNorm", "Dropout", "Flatten", "Identity",
    "ReLU", "ReLU6", "Sigmoid", "Tanh", "GELU", "HSwish", "Softmax", "LogSoftmax",
    "get_activation",
    "LossBase", "MSELoss", "L1Loss", "SmoothL1Loss", "SoftmaxCrossEntropyWithLogits",
    "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss",
    "Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay",
    "WithLossCell", "TrainOneStepCell", "ForwardValueAndGrad",
] + _conv_layers_all + _activations_all

from msc.nn import dynamic_lr, learning_rate_schedule, optim  # noqa: E402
from msc.nn.dynamic_lr import *  # noqa: F401,F403,E402
from msc.nn.learning_rate_schedule import *  # noqa: F401,F403,E402

__all__ += [*dynamic_lr.__all__, *learning_rate_schedule.__all__]

from msc.frontend.api.embedding import Embedding, EmbeddingLookup  # noqa: E402
from msc.frontend.api.norm import (  # noqa: E402
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    GroupNorm,
    LayerNorm,  # MindSpore's independent begin_norm_axis and begin_params_axis
)

__all__ += ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "Embedding",
            "EmbeddingLookup"]

from msc.frontend.api.transformer import *  # noqa: F401,F403,E402
from msc.frontend.api.transformer import __all__ as _transformer_all  # noqa: E402

__all__ += _transformer_all


from msc.frontend.api.rnn import GRU, LSTM, RNN  # noqa: E402
from msc.frontend.api.rnn_cells import GRUCell, LSTMCell, RNNCell  # noqa: E402

__all__ += ["RNN", "GRU", "LSTM", "RNNCell", "GRUCell", "LSTMCell"]

from msc.frontend.api import misc_layers as _misc, resize as _resize  # noqa: E402
from msc.frontend.api.misc_layers import CellDict, ClipByNorm, Unflatten  # noqa: E402
from msc.frontend.api.resize import (  # noqa: E402
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    PixelShuffle,
    PixelUnshuffle,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    Upsample,
    ZeroPad2d,
)
from msc.frontend.api.resize import PadCell as Pad  # noqa: E402

__all__ += [*_resize.NN, "Pad", *_misc.NN]

from msc.frontend.api.coverage_classes import NN_CELLS as _coverage_cells  # noqa: E402

globals().update(_coverage_cells)
__all__ += list(_coverage_cells)


def __getattr__(name: str) -> object:
    """A MindSpore ``nn`` name msc lacks: msc's "not supported yet" error."""
    from msc.api_names import missing_attribute

    raise missing_attribute("msc.nn", ("nn",), name)
