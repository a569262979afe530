"""Numpy forms written independently of msc, for the configurations where MindSpore 2.10
is wrong or raises: the policy checks msc against these (and their finite differences)."""

from __future__ import annotations

import itertools

import numpy as np


def conv2d(x: np.ndarray, w: np.ndarray, stride: int, pads: tuple[int, int, int, int],
           dilation: int = 1, groups: int = 1) -> np.ndarray:
    """Cross-correlation of (N, C, H, W) with (O, C/groups, kh, kw); pads (top, bottom,
    left, right)."""
    xp = np.pad(x, ((0, 0), (0, 0), pads[:2], pads[2:]))
    o, cg, kh, kw = w.shape
    oh = (xp.shape[2] - dilation * (kh - 1) - 1) // stride + 1
    ow = (xp.shape[3] - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((x.shape[0], o, oh, ow))
    per = o // groups
    for f in range(o):
        g = f // per
        for i, j in itertools.product(range(kh), range(kw)):
            patch = xp[:, g * cg:(g + 1) * cg, i * dilation:i * dilation + stride * (oh - 1) + 1:
                       stride, j * dilation:j * dilation + stride * (ow - 1) + 1:stride]
            out[:, f] += np.einsum("nchw,c->nhw", patch, w[f, :, i, j])
    return out


def conv_transpose2d(x: np.ndarray, w: np.ndarray, stride: int, pad: int, out_pad: int,
                     dilation: int) -> np.ndarray:
    """Each input element scatters its product with the (in, out, kh, kw) kernel."""
    n, c, h, wd = x.shape
    _, o, kh, kw = w.shape
    size = [(m - 1) * stride - 2 * pad + dilation * (k - 1) + out_pad + 1
            for m, k in ((h, kh), (wd, kw))]
    full = np.zeros((n, o, size[0] + 2 * pad + stride + dilation * kh,
                     size[1] + 2 * pad + stride + dilation * kw))
    for i, j, a, b in itertools.product(range(h), range(wd), range(kh), range(kw)):
        full[:, :, i * stride + a * dilation, j * stride + b * dilation] += \
            x[:, :, i, j] @ w[:, :, a, b]
    return full[:, :, pad:pad + size[0], pad:pad + size[1]]
