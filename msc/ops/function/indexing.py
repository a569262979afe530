"""Indexing ops: ``x[key]`` (``getitem``), ``strided_slice``, ``slice`` and ``split``,
each lowered to StridedSlice, Gather or Split; ``functional`` re-exports them.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphIndexError, GraphTypeError, GraphValueError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ir.primitives.base import want_int
from msc.ir.primitives.shape import canonical_slice
from msc.ops.function.arguments import _as_tensor, _axis_of, _checking, _dims


def _index_tensor(item: Any) -> Tensor | None:
    """The integer tensor of an advanced index, None for basic ones; bool masks refused."""
    if isinstance(item, (list, tuple, np.ndarray)):
        item = Tensor(np.asarray(item))
    if not isinstance(item, Tensor):
        return None
    if item.dtype == dtypes.bool_:
        raise GraphTypeError("a boolean mask index gives a result whose shape depends on "
                             "the data, but graph shapes are static; use ops.select instead")
    if not item.dtype.is_int:
        raise GraphTypeError(f"a tensor index must hold integers, but got {item.dtype}")
    return item


def _expand_ellipsis(items: tuple[Any, ...], ndim: int) -> list[Any]:
    used = builtins.sum(1 for k in items if k is not None and k is not Ellipsis)
    if used > ndim:
        raise ShapeError(f"too many indices ({used}) for a {ndim}-d tensor")
    fill = [builtins.slice(None)] * (ndim - used)
    ellipses = [i for i, k in enumerate(items) if k is Ellipsis]
    if len(ellipses) > 1:
        raise GraphValueError("an index can only have a single ellipsis ('...')")
    if not ellipses:
        return list(items) + fill
    at = ellipses[0]
    return list(items[:at]) + fill + list(items[at + 1:])


def _basic_entry(item: Any, dim: int, axis: int) -> Any:
    if isinstance(item, (bool, np.bool_)):
        raise GraphTypeError("a bool index is a mask; graph shapes are static")
    if isinstance(item, builtins.slice):
        bounds = [None if v is None else operator.index(v)
                  for v in (item.start, item.stop, item.step)]
        if bounds[2] == 0:
            raise GraphValueError("slice step cannot be zero")
        return canonical_slice(builtins.slice(*bounds), dim)
    i = operator.index(item)
    if not -dim <= i < dim:
        raise GraphIndexError(f"index {i} is out of bounds for axis {axis} with size {dim}")
    return i % dim


def getitem(x: Any, key: Any) -> Any:
    """``x[key]``: ints, slices, None, ``...`` and at most one integer-tensor index.

    Basic indexing becomes one StridedSlice with a canonical index; the tensor index
    becomes a Gather on the axis it lands on.
    """

    x = _as_tensor(x, "getitem")
    items = key if isinstance(key, tuple) else (key,)
    with _checking("getitem"):
        several = _several_tensors(x, items)
    if several is not None:
        return several
    with _checking("getitem"):
        index: list[Any] = []
        gathered: tuple[int, Tensor] | None = None
        dims = iter(enumerate(x.shape))
        for item in _expand_ellipsis(items, x.ndim):
            if item is None:
                index.append(None)
                continue
            axis, dim = next(dims)
            indices = _index_tensor(item)
            if indices is None:
                index.append(_basic_entry(item, dim, axis))
                continue
            if gathered is not None:
                raise GraphTypeError("only one tensor index is supported in a key")
            out_axis = builtins.sum(1 for e in index if not isinstance(e, int))
            gathered = (out_axis, indices)
            index.append(canonical_slice(builtins.slice(None), dim))
    full = tuple(canonical_slice(builtins.slice(None), d) for d in x.shape)
    out = x if gathered is not None and tuple(index) == full else \
        apply(Op.StridedSlice, x, index=tuple(index))
    if gathered is not None:
        out = apply(Op.Gather, out, gathered[1], axis=gathered[0])
    return out


def _several_tensors(x: Tensor, items: tuple[Any, ...]) -> Any:
    """``x[i, j]``, ``x[i, :, j]``: integer tensors (broadcast together) on some axes and
    whole slices on the others, numpy's way: the indexed axes move to the front and
    flatten, one Gather takes the linear positions, and the result's index dims stand
    where the first indexed axis was when the indexed axes are adjacent, else first.
    None for any other key."""
    full = builtins.slice(None)
    if len(items) > x.ndim or builtins.sum(isinstance(k, Tensor) for k in items) < 2 or \
            any(not isinstance(k, Tensor) and k != full for k in items):
        return None
    tensors = {a: _index_tensor(k) for a, k in enumerate(items) if isinstance(k, Tensor)}
    axes = sorted(tensors)
    shape = np.broadcast_shapes(*(t.shape for t in tensors.values()))
    linear: Any = None
    for a in axes:  # each wrapped (and checked) through a Gather from its positions
        i = apply(Op.Gather, Tensor(np.arange(x.shape[a])), tensors[a], axis=0)
        i = apply(Op.BroadcastTo, apply(Op.Cast, i, dtype=dtypes.int64), shape=shape)
        linear = i if linear is None else apply(Op.Add, apply(Op.Mul, linear, x.shape[a]), i)
    rest = [a for a in range(x.ndim) if a not in tensors]
    moved = apply(Op.Transpose, x, perm=tuple(axes + rest)) if axes + rest != \
        list(range(x.ndim)) else x
    lead = int(np.prod([x.shape[a] for a in axes]))
    flat = apply(Op.Reshape, moved, shape=(lead,) + tuple(x.shape[a] for a in rest))
    out = apply(Op.Gather, flat, linear, axis=0)
    first = axes[0]
    if axes == list(range(first, first + len(axes))) and first > 0:
        k = len(shape)
        perm = tuple(range(k, k + first)) + tuple(range(k)) + tuple(range(k + first, out.ndim))
        out = apply(Op.Transpose, out, perm=perm)
    return out


def setitem(x: Any, key: Any, value: Any) -> Any:
    """``x[key] = value`` as a new tensor (graphs update tensors by rebinding them).

    The key may hold ints, slices, ``...`` and one 0-d integer tensor. It is built from
    ops every target has: a constant map from each element of ``x`` to the element of
    ``value`` (broadcast to the indexed shape, numpy's way: see ``_assigned_shape``) that
    replaces it, a ``Gather`` through that map, and a ``Select`` under the mask of
    replaced elements; a tensor index adds an ``Equal`` of its axis' positions to the
    mask (its ``Gather`` from those positions wraps a negative index and raises
    IndexError for one out of range, as eager does).
    """

    x = _as_tensor(x, "setitem")
    if isinstance(key, Tensor) and key.dtype == dtypes.bool_:
        return _set_masked(x, key, value)
    items = key if isinstance(key, tuple) else (key,)
    with _checking("setitem"):
        if any(item is None for item in items):
            raise GraphTypeError("None (a new axis) cannot be part of an assigned index")
        index: list[Any] = []
        dynamic: tuple[int, Tensor] | None = None
        for axis, item in enumerate(_expand_ellipsis(items, x.ndim)):
            indices = _index_tensor(item)
            if indices is None:
                index.append(_basic_entry(item, x.shape[axis], axis))
                continue
            if dynamic is not None or indices.ndim > 1 or (
                    indices.ndim == 1 and not _is_single(value)):
                raise GraphTypeError("an assigned index may hold one integer tensor: one "
                                     "element (x[i] = v), or a vector with a single value "
                                     "(x[:, idx] = 0); use ops.select for other masks")
            dynamic = (axis, indices)
            index.append(canonical_slice(builtins.slice(None), x.shape[axis]))
        numpy_key = tuple(e if isinstance(e, int) else builtins.slice(*e) for e in index)
        positions = np.arange(x.size).reshape(x.shape)[numpy_key]
        region = positions.shape  # the shape ``value`` broadcasts to
        point = dynamic is not None and dynamic[1].ndim == 0
        kept = 0
        if point:  # value has no dimension for the tensor-indexed axis
            kept = builtins.sum(1 for e in index[:dynamic[0]] if not isinstance(e, int))
            region = region[:kept] + region[kept + 1:]
        value = apply(Op.Cast, _as_tensor(value, "setitem") if isinstance(value, Tensor)
                      else Tensor(np.asarray(value, x.dtype.np)), dtype=x.dtype)
        element = not any(k is Ellipsis for k in items) and len(items) == x.ndim and all(
            isinstance(e, int) for a, e in enumerate(index)
            if dynamic is None or a != dynamic[0]) and (dynamic is None or point)
        shape = _assigned_shape(value.shape, region, element)
        if point:  # value's dims lined up with the region's, then one for the indexed axis
            shape = (1,) * (len(region) - len(shape)) + shape
            shape = shape[:kept] + (1,) + shape[kept:]
        if dynamic is not None and not point:
            value = apply(Op.Reshape, value, shape=())
        elif shape != value.shape:
            value = apply(Op.Reshape, value, shape=shape)
        source = np.full(x.size, -1, np.int64)
        source[positions.ravel()] = np.arange(positions.size)
        flat = apply(Op.Reshape, apply(Op.BroadcastTo, value, shape=positions.shape),
                     shape=(positions.size,))
        replaced = apply(Op.Reshape, apply(Op.Gather, flat, Tensor(np.maximum(source, 0)),
                                           axis=0), shape=x.shape)
        mask: Any = Tensor(source.reshape(x.shape) >= 0)
        if dynamic is not None:
            axis, i = dynamic
            n = x.shape[axis]
            i = apply(Op.Gather, Tensor(np.arange(n)), i, axis=0)  # checks and wraps it
            shape = [n if a == axis else 1 for a in range(x.ndim)]
            if i.ndim == 1:  # any of the positions: a mask along the axis
                hit = apply(Op.Equal, Tensor(np.arange(n)[:, None]), apply(
                    Op.ExpandDims, i, axis=0))
                hit = apply(Op.ReduceMax, apply(Op.Cast, hit, dtype=dtypes.int8), axis=(1,),
                            keep_dims=False)
                on = apply(Op.Reshape, apply(Op.Cast, hit, dtype=dtypes.bool_),
                           shape=tuple(shape))
            else:
                on = apply(Op.Equal, Tensor(np.arange(n).reshape(shape)), i)
            mask = apply(Op.LogicalAnd, mask, on)
    return apply(Op.Select, mask, replaced, x)


def _assigned_shape(shape: tuple[int, ...], region: tuple[int, ...],
                    element: bool) -> tuple[int, ...]:
    """``shape`` as numpy assigns a value of that shape to a selection of shape ``region``:
    leading 1-dims beyond the region's rank dropped (a (1, 3) value fits a (3,) selection),
    then it must broadcast to the region. One element chosen by integers alone (``x[0, 1]``,
    ``x[i]`` of a vector) takes a 0-d value only, as numpy's does. ShapeError otherwise."""
    fitted = shape if element else _without_leading_ones(shape, len(region))
    if not _broadcasts_to(fitted, region):
        raise ShapeError(f"a value of shape {shape} cannot be assigned to a selection of "
                         f"shape {region}")
    return fitted


def _without_leading_ones(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    """``shape``'s leading 1-dims dropped while it has more than ``rank`` dims."""
    while len(shape) > rank and shape[0] == 1:
        shape = shape[1:]
    return shape


def _broadcasts_to(shape: tuple[int, ...], region: tuple[int, ...]) -> bool:
    return len(shape) <= len(region) and all(
        v in (1, r) for v, r in zip(reversed(shape), reversed(region)))


def _is_single(value: Any) -> bool:
    return (value.size if isinstance(value, Tensor) else np.size(value)) == 1


def _set_masked(x: Tensor, mask: Tensor, value: Any) -> Any:
    """``x[mask] = v`` with a bool mask over x's leading dims: where the mask holds, v.

    The selection's shape is (n,) + the unmasked dims, n the count of True entries, which
    depends on the data; so v is taken as numpy takes it when that count does not matter:
    a single value, or (a mask over leading dims only) a value that broadcasts to the
    unmasked dims once numpy drops its leading 1-dims. A mask over every dim takes a 0-d or
    1-d value only, as numpy's does."""
    with _checking("setitem"):
        if mask.shape != x.shape[:mask.ndim]:
            raise ShapeError(f"a boolean mask of shape {mask.shape} does not match the "
                             f"tensor's leading dims {x.shape[:mask.ndim]}")
    v = apply(Op.Cast, value if isinstance(value, Tensor) else Tensor(np.asarray(
        value, x.dtype.np)), dtype=x.dtype)
    with _checking("setitem"):
        rest = x.shape[mask.ndim:]
        if not rest and v.ndim > 1:
            raise GraphTypeError(f"a boolean mask over every dim takes a 0-d or 1-d value, "
                                 f"but got one of shape {v.shape}")
        shape = _without_leading_ones(v.shape, len(rest) + 1)
        counted = len(shape) == len(rest) + 1 and shape[0] != 1  # then it must equal n
        if len(shape) == len(rest) + 1:
            shape = shape[1:]
        if not _broadcasts_to(shape, rest):
            selection = "(n" + "".join(f", {d}" for d in rest) + ")"
            raise ShapeError(f"a value of shape {v.shape} cannot be assigned to a selection "
                             f"of shape {selection}, n the count of the mask's True entries")
        if counted:
            raise GraphTypeError("a boolean mask index takes a single value, or one that "
                                 "broadcasts to the unmasked dims (x[mask] = v): the "
                                 "selection's shape depends on the data")
    if mask.ndim < x.ndim:
        mask = apply(Op.BroadcastTo, apply(Op.Reshape, mask, shape=mask.shape + (1,) * (
            x.ndim - mask.ndim)), shape=x.shape)
    if shape != v.shape:
        v = apply(Op.Reshape, v, shape=shape)
    v = apply(Op.BroadcastTo, v, shape=x.shape)
    return apply(Op.Select, mask, v, x)


def strided_slice(input_x: Any, begin: Any, end: Any, strides: Any, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0) -> Any:
    """MindSpore's StridedSlice: bit i of a mask applies to position i of begin/end/strides."""

    if not len(begin) == len(end) == len(strides):
        with _checking(Op.StridedSlice):
            raise GraphValueError(f"begin, end and strides must have one length, but got "
                                  f"{len(begin)}, {len(end)} and {len(strides)}")
    key: list[Any] = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        if ellipsis_mask >> i & 1:
            key.append(Ellipsis)
        elif new_axis_mask >> i & 1:
            key.append(None)
        elif shrink_axis_mask >> i & 1:
            key.append(b)
        else:
            key.append(builtins.slice(None if begin_mask >> i & 1 else b,
                                      None if end_mask >> i & 1 else e, s))
    return getitem(input_x, tuple(key))


def slice(input_x: Any, begin: Any, size: Any) -> Any:
    """The block starting at ``begin`` of extent ``size`` (-1: to the end of the dim)."""

    x = _as_tensor(input_x, "Slice")
    begin, size = _dims(begin, "Slice"), _dims(size, "Slice")
    with _checking("Slice"):
        if len(begin) != x.ndim or len(size) != x.ndim:
            raise ShapeError(f"begin {begin} and size {size} must have one entry per dim of "
                             f"shape {x.shape}")
        for b, s, d in zip(begin, size, x.shape):
            if b < 0 or s < -1 or (s != -1 and b + s > d):
                raise ShapeError(f"begin {begin} and size {size} do not fit in shape {x.shape}")
    return getitem(x, tuple(builtins.slice(b, None if s == -1 else b + s)
                            for b, s in zip(begin, size)))


def _slice_axis(x: Tensor, axis: int, start: int, stop: int) -> Any:
    index = tuple(canonical_slice(builtins.slice(start, stop) if i == axis else
                                  builtins.slice(None), d) for i, d in enumerate(x.shape))
    return apply(Op.StridedSlice, x, index=index)


def split(tensor: Any, split_size_or_sections: Any, axis: int = 0) -> tuple[Any, ...]:
    """Chunks of ``split_size_or_sections`` (the last may be smaller), or of the listed
    sizes; equal chunks become one Split node."""

    x = _as_tensor(tensor, Op.Split)
    a = _axis_of(x, axis, Op.Split)
    dim = x.shape[a]
    with _checking(Op.Split):
        if isinstance(split_size_or_sections, (list, tuple)):
            sizes = [want_int(s, "every section") for s in split_size_or_sections]
            if builtins.sum(sizes) != dim or builtins.any(s < 0 for s in sizes):
                raise ShapeError(f"sections {tuple(sizes)} do not add up to the size {dim} "
                                 f"of axis {a} of shape {x.shape}")
        else:
            size = want_int(split_size_or_sections, "split_size_or_sections")
            if size <= 0:
                raise GraphValueError(f"split_size_or_sections must be positive, not {size}")
            sizes = [size] * (dim // size) + ([dim % size] if dim % size else [])
    if sizes and builtins.all(s == sizes[0] for s in sizes):
        return apply(Op.Split, x, axis=a, output_num=len(sizes))
    bounds = np.cumsum([0] + sizes).tolist()
    return tuple(_slice_axis(x, a, lo, hi) for lo, hi in zip(bounds, bounds[1:]))


__all__ = ["getitem", "strided_slice", "slice", "split"]
