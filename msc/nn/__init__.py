"""``from msc import nn``: MindSpore's ``mindspore.nn`` names (Cell, containers, layers)."""

from msc.frontend.api.cell import Cell, CellList, SequentialCell
from msc.frontend.api.layers import (
    GELU,
    Dense,
    Dropout,
    Flatten,
    HSwish,
    Identity,
    LayerNorm,
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
]
