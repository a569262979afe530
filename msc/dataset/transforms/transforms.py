"""``mindspore.dataset.transforms.transforms``: the general transforms, ``TypeCast``,
``OneHot`` and ``Compose``."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError

__all__ = ["TypeCast", "OneHot", "Compose"]


class TypeCast:
    """To ``data_type``: an msc dtype (``ms.int32``) or a numpy one."""

    def __init__(self, data_type: Any):
        from msc.ir import dtypes

        found = dtypes.coerce(data_type)
        if isinstance(found, dtypes.DType):
            self.dtype = found.np
        else:
            try:
                self.dtype = np.dtype(data_type)
            except TypeError:
                raise GraphTypeError(f"TypeCast: {data_type!r} is not a data type.") from None

    def __call__(self, data: Any) -> np.ndarray:
        return np.asarray(data).astype(self.dtype)


class OneHot:
    """Class indices to one-hot rows of ``num_classes`` (the input's dtype); with
    ``smoothing_rate`` s, float32 rows of ``1 - s + s/n`` and ``s/n``."""

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise GraphValueError(f"OneHot: num_classes must be a positive int, but got "
                                  f"{num_classes!r}.")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise GraphValueError(f"OneHot: smoothing_rate must be in [0.0, 1.0], but got "
                                  f"{smoothing_rate!r}.")
        self.num_classes, self.smoothing_rate = num_classes, float(smoothing_rate)

    def __call__(self, label: Any) -> np.ndarray:
        arr = np.asarray(label)
        if arr.dtype.kind not in "iu":
            raise GraphTypeError(f"OneHot: the label must be integers, but got {arr.dtype}.")
        if ((arr < 0) | (arr >= self.num_classes)).any():
            raise GraphValueError(f"OneHot: labels must be in [0, {self.num_classes}), but got "
                                  f"{arr.min()}..{arr.max()}.")
        hot = np.arange(self.num_classes) == arr[..., None]
        if self.smoothing_rate:
            off = self.smoothing_rate / self.num_classes
            return np.where(hot, 1 - self.smoothing_rate + off, off).astype(np.float32)
        return hot.astype(arr.dtype)


class Compose:
    """The transforms in turn, each fed what the one before returned."""

    def __init__(self, transforms: Any):
        ops = list(transforms) if isinstance(transforms, (list, tuple)) else None
        if not ops or not all(callable(t) for t in ops):
            raise GraphTypeError(f"Compose: transforms must be a non-empty list of callables, "
                                 f"but got {transforms!r}.")
        self.transforms = ops

    def __call__(self, *args: Any) -> Any:
        for t in self.transforms:
            out = t(*args)
            args = out if isinstance(out, tuple) else (out,)
        return args[0] if len(args) == 1 else args
