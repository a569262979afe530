"""``mindspore.nn.optim``: the optimizers (``from mindspore.nn.optim import Momentum``)."""

from msc.nn.optim.adam import Adam, AdamWeightDecay  # noqa: F401
from msc.nn.optim.momentum import Momentum  # noqa: F401
from msc.nn.optim.optimizer import Optimizer  # noqa: F401
from msc.nn.optim.sgd import SGD  # noqa: F401

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay"]
