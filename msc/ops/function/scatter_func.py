"""The segment and scatter reductions (``unsorted_segment_max``, ``tensor_scatter_mul``,
``tensor_scatter_sub``) as a one-hot select and a reduction over the updates, and the
pure ``inplace_*`` updates. Being compositions of primitives, they run eagerly and in
graphs on both targets.
"""

from __future__ import annotations

import math
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
from msc.ops.function.manipulation_func import _axis, _fail

# --- segment and scatter reductions --------------------------------------------------------

_REDUCE = {"sum": F.sum, "prod": F.prod, "max": F.amax, "min": F.amin}


def _identity(kind: str, dtype: dtypes.DType, finite: bool = False) -> Any:
    """The value a reduction of nothing gives; ``finite``: the dtype's lowest (highest)
    number instead of -inf (inf), what MindSpore leaves in an empty segment (its kernels
    start from it, as TensorFlow's do)."""
    if kind in ("sum", "prod"):
        return 0 if kind == "sum" else 1
    if dtype.is_float:
        if finite:
            info = np.finfo(dtype.np)
            return float(info.min if kind == "max" else info.max)
        return -np.inf if kind == "max" else np.inf
    info = np.iinfo(dtype.np)
    return int(info.min if kind == "max" else info.max)


def _combine(updates: Any, owners: Any, count: int, kind: str, finite: bool = False) -> Any:
    """Rows of ``updates`` (K, M) reduced into ``count`` rows by their owner (K,); an owner
    outside [0, count) drops its row; a row nothing reduces into holds ``_identity``."""
    k, m = updates.shape
    slots = Tensor(np.arange(count).reshape(1, count).astype(owners.dtype.np))
    hit = apply(Op.Equal, F.reshape(owners, (k, 1)), slots)
    spread = (k, count, m)
    picked = F.select(F.broadcast_to(F.reshape(hit, (k, count, 1)), spread),
                      F.broadcast_to(F.reshape(updates, (k, 1, m)), spread),
                      F.fill(updates.dtype, spread, _identity(kind, updates.dtype, finite)))
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
                    count, kind, finite=True)
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


# --- scatters into a Parameter (``ops.scatter_add``, ``ops.scatter_nd_max``, ...) ------------

_PURE = {"add": A.tensor_scatter_add, "sub": tensor_scatter_sub, "mul": tensor_scatter_mul,
         "div": tensor_scatter_div, "max": tensor_scatter_max, "min": tensor_scatter_min,
         "update": A.tensor_scatter_update}


def _store(input_x: Any, out: Any) -> Any:
    """``out`` written into ``input_x`` when it is a Parameter (returning its new value, as
    MindSpore's in-place scatters do); a plain tensor gets the result as a new tensor."""
    from msc.common.tensor import Parameter
    from msc.ops.function.side_effect_func import assign

    return assign(input_x, out) if isinstance(input_x, Parameter) else out


def _scatter_nd(kind: str, input_x: Any, indices: Any, updates: Any) -> Any:
    """Updates combined into ``input_x`` at the index tuples (the last axis of ``indices``);
    repeated indices combine again (``update``: one of them wins)."""
    return _store(input_x, _PURE[kind](input_x, indices, updates))


def _scatter_rows(kind: str, input_x: Any, indices: Any, updates: Any) -> Any:
    """``_scatter_nd`` with ``indices`` naming rows (the first axis) of ``input_x``; an
    update's shape is ``indices.shape + input_x.shape[1:]``."""
    idx = _as_tensor(indices, f"Scatter{kind.capitalize()}")
    return _scatter_nd(kind, input_x, F.expand_dims(idx, idx.ndim), updates)


def _scatter_form(kind: str, rows: bool) -> Any:
    def form(input_x: Any, indices: Any, updates: Any) -> Any:
        return (_scatter_rows if rows else _scatter_nd)(kind, input_x, indices, updates)

    form.__name__ = form.__qualname__ = f"scatter_{'' if rows else 'nd_'}{kind}"
    form.__doc__ = (f"The {kind} of ``updates`` into ``input_x`` at {'the rows' if rows else 'the index tuples'} ``indices``, "
                    "in place when ``input_x`` is a Parameter; returns the new value.")
    return form


scatter_add, scatter_sub, scatter_mul, scatter_div, scatter_max, scatter_min, \
    scatter_update = (_scatter_form(k, True) for k in _PURE)
scatter_nd_add, scatter_nd_sub, scatter_nd_mul, scatter_nd_div, scatter_nd_max, \
    scatter_nd_min, scatter_nd_update = (_scatter_form(k, False) for k in _PURE)

# --- scatters of a whole source by position (``slice_scatter``, ``masked_scatter``, ...) ------


def _placed(input: Any, src: Any, owner: np.ndarray, op: str) -> Any:
    """``input`` with ``src``'s element ``owner[i]`` at each position i where ``owner`` (a
    constant of ``input``'s shape, from the static shapes) is not -1: a gather and a
    select, so gradients reach both tensors."""
    x, s = _as_tensor(input, op), _as_tensor(src, op)
    flat = F.reshape(F.cast(s, x.dtype) if s.dtype != x.dtype else s, (-1,))
    picked = F.gather(flat, Tensor(np.maximum(owner, 0).astype(np.int64)), 0)
    return F.select(Tensor(owner >= 0), picked, x)


def _src_shape(src: Any, want: tuple[int, ...], op: str) -> None:
    if _as_tensor(src, op).shape != want:
        _fail(op, f"the shape of 'src' must be {want}, but got {_as_tensor(src, op).shape}.")


def select_scatter(input: Any, src: Any, axis: int, index: int) -> Any:  # noqa: A002
    """``input`` with ``src`` embedded at ``index`` along ``axis``."""
    x = _as_tensor(input, "select_scatter")
    axis = _axis(x, axis, "select_scatter")
    _src_shape(src, x.shape[:axis] + x.shape[axis + 1:], "select_scatter")
    owner = np.full(x.shape, -1, np.int64)
    owner[(slice(None),) * axis + (index,)] = np.arange(math.prod(x.shape) // x.shape[axis]
                                                       ).reshape(_as_tensor(src, "").shape)
    return _placed(x, src, owner, "select_scatter")


def slice_scatter(input: Any, src: Any, axis: int = 0, start: Any = None,  # noqa: A002
                  end: Any = None, step: int = 1) -> Any:
    """``input`` with ``src`` embedded in the slice ``start:end:step`` along ``axis``."""
    x = _as_tensor(input, "slice_scatter")
    axis = _axis(x, axis, "slice_scatter")
    key = (slice(None),) * axis + (slice(start, end, step),)
    target = np.empty(x.shape, np.int8)[key].shape
    _src_shape(src, target, "slice_scatter")
    owner = np.full(x.shape, -1, np.int64)
    owner[key] = np.arange(math.prod(target)).reshape(target)
    return _placed(x, src, owner, "slice_scatter")


def diagonal_scatter(input: Any, src: Any, offset: int = 0, dim1: int = 0,  # noqa: A002
                     dim2: int = 1) -> Any:
    """``input`` with ``src`` embedded along its diagonal ``offset`` of ``dim1``, ``dim2``
    (``src``'s last axis runs along the diagonal, as ``ops.diagonal`` gives it)."""
    x = _as_tensor(input, "diagonal_scatter")
    d1, d2 = _axis(x, dim1, "diagonal_scatter"), _axis(x, dim2, "diagonal_scatter")
    owner = np.full(x.shape, -1, np.int64)
    view = np.moveaxis(owner, (d1, d2), (-2, -1))
    rows, cols = view.shape[-2] - max(-offset, 0), view.shape[-1] - max(offset, 0)
    length = max(min(rows, cols), 0)
    target = view.shape[:-2] + (length,)
    _src_shape(src, target, "diagonal_scatter")
    diag = np.arange(length)
    view[..., diag + max(-offset, 0), diag + max(offset, 0)] = \
        np.arange(math.prod(target)).reshape(target)
    return _placed(x, src, owner, "diagonal_scatter")


def masked_scatter(input: Any, mask: Any, source: Any) -> Any:  # noqa: A002
    """``input`` with ``source``'s leading elements, in order, where ``mask`` (broadcast to
    ``input``) is True: the k-th True position takes ``source``'s k-th element."""
    x, m = _as_tensor(input, "masked_scatter"), _as_tensor(mask, "masked_scatter")
    src = _as_tensor(source, "masked_scatter")
    if m.dtype != dtypes.bool_:
        _fail("masked_scatter", f"the 'mask' must be a bool Tensor, but got {m.dtype}.",
              GraphTypeError)
    m = F.broadcast_to(m, x.shape)
    rank = F.reshape(F.cumsum(F.reshape(F.cast(m, dtypes.int64), (-1,)), 0), x.shape) - 1
    flat = F.reshape(F.cast(src, x.dtype) if src.dtype != x.dtype else src, (-1,))
    picked = F.gather(flat, F.clamp(rank, 0, max(src.size - 1, 0)), 0)
    return F.select(m, picked, x)


def index_put(input: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:  # noqa: A002
    """``input`` with ``values`` written (added, with ``accumulate``) at the positions
    the tuple of index tensors ``indices`` names, one tensor per leading axis."""
    x = _as_tensor(input, "IndexPut")
    idx = [_as_tensor(i, "IndexPut") for i in indices]
    if not idx or len(idx) > x.ndim:
        _fail("IndexPut", f"'indices' must hold 1 to {x.ndim} index tensors, but got {len(idx)}.")
    shape = np.broadcast_shapes(*(i.shape for i in idx))
    where = F.stack([F.broadcast_to(F.cast(i, dtypes.int64), shape) for i in idx], -1)
    v = _as_tensor(values, "IndexPut")
    v = F.broadcast_to(F.cast(v, x.dtype) if v.dtype != x.dtype else v,
                       tuple(shape) + x.shape[len(idx):])
    return (A.tensor_scatter_add if accumulate else A.tensor_scatter_update)(x, where, v)


SCATTERS = ("scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_max",
            "scatter_min", "scatter_update", "scatter_nd_add", "scatter_nd_sub",
            "scatter_nd_mul", "scatter_nd_div", "scatter_nd_max", "scatter_nd_min",
            "scatter_nd_update")


__all__ = [*SCATTERS, "select_scatter", "slice_scatter", "diagonal_scatter", "masked_scatter",
           "index_put", "tensor_scatter_sub", "unsorted_segment_sum", "unsorted_segment_max",
           "unsorted_segment_min", "unsorted_segment_prod", "tensor_scatter_mul",
           "tensor_scatter_div", "tensor_scatter_max", "tensor_scatter_min", "inplace_add",
           "inplace_sub", "inplace_update"]
