"""``msc.numpy``'s shape functions: joining, splitting, reordering and selecting, with
numpy's argument names over ``ops``."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from msc import ops
from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.common.tensor import Tensor
from msc.ir import dtypes
from msc.numpy.utils import axes_of, axis_of, like_tensor, to_tensor, to_tensors


def reshape(x: Any, new_shape: Any) -> Any:
    return ops.reshape(to_tensor(x), new_shape)


def ravel(x: Any) -> Any:
    return ops.ravel(to_tensor(x))


def transpose(a: Any, axes: Any = None) -> Any:
    """Axes reversed, or permuted as ``axes`` says."""
    x = to_tensor(a)
    perm = tuple(reversed(range(x.ndim))) if axes is None else tuple(axes)
    return ops.transpose(x, perm)


def swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    return ops.swapaxes(to_tensor(x), axis1, axis2)


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    return ops.moveaxis(to_tensor(a), source, destination)


def expand_dims(a: Any, axis: Any) -> Any:
    """New unit axes at ``axis`` (an int or a tuple) of the result."""
    x = to_tensor(a)
    for at in axes_of(axis, x.ndim + (len(axis) if isinstance(axis, (list, tuple)) else 1)):
        x = ops.expand_dims(x, at)
    return x


def squeeze(a: Any, axis: Any = None) -> Any:
    """Unit axes removed (those in ``axis`` only; MindSpore's numpy skips listed axes that
    are not of length one)."""
    x = to_tensor(a)
    listed = axes_of(axis, x.ndim)
    keep = tuple(d for i, d in enumerate(x.shape) if i not in listed or d != 1)
    return x if keep == tuple(x.shape) else ops.reshape(x, keep)


def concatenate(arrays: Any, axis: Any = 0) -> Any:
    """Joined along ``axis`` (flattened first when it is None), promoted to one dtype."""
    if isinstance(arrays, Tensor):
        return arrays if axis is None and arrays.ndim == 1 else \
            concatenate(tuple(ops.unbind(arrays, 0)), axis)
    parts = to_tensors(arrays)
    if axis is None:
        return ops.cat([ops.ravel(p) for p in parts], 0)
    if any(p.ndim != parts[0].ndim for p in parts):
        raise ShapeError("all the input arrays must have the same number of dimensions, but "
                         f"got shapes {[tuple(p.shape) for p in parts]}")
    return ops.cat(parts, axis)


def stack(arrays: Any, axis: int = 0) -> Any:
    return ops.stack(to_tensors(arrays), axis)


def hstack(tup: Any) -> Any:
    return ops.hstack(to_tensors(tup))


def vstack(tup: Any) -> Any:
    return ops.vstack(to_tensors(tup))


def dstack(tup: Any) -> Any:
    return ops.dstack(to_tensors(tup))


def column_stack(tup: Any) -> Any:
    return ops.column_stack(to_tensors(tup))


def _each(arys: tuple[Any, ...], fn: Any) -> Any:
    out = [fn(to_tensor(a)) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys: Any) -> Any:
    return _each(arys, lambda x: ops.reshape(x, (1,)) if x.ndim == 0 else x)


def atleast_2d(*arys: Any) -> Any:
    return _each(arys, lambda x: ops.reshape(x, (1,) * (2 - x.ndim) + tuple(x.shape))
                 if x.ndim < 2 else x)


def atleast_3d(*arys: Any) -> Any:
    """numpy's rule: a 1-d ``(n,)`` becomes ``(1, n, 1)``, a 2-d ``(m, n)`` ``(m, n, 1)``."""
    def lift(x: Any) -> Any:
        shape = {0: (1, 1, 1), 1: (1, *x.shape, 1), 2: (*x.shape, 1)}.get(x.ndim)
        return x if shape is None else ops.reshape(x, shape)
    return _each(arys, lift)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """``x`` where ``condition`` holds, else ``y`` (both needed: the one-argument form has
    a data-dependent shape)."""
    if x is None or y is None:
        raise GraphTypeError("where needs x and y: the one-argument form is not supported")
    cond = to_tensor(condition)
    if cond.dtype != dtypes.bool_:
        cond = ops.cast(cond, dtypes.bool_)
    return ops.where(cond, *_branches(x, y))


def _branches(x: Any, y: Any) -> tuple[Any, Any]:
    """Scalars beside a tensor stay weak (``where(c, int32, 0)`` is int32); two scalars
    become tensors of their own."""
    if isinstance(x, Tensor) or isinstance(y, Tensor):
        return (x if isinstance(x, (Tensor, int, float, bool)) else to_tensor(x),
                y if isinstance(y, (Tensor, int, float, bool)) else to_tensor(y))
    return to_tensor(x), to_tensor(y)


def tile(A: Any, reps: Any) -> Any:  # noqa: N803 - numpy's name
    return ops.tile(to_tensor(A), tuple(reps) if isinstance(reps, (list, tuple)) else (reps,))


def repeat(a: Any, repeats: Any, axis: Any = None) -> Any:
    """Each element repeated (along ``axis``; of the flattened array without one)."""
    x = to_tensor(a)
    if axis is None:
        x, axis = ops.ravel(x), 0
    if isinstance(repeats, (list, tuple)) and len(repeats) == 1:
        repeats = repeats[0]
    return ops.repeat_interleave(x, list(repeats) if isinstance(repeats, (list, tuple))
                                 else repeats, axis_of(axis, x.ndim))


def flip(m: Any, axis: Any = None) -> Any:
    x = to_tensor(m)
    return ops.flip(x, axes_of(axis, x.ndim))


def fliplr(m: Any) -> Any:
    return flip(m, 1)


def flipud(m: Any) -> Any:
    return flip(m, 0)


def rot90(a: Any, k: int = 1, axes: Any = (0, 1)) -> Any:
    return ops.rot90(to_tensor(a), k, tuple(axes))


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """Elements shifted cyclically (over the flattened array without ``axis``)."""
    x = to_tensor(a)
    if axis is None:
        return ops.reshape(ops.roll(ops.ravel(x), shift, 0), x.shape)
    return ops.roll(x, shift, axis)


def broadcast_to(array: Any, shape: Any) -> Any:
    return ops.broadcast_to(to_tensor(array), tuple(shape) if isinstance(shape, list)
                            else shape)


def _sections(x: Any, indices_or_sections: Any, axis: int, even: bool) -> tuple[Any, ...]:
    at = axis_of(axis, x.ndim)
    if isinstance(indices_or_sections, (int, np.integer)):
        count = operator.index(indices_or_sections)
        if count <= 0:
            raise GraphValueError(f"number sections must be larger than 0, but got {count}")
        if even and x.shape[at] % count:
            raise ShapeError(f"array split does not result in an equal division: "
                             f"{x.shape[at]} into {count}")
        return tuple(ops.tensor_split(x, count, at))
    if isinstance(indices_or_sections, (list, tuple)):
        return tuple(ops.tensor_split(x, [operator.index(i) for i in indices_or_sections], at))
    raise GraphTypeError("indices_or_sections must be an int, a list or a tuple, but got "
                         f"{type(indices_or_sections).__name__}")


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> tuple[Any, ...]:
    """Equal sections (an int must divide the axis) or pieces between indices."""
    return _sections(to_tensor(x), indices_or_sections, axis, even=True)


def array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> tuple[Any, ...]:
    """Like ``split``; an int count need not divide the axis."""
    return _sections(to_tensor(x), indices_or_sections, axis, even=False)


def hsplit(x: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    t = to_tensor(x)
    return _sections(t, indices_or_sections, 0 if t.ndim == 1 else 1, even=True)


def vsplit(x: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    return _sections(to_tensor(x), indices_or_sections, 0, even=True)


def dsplit(x: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    return _sections(to_tensor(x), indices_or_sections, 2, even=True)


def take(a: Any, indices: Any, axis: Any = None, mode: str = "clip") -> Any:
    """Elements at ``indices`` (of the flattened array without ``axis``); out-of-range
    indices are clipped (``mode='clip'``, also what 'raise' does) or wrapped ('wrap')."""
    if mode not in ("raise", "clip", "wrap"):
        raise GraphValueError(f"mode must be 'raise', 'clip' or 'wrap', but got {mode!r}")
    x = to_tensor(a)
    if axis is None:
        x, axis = ops.ravel(x), 0
    at = axis_of(axis, x.ndim)
    size = x.shape[at]
    index = to_tensor(indices)
    if index.dtype.is_float or index.dtype == dtypes.bool_:
        raise GraphTypeError(f"indices must be integers, but got {index.dtype}")
    if mode == "wrap":
        index = ops.remainder(index, like_tensor(size, index))
    else:
        index = ops.clamp(index, like_tensor(0, index), like_tensor(size - 1, index))
    return ops.gather(x, index, at)


__all__ = [
    'reshape', 'ravel', 'transpose', 'swapaxes', 'moveaxis', 'expand_dims', 'squeeze',
    'concatenate', 'stack', 'hstack', 'vstack', 'dstack', 'column_stack', 'atleast_1d',
    'atleast_2d', 'atleast_3d', 'where', 'tile', 'repeat', 'flip', 'fliplr', 'flipud',
    'rot90', 'roll', 'broadcast_to', 'split', 'array_split', 'hsplit', 'vsplit', 'dsplit',
    'take',
]
