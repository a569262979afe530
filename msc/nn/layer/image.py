"""The image layers of ``msc.nn``: ``nn.Upsample``, ``nn.PixelShuffle`` and
``nn.PixelUnshuffle``, over ``ops.interpolate`` and ``ops.pixel_shuffle``.
"""

from __future__ import annotations

from typing import Any

from msc.nn.cell import Cell
from msc.ops.function.image_func import _factor, interpolate, pixel_shuffle, pixel_unshuffle


class Upsample(Cell):
    """``nn.Upsample``: ``ops.interpolate`` with the layer's arguments."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: Any = None, recompute_scale_factor: Any = None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x: Any) -> Any:
        return interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                           self.recompute_scale_factor)


class PixelShuffle(Cell):
    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = _factor(upscale_factor, "upscale_factor")

    def construct(self, input: Any) -> Any:
        return pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Cell):
    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = _factor(downscale_factor, "downscale_factor")

    def construct(self, input: Any) -> Any:
        return pixel_unshuffle(input, self.downscale_factor)


__all__ = ["Upsample", "PixelShuffle", "PixelUnshuffle"]
