"""Elementwise math beyond the basic family: inverse and hyperbolic trigonometry, erf's
kin, base-2 and base-10 logs and powers, rounding, float class tests, atan2, hypot and
the bitwise operators and shifts, gcd and lcm, nextafter; the gamma family (lgamma,
digamma, polygamma, Hurwitz zeta), the incomplete beta function, the Bessel functions
of orders 0 and 1 (of the first and second kind, modified of both kinds), and the
population count of integers.

Each is one ``_unary``/``_binary`` entry of ``elementwise``: it fuses into loops on the
numba target and batches by broadcasting. The float functions give float32 for integer
and bool inputs, as the rest of the family does. What MindSpore composes from these
(``frac``, ``xlogy``, ``logaddexp``, ``nan_to_num``, ...) is composed in the frontend.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.errors import GraphTypeError, ShapeError
from msc.ir import dtypes
from msc.ir.kernel import X0, X1, X2, Binary, BinaryOp, Expr, Fn, Helper, call, helper
from msc.ir.primitives.base import (
    ArrayExpr,
    Compute,
    Elementwise,
    Primitive,
    Public,
    on_all_targets,
    operand_dtype,
    operand_shape,
    register,
    want_tensor,
)
from msc.ir.primitives.elementwise import Result, _binary, _plus_zero, _unary
from msc.ir.primitives.rules import batch_elementwise, batch_size, batched_front, cotangent
from msc.ir.types import ScalarType, TensorType, Type, tensor_of, type_of_value
from msc.runtime.numpy_rt import _rt_erfc, _rt_erfinv
from msc.runtime.numpy_special_rt import (
    _rt_bessel_i0,
    _rt_bessel_i0e,
    _rt_bessel_i1,
    _rt_bessel_i1e,
    _rt_bessel_j0,
    _rt_bessel_j1,
    _rt_bessel_k0,
    _rt_bessel_k0e,
    _rt_bessel_k1,
    _rt_bessel_k1e,
    _rt_bessel_y0,
    _rt_bessel_y1,
    _rt_betainc,
    _rt_digamma,
    _rt_igamma,
    _rt_igamma_da,
    _rt_igammac,
    _rt_igammac_da,
    _rt_lgamma,
    _rt_polygamma,
    _rt_popcount,
    _rt_zeta,
)

_TWO_BY_SQRT_PI = 1.1283791670955126
_SQRT_PI_BY_TWO = 0.8862269254527579
_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _float64(helper: Any) -> Any:
    """A runtime helper that returns Python floats (``np.frompyfunc``) as float64."""
    return lambda x: np.asarray(helper(x), np.float64)


# --- erf's kin, logs and powers of 2 and 10 -----------------------------------------------

erfc = _unary("Erfc", _float64(_rt_erfc), helper("_rt_erfc", X0), scalar=call(Fn.MATH_ERFC, X0),
              result=Result.FLOAT, cost=8, functions=("erfc",), methods=("erfc",),
              vjp=lambda b, g, x, out: (
                  b.mul(g, b.mul(b.exp(b.neg(b.square(x))), -_TWO_BY_SQRT_PI)),))
erfinv = _unary("Erfinv", _rt_erfinv, helper("_rt_erfinv", X0), result=Result.FLOAT, cost=16,
                functions=("erfinv",), methods=("erfinv",),
                vjp=lambda b, g, x, out: (
                    b.mul(g, b.mul(b.exp(b.square(out)), _SQRT_PI_BY_TWO)),))
expm1 = _unary("Expm1", np.expm1, call(Fn.EXPM1, X0), result=Result.FLOAT, cost=4,
               functions=("expm1",), methods=("expm1",),
               vjp=lambda b, g, x, out: (b.mul(g, b.exp(x)),))
log2 = _unary("Log2", np.log2, call(Fn.LOG2, X0), result=Result.FLOAT, cost=4,
              functions=("log2",), methods=("log2",),
              vjp=lambda b, g, x, out: (b.div(g, b.mul(_plus_zero(b, x), _LN2)),))
log10 = _unary("Log10", np.log10, call(Fn.LOG10, X0), result=Result.FLOAT, cost=4,
               functions=("log10",), methods=("log10",),
               vjp=lambda b, g, x, out: (b.div(g, b.mul(x, _LN10)),))
exp2 = _unary("Exp2", np.exp2, call(Fn.EXP2, X0), result=Result.FLOAT, cost=4,
              functions=("exp2",), vjp=lambda b, g, x, out: (b.mul(g, b.mul(out, _LN2)),))

# --- trigonometry -------------------------------------------------------------------------


def _one_minus_square(b: Any, x: Any) -> Any:
    return b.sub(1.0, b.square(x))


tan = _unary("Tan", np.tan, call(Fn.TAN, X0), result=Result.FLOAT, cost=4, functions=("tan",),
             methods=("tan",),
             vjp=lambda b, g, x, out: (b.mul(g, b.add(b.square(out), 1.0)),))
asin = _unary("Asin", np.arcsin, call(Fn.ARCSIN, X0), result=Result.FLOAT, cost=4,
              functions=("asin", "arcsin"), methods=("asin", "arcsin"),
              vjp=lambda b, g, x, out: (b.mul(g, b.rsqrt(_one_minus_square(b, x))),))
acos = _unary("ACos", np.arccos, call(Fn.ARCCOS, X0), result=Result.FLOAT, cost=4,
              functions=("acos", "arccos"), methods=("acos", "arccos"),
              vjp=lambda b, g, x, out: (b.neg(b.mul(g, b.rsqrt(_one_minus_square(b, x)))),))
atan = _unary("Atan", np.arctan, call(Fn.ARCTAN, X0), result=Result.FLOAT, cost=4,
              functions=("atan", "arctan"), methods=("atan", "arctan"),
              vjp=lambda b, g, x, out: (b.div(g, b.add(b.square(x), 1.0)),))
sinh = _unary("Sinh", np.sinh, call(Fn.SINH, X0), result=Result.FLOAT, cost=4,
              functions=("sinh",), methods=("sinh",),
              vjp=lambda b, g, x, out: (b.mul(g, b.cosh(x)),))
cosh = _unary("Cosh", np.cosh, call(Fn.COSH, X0), result=Result.FLOAT, cost=4,
              functions=("cosh",), methods=("cosh",),
              vjp=lambda b, g, x, out: (b.mul(g, b.sinh(x)),))
asinh = _unary("Asinh", np.arcsinh, call(Fn.ARCSINH, X0), result=Result.FLOAT, cost=4,
               functions=("asinh", "arcsinh"), methods=("asinh", "arcsinh"),
               vjp=lambda b, g, x, out: (b.mul(g, b.rsqrt(b.add(b.square(x), 1.0))),))
# acosh: 1/sinh(acosh(x)), NaN below 1 where acosh is (1/sqrt(x*x - 1) is finite below -1)
acosh = _unary("Acosh", np.arccosh, call(Fn.ARCCOSH, X0), result=Result.FLOAT, cost=4,
               functions=("acosh", "arccosh"), methods=("acosh", "arccosh"),
               vjp=lambda b, g, x, out: (b.div(g, b.sinh(out)),))
atanh = _unary("Atanh", np.arctanh, call(Fn.ARCTANH, X0), result=Result.FLOAT, cost=4,
               functions=("atanh", "arctanh"), methods=("atanh", "arctanh"),
               vjp=lambda b, g, x, out: (b.div(g, _one_minus_square(b, x)),))


def _vjp_atan2(b: Any, g: Any, y: Any, x: Any, out: Any) -> tuple[Any, ...]:
    """atan2(y, x) = the angle of (x, y): d = (x dy - y dx) / (x^2 + y^2)."""
    norm = b.add(_square(b, x), _square(b, y))
    return (cotangent(b, b.div(b.mul(g, x), norm), y),
            cotangent(b, b.neg(b.div(b.mul(g, y), norm)), x))


def _square(b: Any, v: Any) -> Any:
    """``v * v`` of a graph value or of a Python number operand."""
    return b.square(v) if tensor_of(v.type) is not None else v.value * v.value


def _vjp_hypot(b: Any, g: Any, x: Any, y: Any, out: Any) -> tuple[Any, ...]:
    return (cotangent(b, b.div(b.mul(g, x), out), x), cotangent(b, b.div(b.mul(g, y), out), y))


atan2 = _binary("Atan2", np.arctan2, call(Fn.ARCTAN2, X0, X1), result=Result.FLOAT, cost=4,
                functions=("atan2", "arctan2"), args=("input", "other"), vjp=_vjp_atan2)
hypot = _binary("Hypot", np.hypot, call(Fn.HYPOT, X0, X1), result=Result.FLOAT, cost=3,
                functions=("hypot",), args=("input", "other"), vjp=_vjp_hypot)

# --- rounding (piecewise constant: no vjp) ------------------------------------------------

trunc = _unary("Trunc", np.trunc, call(Fn.TRUNC, X0), functions=("trunc",), methods=("trunc",))
#: half to even, as MindSpore's Round (and numpy's rint)
round_ = _unary("Round", np.rint, call(Fn.RINT, X0), no_bool=True)

# --- float class tests: bool results, any input dtype -----------------------------------------


def _predicate(name: str, fn: Any, expr: Expr, functions: tuple[str, ...]) -> Primitive:
    """``fn(input)`` as a bool tensor, read in the input's own dtype (integers and bools
    are finite, never nan or inf)."""
    def infer(input: Type) -> Type:
        return TensorType(dtypes.bool_, want_tensor(input).shape)

    def impl(input: Any) -> Any:
        return fn(np.asarray(input))

    return register(Primitive(
        name, infer, impl, on_all_targets(Elementwise(expr, compute=Compute.OPERANDS)),
        elementwise=True, batch=batch_elementwise, public=Public(functions, (name,),
                                                                  functions)))


isnan = _predicate("IsNan", np.isnan, call(Fn.ISNAN, X0), ("isnan",))
isinf = _predicate("IsInf", np.isinf, call(Fn.ISINF, X0), ("isinf",))
isfinite = _predicate("IsFinite", np.isfinite, call(Fn.ISFINITE, X0), ("isfinite",))

# --- bitwise operators: integer and bool operands only ------------------------------------


def _bitwise(name: str, fn: Any, symbol: str, function: str) -> Primitive:
    """``input <symbol> other`` on integer or bool tensors (a Python int may stand for
    one), in their common dtype."""
    def infer(input: Type, other: Type) -> Type:
        dt = operand_dtype((input, other))
        if dt.is_float or any(tensor_of(t) is None and not _is_int_scalar(t)
                              for t in (input, other)):
            raise GraphTypeError(f"the inputs must be integer or bool Tensors, but got "
                                 f"{input} and {other}")
        return TensorType(dt, operand_shape((input, other)))

    def impl(input: Any, other: Any) -> Any:
        dt = infer(type_of_value(input), type_of_value(other)).dtype
        return fn(np.asarray(input, dt.np), np.asarray(other, dt.np))

    return register(Primitive(
        name, infer, impl, on_all_targets(Elementwise(Binary(BinaryOp(symbol), X0, X1))),
        elementwise=True, batch=batch_elementwise,
        public=Public((function,), (name,), (function,), ("input", "other"))))


def _is_int_scalar(t: Type) -> bool:
    return isinstance(t, ScalarType) and t.category in (0, 1)  # a Python bool or int


bitwise_and = _bitwise("BitwiseAnd", np.bitwise_and, "&", "bitwise_and")
bitwise_or = _bitwise("BitwiseOr", np.bitwise_or, "|", "bitwise_or")
bitwise_xor = _bitwise("BitwiseXor", np.bitwise_xor, "^", "bitwise_xor")


# --- shifts, gcd and lcm: integer operands only -------------------------------------------


def _integer_binary(name: str, fn: Any, expr: Expr, functions: tuple[str, ...],
                    methods: tuple[str, ...], cost: float = 1.0) -> Primitive:
    """``fn(input, other)`` on integer tensors (a Python int may stand for one), in their
    common dtype; bools and floats are type errors, as in MindSpore."""
    def infer(input: Type, other: Type) -> Type:
        dt = operand_dtype((input, other))
        if not dt.is_int or any(tensor_of(t) is None and not _is_int_scalar(t)
                                for t in (input, other)):
            raise GraphTypeError(f"the inputs must be integer Tensors, but got {input} and "
                                 f"{other}")
        return TensorType(dt, operand_shape((input, other)))

    def impl(input: Any, other: Any) -> Any:
        dt = infer(type_of_value(input), type_of_value(other)).dtype
        return fn(np.asarray(input, dt.np), np.asarray(other, dt.np))

    return register(Primitive(
        name, infer, impl, on_all_targets(Elementwise(expr)), elementwise=True, cost=cost,
        batch=batch_elementwise, public=Public(functions, (name,), methods, ("input", "other"))))


left_shift = _integer_binary("LeftShift", np.left_shift, X0 << X1,
                             ("bitwise_left_shift",), ("bitwise_left_shift",))
right_shift = _integer_binary("RightShift", np.right_shift, X0 >> X1,
                              ("bitwise_right_shift",), ("bitwise_right_shift",))
gcd = _integer_binary("Gcd", np.gcd, call(Fn.GCD, X0, X1), ("gcd",), ("gcd",), cost=8)
lcm = _integer_binary("Lcm", np.lcm, call(Fn.LCM, X0, X1), ("lcm",), ("lcm",), cost=8)

# --- float-only functions: nextafter, the gamma family, Bessel functions ------------------


def _want_float(t: Type, what: str = "input") -> TensorType:
    tt = want_tensor(t, what)
    if not tt.dtype.is_float:
        raise GraphTypeError(f"the {what} must be a float16, float32 or float64 Tensor, but "
                             f"got {tt}")
    return tt


def _same_float(x: Type, y: Type) -> Type:
    a, b = _want_float(x, "first input"), _want_float(y, "second input")
    if a.dtype != b.dtype:
        raise GraphTypeError(f"the inputs must have the same dtype, but got {a} and {b}")
    return TensorType(a.dtype, operand_shape((x, y)))


def _float_op(name: str, fn: Any, expr: Expr, functions: tuple[str, ...],
              methods: tuple[str, ...] = (), vjp: Any = None, cost: float = 16.0,
              infer: Any = None, args: tuple[str, ...] | None = None,
              public: bool = True, batch: Any = batch_elementwise) -> Primitive:
    """An elementwise op on float tensors only (an integer input is a TypeError, as in
    MindSpore), computed by the float64 runtime helper ``expr`` names."""
    infer = infer or (lambda input: _want_float(input))

    def impl(*values: Any) -> Any:
        dt = infer(*(type_of_value(v) for v in values)).dtype
        with np.errstate(all="ignore"):  # overflow to inf is the answer
            return np.asarray(fn(*(np.asarray(v) for v in values))).astype(dt.np)

    return register(Primitive(
        name, infer, impl, on_all_targets(Elementwise(expr)), elementwise=True, cost=cost,
        vjp=vjp, batch=batch,
        public=Public(functions, (name,) if public else (), methods, args)))


def _polygamma_infer(n: Type, input: Type) -> Type:
    nt = tensor_of(n)
    if not (nt.dtype.is_int if nt is not None else _is_int_scalar(n)):
        raise GraphTypeError(f"n must be an integer Tensor, but got {n}")
    return TensorType(_want_float(input).dtype, operand_shape((n, input)))


def _vjp_bessel_i1(b: Any, g: Any, x: Any, out: Any) -> tuple[Any]:
    """I1' = I0 - I1 / x, 1/2 at 0."""
    safe = b.select(b.equal(x, 0.0), 1.0, x)
    return (b.mul(g, b.select(b.equal(x, 0.0), 0.5, b.sub(b.bessel_i0(x), b.div(out, safe)))),)


def _vjp_bessel_i1e(b: Any, g: Any, x: Any, out: Any) -> tuple[Any]:
    """(I1 e^-|x|)' = I0e - I1e (sign(x) + 1 / x), 1/2 at 0."""
    safe = b.select(b.equal(x, 0.0), 1.0, x)
    slope = b.sub(b.bessel_i0e(x), b.mul(out, b.add(b.sign(x), b.reciprocal(safe))))
    return (b.mul(g, b.select(b.equal(x, 0.0), 0.5, slope)),)


next_after = _float_op("NextAfter", np.nextafter, call(Fn.NEXTAFTER, X0, X1), ("nextafter",),
                       ("nextafter",), infer=_same_float, args=("input", "other"), cost=2,
                       vjp=lambda b, g, x, y, out: (g, None))  # MindSpore's rule: dx = 1
lgamma = _float_op("Lgamma", _rt_lgamma, helper("_rt_lgamma", X0), ("lgamma",), ("lgamma",),
                   vjp=lambda b, g, x, out: (b.mul(g, b.digamma(x)),))
digamma = _float_op("Digamma", _rt_digamma, helper("_rt_digamma", X0), ("digamma",), ("digamma",),
                    vjp=lambda b, g, x, out: (b.mul(g, b.polygamma(1, x)),))
polygamma = _float_op("Polygamma", _rt_polygamma, helper("_rt_polygamma", X0, X1), ("polygamma",),
                      infer=_polygamma_infer, args=("n", "input"),
                      vjp=lambda b, g, n, x, out: (None, b.mul(g, b.polygamma(b.add(n, 1), x))))
zeta = _float_op("Zeta", _rt_zeta, helper("_rt_zeta", X0, X1), ("zeta",), infer=_same_float,
                 args=("input", "other"),  # MindSpore's rule: no gradient for the exponent
                 vjp=lambda b, g, x, q, out: (None, b.mul(g, b.neg(b.mul(x, b.zeta(
                     b.add(x, 1.0), q))))))
bessel_i0 = _float_op("BesselI0", _rt_bessel_i0, helper("_rt_bessel_i0", X0), ("bessel_i0", "i0"),
                      ("i0",), vjp=lambda b, g, x, out: (b.mul(g, b.bessel_i1(x)),))
bessel_i0e = _float_op("BesselI0e", _rt_bessel_i0e, helper("_rt_bessel_i0e", X0), ("bessel_i0e",),
                       vjp=lambda b, g, x, out: (b.mul(g, b.sub(b.bessel_i1e(x),
                                                                b.mul(b.sign(x), out))),))
bessel_i1 = _float_op("BesselI1", _rt_bessel_i1, helper("_rt_bessel_i1", X0), ("bessel_i1",),
                      vjp=_vjp_bessel_i1)
bessel_i1e = _float_op("BesselI1e", _rt_bessel_i1e, helper("_rt_bessel_i1e", X0), ("bessel_i1e",),
                       vjp=_vjp_bessel_i1e)


# --- the regularised incomplete gamma functions P(a, x) and Q(a, x) -------------------------


def _igamma_slope(b: Any, a: Any, x: Any) -> Any:
    """dP/dx = exp(-x) x^(a-1) / Gamma(a)."""
    return b.exp(b.sub(b.sub(b.mul(b.sub(a, 1.0), b.log(x)), x), b.lgamma(a)))


igamma_grad_a = _float_op("IgammaGradA", _rt_igamma_da, helper("_rt_igamma_da", X0, X1), (),
                          infer=_same_float, public=False)
igammac_grad_a = _float_op("IgammacGradA", _rt_igammac_da, helper("_rt_igammac_da", X0, X1), (),
                           infer=_same_float, public=False)
igamma = _float_op("Igamma", _rt_igamma, helper("_rt_igamma", X0, X1), ("igamma",), ("igamma",),
                   infer=_same_float, args=("input", "other"),
                   vjp=lambda b, g, a, x, out: (b.mul(g, b.emit(igamma_grad_a, a, x)),
                                                b.mul(g, _igamma_slope(b, a, x))))
igammac = _float_op("Igammac", _rt_igammac, helper("_rt_igammac", X0, X1), ("igammac",),
                    ("igammac",), infer=_same_float, args=("input", "other"),
                    vjp=lambda b, g, a, x, out: (b.mul(g, b.emit(igammac_grad_a, a, x)),
                                                 b.neg(b.mul(g, _igamma_slope(b, a, x)))))


# --- Bessel functions of the first kind and modified of the second kind, orders 0 and 1 -----


def _over_x(b: Any, v: Any, x: Any, at_zero: float) -> Any:
    """v / x, ``at_zero`` where x is 0."""
    safe = b.select(b.equal(x, 0.0), 1.0, x)
    return b.select(b.equal(x, 0.0), at_zero, b.div(v, safe))


bessel_j0 = _float_op("BesselJ0", _rt_bessel_j0, helper("_rt_bessel_j0", X0), ("bessel_j0",),
                      vjp=lambda b, g, x, out: (b.neg(b.mul(g, b.bessel_j1(x))),))
bessel_j1 = _float_op("BesselJ1", _rt_bessel_j1, helper("_rt_bessel_j1", X0), ("bessel_j1",),
                      vjp=lambda b, g, x, out: (b.mul(g, b.sub(b.bessel_j0(x),
                                                               _over_x(b, out, x, 0.5))),))
bessel_k0 = _float_op("BesselK0", _rt_bessel_k0, helper("_rt_bessel_k0", X0), ("bessel_k0",),
                      vjp=lambda b, g, x, out: (b.neg(b.mul(g, b.bessel_k1(x))),))
bessel_k1 = _float_op("BesselK1", _rt_bessel_k1, helper("_rt_bessel_k1", X0), ("bessel_k1",),
                      vjp=lambda b, g, x, out: (b.neg(b.mul(g, b.add(b.bessel_k0(x),
                                                                     b.div(out, x)))),))
bessel_k0e = _float_op("BesselK0e", _rt_bessel_k0e, helper("_rt_bessel_k0e", X0), ("bessel_k0e",),
                       vjp=lambda b, g, x, out: (b.mul(g, b.sub(out, b.bessel_k1e(x))),))
bessel_k1e = _float_op("BesselK1e", _rt_bessel_k1e, helper("_rt_bessel_k1e", X0), ("bessel_k1e",),
                       vjp=lambda b, g, x, out: (b.mul(g, b.sub(b.sub(out, b.bessel_k0e(x)),
                                                                b.div(out, x))),))
bessel_y0 = _float_op("BesselY0", _rt_bessel_y0, helper("_rt_bessel_y0", X0), ("bessel_y0",),
                      vjp=lambda b, g, x, out: (b.neg(b.mul(g, b.bessel_y1(x))),))
bessel_y1 = _float_op("BesselY1", _rt_bessel_y1, helper("_rt_bessel_y1", X0), ("bessel_y1",),
                      vjp=lambda b, g, x, out: (b.mul(g, b.sub(b.bessel_y0(x),
                                                               b.div(out, x))),))


# --- the regularised incomplete beta function I_x(a, b) ---------------------------------------


def _betainc_infer(a: Type, b: Type, x: Type) -> Type:
    """Three float32 or float64 tensors of one dtype and one shape, as MindSpore asks."""
    at = _want_float(a, "a")
    if at.dtype not in (dtypes.float32, dtypes.float64):
        raise GraphTypeError(f"the dtype of 'a' must be float32 or float64, but got {at}")
    for name, t in (("b", b), ("x", x)):
        tt = want_tensor(t, name)
        if tt.dtype != at.dtype:
            raise GraphTypeError(f"the dtype of '{name}' must be {at.dtype}, the dtype of "
                                 f"'a', but got {tt}")
        if tt.shape != at.shape:
            raise ShapeError(f"the shape of '{name}' must be {at.shape}, the shape of 'a', "
                             f"but got {tt.shape}")
    return at


def _vjp_betainc(b: Any, g: Any, a: Any, bb: Any, x: Any, out: Any) -> tuple[Any, ...]:
    """dI/dx = x^(a-1) (1-x)^(b-1) / B(a, b); none for a and b (MindSpore 2.10 gives
    zeros)."""
    log_density = b.sub(b.add(b.mul(b.sub(a, 1.0), b.log(x)),
                              b.mul(b.sub(bb, 1.0), b.log(b.sub(1.0, x)))),
                        b.sub(b.add(b.lgamma(a), b.lgamma(bb)), b.lgamma(b.add(a, bb))))
    return None, None, b.mul(g, b.exp(log_density))


def _batch_betainc(b: Any, prim: Any, args: Any, dims: Any, **attrs: Any) -> tuple[Any, int]:
    """Betainc's operands must have one shape: each batched along axis 0, the unbatched
    ones repeated for every example."""
    size = batch_size(args, dims)
    return b.emit(prim, *(batched_front(b, a, d, size) for a, d in zip(args, dims))), 0


betainc = _float_op("Betainc", _rt_betainc, helper("_rt_betainc", X0, X1, X2), (),
                    infer=_betainc_infer, args=("a", "b", "x"), vjp=_vjp_betainc,
                    batch=_batch_betainc)


# --- population count: integers only, uint8 results --------------------------------------


def _popcount_infer(input_x: Type) -> Type:
    t = want_tensor(input_x, "input_x")
    if not t.dtype.is_int:
        raise GraphTypeError(f"the dtype of 'input_x' must be an integer type, but got {t}")
    return TensorType(dtypes.uint8, t.shape)


def _popcount_impl(input_x: Any) -> Any:
    _popcount_infer(type_of_value(input_x))
    return _rt_popcount(np.asarray(input_x))


population_count = register(Primitive(
    "PopulationCount", _popcount_infer, _popcount_impl,
    on_all_targets(ArrayExpr(lambda a, node: Helper("_rt_popcount", (a[0],)), fresh=True)),
    batch=batch_elementwise,
    public=Public(("population_count",), ("PopulationCount",), (), ("input_x",))))
