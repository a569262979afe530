"""The scalar expressions of elementwise ops inside CUDA kernels, derived from the numba
target's: numba.cuda compiles ``math`` functions, ``libdevice`` and some numpy ufuncs on
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
#: numpy functions whose libdevice function has a float32 (``...f``) and a float64 form.
_LIBDEVICE = frozenset({"floor", "ceil", "trunc", "rint", "exp2"})
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


def _float_only(text32: str, text64: str) -> Callable[[dict[str, Any], DType], str | None]:
    return lambda attr, dt: text32 if dt == float32 else text64 if dt == float64 else None


#: Ops whose numba form calls a runtime helper: their kernel form, by attributes and the
#: compute dtype (None: the host runs it).
_SPECIAL: dict[Primitive, Callable[[dict[str, Any], DType], str | None]] = {
    Op.GeLU: _gelu,
    Op.Pow: lambda attr, dt: "({0} ** {1})",  # as the numba target's _rt_pow
    Op.Mod: _float_only("math.fmod({0}, {1})", "math.fmod({0}, {1})"),
    Op.Erfinv: _float_only("libdevice.erfinvf({0})", "libdevice.erfinv({0})"),
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
        if name in _LIBDEVICE and dt in (float32, float64):
            return f"libdevice.{name}{'f' if dt == float32 else ''}("
        if name not in _UFUNCS and name not in _CONSTRUCTORS:
            unknown.append(name)
        return m.group(0)

    text = _NP_CALL.sub(rewrite, template)
    return None if unknown else text
