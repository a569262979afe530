"""Sorted search: ``ops.searchsorted`` and ``ops.bucketize``, as counts of the sorted
values below each value (a comparison and a sum), so they run eagerly and in graphs on
both targets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphTypeError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor
from msc.ops.function.manipulation_func import _fail

def _count_below(sorted_rows: Any, values: Any, right: bool, dtype: Any, op: str) -> Any:
    """For each value, how many entries of its sorted row are below it (or equal, when
    ``right``)."""
    seq, v = _as_tensor(sorted_rows, op), _as_tensor(values, op)
    if seq.ndim != 1 and seq.shape[:-1] != v.shape[:-1]:
        _fail(op, f"the leading dims of 'sorted_sequence' {seq.shape} and 'values' {v.shape} "
                  f"must match.")
    rows = seq if seq.ndim == 1 else F.expand_dims(seq, -2)
    below = apply(Op.LessEqual if right else Op.Less, rows, F.expand_dims(v, -1))
    return F.cast(F.sum(F.cast(below, dtypes.int32), -1), dtype)


def bucketize(input: Any, boundaries: Any, *, right: bool = False) -> Any:  # noqa: A002
    """The index of the bucket of ``boundaries`` (a sorted list, or a 1-d Tensor as
    MindSpore 2.10 also takes) each element falls in."""
    x = _as_tensor(input, "bucketize")
    if isinstance(boundaries, Tensor) and boundaries.ndim == 1:
        return _count_below(boundaries, x, right, dtypes.int32, "bucketize")
    if not isinstance(boundaries, (list, tuple)):
        _fail("bucketize", f"the 'boundaries' must be a list, but got "
                           f"{type(boundaries).__name__}.", GraphTypeError)
    edges = np.array(boundaries, np.float64 if x.dtype.is_float else None)
    if edges.dtype.kind == "f" and not x.dtype.is_float:
        x = F.cast(x, dtypes.float64)
    return _count_below(Tensor(edges.astype(x.dtype.np) if edges.dtype.kind == x.dtype.np.kind
                               else edges), x, right, dtypes.int32, "bucketize")


def searchsorted(sorted_sequence: Any, values: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Any = None) -> Any:
    if side is not None:
        if side not in ("left", "right"):
            _fail("searchsorted", f"the 'side' must be 'left' or 'right', but got {side!r}.")
        right = side == "right"
    seq = _as_tensor(sorted_sequence, "SearchSorted")
    if sorter is not None:
        seq = A.gather_d(seq, seq.ndim - 1, sorter)
    return _count_below(seq, values, right, dtypes.int32 if out_int32 else dtypes.int64,
                        "SearchSorted")


__all__ = ["bucketize", "searchsorted"]
