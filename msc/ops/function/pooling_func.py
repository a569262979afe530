"""The pooling functions beyond ``conv_func``'s: 3-d and 1-d adaptive pooling, 3-d max
pooling and power-average (Lp) pooling, each over ``conv_func``'s generic ``max_pool``,
``avg_pool`` and adaptive pooling, so they run eagerly and in graphs on every target with
their gradients; and the grayscale dilation of ``ops.Dilation2D``, a maximum over strided
slices.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.common.tensor import apply
from msc.errors import GraphValueError
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import conv_func as K
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.image_func import pad


def adaptive_avg_pool3d(input: Any, output_size: Any) -> Any:  # noqa: A002
    """Mean over the windows [floor(i*n/out), ceil((i+1)*n/out)) of the last three dims."""
    return K.adaptive_avg_pool(input, output_size, 3)


def adaptive_max_pool1d(input: Any, output_size: int) -> Any:  # noqa: A002
    """Max over ``output_size`` equal windows of the last dim, which it must divide (as
    MindSpore requires)."""
    x = _as_tensor(input, "AdaptiveMaxPool1d")
    with _checking("AdaptiveMaxPool1d"):
        if isinstance(output_size, bool) or not isinstance(output_size, int) or output_size < 1:
            raise GraphValueError(f"'output_size' must be a positive int, but got "
                                  f"{output_size!r}")
        if x.shape[-1] % output_size:
            raise GraphValueError(f"the input's last dimension must be divisible by output "
                                  f"size {output_size}, but got {x.shape[-1]}.")
    return K.adaptive_max_pool(x, output_size, 1)


def adaptive_max_pool3d(input: Any, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    return K.adaptive_max_pool(input, output_size, 3, return_indices)


def max_pool3d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max over windows of (N, C, D, H, W) input; padding counts as -inf."""
    return K.max_pool(x, 3, kernel_size, stride, "pad", padding, dilation, ceil_mode,
                      return_indices)


def avg_pool3d(input_x: Any, kernel_size: Any = 1, stride: Any = 1, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int = 0) -> Any:
    """Mean over windows of (N, C, D, H, W) input: ``P.AvgPool3D`` in mode 'pad'."""
    from msc.ops.operations.layer_ops import AvgPool3D

    pad = padding if isinstance(padding, int) or len(padding) != 3 else \
        sum(((p, p) for p in padding), ())
    return AvgPool3D(kernel_size, stride, "pad", pad, ceil_mode, count_include_pad,
                     divisor_override or 0)(input_x)


def _lp_pool(x: Any, nd: int, norm_type: float, kernel_size: Any, stride: Any,
             ceil_mode: bool, op: str) -> Any:
    """(sum of x ** p over each window) ** (1 / p): the window mean of x ** p (over the
    positions inside the input) times the kernel's size, its sign kept, as MindSpore's."""
    x = _as_tensor(x, op)
    with _checking(op):
        if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)) or \
                norm_type == 0:
            raise GraphValueError(f"'norm_type' must be a non-zero number, but got "
                                  f"{norm_type!r}")
    kernel = K.tuple_arg(kernel_size, nd, "kernel_size")
    mean = K.avg_pool(apply(Op.Pow, x, float(norm_type)), nd, kernel,
                      kernel if stride is None else stride, "pad", 0, ceil_mode)
    total = F.relu(apply(Op.Abs, mean)) * apply(Op.Sign, mean) * math.prod(kernel)
    return apply(Op.Pow, total, 1.0 / norm_type)


def lp_pool1d(x: Any, norm_type: float, kernel_size: int, stride: Any = None,
              ceil_mode: bool = False) -> Any:
    return _lp_pool(x, 1, norm_type, kernel_size, stride, ceil_mode, "LPPool1d")


def lp_pool2d(x: Any, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Any:
    return _lp_pool(x, 2, norm_type, kernel_size, stride, ceil_mode, "LPPool2d")


def dilation2d(x: Any, filter: Any, stride: tuple[int, int], dilation: tuple[int, int],  # noqa: A002
               pad_mode: str) -> Any:
    """out[n, c, h, w] = max over (i, j) of x[n, c, h s0 + i d0, w s1 + j d1] + f[c, i, j],
    (N, C, H, W) by (C, kh, kw); 'same' pads with the dtype's lowest value, as MindSpore's
    'same' leaves the padding out of the maximum."""
    x, f = _as_tensor(x, "Dilation2D"), _as_tensor(filter, "Dilation2D")
    with _checking("Dilation2D"):
        if x.ndim != 4 or f.ndim != 3 or f.shape[0] != x.shape[1]:
            raise GraphValueError(f"'x' must be (N, C, H, W) and 'filter' (C, kh, kw), but "
                                  f"got {x.shape} and {f.shape}")
        if f.dtype != x.dtype:
            raise GraphValueError(f"'filter' must have the dtype of 'x', {x.dtype}, but got "
                                  f"{f.dtype}")
    kernel = f.shape[1:]
    if pad_mode == "same":
        pads = [K.same_pad(n, k, s, d) for n, k, s, d in zip(x.shape[2:], kernel, stride,
                                                             dilation)]
        lowest = -math.inf if x.dtype.is_float else int(np.iinfo(x.dtype.np).min)
        x = pad(x, (*pads[1], *pads[0]), "constant", lowest)
    sizes = [(n - d * (k - 1) - 1) // s + 1 for n, k, s, d in zip(x.shape[2:], kernel, stride,
                                                                  dilation)]
    if min(sizes) < 1:
        raise GraphValueError(f"For 'Dilation2D', the dilated filter {kernel} is larger than "
                              f"the input {x.shape[2:]}.")
    out = None
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            rows = slice(i * dilation[0], i * dilation[0] + (sizes[0] - 1) * stride[0] + 1,
                         stride[0])
            cols = slice(j * dilation[1], j * dilation[1] + (sizes[1] - 1) * stride[1] + 1,
                         stride[1])
            tap = x[:, :, rows, cols] + F.reshape(f[:, i, j], (1, -1, 1, 1))
            out = tap if out is None else F.maximum(out, tap)
    return out


__all__ = ["adaptive_avg_pool3d", "avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool3d", "max_pool3d",
           "lp_pool1d", "lp_pool2d"]
