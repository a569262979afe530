"""The segment and scatter reductions (``unsorted_segment_max``, ``tensor_scatter_mul``,
``tensor_scatter_sub``) as a one-hot select and a reduction over the updates, and the
pure ``inplace_*`` updates. Being compositions of primitives, they run eagerly and in
graphs on both targets.
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
from msc.ops.function.array_func import _count
from msc.ops.function.manipulation_func import _fail

# --- segment and scatter reductions --------------------------------------------------------

_REDUCE = {"sum": F.sum, "prod": F.prod, "max": F.amax, "min": F.amin}


def _identity(kind: str, dtype: dtypes.DType) -> Any:
    """The value a reduction of nothing gives: what MindSpore leaves in an empty segment."""
    if kind in ("sum", "prod"):
        return 0 if kind == "sum" else 1
    if dtype.is_float:
        return -np.inf if kind == "max" else np.inf
    info = np.iinfo(dtype.np)
    return int(info.min if kind == "max" else info.max)


def _combine(updates: Any, owners: Any, count: int, kind: str) -> Any:
    """Rows of ``updates`` (K, M) reduced into ``count`` rows by their owner (K,); an owner
    outside [0, count) drops its row."""
    k, m = updates.shape
    slots = Tensor(np.arange(count).reshape(1, count).astype(owners.dtype.np))
    hit = apply(Op.Equal, F.reshape(owners, (k, 1)), slots)
    spread = (k, count, m)
    picked = F.select(F.broadcast_to(F.reshape(hit, (k, count, 1)), spread),
                      F.broadcast_to(F.reshape(updates, (k, 1, m)), spread),
                      F.fill(updates.dtype, spread, _identity(kind, updates.dtype)))
    return F.cast(_REDUCE[kind](picked, 0), updates.dtype)  # ints keep their width


def _unsorted_segment(x: Any, segment_ids: Any, num_segments: Any, kind: str) -> Any:
    op = f"UnsortedSegment{kind.capitalize()}"
    x, ids = _as_tensor(x, op), _as_tensor(segment_ids, op)
    if not ids.dtype.is_int:
        _fail(op, f"the 'segment_ids' must be an int tensor, but got {ids.dtype}.", GraphTypeError)
    if x.shape[:ids.ndim] != ids.shape:
        _fail(op, f"the shape of 'segment_ids' {ids.shape} must be a prefix of the shape of "
                  f"'x' {x.shape}.")
    count = _count(num_segments, "num_segments", op)
    inner = x.shape[ids.ndim:]
    rows = _combine(F.reshape(x, (ids.size, int(np.prod(inner)))), F.reshape(ids, (-1,)),
                    count, kind)
    return F.reshape(rows, (count, *inner))


def unsorted_segment_sum(input_x: Any, segment_ids: Any, num_segments: Any) -> Any:
    return _unsorted_segment(input_x, segment_ids, num_segments, "sum")


def unsorted_segment_max(x: Any, segment_ids: Any, num_segments: Any) -> Any:
    return _unsorted_segment(x, segment_ids, num_segments, "max")


def unsorted_segment_min(x: Any, segment_ids: Any, num_segments: Any) -> Any:
    return _unsorted_segment(x, segment_ids, num_segments, "min")


def unsorted_segment_prod(x: Any, segment_ids: Any, num_segments: Any) -> Any:
    return _unsorted_segment(x, segment_ids, num_segments, "prod")


def _tensor_scatter(input_x: Any, indices: Any, updates: Any, kind: str, op: str) -> Any:
    """``input_x`` combined at each index tuple with every update aimed at it."""
    x, idx, upd = (_as_tensor(v, op) for v in (input_x, indices, updates))
    depth = idx.shape[-1]
    if idx.ndim < 1 or depth > x.ndim or upd.shape != idx.shape[:-1] + x.shape[depth:]:
        _fail(op, f"the shapes of 'input_x' {x.shape}, 'indices' {idx.shape} and 'updates' "
                  f"{upd.shape} do not match.")
    strides = np.cumprod((x.shape[1:depth] + (1,))[::-1])[::-1].astype(idx.dtype.np)
    owners = F.sum(idx * Tensor(strides), -1)
    inner = int(np.prod(x.shape[depth:]))
    places = int(np.prod(x.shape[:depth]))
    reduced = _combine(F.reshape(upd, (-1, inner)), F.reshape(owners, (-1,)), places,
                       "prod" if kind in ("mul", "div") else kind)
    base = F.reshape(x, (places, inner))
    if kind == "mul":
        out = base * reduced
    elif kind == "div":
        out = base / reduced if x.dtype.is_float else F.div(base, reduced, rounding_mode="trunc")
    else:
        out = apply(Op.Maximum if kind == "max" else Op.Minimum, base, reduced)
    return F.reshape(out, x.shape)


def tensor_scatter_mul(input_x: Any, indices: Any, updates: Any) -> Any:
    return _tensor_scatter(input_x, indices, updates, "mul", "TensorScatterMul")


def tensor_scatter_div(input_x: Any, indices: Any, updates: Any) -> Any:
    return _tensor_scatter(input_x, indices, updates, "div", "TensorScatterDiv")


def tensor_scatter_max(input_x: Any, indices: Any, updates: Any) -> Any:
    return _tensor_scatter(input_x, indices, updates, "max", "TensorScatterMax")


def tensor_scatter_min(input_x: Any, indices: Any, updates: Any) -> Any:
    return _tensor_scatter(input_x, indices, updates, "min", "TensorScatterMin")


# --- pure "inplace" row updates ------------------------------------------------------------


def _rows(x: Any, v: Any, indices: Any, op: str) -> tuple[Tensor, Tensor, Any]:
    """``x``, ``v`` and the row indices as (N, 1) index tuples."""
    x, v = _as_tensor(x, op), _as_tensor(v, op)
    if isinstance(indices, Tensor):
        rows = F.reshape(indices, (-1, 1))
    elif isinstance(indices, (int, tuple, list)) and not isinstance(indices, bool):
        rows = Tensor(np.array(indices, np.int32).reshape(-1, 1))
    else:
        _fail(op, f"the 'indices' must be an int, a tuple of ints or a Tensor, but got "
                  f"{type(indices).__name__}.", GraphTypeError)
    if v.ndim != x.ndim or v.shape[1:] != x.shape[1:] or v.shape[0] != rows.shape[0]:
        _fail(op, f"'v' of shape {v.shape} does not fit {rows.shape[0]} rows of 'x' of shape "
                  f"{x.shape}.")
    return x, v, rows


def inplace_add(x: Any, v: Any, indices: Any) -> Any:
    """``x`` with ``v`` added to the rows ``indices`` (a new tensor)."""
    x, v, rows = _rows(x, v, indices, "InplaceAdd")
    return A.tensor_scatter_add(x, rows, v)


def inplace_sub(x: Any, v: Any, indices: Any) -> Any:
    x, v, rows = _rows(x, v, indices, "InplaceSub")
    return A.tensor_scatter_add(x, rows, -v)


def inplace_update(x: Any, v: Any, indices: Any) -> Any:
    x, v, rows = _rows(x, v, indices, "InplaceUpdate")
    return A.tensor_scatter_update(x, rows, v)


def tensor_scatter_sub(input_x: Any, indices: Any, updates: Any) -> Any:
    """``input_x`` less ``updates`` at the index tuples (repeats subtract again)."""
    return A.tensor_scatter_add(input_x, indices, -_as_tensor(updates, "TensorScatterSub"))


__all__ = ["tensor_scatter_sub", "unsorted_segment_sum", "unsorted_segment_max",
           "unsorted_segment_min", "unsorted_segment_prod", "tensor_scatter_mul",
           "tensor_scatter_div", "tensor_scatter_max", "tensor_scatter_min", "inplace_add",
           "inplace_sub", "inplace_update"]
