"""``mindspore.train``: ``Model`` and the checkpoint functions."""

from msc.train import serialization  # noqa: F401
from msc.train.amp import build_train_network
from msc.train.loss_scale_manager import (
    DynamicLossScaleManager,
    FixedLossScaleManager,
    LossScaleManager,
)
from msc.train.model import Model
from msc.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["Model", "save_checkpoint", "load_checkpoint", "load_param_into_net",
           "build_train_network", "LossScaleManager", "FixedLossScaleManager",
           "DynamicLossScaleManager"]
