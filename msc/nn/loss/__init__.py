"""``mindspore.nn.loss``: the loss layers (``from mindspore.nn.loss import MSELoss``)."""

from msc.nn.loss.ctc import CTCLoss  # noqa: F401
from msc.nn.loss.loss import *  # noqa: F401,F403
from msc.nn.loss.loss import __all__ as _losses

__all__ = [*_losses, "CTCLoss"]
