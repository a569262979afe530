"""``mindspore.train``: ``Model`` and the checkpoint functions."""

from msc.train import serialization  # noqa: F401
from msc.train.model import Model
from msc.train.serialization import export, load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["Model", "save_checkpoint", "load_checkpoint", "load_param_into_net", "export"]
