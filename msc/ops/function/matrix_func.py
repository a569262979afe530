"""Diagonal and block structure: ``ops.matrix_diag``, ``ops.matrix_diag_part``,
``ops.matrix_set_diag`` (one diagonal ``k``), ``ops.block_diag`` and
``ops.combinations``, built from gathers, selects and constant positions.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from msc.common.tensor import SymTensor, Tensor
from msc.errors import GraphValueError
from msc.ir import dtypes
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.manipulation_func import _fail, diagonal
from msc.ops.function.scatter_func import diagonal_scatter


def _offset(k: Any, op: str) -> int:
    """One diagonal: an int or a one-element tensor known when the graph is built (a
    range of diagonals, MindSpore's (low, high) ``k``, is not supported yet)."""
    if isinstance(k, SymTensor):
        _fail(op, "'k' must be known when the graph is built.")
    if isinstance(k, Tensor):
        k = k.asnumpy().reshape(-1).tolist()
    if isinstance(k, (list, tuple)):
        if len(k) == 2 and k[0] != k[1]:
            with _checking(op):
                raise GraphValueError(f"a range of diagonals k={tuple(k)} is not supported "
                                      f"by msc yet: give one diagonal")
        k = k[0]
    return int(k)


def matrix_diag(x: Any, k: Any = 0, num_rows: int = -1, num_cols: int = -1,
                padding_value: Any = 0, align: str = "RIGHT_LEFT") -> Any:
    """Matrices with ``x``'s last axis on diagonal ``k`` and ``padding_value`` elsewhere:
    (..., n) -> (..., rows, cols), by default the smallest that hold it."""
    t = _as_tensor(x, "MatrixDiagV3")
    offset = _offset(k, "MatrixDiagV3")
    n = t.shape[-1]
    rows = n + max(-offset, 0) if int(num_rows) == -1 else int(num_rows)
    cols = n + max(offset, 0) if int(num_cols) == -1 else int(num_cols)
    if min(rows + min(offset, 0), cols - max(offset, 0)) != n:
        _fail("MatrixDiagV3", f"a diagonal of {n} values does not fit diagonal {offset} of "
                              f"a {rows} x {cols} matrix.")
    pad = padding_value.asnumpy().item() if isinstance(padding_value, Tensor) and \
        not isinstance(padding_value, SymTensor) else padding_value
    base = F.fill(t.dtype, t.shape[:-1] + (rows, cols), pad) if not isinstance(pad, Tensor) \
        else F.broadcast_to(F.cast(pad, t.dtype), t.shape[:-1] + (rows, cols))
    return diagonal_scatter(base, t, offset, -2, -1)


def matrix_diag_part(x: Any, k: Any, padding_value: Any, align: str = "RIGHT_LEFT") -> Any:
    """Diagonal ``k`` of the last two axes."""
    return diagonal(_as_tensor(x, "MatrixDiagPartV3"), _offset(k, "MatrixDiagPartV3"), -2, -1)


def matrix_set_diag(x: Any, diagonal: Any, k: Any = 0, align: str = "RIGHT_LEFT") -> Any:  # noqa: F811
    """``x`` with diagonal ``k`` of its last two axes replaced."""
    return diagonal_scatter(_as_tensor(x, "MatrixSetDiagV3"), diagonal,
                            _offset(k, "MatrixSetDiagV3"), -2, -1)


def block_diag(*inputs: Any) -> Any:
    """The tensors (0-, 1- or 2-D) as blocks along the diagonal of one matrix, zeros
    elsewhere, in their common dtype."""
    blocks = []
    for t in (_as_tensor(v, "block_diag") for v in inputs):
        if t.ndim > 2:
            _fail("block_diag", f"every input must be 0-, 1- or 2-D, but got {t.ndim}-D.")
        blocks.append(F.reshape(t, (1, -1) if t.ndim < 2 else t.shape))
    dt = blocks[0].dtype
    for b in blocks[1:]:
        dt = dtypes.promote(dt, b.dtype)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        parts = [F.zeros((b.shape[0], left), dt)] if left else []
        parts.append(F.cast(b, dt))
        right = width - left - b.shape[1]
        if right:
            parts.append(F.zeros((b.shape[0], right), dt))
        rows.append(F.concat(parts, 1) if len(parts) > 1 else parts[0])
        left += b.shape[1]
    return F.concat(rows, 0) if len(rows) > 1 else rows[0]


def combinations(input: Any, r: int = 2, with_replacement: bool = False) -> Any:  # noqa: A002
    """The length-``r`` combinations of a 1-D tensor's elements, one per row, in
    ``itertools`` order."""
    t = _as_tensor(input, "combinations")
    if t.ndim != 1:
        _fail("combinations", f"the input must be 1-D, but got {t.ndim}-D.")
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = np.array(list(pick(range(t.shape[0]), r)), np.int64).reshape(-1, r)
    if index.size == 0:
        return F.zeros((0,) if r else (0,), t.dtype)
    return F.gather(t, Tensor(index), 0)


__all__ = ["matrix_diag", "matrix_diag_part", "matrix_set_diag", "block_diag", "combinations"]
