"""``mindspore.ops.primitive``: ``constexpr``."""

from msc.frontend.api.constants import constexpr

__all__ = ["constexpr"]
