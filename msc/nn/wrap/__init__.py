"""``mindspore.nn.wrap``: the training wrappers (``WithLossCell``, ``TrainOneStepCell``,
``ForwardValueAndGrad``, ``TrainOneStepWithLossScaleCell`` and its update cells) and
``DistributedGradReducer``."""

from msc.nn.wrap import loss_scale
from msc.nn.wrap.cell_wrapper import *  # noqa: F401,F403
from msc.nn.wrap.cell_wrapper import __all__ as _wrappers
from msc.nn.wrap.grad_reducer import *  # noqa: F401,F403
from msc.nn.wrap.grad_reducer import __all__ as _reducers
from msc.nn.wrap.loss_scale import *  # noqa: F401,F403

__all__ = [*_wrappers, *_reducers, *loss_scale.__all__]
