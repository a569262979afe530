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

__all__ = [
    "Cell", "CellList", "SequentialCell",
    "Dense", "LayerNorm", "Dropout", "Flatten", "Identity",
    "ReLU", "ReLU6", "Sigmoid", "Tanh", "GELU", "HSwish", "Softmax", "LogSoftmax",
    "get_activation",
]
