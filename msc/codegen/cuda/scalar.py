"""The cuda target's renderer of kernel-IR scalar expressions (``msc/ir/kernel.py``):
numba.cuda compiles ``math`` functions and some numpy ufuncs on scalars, but not every
ufunc the numba target calls, and no call of a ``@njit`` runtime helper.

``device_template`` is an elementwise op's expression as a kernel computes it (the op
record's cuda form, ``Device.scalar``, where the numba target's calls a runtime helper),
or None when a kernel cannot: that op then runs on the host (``lower.py``), so the tables
of functions below only ever cost speed, never correctness. ``render_device`` writes it.
"""

from __future__ import annotations

from typing import Any

from msc.ir import kernel
from msc.ir.dtypes import DType, float32, float64
from msc.ir.kernel import (
    Binary,
    Call,
    Cast,
    Compare,
    Expr,
    Fn,
    Helper,
    Lit,
    Name,
    Neg,
    Select,
)
from msc.ir.primitives.base import Device, Elementwise, Primitive
from msc.ir.primitives.emitting import dtype_ref

#: numpy functions with a ``math`` (or builtin) function of the same meaning on scalars.
_MATH = {Fn.EXP: "math.exp", Fn.LOG1P: "math.log1p", Fn.EXPM1: "math.expm1",
         Fn.SQRT: "math.sqrt", Fn.ABS: "abs", Fn.TANH: "math.tanh", Fn.ISNAN: "math.isnan",
         Fn.ISINF: "math.isinf", Fn.ISFINITE: "math.isfinite", Fn.MATH_ERF: "math.erf",
         Fn.MATH_ERFC: "math.erfc", Fn.FMOD: "math.fmod"}
#: numpy functions written with ``math`` on float operands only (``math``'s floor, ceil and
#: trunc return integers): beyond 2**52 (and for inf and nan) every float is integral;
#: copysign keeps -0.0's sign. trunc is the floor of the magnitude, signed: the
#: simulator's numpy float32 has no ``__trunc__``.
_INTEGRAL = "(math.copysign(math.{f}({x}), {y}) if abs({y}) < 4503599627370496.0 else {y})"
_FLOAT_ONLY = {Fn.FLOOR: lambda x: _INTEGRAL.format(f="floor", x=x, y=x),
               Fn.CEIL: lambda x: _INTEGRAL.format(f="ceil", x=x, y=x),
               Fn.TRUNC: lambda x: _INTEGRAL.format(f="floor", x=f"abs({x})", y=x),
               Fn.EXP2: lambda x: f"math.pow(2.0, {x})"}
#: numpy ufuncs numba.cuda compiles on scalars itself (nan-propagating maximum/minimum).
_UFUNCS = frozenset({Fn.MAXIMUM, Fn.MINIMUM, Fn.LOG, Fn.LOG2, Fn.LOG10, Fn.SIN, Fn.COS,
                     Fn.TAN, Fn.ARCSIN, Fn.ARCCOS, Fn.ARCTAN, Fn.SINH, Fn.COSH, Fn.ARCSINH,
                     Fn.ARCCOSH, Fn.ARCTANH, Fn.ARCTAN2, Fn.HYPOT, Fn.LOGICAL_NOT,
                     Fn.LOGICAL_AND, Fn.LOGICAL_OR})
#: Literals a kernel cannot write as the host does (no ``float(str)`` on a GPU).
_SPECIAL_FLOATS = {float("inf"): "math.inf", float("-inf"): "(-math.inf)"}


def device_template(op: Primitive, lowering: Elementwise, attr: dict[str, Any],
                    dt: DType | None) -> Expr | None:
    """The expression a kernel computes for ``op`` in dtype ``dt`` (operands ``X0, X1``,
    attributes bound), or None when kernels cannot compute it: the op record's own cuda
    form where it has one (``Device.scalar``), else the numba target's ``lowering``."""
    own = op.lowering_for("cuda")
    if isinstance(own, Device) and own.scalar is not None:
        return own.scalar(attr, dt) if dt is not None else None
    template = kernel.bind(lowering.scalar or lowering.expr, attr)
    ok = all(_on_device(e, dt) for e in kernel.nodes(template))
    return template if ok else None


def _on_device(e: Expr, dt: DType | None) -> bool:
    if isinstance(e, Helper):
        return False
    if isinstance(e, Call):
        return e.fn in _MATH or e.fn in _UFUNCS or \
            (e.fn in _FLOAT_ONLY and dt in (float32, float64))
    return True


def render_device(e: Expr) -> str:
    """``e``'s source inside a ``@cuda.jit`` kernel (``device_template``'s forms only)."""
    r = render_device
    if isinstance(e, Name):
        return e.name
    if isinstance(e, Lit):
        if isinstance(e.value, float) and (e.value in _SPECIAL_FLOATS or e.value != e.value):
            text = _SPECIAL_FLOATS.get(e.value, "math.nan")
        else:
            text = repr(bool(e.value)) if isinstance(e.value, bool) else repr(e.value)
        return f"{dtype_ref(e.dtype)}({text})" if e.dtype is not None else text
    if isinstance(e, (Binary, Compare)):
        return f"({r(e.a)} {e.op.value} {r(e.b)})"
    if isinstance(e, Neg):
        return f"(-{r(e.x)})"
    if isinstance(e, Call):
        args = ", ".join(r(a) for a in e.args)
        if e.fn in _FLOAT_ONLY:
            return _FLOAT_ONLY[e.fn](args)
        return f"{_MATH[e.fn]}({args})" if e.fn in _MATH else f"np.{e.fn.value}({args})"
    if isinstance(e, Select):
        return f"({r(e.a)} if {r(e.cond)} else {r(e.b)})"
    if isinstance(e, Cast):
        return f"{dtype_ref(e.dtype)}({r(e.x)})"
    raise TypeError(f"no kernel form for {e}")
