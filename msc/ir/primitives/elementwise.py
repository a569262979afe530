"""Elementwise primitives: unary math, binary arithmetic, comparisons, logic, select.

Every binary op broadcasts its operands and computes in their common dtype (weak
Python scalars included), so eager numpy results carry MindSpore's dtypes.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ir.primitives.base import (
    Primitive,
    broadcast_shapes,
    operand_dtype,
    operand_shape,
    register,
    want_tensor,
)
from msc.ir.types import ScalarType, TensorType, Type, tensor_of

_erf = np.frompyfunc(math.erf, 1, 1)


def _cast(values: tuple[Any, ...], dt: dtypes.DType) -> list[np.ndarray]:
    return [np.asarray(v, dtype=dt.np) for v in values]


def _value_types(values: tuple[Any, ...]) -> tuple[Type, ...]:
    from msc.ir.types import type_of_value

    return tuple(type_of_value(v) for v in values)


def _quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Division by zero and overflow give inf/nan silently, as on a device."""
    def run(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args)
    return run


# --- unary ----------------------------------------------------------------------------


def _unary(name: str, fn: Callable[[np.ndarray], Any], expr: str, *, to_float: bool = False,
           out_bool: bool = False, no_bool: bool = False, cost: float = 1.0) -> Primitive:
    """``to_float``: integer/bool inputs compute in float32 (exp, sqrt, ...);
    ``no_bool``: a bool input is a type error (negating a bool tensor)."""
    def infer(x: Type) -> Type:
        t = want_tensor(x)
        if no_bool and t.dtype == dtypes.bool_:
            raise GraphTypeError(f"the input must not be a bool Tensor, but got {t}")
        dt = dtypes.bool_ if out_bool else t.dtype
        if to_float and not t.dtype.is_float:
            dt = dtypes.float32
        return TensorType(dt, t.shape)

    def impl(x: Any) -> Any:
        t = infer(_value_types((x,))[0])
        src = dtypes.bool_ if out_bool else t.dtype
        return _quiet(fn)(np.asarray(x, dtype=src.np) if not out_bool else np.asarray(x))

    compute = "bool" if out_bool else "out"
    return register(Primitive(name, infer, impl, elementwise=True, cost=cost,
                              emit={"expr": expr, "compute": compute}))


def _gelu(x: np.ndarray, approximate: str = "tanh") -> np.ndarray:
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)
        return 0.5 * x * (1.0 + np.tanh(inner))
    erf = np.asarray(_erf(x / math.sqrt(2.0)), dtype=np.float64)  # a float for 0-d input
    return (0.5 * x * (1.0 + erf)).astype(x.dtype)


def _hswish(x: np.ndarray) -> np.ndarray:
    return x * np.clip(x + 3, 0, 6) / 6


neg = _unary("Neg", np.negative, "(-{0})", no_bool=True)
abs_ = _unary("Abs", np.abs, "np.abs({0})")
square = _unary("Square", np.square, "({0} * {0})")
sign = _unary("Sign", np.sign, "np.sign({0})")
floor = _unary("Floor", np.floor, "np.floor({0})")
ceil = _unary("Ceil", np.ceil, "np.ceil({0})")
relu = _unary("ReLU", lambda x: np.maximum(x, np.zeros((), x.dtype)), "np.maximum({0}, 0)")
exp = _unary("Exp", np.exp, "np.exp({0})", to_float=True, cost=4)
log = _unary("Log", np.log, "np.log({0})", to_float=True, cost=4)
sqrt = _unary("Sqrt", np.sqrt, "np.sqrt({0})", to_float=True, cost=2)
rsqrt = _unary("Rsqrt", lambda x: 1 / np.sqrt(x), "(1 / np.sqrt({0}))", to_float=True, cost=2)
reciprocal = _unary("Reciprocal", lambda x: 1 / x, "(1 / {0})", to_float=True)
sin = _unary("Sin", np.sin, "np.sin({0})", to_float=True, cost=4)
cos = _unary("Cos", np.cos, "np.cos({0})", to_float=True, cost=4)
tanh = _unary("Tanh", np.tanh, "np.tanh({0})", to_float=True, cost=4)
sigmoid = _unary("Sigmoid", lambda x: 1 / (1 + np.exp(-x)), "(1 / (1 + np.exp(-{0})))", to_float=True, cost=4)
hswish = _unary("HSwish", _hswish, "({0} * np.minimum(np.maximum({0} + 3, 0), 6) / 6)", to_float=True, cost=2)
logical_not = _unary("LogicalNot", lambda x: np.logical_not(x), "np.logical_not({0})", out_bool=True)


def _gelu_infer(x: Type, approximate: str = "tanh") -> Type:
    if approximate not in ("tanh", "none"):
        raise GraphValueError(f"approximate must be 'tanh' or 'none', but got {approximate!r}")
    t = want_tensor(x)
    return TensorType(t.dtype if t.dtype.is_float else dtypes.float32, t.shape)


def _gelu_impl(x: Any, approximate: str = "tanh") -> Any:
    t = _gelu_infer(_value_types((x,))[0], approximate)
    return _quiet(_gelu)(np.asarray(x, dtype=t.dtype.np), approximate)


gelu = register(Primitive("GeLU", _gelu_infer, _gelu_impl, elementwise=True, cost=6, emit={
    "expr": "_rt_gelu({0}, {approximate!r})", "compute": "out"}))


# --- binary ---------------------------------------------------------------------------


def _binary(name: str, fn: Callable[[np.ndarray, np.ndarray], Any], expr: str, *,
            result: str = "same", no_bool: bool = False, cost: float = 1.0) -> Primitive:
    """``result``: "same" (the operands' common dtype), "float" (ints give float32,
    true division), or "bool" (comparisons and logic). ``no_bool``: two bool operands
    are a type error (bool subtraction has no meaning)."""
    def infer(x: Type, y: Type) -> Type:
        if tensor_of(x) is None and tensor_of(y) is None:
            raise GraphTypeError(f"at least one input must be a Tensor, but got {x} and {y}")
        dt = operand_dtype((x, y))
        if no_bool and dt == dtypes.bool_:
            raise GraphTypeError("bool Tensors cannot be subtracted; use ops.logical_xor "
                                 "or cast to a number type first")
        shape = operand_shape((x, y))
        if result == "bool":
            dt = dtypes.bool_
        elif result == "float" and not dt.is_float:
            dt = dtypes.float32
        return TensorType(dt, shape)

    def impl(x: Any, y: Any) -> Any:
        types = _value_types((x, y))
        dt = operand_dtype(types)
        if result == "float" and not dt.is_float:
            dt = dtypes.float32
        if result == "bool" and name.startswith("Logical"):
            dt = dtypes.bool_
        return _quiet(fn)(*_cast((x, y), dt))

    compute = {"same": "out", "float": "out", "bool": "operands"}[result]
    if name.startswith("Logical"):
        compute = "bool"
    return register(Primitive(name, infer, impl, elementwise=True, cost=cost,
                              emit={"expr": expr, "compute": compute}))


add = _binary("Add", np.add, "({0} + {1})")
sub = _binary("Sub", np.subtract, "({0} - {1})", no_bool=True)
mul = _binary("Mul", np.multiply, "({0} * {1})")
div = _binary("Div", np.true_divide, "({0} / {1})", result="float", cost=2)
floor_div = _binary("FloorDiv", np.floor_divide, "np.floor_divide({0}, {1})", cost=2)
mod = _binary("FloorMod", np.mod, "np.mod({0}, {1})", cost=2)
def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """numpy refuses integer negative powers; a device truncates them (2 ** -1 == 0)."""
    if x.dtype.kind not in "iu" or not (y < 0).any():
        return np.power(x, y)
    out = np.power(x, np.abs(y))
    inv = np.where(np.abs(x) == 1, out, 0).astype(x.dtype)
    return np.where(y < 0, inv, out)


pow_ = _binary("Pow", _power, "_rt_pow({0}, {1})", cost=4)
maximum = _binary("Maximum", np.maximum, "np.maximum({0}, {1})")
minimum = _binary("Minimum", np.minimum, "np.minimum({0}, {1})")
equal = _binary("Equal", np.equal, "({0} == {1})", result="bool")
not_equal = _binary("NotEqual", np.not_equal, "({0} != {1})", result="bool")
less = _binary("Less", np.less, "({0} < {1})", result="bool")
less_equal = _binary("LessEqual", np.less_equal, "({0} <= {1})", result="bool")
greater = _binary("Greater", np.greater, "({0} > {1})", result="bool")
greater_equal = _binary("GreaterEqual", np.greater_equal, "({0} >= {1})", result="bool")
logical_and = _binary("LogicalAnd", np.logical_and, "np.logical_and({0}, {1})", result="bool")
logical_or = _binary("LogicalOr", np.logical_or, "np.logical_or({0}, {1})", result="bool")


# --- select, clip, cast ---------------------------------------------------------------


def _select_infer(cond: Type, x: Type, y: Type) -> Type:
    c = want_tensor(cond, "condition")
    if c.dtype != dtypes.bool_:
        raise GraphTypeError(f"the condition must be a bool Tensor, but got {c}")
    dt = operand_dtype((x, y))
    return TensorType(dt, broadcast_shapes(c.shape, operand_shape((x, y))))


def _select_impl(cond: Any, x: Any, y: Any) -> Any:
    dt = operand_dtype(_value_types((x, y)))
    return np.where(np.asarray(cond), *_cast((x, y), dt))


select = register(Primitive("Select", _select_infer, _select_impl, elementwise=True, emit={
    "expr": "np.where({0}, {1}, {2})", "scalar": "({1} if {0} else {2})", "compute": "out",
    "keep": (0,)}))


def _clip_infer(x: Type, lo: Type, hi: Type) -> Type:
    t = want_tensor(x)
    for bound in (lo, hi):
        if not isinstance(bound, ScalarType) and tensor_of(bound) is None:
            raise GraphTypeError(f"clip bounds must be numbers or Tensors, but got {bound}")
    return TensorType(t.dtype, operand_shape((x, lo, hi)))


def _clip_impl(x: Any, lo: Any, hi: Any) -> Any:
    dt = _value_types((x,))[0].dtype  # type: ignore[union-attr]
    x, lo, hi = _cast((x, lo, hi), dt)
    return np.minimum(np.maximum(x, lo), hi)


clip_by_value = register(Primitive("ClipByValue", _clip_infer, _clip_impl, elementwise=True, emit={
    "expr": "np.minimum(np.maximum({0}, {1}), {2})", "compute": "out"}))


def _cast_infer(x: Type, dtype: dtypes.DType) -> Type:
    if not isinstance(dtype, dtypes.DType):
        raise GraphTypeError(f"dtype must be an msc dtype, but got {dtype!r}")
    return TensorType(dtype, want_tensor(x).shape)


def _cast_impl(x: Any, dtype: dtypes.DType) -> Any:
    return np.asarray(x).astype(dtype.np)


cast = register(Primitive("Cast", _cast_infer, _cast_impl, elementwise=True,
                          emit={"expr": "{0}", "compute": "none"}))
