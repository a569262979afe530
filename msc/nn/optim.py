"""``mindspore.nn.optim``: the optimizers (``from mindspore.nn.optim import Momentum``)."""

from msc.frontend.api.optim import SGD, Adam, AdamWeightDecay, Momentum, Optimizer  # noqa: F401

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay"]
