"""MindSpore's elementwise math and activation functions that need argument handling or
are compositions of primitives (``ops.xlogy``, ``ops.nan_to_num``, ``ops.leaky_relu``,
``ops.prelu``, ...), their primitive classes, and the Tensor methods among them.

Compositions of elementwise primitives fuse into one loop on the numba target, so they
cost what a dedicated primitive would, and their gradients and batching come from the
primitives' rules. The plain one-primitive forms (``ops.erfc``, ``ops.atan2``,
``ops.isnan``, ...) are generated from the table (``msc/ir/primitives/special.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.frontend.api import functional as F
from msc.frontend.api.functional import _as_tensor, _checking
from msc.frontend.api.prim_classes import Primitive
from msc.common.tensor import Tensor, apply
from msc.ir import dtypes
from msc.ir.primitives import Op

_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


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
        out = apply(extreme, input, other)
        for a, b in ((other, input), (input, other)):  # where a is nan, b
            if not _number(a):
                out = _where(apply(Op.IsNan, a), b, out)
            elif a != a:
                out = F.cast(b, out.dtype)
        return out
    pick.__name__ = op
    return pick


fmax = _nan_ignoring(Op.Maximum, "fmax")
fmin = _nan_ignoring(Op.Minimum, "fmin")


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


# --- activations ----------------------------------------------------------------------------


def leaky_relu(input: Any, alpha: float = 0.2) -> Any:
    """x where x > 0, ``alpha * x`` elsewhere; in the input's dtype."""
    x = _as_tensor(input, "leaky_relu")
    return _like(_where(apply(Op.Greater, x, 0), x, apply(Op.Mul, x, alpha)), x)


def elu(input_x: Any, alpha: float = 1.0) -> Any:
    return apply(Op.Elu, input_x, alpha=_attr(alpha))


def selu(input_x: Any) -> Any:
    return apply(Op.Mul, apply(Op.Elu, input_x, alpha=_SELU_ALPHA), _SELU_SCALE)


def celu(x: Any, alpha: float = 1.0) -> Any:
    """``alpha * elu(x / alpha)``: x where x > 0, alpha * (exp(x / alpha) - 1) elsewhere."""
    if alpha == 0:
        with _checking("CeLU"):
            raise GraphValueError("alpha must not be 0")
    x = _float_input(x, "CeLU")
    return apply(Op.Mul, apply(Op.Elu, apply(Op.Div, x, alpha), alpha=1.0), alpha)


def _attr(value: Any) -> Any:
    """A number attribute as a float, so equal calls build equal nodes (infer checks
    anything else)."""
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def softplus(input: Any, beta: float = 1, threshold: float = 20) -> Any:
    return apply(Op.Softplus, input, beta=_attr(beta), threshold=_attr(threshold))


def logsigmoid(x: Any) -> Any:
    """log(sigmoid(x)) = -softplus(-x), finite for very negative x."""
    return apply(Op.Neg, apply(Op.Softplus, apply(Op.Neg, x), beta=1.0, threshold=20.0))


def mish(x: Any) -> Any:
    """x * tanh(softplus(x))."""
    return apply(Op.Mul, x, apply(Op.Tanh, apply(Op.Softplus, x, beta=1.0, threshold=20.0)))


def silu(input: Any) -> Any:
    """x * sigmoid(x)."""
    x = _float_input(input, "silu")
    return apply(Op.Mul, x, apply(Op.Sigmoid, x))


def softsign(x: Any) -> Any:
    """x / (1 + |x|)."""
    x = _float_input(x, "Softsign")
    return apply(Op.Div, x, apply(Op.Add, apply(Op.Abs, x), 1))


def hardsigmoid(input: Any) -> Any:
    """relu6(x + 3) / 6; integer inputs divide as integers (MindSpore's HSigmoid)."""
    x = _numeric_input(input, "HSigmoid")
    six = apply(Op.ClipByValue, apply(Op.Add, x, 3), 0, 6)
    return apply(Op.Div if x.dtype.is_float else Op.FloorDiv, six, 6)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0) -> Any:
    """The input clipped to [min_val, max_val], in its dtype."""
    return apply(Op.ClipByValue, _as_tensor(input, "hardtanh"), min_val, max_val)


def relu6(x: Any) -> Any:
    return apply(Op.ClipByValue, _float_input(x, "ReLU6"), 0, 6)


def hardshrink(input: Any, lambd: float = 0.5) -> Any:
    """x where |x| > lambd, 0 elsewhere."""
    x = _float_input(input, "HShrink")
    return _where(apply(Op.Greater, apply(Op.Abs, x), lambd), x, 0)


def softshrink(input: Any, lambd: float = 0.5) -> Any:
    """x moved ``lambd`` towards 0, and 0 within ``lambd`` of it."""
    x = _float_input(input, "SoftShrink")
    if lambd < 0:
        with _checking("SoftShrink"):
            raise GraphValueError(f"lambd must be at least 0, but got {lambd}")
    low = _where(apply(Op.Less, x, -lambd), apply(Op.Add, x, lambd), 0)
    return _where(apply(Op.Greater, x, lambd), apply(Op.Sub, x, lambd), low)


def tanhshrink(input: Any) -> Any:
    """x - tanh(x); integers give float32."""
    x = _numeric_input(input, "Tanhshrink")
    return apply(Op.Sub, x, apply(Op.Tanh, x))


def threshold(input: Any, thr: float, value: float) -> Any:
    """x where x > thr, ``value`` elsewhere; in the input's dtype."""
    x = _numeric_input(input, "threshold")
    return _like(_where(apply(Op.Greater, x, thr), x, value), x)


def glu(x: Any, axis: int = -1) -> Any:
    """The first half of ``x`` along ``axis`` gated by the sigmoid of the second."""
    first, second = apply(Op.Split, _float_input(x, "GLU"), axis=axis, output_num=2)
    return apply(Op.Mul, first, apply(Op.Sigmoid, second))


def softmin(x: Any, axis: Any = -1, *, dtype: dtypes.DType | None = None) -> Any:
    """softmax(-x)."""
    x = _as_tensor(x, Op.Softmax)
    return F.softmax(apply(Op.Neg, x if dtype is None else F.cast(x, dtype)), axis)


def prelu(input: Any, weight: Any) -> Any:
    """x where x > 0, ``weight * x`` elsewhere; ``weight`` has one entry, or one per
    channel (axis 1)."""
    x, w = _float_input(input, "PReLU"), _as_tensor(weight, "PReLU")
    channels = x.shape[1] if x.ndim >= 2 else 1
    with _checking("PReLU"):
        if w.dtype not in (dtypes.float16, dtypes.float32):
            raise GraphTypeError(f"weight must be a float16 or float32 Tensor, but got "
                                 f"{w.dtype}")
        if w.ndim != 1 or w.shape[0] not in (1, channels):
            raise ShapeError(f"weight must be 1-D with 1 or {channels} elements (the "
                             f"input's channels), but got shape {w.shape}")
    if w.shape[0] > 1:
        w = F.reshape(w, (channels,) + (1,) * (x.ndim - 2))
    return _where(apply(Op.Greater, x, 0), x, apply(Op.Mul, x, _like(w, x)))


# --- primitive classes ------------------------------------------------------------------------


def _plain(name: str, fn: Any) -> type[Primitive]:
    """``ops.<name>()(*inputs)``: ``fn`` on the inputs, no attributes."""
    def __call__(self: Primitive, *inputs: Any) -> Any:
        return fn(*inputs)
    return type(name, (Primitive,), {"__call__": __call__, "__module__": __name__,
                                     "__doc__": f"``ops.{name}()``: ``ops.{fn.__name__}``."})


_PLAIN = {"Xlogy": xlogy, "Xdivy": xdivy, "Lerp": lerp, "Addcmul": addcmul,
          "Addcdiv": addcdiv, "Sinc": sinc, "Heaviside": heaviside, "Fmax": fmax,
          "Fmin": fmin, "LogicalXor": logical_xor, "Softsign": softsign, "SeLU": selu,
          "HSigmoid": hardsigmoid, "Mish": mish, "PReLU": prelu, "ReLU6": relu6}
globals().update((name, _plain(name, fn)) for name, fn in _PLAIN.items())


class Elu(Primitive):
    def __init__(self, alpha: float = 1.0):
        super().__init__(alpha=alpha)
        self.alpha = alpha

    def __call__(self, input_x: Any) -> Any:
        return elu(input_x, self.alpha)


class CeLU(Elu):
    def __call__(self, input_x: Any) -> Any:
        return celu(input_x, self.alpha)


class HShrink(Primitive):
    def __init__(self, lambd: float = 0.5):
        super().__init__(lambd=lambd)
        self.lambd = lambd

    def __call__(self, input_x: Any) -> Any:
        return hardshrink(input_x, self.lambd)


class SoftShrink(HShrink):
    def __call__(self, input_x: Any) -> Any:
        return softshrink(input_x, self.lambd)


class GLU(Primitive):
    def __init__(self, axis: int = -1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x: Any) -> Any:
        return glu(x, self.axis)


class NanToNum(Primitive):
    def __init__(self, nan: float | None = None, posinf: float | None = None,
                 neginf: float | None = None):
        super().__init__(nan=nan, posinf=posinf, neginf=neginf)
        self.nan, self.posinf, self.neginf = nan, posinf, neginf

    def __call__(self, x: Any) -> Any:
        return nan_to_num(x, self.nan, self.posinf, self.neginf)


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

__all__ = [
    "negative", "positive", "absolute", "multiply", "subtract", "true_divide", "divide",
    "float_power", "round", "frac", "signbit", "copysign", "heaviside", "nan_to_num", "fmax",
    "fmin", "xlogy", "xdivy", "logaddexp", "logaddexp2", "sinc", "deg2rad", "rad2deg",
    "lerp", "addcmul", "addcdiv", "logical_xor",
    "leaky_relu", "elu", "selu", "celu", "softplus", "logsigmoid", "mish", "silu", "softsign",
    "hardsigmoid", "hardtanh", "relu6", "hardshrink", "softshrink", "tanhshrink", "threshold",
    "glu", "softmin", "prelu",
    *_PLAIN, "Elu", "CeLU", "HShrink", "SoftShrink", "GLU", "NanToNum",
]
