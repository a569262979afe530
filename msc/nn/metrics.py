"""``mindspore.nn.metrics``: the metrics of ``msc.train.metrics`` (the same objects), which
MindSpore also exports from ``mindspore.nn``."""

from msc.train import metrics as _metrics
from msc.train.metrics import *  # noqa: F403 - every metric, as train.metrics lists them

__all__ = list(_metrics.__all__)
