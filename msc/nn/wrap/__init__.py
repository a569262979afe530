"""``mindspore.nn.wrap``: the training wrappers (``WithLossCell``, ``TrainOneStepCell``,
``ForwardValueAndGrad``)."""

from msc.nn.wrap.cell_wrapper import *  # noqa: F401,F403
from msc.nn.wrap.cell_wrapper import __all__  # noqa: F401
