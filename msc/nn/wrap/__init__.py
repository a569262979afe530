"""``mindspore.nn.wrap``: the training wrappers (``WithLossCell``, ``TrainOneStepCell``,
``ForwardValueAndGrad``, ``TrainOneStepWithLossScaleCell`` and its update cells)."""

from msc.nn.wrap import cell_wrapper, loss_scale
from msc.nn.wrap.cell_wrapper import *  # noqa: F401,F403
from msc.nn.wrap.loss_scale import *  # noqa: F401,F403

__all__ = cell_wrapper.__all__ + loss_scale.__all__
