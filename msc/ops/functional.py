"""``from msc.ops import functional as F``: MindSpore's functional namespace and the core
functional ops (``ops.add``, ``ops.sum``, ``F.matmul``, ``F.reshape``, ...), thin over
``apply``.

This module loads with ``import msc`` (Tensor's methods call it); the ops of
``ops/function/`` are built on it, and ``F.<name>`` finds the rest of ``msc.ops``'s
functions (``F.assign``, ``F.conv2d``) on first use. The ops whose functional form is one
plain call of a primitive (``add``, ``exp``, ``eq``) are generated at the end of this
module from the table's ``public.functions``; those written here need argument handling.

Each function turns Python-level arguments (axes, shapes with -1, slices, MindSpore's
argument orders) into the concrete attributes of one or a few primitives and dispatches
with ``apply``, so one body runs eagerly on numpy and, while a graph is being built,
emits nodes. Argument names follow MindSpore 2.x, so keyword calls port unchanged.
Names such as ``sum``, ``max`` and ``slice`` shadow builtins here, as in MindSpore: this
module reaches the builtins through ``builtins``. The indexing ops (``getitem``,
``strided_slice``, ``slice``, ``split``) live in ``function/indexing.py`` and are
re-exported here.
"""

from __future__ import annotations

import builtins
import functools
import math
from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply, public_function
from msc.errors import GraphTypeError, GraphValueError, InternalCompilerError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives import Op, Primitive
from msc.ir.primitives.base import norm_axes, operand_dtype, want_int
from msc.ops.function.arguments import (
    _as_tensor,
    _axis_attr,
    _axis_of,
    _checking,
    _dims,
    _reduce_axes,
    _type_of,
)
from msc.ops.function.indexing import getitem, slice, split, strided_slice

# --- elementwise: the plain ones (``add``, ``exp``, ...) are generated at the end -------


def remainder(input: Any, other: Any) -> Any:
    """``ops.floor_mod`` under MindSpore's other name (and argument names)."""
    return apply(Op.FloorMod, input, other)


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Any:
    """True division (ints give float32); ``rounding_mode`` "floor" or "trunc" rounds the
    quotient and keeps the operands' common dtype."""
    if rounding_mode is None:
        return apply(Op.Div, input, other)
    if rounding_mode == "floor":
        return apply(Op.FloorDiv, input, other)
    if rounding_mode != "trunc":
        with _checking(Op.Div):
            raise GraphValueError(f"rounding_mode must be None, 'floor' or 'trunc', but got "
                                  f"{rounding_mode!r}")
    q = apply(Op.Div, input, other)
    out = apply(Op.Select, q < 0, apply(Op.Ceil, q), apply(Op.Floor, q))
    common = operand_dtype((_type_of(input), _type_of(other)))
    return out if common.is_float else cast(out, common)


def gelu(input: Any, approximate: str = "none") -> Any:
    return apply(Op.GeLU, input, approximate=approximate)


def select(cond: Any, x: Any, y: Any) -> Any:
    """``x`` where ``cond`` else ``y``; either (not both) may be a Python number."""
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = Tensor(x)
    return apply(Op.Select, cond, x, y)


def where(condition: Any, input: Any, other: Any) -> Any:
    return select(condition, input, other)


def clip_by_value(x: Any, clip_value_min: Any = None, clip_value_max: Any = None) -> Any:
    """Clamp to [min, max]; either bound may be None. A list/tuple of tensors clips each.
    MindSpore 2.10 composes it as minimum(maximum(x, min), max), so its gradient at a bound
    is half (``clamp`` gives all of it to x there)."""
    if isinstance(x, (list, tuple)):
        return type(x)(clip_by_value(t, clip_value_min, clip_value_max) for t in x)
    x = _as_tensor(x, Op.ClipByValue)
    if clip_value_min is None and clip_value_max is None:
        with _checking(Op.ClipByValue):
            raise GraphValueError("clip_value_min and clip_value_max cannot both be None")
    out = x
    if clip_value_min is not None:
        out = apply(Op.Maximum, out, clip_value_min)
    if clip_value_max is not None:
        out = apply(Op.Minimum, out, clip_value_max)
    return out if out.dtype == x.dtype else cast(out, x.dtype)


def clamp(input: Any, min: Any = None, max: Any = None) -> Any:
    """Clip to [min, max]. An integer tensor with a float bound computes in float32, and
    an unsigned one's negative bound is 0 (MindSpore 2.10's result dtypes)."""
    x = input
    if isinstance(x, Tensor) and not x.dtype.is_float and x.dtype != dtypes.bool_:
        if builtins.any(isinstance(b, float) for b in (min, max)):
            x = cast(x, dtypes.float32)
        elif np.dtype(x.dtype.np).kind == "u":
            min = None if min is None or isinstance(min, Tensor) else builtins.max(min, 0)
            max = None if max is None or isinstance(max, Tensor) else builtins.max(max, 0)
    if isinstance(x, Tensor) and (min is not None and max is not None or x.dtype.is_float and
                                  (min is None) != (max is None)):
        # ClipByValue: all of the gradient to x at a bound, as MindSpore's clamp gives it
        # (clip_by_value's Maximum and Minimum give half there)
        return apply(Op.ClipByValue, x, -math.inf if min is None else min,
                     math.inf if max is None else max)
    return clip_by_value(x, min, max)


clip = clamp


def cast(input: Any, dtype: dtypes.DType) -> Any:
    if not isinstance(input, Tensor):
        input = Tensor(input)
    return apply(Op.Cast, input, dtype=dtype)


# --- reductions ---------------------------------------------------------------------------


def sum(input: Any, dim: Any = None, keepdim: bool = False, *,
        dtype: dtypes.DType | None = None) -> Any:
    """Sum; bool and integer inputs give int64 unless ``dtype`` says otherwise."""
    x = input if dtype is None else cast(input, dtype)
    out = apply(Op.ReduceSum, x, axis=_reduce_axes(x, dim, Op.ReduceSum), keep_dims=keepdim)
    return out if dtype is None else cast(out, dtype)


def mean(x: Any, axis: Any = None, keep_dims: bool = False) -> Any:
    """Mean; an integer input gives its dtype, the mean truncated towards zero (MindSpore
    2.10's ReduceMean on CPU)."""
    out = apply(Op.ReduceMean, x, axis=_reduce_axes(x, axis, Op.ReduceMean),
                keep_dims=keep_dims)
    t = x if isinstance(x, Tensor) else None
    if t is not None and t.dtype.is_int and not out.dtype.is_int:
        out = cast(apply(Op.Trunc, out), t.dtype)
    return out


def prod(input: Any, axis: Any = None, keep_dims: bool = False) -> Any:
    """Product; integers give int64, except over a tuple of axes, which keeps the
    input's dtype (MindSpore 2.10 runs ProdExt for one axis or none, ReduceProd else)."""
    out = apply(Op.ReduceProd, input, axis=_reduce_axes(input, axis, Op.ReduceProd),
                keep_dims=keep_dims)
    if isinstance(axis, (tuple, list)) and isinstance(input, Tensor) and \
            input.dtype.is_int and out.dtype != input.dtype:
        out = cast(out, input.dtype)
    return out


def all(input: Any, axis: Any = (), keep_dims: bool = False) -> Any:  # noqa: A001
    """Whether every element is true (along ``axis``): the minimum of the truth values."""
    return _truth_reduce(Op.ReduceMin, input, axis, keep_dims)


def any(input: Any, axis: Any = (), keep_dims: bool = False) -> Any:  # noqa: A001
    """Whether some element is true (along ``axis``): the maximum of the truth values."""
    return _truth_reduce(Op.ReduceMax, input, axis, keep_dims)


def _truth_reduce(prim: Primitive, x: Any, axis: Any, keep_dims: bool) -> Any:
    x = _as_tensor(x, prim)
    if x.size == 0:  # an empty all() is True, an empty any() False
        return full(_reduced(x, axis, keep_dims), prim is Op.ReduceMin, dtype=dtypes.bool_)
    truth = cast(cast(x, dtypes.bool_), dtypes.int8)
    out = apply(prim, truth, axis=_reduce_axes(truth, axis, prim), keep_dims=keep_dims)
    return cast(out, dtypes.bool_)


def _reduced(x: Any, axis: Any, keep_dims: bool) -> tuple[int, ...]:
    axes = norm_axes(tuple(_axis_attr(axis)) or tuple(builtins.range(x.ndim)), x.ndim)
    return tuple(1 if d in axes else n for d, n in enumerate(x.shape) if keep_dims or
                 d not in axes)


def addn(x: Any) -> Any:
    """The sum of a tuple or list of tensors of one shape (``ops.AddN``)."""
    items = list(x)
    if not items:
        raise GraphValueError("addn needs at least one tensor")
    total = items[0]
    for item in items[1:]:
        total = apply(Op.Add, total, item)
    return total


def bias_add(input_x: Any, bias: Any, data_format: str = "NCHW") -> Any:
    """``input_x + bias`` with the 1-d bias along the channel axis (1 for NCHW/NCDHW,
    the last for NHWC)."""
    x, b = _as_tensor(input_x, "bias_add"), _as_tensor(bias, "bias_add")
    channel = x.ndim - 1 if data_format == "NHWC" else 1
    if b.ndim != 1 or x.ndim < 2 or b.shape[0] != x.shape[channel]:
        raise ShapeError(f"For 'BiasAdd', the bias must be 1-d with {x.shape[channel]} "
                         f"elements (input shape {x.shape}), but got {b.shape}")
    shape = tuple(b.shape[0] if d == channel else 1 for d in builtins.range(x.ndim))
    return apply(Op.Add, x, reshape(b, shape))


def _masked(input: Any, initial: Any, where: Any, op: Primitive | str) -> Any:
    if where is None:
        return input
    if initial is None:
        with _checking(op):
            raise GraphValueError("where needs an initial value for the masked elements")
    return select(where, input, initial)


def _extreme(prim: Primitive, bound: Primitive, input: Any, axis: Any, keepdims: bool,
             initial: Any, where: Any) -> Any:
    out = apply(prim, _masked(input, initial, where, prim),
                axis=_reduce_axes(input, axis, prim), keep_dims=keepdims)
    return out if initial is None else apply(bound, out, initial)


def amax(input: Any, axis: Any = None, keepdims: bool = False, *, initial: Any = None,
         where: Any = None) -> Any:
    return _extreme(Op.ReduceMax, Op.Maximum, input, axis, keepdims, initial, where)


def amin(input: Any, axis: Any = None, keepdims: bool = False, *, initial: Any = None,
         where: Any = None) -> Any:
    return _extreme(Op.ReduceMin, Op.Minimum, input, axis, keepdims, initial, where)


def cumsum(x: Any, axis: int, dtype: dtypes.DType | None = None) -> Any:
    """Running sums along ``axis``, in x's dtype (or ``dtype``: x is cast first)."""
    x = _as_tensor(x, Op.CumSum)
    return apply(Op.CumSum, x if dtype is None else cast(x, dtype), axis=axis)


def one_hot(indices: Any, depth: int, on_value: Any = 1, off_value: Any = 0,
            axis: int = -1) -> Any:
    """``on_value`` where an index meets its position along the new ``axis`` of size
    ``depth``, ``off_value`` elsewhere (an index out of range gives a row of
    ``off_value``); in ``on_value``'s dtype. Built from Equal and Select."""
    indices = _as_tensor(indices, "one_hot")
    with _checking("one_hot"):
        if not indices.dtype.is_int:
            raise GraphTypeError(f"indices must be an integer tensor, but got {indices.dtype}")
        depth = builtins.int(want_int(depth, "depth"))
        if depth < 0:
            raise GraphValueError(f"depth must be non-negative, but got {depth}")
        ndim = indices.ndim + 1
        axis = want_int(axis, "axis")
        if not -ndim <= axis < ndim:
            raise GraphValueError(f"axis must be in [{-ndim}, {ndim - 1}], but got {axis}")
    axis %= ndim
    on = on_value if isinstance(on_value, Tensor) else Tensor(on_value)
    off = cast(off_value if isinstance(off_value, Tensor) else Tensor(off_value), on.dtype)
    positions = np.arange(depth).reshape([depth if d == axis else 1 for d in range(ndim)])
    hit = apply(Op.Equal, expand_dims(indices, axis), Tensor(positions))
    return apply(Op.Select, hit, on, off)


def argmax(input: Any, dim: int | None = None, keepdim: bool = False) -> Any:
    """Index (int64) of the maximum; ``dim=None`` indexes the flattened tensor."""
    return apply(Op.Argmax, input, axis=dim, keep_dims=keepdim and dim is not None)


def argmin(input: Any, axis: int | None = None, keepdims: bool = False) -> Any:
    """Index of the minimum, int32 (MindSpore 2.10's ops.argmin; argmax's is int64)."""
    return cast(_argmin(input, axis, keepdims), dtypes.int32)


def _argmin(input: Any, axis: int | None = None, keepdims: bool = False) -> Any:
    return apply(Op.Argmin, input, axis=axis, keep_dims=keepdims and axis is not None)


def max(input: Any, axis: int | None = None, keepdims: bool = False, *, initial: Any = None,
        where: Any = None) -> tuple[Any, Any]:
    """(values, indices) of the maximum along ``axis``; None reduces the whole tensor.
    Along an axis the values are taken at the index, so the gradient goes to the first
    maximum, as MindSpore's ArgMaxWithValue sends it.

    NOTE: with axis=None MindSpore documents the index as always 0; msc returns the
    index into the flattened tensor, which is what the index means everywhere else.
    """
    return _with_index(input, axis, keepdims, initial, where, Op.ReduceMax)


def min(input: Any, axis: int | None = None, keepdims: bool = False, *, initial: Any = None,
        where: Any = None) -> tuple[Any, Any]:
    """(values, indices) of the minimum along ``axis``; see ``max``."""
    return _with_index(input, axis, keepdims, initial, where, Op.ReduceMin)


def _with_index(input: Any, axis: int | None, keepdims: bool, initial: Any, where: Any,
                op: Op) -> tuple[Any, Any]:
    keep = keepdims and axis is not None
    pick = argmax if op is Op.ReduceMax else _argmin
    if axis is None or initial is not None or where is not None:
        values = (amax if op is Op.ReduceMax else amin)(input, axis, keep, initial=initial,
                                                        where=where)
        return values, pick(_masked(input, initial, where, op), axis, keep)
    x = _as_tensor(input, op)
    ax = axis % x.ndim if x.ndim else 0
    index = pick(x, ax, True)
    values = apply(Op.GatherD, x, cast(index, dtypes.int64), dim=ax) if x.ndim else x
    if not keep:
        values = apply(Op.Squeeze, values, axis=(ax,)) if x.ndim else values
        index = apply(Op.Squeeze, index, axis=(ax,)) if x.ndim else index
    return values, index


# --- contractions ---------------------------------------------------------------------


def matmul(input: Any, other: Any) -> Any:
    """numpy's matmul: 1-D operands gain and then lose a dim; 2-D uses MatMul, higher
    ranks BatchMatMul with broadcast batch dims."""
    a, b = _as_tensor(input, Op.MatMul), _as_tensor(other, Op.MatMul)
    if a.ndim == 0 or b.ndim == 0:
        with _checking(Op.MatMul):
            raise ShapeError(f"matmul needs at least 1-D inputs, but got shapes {a.shape} "
                             f"and {b.shape} (use ops.mul for scalars)")
    a2 = apply(Op.ExpandDims, a, axis=0) if a.ndim == 1 else a
    b2 = apply(Op.ExpandDims, b, axis=1) if b.ndim == 1 else b
    out = apply(Op.MatMul if a2.ndim == b2.ndim == 2 else Op.BatchMatMul, a2, b2)
    drop = ((out.ndim - 2,) if a.ndim == 1 else ()) + ((out.ndim - 1,) if b.ndim == 1 else ())
    return apply(Op.Squeeze, out, axis=drop) if drop else out


def bmm(input_x: Any, mat2: Any) -> Any:
    return apply(Op.BatchMatMul, input_x, mat2)


batch_matmul = bmm


def dense(input: Any, weight: Any, bias: Any = None) -> Any:
    """``input @ weight.T + bias``."""
    if bias is None:
        return apply(Op.Dense, input, weight)
    return apply(Op.Dense, input, weight, bias)


def reshape(input: Any, shape: Any) -> Any:
    """Reshape; one dim may be -1 and is inferred from the others."""
    x = _as_tensor(input, Op.Reshape)
    dims = list(_dims(shape, Op.Reshape))
    with _checking(Op.Reshape):
        if dims.count(-1) > 1 or builtins.any(d < -1 for d in dims):
            raise ShapeError(f"shape {tuple(dims)} may contain one -1 and otherwise "
                             "non-negative dims")
        if -1 in dims:
            known = math.prod(d for d in dims if d != -1)
            if known == 0 or x.size % known:
                raise ShapeError(f"cannot reshape a tensor of shape {x.shape} ({x.size} "
                                 f"elements) into shape {tuple(dims)}")
            dims[dims.index(-1)] = x.size // known
    return apply(Op.Reshape, x, shape=tuple(dims))


def transpose(input: Any, input_perm: Any) -> Any:
    return apply(Op.Transpose, input, perm=_dims(input_perm, Op.Transpose))


def permute(input: Any, axis: Any) -> Any:
    return transpose(input, axis)


def expand_dims(input_x: Any, axis: int) -> Any:
    return apply(Op.ExpandDims, input_x, axis=axis)


def unsqueeze(input: Any, dim: int) -> Any:
    return apply(Op.ExpandDims, input, axis=dim)


def squeeze(input: Any, axis: Any = None) -> Any:
    """Drop size-1 dims: all of them, or those named by ``axis`` (each must have size 1)."""
    return apply(Op.Squeeze, input, axis=_axis_attr(axis))


def flatten(input: Any, order: str = "C", *, start_dim: int = 1, end_dim: int = -1) -> Any:
    """Merge dims ``start_dim..end_dim``; the default keeps dim 0, like MindSpore."""
    x = _as_tensor(input, Op.Flatten)
    if order not in ("C", "F"):
        with _checking(Op.Flatten):
            raise GraphValueError(f"order must be 'C' or 'F', but got {order!r}")
    if x.ndim <= 1:
        return apply(Op.Reshape, x, shape=(x.size,))
    start, end = _axis_of(x, start_dim, Op.Flatten), _axis_of(x, end_dim, Op.Flatten)
    if start > end:
        with _checking(Op.Flatten):
            raise ShapeError(f"start_dim {start_dim} comes after end_dim {end_dim} for "
                             f"shape {x.shape}")
    if order == "F":  # MindSpore reverses every dim, then flattens start..end of that
        x = transpose(x, tuple(reversed(range(x.ndim))))
    if start == end:
        return x
    if start == 1 and end == x.ndim - 1:
        return apply(Op.Flatten, x)
    merged = math.prod(x.shape[start:end + 1])
    return apply(Op.Reshape, x, shape=x.shape[:start] + (merged,) + x.shape[end + 1:])


def _tensor_seq(tensors: Any, op: Primitive | str) -> tuple[Any, ...]:
    if not isinstance(tensors, (list, tuple)):
        with _checking(op):
            raise GraphTypeError(f"tensors must be a tuple or list of Tensors, but got "
                                 f"{type(tensors).__name__}")
    return tuple(tensors)


def concat(tensors: Any, axis: int = 0) -> Any:
    return apply(Op.Concat, *_tensor_seq(tensors, Op.Concat), axis=axis)


def stack(tensors: Any, axis: int = 0) -> Any:
    return apply(Op.Stack, *_tensor_seq(tensors, Op.Stack), axis=axis)


cat = concat


def gather(input_params: Any, input_indices: Any, axis: int, batch_dims: int = 0) -> Any:
    """Slices of ``input_params`` along ``axis`` at ``input_indices``; with ``batch_dims``
    b, the first b dims of both are shared: out[i..., j..., r...] = x[i..., idx[i..., j...],
    r...] (the axis must then be b: a Gather of linear positions)."""
    if not isinstance(input_indices, Tensor):
        input_indices = Tensor(input_indices)
    if batch_dims == 0:
        return apply(Op.Gather, input_params, input_indices, axis=axis)
    x = _as_tensor(input_params, Op.Gather)
    b = batch_dims % input_indices.ndim if batch_dims < 0 else batch_dims
    with _checking(Op.Gather):
        if axis % x.ndim != b or x.shape[:b] != input_indices.shape[:b]:
            raise GraphValueError(f"batch_dims {batch_dims} needs axis {b} and indices "
                                  f"whose first {b} dims are the input's, but got axis "
                                  f"{axis} and shapes {x.shape}, {input_indices.shape}")
    lead, n = math.prod(x.shape[:b]), x.shape[b]
    inner = tuple(input_indices.shape[b:])
    wrapped = apply(Op.Gather, Tensor(np.arange(n)), input_indices, axis=0)  # checks them
    base = Tensor((np.arange(lead) * n).reshape((lead,) + (1,) * len(inner)))
    linear = apply(Op.Add, apply(Op.Reshape, apply(Op.Cast, wrapped, dtype=dtypes.int64),
                                 shape=(lead,) + inner), base)
    rest = tuple(x.shape[b + 1:])
    flat = apply(Op.Reshape, x, shape=(lead * n,) + rest)
    out = apply(Op.Gather, flat, linear, axis=0)
    return apply(Op.Reshape, out, shape=tuple(x.shape[:b]) + inner + rest)


def broadcast_to(input: Any, shape: Any) -> Any:
    """Broadcast to ``shape``; -1 keeps the input's size of that dim."""
    return apply(Op.BroadcastTo, input, shape=_dims(shape, Op.BroadcastTo))


def tile(input: Any, dims: Any) -> Any:
    return apply(Op.Tile, input, multiples=_dims(dims, Op.Tile))


# --- creation -------------------------------------------------------------------------


def _default_dtype(value: Any) -> dtypes.DType:
    if isinstance(value, Tensor):
        return value.dtype
    return dtypes.DEFAULT_OF_CATEGORY[dtypes.scalar_category(value)]


def zeros(size: Any, dtype: dtypes.DType | None = None) -> Any:
    return apply(Op.Zeros, shape=_dims(size, Op.Zeros), dtype=dtype or dtypes.float32)


def ones(shape: Any, dtype: dtypes.DType | None = None) -> Any:
    return apply(Op.Ones, shape=_dims(shape, Op.Ones), dtype=dtype or dtypes.float32)


def fill(type: dtypes.DType, shape: Any, value: Any) -> Any:  # noqa: A002 - MindSpore's name
    """A tensor of ``shape`` and dtype ``type`` filled with ``value`` (MindSpore's order)."""
    if isinstance(value, Tensor):
        return broadcast_to(cast(value, type), _dims(shape, Op.Fill))
    return apply(Op.Fill, shape=_dims(shape, Op.Fill), dtype=type, value=value)


def full(size: Any, fill_value: Any, *, dtype: dtypes.DType | None = None) -> Any:
    """Like ``fill``; without ``dtype`` the value decides (bool, int64, float32)."""
    return fill(dtype or _default_dtype(fill_value), size, fill_value)


def zeros_like(input: Any, *, dtype: dtypes.DType | None = None) -> Any:
    out = apply(Op.ZerosLike, input)
    return out if dtype is None else cast(out, dtype)


def ones_like(input: Any, *, dtype: dtypes.DType | None = None) -> Any:
    out = apply(Op.OnesLike, input)
    return out if dtype is None else cast(out, dtype)


# --- nn -------------------------------------------------------------------------------


def softmax(input: Any, axis: Any = -1, *, dtype: dtypes.DType | None = None) -> Any:
    x = input if dtype is None else cast(input, dtype)
    axes = _reduce_axes(x, axis, Op.Softmax) or tuple(range(_as_tensor(x, Op.Softmax).ndim))
    return apply(Op.Softmax, x, axis=axes)


def log_softmax(logits: Any, axis: int = -1) -> Any:
    return apply(Op.LogSoftmax, logits, axis=axis)


def logsumexp(input: Any, axis: Any, keep_dims: bool = False) -> Any:
    """``log(sum(exp(input)))`` over ``axis`` (an int or a tuple), computed stably."""
    return apply(Op.LogSumExp, input, axis=_reduce_axes(input, axis, Op.LogSumExp),
                 keep_dims=keep_dims)


def layer_norm(input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None,
               eps: float = 1e-5) -> Any:
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift."""
    x = _as_tensor(input, Op.LayerNorm)
    norm = _dims(normalized_shape, Op.LayerNorm)
    begin = x.ndim - len(norm)
    if not norm or begin < 0 or x.shape[begin:] != norm:
        with _checking(Op.LayerNorm):
            raise ShapeError(f"normalized_shape {norm} must be the trailing dims of the "
                             f"input shape {x.shape}")
    w = ones(norm, x.dtype) if weight is None else weight
    b = zeros(norm, x.dtype) if bias is None else bias
    return apply(Op.LayerNorm, x, w, b, begin_norm_axis=begin, begin_params_axis=begin,
                 epsilon=float(eps))


# --- static queries (compile-time values in a graph) ------------------------------------


def shape(input_x: Any) -> tuple[int, ...]:
    return _as_tensor(input_x, "Shape").shape


def rank(input_x: Any) -> int:
    return _as_tensor(input_x, "Rank").ndim


def dtype(input_x: Any) -> dtypes.DType:
    return _as_tensor(input_x, "DType").dtype


# --- generated: each op's ``public.functions`` (``add``, ``exp``, ``eq``, ...) -------------


def _generate() -> list[str]:
    """Define ``name(*args)``, that is ``apply(prim, *args)``, for each name in each
    primitive's ``public.functions``: the only place these functional forms come from."""
    names = []
    for prim in Op:
        for name in prim.public.functions:
            if name in globals():
                raise InternalCompilerError(f"ops.{name} is both written and generated")
            first = prim.public.functions[0]
            doc = f"``ops.{name}``: the {prim.name} primitive (``Op.{prim.name}``)." + \
                ("" if name == first else f" An alias of ``ops.{first}``.")
            globals()[name] = public_function(prim, name, doc, globals())
            names.append(name)
    return names


__all__ = _generate() + [
    "div", "remainder", "gelu", "select", "where", "clip_by_value", "clamp", "clip", "cast",
    "sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "cumsum",
    "one_hot", "all", "any", "addn", "bias_add",
    "matmul", "bmm", "batch_matmul", "dense",
    "reshape", "transpose", "permute", "expand_dims", "unsqueeze", "squeeze", "flatten",
    "concat", "cat", "stack", "split", "gather", "getitem", "strided_slice", "slice",
    "broadcast_to", "tile", "zeros", "ones", "fill", "full", "zeros_like", "ones_like",
    "softmax", "log_softmax", "logsumexp", "layer_norm", "shape", "rank", "dtype", "switch",
]

partial = functools.partial  # ``F.partial``, the same object as ``ops.partial``


def switch(cond: Any, true_branch: Any, false_branch: Any) -> Any:
    """``F.switch``: ``true_branch`` if ``cond`` else ``false_branch``; a one-element
    tensor ``cond`` chooses at run time."""
    if not isinstance(cond, Tensor):
        return true_branch if cond else false_branch
    if cond.size != 1:
        raise GraphValueError(f"F.switch needs a one-element condition, not {cond.shape}")
    return select(cond, true_branch, false_branch)


def __getattr__(name: str) -> Any:
    """The rest of ``msc.ops``'s functions (``F.assign``, ``F.make_range``, ``F.conv2d``,
    ...): MindSpore's functional namespace has them too. Looked up on use, as ``msc.ops``
    is built on this module."""
    import msc.ops as ops

    value = getattr(ops, name)
    if isinstance(value, type) or name.startswith("_"):
        raise AttributeError(f"module 'msc.ops.functional' has no attribute '{name}'")
    return value
