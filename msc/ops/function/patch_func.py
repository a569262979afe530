"""Sliding-window patches: ``ops.unfold`` (im2col: each window's values as a column),
``ops.fold`` and ``ops.col2im`` (its adjoint: columns summed back into place). ``unfold``
is a grouped convolution with one-hot kernels, ``fold`` a scatter-add through constant
positions, so both run eagerly and in graphs on every target with their gradients.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.common.tensor import SymTensor, Tensor, apply
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.conv_func import tuple_arg
from msc.ops.function.manipulation_func import _fail


def _window_args(kernel_size: Any, dilation: Any, padding: Any, stride: Any,
                 op: str) -> tuple[tuple[int, ...], ...]:
    with _checking(op):
        return (tuple_arg(kernel_size, 2, "kernel_size"), tuple_arg(dilation, 2, "dilation"),
                tuple_arg(padding, 2, "padding", least=0), tuple_arg(stride, 2, "stride"))


def _blocks(size: tuple[int, int], kernel: tuple[int, ...], dilation: tuple[int, ...],
            padding: tuple[int, ...], stride: tuple[int, ...]) -> tuple[int, int]:
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, d, p, s in zip(size, kernel, dilation, padding, stride))


def _patches(x: Tensor, kernel: tuple[int, ...], dilation: tuple[int, ...],
             padding: tuple[int, ...], stride: tuple[int, ...], op: str) -> Any:
    """(N, C * kh * kw, out_h, out_w): channel c's window value at offset k in channel
    c * kh * kw + k."""
    if x.ndim != 4:
        _fail(op, f"the input must be 4-D (N, C, H, W), but got shape {x.shape}.")
    count = math.prod(kernel)
    onehot = np.eye(count, dtype=x.dtype.np).reshape(count, 1, *kernel)
    weight = Tensor(np.tile(onehot, (x.shape[1], 1, 1, 1)))
    return apply(Op.Conv, x, weight, stride=stride, dilation=dilation,
                 pad=(padding[0], padding[0], padding[1], padding[1]), groups=x.shape[1])


def unfold(input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002
           stride: Any = 1) -> Any:
    """(N, C, H, W) -> (N, C * kh * kw, L): every sliding window as a column."""
    x = _as_tensor(input, "Im2Col")
    args = _window_args(kernel_size, dilation, padding, stride, "Im2Col")
    out = _patches(x, *args, "Im2Col")
    return F.reshape(out, out.shape[:2] + (-1,))


def _output_size(output_size: Any, op: str) -> tuple[int, int]:
    if isinstance(output_size, SymTensor):
        _fail(op, "'output_size' must be known when the graph is built.")
    if isinstance(output_size, Tensor):
        output_size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
    with _checking(op):
        return tuple_arg(output_size, 2, "output_size")


def fold(input: Any, output_size: Any, kernel_size: Any, dilation: Any = 1,  # noqa: A002
         padding: Any = 0, stride: Any = 1) -> Any:
    """(N, C * kh * kw, L) -> (N, C, H, W): each column's values added back at the
    window positions they came from (overlaps sum)."""
    cols = _as_tensor(input, "Col2Im")
    kernel, dil, pad, step = _window_args(kernel_size, dilation, padding, stride, "Col2Im")
    size = _output_size(output_size, "Col2Im")
    count = math.prod(kernel)
    blocks = _blocks(size, kernel, dil, pad, step)
    if cols.ndim != 3 or cols.shape[1] % count or cols.shape[2] != math.prod(blocks):
        _fail("Col2Im", f"the input must be (N, C * {count}, {math.prod(blocks)}), but got "
                        f"{cols.shape}.")
    n, c = cols.shape[0], cols.shape[1] // count
    ph, pw = size[0] + 2 * pad[0], size[1] + 2 * pad[1]
    ki, kj = np.unravel_index(np.arange(count), kernel)
    bi, bj = np.unravel_index(np.arange(math.prod(blocks)), blocks)
    rows = bi[None, :] * step[0] + ki[:, None] * dil[0]
    colm = bj[None, :] * step[1] + kj[:, None] * dil[1]
    where = np.broadcast_to((rows * pw + colm).reshape(1, 1, -1), (n, c, count * rows.shape[1]))
    flat = A.tensor_scatter_elements(F.zeros((n, c, ph * pw), cols.dtype),
                                     Tensor(np.ascontiguousarray(where).astype(np.int64)),
                                     F.reshape(cols, (n, c, -1)), 2, "add")
    out = F.reshape(flat, (n, c, ph, pw))
    return out[:, :, pad[0]:pad[0] + size[0], pad[1]:pad[1] + size[1]]


def col2im(input_x: Any, output_size: Any, kernel_size: Any, dilation: Any, padding_value: Any,
           stride: Any) -> Any:
    """``fold`` of (N, C, kh * kw, L) columns (``Col2Im``'s layout)."""
    x = _as_tensor(input_x, "Col2Im")
    if x.ndim != 4:
        _fail("Col2Im", f"the input must be 4-D (N, C, kh * kw, L), but got {x.shape}.")
    return fold(F.reshape(x, (x.shape[0], x.shape[1] * x.shape[2], x.shape[3])), output_size,
                kernel_size, dilation, padding_value, stride)


def extract_patches(x: Any, ksizes: Any, strides: Any, rates: Any, padding: str,
                    op: str) -> Any:
    """(N, C, *spatial) -> (N, K * C, *out): every window of the 2 or 3 spatial dims, its
    depth ordered (kernel position, channel) as ``ExtractImagePatches`` and
    ``ExtractVolumePatches``; the sizes as (1, h, w, 1) or (1, 1, d, h, w); ``padding``
    'VALID' or 'SAME'."""
    t = _as_tensor(x, op)
    nd = t.ndim - 2

    def spatial(v: Any, what: str) -> tuple[int, ...]:
        items = tuple(v)
        if len(items) == nd + 2:
            items = items[1:nd + 1] if nd == 2 else items[2:]
        with _checking(op):
            return tuple_arg(items, nd, what)

    kernel, step = spatial(ksizes, "ksizes"), spatial(strides, "strides")
    dil = spatial(rates, "rates") if rates is not None else (1,) * nd
    mode = str(padding).upper()
    if mode not in ("VALID", "SAME"):
        _fail(op, f"'padding' must be 'valid' or 'same', but got {padding!r}.")
    pads: list[int] = []
    for n, k, s_, d in zip(t.shape[2:], kernel, step, dil):
        span = d * (k - 1) + 1
        total = max((-(-n // s_) - 1) * s_ + span - n, 0) if mode == "SAME" else 0
        pads += [total // 2, total - total // 2]
    count = math.prod(kernel)
    onehot = np.eye(count, dtype=t.dtype.np).reshape(count, 1, *kernel)
    weight = Tensor(np.tile(onehot, (t.shape[1],) + (1,) * (nd + 1)))
    out = apply(Op.Conv, t, weight, stride=step, dilation=dil, pad=tuple(pads),
                groups=t.shape[1])  # depth c * count + k
    n, rest = out.shape[0], out.shape[2:]
    out = F.reshape(out, (n, t.shape[1], count) + rest)
    perm = (0, 2, 1) + tuple(range(3, 3 + nd))
    return F.reshape(F.transpose(out, perm), (n, count * t.shape[1]) + rest)


__all__ = ["unfold", "fold", "col2im"]
