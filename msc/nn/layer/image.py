"""The image layers of ``msc.nn``: ``nn.PixelShuffle`` and ``nn.PixelUnshuffle``, over
``ops.pixel_shuffle`` and ``ops.pixel_unshuffle``, ``nn.CentralCrop``,
``nn.ImageGradients``, and the image-quality measures ``nn.PSNR``, ``nn.SSIM`` and
``nn.MSSSIM`` (``nn.Upsample`` is in ``basic.py``, as in MindSpore).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc import dtype as mstype
from msc.common.tensor import Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.nn.cell import Cell
from msc.nn.layer.basic import Upsample
from msc.nn.layer.container import CellList
from msc.nn.layer.conv import Conv2d
from msc.nn.layer.pooling import AvgPool2d
from msc.ops import functional as F
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


def _check_max_val(max_val: Any, cls: str) -> Any:
    if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
        raise GraphTypeError(f"For '{cls}', the 'max_val' must be int or float, but got "
                             f"{type(max_val).__name__}.", user_loc())
    if not max_val > 0:
        raise GraphValueError(f"For '{cls}', the 'max_val' must be greater than 0, but got "
                              f"{max_val}.", user_loc())
    return max_val


def _check_window(cls: str, filter_size: Any, filter_sigma: Any, k1: Any, k2: Any) -> None:
    if isinstance(filter_size, bool) or not isinstance(filter_size, int) or filter_size < 1:
        raise GraphValueError(f"For '{cls}', the 'filter_size' must be an int >= 1, but got "
                              f"{filter_size!r}.", user_loc())
    if not isinstance(filter_sigma, float) or not filter_sigma > 0:
        raise GraphValueError(f"For '{cls}', the 'filter_sigma' must be a positive float, but "
                              f"got {filter_sigma!r}.", user_loc())
    for name, k in (("k1", k1), ("k2", k2)):
        if not isinstance(k, float):
            raise GraphTypeError(f"For '{cls}', the '{name}' must be float, but got "
                                 f"{type(k).__name__}.", user_loc())


def _gaussian_window(size: int, sigma: float) -> Tensor:
    """The normalized (1, 1, size, size) Gaussian filter, centred as MindSpore's (an even
    size has one more tap after the centre)."""
    taps = np.arange(-size // 2 + 1, size // 2 + 1, dtype=np.float32)
    g = np.exp(-(taps[:, None] ** 2 + taps[None, :] ** 2) / (2 * sigma ** 2))
    return Tensor((g / g.sum())[None, None].astype(np.float32))


def _window_conv(size: int, sigma: float) -> Conv2d:
    conv = Conv2d(1, 1, size, pad_mode="valid", weight_init=_gaussian_window(size, sigma))
    conv.weight.requires_grad = False
    return conv


def _check_images(cls: str, img1: Any, img2: Any, dtypes: tuple[Any, ...] | None) -> None:
    for name, img in (("img1", img1), ("img2", img2)):
        if img.ndim != 4:
            raise GraphValueError(f"For '{cls}', the dimension of '{name}' must be 4d, but got "
                                  f"{img.ndim}.", user_loc())
    if dtypes is not None and img1.dtype not in dtypes:
        raise GraphTypeError(f"For '{cls}', the type of 'img1' must be in {list(dtypes)}, but "
                             f"got {img1.dtype}.", user_loc())
    if img1.dtype != img2.dtype or img1.shape != img2.shape:
        raise GraphTypeError(f"For '{cls}', 'img1' and 'img2' must have the same type and shape, "
                             f"but got {img1.dtype} {img1.shape} and {img2.dtype} {img2.shape}.",
                             user_loc())


def _to_unit_range(img: Any, max_val: Any) -> tuple[Any, float]:
    """The image as float32 scaled to [0, 1] if its dtype is an integer (divided by the
    dtype's largest value), and ``max_val`` scaled alike."""
    np_type = mstype.dtype_to_nptype(img.dtype)
    top = float(np.iinfo(np_type).max) if np.issubdtype(np_type, np.integer) else 1.0
    img = F.cast(img, mstype.float32)
    if top > 1.0:
        return img * (1.0 / top), float(np.float32(max_val) * np.float32(1.0 / top))
    return img, float(np.float32(max_val))


def _ssim_and_cs(img1: Any, img2: Any, conv: Cell, c1: float, c2: float) -> tuple[Any, Any]:
    """Per sample and channel, the mean SSIM and contrast-structure terms over the windows
    (each channel filtered on its own)."""
    n, c, h, w = img1.shape
    one = (n * c, 1, h, w)

    def filtered(x: Any) -> Any:
        out = conv(F.reshape(x, one))
        return F.reshape(out, (n, c) + tuple(out.shape[2:]))

    mu1, mu2 = filtered(img1), filtered(img2)
    mu11, mu22, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
    var1 = filtered(img1 * img1) - mu11
    var2 = filtered(img2 * img2) - mu22
    cov = filtered(img1 * img2) - mu12
    cs = (2 * cov + c2) / (var1 + var2 + c2)
    ssim = (2 * mu12 + c1) / (mu11 + mu22 + c1) * cs
    return F.reduce_mean(ssim, (2, 3)), F.reduce_mean(cs, (2, 3))


class PSNR(Cell):
    """Peak signal-to-noise ratio per image of two (N, C, H, W) batches:
    ``10 log10(max_val^2 / mse)``."""

    def __init__(self, max_val: float = 1.0):
        super().__init__()
        self.max_val = _check_max_val(max_val, "PSNR")

    def construct(self, img1: Any, img2: Any) -> Any:
        _check_images("PSNR", img1, img2, None)
        img1, max_val = _to_unit_range(img1, self.max_val)
        img2, _ = _to_unit_range(img2, self.max_val)
        mse = F.reduce_mean(F.square(img1 - img2), (-3, -2, -1))
        return 10 * F.log(max_val * max_val / mse) / float(np.log(10.0))


class SSIM(Cell):
    """Structural similarity per image of two float (N, C, H, W) batches, by a
    ``filter_size`` Gaussian window (valid positions only), averaged over channels."""

    def __init__(self, max_val: float = 1.0, filter_size: int = 11, filter_sigma: float = 1.5,
                 k1: float = 0.01, k2: float = 0.03):
        super().__init__()
        self.max_val = _check_max_val(max_val, "SSIM")
        _check_window("SSIM", filter_size, filter_sigma, k1, k2)
        self.filter_size, self.filter_sigma, self.k1, self.k2 = filter_size, filter_sigma, k1, k2
        self.conv = _window_conv(filter_size, filter_sigma)

    def construct(self, img1: Any, img2: Any) -> Any:
        _check_images("SSIM", img1, img2, (mstype.float32, mstype.float16))
        if img1.shape[2] < self.filter_size or img1.shape[3] < self.filter_size:
            raise GraphValueError(f"For 'SSIM', the height and width of 'img1' must be at least "
                                  f"filter_size {self.filter_size}, but got {img1.shape}.",
                                  user_loc())
        img1, max_val = _to_unit_range(img1, self.max_val)
        img2, _ = _to_unit_range(img2, self.max_val)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        ssim, _ = _ssim_and_cs(img1, img2, self.conv, c1, c2)
        return F.reduce_mean(ssim, -1)


class MSSSIM(Cell):
    """Multi-scale SSIM: the contrast-structure terms of the first scales and the SSIM of
    the last (each at least 0), each to its ``power_factors`` weight, multiplied; the
    images halved by 2x2 average pooling between scales; averaged over channels."""

    def __init__(self, max_val: float = 1.0,
                 power_factors: Any = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                 filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01,
                 k2: float = 0.03):
        super().__init__()
        self.max_val = _check_max_val(max_val, "MSSSIM")
        if not isinstance(power_factors, (tuple, list)):
            raise GraphTypeError(f"For 'MSSSIM', the 'power_factors' must be tuple or list, but "
                                 f"got {type(power_factors).__name__}.", user_loc())
        _check_window("MSSSIM", filter_size, filter_sigma, k1, k2)
        self.filter_size, self.filter_sigma, self.k1, self.k2 = filter_size, filter_sigma, k1, k2
        self.level = len(power_factors)
        self.multi_convs_list = CellList([_window_conv(filter_size, filter_sigma)
                                          for _ in range(self.level)])
        self.weight_tensor = Tensor(np.array(power_factors, np.float32))
        self.avg_pool = AvgPool2d(kernel_size=2, stride=2, pad_mode="valid")

    def construct(self, img1: Any, img2: Any) -> Any:
        _check_images("MSSSIM", img1, img2, (mstype.float64, mstype.float32, mstype.float16,
                                             mstype.uint8))
        img1, max_val = _to_unit_range(img1, self.max_val)
        img2, _ = _to_unit_range(img2, self.max_val)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        terms = ()
        ssim = None
        for i in range(self.level):
            ssim, cs = _ssim_and_cs(img1, img2, self.multi_convs_list[i], c1, c2)
            if i < self.level - 1:
                terms += (F.relu(cs),)
            img1, img2 = self.avg_pool(img1), self.avg_pool(img2)
        stacked = F.stack(terms + (F.relu(ssim),), -1)
        return F.reduce_mean(F.prod(F.pow(stacked, self.weight_tensor), -1), -1)


__all__ = ["PixelShuffle", "PixelUnshuffle", "CentralCrop", "ImageGradients", "Unfold", "PSNR",
           "SSIM", "MSSSIM"]
