"""Convolution and pooling for the codegen cases, with naive-loop numpy references (one
output element, or one input element, at a time) that share nothing with msc's helpers."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc import ops


def _out_size(n: int, k: int, s: int, d: int, lo: int, hi: int) -> int:
    return (n + lo + hi - d * (k - 1) - 1) // s + 1


def naive_conv(x: np.ndarray, w: np.ndarray, stride: tuple[int, ...], dilation: tuple[int, ...],
               pad: tuple[int, ...], groups: int = 1) -> np.ndarray:
    """Each output element as a sum over its window's in-range taps."""
    nd = x.ndim - 2
    n, c, o, kernel = x.shape[0], x.shape[1], w.shape[0], w.shape[2:]
    size = tuple(_out_size(x.shape[2 + i], kernel[i], stride[i], dilation[i], pad[2 * i],
                           pad[2 * i + 1]) for i in range(nd))
    cg, og = c // groups, o // groups
    out = np.zeros((n, o) + size, np.float64)
    for b in range(n):
        for oc in range(o):
            for p in np.ndindex(*size):
                total = 0.0
                for tap in np.ndindex(*kernel):
                    at = tuple(p[i] * stride[i] - pad[2 * i] + tap[i] * dilation[i]
                               for i in range(nd))
                    if all(0 <= at[i] < x.shape[2 + i] for i in range(nd)):
                        lo = oc // og * cg
                        total += float(np.dot(x[(b, slice(lo, lo + cg)) + at],
                                              w[(oc, slice(None)) + tap]))
                out[(b, oc) + p] = total
    return out.astype(x.dtype)


def naive_conv_transpose(dy: np.ndarray, w: np.ndarray, stride: tuple[int, ...],
                         dilation: tuple[int, ...], pad: tuple[int, ...], groups: int,
                         size: tuple[int, ...]) -> np.ndarray:
    """Each dy element scattered through the weight to the input positions it read."""
    nd = dy.ndim - 2
    n, o, kernel, cg = dy.shape[0], dy.shape[1], w.shape[2:], w.shape[1]
    og = o // groups
    out = np.zeros((n, cg * groups) + size, np.float64)
    for b in range(n):
        for oc in range(o):
            lo = oc // og * cg
            for p in np.ndindex(*dy.shape[2:]):
                for tap in np.ndindex(*kernel):
                    at = tuple(p[i] * stride[i] - pad[2 * i] + tap[i] * dilation[i]
                               for i in range(nd))
                    if all(0 <= at[i] < size[i] for i in range(nd)):
                        out[(b, slice(lo, lo + cg)) + at] += dy[(b, oc) + p] * \
                            w[(oc, slice(None)) + tap]
    return out.astype(dy.dtype)


def naive_max_pool(x: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...],
                   pad: tuple[int, ...], grad: np.ndarray | None = None,
                   read: np.ndarray | None = None) -> np.ndarray:
    """The maximum of each window's in-range taps; with ``grad``, the input's gradient:
    each window's gradient goes to its first maximum (taps in row-major order); with
    ``read`` (shaped like x), its value at each window's first maximum."""
    nd = x.ndim - 2
    size = tuple(_out_size(x.shape[2 + i], kernel[i], stride[i], 1, pad[2 * i],
                           pad[2 * i + 1]) for i in range(nd))
    out = np.zeros(x.shape[:2] + size, x.dtype)
    dx = np.zeros_like(x)
    for lead in np.ndindex(*x.shape[:2]):
        for p in np.ndindex(*size):
            best, where = -np.inf, None
            for tap in np.ndindex(*kernel):
                at = tuple(p[i] * stride[i] - pad[2 * i] + tap[i] for i in range(nd))
                if all(0 <= at[i] < x.shape[2 + i] for i in range(nd)) and \
                        (where is None or x[lead + at] > best):
                    best, where = x[lead + at], at
            out[lead + p] = best if read is None else read[lead + where]
            if grad is not None:
                dx[lead + where] += grad[lead + p]
    return out if grad is None else dx


def _pool_total(x: Any) -> Any:
    return ops.max_pool2d(x, 3, 2, 1).sum()


def _pool_weighted(x: Any, w: Any) -> Any:
    return (ops.max_pool2d(x, 3, 2, 1) * w).sum()


def _pool_routed(x: Any, w: Any, c: Any) -> Any:
    return (ops.grad(_pool_weighted)(x, w) * c).sum()


def conv_pool(x: Any, w: Any, w1: Any, x1: Any, dy: Any, wt: Any) -> Any:
    """Grouped 2-D convolution with uneven strides and 'same' padding, a dilated 1-D one,
    a transposed one, max pooling, its gradient (the pooled windows overlap) and its second
    derivative (``sin(3x)`` read at each window's maximum)."""
    return (ops.conv2d(x, w, stride=(1, 2), pad_mode="same", groups=2),
            ops.conv1d(x1, w1, pad_mode="pad", padding=2, dilation=2),
            ops.conv_transpose2d(dy, wt, stride=2, padding=1, output_padding=1),
            ops.max_pool2d(x, 3, 2, 1), ops.grad(_pool_total)(x),
            ops.grad(_pool_routed, grad_position=1)(x, ops.max_pool2d(x, 3, 2, 1),
                                                     ops.sin(x * 3.0)))


def conv_pool_inputs(r: np.random.Generator) -> list[np.ndarray]:
    def f32(*shape: int) -> np.ndarray:
        return r.uniform(-2, 2, shape).astype(np.float32)
    return [f32(2, 4, 7, 6), f32(6, 2, 3, 2), f32(3, 2, 3), f32(2, 2, 9), f32(1, 4, 3, 3),
            f32(4, 2, 3, 3)]


def conv_pool_expect(x: np.ndarray, w: np.ndarray, w1: np.ndarray, x1: np.ndarray,
                     dy: np.ndarray, wt: np.ndarray) -> tuple[np.ndarray, ...]:
    # 'same' with stride (1, 2) on (7, 6): pad (1, 1) and (0, 0); the odd unit goes after
    return (naive_conv(x, w, (1, 2), (1, 1), (1, 1, 0, 0), 2),
            naive_conv(x1, w1, (1,), (2,), (2, 2)),
            naive_conv_transpose(dy, wt, (2, 2), (1, 1), (1, 1, 1, 1), 1, (6, 6)),
            naive_max_pool(x, (3, 3), (2, 2), (1, 1, 1, 1)),
            naive_max_pool(x, (3, 3), (2, 2), (1, 1, 1, 1), np.ones((2, 4, 4, 3), np.float32)),
            naive_max_pool(x, (3, 3), (2, 2), (1, 1, 1, 1), read=np.sin(x * np.float32(3))))


CONV_OPS = frozenset({"Conv", "ConvTranspose", "MaxPool", "MaxPoolGrad", "MaxPoolGradGrad"})
