"""``msc.numpy``'s creation functions: constants (``zeros``, ``arange``, ``eye``) are built
at trace time from Python values; ``*_like``, ``full`` of a tensor and the triangles are
compositions of ``ops``."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from msc import ops
from msc.errors import GraphTypeError, GraphValueError
from msc.common.tensor import SymTensor, Tensor
from msc.ir import dtypes
from msc.numpy.utils import cast_if, constant, dtype_of, to_tensor


def _shape(shape: Any) -> tuple[int, ...]:
    """A shape argument (int, tuple or list of ints) as a tuple."""
    items = shape if isinstance(shape, (list, tuple)) else (shape,)
    try:
        dims = tuple(operator.index(d) for d in items)
    except TypeError:
        raise GraphTypeError("only int, tuple and list are allowed for shape, but got "
                             f"{type(shape).__name__}") from None
    if any(d < 0 for d in dims):
        raise GraphValueError(f"negative dimensions are not allowed: {shape!r}")
    return dims


def _filled(shape: Any, value: Any, dtype: Any) -> Tensor:
    dims = _shape(shape)
    return Tensor(np.full(dims, value), dtype_of(dtype) or dtypes.float32)


def zeros(shape: Any, dtype: Any = dtypes.float32) -> Any:
    return _filled(shape, 0, dtype)


def ones(shape: Any, dtype: Any = dtypes.float32) -> Any:
    return _filled(shape, 1, dtype)


def empty(shape: Any, dtype: Any = dtypes.float32) -> Any:
    """Zeros: an uninitialised array's values are unspecified."""
    return _filled(shape, 0, dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """A Python fill value picks the dtype as an array-like does (int32, float32, bool); a
    tensor fill value is broadcast to ``shape``."""
    dims = _shape(shape)
    if isinstance(fill_value, Tensor):
        return ops.broadcast_to(cast_if(fill_value, dtype), dims)
    values = np.asarray(fill_value)
    if values.dtype.kind not in "biuf":
        raise GraphTypeError(f"fill_value must be a number or an array, but got {fill_value!r}")
    return constant(np.broadcast_to(values, dims), dtype)


def _like(a: Any, dtype: Any, shape: Any, value: Any) -> Any:
    x = to_tensor(a)
    dims = x.shape if shape is None else _shape(shape)
    wanted = dtype_of(dtype) or x.dtype
    if isinstance(value, Tensor):
        return ops.broadcast_to(ops.cast(value, wanted), dims)
    return Tensor(np.full(dims, value).astype(wanted.np), wanted)


def zeros_like(a: Any, dtype: Any = None, shape: Any = None) -> Any:
    return _like(a, dtype, shape, 0)


def ones_like(a: Any, dtype: Any = None, shape: Any = None) -> Any:
    return _like(a, dtype, shape, 1)


def empty_like(prototype: Any, dtype: Any = None, shape: Any = None) -> Any:
    return _like(prototype, dtype, shape, 0)


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
    """The fill value is converted to the result's dtype (2.5 fills an int32 array with 2)."""
    return _like(a, dtype, shape, fill_value)


def _number(value: Any, name: str) -> int | float:
    if isinstance(value, Tensor) and value.ndim == 0 and not isinstance(value, SymTensor):
        value = value.asnumpy().item()
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise GraphTypeError(f"{name} must be an int or a float, but got {value!r}")
    return value


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    """int32 when every bound is an int, float32 otherwise (MindSpore's numpy defaults)."""
    if stop is None:
        start, stop = 0, start
    bounds = [_number(v, n) for v, n in ((start, "start"), (stop, "stop"),
                                         (1 if step is None else step, "step"))]
    if bounds[2] == 0:
        raise GraphValueError("step must not be 0")
    values = np.arange(*bounds)
    ints = all(isinstance(v, (int, np.integer)) for v in bounds)
    return Tensor(values, dtype_of(dtype) or (dtypes.int32 if ints else dtypes.float32))


def _count(num: Any) -> int:
    if isinstance(num, bool) or not isinstance(num, (int, np.integer)):
        raise GraphTypeError(f"num must be an int, but got {num!r}")
    if num < 0:
        raise GraphValueError(f"num must be non-negative, but got {num}")
    return int(num)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: Any = None, axis: int = 0) -> Any:
    """Evenly spaced values (float32 unless ``dtype``); tensor bounds give one sequence per
    element, laid out along ``axis``."""
    count = _count(num)
    div = (count - 1 if endpoint else count) or 1
    wanted = dtype_of(dtype) or dtypes.float32
    if not isinstance(start, Tensor) and not isinstance(stop, Tensor):
        first, last = _number(start, "start"), _number(stop, "stop")
        values = np.linspace(first, last, count, endpoint=endpoint)
        out = Tensor(values.astype(wanted.np), wanted)
        step = (last - first) / div
        return (out, constant(step, dtypes.float32)) if retstep else out
    first = ops.cast(to_tensor(start), dtypes.float32)
    last = ops.cast(to_tensor(stop), dtypes.float32)
    delta = (last - first) / float(div)
    first = first + ops.zeros_like(delta)
    ramp = Tensor(np.arange(count, dtype=np.float32).reshape((count,) + (1,) * first.ndim))
    out = ops.expand_dims(first, 0) + ramp * ops.expand_dims(delta, 0)
    out = ops.moveaxis(out, 0, axis % (first.ndim + 1)) if first.ndim else out
    out = cast_if(out, wanted)
    return (out, cast_if(delta, wanted)) if retstep else out


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             base: float = 10.0, dtype: Any = None, axis: int = 0) -> Any:
    """``base`` to the power of ``linspace``."""
    exponents = linspace(start, stop, num, endpoint, dtype=dtypes.float32, axis=axis)
    return cast_if(ops.pow(float(base), exponents), dtype)


def eye(N: Any, M: Any = None, k: int = 0, dtype: Any = dtypes.float32) -> Any:  # noqa: N803
    rows = _count(N)
    cols = rows if M is None else _count(M)
    return Tensor(np.eye(rows, cols, operator.index(k)), dtype_of(dtype) or dtypes.float32)


def identity(n: Any, dtype: Any = dtypes.float32) -> Any:
    return eye(n, dtype=dtype)


def tri(N: Any, M: Any = None, k: int = 0, dtype: Any = dtypes.float32) -> Any:  # noqa: N803
    """Ones at and below the ``k``-th diagonal."""
    rows = _count(N)
    cols = rows if M is None else _count(M)
    return Tensor(np.tri(rows, cols, operator.index(k)), dtype_of(dtype) or dtypes.float32)


def asarray(a: Any, dtype: Any = None) -> Any:
    """A Tensor stays as it is (cast to ``dtype`` if given); Python ints are int32 and
    floats float32."""
    return to_tensor(a, dtype)


def array(obj: Any, dtype: Any = None, copy: bool = True, ndmin: int = 0) -> Any:
    """Like ``asarray``; ``ndmin`` prepends ones to the shape."""
    out = to_tensor(obj, dtype)
    if out.ndim < ndmin:
        out = ops.reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
    return out


def asfarray(a: Any, dtype: Any = dtypes.float32) -> Any:
    """As a float array: a non-float ``dtype`` gives float32."""
    wanted = dtype_of(dtype) or dtypes.float32
    return to_tensor(a, wanted if wanted.is_float else dtypes.float32)


def _square(m: Any) -> Any:
    """A 1-d input as the square matrix of its rows, as numpy's triangles take it."""
    x = to_tensor(m)
    if x.ndim == 0:
        raise GraphValueError("input array must be at least 1-d")
    return ops.broadcast_to(x, (x.shape[0], x.shape[0])) if x.ndim == 1 else x


def tril(m: Any, k: int = 0) -> Any:
    return ops.tril(_square(m), operator.index(k))


def triu(m: Any, k: int = 0) -> Any:
    return ops.triu(_square(m), operator.index(k))


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    return ops.diagonal(to_tensor(a), offset, axis1, axis2)


def diag(v: Any, k: int = 0) -> Any:
    """The ``k``-th diagonal of a 2-d input; a 1-d input as that diagonal of a square array."""
    x = to_tensor(v)
    if x.ndim == 1:
        return ops.diagflat(x, operator.index(k))
    if x.ndim != 2:
        raise GraphValueError(f"input must be 1- or 2-d, but got {x.ndim}-d")
    return ops.diagonal(x, operator.index(k))


def diagflat(v: Any, k: int = 0) -> Any:
    return ops.diagflat(ops.ravel(to_tensor(v)), operator.index(k))


def meshgrid(*xi: Any, sparse: bool = False, indexing: str = "xy") -> tuple[Any, ...]:
    """Coordinate arrays; ``sparse`` keeps each one's own axis only."""
    if indexing not in ("xy", "ij"):
        raise GraphValueError(f"indexing must be 'xy' or 'ij', but got {indexing!r}")
    xs = [ops.ravel(to_tensor(x)) for x in xi]
    if not sparse:
        return ops.meshgrid(*xs, indexing=indexing)
    ndim = len(xs)
    out = []
    for i, x in enumerate(xs):
        at = (1 - i if i < 2 else i) if indexing == "xy" and ndim > 1 else i
        out.append(ops.reshape(x, tuple(-1 if d == at else 1 for d in range(ndim))))
    return tuple(out)


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Any:
    """The sum along a diagonal; integers sum to int64, as ``sum`` does."""
    from msc.numpy.math_ops import sum as sum_

    return sum_(ops.diagonal(to_tensor(a), offset, axis1, axis2), axis=-1, dtype=dtype)


__all__ = [
    'zeros', 'ones', 'empty', 'full', 'zeros_like', 'ones_like', 'empty_like', 'full_like',
    'arange', 'linspace', 'logspace', 'eye', 'identity', 'tri', 'asarray', 'array',
    'asfarray', 'tril', 'triu', 'diagonal', 'diag', 'diagflat', 'meshgrid', 'trace',
]
