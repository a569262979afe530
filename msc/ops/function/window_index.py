"""Where each pooling window's maximum lies: the indices ``return_indices=True`` of max
pooling and adaptive max pooling return (MindSpore's: the position in the flattened
spatial dims of the input, int64), and adaptive max pooling's values, whose gradient goes
to that position. A window is a row of a constant table of flat positions (the shapes
are static); the first maximum in row-major order wins, as in MindSpore's kernels."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.ir.primitives import Op
from msc.ops.functional import reshape


def window_table(spatial: tuple[int, ...], per_dim: list[list[list[int]]]) -> np.ndarray:
    """(windows, taps) flat positions: ``per_dim[d][o]`` lists the input positions along
    dim d of output position o (inside the input). Short rows repeat their first tap,
    which never displaces the first maximum."""
    rows = []
    for combo in itertools.product(*per_dim):
        rows.append([int(np.ravel_multi_index(p, spatial)) for p in itertools.product(*combo)])
    width = max(len(r) for r in rows)
    return np.array([r + [r[0]] * (width - len(r)) for r in rows], np.int64)


def window_argmax(x: Any, nd: int, table: np.ndarray, out: tuple[int, ...]) -> tuple[Any, Any]:
    """(values, int64 indices), each of shape ``x``'s leading dims + ``out``."""
    lead = tuple(x.shape[:-nd])
    flat = reshape(x, lead + (math.prod(x.shape[-nd:]),))
    taps = apply(Op.Gather, flat, Tensor(table.reshape(-1).astype(np.int32)), axis=len(lead))
    taps = reshape(taps, lead + table.shape)
    first = apply(Op.Argmax, taps, axis=len(lead) + 1, keep_dims=True)
    values = apply(Op.GatherD, taps, first, dim=len(lead) + 1)
    where = apply(Op.BroadcastTo, Tensor(table), shape=lead + table.shape)
    index = apply(Op.GatherD, where, first, dim=len(lead) + 1)
    return reshape(values, lead + out), reshape(index, lead + out)


def pool_taps(spatial: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
              dilation: tuple[int, ...], pad: tuple[int, ...],
              out: tuple[int, ...]) -> list[list[list[int]]]:
    """Each dim's taps of a (dilated, padded) pooling window, inside the input."""
    per_dim = []
    for d, (n, k, s, dil) in enumerate(zip(spatial, kernel, stride, dilation)):
        lo = pad[2 * d]
        per_dim.append([[o * s - lo + t * dil for t in range(k) if 0 <= o * s - lo + t * dil < n]
                        for o in range(out[d])])
    return per_dim
