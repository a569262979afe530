"""``mindspore.train``: ``Model`` and the checkpoint functions."""

from msc.frontend.api.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from msc.frontend.api.model import Model
from msc.train import serialization  # noqa: F401

__all__ = ["Model", "save_checkpoint", "load_checkpoint", "load_param_into_net"]
