"""Argument handling shared by ``msc.numpy``: array-likes to Tensors with MindSpore's
numpy defaults (Python ints are int32, floats float32), dtype spellings, axes."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from msc.common.tensor import Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ops import functional as F

#: MindSpore's numpy keeps 32-bit defaults where numpy would give 64-bit ones.
_NARROW = {np.dtype(np.int64): np.int32, np.dtype(np.float64): np.float32}


def dtype_of(dtype: Any) -> dtypes.DType | None:
    """An msc dtype from any spelling MindSpore's numpy accepts (None stays None)."""
    if dtype is None:
        return None
    found = dtypes.coerce(dtype)
    if not isinstance(found, dtypes.DType):
        raise GraphTypeError(f"unsupported dtype {dtype!r}")
    return found


def constant(value: Any, dtype: Any = None) -> Tensor:
    """A constant tensor of a Python scalar or nested list, 32-bit unless ``dtype`` says."""
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise GraphTypeError(f"expected an array-like of numbers, but got {value!r}")
    wanted = dtype_of(dtype)
    if wanted is None:
        return Tensor(arr.astype(_NARROW.get(arr.dtype, arr.dtype)))
    return Tensor(arr, wanted)


def to_tensor(value: Any, dtype: Any = None) -> Any:
    """An array-like (Tensor, numpy array, Python scalar, nested list or tuple that may
    hold tensors) as a Tensor, cast to ``dtype`` if given."""
    if isinstance(value, Tensor):
        out = value
    elif isinstance(value, (np.ndarray, np.generic)):
        out = Tensor(np.asarray(value))
    elif isinstance(value, (list, tuple)) and builtins.any(
            isinstance(v, (Tensor, list, tuple)) for v in value):
        parts = [to_tensor(v) for v in value]
        common = parts[0].dtype
        for part in parts[1:]:
            common = dtypes.promote(common, part.dtype)
        out = F.stack([F.cast(p, common) for p in parts]) if parts else constant(value)
    else:
        return constant(value, dtype)
    wanted = dtype_of(dtype)
    return out if wanted is None or wanted == out.dtype else F.cast(out, wanted)


def to_tensors(values: Any) -> list[Any]:
    """A sequence of array-likes as Tensors promoted to their common dtype."""
    if not isinstance(values, (list, tuple)):
        raise GraphTypeError(f"expected a tuple or list of arrays, but got {type(values).__name__}")
    parts = [to_tensor(v) for v in values]
    if not parts:
        raise GraphValueError("need at least one array")
    common = parts[0].dtype
    for part in parts[1:]:
        common = dtypes.promote(common, part.dtype)
    return [p if p.dtype == common else F.cast(p, common) for p in parts]


def cast_if(x: Any, dtype: Any) -> Any:
    """``x`` cast to ``dtype`` when one is given and differs."""
    wanted = dtype_of(dtype)
    return x if wanted is None or wanted == x.dtype else F.cast(x, wanted)


def like_tensor(value: Any, x: Any) -> Any:
    """``value`` as a tensor of ``x``'s dtype when it is a Python scalar (MindSpore's numpy
    casts a scalar bound to the array's dtype), else as a tensor of its own."""
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return Tensor(np.asarray(value).astype(x.dtype.np))
    return to_tensor(value)


def axes_of(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, int, tuple, list) as sorted non-negative axes; None is all of them."""
    if axis is None:
        return tuple(range(ndim))
    items = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    out = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise GraphTypeError(f"axis must be an int or a tuple of ints, but got {axis!r}")
        if not -ndim <= a < max(ndim, 1):
            raise GraphValueError(f"axis {a} is out of bounds for an array of dimension {ndim}")
        out.append(int(a) % max(ndim, 1))
    if len(set(out)) != len(out):
        raise GraphValueError(f"repeated axis in {axis!r}")
    return tuple(sorted(out))


def axis_of(axis: Any, ndim: int) -> int:
    """One axis, non-negative."""
    if isinstance(axis, (list, tuple)):
        raise GraphTypeError(f"axis must be an int, but got {axis!r}")
    return axes_of(axis, ndim)[0]
