"""MindSpore's elementwise math that needs argument handling or is a composition of
primitives (``ops.xlogy``, ``ops.nan_to_num``, ``ops.invert``, ``ops.logit``, ...), the old
names of the arithmetic ops (``tensor_add``, ``reduce_sum``), the NaN-aware and running
reductions (``nansum``, ``logcumsumexp``, ``diff``), and the Tensor methods among them.

Compositions of elementwise primitives fuse into one loop on the numba target, so they
cost what a dedicated primitive would, and their gradients and batching come from the
primitives' rules. The plain one-primitive forms (``ops.erfc``, ``ops.atan2``,
``ops.isnan``, ...) are generated from the table into ``ops/functional.py``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphTypeError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.arguments import _axis_of


def _number(x: Any) -> bool:
    return isinstance(x, (bool, int, float)) and not isinstance(x, Tensor)


def _float_input(x: Any, op: Any) -> Tensor:
    """``x`` as a tensor that must have a float dtype (MindSpore's float-only functions)."""
    x = _as_tensor(x, op)
    if not x.dtype.is_float:
        with _checking(op):
            raise GraphTypeError(f"the input must be a float Tensor, but got {x.dtype}")
    return x


def _numeric_input(x: Any, op: str) -> Tensor:
    """``x`` as a tensor of numbers: bool tensors are refused."""
    x = _as_tensor(x, op)
    if x.dtype == dtypes.bool_:
        with _checking(op):
            raise GraphTypeError("the input must not be a bool Tensor")
    return x


def _like(out: Any, x: Tensor) -> Any:
    """``out`` in ``x``'s dtype (an activation keeps its input's dtype)."""
    return out if out.dtype == x.dtype else F.cast(out, x.dtype)


def _where(cond: Any, x: Any, y: Any) -> Any:
    return apply(Op.Select, cond, x, y)


# --- arithmetic under MindSpore's other names ----------------------------------------------


def negative(input: Any) -> Any:
    return apply(Op.Neg, input)


def positive(input: Any) -> Any:
    """``input`` itself."""
    return _as_tensor(input, "positive")


def absolute(input: Any) -> Any:
    return apply(Op.Abs, input)


def multiply(input: Any, other: Any) -> Any:
    return apply(Op.Mul, input, other)


def subtract(input: Any, other: Any, *, alpha: Any = 1) -> Any:
    """``input - alpha * other``."""
    return apply(Op.Sub, input, other if alpha == 1 else apply(Op.Mul, other, alpha))


def true_divide(dividend: Any, divisor: Any) -> Any:
    return apply(Op.Div, dividend, divisor)


divide = F.div


def float_power(input: Any, exponent: Any) -> Any:
    """``input ** exponent`` in float64, whatever the operands' dtypes."""
    base, power = (v if _number(v) else F.cast(v, dtypes.float64) for v in (input, exponent))
    return apply(Op.Pow, base, power)


# --- rounding and sign -------------------------------------------------------------------


def round(input: Any, *, decimals: int = 0) -> Any:  # noqa: A001 - MindSpore's name
    """Round half to even, at ``decimals`` digits after the point (negative: before)."""
    if decimals == 0:
        return apply(Op.Round, input)
    x = _float_input(input, Op.Round)
    scale = 10.0 ** decimals
    return _like(apply(Op.Div, apply(Op.Round, apply(Op.Mul, x, scale)), scale), x)


def frac(x: Any) -> Any:
    """The fractional part, with the sign of ``x``: ``x - trunc(x)``."""
    return apply(Op.Sub, x, apply(Op.Trunc, x))


def signbit(input: Any) -> Any:
    """Whether each element is below zero (MindSpore counts -0.0 and nan as not)."""
    return apply(Op.Less, input, 0)


def copysign(x: Any, other: Any) -> Any:
    """``|x|`` with the sign of ``other`` (negative where ``other < 0``); integer ``x``
    gives float32, a float ``x`` keeps its dtype."""
    x = _as_tensor(x, "copysign")
    if x.dtype == dtypes.bool_:
        with _checking("copysign"):
            raise GraphTypeError("the input must not be a bool Tensor")
    size = apply(Op.Abs, x if x.dtype.is_float else F.cast(x, dtypes.float32))
    if _number(other):
        return apply(Op.Neg, size) if other < 0 else size
    return _where(apply(Op.Less, other, 0), apply(Op.Neg, size), size)


def heaviside(input: Any, values: Any) -> Any:
    """0 below zero, 1 above, ``values`` at zero; ``values`` has the input's dtype."""
    x, v = _numeric_input(input, "heaviside"), _as_tensor(values, "heaviside")
    if v.dtype != x.dtype:
        with _checking("heaviside"):
            raise GraphTypeError(f"values must have the input's dtype {x.dtype}, but got "
                                 f"{v.dtype}")
    return _where(apply(Op.Less, x, 0), 0, _where(apply(Op.Greater, x, 0), 1, v))


# --- nan and inf --------------------------------------------------------------------------


def nan_to_num(input: Any, nan: float | None = None, posinf: float | None = None,
               neginf: float | None = None) -> Any:
    """nan, inf and -inf replaced by ``nan`` (default 0), ``posinf`` and ``neginf``
    (default the dtype's largest and lowest finite values)."""
    x = _float_input(input, "nan_to_num")
    info = np.finfo(x.dtype.np)
    nan = 0.0 if nan is None else nan
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = _where(apply(Op.IsNan, x), nan, x)
    out = _where(apply(Op.Equal, x, math.inf), posinf, out)
    return _where(apply(Op.Equal, x, -math.inf), neginf, out)


def _nan_ignoring(extreme: Any, op: str) -> Any:
    def pick(input: Any, other: Any) -> Any:
        """The larger (``fmax``) or smaller (``fmin``) operand; a nan loses to a number."""
        if _number(input) and _number(other):
            with _checking(op):
                raise GraphTypeError("at least one input must be a Tensor")
        # a Select, not Maximum/Minimum: MindSpore's fmax/fmin send all of the gradient
        # to ``input`` where the two are equal
        out = _where(apply(extreme, input, other), input, other)
        for a, b in ((other, input), (input, other)):  # where a is nan, b
            if not _number(a):
                out = _where(apply(Op.IsNan, a), b, out)
            elif a != a:
                out = F.cast(b, out.dtype)
        return out
    pick.__name__ = op
    return pick


fmax = _nan_ignoring(Op.GreaterEqual, "fmax")
fmin = _nan_ignoring(Op.LessEqual, "fmin")


# --- logs and exponentials ----------------------------------------------------------------


def _log(v: Any) -> Any:
    """log(v): a graph value for a tensor, a Python float (a weak scalar) for a number."""
    if not _number(v):
        return apply(Op.Log, v)
    return math.log(v) if v > 0 else -math.inf if v == 0 else math.nan


def xlogy(input: Any, other: Any) -> Any:
    """``input * log(other)``."""
    return apply(Op.Mul, input, _log(other))


def xdivy(x: Any, y: Any) -> Any:
    """``x / y``, and 0 where ``x`` is 0 (whatever ``y`` is)."""
    q = apply(Op.Div, x, y)
    return _where(apply(Op.Equal, _as_tensor(x, "xdivy"), 0), 0, q)


def _log_add_exp(log_of_one_plus: Any, shift: float) -> Any:
    def combine(input: Any, other: Any) -> Any:
        """log(exp(a) + exp(b)) in the function's base: the larger operand plus
        log(1 + exp(-|a - b|)), so nothing overflows; equal operands (infinities
        included) give the operand plus log(2)."""
        larger = apply(Op.Maximum, input, other)
        gap = apply(Op.Neg, apply(Op.Abs, apply(Op.Sub, input, other)))
        spread = apply(Op.Add, larger, log_of_one_plus(gap))
        return _where(apply(Op.Equal, input, other), apply(Op.Add, larger, shift), spread)
    return combine


logaddexp = _log_add_exp(lambda d: apply(Op.Log1p, apply(Op.Exp, d)), math.log(2.0))
logaddexp2 = _log_add_exp(
    lambda d: apply(Op.Div, apply(Op.Log1p, apply(Op.Exp2, d)), math.log(2.0)), 1.0)


def sinc(input: Any) -> Any:
    """sin(pi x) / (pi x), and 1 at 0 (the division sees 1 there, so the gradient too is
    finite); integers give float32."""
    px = apply(Op.Mul, input, math.pi)
    zero = apply(Op.Equal, px, 0)
    safe = _where(zero, 1.0, px)
    return _where(zero, 1.0, apply(Op.Div, apply(Op.Sin, safe), safe))


def deg2rad(x: Any) -> Any:
    return apply(Op.Mul, _float_input(x, "deg2rad"), math.pi / 180)


def rad2deg(x: Any) -> Any:
    return apply(Op.Mul, _float_input(x, "rad2deg"), 180 / math.pi)


# --- blends ---------------------------------------------------------------------------------


def lerp(input: Any, end: Any, weight: Any) -> Any:
    """``input + weight * (end - input)``, on float tensors."""
    start = _float_input(input, "lerp")
    return apply(Op.Add, start, apply(Op.Mul, weight, apply(Op.Sub, end, start)))


def addcmul(input: Any, tensor1: Any, tensor2: Any, value: Any = 1) -> Any:
    """``input + value * tensor1 * tensor2``."""
    return apply(Op.Add, input, apply(Op.Mul, apply(Op.Mul, tensor1, tensor2), value))


def addcdiv(input: Any, tensor1: Any, tensor2: Any, value: Any = 1) -> Any:
    """``input + value * tensor1 / tensor2``."""
    return apply(Op.Add, input, apply(Op.Mul, apply(Op.Div, tensor1, tensor2), value))


def logical_xor(input: Any, other: Any) -> Any:
    """Whether exactly one of the two is true (nonzero)."""
    return apply(Op.NotEqual, F.cast(input, dtypes.bool_), F.cast(other, dtypes.bool_))


def hardshrink(input: Any, lambd: float = 0.5) -> Any:
    """x where |x| > lambd, 0 elsewhere."""
    x = _float_input(input, "HShrink")
    return _where(apply(Op.Greater, apply(Op.Abs, x), lambd), x, 0)


# --- Tensor methods -----------------------------------------------------------------------------

#: the Tensor methods written here (``x.frac()``), by name; ``tensor.py`` installs them.
METHODS = {name: globals()[name] for name in (
    "negative", "positive", "absolute", "multiply", "subtract", "true_divide", "divide",
    "float_power", "round", "frac", "signbit", "copysign", "heaviside", "nan_to_num", "fmax",
    "fmin", "xlogy", "xdivy", "logaddexp", "logaddexp2", "sinc", "deg2rad", "rad2deg",
    "lerp", "addcmul", "addcdiv", "logical_xor", "hardshrink")}
METHODS.update(atan2=lambda self, other: apply(Op.Atan2, self, other),
               arctan2=lambda self, other: apply(Op.Atan2, self, other),
               hypot=lambda self, other: apply(Op.Hypot, self, other))


# --- old names of elementwise ops ------------------------------------------------------


def _binary(prim: Any, doc: str) -> Any:
    def form(input: Any, other: Any) -> Any:
        return apply(prim, input, other)

    form.__doc__ = doc
    return form


tensor_add = _binary(Op.Add, "``ops.add`` under its old name.")
tensor_sub = _binary(Op.Sub, "``ops.sub`` under its old name.")
tensor_mul = _binary(Op.Mul, "``ops.mul`` under its old name.")
tensor_div = _binary(Op.Div, "``ops.div`` under its old name.")
tensor_floordiv = floordiv = _binary(Op.FloorDiv, "``ops.floor_divide`` under old names.")
tensor_mod = floormod = _binary(Op.FloorMod, "``ops.floor_mod`` under old names.")
tensor_ge = _binary(Op.GreaterEqual, "``ops.ge`` under its old name.")
tensor_gt = _binary(Op.Greater, "``ops.gt`` under its old name.")
tensor_le = _binary(Op.LessEqual, "``ops.le`` under its old name.")
tensor_lt = _binary(Op.Less, "``ops.lt`` under its old name.")


def tensor_exp(input: Any) -> Any:
    return apply(Op.Exp, input)


def tensor_expm1(input: Any) -> Any:
    return apply(Op.Expm1, input)


def _reduce(prim: Any) -> Any:
    def form(x: Any, axis: Any = ()) -> Any:
        return apply(prim, x, axis=F._reduce_axes(x, axis, prim), keep_dims=False)

    form.__doc__ = f"The {prim.name} primitive over ``axis`` (() for all), dims dropped."
    return form


reduce_sum = _reduce(Op.ReduceSum)
reduce_mean = _reduce(Op.ReduceMean)
reduce_max = _reduce(Op.ReduceMax)
reduce_min = _reduce(Op.ReduceMin)


# --- small elementwise compositions -------------------------------------------------------


def _float_only(x: Any, op: str) -> Tensor:
    x = _as_tensor(x, op)
    if not x.dtype.is_float:
        with _checking(op):
            raise GraphTypeError(f"the input must be a float tensor, but got {x.dtype}")
    return x


def invert(x: Any) -> Any:
    """Bitwise NOT of an integer tensor: XOR with all bits set."""
    t = _as_tensor(x, "invert")
    if not t.dtype.is_int:
        with _checking("invert"):
            raise GraphTypeError(f"the input must be an integer tensor, but got {t.dtype}")
    return apply(Op.BitwiseXor, t, Tensor(np.invert(np.zeros((), t.dtype.np))))


def inv(x: Any) -> Any:
    """``1 / x``; integer inputs keep their dtype, the quotient truncated toward zero."""
    t = _as_tensor(x, "inv")
    if t.dtype.is_float:
        return apply(Op.Reciprocal, t)
    return F.div(F.ones_like(t), t, rounding_mode="trunc")


def sgn(input: Any) -> Any:
    """The sign of a real tensor (``ops.sign``)."""
    return apply(Op.Sign, input)


def logit(input: Any, eps: float | None = None) -> Any:
    """``log(x / (1 - x))``, ``x`` first clamped to [eps, 1 - eps] when ``eps`` is given."""
    x = _float_only(input, "logit")
    if eps is not None:
        x = F.clamp(x, eps, 1.0 - eps)
    return apply(Op.Log, x / (1.0 - x))


def approximate_equal(x: Any, y: Any, tolerance: float = 1e-5) -> Any:
    return apply(Op.Abs, apply(Op.Sub, x, y)) < tolerance


def isposinf(input: Any) -> Any:
    return apply(Op.LogicalAnd, apply(Op.IsInf, input), input > 0)


def isneginf(input: Any) -> Any:
    return apply(Op.LogicalAnd, apply(Op.IsInf, input), input < 0)


def isreal(input: Any) -> Any:
    """msc tensors are real: all True."""
    return F.ones_like(_as_tensor(input, "isreal"), dtype=dtypes.bool_)


def real(input: Any) -> Any:
    return _as_tensor(input, "real")


conj = real


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Any) -> bool:
    return _as_tensor(input, "is_floating_point").dtype.is_float


def is_complex(input: Any) -> bool:
    _as_tensor(input, "is_complex")
    return False


# --- reductions -----------------------------------------------------------------------


def count_nonzero(x: Any, axis: Any = (), keep_dims: bool = False,
                  dtype: Any = dtypes.int32) -> Any:
    nonzero = F.cast(apply(Op.NotEqual, x, 0), dtypes.int32)
    return F.cast(F.sum(nonzero, axis if axis != () else None, keep_dims), dtype)


def _zero_nans(input: Any, op: str) -> Tensor:
    x = _as_tensor(input, op)
    return A.masked_fill(x, apply(Op.IsNan, x), 0) if x.dtype.is_float else x


def nansum(input: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Any:
    return F.sum(_zero_nans(input, "nansum"), axis, keepdims, dtype=dtype)


def nanmean(input: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Any:
    x = _as_tensor(input, "nanmean")
    total = nansum(x, axis, keepdims, dtype=dtype)
    count = F.sum(F.cast(apply(Op.LogicalNot, apply(Op.IsNan, x)), total.dtype), axis, keepdims)
    return total / count


def aminmax(input: Any, *, axis: int = 0, keepdims: bool = False) -> tuple[Any, Any]:
    """(minimum, maximum) along ``axis``; each gradient goes to the first extreme."""
    return F.min(input, axis, keepdims)[0], F.max(input, axis, keepdims)[0]


def diff(x: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """``n``-th forward differences along ``axis`` (bools: where neighbours differ)."""
    t = _as_tensor(x, "diff")
    ax = _axis_of(t, axis, "diff")
    parts = [p for p in (prepend, t, append) if p is not None]
    t = F.concat(tuple(parts), ax) if len(parts) > 1 else t
    for _ in range(n):
        m = t.shape[ax]
        hi, lo = A._narrow(t, ax, 1, m), A._narrow(t, ax, 0, m - 1)
        t = apply(Op.NotEqual, hi, lo) if t.dtype == dtypes.bool_ else hi - lo
    return t


def trapz(y: Any, x: Any = None, *, dx: float = 1.0, dim: int = -1) -> Any:
    """The trapezoid rule along ``dim``, over sample points ``x`` or spacing ``dx``."""
    t = _as_tensor(y, "trapz")
    ax = _axis_of(t, dim, "trapz")
    m = t.shape[ax]
    pair_sum = A._narrow(t, ax, 1, m) + A._narrow(t, ax, 0, m - 1)
    if x is None:
        return F.sum(pair_sum, ax) * (dx / 2)
    steps = diff(x, 1, -1 if _as_tensor(x, "trapz").ndim == 1 else dim)
    return F.sum(pair_sum * steps, ax) / 2


def logcumsumexp(input: Any, axis: int) -> Any:
    """``log(cumsum(exp(x)))`` with the maximum along ``axis`` factored out."""
    x = _float_only(input, "logcumsumexp")
    top = F.stop_gradient(F.amax(x, axis, True))
    return apply(Op.Log, F.cumsum(apply(Op.Exp, x - top), axis)) + top


def truncate_div(x: Any, y: Any) -> Any:
    return F.div(x, y, rounding_mode="trunc")


def truncate_mod(x: Any, y: Any) -> Any:
    return F.fmod(x, y)


__all__ = ["negative", "positive", "absolute", "multiply", "subtract", "true_divide", "divide",
           "float_power", "round", "frac", "signbit", "copysign", "heaviside", "nan_to_num",
           "fmax", "fmin", "xlogy", "xdivy", "logaddexp", "logaddexp2", "sinc", "deg2rad",
           "rad2deg", "lerp", "addcmul", "addcdiv", "logical_xor", "hardshrink", "tensor_add",
           "tensor_sub", "tensor_mul", "tensor_div", "tensor_floordiv", "floordiv", "tensor_mod",
           "floormod", "tensor_ge", "tensor_gt", "tensor_le", "tensor_lt", "tensor_exp",
           "tensor_expm1", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "invert",
           "inv", "sgn", "logit", "approximate_equal", "isposinf", "isneginf", "isreal", "real",
           "conj", "is_tensor", "is_floating_point", "is_complex", "count_nonzero", "nansum",
           "nanmean", "aminmax", "diff", "trapz", "logcumsumexp", "truncate_div", "truncate_mod"]
