"""``mindspore.dataset.vision.transforms``: the image transforms of the public model
scripts, on HWC numpy arrays (a PIL image is taken as its array).

Images are decoded and resized by Pillow; the rest is numpy. Pillow's bilinear resize
filters over the whole footprint when it shrinks an image, where MindSpore (OpenCV)
samples four neighbours, so a downscaled image differs from MindSpore's by a few levels;
enlarging agrees to one level.
"""

from __future__ import annotations

import io
import numbers
from typing import Any

import numpy as np

from msc.dataset.core import config
from msc.dataset.vision.utils import Border, Inter
from msc.errors import GraphTypeError, GraphValueError

__all__ = ["Decode", "Resize", "RandomCrop", "RandomHorizontalFlip", "Rescale", "Normalize",
           "HWC2CHW", "CenterCrop"]


def _pillow() -> Any:
    try:
        from PIL import Image
    except ImportError:
        from msc.api_names import UnsupportedApiError

        raise UnsupportedApiError("Decoding and resizing images needs Pillow: install msc "
                                  "with the 'vision' extra (pip install msc[vision]).") from None
    return Image


def _image(img: Any, name: str) -> np.ndarray:
    arr = np.asarray(img)
    if arr.ndim not in (2, 3):
        raise GraphValueError(f"{name}: the image must be <H, W> or <H, W, C>, but got shape "
                              f"{arr.shape}.")
    return arr


def _size(size: Any, name: str) -> tuple[int, int] | int:
    if isinstance(size, numbers.Integral) and not isinstance(size, bool) and size > 0:
        return int(size)
    if isinstance(size, (tuple, list)) and len(size) == 2 and \
            all(isinstance(s, numbers.Integral) and s > 0 for s in size):
        return int(size[0]), int(size[1])
    raise GraphTypeError(f"{name}: size must be a positive int or a (height, width) pair of "
                         f"positive ints, but got {size!r}.")


class Decode:
    """Encoded image bytes (a 1-D uint8 array, or bytes) to an RGB HWC uint8 array."""

    def __init__(self, to_pil: bool = False):
        self.to_pil = to_pil

    def __call__(self, img: Any) -> Any:
        data = bytes(img) if isinstance(img, (bytes, bytearray)) else np.asarray(img).tobytes()
        Image = _pillow()
        try:
            with Image.open(io.BytesIO(data)) as opened:
                rgb = opened.convert("RGB")
        except Exception as e:
            raise GraphValueError(f"Decode: the data is not an image Pillow can decode: "
                                  f"{e}") from None
        return rgb if self.to_pil else np.asarray(rgb)


_FILTERS = {"nearest": "NEAREST", "linear": "BILINEAR", "cubic": "BICUBIC", "area": "BOX",
            "pilcubic": "BICUBIC", "antialias": "LANCZOS"}


class Resize:
    """To ``size`` (height, width), or with an int: the shorter side to ``size``, the
    aspect ratio kept. Each channel is resized by Pillow (8-bit or 32-bit float)."""

    def __init__(self, size: Any, interpolation: Inter = Inter.LINEAR):
        self.size = _size(size, "Resize")
        self.interpolation = Inter(interpolation)

    def __call__(self, img: Any) -> np.ndarray:
        arr = _image(img, "Resize")
        h, w = arr.shape[:2]
        if isinstance(self.size, int):
            short = self.size
            out_h, out_w = (short, int(w * short / h)) if h <= w else (int(h * short / w), short)
        else:
            out_h, out_w = self.size
        Image = _pillow()
        resample = getattr(Image.Resampling, _FILTERS[self.interpolation.value])
        planes = arr[:, :, None] if arr.ndim == 2 else arr
        mode, work = ("L", planes) if arr.dtype == np.uint8 else ("F", planes.astype(np.float32))
        out = np.stack([np.asarray(Image.fromarray(np.ascontiguousarray(work[:, :, c]), mode)
                                   .resize((out_w, out_h), resample))
                        for c in range(planes.shape[2])], axis=2)
        out = out.astype(arr.dtype, copy=False)
        return out[:, :, 0] if arr.ndim == 2 else out


def _crop_box(h: int, w: int, size: tuple[int, int], name: str) -> None:
    if size[0] > h or size[1] > w:
        raise GraphValueError(f"{name}: the crop size {size} is larger than the image "
                              f"({h}, {w}).")


class CenterCrop:
    """The central ``size`` region; the top-left corner is rounded down, as in MindSpore."""

    def __init__(self, size: Any):
        size = _size(size, "CenterCrop")
        self.size = (size, size) if isinstance(size, int) else size

    def __call__(self, img: Any) -> np.ndarray:
        arr = _image(img, "CenterCrop")
        h, w = arr.shape[:2]
        _crop_box(h, w, self.size, "CenterCrop")
        top, left = (h - self.size[0]) // 2, (w - self.size[1]) // 2
        return arr[top:top + self.size[0], left:left + self.size[1]].copy()


class RandomCrop:
    """A ``size`` region at a random place, after optional ``padding`` (an int, or
    (left/right, top/bottom), or (left, top, right, bottom)) filled as ``padding_mode``."""

    def __init__(self, size: Any, padding: Any = None, pad_if_needed: bool = False,
                 fill_value: Any = 0, padding_mode: Border = Border.CONSTANT):
        size = _size(size, "RandomCrop")
        self.size = (size, size) if isinstance(size, int) else size
        if padding is None:
            padding = 0
        pads = [padding] * 4 if isinstance(padding, int) else list(padding)
        if len(pads) == 2:
            pads = pads * 2
        if len(pads) != 4 or not all(isinstance(p, int) and p >= 0 for p in pads):
            raise GraphValueError(f"RandomCrop: padding must be a non-negative int or a "
                                  f"sequence of 2 or 4 of them, but got {padding!r}.")
        self.padding = pads  # left, top, right, bottom
        self.pad_if_needed = pad_if_needed
        self.fill_value = fill_value
        self.padding_mode = Border(padding_mode)

    def _pad(self, arr: np.ndarray, top: int, bottom: int, left: int, right: int) -> np.ndarray:
        width = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
        if self.padding_mode is Border.CONSTANT:
            fill = self.fill_value
            if isinstance(fill, (tuple, list)) and arr.ndim == 3:
                out = np.stack([np.pad(arr[:, :, c], width[:2], constant_values=fill[c])
                                for c in range(arr.shape[2])], axis=2)
                return out
            return np.pad(arr, width, constant_values=fill)
        return np.pad(arr, width, mode=self.padding_mode.value)

    def __call__(self, img: Any) -> np.ndarray:
        arr = _image(img, "RandomCrop")
        left, top, right, bottom = self.padding
        if any(self.padding):
            arr = self._pad(arr, top, bottom, left, right)
        h, w = arr.shape[:2]
        if self.pad_if_needed and (h < self.size[0] or w < self.size[1]):
            dh, dw = max(self.size[0] - h, 0), max(self.size[1] - w, 0)
            arr = self._pad(arr, dh // 2, dh - dh // 2, dw // 2, dw - dw // 2)
            h, w = arr.shape[:2]
        _crop_box(h, w, self.size, "RandomCrop")
        rng = config.transform_generator()
        y = int(rng.integers(h - self.size[0] + 1))
        x = int(rng.integers(w - self.size[1] + 1))
        return arr[y:y + self.size[0], x:x + self.size[1]].copy()


class RandomHorizontalFlip:
    def __init__(self, prob: float = 0.5):
        if not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
            raise GraphValueError(f"Input prob is not within the required interval of [0.0, "
                                  f"1.0], but got {prob!r}.")
        self.prob = float(prob)

    def __call__(self, img: Any) -> np.ndarray:
        arr = _image(img, "RandomHorizontalFlip")
        if config.transform_generator().random() < self.prob:
            return arr[:, ::-1].copy()
        return arr


class Rescale:
    """``img * rescale + shift`` in float32."""

    def __init__(self, rescale: float, shift: float):
        self.rescale, self.shift = float(rescale), float(shift)

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.asarray(img).astype(np.float32)
        return arr * np.float32(self.rescale) + np.float32(self.shift)


class Normalize:
    """``(img - mean) / std`` per channel, in float32 (channels last, or first with
    ``is_hwc=False``)."""

    def __init__(self, mean: Any, std: Any, is_hwc: bool = True):
        self.mean = np.asarray(mean, np.float32)
        self.std = np.asarray(std, np.float32)
        if self.mean.ndim != 1 or self.mean.shape != self.std.shape or (self.std <= 0).any():
            raise GraphValueError("Normalize: mean and std must be sequences of the same length, "
                                  f"std positive, but got {mean!r} and {std!r}.")
        self.is_hwc = is_hwc

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.asarray(img).astype(np.float32)
        shape = (-1,) if self.is_hwc or arr.ndim == 2 else (-1, 1, 1)
        return (arr - self.mean.reshape(shape)) / self.std.reshape(shape)


class HWC2CHW:
    """Channels last to channels first; a 2-D image passes unchanged, as in MindSpore."""

    def __call__(self, img: Any) -> np.ndarray:
        arr = _image(img, "HWC2CHW")
        return arr if arr.ndim == 2 else np.ascontiguousarray(arr.transpose(2, 0, 1))
