"""MindSpore ops that compose exactly from what msc has: the segment and scatter
reductions (``unsorted_segment_max``, ``tensor_scatter_mul``) as a one-hot select and a
reduction over the updates, the pure ``inplace_*`` updates, sorted search
(``searchsorted``, ``bucketize``), ``logspace``, frequencies and norms, with their
primitive classes (the layout ops are in ``coverage_layout``).

Being compositions of primitives, they run eagerly and in graphs on both targets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError
from msc.frontend.api import functional as F
from msc.frontend.api import functional_array as A
from msc.frontend.api.coverage_forms import logcumsumexp, renorm, tril_indices, triu_indices
from msc.frontend.api.coverage_layout import _axis, _fail
from msc.frontend.api.functional import _as_tensor
from msc.frontend.api.functional_array import _count
from msc.frontend.api.prim_classes import GeLU, Primitive
from msc.common.tensor import Tensor, apply
from msc.ir import dtypes
from msc.ir.primitives import Op

__all__ = ["unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
           "unsorted_segment_prod", "tensor_scatter_mul", "tensor_scatter_div",
           "tensor_scatter_max", "tensor_scatter_min", "inplace_add", "inplace_sub",
           "inplace_update", "logspace", "truncate_div", "truncate_mod", "fftfreq",
           "rfftfreq", "bucketize", "searchsorted", "vector_norm", "scalar_to_tensor",
           "UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
           "UnsortedSegmentProd", "TensorScatterMul", "TensorScatterDiv", "TensorScatterMax",
           "TensorScatterMin", "InplaceAdd", "InplaceSub", "InplaceUpdate", "InplaceUpdateV2",
           "LogSpace", "Bucketize", "SearchSorted", "LowerBound", "UpperBound", "Diag",
           "TrilIndices", "TriuIndices", "ConjugateTranspose", "Gelu", "Renorm",
           "LpNorm", "CumulativeLogsumexp", "ScalarToTensor", "TupleToArray"]


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


# --- creation, shifts and frequencies ------------------------------------------------------

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def logspace(start: Any, end: Any, steps: int, base: int = 10, *,
             dtype: Any = dtypes.float32) -> Any:
    """``base`` to the powers of ``steps`` evenly spaced exponents from start to end."""
    if dtype not in _FLOATS:
        _fail("LogSpace", f"the 'dtype' should be one of [mindspore.float16, mindspore.float32, "
                          f"mindspore.float64], but got 'mindspore.{dtype}'.", GraphTypeError)
    count = _count(steps, "steps", "LogSpace")
    if count < 0:
        _fail("LogSpace", f"the 'steps' must be non-negative, but got {count}.")
    first, last = (F.cast(v if isinstance(v, Tensor) else Tensor(v), dtype) for v in (start, end))
    fraction = np.arange(count) / max(count - 1, 1)
    exponents = first + (last - first) * Tensor(fraction.astype(dtype.np))
    return F.pow(Tensor(np.array(base, dtype.np)), exponents)


def truncate_div(x: Any, y: Any) -> Any:
    return F.div(x, y, rounding_mode="trunc")


def truncate_mod(x: Any, y: Any) -> Any:
    return F.fmod(x, y)


def _frequencies(table: Any, n: Any, d: Any, dtype: Any, op: str) -> Any:
    count = _count(n, "n", op)
    if count < 1:
        _fail(op, f"the 'n' must be positive, but got {count}.")
    return Tensor(table(count, d).astype((dtype or dtypes.float32).np))


def fftfreq(n: Any, d: float = 1.0, dtype: Any = None) -> Any:
    return _frequencies(np.fft.fftfreq, n, d, dtype, "fftfreq")


def rfftfreq(n: Any, d: float = 1.0, dtype: Any = None) -> Any:
    return _frequencies(np.fft.rfftfreq, n, d, dtype, "rfftfreq")


def scalar_to_tensor(input_x: Any, dtype: Any = dtypes.float32) -> Any:
    if not isinstance(input_x, (bool, int, float)):
        _fail("scalar_to_tensor", f"the 'input_x' must be a number, but got "
                                  f"{type(input_x).__name__}.", GraphTypeError)
    return Tensor(input_x, dtype)


# --- sorted search and norms ---------------------------------------------------------------


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
    """The index of the bucket of ``boundaries`` (a sorted list) each element falls in."""
    x = _as_tensor(input, "bucketize")
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


def vector_norm(x: Any, ord: Any = 2, axis: Any = None, keepdims: bool = False, *,  # noqa: A002
                dtype: Any = None) -> Any:
    """The ``ord``-norm over ``axis`` (all dims by default): inf and -inf take the largest
    and smallest magnitude, 0 counts the non-zeros."""
    t = _as_tensor(x, "vector_norm")
    if dtype is not None:
        t = F.cast(t, dtype)
    elif not t.dtype.is_float:
        t = F.cast(t, dtypes.float32)
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        _fail("vector_norm", f"the 'ord' must be a number, but got {ord!r}.", GraphTypeError)
    axis = tuple(axis) if isinstance(axis, list) else axis
    size = apply(Op.Abs, t)
    if ord == np.inf:
        return F.amax(size, axis, keepdims)
    if ord == -np.inf:
        return F.amin(size, axis, keepdims)
    if ord == 0:
        return F.sum(F.cast(apply(Op.NotEqual, t, 0), t.dtype), axis, keepdims)
    if ord == 1:
        return F.sum(size, axis, keepdims)
    if ord == 2:
        return F.sqrt(F.sum(F.square(t), axis, keepdims))
    return F.sum(size ** ord, axis, keepdims) ** (1.0 / ord)


# --- primitive classes ---------------------------------------------------------------------


def _over(name: str, function: Any, doc: str) -> type:
    """A primitive class ``name`` with no attributes whose call is ``function``."""
    return type(name, (Primitive,), {"__call__": lambda self, *args: function(*args),
                                     "__doc__": doc, "__module__": __name__})


UnsortedSegmentSum = _over("UnsortedSegmentSum", unsorted_segment_sum,
                           "Sums of the rows of each segment.")
UnsortedSegmentMax = _over("UnsortedSegmentMax", unsorted_segment_max,
                           "Maxima of each segment (the lowest value if empty).")
UnsortedSegmentMin = _over("UnsortedSegmentMin", unsorted_segment_min,
                           "Minima of each segment (the highest value if empty).")
UnsortedSegmentProd = _over("UnsortedSegmentProd", unsorted_segment_prod,
                            "Products of each segment (1 if empty).")
TensorScatterMul = _over("TensorScatterMul", tensor_scatter_mul,
                         "Multiplies by the updates at their indices.")
TensorScatterDiv = _over("TensorScatterDiv", tensor_scatter_div,
                         "Divides by the updates at their indices.")
TensorScatterMax = _over("TensorScatterMax", tensor_scatter_max,
                         "The maximum with the updates at their indices.")
TensorScatterMin = _over("TensorScatterMin", tensor_scatter_min,
                         "The minimum with the updates at their indices.")
ConjugateTranspose = _over("ConjugateTranspose", F.transpose,
                           "The transpose (msc's tensors are real).")
Diag = _over("Diag", A.diag, "The input on the diagonal of a tensor of twice its rank.")
Gelu = GeLU


class _Rows(Primitive):
    """An ``Inplace*`` class: the rows are fixed when it is made."""

    def __init__(self, indices: Any):
        super().__init__(indices=indices)


class InplaceAdd(_Rows):
    def __call__(self, x: Any, v: Any) -> Any:
        return inplace_add(x, v, self.attrs["indices"])


class InplaceSub(_Rows):
    def __call__(self, x: Any, v: Any) -> Any:
        return inplace_sub(x, v, self.attrs["indices"])


class InplaceUpdate(_Rows):
    def __call__(self, x: Any, v: Any) -> Any:
        return inplace_update(x, v, self.attrs["indices"])


class InplaceUpdateV2(Primitive):
    def __call__(self, x: Any, indices: Any, v: Any) -> Any:
        return inplace_update(x, v, indices)


class LogSpace(Primitive):
    def __init__(self, steps: int = 10, base: int = 10, dtype: Any = dtypes.float32):
        super().__init__(steps=steps, base=base, dtype=dtype)

    def __call__(self, start: Any, end: Any) -> Any:
        return logspace(start, end, self.attrs["steps"], self.attrs["base"],
                        dtype=self.attrs["dtype"])


class Bucketize(Primitive):
    """Bucket ``i`` holds boundaries[i - 1] <= x < boundaries[i]."""

    def __init__(self, boundaries: Any):
        super().__init__(boundaries=boundaries)

    def __call__(self, input: Any) -> Any:  # noqa: A002
        return bucketize(input, self.attrs["boundaries"], right=True)


class SearchSorted(Primitive):
    def __init__(self, dtype: Any = dtypes.int64, right: bool = False):
        super().__init__(dtype=dtype, right=right)

    def __call__(self, sorted_sequence: Any, values: Any, sorter: Any = None) -> Any:
        found = searchsorted(sorted_sequence, values, right=self.attrs["right"], sorter=sorter)
        return F.cast(found, self.attrs["dtype"])


class LowerBound(Primitive):
    """For each value, the first position of its sorted row not below it."""

    def __init__(self, out_type: Any = dtypes.int32):
        super().__init__(out_type=out_type)

    def __call__(self, sorted_x: Any, values: Any) -> Any:
        return _count_below(sorted_x, values, False, self.attrs["out_type"], "LowerBound")


class UpperBound(LowerBound):
    """For each value, the first position of its sorted row above it."""

    def __call__(self, sorted_x: Any, values: Any) -> Any:
        return _count_below(sorted_x, values, True, self.attrs["out_type"], "UpperBound")


class _Indices(Primitive):
    def __init__(self, row: int, col: int, offset: int = 0, dtype: Any = dtypes.int32):
        super().__init__(row=row, col=col, offset=offset, dtype=dtype)


class TrilIndices(_Indices):
    def __call__(self) -> Any:
        return tril_indices(**self.attrs)


class TriuIndices(_Indices):
    def __call__(self) -> Any:
        return triu_indices(**self.attrs)


class Renorm(Primitive):
    def __init__(self, p: int, dim: int, maxnorm: float):
        super().__init__(p=p, dim=dim, maxnorm=maxnorm)

    def __call__(self, input_x: Any) -> Any:
        return renorm(input_x, self.attrs["p"], self.attrs["dim"], self.attrs["maxnorm"])


class LpNorm(Primitive):
    def __init__(self, axis: Any, p: int = 2, keep_dims: bool = False, epsilon: float = 1e-12):
        axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
        super().__init__(axis=axis, p=p, keep_dims=keep_dims, epsilon=epsilon)

    def __call__(self, input: Any) -> Any:  # noqa: A002
        return vector_norm(input, self.attrs["p"], self.attrs["axis"], self.attrs["keep_dims"])


class CumulativeLogsumexp(Primitive):
    """log(cumsum(exp(x))) along a Tensor ``axis``; ``exclusive`` leaves each element out
    of its own sum, ``reverse`` runs from the end."""

    def __init__(self, exclusive: bool = False, reverse: bool = False):
        super().__init__(exclusive=bool(exclusive), reverse=bool(reverse))

    def __call__(self, x: Any, axis: Any) -> Any:
        if not isinstance(axis, Tensor):
            _fail("CumulativeLogsumexp", f"the type of input argument[axis] must be Tensor but "
                                         f"got {type(axis).__name__}.", GraphTypeError)
        x = _as_tensor(x, "CumulativeLogsumexp")
        ax = _axis(x, axis, "CumulativeLogsumexp")
        flip = (lambda t: A.flip(t, (ax,))) if self.attrs["reverse"] else (lambda t: t)
        out = logcumsumexp(flip(x), ax)
        if self.attrs["exclusive"]:
            start = F.fill(x.dtype, tuple(1 if d == ax else n for d, n in enumerate(x.shape)),
                           -np.inf)
            out = F.concat((start, A._narrow(out, ax, 0, x.shape[ax] - 1)), ax)
        return flip(out)


class ScalarToTensor(Primitive):
    def __call__(self, x: Any, dtype: Any = dtypes.float32) -> Any:
        return scalar_to_tensor(x, dtype)


class TupleToArray(Primitive):
    def __call__(self, *args: Any) -> Any:
        return A.tuple_to_array(args[0] if len(args) == 1 else args)
