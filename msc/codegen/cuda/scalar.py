"""The scalar expressions of elementwise ops inside CUDA kernels, derived from the numba
target's: numba.cuda compiles ``math`` functions, and some numpy ufuncs on
scalars, but not every ufunc the numba target writes, and no call of a ``@njit`` helper.

``device_scalar`` rewrites a numba scalar template (``np.exp({0})`` -> ``math.exp({0})``);
an op it cannot rewrite runs on the host instead (``lower.py``), so the table only ever
costs speed, never correctness.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from msc.ir.dtypes import DType, float32, float64
from msc.ir.primitives import Op
from msc.ir.primitives.base import Elementwise, Primitive

#: numpy functions with a ``math`` (or builtin) function of the same meaning on scalars.
_MATH = {"exp": "math.exp", "log1p": "math.log1p", "expm1": "math.expm1",
         "sqrt": "math.sqrt", "abs": "abs", "tanh": "math.tanh", "isnan": "math.isnan",
         "isinf": "math.isinf", "isfinite": "math.isfinite"}
#: numpy functions written with ``math`` (whose floor, ceil and trunc return integers):
#: beyond 2**52 (and for inf and nan) every float is integral; copysign keeps -0.0's sign.
_INTEGRAL = "(math.copysign(math.{f}({{0}}), {{0}}) if abs({{0}}) < 4503599627370496.0 " \
    "else {{0}})"
_REWRITTEN = {"floor": _INTEGRAL.format(f="floor"), "ceil": _INTEGRAL.format(f="ceil"),
              "trunc": _INTEGRAL.format(f="trunc"), "exp2": "math.pow(2.0, {0})"}
#: numpy ufuncs numba.cuda compiles on scalars itself (nan-propagating maximum/minimum).
_UFUNCS = frozenset({"maximum", "minimum", "log", "log2", "log10", "sin", "cos", "tan",
                     "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh",
                     "arctanh", "arctan2", "hypot", "logical_not", "logical_and",
                     "logical_or"})
#: dtype constructors convert scalars in kernels as they do in numba's own loops.
_CONSTRUCTORS = frozenset({"float16", "float32", "float64", "int8", "int16", "int32", "int64",
                           "uint8", "uint16", "uint32", "uint64", "bool_"})
_NP_CALL = re.compile(r"\bnp\.(\w+)\(")


def _gelu(attr: dict[str, Any], dt: DType) -> str | None:
    if attr["approximate"] == "tanh":
        return "(0.5 * {0} * (1.0 + math.tanh(0.7978845608028654 * " \
            "({0} + 0.044715 * {0} * {0} * {0}))))"
    return "(0.5 * {0} * (1.0 + math.erf({0} / 1.4142135623730951)))"


#: Ops whose numba form calls a runtime helper: their kernel form, by attributes and the
#: compute dtype (None: the host runs it). (No libdevice: the simulator's is a stub.)
_SPECIAL: dict[Primitive, Callable[[dict[str, Any], DType], str | None]] = {
    Op.GeLU: _gelu,
    Op.Pow: lambda attr, dt: "({0} ** {1})",  # as the numba target's _rt_pow
    Op.Mod: lambda attr, dt: "math.fmod({0}, {1})" if dt in (float32, float64) else None,
}


def device_scalar(op: Primitive, lowering: Elementwise, attr: dict[str, Any],
                  dt: DType | None) -> str | None:
    """The kernel template of ``op`` computing in ``dt`` (operands ``{0}, {1}``, attributes
    by name, as the numba target's), or None when kernels cannot compute it."""
    if op in _SPECIAL:
        return _SPECIAL[op](attr, dt) if dt is not None else None
    template = lowering.scalar or lowering.expr
    if "_rt_" in template:
        return None
    unknown: list[str] = []

    def rewrite(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in _MATH:
            return _MATH[name] + "("
        if name not in _UFUNCS and name not in _CONSTRUCTORS:
            unknown.append(name)
        return m.group(0)

    for name, form in _REWRITTEN.items():  # whole calls: their operand is repeated
        call = f"np.{name}({{0}})"
        if call in template:
            if dt not in (float32, float64):
                return None
            template = template.replace(call, form)
    text = _NP_CALL.sub(rewrite, template)
    return None if unknown else text
