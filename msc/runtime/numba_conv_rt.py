"""numba runtime helpers of the convolutions: the window copies around their matrix
products (im2col before a convolution's, col2im after a transposed one's), written once
for every kernel, stride, padding and dilation, so Numba compiles them once per machine
and dtype instead of once per convolution shape (0.5-0.7 s each: a ResNet's training step
had a dozen). Copied into generated modules with ``numba_rt.py``.

The 2-D helpers take an example as (channels, height, width) (a 1-D one has height 1)
and ``kernel``, ``stride``, ``pad`` (the low side's), ``dilation`` and ``size`` (the
output's spatial shape) as 2-tuples; the 3-D ones call them plane by plane. Rows of
``cols`` run over (channel, taps) in the weight's order from ``row0``, columns over output
positions from ``col0``. (A loop over depth around the 2-D loops, even of one step, made
them up to twice as slow on short rows: a filter gradient's 3 output columns.)
"""

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def _rt_window_spans(taps, dilation, pad, stride, out, size):
    """For each tap along one axis: the input coordinate of output position 0, and the
    range of output positions whose input coordinate lies inside ``[0, size)``."""
    spans = np.empty((taps, 3), np.int64)
    for t in range(taps):
        start = t * dilation - pad
        first = min(out, max(0, -(start // stride)))
        spans[t, 0], spans[t, 1] = start, first
        spans[t, 2] = max(first, min(out, (size - 1 - start) // stride + 1))
    return spans


@njit(cache=True, error_model="numpy")
def _rt_windows(spatial, kernel, stride, pad, dilation, size):
    """``_rt_window_spans`` along height and width of an input of ``spatial`` shape."""
    return (_rt_window_spans(kernel[0], dilation[0], pad[0], stride[0], size[0], spatial[0]),
            _rt_window_spans(kernel[1], dilation[1], pad[1], stride[1], size[1], spatial[1]))


@njit(cache=True, error_model="numpy")
def _rt_im2col(x, cols, row0, col0, kernel, stride, pad, dilation, size):
    """Copy the windows of ``x`` (channels, height, width) into ``cols``, zeros where a
    window leaves the input."""
    channels = x.shape[0]
    (kh, kw), (oh, ow) = kernel, size
    ys, xs = _rt_windows(x.shape[1:], kernel, stride, pad, dilation, size)
    for c in range(channels):
        for j in range(kh):
            y0, ylo, yhi = ys[j, 0], ys[j, 1], ys[j, 2]
            for k in range(kw):
                x0, lo, hi = xs[k, 0], xs[k, 1], xs[k, 2]
                row = row0 + (c * kh + j) * kw + k
                for q in range(oh):
                    at = col0 + q * ow
                    if not ylo <= q < yhi:
                        for r in range(ow):
                            cols[row, at + r] = 0
                        continue
                    y = y0 + q * stride[0]
                    for r in range(lo):
                        cols[row, at + r] = 0
                    if stride[1] == 1:  # a loop LLVM vectorizes
                        for r in range(lo, hi):
                            cols[row, at + r] = x[c, y, x0 + r]
                    else:
                        for r in range(lo, hi):
                            cols[row, at + r] = x[c, y, x0 + r * stride[1]]
                    for r in range(hi, ow):
                        cols[row, at + r] = 0


@njit(cache=True, error_model="numpy")
def _rt_col2im(cols, out, row0, col0, kernel, stride, pad, dilation, size):
    """The adjoint of ``_rt_im2col``: add each entry of ``cols`` to the position of
    ``out`` (channels, height, width) its window read, none where that is padding."""
    channels = out.shape[0]
    (kh, kw), (oh, ow) = kernel, size
    ys, xs = _rt_windows(out.shape[1:], kernel, stride, pad, dilation, size)
    for c in range(channels):
        for j in range(kh):
            y0, ylo, yhi = ys[j, 0], ys[j, 1], ys[j, 2]
            for k in range(kw):
                x0, lo, hi = xs[k, 0], xs[k, 1], xs[k, 2]
                row = row0 + (c * kh + j) * kw + k
                for q in range(ylo, yhi):
                    at, y = col0 + q * ow, y0 + q * stride[0]
                    if stride[1] == 1:
                        for r in range(lo, hi):
                            out[c, y, x0 + r] += cols[row, at + r]
                    else:
                        for r in range(lo, hi):
                            out[c, y, x0 + r * stride[1]] += cols[row, at + r]


@njit(cache=True, error_model="numpy")
def _rt_im2col3(x, cols, col0, kernel, stride, pad, dilation, size):
    """``_rt_im2col`` of ``x`` (channels, depth, height, width) and 3-tuples: each
    (channel, depth tap, output plane) is a 2-D copy of one input plane."""
    channels, depth = x.shape[0], x.shape[1]
    planes = x.reshape((channels * depth, x.shape[2], x.shape[3]))
    zs = _rt_window_spans(kernel[0], dilation[0], pad[0], stride[0], size[0], depth)
    taps, area = kernel[1] * kernel[2], size[1] * size[2]
    for c in range(channels):
        for i in range(kernel[0]):
            row0 = (c * kernel[0] + i) * taps
            for p in range(size[0]):
                at = col0 + p * area
                if zs[i, 1] <= p < zs[i, 2]:
                    plane = c * depth + zs[i, 0] + p * stride[0]
                    _rt_im2col(planes[plane:plane + 1], cols, row0, at, kernel[1:],
                               stride[1:], pad[1:], dilation[1:], size[1:])
                else:
                    for row in range(row0, row0 + taps):
                        for r in range(area):
                            cols[row, at + r] = 0


@njit(cache=True, error_model="numpy")
def _rt_col2im3(cols, out, col0, kernel, stride, pad, dilation, size):
    """``_rt_col2im`` into ``out`` (channels, depth, height, width), plane by plane."""
    channels, depth = out.shape[0], out.shape[1]
    planes = out.reshape((channels * depth, out.shape[2], out.shape[3]))
    zs = _rt_window_spans(kernel[0], dilation[0], pad[0], stride[0], size[0], depth)
    taps, area = kernel[1] * kernel[2], size[1] * size[2]
    for c in range(channels):
        for i in range(kernel[0]):
            for p in range(zs[i, 1], zs[i, 2]):
                plane = c * depth + zs[i, 0] + p * stride[0]
                _rt_col2im(cols, planes[plane:plane + 1], (c * kernel[0] + i) * taps,
                           col0 + p * area, kernel[1:], stride[1:], pad[1:], dilation[1:],
                           size[1:])
