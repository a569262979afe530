"""The convolution layers of ``msc.nn``, with MindSpore 2.10's signatures, defaults,
parameter names and weight layouts: Conv1d's weight is 4-D (out, in/group, 1, k) as in
MindSpore, and a transposed convolution's is (in, out/group, *kernel).
"""

from __future__ import annotations

import math
from typing import Any

from msc.common.initializer import HeUniform, Uniform, initializer
from msc.common.tensor import Parameter
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.nn.cell import Cell
from msc._checkparam import _bool, _check_init_shape, _int
from msc.ops import functional as F
from msc.ops.function import conv_func as K
from msc.ops.operations.nn_ops import BiasAdd, Conv2D, Conv3D


def _checked(fn: Any, *args: Any) -> Any:
    """A constructor argument check, its error at the user's line."""
    try:
        return fn(*args)
    except (GraphTypeError, GraphValueError) as e:
        raise e.with_loc(user_loc()) from None


class _Conv(Cell):
    """The weight, the bias and the window attributes every convolution layer shares."""

    nd = 2
    transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any,
                 pad_mode: str, padding: Any, dilation: Any, group: int, has_bias: bool,
                 weight_init: Any, bias_init: Any, dtype: dtypes.DType):
        super().__init__()
        cls = self.cls_name
        self.in_channels = _int(in_channels, "in_channels", cls, positive=True)
        self.out_channels = _int(out_channels, "out_channels", cls, positive=True)
        self.group = _int(group, "group", cls, positive=True)
        if in_channels % group or out_channels % group:
            raise GraphValueError(f"For '{cls}', the argument 'group' should divide "
                                  f"'in_channels' and 'out_channels', but got group:{group}, "
                                  f"in_channels:{in_channels}, out_channels:{out_channels}.",
                                  user_loc())
        nd = max(self.nd, 1)
        self.kernel_size = _checked(K.tuple_arg, kernel_size, nd, "kernel_size")
        self.stride = _checked(K.tuple_arg, stride, nd, "stride")
        self.dilation = _checked(K.tuple_arg, dilation, nd, "dilation")
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
            raise GraphValueError(f"For '{cls}', the 'pad_mode' must be one of ['same', "
                                  f"'valid', 'pad'], but got {pad_mode!r}.", user_loc())
        self.pad_mode = pad_mode.lower()
        _checked(K.explicit_pad, self.pad_mode, padding, (1,) * nd, (1,) * nd, (1,) * nd,
                 (1,) * nd)
        self.padding = padding
        self.has_bias = _bool(has_bias, "has_bias", cls)
        lead = (in_channels, out_channels // group) if self.transposed else \
            (out_channels, in_channels // group)
        shape = lead + ((1,) if self.nd == 1 else ()) + self.kernel_size
        _check_init_shape(weight_init, shape, "weight_init", cls)
        self.weight_init = HeUniform(math.sqrt(5)) if weight_init is None else weight_init
        self.weight = Parameter(initializer(self.weight_init, shape, dtype), name="weight")
        self.bias_init = bias_init
        self.bias = None
        if self.has_bias:
            if bias_init is None:
                self.bias_init = Uniform(1 / math.sqrt(math.prod(shape[1:])))
            self.bias = Parameter(initializer(self.bias_init, (out_channels,), dtype),
                                  name="bias")

    def _kernel_weight(self) -> Any:
        """The weight as the convolution takes it (Conv1d's without its unit dim)."""
        if self.nd != 1:
            return self.weight
        return F.reshape(self.weight, self.weight.shape[:2] + self.weight.shape[3:])

    def extend_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}, "
                f"weight_init={self.weight_init}, bias_init={self.bias_init}")


class Conv2d(_Conv):
    """2-D convolution of (N, C, H, W) input; ``padding`` is an int or (top, bottom, left,
    right), used with ``pad_mode='pad'`` only; 'same' puts the odd unit after."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 data_format: str = "NCHW", dtype: dtypes.DType = dtypes.float32):
        if data_format not in ("NCHW", "NCDHW"):
            raise GraphValueError(f"For '{type(self).__name__}', only the channels-first "
                                  f"data format is supported, but got {data_format!r}.",
                                  user_loc())
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, dtype)
        self.data_format = data_format
        # NOTE: MindSpore's primitives for this layer, under its attribute names: a subclass
        # (weight standardisation, ...) calls ``self.conv2d(x, w)`` with its own weight.
        if self.nd == 1:  # MindSpore's Conv1d runs a (1, k) Conv2D on the expanded input
            self.conv2d = Conv2D(out_channels, (1,) + self.kernel_size, pad_mode=self.pad_mode,
                                 pad=(0, 0, padding, padding), stride=(1,) + self.stride,
                                 dilation=(1,) + self.dilation, group=group)
        else:
            prim = Conv3D if self.nd == 3 else Conv2D
            setattr(self, f"conv{self.nd}d", prim(
                out_channels, self.kernel_size, pad_mode=self.pad_mode, pad=padding,
                stride=self.stride, dilation=self.dilation, group=group,
                data_format=data_format))
        self.bias_add = BiasAdd(data_format="NCHW" if self.nd < 3 else data_format)

    def construct(self, x: Any) -> Any:
        return K.conv(x, self._kernel_weight(), self.bias, self.stride, self.pad_mode,
                      self.padding, self.dilation, self.group, self.nd)


class Conv1d(Conv2d):
    """1-D convolution of (N, C, L) input; the weight is (out, in/group, 1, kernel_size)."""

    nd = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 pad_mode: str = "same", padding: int = 0, dilation: int = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 dtype: dtypes.DType = dtypes.float32):
        for arg, value in (("kernel_size", kernel_size), ("stride", stride),
                           ("padding", padding), ("dilation", dilation)):
            _int(value, arg, type(self).__name__)
        if weight_init is not None and getattr(weight_init, "ndim", 4) == 3:
            weight_init = F.expand_dims(weight_init, 2)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, "NCHW", dtype)


class Conv3d(Conv2d):
    """3-D convolution of (N, C, D, H, W) input."""

    nd = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 data_format: str = "NCDHW", dtype: dtypes.DType = dtypes.float32):
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, dtype)


class Conv2dTranspose(_Conv):
    """The transposed 2-D convolution. Output size per dim: in * stride ('same'),
    in * stride + max(dilated kernel - stride, 0) ('valid'), in * stride - (top + bottom
    padding) + dilated kernel - stride ('pad'); ``output_padding`` (mode 'pad' only) then
    appends zeros after each spatial dim, as MindSpore does."""

    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, output_padding: Any = 0,
                 dilation: Any = 1, group: int = 1, has_bias: bool = False,
                 weight_init: Any = None, bias_init: Any = None,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, dtype)
        nd = max(self.nd, 1)
        self.output_padding = _checked(K.tuple_arg, output_padding, nd, "output_padding", 0)
        if any(e >= max(s, d) for e, s, d in zip(self.output_padding, self.stride,
                                                 self.dilation)):
            raise GraphValueError("output_padding must be in range of [0, max(stride, "
                                  "dilation)).", user_loc())
        if any(self.output_padding) and self.pad_mode != "pad":
            raise GraphValueError("when output_padding is not zero, pad_mode must be 'pad'",
                                  user_loc())

    def _sizes(self, spatial: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The output's spatial shape and the (lo, hi) padding that gives it."""
        sizes, pads = [], []
        given = K.explicit_pad("pad", self.padding, spatial, self.kernel_size, self.stride,
                               self.dilation) if self.pad_mode == "pad" else None
        for d, (n, k, s, dil) in enumerate(zip(spatial, self.kernel_size, self.stride,
                                               self.dilation)):
            span = dil * (k - 1) + 1
            if self.pad_mode == "same":
                size = n * s
                pads += K.same_pad(size, k, s, dil)
            elif self.pad_mode == "valid":
                size = n * s + max(span - s, 0)
                pads += (0, 0)
            else:
                lo, hi = given[2 * d], given[2 * d + 1]
                size = n * s - (lo + hi) + span - s
                pads += (lo, hi)
            sizes.append(size)
        return tuple(sizes), tuple(pads)

    def construct(self, x: Any) -> Any:
        x = K._spatial_input(x, max(self.nd, 1), "Conv2dTranspose")
        sizes, pads = self._sizes(x.shape[2:])
        out = K.conv_transpose(x, self._kernel_weight(), sizes, self.stride, pads,
                               self.dilation, self.group)
        out = K.add_bias(out, self.bias, "Conv2dTranspose")
        for d, extra in enumerate(self.output_padding):
            if extra:
                shape = out.shape[:2 + d] + (extra,) + out.shape[3 + d:]
                out = F.concat((out, F.zeros(shape, out.dtype)), 2 + d)
        return out


class Conv1dTranspose(Conv2dTranspose):
    """The transposed 1-D convolution; the weight is (in, out/group, 1, kernel_size)."""

    nd = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 pad_mode: str = "same", padding: int = 0, dilation: int = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 dtype: dtypes.DType = dtypes.float32):
        if weight_init is not None and getattr(weight_init, "ndim", 4) == 3:
            weight_init = F.expand_dims(weight_init, 2)  # MindSpore takes (in, out, k)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, 0,
                         dilation, group, has_bias, weight_init, bias_init, dtype)


class Conv3dTranspose(Conv2dTranspose):
    """The transposed 3-D convolution of (N, C, D, H, W) input; the weight is
    (in, out/group, kd, kh, kw)."""

    nd = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 output_padding: Any = 0, has_bias: bool = False, weight_init: Any = None,
                 bias_init: Any = None, data_format: str = "NCDHW",
                 dtype: dtypes.DType = dtypes.float32):
        if data_format != "NCDHW":
            raise GraphValueError(f"For '{type(self).__name__}', only the 'NCDHW' data format "
                                  f"is supported, but got {data_format!r}.", user_loc())
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         output_padding, dilation, group, has_bias, weight_init, bias_init,
                         dtype)


__all__ = ["Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose",
           "Conv3dTranspose"]
