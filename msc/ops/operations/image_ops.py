"""MindSpore's image primitive classes that ``nn_ops`` does not hold: ``ops.CropAndResize``
and ``ops.ResizeArea`` (NHWC images), each its functional form with the attributes fixed.
"""

from __future__ import annotations

from typing import Any

from msc.common.tensor import SymTensor, Tensor
from msc.errors import GraphTypeError, GraphValueError, UnsupportedSyntaxError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor
from msc.ops.function.conv_func import along
from msc.ops.function.image_func import _CROP_METHODS, crop_and_resize, resize_area_matrix
from msc.ops.primitive import Primitive


class CropAndResize(Primitive):
    def __init__(self, method: str = "bilinear", extrapolation_value: float = 0.0):
        if method not in _CROP_METHODS + ("bilinear_v2",):
            raise GraphValueError(f"For 'CropAndResize', the 'method' must be one of "
                                  f"{list(_CROP_METHODS) + ['bilinear_v2']}, but got "
                                  f"{method!r}.")
        super().__init__(method=method, extrapolation_value=extrapolation_value)

    def __call__(self, x: Any, boxes: Any, box_index: Any, crop_size: Any) -> Any:
        return crop_and_resize(x, boxes, box_index, crop_size, self.attrs["method"],
                               self.attrs["extrapolation_value"])


class ResizeArea(Primitive):
    """Area resizing of NHWC ``images`` to ``size`` (a constant int32 tensor of 2): each
    output pixel the mean of the input area it covers; float32."""

    def __init__(self, align_corners: bool = False):
        if not isinstance(align_corners, bool):
            raise GraphTypeError(f"For 'ResizeArea', the 'align_corners' must be bool, but "
                                 f"got {type(align_corners).__name__}.")
        super().__init__(align_corners=align_corners)

    def __call__(self, images: Any, size: Any) -> Any:
        x = _as_tensor(images, "ResizeArea")
        if x.ndim != 4:
            raise GraphValueError(f"For 'ResizeArea', the dimension of 'images' must be 4, "
                                  f"but got {x.ndim}.")
        if isinstance(size, SymTensor):
            raise UnsupportedSyntaxError("For 'ResizeArea', 'size' must be a constant: "
                                         "resized shapes are static in msc", user_loc())
        if not isinstance(size, Tensor) or size.dtype != dtypes.int32:
            raise GraphTypeError("For 'ResizeArea', the 'size' must be an int32 Tensor.")
        sizes = [int(v) for v in size.asnumpy().reshape(-1)]
        if size.ndim != 1 or len(sizes) != 2 or min(sizes) <= 0:
            raise GraphValueError(f"For 'ResizeArea', the 'size' must be 2 positive ints, but "
                                  f"got {sizes}.")
        out = F.cast(x, dtypes.float32)
        for axis, n in ((1, sizes[0]), (2, sizes[1])):
            out = along(out, axis, resize_area_matrix(x.shape[axis], n,
                                                      self.attrs["align_corners"]))
        return out


__all__ = ["CropAndResize", "ResizeArea"]
