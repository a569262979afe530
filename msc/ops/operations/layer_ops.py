"""Primitive classes of layers that CPU tests call directly: ``P.Dropout``,
``P.AvgPool3D``, ``P.SpaceToBatchND`` and ``P.BatchToSpaceND``, with MindSpore 2.10's
arguments and outputs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.common.tensor import Tensor
from msc.errors import GraphValueError
from msc.frontend.source import user_loc
from msc.ops import functional as F
from msc.ops.function.conv_func import avg_pool, same_pad
from msc.ops.function.manipulation_func import batch_to_space_nd, space_to_batch_nd
from msc.ops.function.random_func import uniform_draw
from msc.ops.primitive import Primitive

__all__ = ["Dropout", "AvgPool3D", "SpaceToBatchND", "BatchToSpaceND", "Conv3DTranspose"]


class Dropout(Primitive):
    """``(x * mask / keep_prob, mask)``: the mask (of ``x``'s type) keeps each element
    with probability ``keep_prob``."""

    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0):  # noqa: N803
        super().__init__(keep_prob=keep_prob, Seed0=Seed0, Seed1=Seed1)
        if isinstance(keep_prob, bool) or not isinstance(keep_prob, (int, float)) or \
                not 0 < keep_prob <= 1:
            raise GraphValueError(f"For 'Dropout', the 'keep_prob' must be in range (0, 1], "
                                  f"but got {keep_prob}.")
        self.keep_prob = float(keep_prob)
        self.seed = (Seed0 or Seed1) or None

    def __call__(self, x: Any) -> Any:
        if not x.dtype.is_float:
            raise TypeError(f"For 'Dropout', the dtype of 'x' must be float, but got "
                            f"{x.dtype}.")
        if self.keep_prob == 1.0:
            return x * 1, F.ones_like(x)
        mask = F.cast(uniform_draw(x.shape, self.seed) < self.keep_prob, x.dtype)
        return x * mask / self.keep_prob, mask


def _triple(value: Any, name: str) -> tuple[int, int, int]:
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * 3
    if len(items) == 5:
        items = items[2:]
    if len(items) != 3 or not all(isinstance(v, int) and v > 0 for v in items):
        raise GraphValueError(f"For 'AvgPool3D', the '{name}' must be a positive int or a "
                              f"tuple of three positive ints, but got {value!r}.")
    return items  # type: ignore[return-value]


class AvgPool3D(Primitive):
    """3-d average pooling over NCDHW: ``pad_mode`` 'valid', 'same' or 'pad' with ``pad``
    (one int or (front, back, top, bottom, left, right)), ``ceil_mode`` (with 'pad'),
    ``count_include_pad`` (whatever the mode: 'same' padding counts too, as in
    MindSpore's 3-d kernel) and ``divisor_override``, as ``conv_func.avg_pool`` computes
    them."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "valid",
                 pad: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int = 0, data_format: str = "NCDHW"):
        super().__init__(kernel_size=kernel_size, strides=strides, pad_mode=pad_mode, pad=pad,
                         ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                         divisor_override=divisor_override, data_format=data_format)
        self.kernel_size = _triple(kernel_size, "kernel_size")
        self.strides = _triple(strides, "strides")
        self.pad_mode = str(pad_mode).lower()
        if self.pad_mode not in ("valid", "same", "pad"):
            raise GraphValueError(f"For 'AvgPool3D', the 'pad_mode' must be 'valid', 'same' or "
                                  f"'pad', but got {pad_mode}.")
        pads = (pad,) * 6 if isinstance(pad, int) else tuple(pad)
        if len(pads) != 6 or any(not isinstance(p, int) or p < 0 for p in pads):
            raise GraphValueError(f"For 'AvgPool3D', the 'pad' must be a non-negative int or "
                                  f"a tuple of six, but got {pad!r}.")
        if self.pad_mode != "pad" and any(pads):
            raise GraphValueError("For 'AvgPool3D', the 'pad' must be 0 when 'pad_mode' is not "
                                  f"'pad', but got {pad!r}.")
        if ceil_mode and self.pad_mode != "pad":
            raise GraphValueError("For 'AvgPool3D', 'ceil_mode' needs 'pad_mode' 'pad', but "
                                  f"got {pad_mode}.")
        if data_format != "NCDHW":
            raise GraphValueError(f"For 'AvgPool3D', the 'data_format' must be 'NCDHW', but got "
                                  f"{data_format}.")
        self.pads, self.ceil_mode = pads, bool(ceil_mode)
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def __call__(self, x: Any) -> Any:
        pads = self.pads
        if self.pad_mode == "same":
            pads = sum((same_pad(n, k, s, 1) for n, k, s in
                        zip(x.shape[2:], self.kernel_size, self.strides)), ())
        return avg_pool(x, 3, self.kernel_size, self.strides, "pad", pads, self.ceil_mode,
                        self.count_include_pad, self.divisor_override)


class SpaceToBatchND(Primitive):
    """``ops.space_to_batch_nd`` with the block and paddings fixed."""

    def __init__(self, block_shape: Any, paddings: Any):
        super().__init__(block_shape=block_shape, paddings=paddings)
        self.block_shape, self.paddings = block_shape, paddings

    def __call__(self, input_x: Any) -> Any:
        return space_to_batch_nd(input_x, self.block_shape, self.paddings)


class BatchToSpaceND(Primitive):
    """``ops.batch_to_space_nd`` with the block and crops fixed."""

    def __init__(self, block_shape: Any, crops: Any):
        super().__init__(block_shape=block_shape, crops=crops)
        self.block_shape, self.crops = block_shape, crops

    def __call__(self, input_x: Any) -> Any:
        return batch_to_space_nd(input_x, self.block_shape, self.crops)



def _triple(value: Any, what: str) -> tuple[int, ...]:
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * 3
    if len(items) == 5:  # (1, 1, d, h, w), MindSpore's long form
        items = items[2:]
    if len(items) != 3 or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise GraphValueError(f"For 'Conv3DTranspose', '{what}' must be an int or a tuple of "
                              f"3 ints, but got {value!r}.")
    return items


class Conv3DTranspose(Primitive):
    """``ops.Conv3DTranspose(in_channel, out_channel, kernel_size, ...)(dout, weight)``: the
    transposed 3-D convolution of (N, C, D, H, W) ``dout`` with (C, out/group, kd, kh, kw)
    ``weight``. Output size per dim: (n - 1) * stride + dilation * (k - 1) + 1 ('valid'),
    n * stride ('same'), (n - 1) * stride - (head + tail) + dilation * (k - 1) + 1 ('pad'),
    each plus ``output_padding``."""

    def __init__(self, in_channel: int, out_channel: int, kernel_size: Any, mode: int = 1,
                 pad_mode: str = "valid", pad: Any = 0, stride: Any = 1, dilation: Any = 1,
                 group: int = 1, output_padding: Any = 0, data_format: str = "NCDHW"):
        super().__init__(in_channel=in_channel, out_channel=out_channel,
                         kernel_size=kernel_size, mode=mode, pad_mode=pad_mode, pad=pad,
                         stride=stride, dilation=dilation, group=group,
                         output_padding=output_padding, data_format=data_format)
        self.kernel, self.stride = _triple(kernel_size, "kernel_size"), _triple(stride, "stride")
        self.dilation = _triple(dilation, "dilation")
        if self.dilation[0] != 1:
            raise GraphValueError(f"For 'Conv3DTranspose', the depth of parameter 'dilation' "
                                  f"must be 1, but got {self.dilation[0]}.", user_loc())
        self.extra = _triple(output_padding, "output_padding")
        self.pad_mode, self.group = str(pad_mode).lower(), group
        pads = tuple(pad) if isinstance(pad, (tuple, list)) else (pad,) * 6
        if self.pad_mode not in ("valid", "same", "pad") or len(pads) != 6:
            raise GraphValueError(f"For 'Conv3DTranspose', 'pad_mode' must be 'valid', 'same' "
                                  f"or 'pad' and 'pad' one int or 6 ints, but got "
                                  f"{pad_mode!r}, {pad!r}.")
        self.pads = pads

    def __call__(self, dout: Any, weight: Any) -> Any:
        from msc.ops.function.conv_func import conv_transpose

        sizes, pads = [], []
        for d, n in enumerate(dout.shape[2:]):
            k, s, dil, e = self.kernel[d], self.stride[d], self.dilation[d], self.extra[d]
            if self.pad_mode == "same":
                size = n * s
                lo, hi = same_pad(size, k, s, dil)
            else:
                lo, hi = self.pads[2 * d:2 * d + 2] if self.pad_mode == "pad" else (0, 0)
                size = (n - 1) * s - (lo + hi) + dil * (k - 1) + 1
            sizes.append(size + e)
            pads += [lo, hi]
        return conv_transpose(dout, weight, tuple(sizes), self.stride, tuple(pads),
                              self.dilation, self.group)
