"""Shape and data-movement primitives: reshape, transpose, squeeze, concat, split,
gather, strided slices, broadcast, tile.

Every attribute is concrete (no -1 left to resolve, no negative axes in a slice), so
two nodes that do the same thing compare equal. ``cost`` is 0 for ops that only
relabel the data (a reshape is a view) and 1 for ops that copy each element once.

StridedSlice's ``index`` attr is a normalised basic index with one entry per output
position: an ``int`` in [0, dim) drops that dim, ``None`` inserts a new axis of size 1,
and a ``(start, stop, step)`` tuple is what ``canonical_slice`` makes of a Python slice.
Its ints and slices together cover every input dim, in order.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.errors import GraphIndexError, GraphTypeError, GraphValueError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives.base import (
    Attr,
    Primitive,
    norm_axis,
    operand_dtype,
    register,
    want_int,
    want_shape,
    want_tensor,
)
from msc.ir.primitives.rules import (
    batch_reshape_like,
    batch_size,
    batched_front,
    cotangent,
    example_ndim,
    is_float_tensor,
    move_to_front,
    vjp_reshape,
    vjp_transpose,
)
from msc.ir.primitives.shape_lowering import (
    SliceEntry,
    _array,
    _emit_broadcast_to,
    _emit_concat,
    _emit_gather,
    _emit_reshape,
    _emit_split,
    _emit_stack,
    _emit_strided_slice,
    _emit_tile,
    _emit_transpose,
    _joined,
    _loops,
    _loops_gather,
    _loops_joined,
    _loops_tile,
)
from msc.ir.primitives.scatter import scatter_add
from msc.ir.types import TensorType, TupleType, Type, tensor_of, type_of_value


def _copy(a: Any) -> np.ndarray:
    """Data-movement results own their memory: eager tensors never alias each other."""
    return np.array(a, copy=True)


def _axis(axis: Any, ndim: int, what: str = "axis") -> int:
    return norm_axis(want_int(axis, what), ndim)


# --- reshape family --------------------------------------------------------------------


def _reshape_infer(x: Type, *, shape: tuple[int, ...]) -> Type:
    t = want_tensor(x)
    if isinstance(shape, tuple) and any(isinstance(d, int) and d < 0 for d in shape):
        raise GraphValueError(f"the shape attribute {shape} must be concrete (ops.reshape "
                              "resolves -1 before building Reshape)")
    dims = want_shape(shape)
    if math.prod(dims) != t.size:
        raise ShapeError(f"cannot reshape a tensor of shape {t.shape} ({t.size} elements) "
                         f"into shape {dims} ({math.prod(dims)} elements)")
    return TensorType(t.dtype, dims)


def _reshape_impl(x: Any, *, shape: tuple[int, ...]) -> Any:
    return _copy(np.reshape(x, shape))


def _transpose_infer(x: Type, *, perm: tuple[int, ...]) -> Type:
    t = want_tensor(x)
    if not isinstance(perm, tuple) or len(perm) != t.ndim:
        raise ShapeError(f"perm must be a tuple of {t.ndim} axes for shape {t.shape}, "
                         f"but got {perm!r}")
    axes = tuple(_axis(p, t.ndim, "every entry of perm") for p in perm)
    if sorted(axes) != list(range(t.ndim)):
        raise ShapeError(f"perm {perm} is not a permutation of the axes of shape {t.shape}")
    return TensorType(t.dtype, tuple(t.shape[a] for a in axes))


def _transpose_impl(x: Any, *, perm: tuple[int, ...]) -> Any:
    return _copy(np.transpose(x, perm))


def _expand_dims_infer(x: Type, *, axis: int) -> Type:
    t = want_tensor(x)
    a = _axis(axis, t.ndim + 1)
    return TensorType(t.dtype, t.shape[:a] + (1,) + t.shape[a:])


def _expand_dims_impl(x: Any, *, axis: int) -> Any:
    return _copy(np.expand_dims(x, axis))


def _squeeze_axes(t: TensorType, axis: Any) -> tuple[int, ...]:
    """() squeezes every size-1 dim; naming a dim whose size is not 1 is an error."""
    if axis == () or axis is None:
        return tuple(i for i, d in enumerate(t.shape) if d == 1)
    axes = axis if isinstance(axis, tuple) else (axis,)
    if t.ndim == 0 and all(isinstance(want_int(a, "axis"), int) for a in axes):
        return ()  # MindSpore keeps a 0-d tensor as it is, whatever axes it names
    out = tuple(sorted({_axis(a, t.ndim) for a in axes}))
    for a in out:
        if t.shape[a] != 1:
            raise ShapeError(f"cannot squeeze axis {a} of shape {t.shape}: its size is "
                             f"{t.shape[a]}, not 1")
    return out


def _squeeze_infer(x: Type, *, axis: Any) -> Type:
    t = want_tensor(x)
    axes = _squeeze_axes(t, axis)
    return TensorType(t.dtype, tuple(d for i, d in enumerate(t.shape) if i not in axes))


def _squeeze_impl(x: Any, *, axis: Any) -> Any:
    arr = np.asarray(x)
    axes = _squeeze_axes(type_of_value(arr), axis)  # type: ignore[arg-type]
    return _copy(np.squeeze(arr, axis=axes))


def _flatten_infer(x: Type) -> Type:
    """(N, ...) -> (N, prod(...)); MindSpore's Flatten keeps the batch dim."""
    t = want_tensor(x)
    if t.ndim < 1:
        raise ShapeError(f"the input must be at least 1-D, but got shape {t.shape}")
    return TensorType(t.dtype, (t.shape[0], math.prod(t.shape[1:])))


def _flatten_impl(x: Any) -> Any:
    arr = np.asarray(x)
    return _copy(arr.reshape(arr.shape[0], math.prod(arr.shape[1:])))




# --- joining and splitting -------------------------------------------------------------


def _tensors(xs: tuple[Type, ...], op: str) -> list[TensorType]:
    if not xs:
        raise GraphTypeError(f"{op} needs at least one tensor")
    return [want_tensor(x, f"input {i}") for i, x in enumerate(xs)]


def _concat_infer(*xs: Type, axis: int) -> Type:
    ts = _tensors(xs, "Concat")
    first = ts[0]
    if first.ndim == 0:
        raise ShapeError("cannot concatenate 0-d tensors (use Stack)")
    a = _axis(axis, first.ndim)
    for i, t in enumerate(ts[1:], 1):
        same = t.ndim == first.ndim and all(
            d == e for j, (d, e) in enumerate(zip(t.shape, first.shape)) if j != a)
        if not same:
            raise ShapeError(f"input {i} has shape {t.shape}, which does not match input 0's "
                             f"shape {first.shape} outside axis {a}")
    dim = sum(t.shape[a] for t in ts)
    return TensorType(operand_dtype(xs), first.shape[:a] + (dim,) + first.shape[a + 1:])


def _common(values: tuple[Any, ...]) -> list[np.ndarray]:
    dt = operand_dtype(tuple(type_of_value(v) for v in values)).np
    return [np.asarray(v, dtype=dt) for v in values]


def _concat_impl(*xs: Any, axis: int) -> Any:
    return np.concatenate(_common(xs), axis=axis)


def _stack_infer(*xs: Type, axis: int) -> Type:
    ts = _tensors(xs, "Stack")
    for i, t in enumerate(ts[1:], 1):
        if t.shape != ts[0].shape:
            raise ShapeError(f"all inputs must have one shape, but input 0 has {ts[0].shape} "
                             f"and input {i} has {t.shape}")
    a = _axis(axis, ts[0].ndim + 1)
    shape = ts[0].shape[:a] + (len(ts),) + ts[0].shape[a:]
    return TensorType(operand_dtype(xs), shape)


def _stack_impl(*xs: Any, axis: int) -> Any:
    return np.stack(_common(xs), axis=axis)


def _split_infer(x: Type, *, axis: int, output_num: int) -> Type:
    t = want_tensor(x)
    if t.ndim == 0:
        raise ShapeError("cannot split a 0-d tensor")
    a = _axis(axis, t.ndim)
    n = want_int(output_num, "output_num")
    if n < 1 or t.shape[a] % n:
        raise ShapeError(f"axis {a} of shape {t.shape} (size {t.shape[a]}) cannot be split "
                         f"into {n} equal parts")
    part = TensorType(t.dtype, t.shape[:a] + (t.shape[a] // n,) + t.shape[a + 1:])
    return TupleType((part,) * n)


def _split_impl(x: Any, *, axis: int, output_num: int) -> Any:
    return tuple(_copy(p) for p in np.split(np.asarray(x), output_num, axis=axis))




# --- gather and strided slices ---------------------------------------------------------


def _gather_infer(params: Type, indices: Type, *, axis: int) -> Type:
    p, i = want_tensor(params, "input_params"), want_tensor(indices, "input_indices")
    if not i.dtype.is_int:
        raise GraphTypeError(f"input_indices must be an integer Tensor, but got {i}")
    if p.ndim == 0:
        raise ShapeError("cannot gather from a 0-d tensor")
    a = _axis(axis, p.ndim)
    return TensorType(p.dtype, p.shape[:a] + i.shape + p.shape[a + 1:])


def _gather_impl(params: Any, indices: Any, *, axis: int) -> Any:
    arr, idx = np.asarray(params), np.asarray(indices)
    dim = arr.shape[axis]
    bad = idx[(idx < -dim) | (idx >= dim)]
    if bad.size:
        raise GraphIndexError(f"index {int(bad.flat[0])} is out of range for axis {axis} "
                              f"with size {dim}")
    return np.take(arr, idx, axis=axis)


def canonical_slice(s: slice, dim: int) -> tuple[int, int | None, int]:
    """A Python slice over a dim of size ``dim`` as concrete (start, stop, step).

    An empty slice is (0, 0, 1); a negative step running past index 0 has stop None.
    """
    start, stop, step = s.indices(dim)
    if len(range(start, stop, step)) == 0:
        return (0, 0, 1)
    return (start, None if stop < 0 else stop, step)


def _entry_length(entry: Any, dim: int) -> int:
    """The output length of a slice entry, validating that it is canonical."""
    ok = isinstance(entry, tuple) and len(entry) == 3 and all(
        v is None or isinstance(v, int) and not isinstance(v, bool) for v in entry)
    if ok and entry[0] is not None and entry[2]:
        start, stop, step = entry
        if canonical_slice(slice(start, stop, step), dim) == entry:
            return len(range(start, -1 if stop is None else stop, step))
    raise GraphValueError(f"{entry!r} is not a canonical slice of a dim of size {dim}")


def _strided_slice_infer(x: Type, *, index: tuple[SliceEntry, ...]) -> Type:
    t = want_tensor(x)
    if not isinstance(index, tuple):
        raise GraphTypeError(f"index must be a tuple, but got {index!r}")
    used = [e for e in index if e is not None]
    if len(used) != t.ndim:
        raise ShapeError(f"the index has {len(used)} entries for shape {t.shape}; a "
                         "canonical index covers every dim")
    dims = iter(t.shape)
    out: list[int] = []
    for entry in index:
        if entry is None:
            out.append(1)
            continue
        dim = next(dims)
        if isinstance(entry, tuple):
            out.append(_entry_length(entry, dim))
        elif not isinstance(entry, int) or isinstance(entry, bool):
            raise GraphValueError(f"{entry!r} is not a canonical index entry (an int, None "
                                  "or a (start, stop, step) tuple)")
        elif not 0 <= entry < dim:
            raise GraphIndexError(f"index {entry} is out of range for a dim of size {dim}")
    return TensorType(t.dtype, tuple(out))


def _strided_slice_impl(x: Any, *, index: tuple[SliceEntry, ...]) -> Any:
    key = tuple(slice(*e) if isinstance(e, tuple) else e for e in index)
    return _copy(np.asarray(x)[key])




# --- broadcast and tile ----------------------------------------------------------------


def broadcast_target(src: tuple[int, ...], shape: Any) -> tuple[int, ...]:
    """The concrete shape BroadcastTo gives ``src`` for ``shape`` (-1 keeps a dim)."""
    if not isinstance(shape, tuple) or len(shape) < len(src):
        raise ShapeError(f"cannot broadcast shape {src} to {shape!r}: the target needs at "
                         f"least {len(src)} dims")
    lead = len(shape) - len(src)
    out = []
    for i, d in enumerate(shape):
        d = want_int(d, "every dim of shape")
        have = src[i - lead] if i >= lead else None
        if d == -1:
            if have is None:
                raise ShapeError(f"-1 in {shape} at new leading dim {i} has no size to keep")
            d = have
        if d < 0 or have not in (None, 1, d):
            raise ShapeError(f"cannot broadcast shape {src} to {shape}")
        out.append(d)
    return tuple(out)


def _broadcast_to_infer(x: Type, *, shape: tuple[int, ...]) -> Type:
    t = want_tensor(x)
    return TensorType(t.dtype, broadcast_target(t.shape, shape))


def _broadcast_to_impl(x: Any, *, shape: tuple[int, ...]) -> Any:
    arr = np.asarray(x)
    return _copy(np.broadcast_to(arr, broadcast_target(arr.shape, shape)))


def _tile_infer(x: Type, *, multiples: tuple[int, ...]) -> Type:
    """numpy's rule: the shorter of shape and multiples is padded with leading 1s."""
    t = want_tensor(x)
    reps = want_shape(multiples, "multiples")
    n = max(len(reps), t.ndim)
    reps = (1,) * (n - len(reps)) + reps
    src = (1,) * (n - t.ndim) + t.shape
    return TensorType(t.dtype, tuple(d * r for d, r in zip(src, reps)))


def _tile_impl(x: Any, *, multiples: tuple[int, ...]) -> Any:
    return np.tile(np.asarray(x), multiples)


# --- gradients: each op's cotangent moves g back to where the data came from --------------


def _full_slices(shape: tuple[int, ...]) -> list[SliceEntry]:
    return [canonical_slice(slice(None), d) for d in shape]


def _vjp_concat(b: Any, g: Any, *xs: Any, out: Any, axis: int) -> tuple[Any, ...]:
    """Each input's part of g: a slice along the axis, in the input's dtype."""
    shape = tensor_of(g.type).shape
    a = axis % len(shape)
    cts, start = [], 0
    for x in xs:
        size = tensor_of(x.type).shape[a]
        if is_float_tensor(x):
            index = _full_slices(shape)
            index[a] = canonical_slice(slice(start, start + size), shape[a])
            cts.append(cotangent(b, b.strided_slice(g, index=tuple(index)), x))
        else:
            cts.append(None)
        start += size
    return tuple(cts)


def _vjp_stack(b: Any, g: Any, *xs: Any, out: Any, axis: int) -> tuple[Any, ...]:
    """Input k's cotangent is g at k along the stacked axis."""
    shape = tensor_of(g.type).shape
    a = axis % len(shape)
    cts = []
    for k, x in enumerate(xs):
        index = _full_slices(shape)
        index[a] = k
        cts.append(cotangent(b, b.strided_slice(g, index=tuple(index)), x)
                   if is_float_tensor(x) else None)
    return tuple(cts)


def _vjp_split(b: Any, g: Any, x: Any, *, out: Any, axis: int, output_num: int) -> tuple[Any]:
    """``g`` is the tuple of the parts' cotangents: joined again along the axis."""
    if not is_float_tensor(x):
        return (None,)
    return (b.concat(*(b.getitem(g, k) for k in range(output_num)), axis=axis),)


def _vjp_gather(b: Any, g: Any, params: Any, indices: Any, *, out: Any,
                axis: int) -> tuple[Any, ...]:
    """The scatter-add of g into params' shape, repeated indices summed in index order:
    one TensorScatterAdd of g's k slices into zeros, the gathered axis moved first where
    axes come before it (an embedding table's rows need no move). A product with a
    one-hot (dim, k) matrix, as this was before, costs dim * k per element of a slice
    (BERT's 8192-word table: 3.2 GFLOP a fine-tuning step)."""
    if not is_float_tensor(params):
        return None, None
    pt, it = tensor_of(params.type), tensor_of(indices.type)
    a = axis % pt.ndim
    dim, k = pt.shape[a], it.size
    before, after = math.prod(pt.shape[:a]), math.prod(pt.shape[a + 1:])
    idx = b.reshape(indices, shape=(k, 1))
    if it.dtype != dtypes.int64:
        idx = b.cast(idx, dtype=dtypes.int64)
    idx = b.select(b.less(idx, 0), b.add(idx, dim), idx)  # negative indices count from the end
    rows = b.reshape(g, shape=(before, k, after))
    if before > 1:
        rows = b.transpose(rows, perm=(1, 0, 2))
    zeros = b.zeros(shape=(dim, before, after), dtype=tensor_of(g.type).dtype)
    scattered = b.emit(scatter_add, zeros, idx, b.reshape(rows, shape=(k, before, after)))
    if before > 1:
        scattered = b.transpose(scattered, perm=(1, 0, 2))
    return cotangent(b, b.reshape(scattered, shape=pt.shape), params), None


def _vjp_strided_slice(b: Any, g: Any, x: Any, *, out: Any,
                       index: tuple[SliceEntry, ...]) -> tuple[Any]:
    """g put back where the slice read it, zeros elsewhere, one dim at a time: a dim read
    with step 1 is padded with zeros on either side; any other step gathers from g with
    one zero appended, each position of the dim picking its element of g or the zero."""
    if not is_float_tensor(x):
        return (None,)
    xt = tensor_of(x.type)
    # ints read one element and drop the dim, and None adds one: as slices of x's dims
    slices = [(e, e + 1, 1) if isinstance(e, int) else e for e in index if e is not None]
    reads = [range(start, -1 if stop is None else stop, step) for start, stop, step in slices]
    shape = [len(r) for r in reads]
    if tuple(shape) != tensor_of(g.type).shape:
        g = b.reshape(g, shape=tuple(shape))
    for d, (read, size) in enumerate(zip(reads, xt.shape)):
        if len(read) == size and read.step == 1:
            continue
        if read.step == 1:
            before, after = read.start, size - read.start - len(read)
            parts = [_zeros_along(b, shape, d, n, xt.dtype) if n else None
                     for n in (before, after)]
            g = b.concat(*(p for p in (parts[0], g, parts[1]) if p is not None), axis=d)
        else:
            pick = np.full(size, len(read), np.int64)
            pick[list(read)] = np.arange(len(read))
            g = b.gather(b.concat(g, _zeros_along(b, shape, d, 1, xt.dtype), axis=d), pick,
                         axis=d)
        shape[d] = size
    return (g,)


def _zeros_along(b: Any, shape: list[int], d: int, n: int, dt: dtypes.DType) -> Any:
    """Zeros of ``shape`` but ``n`` long in dim ``d``."""
    return b.zeros(shape=tuple(shape[:d]) + (n,) + tuple(shape[d + 1:]), dtype=dt)


def _vjp_tile(b: Any, g: Any, x: Any, *, out: Any, multiples: tuple[int, ...]) -> tuple[Any]:
    """Each output dim is (repeat, dim) in row-major order: g reshaped so, summed over
    the repeats."""
    if not is_float_tensor(x):
        return (None,)
    xt = tensor_of(x.type)
    n = max(len(multiples), xt.ndim)
    reps = (1,) * (n - len(multiples)) + tuple(multiples)
    src = (1,) * (n - xt.ndim) + xt.shape
    axes = tuple(2 * i for i, r in enumerate(reps) if r != 1)
    if axes:
        split = tuple(v for r, d in zip(reps, src) for v in (r, d))
        g = b.reduce_sum(b.reshape(g, shape=split), axis=axes, keep_dims=False)
    return (b.reshape(g, shape=xt.shape),)


# --- the table -----------------------------------------------------------------------------

_RESHAPE = _array(_emit_reshape)
_AXIS = (Attr("axis", 0),)


# --- batching ------------------------------------------------------------------------------


def _batch_transpose(b: Any, prim: Any, args: Any, dims: Any, *,
                     perm: tuple[int, ...]) -> tuple[Any, int]:
    return b.transpose(move_to_front(b, args[0], dims[0]),
                       perm=(0,) + tuple(p + 1 for p in perm)), 0


def _batch_joined(stack: bool) -> Any:
    """Concat and Stack: every operand batched along axis 0 (unbatched ones broadcast),
    joined along the example's axis one further right."""
    def rule(b: Any, prim: Any, args: Any, dims: Any, *, axis: int) -> tuple[Any, int]:
        size = batch_size(args, dims)
        items = [batched_front(b, x, d, size) for x, d in zip(args, dims)]
        ndim = example_ndim(items[0], 0) + stack
        return b.emit(prim, *items, axis=norm_axis(axis, ndim) + 1), 0
    return rule


def _batch_split(b: Any, prim: Any, args: Any, dims: Any, *, axis: int,
                 output_num: int) -> tuple[Any, tuple[int, ...]]:
    x, d = args[0], dims[0]
    out = b.emit(prim, move_to_front(b, x, d), axis=_axis(axis, example_ndim(x, d)) + 1,
                 output_num=output_num)
    return out, (0,) * output_num


def _batch_gather(b: Any, prim: Any, args: Any, dims: Any, *, axis: int) -> tuple[Any, int]:
    """Batched params gather along the axis past the batch axis; batched indices put the
    batch axis where the indices sit in the result. Both batched: one gather from every
    example's rows stacked along axis 0, each example's indices offset to its own rows
    (an index out of range still raises: it is sent past the end, not into another row)."""
    (p, i), (dp, di) = args, dims
    a = _axis(axis, example_ndim(p, dp))
    if di is None:
        return b.emit(prim, move_to_front(b, p, dp), i, axis=a + 1), 0
    if dp is None:
        return b.emit(prim, p, move_to_front(b, i, di), axis=a), a
    p, i = move_to_front(b, p, dp), move_to_front(b, i, di)
    pt, it = tensor_of(p.type), tensor_of(i.type)
    n, rows = pt.shape[0], pt.shape[1 + a]
    others = tuple(k for k in range(1, pt.ndim) if k != 1 + a)
    stacked = b.reshape(b.transpose(p, perm=(0, 1 + a) + others),
                        shape=(n * rows,) + tuple(pt.shape[k] for k in others))
    wrapped = b.select(b.less(i, 0), b.add(i, rows), i)
    offset = np.arange(n, dtype=it.dtype.np).reshape((n,) + (1,) * (it.ndim - 1)) * rows
    valid = b.logical_and(b.greater_equal(wrapped, 0), b.less(wrapped, rows))
    flat = b.select(valid, b.add(wrapped, offset), np.asarray(n * rows, it.dtype.np))
    out = b.emit(prim, stacked, flat, axis=0)  # (N, indices..., before..., after...)
    ni, before = it.ndim - 1, a
    perm = (0,) + tuple(range(it.ndim, it.ndim + before)) + tuple(range(1, it.ndim)) + \
        tuple(range(it.ndim + before, tensor_of(out.type).ndim))
    return b.transpose(out, perm=perm) if ni and before else out, 0


def _batch_strided_slice(b: Any, prim: Any, args: Any, dims: Any, *,
                         index: tuple[SliceEntry, ...]) -> tuple[Any, int]:
    x = move_to_front(b, args[0], dims[0])
    whole = canonical_slice(slice(None), tensor_of(x.type).shape[0])
    return b.emit(prim, x, index=(whole,) + index), 0


def _batch_broadcast_to(b: Any, prim: Any, args: Any, dims: Any, *,
                        shape: tuple[int, ...]) -> tuple[Any, int]:
    """Unit dims after the batch axis up to the target's rank, then the target shape."""
    x = move_to_front(b, args[0], dims[0])
    t = tensor_of(x.type)
    target = prim.infer(TensorType(t.dtype, t.shape[1:]), shape=shape).shape
    x = b.reshape(x, shape=t.shape[:1] + (1,) * (len(target) - t.ndim + 1) + t.shape[1:])
    return b.emit(prim, x, shape=t.shape[:1] + target), 0


def _batch_tile(b: Any, prim: Any, args: Any, dims: Any, *,
                multiples: tuple[int, ...]) -> tuple[Any, int]:
    x = move_to_front(b, args[0], dims[0])
    t = tensor_of(x.type)
    rank = max(len(multiples), t.ndim - 1)
    x = b.reshape(x, shape=t.shape[:1] + (1,) * (rank - t.ndim + 1) + t.shape[1:])
    return b.emit(prim, x, multiples=(1,) * (1 + rank - len(multiples)) + multiples), 0


register(Primitive("Reshape", _reshape_infer, _reshape_impl, _RESHAPE,
                   attrs=(Attr("shape", types=(tuple,)),), cost=0, view=True, vjp=vjp_reshape,
                   batch=batch_reshape_like))
register(Primitive("Transpose", _transpose_infer, _transpose_impl,
                   {"numba": _emit_transpose(True), "python": _emit_transpose(False)},
                   attrs=(Attr("perm", types=(tuple,)),), cost=1, view=True,
                   vjp=vjp_transpose, batch=_batch_transpose))
register(Primitive("ExpandDims", _expand_dims_infer, _expand_dims_impl, _RESHAPE,
                   attrs=(Attr("axis"),), cost=0, view=True, vjp=vjp_reshape,
                   batch=batch_reshape_like))
register(Primitive("Squeeze", _squeeze_infer, _squeeze_impl, _RESHAPE,
                   attrs=(Attr("axis", ()),), cost=0, view=True, vjp=vjp_reshape,
                   batch=batch_reshape_like))
register(Primitive("Flatten", _flatten_infer, _flatten_impl, _RESHAPE, cost=0, view=True,
                   vjp=vjp_reshape, batch=batch_reshape_like))
register(Primitive("Concat", _concat_infer, _concat_impl,
                   _joined(_loops_joined(False), _emit_concat), attrs=_AXIS,
                   vjp=_vjp_concat, batch=_batch_joined(stack=False)))
register(Primitive("Stack", _stack_infer, _stack_impl,
                   _joined(_loops_joined(True), _emit_stack), attrs=_AXIS,
                   vjp=_vjp_stack, batch=_batch_joined(stack=True)))
register(Primitive("Split", _split_infer, _split_impl, _array(_emit_split),
                   attrs=_AXIS + (Attr("output_num", 1),), view=True, vjp=_vjp_split,
                   batch=_batch_split))
register(Primitive("Gather", _gather_infer, _gather_impl, _loops(_loops_gather, _emit_gather),
                   attrs=_AXIS, vjp=_vjp_gather, batch=_batch_gather))
register(Primitive("StridedSlice", _strided_slice_infer, _strided_slice_impl,
                   _array(_emit_strided_slice), attrs=(Attr("index", types=(tuple,)),),
                   view=True, vjp=_vjp_strided_slice, batch=_batch_strided_slice))
register(Primitive("BroadcastTo", _broadcast_to_infer, _broadcast_to_impl,
                   _array(_emit_broadcast_to), attrs=(Attr("shape", types=(tuple,)),), view=True,
                   vjp=lambda b, g, x, out, shape: (cotangent(b, g, x),),  # sums the copies
                   batch=_batch_broadcast_to))
register(Primitive("Tile", _tile_infer, _tile_impl, _loops(_loops_tile, _emit_tile),
                   attrs=(Attr("multiples", types=(tuple,)),), vjp=_vjp_tile,
                   batch=_batch_tile))
