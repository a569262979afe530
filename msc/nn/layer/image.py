"""The image layers of ``msc.nn``: ``nn.PixelShuffle`` and ``nn.PixelUnshuffle``, over
``ops.pixel_shuffle`` and ``ops.pixel_unshuffle``, ``nn.CentralCrop`` and
``nn.ImageGradients`` (``nn.Upsample`` is in ``basic.py``, as in
MindSpore).
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphValueError
from msc.frontend.source import user_loc
from msc.nn.cell import Cell
from msc.ops import functional as F
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


class CentralCrop(Cell):
    """The central ``central_fraction`` of the last two axes of a 3-D or 4-D image."""

    def __init__(self, central_fraction: float):
        super().__init__()
        if isinstance(central_fraction, bool) or not isinstance(central_fraction, (int, float)) \
                or not 0 < central_fraction <= 1:
            raise GraphValueError(f"For 'CentralCrop', the 'central_fraction' must be in "
                                  f"(0, 1], but got {central_fraction!r}.", user_loc())
        self.central_fraction = float(central_fraction)

    def construct(self, image: Any) -> Any:
        if image.ndim not in (3, 4):
            raise GraphValueError(f"For 'CentralCrop', the image must be 3-D or 4-D, but got "
                                  f"{image.ndim}-D.", user_loc())
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        oh, ow = int(h * self.central_fraction), int(w * self.central_fraction)
        top, left = (h - oh) // 2, (w - ow) // 2
        return image[..., top:top + oh, left:left + ow]


class ImageGradients(Cell):
    """(dy, dx) of an (N, C, H, W) image: forward differences down and across, 0 in the
    last row (column)."""

    def construct(self, images: Any) -> Any:
        if images.ndim != 4:
            raise GraphValueError(f"For 'ImageGradients', the input must be 4-D, but got "
                                  f"{images.ndim}-D.", user_loc())
        dy = images[:, :, 1:, :] - images[:, :, :-1, :]
        dx = images[:, :, :, 1:] - images[:, :, :, :-1]
        n, c, h, w = images.shape
        dy = F.concat((dy, F.zeros((n, c, 1, w), images.dtype)), 2)
        dx = F.concat((dx, F.zeros((n, c, h, 1), images.dtype)), 3)
        return dy, dx


class Unfold(Cell):
    """Image patches: (N, C, H, W) -> (N, kh * kw * C, out_h, out_w), depth ordered (row,
    column, channel); ``ksizes``, ``strides`` and ``rates`` as (1, h, w, 1)."""

    def __init__(self, ksizes: Any, strides: Any, rates: Any, padding: str = "valid"):
        super().__init__()
        self.ksizes, self.strides, self.rates, self.padding = ksizes, strides, rates, padding

    def construct(self, x: Any) -> Any:
        from msc.ops.function.patch_func import extract_patches

        return extract_patches(x, self.ksizes, self.strides, self.rates, self.padding,
                               "Unfold")


__all__ = ["PixelShuffle", "PixelUnshuffle", "CentralCrop", "ImageGradients", "Unfold"]
