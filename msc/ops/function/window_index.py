"""Where each pooling window's maximum lies: the indices ``return_indices=True`` of max
pooling and adaptive max pooling return (MindSpore's: the position in the flattened
spatial dims of the input, int64), and adaptive max pooling's values, whose gradient goes
to that position. A window is a row of a constant table of flat positions (the shapes
are static); the first maximum in row-major order wins, as in MindSpore's kernels.

A dilated window may have no tap inside the input (width 1, padding 1, dilation 2: its
taps are -1 and 1). MindSpore's index for it is where its scan starts: in each dim the
first tap at or after 0, flattened by the input's strides, so it may lie outside the
input or name an element the window does not cover (MindSpore 2.10: indices [2, 3] for
``ops.max_pool2d`` of a (1, 1, 4, 1) input, kernel 2, stride 3, padding 1, dilation 2)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.ir.primitives import Op
from msc.ops.functional import reshape


def window_table(spatial: tuple[int, ...], per_dim: list[list[list[int]]],
                 starts: list[list[int]] | None = None) -> np.ndarray:
    """(windows, taps) flat positions: ``per_dim[d][o]`` lists the input positions along
    dim d of output position o (inside the input). Short rows repeat their first tap,
    which never displaces the first maximum. A window with no tap inside the input is
    one position, ``starts[d][o]`` in each dim (see the module docstring)."""
    strides = [math.prod(spatial[d + 1:]) for d in range(len(spatial))]
    rows = []
    for at in itertools.product(*(range(len(taps)) for taps in per_dim)):
        combo = [per_dim[d][o] for d, o in enumerate(at)]
        points = itertools.product(*combo) if all(combo) else \
            [[starts[d][o] for d, o in enumerate(at)]]
        rows.append([sum(p * s for p, s in zip(point, strides)) for point in points])
    width = max(len(r) for r in rows)
    return np.array([r + [r[0]] * (width - len(r)) for r in rows], np.int64)


def window_argmax(x: Any, nd: int, table: np.ndarray, out: tuple[int, ...]) -> tuple[Any, Any]:
    """(values, int64 indices), each of shape ``x``'s leading dims + ``out``. A window
    with no tap inside the input has its index, and a value that means nothing."""
    lead, size = tuple(x.shape[:-nd]), math.prod(x.shape[-nd:])
    flat = reshape(x, lead + (size,))
    inside = np.minimum(table, size - 1).reshape(-1).astype(np.int32)
    taps = apply(Op.Gather, flat, Tensor(inside), axis=len(lead))
    taps = reshape(taps, lead + table.shape)
    first = apply(Op.Argmax, taps, axis=len(lead) + 1, keep_dims=True)
    values = apply(Op.GatherD, taps, first, dim=len(lead) + 1)
    where = apply(Op.BroadcastTo, Tensor(table), shape=lead + table.shape)
    index = apply(Op.GatherD, where, first, dim=len(lead) + 1)
    return reshape(values, lead + out), reshape(index, lead + out)


def pool_taps(spatial: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
              dilation: tuple[int, ...], pad: tuple[int, ...],
              out: tuple[int, ...]) -> tuple[list[list[list[int]]], list[list[int]]]:
    """Each dim's taps of a (dilated, padded) pooling window, inside the input, and each
    window's first tap at or after 0 (MindSpore's index of a window over the padding)."""
    per_dim, starts = [], []
    for d, (n, k, s, dil) in enumerate(zip(spatial, kernel, stride, dilation)):
        first = [o * s - pad[2 * d] for o in range(out[d])]
        per_dim.append([[f + t * dil for t in range(k) if 0 <= f + t * dil < n] for f in first])
        starts.append([f - min(f // dil, 0) * dil for f in first])
    return per_dim, starts
