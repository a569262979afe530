"""``mindspore.nn.wrap``: the training wrappers (``WithLossCell``, ``TrainOneStepCell``,
``ForwardValueAndGrad``) and ``DistributedGradReducer``."""

from msc.nn.wrap.cell_wrapper import *  # noqa: F401,F403
from msc.nn.wrap.cell_wrapper import __all__ as _wrappers
from msc.nn.wrap.grad_reducer import *  # noqa: F401,F403
from msc.nn.wrap.grad_reducer import __all__ as _reducers

__all__ = [*_wrappers, *_reducers]
