"""Sorted search: ``ops.searchsorted`` and ``ops.bucketize``, as counts of the sorted
values below each value (a comparison and a sum), so they run eagerly and in graphs on
both targets. Finding elements whose number depends on the data (``ops.nonzero``,
``argwhere``, ``masked_select``, ``unique``, ``unique_consecutive``, ``bincount``) runs
eagerly only: a graph's shapes are fixed when it is compiled, so inside one they raise
msc's error at the user's line; ``ops.unique_with_pad`` pads to the input's size, a
static shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.builder import current_builder
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.primitive import Primitive
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


def _eager_values(op: str, *tensors: Any) -> list[np.ndarray]:
    """The arrays of ``tensors``; inside a graph, msc's error: the result's shape would
    depend on the data."""
    tensors = tuple(_as_tensor(t, op) for t in tensors)
    with _checking(op):
        if current_builder() is not None and any(isinstance(t, SymTensor) for t in tensors):
            raise GraphTypeError("the shape of the result depends on the data, and a graph's "
                                 "shapes are fixed when it is compiled: call it outside the "
                                 "graph (eagerly), or use ops.unique_with_pad or a mask")
    return [t.asnumpy() for t in tensors]


def nonzero(input: Any, *, as_tuple: bool = False) -> Any:  # noqa: A002
    """The int64 indices of the non-zero elements, one row each (``as_tuple``: one 1-D
    tensor per axis)."""
    (x,) = _eager_values("nonzero", input)
    found = np.nonzero(x) if x.ndim else np.nonzero(x.reshape(1))
    if as_tuple:
        return tuple(Tensor(i.astype(np.int64)) for i in found)
    return Tensor(np.stack(found, axis=1).astype(np.int64) if x.ndim else
                  np.zeros((int(bool(x)), 0), np.int64))


def argwhere(input: Any) -> Any:  # noqa: A002
    return nonzero(input)


def masked_select(input: Any, mask: Any) -> Any:  # noqa: A002
    """The elements where the (broadcast) bool ``mask`` holds, in row-major order."""
    x, m = _eager_values("masked_select", input, mask)
    if m.dtype != np.bool_:
        raise GraphTypeError(f"For 'masked_select', the 'mask' must be a bool Tensor, but got "
                             f"{_as_tensor(mask, 'masked_select').dtype}.")
    x, m = np.broadcast_arrays(x, m)
    return Tensor(x[m])


def _first_occurrences(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``x`` in the order they first appear, and each element's
    position among them (MindSpore's ``Unique`` on CPU)."""
    values, first, inverse = np.unique(x.reshape(-1), return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return values[order], rank[inverse.reshape(-1)]


def _index_dtype(x: np.ndarray) -> type:
    return np.int64 if x.dtype == np.int64 else np.int32


def unique(input: Any) -> tuple[Any, Any]:  # noqa: A002
    """``(values, idx)``: the distinct values in order of first appearance, and for each
    element its value's position (int64 for int64 input, else int32)."""
    (x,) = _eager_values("unique", input)
    values, idx = _first_occurrences(x)
    return Tensor(values), Tensor(idx.reshape(x.shape).astype(_index_dtype(x)))


def unique_with_pad(x: Any, pad_num: Any) -> tuple[Any, Any]:
    """``unique`` of a 1-D tensor, the values padded to its length with ``pad_num``: a
    static shape, so in a graph it is composed of comparisons (n x n of them)."""
    t = _as_tensor(x, "unique_with_pad")
    with _checking("unique_with_pad"):
        if t.ndim != 1:
            raise GraphValueError(f"the 'x' must be 1-D, but got {t.ndim}-D")
    pad = F.cast(pad_num if isinstance(pad_num, Tensor) else Tensor(np.asarray(pad_num)),
                 t.dtype)
    n, index_dtype = t.shape[0], dtypes.int64 if t.dtype == dtypes.int64 else dtypes.int32
    if current_builder() is None or not isinstance(t, SymTensor):
        values, idx = _first_occurrences(t.asnumpy())
        padded = np.full(n, pad.asnumpy(), t.dtype.np)
        padded[:values.size] = values
        return Tensor(padded), Tensor(idx.astype(index_dtype.np))
    same = apply(Op.Equal, F.reshape(t, (n, 1)), F.reshape(t, (1, n)))
    first = F.cast(F.argmax(F.cast(same, dtypes.int32), 1), dtypes.int32)  # first equal
    positions = F.cast(F.arange(0, n, 1), dtypes.int32)
    is_first = apply(Op.Equal, first, positions)
    rank = F.cumsum(F.cast(is_first, dtypes.int32), 0) - 1
    idx = F.gather(rank, first, 0)
    slot = apply(Op.LogicalAnd, F.reshape(is_first, (1, n)),
                 apply(Op.Equal, F.reshape(rank, (1, n)), F.reshape(positions, (n, 1))))
    picked = F.reduce_sum(F.select(slot, F.broadcast_to(F.reshape(t, (1, n)), (n, n)),
                                   F.zeros((n, n), t.dtype)), 1)
    filled = F.reduce_sum(F.cast(slot, dtypes.int32), 1) > 0
    values = F.select(filled, F.cast(picked, t.dtype), F.broadcast_to(pad, (n,)))
    return values, F.cast(idx, index_dtype)


def unique_consecutive(input: Any, return_inverse: bool = False,  # noqa: A002
                       return_counts: bool = False, dim: int | None = None) -> Any:
    """Each run of equal consecutive elements (or slices along ``dim``) kept once; the
    inverse indices and the runs' lengths are int64."""
    (x,) = _eager_values("unique_consecutive", input)
    if dim is None:
        rows, shape = x.reshape(-1, 1), x.shape
    else:
        if not -x.ndim <= dim < x.ndim:
            raise GraphValueError(f"For 'unique_consecutive', the 'dim' must be in "
                                  f"[{-x.ndim}, {x.ndim}), but got {dim}.")
        moved = np.moveaxis(x, dim, 0)
        rows, shape = moved.reshape(moved.shape[0], -1), (moved.shape[0],)
    starts = np.ones(len(rows), bool)
    starts[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    kept = rows[starts]
    if dim is None:
        output = kept.reshape(-1)
    else:
        output = np.moveaxis(kept.reshape((-1,) + np.moveaxis(x, dim, 0).shape[1:]), 0, dim)
    result = [Tensor(np.ascontiguousarray(output))]
    if return_inverse:
        result.append(Tensor((np.cumsum(starts) - 1).reshape(shape).astype(np.int64)))
    if return_counts:
        result.append(Tensor(np.diff(np.append(np.nonzero(starts)[0], len(rows))).astype(
            np.int64)))
    return result[0] if len(result) == 1 else tuple(result)


def bincount(input: Any, weights: Any = None, minlength: int = 0) -> Any:  # noqa: A002
    """How often each value 0..max(input, minlength - 1) occurs in the 1-D int ``input``
    (the sum of its ``weights`` where given), as float32 (MindSpore's)."""
    arrays = _eager_values("bincount", input, *(() if weights is None else (weights,)))
    x = arrays[0]
    if x.ndim != 1:
        raise GraphValueError("For math function 'bincount', 'input' should be one-dimensional "
                              "tensor.")
    if not np.issubdtype(x.dtype, np.integer):
        raise GraphTypeError(f"For 'bincount', the 'input' must be an int Tensor, but got "
                             f"{_as_tensor(input, 'bincount').dtype}.")
    if minlength < 0:
        raise GraphValueError(f"For 'bincount', 'minlength' should be >= 0 but got {minlength}.")
    if x.size == 0:
        return Tensor(np.zeros(0, np.float32))
    w = None if weights is None else arrays[1]
    if w is not None and w.shape != x.shape:
        raise GraphValueError("for bincount `input` and `weights` must have the same length")
    length = max(int(x.max()) + 1, minlength)
    kept = x >= 0  # negative values count nowhere
    counts = np.bincount(x[kept], None if w is None else w[kept].astype(np.float64), length)
    return Tensor(counts.astype(np.float32))


def tensor_unique(input: Any, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
                  return_counts: bool = False, dim: int | None = None) -> Any:
    """``Tensor.unique``: the distinct values (ascending with ``sorted``, else in order of
    first appearance), with the int64 inverse indices and counts if asked."""
    (x,) = _eager_values("unique", input)
    if dim is not None:
        raise GraphValueError("For 'Tensor.unique', msc supports dim=None only.")
    if sorted:
        values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    else:
        values, inverse = _first_occurrences(x)
        counts = np.bincount(inverse, minlength=values.size)
    result = [Tensor(values)]
    if return_inverse:
        result.append(Tensor(inverse.reshape(x.shape).astype(np.int64)))
    if return_counts:
        result.append(Tensor(counts.astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)


class NonZero(Primitive):
    def __call__(self, x: Any) -> Any:
        return nonzero(x)


class MaskedSelect(Primitive):
    def __call__(self, x: Any, mask: Any) -> Any:
        return masked_select(x, mask)


class Unique(Primitive):
    def __call__(self, input_x: Any) -> Any:
        return unique(input_x)


class UniqueWithPad(Primitive):
    def __call__(self, x: Any, pad_num: Any) -> Any:
        return unique_with_pad(x, pad_num)


class UniqueConsecutive(Primitive):
    """The primitive form: always ``(output, idx, counts)``."""

    def __init__(self, return_idx: bool = False, return_counts: bool = False,
                 axis: int | None = None):
        super().__init__(return_idx=return_idx, return_counts=return_counts, axis=axis)

    def __call__(self, x: Any) -> Any:
        return unique_consecutive(x, True, True, self.attrs["axis"])


class Bincount(Primitive):
    """``Bincount()(array, size, weights)``: float32 counts of 0..size-1 (larger values
    dropped), each weighted where ``weights`` is not empty."""

    def __call__(self, array: Any, size: Any, weights: Any) -> Any:
        x, w = _eager_values("Bincount", array, weights)
        length = int(size.asnumpy() if isinstance(size, Tensor) else size)
        if length < 0:
            raise GraphValueError(f"For 'Bincount', the 'size' must be >= 0, but got {length}.")
        kept = (x >= 0) & (x < length)
        w = w.reshape(x.shape)[kept] if w.size else None
        return Tensor(np.bincount(x[kept].reshape(-1), w, length).astype(np.float32))


class CountNonZero(Primitive):
    """``CountNonZero(dims=None)(x)``: the int64 count of non-zero elements over ``dims``
    (all axes by default); a static shape, so it runs in graphs."""

    def __init__(self, dims: Any = None):
        super().__init__(dims=dims)

    def __call__(self, x: Any) -> Any:
        from msc.ops.function.math_func import count_nonzero

        dims = self.attrs["dims"]
        return count_nonzero(x, () if dims is None else dims, dtype=dtypes.int64)


__all__ = ["bucketize", "searchsorted", "nonzero", "argwhere", "masked_select", "unique",
           "unique_with_pad", "unique_consecutive", "bincount", "NonZero", "MaskedSelect",
           "Unique", "UniqueWithPad", "UniqueConsecutive", "Bincount", "CountNonZero"]
