"""The image layers of ``msc.nn``: ``nn.PixelShuffle`` and ``nn.PixelUnshuffle``, over
``ops.pixel_shuffle`` and ``ops.pixel_unshuffle`` (``nn.Upsample`` is in ``basic.py``, as in
MindSpore).
"""

from __future__ import annotations

from typing import Any

from msc.nn.cell import Cell
from msc.nn.layer.basic import Upsample
from msc.ops.function.image_func import _factor, pixel_shuffle, pixel_unshuffle


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


__all__ = ["PixelShuffle", "PixelUnshuffle"]
