"""MindSpore's array ops: sorting, running products and extremes, gathers and scatters,
triangles, flips, rolls, chunks, statistics and norms, creation, and the small
contractions (``outer``, ``inner``, ``dot``, ``trace``).

Most are compositions of table ops with concrete attributes: a triangle is a Select
against a constant mask, a flip a strided slice with negative steps, ``topk`` a sort
and a slice, ``index_add`` a scatter-add of the index broadcast along its axis. The
creation ops (``arange``, ``linspace``, ``eye``) build constants. Shapes are static in
a graph, so arguments that decide a shape (``k``, ``repeats``, ``chunks``) must be
Python values there.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ir.primitives.shape import canonical_slice
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor, _checking, _reduce_axes
from msc.ops.function.arguments import _axis_of


def _narrow(x: Tensor, axis: int, start: int, stop: int, step: int = 1) -> Any:
    """``x[..., start:stop:step, ...]`` along non-negative ``axis``."""
    index = [canonical_slice(builtins.slice(None), d) for d in x.shape]
    index[axis] = canonical_slice(builtins.slice(start, stop, step), x.shape[axis])
    return apply(Op.StridedSlice, x, index=tuple(index))


def _count(value: Any, what: str, op: str) -> int:
    """A Python int argument (an eager 0-d tensor too) that decides a shape."""
    with _checking(op):
        if isinstance(value, Tensor):
            if value.ndim != 0 or not value.dtype.is_int:
                raise GraphTypeError(f"{what} must be an int, but got {value.type}")
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise GraphTypeError(f"{what} must be an int, but got {value!r}")
        return int(value)


# --- sorting and running extremes ---------------------------------------------------------


def sort(input_x: Any, axis: int = -1, descending: bool = False) -> tuple[Any, Any]:
    """(values, int32 indices) along ``axis``; equal elements keep their order."""
    return apply(Op.Sort, input_x, axis=axis, descending=descending)


def argsort(input: Any, axis: int = -1, descending: bool = False) -> Any:
    return sort(input, axis, descending)[1]


def msort(input: Any) -> Any:
    """Sorted along axis 0."""
    return sort(input, 0)[0]


def topk(input: Any, k: Any, dim: int | None = None, largest: bool = True,
         sorted: bool = True) -> tuple[Any, Any]:
    """The ``k`` largest (smallest) values along ``dim`` (default: the last) and their
    int32 indices, sorted. NOTE: of equal values the first ones win, in index order;
    MindSpore's kernel orders ties as its partial sort finds them (tests/oracle)."""
    x = _as_tensor(input, "TopK")
    axis = _axis_of(x, -1 if dim is None else dim, "TopK")
    k = _count(k, "k", "TopK")
    if not 0 < k <= x.shape[axis]:
        with _checking("TopK"):
            raise GraphValueError(f"the k must be in (0,{x.shape[axis]}], but got {k}")
    values, indices = sort(x, axis, descending=largest)
    return _narrow(values, axis, 0, k), _narrow(indices, axis, 0, k)


def cumprod(input: Any, dim: int, dtype: dtypes.DType | None = None) -> Any:
    """Running products along ``dim``; bool and integer inputs give int64 (MindSpore's
    functional form widens them), ``dtype`` casts the input first."""
    x = _as_tensor(input, Op.CumProd)
    if dtype is not None:
        x = F.cast(x, dtype)
    elif not x.dtype.is_float:
        x = F.cast(x, dtypes.int64)
    return apply(Op.CumProd, x, axis=dim)


def cummax(input: Any, axis: int) -> tuple[Any, Any]:
    """(running maxima, int64 index of each); a tie moves to the later index."""
    return apply(Op.Cummax, input, axis=axis)


def cummin(input: Any, axis: int) -> tuple[Any, Any]:
    """(running minima, int32 index of each), as MindSpore gives them."""
    return apply(Op.Cummin, input, axis=axis)


# --- gathers and scatters -----------------------------------------------------------------


def _index(x: Any) -> Any:
    return x if isinstance(x, Tensor) else Tensor(x)


def gather_d(x: Any, dim: int, index: Any) -> Any:
    return apply(Op.GatherD, x, _index(index), dim=dim)


def gather_elements(input: Any, dim: int, index: Any) -> Any:
    return gather_d(input, dim, index)


def gather_nd(input_x: Any, indices: Any) -> Any:
    return apply(Op.GatherNd, input_x, _index(indices))


def tensor_scatter_update(input_x: Any, indices: Any, updates: Any) -> Any:
    return apply(Op.TensorScatterUpdate, input_x, _index(indices), updates)


def tensor_scatter_add(input_x: Any, indices: Any, updates: Any) -> Any:
    return apply(Op.TensorScatterAdd, input_x, _index(indices), updates)


def scatter_nd(indices: Any, updates: Any, shape: Any) -> Any:
    """Updates summed into zeros of ``shape`` at their index tuples."""
    u = _as_tensor(updates, "ScatterNd")
    zeros = F.zeros(tuple(shape), u.dtype)
    return apply(Op.TensorScatterAdd, zeros, _index(indices), u)


def tensor_scatter_elements(input_x: Any, indices: Any, updates: Any, axis: int = 0,
                            reduction: str = "none") -> Any:
    return apply(Op.TensorScatterElements, input_x, _index(indices), updates, axis=axis,
                 reduction=reduction)


def scatter(input: Any, axis: int, index: Any, src: Any) -> Any:
    """``input`` with ``src[..., j, ...]`` written at ``index[..., j, ...]`` along ``axis``."""
    return tensor_scatter_elements(input, index, src, axis)


def index_add(x: Any, indices: Any, y: Any, axis: int, use_lock: bool = True,
              check_index_bound: bool = True) -> Any:
    """``x`` with slice j of ``y`` along ``axis`` added at slice ``indices[j]``: a
    scatter-add of the 1-d indices broadcast to y's shape."""
    x, y, idx = _as_tensor(x, "IndexAdd"), _as_tensor(y, "IndexAdd"), _index(indices)
    a = _axis_of(x, axis, "IndexAdd")
    if idx.ndim != 1 or y.shape != x.shape[:a] + idx.shape + x.shape[a + 1:]:
        with _checking("IndexAdd"):
            raise ShapeError(f"indices must be 1-d and y of x's shape {x.shape} with "
                             f"len(indices) along axis {a}, but got {idx.shape} and {y.shape}")
    along = F.reshape(idx, tuple(-1 if d == a else 1 for d in range(x.ndim)))
    return apply(Op.TensorScatterElements, x, F.broadcast_to(along, y.shape), y, axis=a,
                 reduction="add")


def index_select(input: Any, axis: int, index: Any) -> Any:
    idx = _index(index)
    if idx.ndim != 1:
        with _checking("index_select"):
            raise ShapeError(f"index must be 1-d, but got shape {idx.shape}")
    return apply(Op.Gather, input, idx, axis=axis)


def masked_fill(input_x: Any, mask: Any, value: Any) -> Any:
    """``value`` (a number or a 0-d tensor, cast to the input's dtype) where ``mask``."""
    x = _as_tensor(input_x, "MaskedFill")
    return apply(Op.Select, mask, F.cast(_index(value), x.dtype), x)


# --- triangles, flips, rolls and pieces ----------------------------------------------------


def _triangle(input: Any, diagonal: int, lower: bool, op: str) -> Any:
    x = _as_tensor(input, op)
    if x.ndim < 2:
        with _checking(op):
            raise ShapeError(f"the input must have rank 2 or more, but got shape {x.shape}")
    ones = np.ones(x.shape[-2:], bool)
    keep = np.tril(ones, diagonal) if lower else np.triu(ones, diagonal)
    return apply(Op.Select, Tensor(keep), x, F.zeros_like(x))


def tril(input: Any, diagonal: int = 0) -> Any:
    """The lower triangle (on and below ``diagonal``) of the last two dims; zeros above."""
    return _triangle(input, diagonal, True, "Tril")


def triu(input: Any, diagonal: int = 0) -> Any:
    return _triangle(input, diagonal, False, "Triu")


def flip(input: Any, dims: Any) -> Any:
    """Reverse the order along each of ``dims`` (a tuple or list): one strided slice."""
    x = _as_tensor(input, "ReverseV2")
    if not isinstance(dims, (tuple, list)):
        with _checking("ReverseV2"):
            raise GraphTypeError(f"dims must be a tuple or list of ints, but got {dims!r}")
    axes = {_axis_of(x, d, "ReverseV2") for d in dims}
    index = tuple(canonical_slice(builtins.slice(None, None, -1 if d in axes else 1), n)
                  for d, n in enumerate(x.shape))
    return apply(Op.StridedSlice, x, index=index)


def fliplr(input: Any) -> Any:
    return flip(input, (1,))


def flipud(input: Any) -> Any:
    return flip(input, (0,))


def roll(input: Any, shifts: Any, dims: Any = None) -> Any:
    """Elements shifted along ``dims`` (wrapping around); with no dims, along the
    flattened tensor. Two slices joined in their new order per dim."""
    x = _as_tensor(input, "Roll")
    if dims is None:
        return F.reshape(roll(F.reshape(x, (-1,)), shifts, 0), x.shape)
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shifts) != len(dims):
        with _checking("Roll"):
            raise GraphValueError(f"shifts {shifts} and dims {dims} must have one length")
    for shift, dim in zip(shifts, dims):
        a = _axis_of(x, dim, "Roll")
        n = x.shape[a]
        cut = n - _count(shift, "shifts", "Roll") % n if n else 0
        if 0 < cut < n:
            x = F.concat((_narrow(x, a, cut, n), _narrow(x, a, 0, cut)), a)
    return x


def chunk(input: Any, chunks: int, axis: int = 0) -> tuple[Any, ...]:
    """Pieces of ceil(size / chunks) along ``axis``, the last one shorter (so there may
    be fewer than ``chunks``)."""
    x = _as_tensor(input, "chunk")
    a = _axis_of(x, axis, "chunk")
    chunks = _count(chunks, "chunks", "chunk")
    if chunks < 1:
        with _checking("chunk"):
            raise GraphValueError(f"chunks must be positive, but got {chunks}")
    n = x.shape[a]
    step = max(-(-n // chunks), 1)
    return tuple(_narrow(x, a, s, min(s + step, n)) for s in range(0, n, step))


def unbind(input: Any, dim: int = 0) -> tuple[Any, ...]:
    """Each slice along ``dim``, without that dim."""
    x = _as_tensor(input, "Unstack")
    a = _axis_of(x, dim, "Unstack")
    full = [canonical_slice(builtins.slice(None), d) for d in x.shape]
    return tuple(apply(Op.StridedSlice, x, index=tuple(full[:a] + [i] + full[a + 1:]))
                 for i in range(x.shape[a]))


def unstack(input_x: Any, axis: int = 0) -> tuple[Any, ...]:
    return unbind(input_x, axis)


def narrow(input: Any, axis: int, start: int, length: int) -> Any:
    x = _as_tensor(input, "narrow")
    a = _axis_of(x, axis, "narrow")
    start, length = _count(start, "start", "narrow"), _count(length, "length", "narrow")
    if start < 0:
        start += x.shape[a]
    if not (0 <= start <= x.shape[a] and 0 <= length <= x.shape[a] - start):
        with _checking("narrow"):
            raise GraphValueError(f"start {start} and length {length} do not fit axis {a} "
                                  f"of size {x.shape[a]}")
    return _narrow(x, a, start, start + length)


def repeat_interleave(input: Any, repeats: Any, axis: int | None = None) -> Any:
    """Each element repeated ``repeats`` times along ``axis`` (None: of the flattened
    tensor): a Gather of the repeated positions. ``repeats`` is an int or a 1-d sequence
    of known values, one per position."""
    x = _as_tensor(input, "repeat_interleave")
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    a = _axis_of(x, axis, "repeat_interleave")
    counts = np.asarray(repeats.asnumpy() if isinstance(repeats, Tensor) else repeats)
    if counts.dtype.kind not in "iu" or counts.ndim > 1 or (counts < 0).any() or \
            counts.ndim == 1 and counts.size not in (1, x.shape[a]):
        with _checking("repeat_interleave"):
            raise GraphValueError(f"repeats must be a non-negative int or one per element "
                                  f"of axis {a} (size {x.shape[a]}), but got {repeats!r}")
    positions = np.repeat(np.arange(x.shape[a], dtype=np.int64), counts.reshape(-1)
                          if counts.size != 1 else int(counts.reshape(-1)[0]))
    return apply(Op.Gather, x, Tensor(positions), axis=a)


def repeat_elements(x: Any, rep: int, axis: int = 0) -> Any:
    return repeat_interleave(x, _count(rep, "rep", "repeat_elements"), axis)


# --- statistics and norms -----------------------------------------------------------------


def _float_input(input: Any, op: str) -> Tensor:
    x = _as_tensor(input, op)
    if not x.dtype.is_float:
        with _checking(op):
            raise GraphTypeError(f"the input must be a float tensor, but got {x.dtype}")
    return x


def var_mean(input: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> tuple[Any, Any]:
    """(variance with ``ddof`` degrees of freedom removed, mean) over ``axis``."""
    x = _float_input(input, "var_mean")
    axes = _reduce_axes(x, axis, "var_mean") or tuple(range(x.ndim))
    count = math.prod(x.shape[a] for a in axes)
    mean = apply(Op.ReduceMean, x, axis=axes, keep_dims=True)
    squares = apply(Op.ReduceSum, F.square(x - mean), axis=axes, keep_dims=keepdims)
    variance = squares / float(count - _count(ddof, "ddof", "var_mean"))
    return variance, (mean if keepdims else apply(Op.Squeeze, mean, axis=axes))


def var(input: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
    return var_mean(input, axis, ddof, keepdims)[0]


def std_mean(input: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> tuple[Any, Any]:
    variance, mean = var_mean(input, axis, ddof, keepdims)
    return F.sqrt(variance), mean


def std(input: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
    return std_mean(input, axis, ddof, keepdims)[0]


def norm(A: Any, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         dtype: dtypes.DType | None = None) -> Any:
    """Vector p-norms (over ``dim``, or all of a tensor that is not 2-d), the Frobenius
    norm, and the matrix 1- and inf-norms. NOTE: the spectral and nuclear matrix norms
    (ord 2, -2, 'nuc') are not supported."""
    x = _float_input(A if dtype is None else F.cast(A, dtype), "norm")
    axes = _reduce_axes(x, dim, "norm") or tuple(range(x.ndim))
    matrix = len(axes) == 2 and (dim is not None or x.ndim == 2)
    if ord is None or ord == "fro" or (not matrix and ord == 2):
        if ord == "fro" and not matrix:
            with _checking("norm"):
                raise GraphValueError("the Frobenius norm needs two dims")
        return F.sqrt(apply(Op.ReduceSum, F.square(x), axis=axes, keep_dims=keepdim))
    size = F.abs(x)
    if matrix and ord in (1, -1, math.inf, -math.inf):
        rows, cols = axes
        inner, outer = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = apply(Op.ReduceSum, size, axis=(inner,), keep_dims=True)
        pick = Op.ReduceMax if ord > 0 else Op.ReduceMin
        out = apply(pick, sums, axis=(outer,), keep_dims=True)
        return out if keepdim else apply(Op.Squeeze, out, axis=axes)
    if matrix or isinstance(ord, str):
        with _checking("norm"):
            raise GraphValueError(f"ord {ord!r} is not supported for this norm")
    if ord in (math.inf, -math.inf):
        # NOTE: the value is taken at the first extreme, so the gradient goes there alone,
        # as MindSpore 2.10's norm sends it.
        others = tuple(a for a in range(x.ndim) if a not in axes)
        rows = F.reshape(F.transpose(size, others + tuple(axes)),
                         tuple(x.shape[a] for a in others) + (-1,))
        pick = Op.Argmax if ord > 0 else Op.Argmin
        first = apply(pick, rows, axis=rows.ndim - 1, keep_dims=True)
        out = apply(Op.GatherD, rows, first, dim=rows.ndim - 1)
        kept = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
        return F.reshape(out, kept if keepdim else tuple(x.shape[a] for a in others))
    if ord == 0:
        return F.cast(apply(Op.ReduceSum, F.cast(x != 0, x.dtype), axis=axes,
                            keep_dims=keepdim), x.dtype)
    total = apply(Op.ReduceSum, F.pow(size, float(ord)), axis=axes, keep_dims=keepdim)
    return F.pow(total, 1.0 / float(ord))


# --- creation: constants ------------------------------------------------------------------


def _number(value: Any, what: str, op: str) -> Any:
    with _checking(op):
        if isinstance(value, Tensor):
            if value.ndim != 0:
                raise GraphTypeError(f"{what} must be a number, but got {value.type}")
            return value.item()
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer,
                                                             np.floating)):
            raise GraphTypeError(f"{what} must be a number, but got {value!r}")
        return value


def arange(start: Any = 0, end: Any = None, step: Any = 1, *,
           dtype: dtypes.DType | None = None) -> Any:
    """``start, start + step, ...`` below ``end``: int64 for ints, float32 otherwise."""
    if end is None:
        start, end = 0, start
    values = [_number(v, n, "arange") for v, n in ((start, "start"), (end, "end"),
                                                    (step, "step"))]
    if values[2] == 0:
        with _checking("arange"):
            raise GraphValueError("step must not be 0")
    ints = builtins.all(isinstance(v, (int, np.integer)) for v in values)
    out = np.arange(*values, dtype=np.int64 if ints else np.float64)
    return Tensor(out, dtype or (dtypes.int64 if ints else dtypes.float32))


def linspace(start: Any, end: Any, steps: Any) -> Any:
    """``steps`` evenly spaced float32 values from ``start`` to ``end``, both included."""
    count = _count(steps, "steps", "LinSpace")
    if count < 1:
        with _checking("LinSpace"):
            raise GraphValueError(f"steps must be positive, but got {count}")
    return Tensor(np.linspace(_number(start, "start", "LinSpace"),
                              _number(end, "end", "LinSpace"), count), dtypes.float32)


def eye(n: Any, m: Any = None, dtype: dtypes.DType | None = None) -> Any:
    rows = _count(n, "n", "Eye")
    cols = rows if m is None else _count(m, "m", "Eye")
    return Tensor(np.eye(rows, cols), dtype or dtypes.float32)


def meshgrid(*inputs: Any, indexing: str = "xy") -> tuple[Any, ...]:
    """Each 1-d input broadcast along the others' dims ('xy': the first two swapped)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    xs = [_as_tensor(x, "Meshgrid") for x in inputs]
    with _checking("Meshgrid"):
        if indexing not in ("xy", "ij"):
            raise GraphValueError(f"indexing must be 'xy' or 'ij', but got {indexing!r}")
        if not xs or builtins.any(x.ndim != 1 for x in xs):
            raise ShapeError("every input must be a 1-d tensor")
    shape = [x.shape[0] for x in xs]
    where = list(range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        shape[0], shape[1] = shape[1], shape[0]
        where[0], where[1] = 1, 0
    return tuple(F.broadcast_to(F.reshape(x, tuple(-1 if d == w else 1
                                                   for d in range(len(xs)))), tuple(shape))
                 for x, w in zip(xs, where))


def make_range(*args: Any) -> tuple[int, ...]:
    """``F.make_range``: ``tuple(range(*args))``, a Python value."""
    return tuple(range(*(_count(a, "each argument", "make_range") for a in args)))


def tuple_to_array(input_x: Any) -> Any:
    if not isinstance(input_x, (tuple, list)):
        with _checking("tuple_to_array"):
            raise GraphTypeError(f"input_x must be a tuple, but got {type(input_x).__name__}")
    return Tensor(list(input_x))


# --- contractions and axis moves ----------------------------------------------------------


def outer(input: Any, vec2: Any) -> Any:
    """``input[i] * vec2[j]`` for 1-d inputs."""
    a, b = _as_tensor(input, "outer"), _as_tensor(vec2, "outer")
    if a.ndim != 1 or b.ndim != 1:
        with _checking("outer"):
            raise ShapeError(f"both inputs must be 1-d, but got {a.shape} and {b.shape}")
    return F.reshape(a, (-1, 1)) * F.reshape(b, (1, -1))


def inner(input: Any, other: Any) -> Any:
    """Sums over the last dims: shape ``input.shape[:-1] + other.shape[:-1]``."""
    a, b = _as_tensor(input, "inner"), _as_tensor(other, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.shape[-1] != b.shape[-1]:
        with _checking("inner"):
            raise ShapeError(f"the last dims of {a.shape} and {b.shape} must match")
    flat = F.matmul(F.reshape(a, (-1, a.shape[-1])), F.transpose(F.reshape(b, (-1, b.shape[-1])),
                                                                 (1, 0)))
    return F.reshape(flat, a.shape[:-1] + b.shape[:-1])


def dot(input: Any, other: Any) -> Any:
    """numpy's dot: the last dim of ``input`` against the second-to-last of ``other``."""
    a, b = _as_tensor(input, "dot"), _as_tensor(other, "dot")
    if a.ndim == 0 or b.ndim == 0:
        with _checking("dot"):
            raise ShapeError(f"dot needs inputs of rank 1 or more, but got {a.shape} and "
                             f"{b.shape}")
    k = a.shape[-1]
    if (b.shape[-2] if b.ndim > 1 else b.shape[0]) != k:
        with _checking("dot"):
            raise ShapeError(f"shapes {a.shape} and {b.shape} do not align")
    right = F.reshape(moveaxis(b, -2, 0), (k, -1)) if b.ndim > 1 else F.reshape(b, (k, 1))
    flat = F.matmul(F.reshape(a, (-1, k)), right)
    rest = b.shape[:-2] + b.shape[-1:] if b.ndim > 1 else ()
    return F.reshape(flat, a.shape[:-1] + rest)


def diag(input: Any) -> Any:
    """A tensor of shape ``input.shape * 2`` with the input on its diagonal."""
    x = _as_tensor(input, "diag")
    n = x.size
    column = F.broadcast_to(F.reshape(x, (n, 1)), (n, n))
    return F.reshape(apply(Op.Select, Tensor(np.eye(n, dtype=bool)), column,
                           F.zeros_like(column)), x.shape + x.shape)


def trace(input: Any) -> Any:
    """The sum of a matrix's diagonal, in its dtype."""
    x = _as_tensor(input, "trace")
    if x.ndim != 2:
        with _checking("trace"):
            raise ShapeError(f"the input must be a matrix, but got shape {x.shape}")
    on = apply(Op.Select, Tensor(np.eye(*x.shape, dtype=bool)), x, F.zeros_like(x))
    return F.cast(apply(Op.ReduceSum, on, axis=(), keep_dims=False), x.dtype)


def swapaxes(input: Any, axis0: int, axis1: int) -> Any:
    x = _as_tensor(input, "swapaxes")
    perm = list(range(x.ndim))
    a, b = _axis_of(x, axis0, "swapaxes"), _axis_of(x, axis1, "swapaxes")
    perm[a], perm[b] = perm[b], perm[a]
    return F.transpose(x, tuple(perm))


def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    """Axes ``source`` moved to positions ``destination`` (ints or tuples), the others
    keeping their order."""
    x = _as_tensor(x, "moveaxis")
    src = source if isinstance(source, (tuple, list)) else (source,)
    dst = destination if isinstance(destination, (tuple, list)) else (destination,)
    src = [_axis_of(x, s, "moveaxis") for s in src]
    dst = [_axis_of(x, d, "moveaxis") for d in dst]
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        with _checking("moveaxis"):
            raise GraphValueError(f"source {source} and destination {destination} must be "
                                  "distinct axes, as many of each")
    rest = iter(d for d in range(x.ndim) if d not in src)
    placed = dict(zip(dst, src))
    return F.transpose(x, tuple(placed[p] if p in placed else next(rest)
                                for p in range(x.ndim)))


movedim = moveaxis


def t(input: Any) -> Any:
    """A matrix transposed; a vector as it is."""
    x = _as_tensor(input, "t")
    if x.ndim > 2:
        with _checking("t"):
            raise ShapeError(f"the input must have rank 2 or less, but got shape {x.shape}")
    return F.transpose(x, (1, 0)) if x.ndim == 2 else x


def ravel(input: Any) -> Any:
    return F.reshape(input, (-1,))


def numel(input: Any) -> int:
    return _as_tensor(input, "numel").size


def size(input_x: Any) -> int:
    return _as_tensor(input_x, "Size").size


def isclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Any:
    """``|input - other| <= atol + rtol * |other|`` where other is finite, equal values
    (infinities too), and NaN with NaN when ``equal_nan``."""
    a, b = _as_tensor(input, "isclose"), _index(other)
    near = F.abs(a - b) <= F.abs(b) * rtol + atol
    out = (a == b) | (near & (F.abs(b) < math.inf))
    return out | ((a != a) & (b != b)) if equal_nan else out


def allclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> Any:
    return F.all(isclose(input, other, rtol, atol, equal_nan))


def identity(x: Any) -> Any:
    """A copy of a tensor; any other value (a tuple of gradients, a number, None) is
    returned unchanged, as MindSpore's ``identity`` passes it through."""
    if not isinstance(x, (Tensor, np.ndarray, np.generic)):
        return x
    x = _as_tensor(x, "identity")
    return apply(Op.Reshape, x, shape=x.shape)


def tensor_pow(input: Any, exponent: Any) -> Any:
    return apply(Op.Pow, input, exponent)


def expand_as(input: Any, other: Any) -> Any:
    return F.broadcast_to(input, _as_tensor(other, "expand_as").shape)


__all__ = [
    "sort", "argsort", "msort", "topk", "cumprod", "cummax", "cummin",
    "gather_d", "gather_elements", "gather_nd", "tensor_scatter_update", "tensor_scatter_add",
    "scatter_nd", "tensor_scatter_elements", "scatter", "index_add", "index_select",
    "masked_fill", "tril", "triu", "flip", "fliplr", "flipud", "roll", "chunk", "unbind",
    "unstack", "narrow", "repeat_interleave", "repeat_elements", "var_mean", "var",
    "std_mean", "std", "norm", "arange", "linspace", "eye", "meshgrid", "make_range",
    "tuple_to_array", "outer", "inner", "dot", "diag", "trace", "swapaxes", "moveaxis",
    "movedim", "t", "ravel", "numel", "size", "isclose", "identity", "tensor_pow",
    "expand_as",
]
