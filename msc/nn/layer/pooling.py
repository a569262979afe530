"""The pooling layers of ``msc.nn`` (``nn.MaxPool2d``, ``nn.AvgPool1d``,
``nn.AdaptiveAvgPool2d``, ...), with MindSpore 2.10's signatures and defaults, over the
pooling functions of ``ops/function/conv_func.py``.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphValueError
from msc.frontend.source import user_loc
from msc.nn.cell import Cell
from msc._checkparam import _bool, _int
from msc.nn.layer.conv import _checked
from msc.ops.function import conv_func as K
from msc.ops.function import pooling_func as P

# --- pooling ------------------------------------------------------------------------------


class _Pool(Cell):
    nd = 2

    def __init__(self, kernel_size: Any, stride: Any, pad_mode: str, padding: Any = 0,
                 ceil_mode: bool = False):
        super().__init__()
        nd = self.nd
        self.kernel_size = _checked(K.tuple_arg, kernel_size, nd, "kernel_size")
        self.stride = _checked(K.tuple_arg, stride, nd, "stride")
        if not isinstance(pad_mode, str) or pad_mode.upper() not in ("SAME", "VALID", "PAD"):
            raise GraphValueError(f"For '{self.cls_name}', the 'pad_mode' must be one of "
                                  f"['same', 'valid', 'pad'], but got {pad_mode!r}.",
                                  user_loc())
        self.pad_mode = pad_mode.upper()
        self.padding = padding
        self.ceil_mode = _bool(ceil_mode, "ceil_mode", self.cls_name)
        if self.pad_mode != "PAD" and (ceil_mode or padding != 0):
            raise GraphValueError(f"For {self.cls_name}, the parameter 'padding' and "
                                  f"'ceil_mode' can not be set to non-default value when "
                                  f"pad_mode is not 'pad', but got pad_mode:{pad_mode}.",
                                  user_loc())

    def extend_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool):
    """Max over windows of (N, C, H, W) or (C, H, W) input; padding counts as -inf."""

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid",
                 padding: Any = 0, dilation: Any = 1, return_indices: bool = False,
                 ceil_mode: bool = False, data_format: str = "NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation = _checked(K.tuple_arg, dilation, self.nd, "dilation")
        self.return_indices = _bool(return_indices, "return_indices", self.cls_name)
        if data_format != "NCHW":
            raise GraphValueError(f"For '{self.cls_name}', only the NCHW data format is "
                                  f"supported, but got {data_format!r}.", user_loc())

    def construct(self, x: Any) -> Any:
        return K.max_pool(x, self.nd, self.kernel_size, self.stride, self.pad_mode,
                          self.padding, self.dilation, self.ceil_mode, self.return_indices)


class MaxPool1d(MaxPool2d):
    nd = 1

    def __init__(self, kernel_size: int = 1, stride: int = 1, pad_mode: str = "valid",
                 padding: int = 0, dilation: int = 1, return_indices: bool = False,
                 ceil_mode: bool = False):
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, return_indices,
                         ceil_mode)


class AvgPool2d(_Pool):
    """Mean over windows; 'pad' padding is counted when ``count_include_pad``, 'same'
    padding only with a ``divisor_override``, which rescales the mean by the kernel's size
    over the divisor (``conv_func.avg_pool``)."""

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid",
                 padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Any = None, data_format: str = "NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad = _bool(count_include_pad, "count_include_pad", self.cls_name)
        self.divisor_override = divisor_override
        if data_format != "NCHW":
            raise GraphValueError(f"For '{self.cls_name}', only the NCHW data format is "
                                  f"supported, but got {data_format!r}.", user_loc())

    def construct(self, x: Any) -> Any:
        return K.avg_pool(x, self.nd, self.kernel_size, self.stride, self.pad_mode,
                          self.padding, self.ceil_mode, self.count_include_pad,
                          self.divisor_override)


class AvgPool1d(AvgPool2d):
    nd = 1

    def __init__(self, kernel_size: int = 1, stride: int = 1, pad_mode: str = "valid",
                 padding: int = 0, ceil_mode: bool = False, count_include_pad: bool = True):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, count_include_pad)


class AdaptiveAvgPool2d(Cell):
    """Mean over the windows [floor(i*n/out), ceil((i+1)*n/out)) of each spatial dim."""

    nd = 2

    def __init__(self, output_size: Any):
        super().__init__()
        self.output_size = output_size

    def construct(self, x: Any) -> Any:
        return K.adaptive_avg_pool(x, self.output_size, self.nd)


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    nd = 1

    def __init__(self, output_size: int):
        super().__init__(_int(output_size, "output_size", "AdaptiveAvgPool1d", positive=True))


class AdaptiveMaxPool2d(Cell):
    def __init__(self, output_size: Any, return_indices: bool = False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = _bool(return_indices, "return_indices", self.cls_name)

    def construct(self, x: Any) -> Any:
        return K.adaptive_max_pool(x, self.output_size, 2, self.return_indices)


class MaxPool3d(MaxPool2d):
    nd = 3

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid",
                 padding: Any = 0, dilation: Any = 1, return_indices: bool = False,
                 ceil_mode: bool = False):
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, return_indices,
                         ceil_mode)


class AvgPool3d(_Pool):
    """``P.AvgPool3D`` over (N, C, D, H, W) or (C, D, H, W) input; ``padding`` one int or
    one per spatial dim."""

    nd = 3

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid",
                 padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Any = None):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        if divisor_override == 0:
            raise GraphValueError(f"For '{self.cls_name}', the 'divisor_override' can not be "
                                  f"0.", user_loc())
        pads = _checked(K.tuple_arg, padding, 3, "padding", 0) if \
            not isinstance(padding, int) else (padding,) * 3
        from msc.ops.operations.layer_ops import AvgPool3D

        self.avg_pool = AvgPool3D(self.kernel_size, self.stride, self.pad_mode.lower(),
                                  sum(((p, p) for p in pads), ()), self.ceil_mode,
                                  _bool(count_include_pad, "count_include_pad", self.cls_name),
                                  divisor_override or 0)

    def construct(self, x: Any) -> Any:
        if x.ndim == 4:
            return self.avg_pool(x.reshape((1,) + x.shape)).squeeze(0)
        return self.avg_pool(x)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    nd = 3


class AdaptiveMaxPool1d(Cell):
    """Max over ``output_size`` equal windows of the last dim (which it must divide)."""

    def __init__(self, output_size: int):
        super().__init__()
        self.output_size = _int(output_size, "output_size", self.cls_name, positive=True)

    def construct(self, x: Any) -> Any:
        return P.adaptive_max_pool1d(x, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    def construct(self, x: Any) -> Any:
        return K.adaptive_max_pool(x, self.output_size, 3, self.return_indices)


class _PoolExt(Cell):
    """The torch-style pooling layers: ``stride`` defaults to the kernel, padding is
    symmetric and explicit."""

    nd = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False):
        super().__init__()
        self.kernel_size = _checked(K.tuple_arg, kernel_size, self.nd, "kernel_size")
        self.stride = self.kernel_size if stride is None else \
            _checked(K.tuple_arg, stride, self.nd, "stride")
        self.padding = padding
        self.ceil_mode = _bool(ceil_mode, "ceil_mode", self.cls_name)


class AvgPool2dExt(_PoolExt):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Any = None):
        super().__init__(kernel_size, stride, padding, ceil_mode)
        self.count_include_pad = _bool(count_include_pad, "count_include_pad", self.cls_name)
        self.divisor_override = divisor_override

    def construct(self, x: Any) -> Any:
        return K.avg_pool(x, self.nd, self.kernel_size, self.stride, "pad", self.padding,
                          self.ceil_mode, self.count_include_pad, self.divisor_override)


class AvgPool1dExt(AvgPool2dExt):
    nd = 1

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)


class MaxPool2dExt(_PoolExt):
    def __init__(self, kernel_size: Any = 1, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False, ceil_mode: bool = False):
        super().__init__(kernel_size, stride, padding, ceil_mode)
        self.dilation = _checked(K.tuple_arg, dilation, self.nd, "dilation")
        self.return_indices = _bool(return_indices, "return_indices", self.cls_name)

    def construct(self, x: Any) -> Any:
        return K.max_pool(x, self.nd, self.kernel_size, self.stride, "pad", self.padding,
                          self.dilation, self.ceil_mode, self.return_indices)


class LPPool2d(Cell):
    """(sum of x ** norm_type over each window) ** (1 / norm_type)."""

    nd = 2

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride = norm_type, kernel_size, stride
        self.ceil_mode = _bool(ceil_mode, "ceil_mode", self.cls_name)

    def construct(self, x: Any) -> Any:
        fn = P.lp_pool1d if self.nd == 1 else P.lp_pool2d
        return fn(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(LPPool2d):
    nd = 1


class MaxUnpool2d(Cell):
    """Each value placed at the position its max-pooling index names, zeros elsewhere."""

    nd = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x: Any, indices: Any, output_size: Any = None) -> Any:
        from msc.ops.function.layer_func import _max_unpool

        return _max_unpool(x, indices, self.nd, self.kernel_size, self.stride, self.padding,
                           output_size, self.cls_name)


class MaxUnpool1d(MaxUnpool2d):
    nd = 1


class MaxUnpool3d(MaxUnpool2d):
    nd = 3


__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool3d", "AvgPool1dExt", "AvgPool2dExt",
           "MaxPool2dExt", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]
