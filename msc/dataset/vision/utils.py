"""``mindspore.dataset.vision.utils``: the interpolation and border enums."""

from __future__ import annotations

import enum

__all__ = ["Inter", "Border"]


class Inter(enum.Enum):
    NEAREST = "nearest"
    ANTIALIAS = "antialias"
    LINEAR = "linear"
    BILINEAR = "linear"
    CUBIC = "cubic"
    BICUBIC = "cubic"
    AREA = "area"
    PILCUBIC = "pilcubic"


class Border(str, enum.Enum):
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"
