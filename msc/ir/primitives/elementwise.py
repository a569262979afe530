"""Elementwise primitives: unary math, binary arithmetic, comparisons, logic, select.

Every binary op broadcasts its operands and computes in their common dtype (weak
Python scalars included), so eager numpy results carry MindSpore's dtypes.
"""

from __future__ import annotations

import math
from enum import Enum
from typing import Any, Callable

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ir.kernel import X0, X1, X2, Expr, Fn, Select, attr, call, eq, ge, gt, helper, le, lt, ne
from msc.ir.primitives import cuda_lowering
from msc.ir.primitives.base import (
    Attr,
    Compute,
    Device,
    Elementwise,
    Primitive,
    Public,
    broadcast_shapes,
    on_all_targets,
    operand_dtype,
    operand_shape,
    register,
    want_tensor,
)
from msc.ir.primitives.rules import (
    batch_elementwise,
    cotangent,
    is_float_tensor,
    vjp_add,
    vjp_cast,
    vjp_div,
    vjp_mul,
    vjp_remainder,
    vjp_select,
    vjp_sub,
)
from msc.ir.types import ScalarType, TensorType, Type, tensor_of, type_of_value
from msc.runtime.numpy_rt import _rt_erf, _rt_gelu, _rt_pow

_TWO_BY_SQRT_PI = 1.1283791670955126  # d erf(x) / dx = 2 / sqrt(pi) * exp(-x * x)
_SQRT_2_BY_PI = 0.7978845608028654  # GeLU's tanh form: tanh(sqrt(2/pi) * (x + a*x^3))
_GELU_CUBIC = 0.044715  # its a
_INV_SQRT_2 = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327  # the standard normal density at 0


def _cast(values: tuple[Any, ...], dt: dtypes.DType) -> list[np.ndarray]:
    return [np.asarray(v, dtype=dt.np) for v in values]


def _quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Division by zero and overflow give inf/nan silently, as on a device."""
    def run(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args)
    return run


# --- unary ----------------------------------------------------------------------------


class Result(Enum):
    """The dtype an elementwise op's result has, from its operands' common dtype."""

    SAME = "same"  # the common dtype
    FLOAT = "float"  # bool and integer inputs give float32 (exp, sqrt, true division)
    BOOL = "bool"  # comparisons
    LOGIC = "logic"  # bool, and the operands are read as bools


def _result_dtype(result: Result, dt: dtypes.DType) -> dtypes.DType:
    if result in (Result.BOOL, Result.LOGIC):
        return dtypes.bool_
    if result is Result.FLOAT and not dt.is_float:
        return dtypes.float32
    return dt


_COMPUTE = {Result.SAME: Compute.OUT, Result.FLOAT: Compute.OUT,
            Result.BOOL: Compute.OPERANDS, Result.LOGIC: Compute.BOOL}


def _unary(name: str, fn: Callable[[np.ndarray], Any], expr: Expr, *,
           result: Result = Result.SAME, no_bool: bool = False, cost: float = 1.0,
           scalar: Expr | None = None, vjp: Callable[..., Any] | None = None,
           batch: Callable[..., Any] = batch_elementwise, functions: tuple[str, ...] = (),
           methods: tuple[str, ...] = ()) -> Primitive:
    """A one-input elementwise op: ``ops.<functions>(input)``, ``ops.<name>()(input)`` and
    ``Tensor.<methods>()``. ``no_bool``: a bool input is a type error (negating a bool
    tensor); ``scalar``: the expression inside fused loops, where it differs from ``expr``.
    It batches by broadcasting unless ``batch`` says otherwise."""
    def infer(input: Type) -> Type:
        t = want_tensor(input)
        if no_bool and t.dtype == dtypes.bool_:
            raise GraphTypeError(f"the input must not be a bool Tensor, but got {t}")
        return TensorType(_result_dtype(result, t.dtype), t.shape)

    def impl(input: Any) -> Any:
        t = infer(type_of_value(input))
        src = t.dtype if result is not Result.LOGIC else None
        return _quiet(fn)(np.asarray(input, dtype=src and src.np))

    lowering = Elementwise(expr, scalar=scalar, compute=_COMPUTE[result])
    return register(Primitive(
        name, infer, impl, on_all_targets(lowering), elementwise=True, cost=cost, vjp=vjp,
        batch=batch, public=Public(functions, (name,), methods)))


def _hswish(x: np.ndarray) -> np.ndarray:
    return x * np.clip(x + 3, 0, 6) / 6


def _vjp_hswish(b: Any, g: Any, x: Any, out: Any) -> tuple[Any]:
    """0 for x <= -3, 1 for x >= 3, (2x + 3) / 6 between (MindSpore's HSwishGrad picks
    the outer pieces at the two kinks)."""
    inner = b.add(b.div(x, 3.0), 0.5)
    slope = b.select(b.greater(x, -3.0), b.select(b.less(x, 3.0), inner, 1.0), 0.0)
    return (b.mul(g, slope),)


neg = _unary("Neg", np.negative, -X0, no_bool=True, functions=("neg",),
             vjp=lambda b, g, x, out: (b.neg(g),))
abs_ = _unary("Abs", np.abs, call(Fn.ABS, X0), functions=("abs",), methods=("abs",),
              vjp=lambda b, g, x, out: (b.mul(g, b.sign(x)),))  # 0 at 0
square = _unary("Square", np.square, X0 * X0, functions=("square",),
                vjp=lambda b, g, x, out: (b.mul(g, b.mul(x, 2.0)),))
sign = _unary("Sign", np.sign, call(Fn.SIGN, X0), functions=("sign",))
floor = _unary("Floor", np.floor, call(Fn.FLOOR, X0), functions=("floor",))
ceil = _unary("Ceil", np.ceil, call(Fn.CEIL, X0), functions=("ceil",))
relu = _unary("ReLU", lambda x: np.maximum(x, np.zeros((), x.dtype)), call(Fn.MAXIMUM, X0, 0),
              functions=("relu",),  # 0 at 0
              vjp=lambda b, g, x, out: (b.select(b.greater(x, 0), g, 0.0),))
exp = _unary("Exp", np.exp, call(Fn.EXP, X0), result=Result.FLOAT, cost=4, functions=("exp",),
             methods=("exp",), vjp=lambda b, g, x, out: (b.mul(g, out),))


def _plus_zero(b: Any, x: Any) -> Any:
    """``x`` with -0.0 made +0.0: the logarithms' gradient at 0 is +inf in MindSpore 2.10
    whichever the zero's sign (the derivative's limit from the right; there is none at 0)."""
    return b.select(b.equal(x, 0.0), 0.0, x)


log = _unary("Log", np.log, call(Fn.LOG, X0), result=Result.FLOAT, cost=4, functions=("log",),
             methods=("log",), vjp=lambda b, g, x, out: (b.div(g, _plus_zero(b, x)),))
log1p = _unary("Log1p", np.log1p, call(Fn.LOG1P, X0), result=Result.FLOAT, cost=4,
               functions=("log1p",), methods=("log1p",),
               vjp=lambda b, g, x, out: (b.div(g, b.add(x, 1.0)),))
erf = _unary("Erf", lambda x: np.asarray(_rt_erf(x), np.float64), helper("_rt_erf", X0),
             scalar=call(Fn.MATH_ERF, X0), result=Result.FLOAT, cost=8, functions=("erf",),
             methods=("erf",), vjp=lambda b, g, x, out: (
                 b.mul(g, b.mul(b.exp(b.neg(b.square(x))), _TWO_BY_SQRT_PI)),))
sqrt = _unary("Sqrt", np.sqrt, call(Fn.SQRT, X0), result=Result.FLOAT, cost=2,
              functions=("sqrt",), methods=("sqrt",),
              vjp=lambda b, g, x, out: (b.div(g, b.mul(out, 2.0)),))
rsqrt = _unary("Rsqrt", lambda x: 1 / np.sqrt(x), 1 / call(Fn.SQRT, X0), result=Result.FLOAT,
               cost=2, functions=("rsqrt",),
               vjp=lambda b, g, x, out: (b.mul(g, b.mul(b.mul(out, b.square(out)), -0.5)),))
reciprocal = _unary("Reciprocal", lambda x: 1 / x, 1 / X0, result=Result.FLOAT,
                    functions=("reciprocal",),
                    vjp=lambda b, g, x, out: (b.neg(b.mul(g, b.square(out))),))
sin = _unary("Sin", np.sin, call(Fn.SIN, X0), result=Result.FLOAT, cost=4, functions=("sin",),
             vjp=lambda b, g, x, out: (b.mul(g, b.cos(x)),))
cos = _unary("Cos", np.cos, call(Fn.COS, X0), result=Result.FLOAT, cost=4, functions=("cos",),
             vjp=lambda b, g, x, out: (b.neg(b.mul(g, b.sin(x))),))
tanh = _unary("Tanh", np.tanh, call(Fn.TANH, X0), result=Result.FLOAT, cost=4,
              functions=("tanh",), methods=("tanh",),
              vjp=lambda b, g, x, out: (b.mul(g, b.sub(1.0, b.square(out))),))
sigmoid = _unary("Sigmoid", lambda x: 1 / (1 + np.exp(-x)), 1 / (1 + call(Fn.EXP, -X0)),
                 result=Result.FLOAT, cost=4, functions=("sigmoid",), methods=("sigmoid",),
                 vjp=lambda b, g, x, out: (b.mul(g, b.mul(out, b.sub(1.0, out))),))
hswish = _unary("HSwish", _hswish, X0 * call(Fn.MINIMUM, call(Fn.MAXIMUM, X0 + 3, 0), 6) / 6,
                result=Result.FLOAT, cost=2, functions=("hardswish", "hswish"), vjp=_vjp_hswish)
logical_not = _unary("LogicalNot", np.logical_not, call(Fn.LOGICAL_NOT, X0), result=Result.LOGIC,
                     functions=("logical_not",))


def _gelu_infer(x: Type, *, approximate: str) -> Type:
    if approximate not in ("tanh", "none"):
        raise GraphValueError(f"approximate must be 'tanh' or 'none', but got {approximate!r}")
    t = want_tensor(x)
    return TensorType(t.dtype if t.dtype.is_float else dtypes.float32, t.shape)


def _gelu_impl(x: Any, *, approximate: str) -> Any:
    t = _gelu_infer(type_of_value(x), approximate=approximate)
    return _quiet(_rt_gelu)(np.asarray(x, dtype=t.dtype.np), approximate)


def _vjp_gelu(b: Any, g: Any, x: Any, *, out: Any, approximate: str) -> tuple[Any]:
    """x * Phi(x) gives Phi(x) + x * phi(x); the tanh form differentiates its own formula
    0.5 * x * (1 + tanh(u)), u = c * (x + a * x^3)."""
    if approximate == "tanh":
        x2 = b.square(x)
        t = b.tanh(b.mul(b.mul(x, b.add(b.mul(x2, _GELU_CUBIC), 1.0)), _SQRT_2_BY_PI))
        du = b.mul(b.add(b.mul(x2, 3 * _GELU_CUBIC), 1.0), _SQRT_2_BY_PI)
        slope = b.mul(b.add(b.add(t, 1.0), b.mul(b.mul(x, b.sub(1.0, b.square(t))), du)), 0.5)
    else:
        cdf = b.mul(b.add(b.erf(b.mul(x, _INV_SQRT_2)), 1.0), 0.5)
        pdf = b.mul(b.exp(b.mul(b.square(x), -0.5)), _INV_SQRT_2PI)
        slope = b.add(cdf, b.mul(x, pdf))
    return (b.mul(g, slope),)


gelu = register(Primitive(
    "GeLU", _gelu_infer, _gelu_impl,
    {**on_all_targets(Elementwise(helper("_rt_gelu", X0, attr("approximate")))),
     "cuda": cuda_lowering.GELU},
    attrs=(Attr("approximate", "tanh", (str,)),), elementwise=True, cost=6, vjp=_vjp_gelu,
    batch=batch_elementwise))


# --- binary ---------------------------------------------------------------------------


def _binary(name: str, fn: Callable[[np.ndarray, np.ndarray], Any], expr: Expr, *,
            result: Result = Result.SAME, no_bool: bool = False, cost: float = 1.0,
            vjp: Callable[..., Any] | None = None, batch: Callable[..., Any] = batch_elementwise,
            functions: tuple[str, ...] = (), classes: tuple[str, ...] = (),
            args: tuple[str, ...] | None = None, scalar: Expr | None = None,
            device: Device | None = None) -> Primitive:
    """A two-input elementwise op over broadcast operands (one may be a Python number):
    ``ops.<functions>(input, other)`` (or ``args``) and ``ops.<name>()(input, other)``
    (and ``classes``). ``no_bool``: two bool operands are a type error (bool subtraction
    has no meaning). It batches by broadcasting unless ``batch`` says otherwise.
    ``device``: the cuda target's form where the numba target's calls a helper."""
    def infer(input: Type, other: Type) -> Type:
        if tensor_of(input) is None and tensor_of(other) is None:
            raise GraphTypeError(f"at least one input must be a Tensor, but got {input} and "
                                 f"{other}")
        dt = operand_dtype((input, other))
        if no_bool and dt == dtypes.bool_:
            raise GraphTypeError("bool Tensors cannot be subtracted; use ops.logical_xor "
                                 "or cast to a number type first")
        shape = operand_shape((input, other))
        return TensorType(_result_dtype(result, dt), shape)

    def impl(input: Any, other: Any) -> Any:
        dt = operand_dtype((type_of_value(input), type_of_value(other)))
        if result is not Result.BOOL:
            dt = _result_dtype(result, dt)
        return _quiet(fn)(*_cast((input, other), dt))

    lowering = on_all_targets(Elementwise(expr, scalar, _COMPUTE[result]))
    return register(Primitive(
        name, infer, impl, lowering if device is None else {**lowering, "cuda": device},
        elementwise=True, cost=cost, vjp=vjp, batch=batch,
        public=Public(functions, (name,) + classes, (), args)))


add = _binary("Add", np.add, X0 + X1, functions=("add",), vjp=vjp_add)
sub = _binary("Sub", np.subtract, X0 - X1, no_bool=True, functions=("sub",), vjp=vjp_sub)
mul = _binary("Mul", np.multiply, X0 * X1, functions=("mul",), vjp=vjp_mul)
div = _binary("Div", np.true_divide, X0 / X1, result=Result.FLOAT, cost=2,
              vjp=vjp_div)  # ops.div takes a rounding mode; RealDiv: operations/math_ops.py
floor_div = _binary("FloorDiv", np.floor_divide, call(Fn.FLOOR_DIVIDE, X0, X1), cost=2,
                    functions=("floor_div", "floor_divide"), args=("x", "y"))
mod = _binary("FloorMod", np.mod, call(Fn.MOD, X0, X1), cost=2, vjp=vjp_remainder,
              functions=("floor_mod", "mod"), args=("x", "y"))  # remainder: functional.py
#: C's remainder: the sign of the dividend (``ops.Mod``, ``ops.fmod``), where ``%`` floors.
fmod = _binary("Mod", np.fmod, call(Fn.FMOD, X0, X1), scalar=helper("_rt_fmod", X0, X1), cost=2,
               vjp=vjp_remainder, functions=("fmod",), args=("input", "other"),
               device=cuda_lowering.FMOD)


def _vjp_pow(b: Any, g: Any, x: Any, y: Any, out: Any) -> tuple[Any, ...]:
    """d(x^y) = y * x^(y-1) dx + x^y * log(x) dy; log(x) counts as 0 where x is 0 (as in
    JAX), so 0^y with y > 0 gives y no gradient rather than nan."""
    dx = dy = None
    if is_float_tensor(x):
        y_less = y.value - 1 if tensor_of(y.type) is None else b.sub(y, 1)
        dx = cotangent(b, b.mul(g, b.mul(b.pow(x, y_less), y)), x)
    if is_float_tensor(y):
        if tensor_of(x.type) is None:
            log_x = math.log(x.value) if x.value > 0 else 0.0 if x.value == 0 else math.nan
        else:
            log_x = b.log(b.select(b.equal(x, 0), 1.0, x))
        dy = cotangent(b, b.mul(g, b.mul(out, log_x)), y)
    return dx, dy


def _vjp_extremum(first: Callable[..., Any]) -> Callable[..., tuple[Any, ...]]:
    """Maximum (``first`` is greater) and Minimum (less): the gradient goes to the operand
    that was picked; where the two are equal (no derivative there) each gets half, as
    MindSpore 2.10's MaximumGrad/MinimumGrad give it, so logaddexp's gradient at equal
    operands is its derivative, 1/2 each."""
    def vjp(b: Any, g: Any, x: Any, y: Any, out: Any) -> tuple[Any, ...]:
        half = b.select(b.equal(x, y), b.mul(g, 0.5), 0.0)
        return (cotangent(b, b.select(first(b)(x, y), g, half), x),
                cotangent(b, b.select(first(b)(y, x), g, half), y))
    return vjp


pow_ = _binary("Pow", _rt_pow, helper("_rt_pow", X0, X1), cost=4, functions=("pow",),
               args=("input", "exponent"), vjp=_vjp_pow, device=cuda_lowering.POW)
maximum = _binary("Maximum", np.maximum, call(Fn.MAXIMUM, X0, X1), functions=("maximum",),
                  vjp=_vjp_extremum(lambda b: b.greater))
minimum = _binary("Minimum", np.minimum, call(Fn.MINIMUM, X0, X1), functions=("minimum",),
                  vjp=_vjp_extremum(lambda b: b.less))
equal = _binary("Equal", np.equal, eq(X0, X1), result=Result.BOOL,
                functions=("equal", "eq"))
not_equal = _binary("NotEqual", np.not_equal, ne(X0, X1), result=Result.BOOL,
                    functions=("not_equal", "ne"))
less = _binary("Less", np.less, lt(X0, X1), result=Result.BOOL, functions=("less", "lt"))
less_equal = _binary("LessEqual", np.less_equal, le(X0, X1), result=Result.BOOL,
                     functions=("less_equal", "le"))
greater = _binary("Greater", np.greater, gt(X0, X1), result=Result.BOOL,
                  functions=("greater", "gt"))
greater_equal = _binary("GreaterEqual", np.greater_equal, ge(X0, X1), result=Result.BOOL,
                        functions=("greater_equal", "ge"))
logical_and = _binary("LogicalAnd", np.logical_and, call(Fn.LOGICAL_AND, X0, X1),
                      result=Result.LOGIC, functions=("logical_and",))
logical_or = _binary("LogicalOr", np.logical_or, call(Fn.LOGICAL_OR, X0, X1),
                     result=Result.LOGIC, functions=("logical_or",))


# --- select, clip, cast ---------------------------------------------------------------


def _select_infer(cond: Type, x: Type, y: Type) -> Type:
    c = want_tensor(cond, "condition")
    if c.dtype != dtypes.bool_:
        raise GraphTypeError(f"the condition must be a bool Tensor, but got {c}")
    dt = operand_dtype((x, y))
    return TensorType(dt, broadcast_shapes(c.shape, operand_shape((x, y))))


def _select_impl(cond: Any, x: Any, y: Any) -> Any:
    dt = operand_dtype((type_of_value(x), type_of_value(y)))
    return np.where(np.asarray(cond), *_cast((x, y), dt))


select = register(Primitive(
    "Select", _select_infer, _select_impl,
    on_all_targets(Elementwise(Select(X0, X1, X2), keep=(0,))),
    elementwise=True, vjp=vjp_select, batch=batch_elementwise, public=Public(classes=("Select",))))


def _clip_infer(x: Type, lo: Type, hi: Type) -> Type:
    t = want_tensor(x)
    for bound in (lo, hi):
        if not isinstance(bound, ScalarType) and tensor_of(bound) is None:
            raise GraphTypeError(f"clip bounds must be numbers or Tensors, but got {bound}")
    return TensorType(t.dtype, operand_shape((x, lo, hi)))


def _clip_impl(x: Any, lo: Any, hi: Any) -> Any:
    dt = type_of_value(x).dtype  # type: ignore[union-attr]
    x, lo, hi = _cast((x, lo, hi), dt)
    return np.minimum(np.maximum(x, lo), hi)


def _vjp_clip(b: Any, g: Any, x: Any, lo: Any, hi: Any, out: Any) -> tuple[Any, ...]:
    """The Maximum and Minimum rules through ``min(max(x, lo), hi)``: ``x`` gets the
    gradient where lo <= x <= hi, ``lo`` where x < lo <= hi, ``hi`` where max(x, lo) > hi
    (so when lo > hi, ``hi`` gets it all, as the result is ``hi``)."""
    dt = tensor_of(x.type).dtype  # the bounds compute in x's dtype, as ``impl`` has it
    low, high = (b.cast(v, dtype=dt) if tensor_of(v.type) is not None and
                 tensor_of(v.type).dtype != dt else v for v in (lo, hi))
    in_hi = b.less_equal(b.maximum(x, low), high)
    from_x = b.logical_and(b.greater_equal(x, low), in_hi)
    return (cotangent(b, b.select(from_x, g, 0.0), x),
            cotangent(b, b.select(b.logical_and(b.less(x, low), in_hi), g, 0.0), lo),
            cotangent(b, b.select(in_hi, 0.0, g), hi))


clip_by_value = register(Primitive(
    "ClipByValue", _clip_infer, _clip_impl,
    on_all_targets(Elementwise(call(Fn.MINIMUM, call(Fn.MAXIMUM, X0, X1), X2))),
    elementwise=True, vjp=_vjp_clip, batch=batch_elementwise))


def _cast_infer(x: Type, *, dtype: dtypes.DType) -> Type:
    if not isinstance(dtype, dtypes.DType):
        raise GraphTypeError(f"dtype must be an msc dtype, but got {dtype!r}")
    return TensorType(dtype, want_tensor(x).shape)


def _cast_impl(x: Any, *, dtype: dtypes.DType) -> Any:
    return np.asarray(x).astype(dtype.np)


cast = register(Primitive(
    "Cast", _cast_infer, _cast_impl, on_all_targets(Elementwise(X0, compute=Compute.NONE)),
    attrs=(Attr("dtype", convert=dtypes.coerce),), elementwise=True, vjp=vjp_cast,
    batch=batch_elementwise))
