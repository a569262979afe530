"""``mindspore.common.tensor``: ``Tensor``."""

from msc.frontend.api.tensor import Tensor

__all__ = ["Tensor"]
