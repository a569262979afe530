"""The scalar and sequence ops of MindSpore's functional namespace (``F.scalar_add``,
``F.tuple_getitem``, ``F.make_tuple``, ``F.shape_mul``, ``F.tensor_range``, ...), which
MindSpore's own model code and tests call by name.

In a graph they run natively on what the frontend holds: Python numbers, tuples, lists
and dicts are compile-time values, so these fold to constants; a number a tensor ``if``
merged (a graph scalar) goes through the tensor operators and becomes IR.
"""

from __future__ import annotations

import builtins
import math
import operator
from functools import reduce
from typing import Any

from msc.common.tensor import SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function.array_func import arange
from msc.ops.function.arguments import _as_tensor, _checking, _dims

# --- numbers --------------------------------------------------------------------------------


def scalar_add(x: Any, y: Any) -> Any:
    return x + y


def scalar_sub(x: Any, y: Any) -> Any:
    return x - y


def scalar_mul(x: Any, y: Any) -> Any:
    return x * y


def scalar_div(x: Any, y: Any) -> Any:
    """True division: ``4 / 2`` is ``2.0``."""
    return x / y


def scalar_floordiv(x: Any, y: Any) -> Any:
    return x // y


def scalar_mod(x: Any, y: Any) -> Any:
    """Python's remainder (the divisor's sign): ``scalar_mod(7, -3) == -2``."""
    return x % y


def scalar_pow(x: Any, y: Any) -> Any:
    return x ** y


def scalar_uadd(x: Any) -> Any:
    return x


def scalar_usub(x: Any) -> Any:
    return -x


def scalar_log(x: Any) -> Any:
    """The natural log of a number (a float)."""
    return apply(Op.Log, x) if isinstance(x, SymTensor) else math.log(x)


def scalar_eq(x: Any, y: Any) -> Any:
    return x == y


def scalar_ne(x: Any, y: Any) -> Any:
    return x != y


def scalar_gt(x: Any, y: Any) -> Any:
    return x > y


def scalar_ge(x: Any, y: Any) -> Any:
    return x >= y


def scalar_lt(x: Any, y: Any) -> Any:
    return x < y


def scalar_le(x: Any, y: Any) -> Any:
    return x <= y


def scalar_max(x: Any, y: Any) -> Any:
    if isinstance(x, SymTensor) or isinstance(y, SymTensor):
        return apply(Op.Maximum, x, y)
    return max(x, y)


def scalar_min(x: Any, y: Any) -> Any:
    if isinstance(x, SymTensor) or isinstance(y, SymTensor):
        return apply(Op.Minimum, x, y)
    return min(x, y)


_SCALAR_TYPES = {dtypes.int64: int, dtypes.float64: float, dtypes.bool_: bool}


def scalar_cast(input_x: Any, input_y: Any) -> Any:
    """``input_x`` as a Python int, float or bool (``input_y``: int64, float64 or bool, the
    types MindSpore's ScalarCast takes)."""
    kind = _SCALAR_TYPES.get(dtypes.coerce(input_y))
    if kind is None:
        with _checking("ScalarCast"):
            raise GraphValueError(f"the supported type is in the list: [Int64, Float64, Bool], "
                                  f"but got {input_y}")
    return F.cast(input_x, input_y) if isinstance(input_x, SymTensor) else kind(input_x)


def scalar_to_array(input_x: Any) -> Any:
    """A number as a 0-d tensor of MindSpore's default dtype for it."""
    if isinstance(input_x, Tensor):
        return input_x
    if not isinstance(input_x, (bool, int, float)):
        with _checking("ScalarToArray"):
            raise GraphTypeError(f"the input must be a number, but got "
                                 f"{type(input_x).__name__}")
    return Tensor(input_x)


def hyper_add(x: Any, y: Any) -> Any:
    """``x + y`` through nested tuples and lists, element by element."""
    if isinstance(x, (tuple, list)):
        return type(x)(hyper_add(a, b) for a, b in zip(x, y))
    return x + y


def _augmented(op: Any, name: str) -> Any:
    def form(x: Any, y: Any) -> Any:
        return op(x, y)

    form.__name__ = form.__qualname__ = name
    form.__doc__ = f"``x {name}= y`` as a function (what augmented assignment calls)."
    return form


augassign_add = _augmented(operator.add, "augassign_add")
augassign_sub = _augmented(operator.sub, "augassign_sub")
augassign_mul = _augmented(operator.mul, "augassign_mul")
augassign_div = _augmented(operator.truediv, "augassign_div")
augassign_floordiv = _augmented(operator.floordiv, "augassign_floordiv")
augassign_mod = _augmented(operator.mod, "augassign_mod")

# --- bools ----------------------------------------------------------------------------------


def _truth(x: Any) -> Any:
    return x if isinstance(x, Tensor) else bool(x)


def bool_and(x: Any, y: Any) -> Any:
    a, b = _truth(x), _truth(y)
    return apply(Op.LogicalAnd, a, b) if isinstance(a, Tensor) or isinstance(b, Tensor) \
        else a and b


def bool_or(x: Any, y: Any) -> Any:
    a, b = _truth(x), _truth(y)
    return apply(Op.LogicalOr, a, b) if isinstance(a, Tensor) or isinstance(b, Tensor) \
        else a or b


def bool_eq(x: Any, y: Any) -> Any:
    return _truth(x) == _truth(y)


def bool_not(x: Any) -> Any:
    """``not x`` as a bool tensor, as MindSpore's BoolNot gives."""
    return apply(Op.LogicalNot, F.cast(x, dtypes.bool_) if isinstance(x, Tensor) else
                 Tensor(bool(x)))


def is_(x: Any, y: Any) -> bool:
    return x is y


def is_not(x: Any, y: Any) -> bool:
    return x is not y


# --- tuples, lists, dicts, slices and strings -----------------------------------------------


def make_tuple(*args: Any) -> tuple[Any, ...]:
    return tuple(args)


def make_list(*args: Any) -> list[Any]:
    return list(args)


def make_slice(start: Any, stop: Any, step: Any = None) -> slice:
    return slice(start, stop, step)


def make_dict(keys: Any, values: Any) -> dict[Any, Any]:
    return dict(zip(keys, values))


def tuple_len(x: Any) -> int:
    return len(x)


list_len = tuple_len


def tuple_getitem(x: Any, index: Any) -> Any:
    return x[index]


list_getitem = dict_getitem = tuple_getitem


def tuple_setitem(x: Any, index: int, value: Any) -> tuple[Any, ...]:
    """A new tuple with ``value`` at ``index``."""
    items = list(x)
    items[index] = value
    return tuple(items)


def list_setitem(x: Any, index: int, value: Any) -> list[Any]:
    """A new list with ``value`` at ``index``."""
    items = list(x)
    items[index] = value
    return items


def dict_setitem(x: Any, key: Any, value: Any) -> dict[Any, Any]:
    """A new dict with ``key`` set to ``value``."""
    return {**x, key: value}


def in_dict(key: Any, x: Any) -> bool:
    return key in x


def not_in_dict(key: Any, x: Any) -> bool:
    return key not in x


def tuple_equal(x: Any, y: Any) -> bool:
    return tuple(x) == tuple(y)


def list_equal(x: Any, y: Any) -> bool:
    return list(x) == list(y)


def string_eq(x: str, y: str) -> bool:
    return x == y


def string_concat(x: str, y: str) -> str:
    return x + y


def tuple_div(x: Any, y: Any) -> tuple[int, ...]:
    """Element by element integer division of two shapes, each exact."""
    if len(x) != len(y):
        raise GraphValueError(f"tuple_div takes tuples of one length, but got {x} and {y}")
    if any(b == 0 or a % b for a, b in zip(x, y)):
        raise GraphValueError(f"tuple_div: {x} is not divisible by {y} element by element")
    return tuple(a // b for a, b in zip(x, y))


def tuple_reversed(x: Any) -> tuple[Any, ...]:
    return tuple(reversed(tuple(x)))


def tail(x: Any) -> tuple[Any, ...]:
    """All but the first element."""
    return tuple(x)[1:]


def zip_operation(*sequences: Any) -> tuple[tuple[Any, ...], ...]:
    return tuple(zip(*sequences))


# --- shapes -------------------------------------------------------------------------------


def shape_mul(input_data: Any) -> int:
    """The product of a shape's dims (1 for ``()``)."""
    return reduce(operator.mul, _dims(input_data, "shape_mul"), 1)


def shape_(x: Any) -> tuple[int, ...]:
    return _as_tensor(x, "Shape").shape


def dyn_shape(input_x: Any) -> Any:
    """The shape as an int64 tensor (a constant: msc's shapes are static)."""
    return Tensor(list(_as_tensor(input_x, "TensorShape").shape), dtypes.int64)


def reduced_shape(shape: Any, axis: Any) -> tuple[int, ...]:
    """``shape`` with the ``axis`` dims (all for ``()``) set to 1."""
    dims = _dims(shape, "reduced_shape")
    axes = (axis,) if isinstance(axis, int) else tuple(axis) or tuple(builtins.range(len(dims)))
    axes = {a % len(dims) for a in axes}
    return tuple(1 if i in axes else d for i, d in enumerate(dims))


def isconstant(x: Any) -> bool:
    """Whether ``x`` is known when the graph is built (not a tensor computed by it)."""
    return not isinstance(x, SymTensor)


def _constant_number(x: Any, name: str, op: str) -> Any:
    if isinstance(x, SymTensor):
        with _checking(op):
            raise GraphValueError(f"'{name}' must be known when the graph is built (msc's "
                                  f"shapes are static), but it is computed by the graph")
    return x.asnumpy().item() if isinstance(x, Tensor) else x


def tensor_range(start: Any, end: Any, step: Any) -> Any:
    """``start, start + step, ...`` below ``end`` as a tensor (int64 for integers)."""
    values = [_constant_number(v, n, "Range") for v, n in ((start, "start"), (end, "end"),
                                                           (step, "step"))]
    dtype = start.dtype if isinstance(start, Tensor) else None
    return arange(*values, dtype=dtype)


def range(start: Any, end: Any, step: Any, maxlen: int = 1000000) -> Any:  # noqa: A001
    """``tensor_range``, refusing more than ``maxlen`` elements as MindSpore does."""
    out = tensor_range(start, end, step)
    if out.size > maxlen:
        with _checking("Range"):
            raise GraphValueError(f"the number of elements {out.size} exceeds maxlen {maxlen}")
    return out


# --- tensors under MindSpore's internal names --------------------------------------------


def tensor_muls(input: Any, other: Any) -> Any:  # noqa: A002
    return apply(Op.Mul, input, other)


def pows(input: Any, exponent: Any) -> Any:  # noqa: A002
    return apply(Op.Pow, input, exponent)


def fills(x: Any, value: Any) -> Any:
    """A tensor of ``x``'s shape and dtype filled with ``value``."""
    x = _as_tensor(x, "fills")
    return F.fill(x.dtype, x.shape, value)


def expand(input_x: Any, size: Any) -> Any:
    """``input_x`` broadcast to ``size`` (a tuple or an int tensor known when the graph is
    built)."""
    if isinstance(size, Tensor):
        _constant_number(size.reshape(-1)[0] if not isinstance(size, SymTensor) else size,
                         "size", "expand")
        size = tuple(int(v) for v in size.asnumpy().reshape(-1))
    return F.broadcast_to(input_x, tuple(size))


__all__ = [
    "scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod",
    "scalar_pow", "scalar_uadd", "scalar_usub", "scalar_log", "scalar_eq", "scalar_ne",
    "scalar_gt", "scalar_ge", "scalar_lt", "scalar_le", "scalar_max", "scalar_min",
    "scalar_cast", "scalar_to_array", "hyper_add", "augassign_add", "augassign_sub",
    "augassign_mul", "augassign_div", "augassign_floordiv", "augassign_mod", "bool_and",
    "bool_or", "bool_eq", "bool_not", "is_", "is_not", "make_tuple", "make_list", "make_slice",
    "make_dict", "tuple_len", "list_len", "tuple_getitem", "list_getitem", "dict_getitem",
    "tuple_setitem", "list_setitem", "dict_setitem", "in_dict", "not_in_dict", "tuple_equal",
    "list_equal", "string_eq", "string_concat", "tuple_div", "tuple_reversed", "tail",
    "zip_operation", "shape_mul", "shape_", "dyn_shape", "reduced_shape", "isconstant",
    "tensor_range", "range", "tensor_muls", "pows", "fills", "expand",
]
