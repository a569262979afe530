"""``msc.numpy``'s math: elementwise functions, reductions with MindSpore's numpy dtype
rules (integer sums are int64, an integer mean stays integer, ``argmin`` is int32), and
the contractions (``dot``, ``tensordot``, ``outer``, ``kron``)."""

from __future__ import annotations

import builtins
import math
from typing import Any, Callable

import numpy as np

from msc import ops
from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.common.tensor import Tensor
from msc.ir import dtypes
from msc.numpy.utils import axes_of, axis_of, cast_if, like_tensor, to_tensor

# --- elementwise ---------------------------------------------------------------------------


def _unary(name: str, fn: Callable[[Any], Any], result: Callable[[Any, Any], Any] | None = None
           ) -> Callable[..., Any]:
    """``name(x, dtype=None)``: ``fn`` on ``x`` as a tensor, the result cast to ``dtype``;
    ``result(out, x)`` adjusts MindSpore's result dtype first where it differs."""
    def unary(x: Any, dtype: Any = None) -> Any:
        x = to_tensor(x)
        out = fn(x)
        return cast_if(out if result is None else result(out, x), dtype)
    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = f"Elementwise ``{name}`` of an array-like, as ``mindspore.numpy`` has it."
    return unary


def _operands(x1: Any, x2: Any) -> tuple[Any, Any]:
    """A Python scalar next to a tensor stays a scalar (weakly typed); array-likes become
    tensors."""
    scalar = (bool, int, float, np.number, np.bool_)
    if isinstance(x1, scalar) and isinstance(x2, Tensor):
        return x1, x2
    if isinstance(x2, scalar) and isinstance(x1, Tensor):
        return x1, x2
    return to_tensor(x1), to_tensor(x2)


def _binary(name: str, fn: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    """``name(x1, x2, dtype=None)``: ``fn`` with numpy's broadcasting and msc's promotion."""
    def binary(x1: Any, x2: Any, dtype: Any = None) -> Any:
        return cast_if(fn(*_operands(x1, x2)), dtype)
    binary.__name__ = binary.__qualname__ = name
    binary.__doc__ = f"Elementwise ``{name}`` of two array-likes, as ``mindspore.numpy`` has it."
    return binary


def _float_of_int(out: Any, x: Any) -> Any:
    """MindSpore's numpy gives ``sign`` of an integer array as float32."""
    return out if x.dtype.is_float else ops.cast(out, dtypes.float32)


def _keep_int(out: Any, x: Any) -> Any:
    """MindSpore's numpy keeps an integer array's dtype for ``reciprocal`` (1/2 is 0)."""
    return out if x.dtype.is_float else ops.cast(out, x.dtype)


exp = _unary("exp", ops.exp)
exp2 = _unary("exp2", ops.exp2)
expm1 = _unary("expm1", ops.expm1)
log = _unary("log", ops.log)
log2 = _unary("log2", ops.log2)
log10 = _unary("log10", ops.log10)
log1p = _unary("log1p", ops.log1p)
sqrt = _unary("sqrt", ops.sqrt)
square = _unary("square", ops.square)
absolute = _unary("absolute", ops.abs)
abs = absolute  # noqa: A001 - numpy's name
fabs = _unary("fabs", lambda x: ops.abs(ops.cast(x, dtypes.float32)) if not x.dtype.is_float
              else ops.abs(x))
negative = _unary("negative", ops.neg)
positive = _unary("positive", lambda x: x)
sign = _unary("sign", ops.sign, _float_of_int)
reciprocal = _unary("reciprocal", ops.reciprocal, _keep_int)
sin = _unary("sin", ops.sin)
cos = _unary("cos", ops.cos)
tan = _unary("tan", ops.tan)
arcsin = _unary("arcsin", ops.asin)
arccos = _unary("arccos", ops.acos)
arctan = _unary("arctan", ops.atan)
sinh = _unary("sinh", ops.sinh)
cosh = _unary("cosh", ops.cosh)
tanh = _unary("tanh", ops.tanh)
arcsinh = _unary("arcsinh", ops.asinh)
arccosh = _unary("arccosh", ops.acosh)
arctanh = _unary("arctanh", ops.atanh)
floor = _unary("floor", ops.floor)
ceil = _unary("ceil", ops.ceil)
trunc = _unary("trunc", ops.trunc)
fix = trunc
deg2rad = _unary("deg2rad", ops.deg2rad)
radians = deg2rad
rad2deg = _unary("rad2deg", ops.rad2deg)
isnan = _unary("isnan", ops.isnan)
isinf = _unary("isinf", ops.isinf)
isfinite = _unary("isfinite", ops.isfinite)
signbit = _unary("signbit", ops.signbit)
logical_not = _unary("logical_not", ops.logical_not)
invert = _unary("invert", ops.invert)
bitwise_not = invert

add = _binary("add", ops.add)
subtract = _binary("subtract", ops.sub)
multiply = _binary("multiply", ops.mul)
divide = _binary("divide", ops.div)
true_divide = divide
floor_divide = _binary("floor_divide", ops.floor_divide)
power = _binary("power", ops.pow)
remainder = _binary("remainder", ops.remainder)
mod = remainder
fmod = _binary("fmod", ops.fmod)
arctan2 = _binary("arctan2", ops.atan2)
hypot = _binary("hypot", ops.hypot)
logaddexp = _binary("logaddexp", ops.logaddexp)
copysign = _binary("copysign", ops.copysign)
heaviside = _binary("heaviside", ops.heaviside)
equal = _binary("equal", ops.equal)
not_equal = _binary("not_equal", ops.not_equal)
greater = _binary("greater", ops.greater)
greater_equal = _binary("greater_equal", ops.greater_equal)
less = _binary("less", ops.less)
less_equal = _binary("less_equal", ops.less_equal)
logical_and = _binary("logical_and", ops.logical_and)
logical_or = _binary("logical_or", ops.logical_or)
logical_xor = _binary("logical_xor", ops.logical_xor)
bitwise_and = _binary("bitwise_and", ops.bitwise_and)
bitwise_or = _binary("bitwise_or", ops.bitwise_or)
bitwise_xor = _binary("bitwise_xor", ops.bitwise_xor)


def _against(x1: Any, x2: Any) -> tuple[Any, Any]:
    """A scalar bound is cast to the other operand's dtype (``maximum(int32, 2.5)`` is int32
    with 2), as MindSpore's numpy does; two arrays promote."""
    if isinstance(x1, Tensor) and not isinstance(x2, Tensor):
        return x1, like_tensor(x2, x1)
    if isinstance(x2, Tensor) and not isinstance(x1, Tensor):
        return like_tensor(x1, x2), x2
    return to_tensor(x1), to_tensor(x2)


def maximum(x1: Any, x2: Any, dtype: Any = None) -> Any:
    return cast_if(ops.maximum(*_against(x1, x2)), dtype)


def minimum(x1: Any, x2: Any, dtype: Any = None) -> Any:
    return cast_if(ops.minimum(*_against(x1, x2)), dtype)


def clip(a: Any, a_min: Any, a_max: Any, dtype: Any = None) -> Any:
    """``a`` limited to ``[a_min, a_max]``; either bound may be None, not both."""
    if a_min is None and a_max is None:
        raise GraphValueError("One of max or min must be given.")
    x = to_tensor(a)
    if a_min is not None:
        x = maximum(x, a_min)
    if a_max is not None:
        x = minimum(x, a_max)
    return cast_if(x, dtype)


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Any:
    return ops.isclose(to_tensor(a), to_tensor(b), rtol, atol, equal_nan)


# --- reductions ----------------------------------------------------------------------------


def _reduce_axes(x: Any, axis: Any) -> Any:
    """``axis`` for an ``ops`` reduction: None for all (an empty tuple too, as in MindSpore)."""
    if axis is None or axis == ():
        return None
    return axes_of(axis, x.ndim)


def sum(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None) -> Any:
    """Booleans and integers sum to int64; ``initial`` is added."""
    x = to_tensor(a)
    out = ops.sum(x, _reduce_axes(x, axis), keepdims)
    if not out.dtype.is_float and dtype is None:
        out = cast_if(out, dtypes.int64)
    if initial is not None:
        out = out + initial
    return cast_if(out, dtype)


def mean(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    """The mean of an integer array stays of its dtype, truncated (MindSpore's numpy)."""
    x = to_tensor(a)
    out = ops.mean(x if x.dtype.is_float else ops.cast(x, dtypes.float32),
                   _reduce_axes(x, axis), keepdims)
    return cast_if(out if x.dtype.is_float else ops.cast(out, x.dtype), dtype)


def _extreme(reduce: Callable[..., Any], pick: Callable[..., Any]) -> Callable[..., Any]:
    def extreme(a: Any, axis: Any = None, keepdims: bool = False, initial: Any = None,
                where: Any = True) -> Any:
        if where is not True:
            raise GraphValueError("where is supported only as True")
        x = to_tensor(a)
        out = reduce(x, _reduce_axes(x, axis), keepdims)
        return out if initial is None else pick(out, initial)
    return extreme


amax = _extreme(ops.amax, maximum)
amax.__name__ = amax.__qualname__ = "amax"
amax.__doc__ = "The largest element (along ``axis``); ``initial`` is a lower bound."
amin = _extreme(ops.amin, minimum)
amin.__name__ = amin.__qualname__ = "amin"
amin.__doc__ = "The smallest element (along ``axis``); ``initial`` is an upper bound."
max = amax  # noqa: A001 - numpy's name
min = amin  # noqa: A001 - numpy's name


def _flat_or(x: Any, axis: Any) -> tuple[Any, int]:
    """``x`` flattened with axis 0 when ``axis`` is None, else ``x`` and the axis."""
    if axis is None:
        return ops.ravel(x), 0
    return x, axis_of(axis, x.ndim)


def argmax(a: Any, axis: Any = None) -> Any:
    """int64 indices of the (first) largest elements."""
    x, at = _flat_or(to_tensor(a), axis)
    return cast_if(ops.argmax(x, at), dtypes.int64)


def argmin(a: Any, axis: Any = None) -> Any:
    """int32 indices of the (first) smallest elements (MindSpore's numpy differs from
    ``argmax`` here)."""
    x, at = _flat_or(to_tensor(a), axis)
    return cast_if(ops.argmin(x, at), dtypes.int32)


def _spread(x: Any, axis: Any, ddof: int, keepdims: bool) -> Any:
    """The variance. Of an integer array MindSpore's numpy centres on the truncated integer
    mean (``var([1, 2])`` is 0.5), and gives float32."""
    t = to_tensor(x)
    if t.dtype.is_float:
        return ops.var(t, _reduce_axes(t, axis), ddof, keepdims)
    axes = axes_of(axis, t.ndim) if axis != () else tuple(range(t.ndim))
    centre = ops.cast(mean(t, axes, keepdims=True), dtypes.float32)
    deviation = ops.cast(t, dtypes.float32) - centre
    count = math.prod(t.shape[i] for i in axes) - ddof
    return ops.sum(deviation * deviation, axes, keepdims) / float(count)


def var(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
    """The variance; integer arrays give float32."""
    return _spread(x, axis, ddof, keepdims)


def std(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
    """The standard deviation; integer arrays give float32."""
    return ops.sqrt(_spread(x, axis, ddof, keepdims))


def ptp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """The range (largest minus smallest)."""
    t = to_tensor(x)
    return amax(t, axis, keepdims) - amin(t, axis, keepdims)


def cumsum(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    """Running sums (of the flattened array without ``axis``); booleans and integers
    narrower than 32 bits sum as int32."""
    x, at = _flat_or(to_tensor(a), axis)
    if dtype is None and not x.dtype.is_float and x.dtype != dtypes.int64:
        dtype = dtypes.int32
    return ops.cumsum(cast_if(x, dtype), at)


def count_nonzero(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    t = to_tensor(x)
    return ops.count_nonzero(t, _reduce_axes(t, axis) or (), keepdims)


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """The ``n``-th differences along ``axis``."""
    x = to_tensor(a)
    extra = [None if v is None else to_tensor(v) for v in (prepend, append)]
    return ops.diff(x, n, axis, *extra)


# --- contractions --------------------------------------------------------------------------


def _contraction_axes(a: Any, b: Any, axes: Any) -> tuple[list[int], list[int]]:
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        if not 0 <= axes <= builtins.min(a.ndim, b.ndim):
            raise GraphValueError(f"axes must be in [0, {builtins.min(a.ndim, b.ndim)}], "
                                  f"but got {axes}")
        return list(range(a.ndim - axes, a.ndim)), list(range(axes))
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        raise GraphTypeError(f"axes must be an int or a pair of sequences, but got {axes!r}")
    pair = [list(ax) if isinstance(ax, (list, tuple)) else [ax] for ax in axes]
    if len(pair[0]) != len(pair[1]):
        raise GraphValueError(f"axes must pair up the same number of axes, but got {axes!r}")
    return [axis_of(i, a.ndim) for i in pair[0]], [axis_of(i, b.ndim) for i in pair[1]]


def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """Sums products over ``axes`` of ``a`` and ``b``: both are permuted and reshaped into
    matrices, multiplied, and the free dims restored."""
    x, y = to_tensor(a), to_tensor(b)
    over_x, over_y = _contraction_axes(x, y, axes)
    if [x.shape[i] for i in over_x] != [y.shape[i] for i in over_y]:
        raise ShapeError(f"shape-mismatch for sum: {x.shape} and {y.shape} over {axes!r}")
    free_x = [i for i in range(x.ndim) if i not in over_x]
    free_y = [i for i in range(y.ndim) if i not in over_y]
    inner = math.prod(x.shape[i] for i in over_x)
    left = ops.reshape(ops.transpose(x, tuple(free_x + over_x)),
                       (math.prod(x.shape[i] for i in free_x), inner))
    right = ops.reshape(ops.transpose(y, tuple(over_y + free_y)),
                        (inner, math.prod(y.shape[i] for i in free_y)))
    shape = tuple(x.shape[i] for i in free_x) + tuple(y.shape[i] for i in free_y)
    return ops.reshape(ops.matmul(left, right), shape)


def dot(a: Any, b: Any) -> Any:
    """numpy's ``dot``: scalars multiply, otherwise the last axis of ``a`` meets the last
    (1-d ``b``) or second-to-last axis of ``b``."""
    x, y = to_tensor(a), to_tensor(b)
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    if x.shape[-1] != y.shape[-1 if y.ndim == 1 else -2]:
        raise ShapeError(f"shapes {x.shape} and {y.shape} are not aligned")
    return tensordot(x, y, ([-1], [-1 if y.ndim == 1 else -2]))


def matmul(x1: Any, x2: Any, dtype: Any = None) -> Any:
    return cast_if(ops.matmul(to_tensor(x1), to_tensor(x2)), dtype)


def inner(a: Any, b: Any) -> Any:
    """Sums over the last axes of both."""
    x, y = to_tensor(a), to_tensor(b)
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    return tensordot(x, y, ([-1], [-1]))


def outer(a: Any, b: Any) -> Any:
    """Every product of the flattened inputs."""
    return ops.outer(ops.ravel(to_tensor(a)), ops.ravel(to_tensor(b)))


def kron(a: Any, b: Any) -> Any:
    return ops.kron(to_tensor(a), to_tensor(b))


__all__ = [
    'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sqrt', 'square', 'absolute',
    'abs', 'fabs', 'negative', 'positive', 'sign', 'reciprocal', 'sin', 'cos', 'tan',
    'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh',
    'floor', 'ceil', 'trunc', 'fix', 'deg2rad', 'radians', 'rad2deg', 'isnan', 'isinf',
    'isfinite', 'signbit', 'logical_not', 'invert', 'bitwise_not', 'add', 'subtract',
    'multiply', 'divide', 'true_divide', 'floor_divide', 'power', 'remainder', 'mod',
    'fmod', 'arctan2', 'hypot', 'logaddexp', 'copysign', 'heaviside', 'equal', 'not_equal',
    'greater', 'greater_equal', 'less', 'less_equal', 'logical_and', 'logical_or',
    'logical_xor', 'bitwise_and', 'bitwise_or', 'bitwise_xor', 'maximum', 'minimum', 'clip',
    'isclose', 'sum', 'mean', 'amax', 'amin', 'max', 'min', 'argmax', 'argmin', 'var',
    'std', 'ptp', 'cumsum', 'count_nonzero', 'diff', 'tensordot', 'dot', 'matmul', 'inner',
    'outer', 'kron',
]
